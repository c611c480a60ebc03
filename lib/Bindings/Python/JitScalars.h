//===- JitScalars.h - Python scalars <-> C interface values ---------------===//
//
// Converts Python ints, floats, complexes and bools (and numpy scalars) to the
// C representation of a scalar ValueSpec and back. Failures set a Python
// exception naming the value (its spec's label) and return false/null; no C++
// exception leaves these functions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITSCALARS_H
#define MLIR_BINDINGS_PYTHON_JITSCALARS_H

#include "JitValues.h"

#include <Python.h>

namespace mlir::python::jit {

/// Writes the scalar `object` to `slot` in `spec`'s C representation.
bool storeScalar(PyObject *object, const ValueSpec &spec, char *slot);

/// A new reference to the Python value of the scalar at `slot`.
PyObject *loadScalar(const ValueSpec &spec, const char *slot);

/// Raises `exception` with "<label>: <message>"; returns false.
bool fail(PyObject *exception, const ValueSpec &spec, const char *message);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITSCALARS_H
