//===- JitMemRefs.cpp - numpy arrays <-> memref descriptors ---------------===//

#include "JitMemRefs.h"
#include "JitScalars.h"
#include "JitThreadState.h"
#include "NumpyApi.h"
#include "PybindUtils.h"

#include "mlir-c/ExecutionEngineChecked.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace mlir::python::jit {
namespace {

PyArray_Descr *descrOf(const ValueSpec &spec) {
  return reinterpret_cast<PyArray_Descr *>(spec.dtype.ptr());
}

std::string shapeText(int ndim, const npy_intp *dims) {
  std::string text = "(";
  for (int d = 0; d < ndim; ++d)
    text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + (ndim == 1 ? ",)" : ")");
}

/// Allocations from this size on are backed by transparent huge pages where
/// the system allows it (as numpy's are): a new buffer of 40 MB then costs
/// 20 page faults instead of 10,000, which made a jitted `a * x + y`
/// returning a new tensor 3 times slower than numpy.
constexpr size_t kHugePageThreshold = size_t{4} << 20;
constexpr size_t kHugePageSize = size_t{2} << 20;

/// Records `memory` as the running call's, freed if the call is stopped.
void *trackAllocation(void *memory) {
  if (std::unordered_set<void *> *live = threadState().allocations) {
    try {
      live->insert(memory);
    } catch (const std::bad_alloc &) {
      // Not unwound through jitted code: a stopped call leaks this one.
    }
  }
  return memory;
}

/// Freed buffers of kHugePageThreshold bytes or more, kept for the next
/// allocation they fit. glibc returns such a buffer to the system at once
/// (aligned to huge pages, it is mmapped), and a new one's pages are zeroed
/// by the kernel as they are first touched: a quarter of the time of a
/// 2048x1024 softmax returning a new 8 MB array. At most kSpareBytes, the
/// most recently freed, are kept (glibc's own heap keeps up to 64 MB).
class SpareBuffers {
public:
  static constexpr size_t kSpareBytes = size_t{64} << 20;

  /// A kept buffer of at least `size` bytes (and at most twice that) aligned
  /// to `alignment`, or null.
  void *take(size_t alignment, size_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
      auto [memory, usable] = *it;
      if (usable >= size && usable / 2 <= size &&
          reinterpret_cast<uintptr_t>(memory) % alignment == 0) {
        bytes -= usable;
        buffers.erase(std::next(it).base());
        return memory;
      }
    }
    return nullptr;
  }

  /// Keeps `memory`, of `usable` bytes (at most kSpareBytes), freeing the
  /// oldest kept buffers beyond kSpareBytes.
  void give(void *memory, size_t usable) {
    std::vector<void *> freed;
    {
      std::lock_guard<std::mutex> lock(mutex);
      buffers.emplace_back(memory, usable);
      bytes += usable;
      while (bytes > kSpareBytes) {
        freed.push_back(buffers.front().first);
        bytes -= buffers.front().second;
        buffers.erase(buffers.begin());
      }
    }
    for (void *buffer : freed)
      std::free(buffer);
  }

  /// Around fork(): the child gets the list unlocked (its one thread is the
  /// one that forked), as it gets malloc's own locks.
  void lockForFork() { mutex.lock(); }
  void unlockAfterFork() { mutex.unlock(); }

private:
  std::mutex mutex;
  std::vector<std::pair<void *, size_t>> buffers; // the oldest first
  size_t bytes = 0;
};

/// Never destroyed: arrays may free their memory during the process's exit.
SpareBuffers &spareBuffers() {
  static SpareBuffers *spares = [] {
    pthread_atfork([] { spareBuffers().lockForFork(); },
                   [] { spareBuffers().unlockAfterFork(); },
                   [] { spareBuffers().unlockAfterFork(); });
    return new SpareBuffers;
  }();
  return *spares;
}

void freeAllocation(PyObject *capsule) {
  releaseMemory(PyCapsule_GetPointer(capsule, "mlir.jit.allocation"));
}

/// The allocation functions `memref.alloc` and `memref.dealloc` call
/// (finalize-memref-to-llvm{use-generic-functions}). Memory comes from
/// malloc's family, so that an array owning a result frees it with free().
void *allocateMemRef(size_t alignment, size_t size) {
  if (size >= kHugePageThreshold) {
    alignment = std::max(alignment, kHugePageSize);
    if (void *memory = spareBuffers().take(alignment, size))
      return trackAllocation(memory);
  }
  // aligned_alloc wants a size that is a multiple of the alignment.
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  void *memory =
      size > SIZE_MAX - alignment
          ? nullptr
          : std::aligned_alloc(alignment, rounded ? rounded : alignment);
  if (!memory) { // raised by the typed call where it can be stopped
    stopCallWith(PyExc_MemoryError,
                 "jitted code could not allocate %zu bytes (a memref.alloc "
                 "or a buffer bufferization made)",
                 size);
    return nullptr;
  }
  if (rounded >= kHugePageThreshold)
    madvise(memory, rounded, MADV_HUGEPAGE); // advice: failure is harmless
  return trackAllocation(memory);
}
void *allocateMemRefUnaligned(size_t size) {
  return allocateMemRef(alignof(std::max_align_t), size);
}
void freeMemRef(void *memory) {
  if (std::unordered_set<void *> *live = threadState().allocations)
    live->erase(memory);
  releaseMemory(memory);
}

} // namespace

void releaseMemory(void *memory) {
  size_t usable = memory ? malloc_usable_size(memory) : 0;
  if (usable >= kHugePageThreshold && usable <= SpareBuffers::kSpareBytes)
    spareBuffers().give(memory, usable);
  else
    std::free(memory);
}

bool storeMemRef(PyObject *object, const ValueSpec &spec,
                 MemRefView descriptor) {
  if (!PyArray_Check(object)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %s",
                 spec.label.c_str(), Py_TYPE(object)->tp_name);
    return false;
  }
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  // The same dtype object is the common case: skip the comparison.
  if (PyArray_DESCR(array) != descrOf(spec) &&
      !PyArray_EquivTypes(PyArray_DESCR(array), descrOf(spec))) {
    PyErr_Format(PyExc_TypeError,
                 "%s: expected an array of dtype %S, got dtype %S; convert "
                 "it with array.astype(%R)",
                 spec.label.c_str(), spec.dtype.ptr(),
                 reinterpret_cast<PyObject *>(PyArray_DESCR(array)),
                 spec.dtype.ptr());
    return false;
  }
  if (!spec.readOnly && !PyArray_ISWRITEABLE(array))
    return fail(PyExc_ValueError, spec,
                "the array is read-only and the function may write to it; "
                "pass a writeable copy (array.copy()), or declare the "
                "argument {llvm.readonly} if the function only reads it");
  int ndim = PyArray_NDIM(array);
  const npy_intp *dims = PyArray_DIMS(array);
  if (!spec.unranked && ndim != spec.rank())
    return fail(PyExc_ValueError, spec,
                ("expected an array of rank " + std::to_string(spec.rank()) +
                 ", got shape " + shapeText(ndim, dims))
                    .c_str());
  npy_intp itemsize = PyArray_ITEMSIZE(array);
  const npy_intp *strides = PyArray_STRIDES(array);
  bool empty = false;
  for (int d = 0; d < ndim; ++d) {
    empty |= dims[d] == 0;
    if (!spec.unranked && spec.shape[d] >= 0 && dims[d] != spec.shape[d])
      return fail(PyExc_ValueError, spec,
                  ("dimension " + std::to_string(d) + " must be " +
                   std::to_string(spec.shape[d]) + ", got shape " +
                   shapeText(ndim, dims))
                      .c_str());
  }
  for (int d = 0; d < ndim; ++d) {
    // An empty array's strides mean nothing (numpy 2 gives some 0): no
    // element is ever addressed through them.
    int64_t stride = empty ? 0 : strides[d] >> spec.elementShift;
    if (!empty && (strides[d] & (itemsize - 1)) != 0)
      return fail(PyExc_ValueError, spec,
                  "array strides are not a multiple of its element size; "
                  "pass np.ascontiguousarray(array)");
    if (!spec.unranked && spec.strides[d] != kDynamic) {
      // A dimension of size 1 (or 0) is never stepped over.
      if (!empty && dims[d] > 1 && stride != spec.strides[d])
        return fail(
            PyExc_ValueError, spec,
            ("the memref type fixes the stride of dimension " +
             std::to_string(d) + " to " + std::to_string(spec.strides[d]) +
             " elements, the array's is " + std::to_string(stride) +
             "; pass np.ascontiguousarray(array) or give the parameter a "
             "strided layout with dynamic strides")
                .c_str());
      stride = spec.strides[d];
    }
    descriptor.size(d) = dims[d];
    descriptor.stride(d) = stride;
  }
  // Checked after the static strides, whose message is more precise.
  if (spec.contiguous && !empty) {
    int64_t contiguousStride = int64_t{1} << spec.elementShift;
    for (int d = ndim - 1; d >= 0; --d) {
      if (dims[d] > 1 && strides[d] != contiguousStride)
        return fail(PyExc_ValueError, spec,
                    "the memref type's identity layout means contiguous "
                    "rows, which the array's are not; pass "
                    "np.ascontiguousarray(array), or give the parameter a "
                    "strided layout, e.g. strided<[?, ?], offset: ?>");
      contiguousStride *= dims[d];
    }
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

bool storeUnrankedMemRef(PyObject *object, const ValueSpec &spec,
                         int64_t *area) {
  int rank = PyArray_Check(object)
                 ? PyArray_NDIM(reinterpret_cast<PyArrayObject *>(object))
                 : 0;
  // Code reading an unranked memref casts it to a ranked type, whose layout
  // it cannot check: the common identity layout is the one safe to assume.
  if (rank &&
      !PyArray_IS_C_CONTIGUOUS(reinterpret_cast<PyArrayObject *>(object)))
    return fail(PyExc_ValueError, spec,
                "an unranked memref is passed as a contiguous array (its "
                "users may read it with an identity layout); pass "
                "np.ascontiguousarray(array)");
  area[0] = rank;
  area[1] = reinterpret_cast<int64_t>(area + 2);
  return storeMemRef(object, spec, MemRefView{area + 2, rank});
}

namespace {

/// The bytes `array` may address: [first, last).
std::pair<const char *, const char *> bounds(PyArrayObject *array) {
  const char *first = static_cast<const char *>(PyArray_DATA(array));
  const char *last = first + PyArray_ITEMSIZE(array);
  for (int d = 0; d < PyArray_NDIM(array); ++d) {
    npy_intp extent = (PyArray_DIM(array, d) - 1) * PyArray_STRIDE(array, d);
    (extent < 0 ? first : last) += extent;
  }
  return {first, last};
}

} // namespace

bool overlap(PyObject *a, PyObject *b) {
  auto *x = reinterpret_cast<PyArrayObject *>(a);
  auto *y = reinterpret_cast<PyArrayObject *>(b);
  if (PyArray_SIZE(x) == 0 || PyArray_SIZE(y) == 0)
    return false;
  auto [aFirst, aLast] = bounds(x);
  auto [bFirst, bLast] = bounds(y);
  return aFirst < bLast && bFirst < aLast;
}

PyObject *copyWithLayout(PyObject *object) {
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  auto [first, last] = bounds(array);
  if (PyArray_SIZE(array) == 0)
    last = first;
  npy_intp span = last - first;
  PyObject *bytes = PyArray_SimpleNew(1, &span, NPY_UINT8);
  if (!bytes)
    return nullptr;
  char *copy = static_cast<char *>(
      PyArray_DATA(reinterpret_cast<PyArrayObject *>(bytes)));
  std::memcpy(copy, first, span);
  PyArray_Descr *descr = PyArray_DESCR(array);
  Py_INCREF(descr); // stolen by PyArray_NewFromDescr
  PyObject *result = PyArray_NewFromDescr(
      &PyArray_Type, descr, PyArray_NDIM(array), PyArray_DIMS(array),
      PyArray_STRIDES(array),
      copy + (static_cast<const char *>(PyArray_DATA(array)) - first),
      NPY_ARRAY_WRITEABLE, nullptr);
  if (!result) {
    Py_DECREF(bytes);
    return nullptr;
  }
  // Steals `bytes`, also when it fails.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(result), bytes) <
      0) {
    Py_DECREF(result);
    return nullptr;
  }
  return result;
}

PyObject *memRefToArray(const ValueSpec &spec, MemRefView descriptor,
                        PyObject *base, bool writeable) {
  npy_intp itemsize = PyDataType_ELSIZE(descrOf(spec));
  std::vector<npy_intp> dims(descriptor.rank), strides(descriptor.rank);
  for (int d = 0; d < descriptor.rank; ++d) {
    dims[d] = descriptor.size(d);
    strides[d] = descriptor.stride(d) * itemsize;
  }
  Py_INCREF(spec.dtype.ptr()); // stolen by PyArray_NewFromDescr
  PyObject *array = PyArray_NewFromDescr(
      &PyArray_Type, descrOf(spec), descriptor.rank, dims.data(),
      strides.data(), descriptor.aligned() + descriptor.offset() * itemsize,
      writeable ? NPY_ARRAY_WRITEABLE : 0, nullptr);
  if (!array) {
    Py_XDECREF(base);
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_Format(PyExc_ValueError, "%s: cannot view the memref as an array: %S",
                 spec.label.c_str(), value ? value : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return nullptr;
  }
  if (base && PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(array),
                                    base) < 0) {
    Py_DECREF(array);
    return nullptr;
  }
  return array;
}

void forgetMemory(PyObject *array, PyObject *owner) {
  if (owner)
    PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(array), owner);
  alignas(16) static const char zeros[64] = {};
  auto *fields = reinterpret_cast<PyArrayObject_fields *>(array);
  for (int d = 0; d < fields->nd; ++d)
    fields->dimensions[d] = 0;
  fields->data = const_cast<char *>(zeros);
  PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject *>(array),
                     NPY_ARRAY_WRITEABLE);
}

PyObject *ownerOfAllocation(char *allocated) {
  return PyCapsule_New(allocated, "mlir.jit.allocation", freeAllocation);
}

namespace {

/// An unranked memref, as `memrefCopy`'s callers pass one.
struct UnrankedMemRef {
  int64_t rank;
  int64_t *descriptor;
};

/// `memrefCopy`, which lowered `memref.copy`s of non-contiguous memrefs
/// call: copies `source` to `target`, which have the same shape.
std::string shapeText(MemRefView memref) {
  std::vector<npy_intp> dims;
  for (int d = 0; d < memref.rank; ++d)
    dims.push_back(memref.size(d));
  return shapeText(memref.rank, dims.data());
}

void copyMemRef(int64_t elementSize, const UnrankedMemRef *source,
                const UnrankedMemRef *target) {
  int rank = static_cast<int>(source->rank);
  MemRefView from{source->descriptor, rank}, to{target->descriptor, rank};
  bool same = target->rank == rank;
  for (int d = 0; d < rank && same; ++d)
    same = from.size(d) == to.size(d);
  if (!same) { // undefined: copy nothing, or stop the call
    MemRefView into{target->descriptor, static_cast<int>(target->rank)};
    stopCallWith(PyExc_ValueError,
                 "memref.copy from shape %s to shape %s: the shapes differ",
                 shapeText(from).c_str(), shapeText(into).c_str());
    return;
  }
  for (int d = 0; d < rank; ++d)
    if (from.size(d) == 0)
      return;
  const char *read = from.aligned() + from.offset() * elementSize;
  char *write = to.aligned() + to.offset() * elementSize;
  // An odometer over the indices, the innermost dimension fastest.
  std::vector<int64_t> index(rank, 0);
  while (true) {
    std::memcpy(write, read, elementSize);
    int d = rank - 1;
    for (; d >= 0; --d) {
      read += from.stride(d) * elementSize;
      write += to.stride(d) * elementSize;
      if (++index[d] < from.size(d))
        break;
      read -= from.stride(d) * from.size(d) * elementSize;
      write -= to.stride(d) * to.size(d) * elementSize;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Fills the ranked descriptor `target` for a contiguous buffer at `memory`
/// of `rank` dimensions of sizes `dims`.
void describeContiguous(MemRefView target, char *memory, const npy_intp *dims) {
  target.allocated() = memory;
  target.aligned() = memory;
  target.offset() = 0;
  int64_t stride = 1;
  for (int d = target.rank - 1; d >= 0; --d) {
    target.size(d) = dims[d];
    target.stride(d) = stride;
    stride *= dims[d];
  }
}

/// Where a memref result at `target` (for an unranked one, its {rank,
/// pointer}) gets its descriptor of `rank` dimensions: an unranked one
/// gets a new one from malloc, which the caller frees, as lowered code does.
MemRefView resultDescriptor(const ValueSpec &spec, int64_t *target, int rank) {
  if (!spec.unranked)
    return {target, rank};
  auto *words = static_cast<int64_t *>(std::malloc(8 * (3 + 2 * rank)));
  target[0] = rank;
  target[1] = reinterpret_cast<int64_t>(words);
  return {words, rank};
}

} // namespace

bool storeMemRefResult(PyObject *object, const ValueSpec &spec,
                       int64_t *target) {
  // Checked as an argument of any strides would be (dtype, rank, shape):
  // the copy is contiguous whatever the array's strides.
  ValueSpec anyStrides = spec;
  anyStrides.strides.assign(spec.rank(), kDynamic);
  anyStrides.contiguous = false;
  anyStrides.readOnly = true;
  int rank = PyArray_Check(object)
                 ? PyArray_NDIM(reinterpret_cast<PyArrayObject *>(object))
                 : 0;
  std::vector<int64_t> scratch(3 + 2 * rank);
  if (!storeMemRef(object, anyStrides, MemRefView{scratch.data(), rank}))
    return false;
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  const npy_intp *dims = PyArray_DIMS(array);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0 && !spec.unranked; --d) {
    if (spec.strides[d] != kDynamic && dims[d] > 1 && spec.strides[d] != stride)
      return fail(PyExc_ValueError, spec,
                  "a returned array is copied into a contiguous buffer, which "
                  "this memref type's layout does not describe; declare the "
                  "result with an identity layout or dynamic strides");
    stride *= dims[d];
  }
  if (!spec.unranked && spec.offset != kDynamic && spec.offset != 0)
    return fail(PyExc_ValueError, spec,
                "a returned array is copied into a buffer of offset 0, which "
                "this memref type's layout does not describe; declare the "
                "result with an identity layout or a dynamic offset");
  auto *memory = static_cast<char *>(allocateMemRef(64, PyArray_NBYTES(array)));
  if (!memory) {
    PyErr_Format(PyExc_MemoryError,
                 "%s: cannot allocate %zd bytes for a copy of the returned "
                 "array",
                 spec.label.c_str(), PyArray_NBYTES(array));
    return false;
  }
  Py_INCREF(PyArray_DESCR(array)); // stolen by PyArray_NewFromDescr
  PyObject *copy =
      PyArray_NewFromDescr(&PyArray_Type, PyArray_DESCR(array), rank, dims,
                           nullptr, memory, NPY_ARRAY_CARRAY, nullptr);
  if (!copy ||
      PyArray_CopyInto(reinterpret_cast<PyArrayObject *>(copy), array) < 0) {
    Py_XDECREF(copy);
    freeMemRef(memory);
    return false;
  }
  Py_DECREF(copy);
  describeContiguous(resultDescriptor(spec, target, rank), memory, dims);
  return true;
}

/// A C-contiguous array of `spec`'s dtype and shape over `storage` (null:
/// its own memory).
PyObject *vectorArray(const ValueSpec &spec, char *storage) {
  std::vector<npy_intp> dims(spec.shape.begin(), spec.shape.end());
  Py_INCREF(spec.dtype.ptr()); // stolen by PyArray_NewFromDescr
  // Without data, nonzero flags would ask numpy for Fortran order.
  return PyArray_NewFromDescr(&PyArray_Type, descrOf(spec), spec.rank(),
                              dims.data(), nullptr, storage,
                              storage ? NPY_ARRAY_CARRAY : 0, nullptr);
}

bool storeVector(PyObject *object, const ValueSpec &spec, char *storage) {
  // Checked as a memref argument of this shape would be; read, not written.
  ValueSpec asArray = spec;
  asArray.strides.assign(spec.rank(), kDynamic);
  asArray.readOnly = true;
  std::vector<int64_t> scratch(3 + 2 * spec.rank());
  if (!storeMemRef(object, asArray, MemRefView{scratch.data(), spec.rank()}))
    return false;
  PyObject *target = vectorArray(spec, storage);
  if (!target)
    return false;
  int copied = PyArray_CopyInto(reinterpret_cast<PyArrayObject *>(target),
                                reinterpret_cast<PyArrayObject *>(object));
  Py_DECREF(target);
  return copied == 0;
}

PyObject *loadVector(const ValueSpec &spec, const char *storage) {
  PyObject *array = vectorArray(spec, nullptr);
  if (array)
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject *>(array)), storage,
                sizeOf(spec));
  return array;
}

void freeMemRefResult(const ValueSpec &spec, int64_t *target) {
  MemRefView descriptor = memRefAt(spec, target);
  freeMemRef(descriptor.allocated()); // and no longer the call's to free
  if (spec.unranked)
    std::free(descriptor.words);
}

void storeZeroMemRef(const ValueSpec &spec, int64_t *target) {
  // Every dynamic size 1: code that reads element 0 without checking reads
  // a zero, not past the buffer.
  std::vector<npy_intp> dims;
  size_t count = 1;
  for (int64_t size : spec.shape) {
    dims.push_back(size < 0 ? 1 : size);
    count *= dims.back();
  }
  auto *memory = static_cast<char *>(
      std::calloc(std::max<size_t>(count, 1), size_t{1} << spec.elementShift));
  describeContiguous(resultDescriptor(spec, target, spec.rank()), memory,
                     dims.data());
}

void registerRuntimeSupport(MlirExecutionEngine engine) {
  const std::pair<const char *, void *> symbols[] = {
      {"memrefCopy", reinterpret_cast<void *>(&copyMemRef)},
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&allocateMemRefUnaligned)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&allocateMemRef)},
      {"_mlir_memref_to_llvm_free", reinterpret_cast<void *>(&freeMemRef)},
  };
  for (const auto &[name, address] : symbols) {
    std::string error;
    if (mlirLogicalResultIsFailure(mlirExecutionEngineRegisterSymbolChecked(
            engine, mlirStringRefCreateFromCString(name), address,
            appendToString, &error)))
      throw std::runtime_error(std::string("cannot register ") + name + ": " +
                               error);
  }
}

} // namespace mlir::python::jit
