//===- JitCalls.cpp - Typed calls into and out of jitted code -------------===//
//
// The hot paths of `mlir.execution_engine.jit`: converting Python values and
// numpy arrays to the C interface of jitted functions (`_mlir_ciface_*`,
// called through their packed wrappers), converting results back, and
// dispatching calls from jitted code to Python callbacks.
//
// A value's type arrives from Python as a spec tuple
//   (kind, label, dtype, shape, strides, offset)
// where `label` names it in error messages ("argument 0 of 'add' (i64)") and
// the last four describe memrefs: numpy dtype, shape (-1: dynamic), strides in
// elements (None: dynamic) and offset (None: dynamic).
//
// Callbacks: for each declared callback, the module gets a trampoline
// `_mlir_ciface_<name>` (generated in Python as LLVM dialect text) that stores
// its arguments in 16-byte slots and calls `mlirJitCallbackDispatch` with the
// callback's CallbackSlot, which converts them, calls the Python function and
// writes its results back to slots. An exception in a callback is kept for the
// thread and re-raised by the typed call that ran the jitted code.
//
//===----------------------------------------------------------------------===//

#include "JitCalls.h"
#include "PybindUtils.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL mlir_jit_numpy_api
#include <numpy/arrayobject.h>

#include <alloca.h>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir::python;

namespace {

//===----------------------------------------------------------------------===//
// Value kinds and their C layout.
//===----------------------------------------------------------------------===//

enum Kind : int {
  kI1,
  kI8,
  kI16,
  kI32,
  kI64,
  kIndex,
  kF16,
  kBF16,
  kF32,
  kF64,
  kComplex64,
  kComplex128,
  kMemRef,
};

constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

struct ValueSpec {
  Kind kind;
  std::string label;
  py::object dtype; // memref element dtype
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; // kDynamic where dynamic
  int64_t offset = kDynamic;

  int rank() const { return static_cast<int>(shape.size()); }
  PyArray_Descr *descr() const {
    return reinterpret_cast<PyArray_Descr *>(dtype.ptr());
  }
};

/// Size and alignment of a value held in memory: memrefs as their descriptor.
size_t sizeOf(const ValueSpec &spec) {
  switch (spec.kind) {
  case kI1:
  case kI8:
    return 1;
  case kI16:
  case kF16:
  case kBF16:
    return 2;
  case kI32:
  case kF32:
    return 4;
  case kI64:
  case kIndex:
  case kF64:
  case kComplex64:
    return 8;
  case kComplex128:
    return 16;
  case kMemRef:
    return 8 * (3 + 2 * spec.rank());
  }
  return 0;
}

size_t alignOf(const ValueSpec &spec) {
  switch (spec.kind) {
  case kComplex64:
    return 4;
  case kComplex128:
  case kMemRef:
    return 8;
  default:
    return sizeOf(spec);
  }
}

size_t alignTo(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// The C interface returns a struct (several results, a complex, a memref)
/// through a pointer passed as its first argument.
bool resultsByPointer(const std::vector<ValueSpec> &results) {
  return results.size() > 1 ||
         (results.size() == 1 &&
          (results[0].kind == kComplex64 || results[0].kind == kComplex128 ||
           results[0].kind == kMemRef));
}

/// Field offsets of the results' struct, and its size.
std::vector<size_t> structLayout(const std::vector<ValueSpec> &fields,
                                 size_t &size) {
  std::vector<size_t> offsets;
  size = 0;
  size_t alignment = 1;
  for (const ValueSpec &field : fields) {
    size = alignTo(size, alignOf(field));
    offsets.push_back(size);
    size += sizeOf(field);
    alignment = std::max(alignment, alignOf(field));
  }
  size = alignTo(size, alignment);
  return offsets;
}

ValueSpec parseSpec(py::handle spec) {
  auto tuple = spec.cast<py::tuple>();
  ValueSpec result;
  result.kind = static_cast<Kind>(tuple[0].cast<int>());
  result.label = tuple[1].cast<std::string>();
  if (result.kind != kMemRef)
    return result;
  // `dtype` is a numpy dtype instance; keep it as given.
  result.dtype = py::reinterpret_borrow<py::object>(tuple[2]);
  if (!PyArray_DescrCheck(result.dtype.ptr()))
    throw py::type_error(result.label + ": expected a numpy dtype");
  for (py::handle dim : tuple[3])
    result.shape.push_back(dim.cast<int64_t>());
  for (py::handle stride : tuple[4])
    result.strides.push_back(stride.is_none() ? kDynamic
                                              : stride.cast<int64_t>());
  result.offset = tuple[5].is_none() ? kDynamic : tuple[5].cast<int64_t>();
  return result;
}

std::vector<ValueSpec> parseSpecs(py::iterable specs) {
  std::vector<ValueSpec> result;
  for (py::handle spec : specs)
    result.push_back(parseSpec(spec));
  return result;
}

//===----------------------------------------------------------------------===//
// f16 and bf16, which C++17 has no type for.
//===----------------------------------------------------------------------===//

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) // inf or nan
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  int32_t halfExponent = static_cast<int32_t>(exponent) - 127 + 15;
  if (halfExponent >= 31)
    return sign | 0x7c00;
  uint32_t shift, half;
  if (halfExponent <= 0) { // subnormal or zero
    if (halfExponent < -10)
      return sign;
    mantissa |= 0x800000;
    shift = 14 - halfExponent;
    half = mantissa >> shift;
  } else {
    shift = 13;
    half = (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
  }
  // Round to nearest, ties to even; a carry correctly bumps the exponent.
  uint32_t rest = mantissa & ((1u << shift) - 1), middle = 1u << (shift - 1);
  if (rest > middle || (rest == middle && (half & 1)))
    ++half;
  return sign | half;
}

float halfToFloat(uint16_t half) {
  uint32_t sign = (half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ff;
  uint32_t bits;
  if (exponent == 0 && mantissa == 0) {
    bits = sign;
  } else if (exponent == 0) { // subnormal: normalize
    exponent = 127 - 15 + 1;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  } else if (exponent == 31) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t floatToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) // nan: keep it a quiet nan
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest, ties to even
  return static_cast<uint16_t>(bits >> 16);
}

float bf16ToFloat(uint16_t half) {
  uint32_t bits = static_cast<uint32_t>(half) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

//===----------------------------------------------------------------------===//
// Python <-> C scalars.
//===----------------------------------------------------------------------===//

const char *typeName(PyObject *object) { return Py_TYPE(object)->tp_name; }

/// Raises `exception` with "<label>: <message>"; returns false for chaining.
bool fail(PyObject *exception, const ValueSpec &spec,
          const std::string &message) {
  PyErr_SetString(exception, (spec.label + ": " + message).c_str());
  return false;
}

bool toInteger(PyObject *object, const ValueSpec &spec, int64_t &value) {
  if (PyFloat_Check(object) || PyComplex_Check(object) ||
      !PyIndex_Check(object))
    return fail(PyExc_TypeError, spec,
                std::string("expected an int, got ") + typeName(object));
  int overflow = 0;
  if (PyLong_Check(object)) {
    value = PyLong_AsLongLongAndOverflow(object, &overflow);
  } else {
    PyObject *index = PyNumber_Index(object);
    if (!index)
      return false;
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
  int64_t low = bits == 1 ? 0 : std::numeric_limits<int64_t>::min() >> (64 - bits);
  int64_t high = bits == 1 ? 1 : std::numeric_limits<int64_t>::max() >> (64 - bits);
  if (overflow || value < low || value > high) {
    PyObject *repr = PyObject_Repr(object);
    std::string text = repr ? PyUnicode_AsUTF8(repr) : "value";
    Py_XDECREF(repr);
    return fail(PyExc_ValueError, spec,
                text + " is out of range [" + std::to_string(low) + ", " +
                    std::to_string(high) + "]");
  }
  return true;
}

bool toDouble(PyObject *object, const ValueSpec &spec, double &value) {
  if (PyFloat_CheckExact(object)) {
    value = PyFloat_AS_DOUBLE(object);
    return true;
  }
  // A complex (numpy's complex64 is no Python complex) would lose its
  // imaginary part.
  if (PyComplex_Check(object) || PyArray_IsScalar(object, ComplexFloating) ||
      PyUnicode_Check(object) || PyBytes_Check(object))
    return fail(PyExc_TypeError, spec,
                std::string("expected a float, got ") + typeName(object));
  value = PyFloat_AsDouble(object);
  if (value == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return fail(PyExc_TypeError, spec,
                std::string("expected a float, got ") + typeName(object));
  }
  return true;
}

/// Writes the scalar `object` to `slot` in `spec`'s C representation.
bool storeScalar(PyObject *object, const ValueSpec &spec, char *slot) {
  switch (spec.kind) {
  case kI1:
  case kI8:
  case kI16:
  case kI32:
  case kI64:
  case kIndex: {
    int64_t value;
    if (!toInteger(object, spec, value))
      return false;
    // Little-endian: the low bytes of the int64 are the narrower integer.
    std::memcpy(slot, &value, sizeOf(spec));
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
      uint16_t half = spec.kind == kF16
                          ? floatToHalf(static_cast<float>(value))
                          : floatToBF16(static_cast<float>(value));
      std::memcpy(slot, &half, 2);
    }
    return true;
  }
  case kComplex64:
  case kComplex128: {
    if (PyUnicode_Check(object) || PyBytes_Check(object))
      return fail(PyExc_TypeError, spec,
                  std::string("expected a complex, got ") + typeName(object));
    Py_complex value = PyComplex_AsCComplex(object);
    if (value.real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return fail(PyExc_TypeError, spec,
                  std::string("expected a complex, got ") + typeName(object));
    }
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
    break;
  }
  return fail(PyExc_TypeError, spec, "not a scalar");
}

PyObject *loadScalar(const ValueSpec &spec, const char *slot) {
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
    break;
  }
  PyErr_SetString(PyExc_TypeError, "not a scalar");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// numpy arrays <-> memref descriptors.
//===----------------------------------------------------------------------===//

/// A ranked memref descriptor, as the C interface lays it out.
struct MemRefView {
  int64_t *words;
  int rank;
  char *&allocated() { return *reinterpret_cast<char **>(&words[0]); }
  char *&aligned() { return *reinterpret_cast<char **>(&words[1]); }
  int64_t &offset() { return words[2]; }
  int64_t &size(int d) { return words[3 + d]; }
  int64_t &stride(int d) { return words[3 + rank + d]; }
};

std::string shapeText(int ndim, const npy_intp *dims) {
  std::string text = "(";
  for (int d = 0; d < ndim; ++d)
    text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + (ndim == 1 ? ",)" : ")");
}

/// Fills `descriptor` to view `object`, a numpy array, without copying.
bool storeMemRef(PyObject *object, const ValueSpec &spec,
                 MemRefView descriptor) {
  if (!PyArray_Check(object))
    return fail(PyExc_TypeError, spec,
                std::string("expected a numpy array, got ") + typeName(object));
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  if (!PyArray_EquivTypes(PyArray_DESCR(array), spec.descr())) {
    std::string got = py::str(reinterpret_cast<PyObject *>(PyArray_DESCR(array)));
    return fail(PyExc_TypeError, spec,
                "expected an array of dtype " + std::string(py::str(spec.dtype)) +
                    ", got dtype " + got);
  }
  int ndim = PyArray_NDIM(array);
  const npy_intp *dims = PyArray_DIMS(array);
  if (ndim != spec.rank())
    return fail(PyExc_ValueError, spec,
                "expected an array of rank " + std::to_string(spec.rank()) +
                    ", got shape " + shapeText(ndim, dims));
  npy_intp itemsize = PyArray_ITEMSIZE(array);
  const npy_intp *strides = PyArray_STRIDES(array);
  for (int d = 0; d < ndim; ++d)
    if (spec.shape[d] >= 0 && dims[d] != spec.shape[d])
      return fail(PyExc_ValueError, spec,
                  "dimension " + std::to_string(d) + " must be " +
                      std::to_string(spec.shape[d]) + ", got shape " +
                      shapeText(ndim, dims));
  for (int d = 0; d < ndim; ++d) {
    if (strides[d] % itemsize != 0)
      return fail(PyExc_ValueError, spec,
                  "array strides are not a multiple of its element size; "
                  "pass np.ascontiguousarray(array)");
    int64_t stride = strides[d] / itemsize;
    if (spec.strides[d] != kDynamic) {
      // A dimension of size 1 (or 0) is never stepped over.
      if (dims[d] > 1 && stride != spec.strides[d])
        return fail(PyExc_ValueError, spec,
                    "the memref type fixes the stride of dimension " +
                        std::to_string(d) + " to " +
                        std::to_string(spec.strides[d]) +
                        " elements, the array's is " + std::to_string(stride) +
                        "; pass np.ascontiguousarray(array) or give the "
                        "parameter a strided layout with dynamic strides");
      stride = spec.strides[d];
    }
    descriptor.size(d) = dims[d];
    descriptor.stride(d) = stride;
  }
  char *data = static_cast<char *>(PyArray_DATA(array));
  descriptor.allocated() = data;
  // A static offset is part of the type: point `aligned` that many elements
  // before the data, so that aligned + offset is the first element.
  int64_t offset = spec.offset == kDynamic ? 0 : spec.offset;
  descriptor.aligned() = data - offset * itemsize;
  descriptor.offset() = offset;
  return true;
}

/// Frees, with the allocator jitted code uses, memory it returned.
void freeAllocation(PyObject *capsule) {
  std::free(PyCapsule_GetPointer(capsule, "mlir.jit.allocation"));
}

/// A numpy array over a memref descriptor. `base` keeps the memory alive
/// (or is null for a view valid only while the descriptor is).
PyObject *memRefToArray(const ValueSpec &spec, MemRefView descriptor,
                        PyObject *base) {
  npy_intp itemsize = PyDataType_ELSIZE(spec.descr());
  std::vector<npy_intp> dims(spec.rank()), strides(spec.rank());
  for (int d = 0; d < spec.rank(); ++d) {
    dims[d] = descriptor.size(d);
    strides[d] = descriptor.stride(d) * itemsize;
  }
  Py_INCREF(spec.descr()); // stolen by PyArray_NewFromDescr
  PyObject *array = PyArray_NewFromDescr(
      &PyArray_Type, spec.descr(), spec.rank(), dims.data(), strides.data(),
      descriptor.aligned() + descriptor.offset() * itemsize,
      NPY_ARRAY_WRITEABLE, nullptr);
  if (!array) {
    Py_XDECREF(base);
    return nullptr;
  }
  if (base && PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(array),
                                    base) < 0) {
    Py_DECREF(array);
    return nullptr;
  }
  return array;
}

//===----------------------------------------------------------------------===//
// Exceptions raised by callbacks, kept for the call that ran the jitted code.
//===----------------------------------------------------------------------===//

struct PendingError {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;

  bool isSet() const { return type != nullptr; }
  /// Takes the current Python error, unless one is already kept (the first
  /// one explains the failure).
  void take() {
    if (isSet()) {
      PyErr_Clear();
      return;
    }
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback)
      PyException_SetTraceback(value, traceback);
  }
  /// Raises the kept error (the same exception object, with its traceback).
  void restore() {
    PyErr_Restore(type, value, traceback);
    type = value = traceback = nullptr;
  }
  void clear() {
    Py_CLEAR(type);
    Py_CLEAR(value);
    Py_CLEAR(traceback);
  }
};

thread_local PendingError pendingError;

/// The thread state a typed call saved when it released the GIL, so that a
/// callback on the same thread takes the GIL back without PyGILState's
/// bookkeeping.
thread_local PyThreadState *releasedThreadState = nullptr;

//===----------------------------------------------------------------------===//
// Calls into jitted code.
//===----------------------------------------------------------------------===//

struct JitFunction {
  std::string name;
  std::string signature; // for repr and arity errors
  std::vector<ValueSpec> args, results;
  bool releaseGil;
  bool byPointer;
  py::object owner; // has `_address_of(name)`; keeps the engine alive
  void (*packed)(void **) = nullptr;

  // Frame layout: packed pointers, argument slots, memref descriptors,
  // results.
  size_t numPacked, slotsOffset, descriptorsOffset, resultsOffset, frameSize;
  std::vector<size_t> descriptorOffsets; // for each memref argument
  std::vector<size_t> resultOffsets;     // within the results area

  void layOut() {
    byPointer = resultsByPointer(results);
    numPacked = args.size() + (byPointer ? 1 : results.size());
    slotsOffset = alignTo(numPacked * sizeof(void *), 16);
    descriptorsOffset = slotsOffset + 16 * args.size();
    size_t offset = descriptorsOffset;
    for (const ValueSpec &arg : args) {
      descriptorOffsets.push_back(offset);
      if (arg.kind == kMemRef)
        offset += sizeOf(arg);
    }
    // With results by pointer, the struct follows a slot holding its address.
    resultsOffset = alignTo(offset, 16) + (byPointer ? 16 : 0);
    size_t resultsSize = 16;
    if (byPointer)
      resultOffsets = structLayout(results, resultsSize);
    else
      resultOffsets = {0};
    frameSize = resultsOffset + alignTo(resultsSize, 16);
  }
};

struct JitFunctionObject {
  PyObject_HEAD;
  vectorcallfunc vectorcall;
  JitFunction *function;
};

/// Converts the memref result at `descriptor` to an array owning the memory
/// the jitted code allocated, unless that memory belongs to an argument or
/// to the module (a global).
PyObject *memRefResult(JitFunction &function, const ValueSpec &spec,
                       MemRefView descriptor, PyObject *const *args,
                       std::vector<std::pair<char *, PyObject *>> &owners) {
  char *allocated = descriptor.allocated();
  PyObject *base = nullptr;
  // memref.get_global marks memory it does not own with this address.
  if (allocated == reinterpret_cast<char *>(0xdeadbeef)) {
    base = function.owner.ptr();
    Py_INCREF(base);
  }
  for (size_t i = 0; !base && i < function.args.size(); ++i)
    if (function.args[i].kind == kMemRef &&
        PyArray_DATA(reinterpret_cast<PyArrayObject *>(args[i])) == allocated) {
      base = args[i];
      Py_INCREF(base);
    }
  for (auto &owner : owners)
    if (!base && owner.first == allocated) {
      base = owner.second;
      Py_INCREF(base);
    }
  if (!base && allocated) {
    base = PyCapsule_New(allocated, "mlir.jit.allocation", freeAllocation);
    if (!base)
      return nullptr;
    owners.emplace_back(allocated, base); // borrowed: the array holds it
  }
  return memRefToArray(spec, descriptor, base);
}

PyObject *callJitFunction(PyObject *callable, PyObject *const *args,
                          size_t nargsf, PyObject *kwnames) {
  JitFunction &function =
      *reinterpret_cast<JitFunctionObject *>(callable)->function;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
    PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments",
                 function.name.c_str());
    return nullptr;
  }
  if (static_cast<size_t>(nargs) != function.args.size()) {
    PyErr_Format(PyExc_TypeError, "%s() takes %zu arguments, got %zd (its type is %s)",
                 function.name.c_str(), function.args.size(), nargs,
                 function.signature.c_str());
    return nullptr;
  }
  if (!function.owner) {
    PyErr_Format(PyExc_RuntimeError,
                 "%s(): its JitModule was cleared by the garbage collector",
                 function.name.c_str());
    return nullptr;
  }
  char *frame = static_cast<char *>(alloca(function.frameSize + 15));
  frame = reinterpret_cast<char *>(
      alignTo(reinterpret_cast<uintptr_t>(frame), 16));
  void **packed = reinterpret_cast<void **>(frame);
  char *slots = frame + function.slotsOffset;
  char *results = frame + function.resultsOffset;
  size_t next = 0;
  if (function.byPointer) {
    char **resultPointer = reinterpret_cast<char **>(results - 16);
    *resultPointer = results;
    packed[next++] = resultPointer;
  }
  for (size_t i = 0; i < function.args.size(); ++i) {
    const ValueSpec &spec = function.args[i];
    char *slot = slots + 16 * i;
    if (spec.kind == kMemRef) {
      auto *words =
          reinterpret_cast<int64_t *>(frame + function.descriptorOffsets[i]);
      if (!storeMemRef(args[i], spec, MemRefView{words, spec.rank()}))
        return nullptr;
      *reinterpret_cast<int64_t **>(slot) = words;
    } else if (!storeScalar(args[i], spec, slot)) {
      return nullptr;
    }
    packed[next++] = slot;
  }
  if (!function.byPointer && !function.results.empty())
    packed[next++] = results;

  if (!function.packed) {
    // The first call compiles the module (and checks the callbacks), once
    // the arguments are known to be right.
    PyObject *address = PyObject_CallMethod(function.owner.ptr(),
                                            "_address_of", "s",
                                            function.name.c_str());
    if (!address)
      return nullptr;
    function.packed = reinterpret_cast<void (*)(void **)>(
        PyLong_AsVoidPtr(address));
    Py_DECREF(address);
    if (PyErr_Occurred())
      return nullptr;
  }

  pendingError.clear();
  if (function.releaseGil) {
    PyThreadState *state = PyEval_SaveThread();
    releasedThreadState = state;
    function.packed(packed);
    releasedThreadState = nullptr;
    PyEval_RestoreThread(state);
  } else {
    function.packed(packed);
  }

  // Convert the results even after a callback failed, so that memory the
  // call allocated is freed with them.
  std::vector<std::pair<char *, PyObject *>> owners;
  std::vector<PyObject *> values;
  bool ok = true;
  for (size_t i = 0; i < function.results.size(); ++i) {
    const ValueSpec &spec = function.results[i];
    char *field = results + function.resultOffsets[i];
    PyObject *value =
        spec.kind == kMemRef
            ? memRefResult(function, spec,
                           MemRefView{reinterpret_cast<int64_t *>(field),
                                      spec.rank()},
                           args, owners)
            : loadScalar(spec, field);
    if (!value) {
      ok = false;
      break;
    }
    values.push_back(value);
  }
  if (!ok || pendingError.isSet()) {
    for (PyObject *value : values)
      Py_DECREF(value);
    if (pendingError.isSet()) {
      PyErr_Clear();
      pendingError.restore();
    }
    return nullptr;
  }
  if (values.empty())
    Py_RETURN_NONE;
  if (values.size() == 1)
    return values[0];
  PyObject *tuple = PyTuple_New(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    PyTuple_SET_ITEM(tuple, i, values[i]);
  return tuple;
}

// Functions take part in garbage collection: a callback may refer to the
// JitModule whose functions refer to the callbacks' state.
int traverseJitFunction(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(reinterpret_cast<JitFunctionObject *>(self)->function->owner.ptr());
  return 0;
}

int clearJitFunction(PyObject *self) {
  reinterpret_cast<JitFunctionObject *>(self)->function->owner = py::object();
  return 0;
}

void deallocJitFunction(PyObject *self) {
  PyObject_GC_UnTrack(self);
  auto *object = reinterpret_cast<JitFunctionObject *>(self);
  delete object->function;
  PyObject_GC_Del(self);
}

PyObject *reprJitFunction(PyObject *self) {
  JitFunction &function = *reinterpret_cast<JitFunctionObject *>(self)->function;
  return PyUnicode_FromFormat("<jitted function %s%s>", function.name.c_str(),
                              function.signature.c_str());
}

PyObject *nameOfJitFunction(PyObject *self, void *) {
  return PyUnicode_FromString(
      reinterpret_cast<JitFunctionObject *>(self)->function->name.c_str());
}

PyGetSetDef jitFunctionGetSet[] = {
    {"__name__", nameOfJitFunction, nullptr, "the function's name", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject jitFunctionType = {PyVarObject_HEAD_INIT(nullptr, 0)};

void initJitFunctionType() {
  jitFunctionType.tp_name = "_mlirExecutionEngine.JitFunction";
  jitFunctionType.tp_doc = "A function of a JitModule, called with Python "
                           "values and numpy arrays.";
  jitFunctionType.tp_basicsize = sizeof(JitFunctionObject);
  jitFunctionType.tp_flags =
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC;
  jitFunctionType.tp_traverse = traverseJitFunction;
  jitFunctionType.tp_clear = clearJitFunction;
  jitFunctionType.tp_vectorcall_offset =
      offsetof(JitFunctionObject, vectorcall);
  jitFunctionType.tp_call = PyVectorcall_Call;
  jitFunctionType.tp_dealloc = deallocJitFunction;
  jitFunctionType.tp_repr = reprJitFunction;
  jitFunctionType.tp_getset = jitFunctionGetSet;
  if (PyType_Ready(&jitFunctionType) < 0)
    throw py::error_already_set();
}

//===----------------------------------------------------------------------===//
// Calls from jitted code into Python.
//===----------------------------------------------------------------------===//

struct CallbackSlot {
  std::string name;
  std::vector<ValueSpec> args, results;
  /// Borrowed: the JitModule holds the function.
  PyObject *function = nullptr;
};

/// Converts the results a callback returned into `resultSlots`.
bool storeCallbackResults(CallbackSlot &slot, PyObject *returned,
                          char *resultSlots) {
  size_t count = slot.results.size();
  if (count == 0)
    return true;
  if (count == 1)
    return storeScalar(returned, slot.results[0], resultSlots);
  if (!PyTuple_Check(returned) ||
      static_cast<size_t>(PyTuple_GET_SIZE(returned)) != count) {
    PyErr_Format(PyExc_TypeError,
                 "callback '%s' must return a tuple of %zu values, got %s",
                 slot.name.c_str(), count, typeName(returned));
    return false;
  }
  for (size_t i = 0; i < count; ++i)
    if (!storeScalar(PyTuple_GET_ITEM(returned, i), slot.results[i],
                     resultSlots + 16 * i))
      return false;
  return true;
}

} // namespace

/// Called by the trampolines generated for callbacks (see the file comment).
extern "C" void mlirJitCallbackDispatch(CallbackSlot *slot, char *argSlots,
                                        char *resultSlots) {
  size_t resultBytes = 16 * std::max<size_t>(slot->results.size(), 1);
  // Take the GIL back: directly on the thread of a typed call that released
  // it, through PyGILState from any other thread.
  PyThreadState *released = releasedThreadState;
  PyGILState_STATE gil{};
  if (released) {
    releasedThreadState = nullptr;
    PyEval_RestoreThread(released);
  } else {
    gil = PyGILState_Ensure();
  }
  auto releaseGil = [&] {
    if (released)
      releasedThreadState = PyEval_SaveThread();
    else
      PyGILState_Release(gil);
  };
  // After a callback failed, the rest of the call only unwinds.
  if (pendingError.isSet()) {
    std::memset(resultSlots, 0, resultBytes);
    releaseGil();
    return;
  }
  size_t count = slot->args.size();
  constexpr size_t kInline = 8;
  PyObject *inlineArgs[kInline];
  std::vector<PyObject *> heapArgs(count > kInline ? count : 0);
  PyObject **args = count > kInline ? heapArgs.data() : inlineArgs;
  size_t converted = 0;
  for (; converted < count; ++converted) {
    const ValueSpec &spec = slot->args[converted];
    char *argSlot = argSlots + 16 * converted;
    args[converted] =
        spec.kind == kMemRef
            ? memRefToArray(spec,
                            MemRefView{*reinterpret_cast<int64_t **>(argSlot),
                                       spec.rank()},
                            nullptr)
            : loadScalar(spec, argSlot);
    if (!args[converted])
      break;
  }
  PyObject *returned =
      converted == count
          ? PyObject_Vectorcall(slot->function, args, count, nullptr)
          : nullptr;
  for (size_t i = 0; i < converted; ++i)
    Py_DECREF(args[i]);
  if (!returned || !storeCallbackResults(*slot, returned, resultSlots)) {
    std::memset(resultSlots, 0, resultBytes);
    pendingError.take();
  }
  Py_XDECREF(returned);
  releaseGil();
}

namespace {

/// The top-level operation of `module` whose sym_name is `name`, or null.
MlirOperation findSymbol(MlirBlock body, MlirStringRef name) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        mlirStringRefEqual(mlirStringAttrGetValue(symbol), name))
      return op;
  }
  return MlirOperation{nullptr};
}

} // namespace

void mlir::python::bindJit(py::module_ &m) {
  if (_import_array() < 0)
    throw py::error_already_set();
  initJitFunctionType();
  Py_INCREF(&jitFunctionType);
  m.add_object("JitFunction",
               py::handle(reinterpret_cast<PyObject *>(&jitFunctionType)));

  py::dict kinds;
  for (auto [name, kind] :
       {std::pair<const char *, Kind>{"i1", kI1}, {"i8", kI8}, {"i16", kI16},
        {"i32", kI32}, {"i64", kI64}, {"index", kIndex}, {"f16", kF16},
        {"bf16", kBF16}, {"f32", kF32}, {"f64", kF64},
        {"complex64", kComplex64}, {"complex128", kComplex128},
        {"memref", kMemRef}})
    kinds[name] = static_cast<int>(kind);
  m.attr("_value_kinds") = kinds;

  m.def(
      "_make_jit_function",
      [](const std::string &name, const std::string &signature,
         py::iterable argSpecs, py::iterable resultSpecs, bool releaseGil,
         py::object owner) {
        auto *function = new JitFunction;
        function->name = name;
        function->signature = signature;
        function->args = parseSpecs(argSpecs);
        function->results = parseSpecs(resultSpecs);
        function->releaseGil = releaseGil;
        function->owner = std::move(owner);
        function->layOut();
        auto *object = PyObject_GC_New(JitFunctionObject, &jitFunctionType);
        if (!object) {
          delete function;
          throw py::error_already_set();
        }
        object->vectorcall = callJitFunction;
        object->function = function;
        PyObject_GC_Track(object);
        return py::reinterpret_steal<py::object>(
            reinterpret_cast<PyObject *>(object));
      },
      py::arg("name"), py::arg("signature"), py::arg("arg_specs"),
      py::arg("result_specs"), py::arg("release_gil"), py::arg("owner"),
      "Create the callable for a jitted function (see mlir._jit).");

  py::class_<CallbackSlot>(m, "_CallbackSlot")
      .def(py::init([](const std::string &name, py::iterable argSpecs,
                       py::iterable resultSpecs) {
             auto *slot = new CallbackSlot;
             slot->name = name;
             slot->args = parseSpecs(argSpecs);
             slot->results = parseSpecs(resultSpecs);
             return slot;
           }),
           py::arg("name"), py::arg("arg_specs"), py::arg("result_specs"))
      .def_property_readonly("address",
                             [](CallbackSlot &self) {
                               return reinterpret_cast<uintptr_t>(&self);
                             })
      .def_property_readonly(
          "results_by_pointer",
          [](CallbackSlot &self) { return resultsByPointer(self.results); },
          "Whether the C interface returns the results through a pointer "
          "passed first, as jitted functions' C interfaces do.")
      .def(
          "_set_function",
          [](CallbackSlot &self, py::object function) {
            self.function = function.ptr();
          },
          py::arg("function"), "Set the Python function (borrowed: the caller keeps it alive).");

  m.attr("_callback_dispatch_address") =
      reinterpret_cast<uintptr_t>(&mlirJitCallbackDispatch);

  m.def(
      "_define_symbols",
      [](py::object module, py::object definitions) {
        MlirModule target =
            unwrapCapsule(module, mlirPythonCapsuleToModule, "an mlir.ir.Module");
        MlirModule source = unwrapCapsule(
            definitions, mlirPythonCapsuleToModule, "an mlir.ir.Module");
        MlirBlock targetBody = mlirModuleGetBody(target);
        MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(source));
        while (!mlirOperationIsNull(op)) {
          MlirOperation next = mlirOperationGetNextInBlock(op);
          MlirAttribute symbol = mlirOperationGetAttributeByName(
              op, mlirStringRefCreateFromCString("sym_name"));
          MlirOperation existing =
              findSymbol(targetBody, mlirStringAttrGetValue(symbol));
          if (!mlirOperationIsNull(existing))
            mlirOperationDestroy(existing);
          mlirOperationRemoveFromParent(op);
          mlirBlockAppendOwnedOperation(targetBody, op);
          op = next;
        }
      },
      py::arg("module"), py::arg("definitions"),
      "Move the symbols of `definitions` into `module`, replacing the "
      "declarations of the same names.");
}
