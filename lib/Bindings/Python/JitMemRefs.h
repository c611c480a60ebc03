//===- JitMemRefs.h - numpy arrays <-> memref descriptors -----------------===//
//
// Views numpy arrays as ranked memref descriptors and descriptors as numpy
// arrays, without copying. Failures set a Python exception naming the value.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITMEMREFS_H
#define MLIR_BINDINGS_PYTHON_JITMEMREFS_H

#include "JitValues.h"

#include "mlir-c/ExecutionEngine.h"

#include <Python.h>

namespace mlir::python::jit {

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

/// The descriptor of the memref value at `pointer`: a ranked memref's
/// descriptor itself, or an unranked memref's {rank, descriptor pointer}.
inline MemRefView memRefAt(const ValueSpec &spec, int64_t *pointer) {
  if (!spec.unranked)
    return {pointer, spec.rank()};
  return {reinterpret_cast<int64_t *>(pointer[1]),
          static_cast<int>(pointer[0])};
}

/// Fills `descriptor` to view `object`, a numpy array of `spec`'s dtype,
/// rank, shape and strides.
bool storeMemRef(PyObject *object, const ValueSpec &spec,
                 MemRefView descriptor);

/// The same for an unranked memref: fills `area` (kUnrankedAreaWords) with
/// {rank, pointer to the descriptor} and the descriptor after it.
constexpr size_t kUnrankedAreaWords = 2 + 3 + 2 * kMaxRank;
bool storeUnrankedMemRef(PyObject *object, const ValueSpec &spec,
                         int64_t *area);

/// Copies `object`, a numpy array of `spec`'s dtype and shape (a vector
/// type's), to `storage`, laid out as LLVM lays out the vector.
bool storeVector(PyObject *object, const ValueSpec &spec, char *storage);

/// A new array holding the vector at `storage`.
PyObject *loadVector(const ValueSpec &spec, const char *storage);

/// Stores `object`, the array a callback returned for memref result `spec`,
/// at `target` (a ranked descriptor, or an unranked memref's {rank,
/// pointer}): a contiguous copy in a new buffer that the jitted code owns,
/// as if it had allocated it (it frees or returns it).
bool storeMemRefResult(PyObject *object, const ValueSpec &spec,
                       int64_t *target);

/// Frees what storeMemRefResult stored at `target`.
void freeMemRefResult(const ValueSpec &spec, int64_t *target);

/// Stores at `target` the memref result of a callback that failed: zeros,
/// in a new buffer, every dynamic size 1 (an unranked one of rank 0).
void storeZeroMemRef(const ValueSpec &spec, int64_t *target);

/// Whether the memory of numpy arrays `a` and `b` overlaps (by their
/// bounds).
bool overlap(PyObject *a, PyObject *b);

/// A new numpy array (or null, with a Python error) of `array`'s dtype,
/// shape and strides over a copy of the bytes it spans: every layout
/// property a memref type may fix (static strides and offset, alignment of
/// the elements) stays as it was.
PyObject *copyWithLayout(PyObject *array);

/// A numpy array over the memory `descriptor` describes (of its rank). `base`
/// (stolen) keeps that memory alive, or is null for a view valid only during a
/// callback.
PyObject *memRefToArray(const ValueSpec &spec, MemRefView descriptor,
                        PyObject *base, bool writeable);

/// Empties `array`, a view valid only during a callback that is still
/// referenced after it: its sizes become 0 (a 0-d array reads a zero) and it
/// becomes read-only, so that it never reads or writes memory the jitted
/// code may have freed. (Views taken from it keep their own pointers.) If
/// `owner` (a new reference) is given, the memory is now `owner`'s, kept
/// alive by `array` and so by the views taken from it.
void forgetMemory(PyObject *array, PyObject *owner = nullptr);

/// Frees `memory`, of malloc's family, as free() would, but keeps a large
/// buffer for the allocation functions jit() registers to reuse.
void releaseMemory(void *memory);

/// A capsule that frees `allocated`, memory jitted code allocated with
/// malloc, when the last array over it is gone.
PyObject *ownerOfAllocation(char *allocated);

/// memref.get_global marks memory it does not own, such as a constant
/// global's, with this `allocated` address.
inline bool isUnowned(char *allocated) {
  return allocated == reinterpret_cast<char *>(0xdeadbeef);
}

/// Registers on `engine` the runtime functions memref code lowered by
/// jit()'s DEFAULT_PIPELINE calls (`memrefCopy`, the allocation functions
/// `_mlir_memref_to_llvm_*`), so that it needs no runtime library. Throws on
/// failure.
void registerRuntimeSupport(MlirExecutionEngine engine);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITMEMREFS_H
