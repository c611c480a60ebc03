//===- JitScalars.cpp - Python scalars <-> C interface values -------------===//

#include "JitScalars.h"
#include "HalfFloat.h"
#include "NumpyApi.h"

#include <cstring>
#include <limits>

namespace mlir::python::jit {

bool fail(PyObject *exception, const ValueSpec &spec, const char *message) {
  PyErr_Format(exception, "%s: %s", spec.label.c_str(), message);
  return false;
}

namespace {

/// Raises "<label>: expected <what>, got <type>"; returns false.
bool expected(const ValueSpec &spec, const char *what, PyObject *object) {
  PyErr_Format(PyExc_TypeError, "%s: expected %s, got %s", spec.label.c_str(),
               what, Py_TYPE(object)->tp_name);
  return false;
}

bool conversionFailed(const ValueSpec &spec, const char *what,
                      PyObject *object);

bool isNumpyBool(PyObject *object) { return PyArray_IsScalar(object, Bool); }

/// `shown` is what an out-of-range message shows: `object`, or the 0-d
/// array it is the element of.
bool toInteger(PyObject *object, const ValueSpec &spec, int64_t &value,
               PyObject *shown) {
  int overflow = 0;
  if (PyLong_CheckExact(object)) { // the common case, first
    value = PyLong_AsLongLongAndOverflow(object, &overflow);
  } else if (isNumpyBool(object)) {
    value = PyObject_IsTrue(object);
  } else if (PyFloat_Check(object) || PyComplex_Check(object) ||
             PyArray_Check(object) || !PyIndex_Check(object)) {
    return expected(spec, "an int", object);
  } else {
    PyObject *index = PyNumber_Index(object);
    if (!index) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError))
        return false; // the object's own error, such as KeyboardInterrupt
      PyErr_Clear();
      return expected(spec, "an int", object);
    }
    value = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
  }
  if (value == -1 && PyErr_Occurred())
    return false;
  int bits = spec.kind == kI1    ? 1
             : spec.kind == kI8  ? 8
             : spec.kind == kI16 ? 16
             : spec.kind == kI32 ? 32
                                 : 64;
  int64_t low =
      bits == 1 ? 0 : std::numeric_limits<int64_t>::min() >> (64 - bits);
  int64_t high =
      bits == 1 ? 1 : std::numeric_limits<int64_t>::max() >> (64 - bits);
  if (overflow || value < low || value > high) {
    // %A: ascii(), so that a repr with lone surrogates still prints.
    PyErr_Format(PyExc_ValueError, "%s: %A is out of range [%lld, %lld]",
                 spec.label.c_str(), shown, static_cast<long long>(low),
                 static_cast<long long>(high));
    return false;
  }
  return true;
}

bool toDouble(PyObject *object, const ValueSpec &spec, double &value) {
  if (PyFloat_CheckExact(object)) {
    value = PyFloat_AS_DOUBLE(object);
    return true;
  }
  // A complex (numpy's complex64 is no Python complex) would lose its
  // imaginary part; numpy's void scalars (raw bytes, records) would be
  // parsed as text.
  if (PyComplex_Check(object) || PyArray_IsScalar(object, ComplexFloating) ||
      PyArray_Check(object) || PyUnicode_Check(object) ||
      PyBytes_Check(object) || PyArray_IsScalar(object, Void))
    return expected(spec, "a float", object);
  value = PyFloat_AsDouble(object);
  return value != -1.0 || !PyErr_Occurred() ||
         conversionFailed(spec, "a float", object);
}

/// After a failed conversion to `what`: a TypeError or OverflowError
/// becomes one naming the value; any other error (KeyboardInterrupt from
/// the object's own method, say) stays. Returns false.
bool conversionFailed(const ValueSpec &spec, const char *what,
                      PyObject *object) {
  if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
    PyErr_Clear();
    return fail(PyExc_ValueError, spec, "the value is too large for a float");
  }
  if (!PyErr_ExceptionMatches(PyExc_TypeError))
    return false;
  PyErr_Clear();
  return expected(spec, what, object);
}

/// What a scalar of `kind` is expected to be, for messages.
const char *expectedScalar(Kind kind) {
  switch (kind) {
  case kF16:
  case kBF16:
  case kF32:
  case kF64:
    return "a float";
  case kComplex64:
  case kComplex128:
    return "a complex";
  default:
    return "an int";
  }
}

/// The element of `array`, a 0-d array not of objects, as a numpy scalar (a
/// new reference, or null with an exception set).
PyObject *elementOf(PyArrayObject *array) {
  return PyArray_ToScalar(PyArray_DATA(array), array);
}

/// Writes the scalar `object` to `slot`; `shown` is what messages show
/// (the 0-d array `object` came from, or `object`).
bool storeScalarShown(PyObject *object, const ValueSpec &spec, char *slot,
                      PyObject *shown) {
  switch (spec.kind) {
  case kI1:
  case kI8:
  case kI16:
  case kI32:
  case kI64:
  case kIndex: {
    int64_t value;
    if (!toInteger(object, spec, value, shown))
      return false;
    // Little-endian: the low bytes of the int64 are the narrower integer (a
    // slot has room for all 8).
    std::memcpy(slot, &value, 8);
    return true;
  }
  case kF16:
  case kBF16:
  case kF32:
  case kF64: {
    double value;
    if (!toDouble(object, spec, value))
      return false;
    if (spec.kind == kF64) {
      std::memcpy(slot, &value, 8);
    } else if (spec.kind == kF32) {
      float f = static_cast<float>(value);
      std::memcpy(slot, &f, 4);
    } else {
      uint16_t half =
          spec.kind == kF16 ? doubleToHalf(value) : doubleToBF16(value);
      std::memcpy(slot, &half, 2);
    }
    return true;
  }
  case kComplex64:
  case kComplex128: {
    if (PyUnicode_Check(object) || PyBytes_Check(object) ||
        PyArray_Check(object) || PyArray_IsScalar(object, Void))
      return expected(spec, "a complex", object);
    Py_complex value = PyComplex_AsCComplex(object);
    if (value.real == -1.0 && PyErr_Occurred())
      return conversionFailed(spec, "a complex", object);
    if (spec.kind == kComplex128) {
      std::memcpy(slot, &value, 16);
    } else {
      float parts[2] = {static_cast<float>(value.real),
                        static_cast<float>(value.imag)};
      std::memcpy(slot, parts, 8);
    }
    return true;
  }
  case kMemRef:
  case kVector:
    break;
  }
  return fail(PyExc_TypeError, spec, "not a scalar");
}

} // namespace

bool storeScalar(PyObject *object, const ValueSpec &spec, char *slot) {
  if (spec.kind == kMemRef || spec.kind == kVector || !PyArray_Check(object))
    return storeScalarShown(object, spec, slot, object);
  // A 0-d array is taken as the numpy scalar it holds, as numpy and ctypes
  // take it (float(np.array(2.5))), by the same rules: an integer parameter
  // takes no float, a float one no complex, ranges are checked. Other
  // arrays, and 0-d arrays of objects, are refused.
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  if (PyArray_NDIM(array) != 0)
    return expected(spec, expectedScalar(spec.kind), object);
  PyObject *dtype = reinterpret_cast<PyObject *>(PyArray_DESCR(array));
  PyObject *element =
      PyArray_TYPE(array) == NPY_OBJECT ? nullptr : elementOf(array);
  bool stored = element && storeScalarShown(element, spec, slot, object);
  Py_XDECREF(element);
  if (!stored &&
      (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))) {
    // Named as what was passed: "a 0-d array of complex128".
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: expected %s, got a 0-d array of %S",
                 spec.label.c_str(), expectedScalar(spec.kind), dtype);
  }
  return stored;
}

} // namespace mlir::python::jit
