//===- JitScalars.h - Python scalars <-> C interface values ---------------===//
//
// Converts Python ints, floats, complexes and bools (and numpy scalars, and
// 0-d arrays as the scalars they hold) to the C representation of a scalar
// ValueSpec and back. Failures set a Python exception naming the value (its
// spec's label) and return false/null; no C++ exception leaves these
// functions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITSCALARS_H
#define MLIR_BINDINGS_PYTHON_JITSCALARS_H

#include "HalfFloat.h"
#include "JitValues.h"

#include <Python.h>

namespace mlir::python::jit {

/// Writes the scalar `object` to `slot` in `spec`'s C representation.
bool storeScalar(PyObject *object, const ValueSpec &spec, char *slot);

/// Raises `exception` with "<label>: <message>"; returns false.
bool fail(PyObject *exception, const ValueSpec &spec, const char *message);

/// A new reference to the Python value of the scalar at `slot`. Inline: it
/// boxes every scalar result of a typed call.
inline PyObject *loadScalar(const ValueSpec &spec, const char *slot) {
  switch (spec.kind) {
  case kI1:
    return PyBool_FromLong(*reinterpret_cast<const uint8_t *>(slot) & 1);
  case kI8:
    return PyLong_FromLong(*reinterpret_cast<const int8_t *>(slot));
  case kI16:
    return PyLong_FromLong(*reinterpret_cast<const int16_t *>(slot));
  case kI32:
    return PyLong_FromLong(*reinterpret_cast<const int32_t *>(slot));
  case kI64:
  case kIndex:
    return PyLong_FromLongLong(*reinterpret_cast<const int64_t *>(slot));
  case kF16:
    return PyFloat_FromDouble(
        halfToFloat(*reinterpret_cast<const uint16_t *>(slot)));
  case kBF16:
    return PyFloat_FromDouble(
        bf16ToFloat(*reinterpret_cast<const uint16_t *>(slot)));
  case kF32:
    return PyFloat_FromDouble(*reinterpret_cast<const float *>(slot));
  case kF64:
    return PyFloat_FromDouble(*reinterpret_cast<const double *>(slot));
  case kComplex64: {
    const float *parts = reinterpret_cast<const float *>(slot);
    return PyComplex_FromDoubles(parts[0], parts[1]);
  }
  case kComplex128: {
    const double *parts = reinterpret_cast<const double *>(slot);
    return PyComplex_FromDoubles(parts[0], parts[1]);
  }
  case kMemRef:
  case kVector:
    break;
  }
  fail(PyExc_TypeError, spec, "not a scalar");
  return nullptr;
}

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITSCALARS_H
