//===- JitValues.h - The value ABI of typed calls and callbacks -----------===//
//
// The one description of how values cross the C interface of jitted
// functions (`_mlir_ciface_*`): which MLIR types are supported, each one's
// kind, size, alignment and LLVM dialect type, and how results are laid out.
// Calls (JitFunction.cpp), callbacks and their trampolines (JitCallbacks.cpp)
// all derive their layouts from here.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITVALUES_H
#define MLIR_BINDINGS_PYTHON_JITVALUES_H

#include "mlir-c/IR.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mlir::python::jit {

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
  kVector,
};

/// Every argument and result passes through one slot of this many bytes
/// (the largest scalar, complex<f64>; memrefs by a pointer to their
/// descriptor).
constexpr size_t kSlotSize = 16;

constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// One argument or result of a jitted function or callback.
struct ValueSpec {
  Kind kind;
  /// Names the value in error messages: "argument 0 of 'add' (i64)".
  std::string label;
  // Memrefs and vectors only:
  pybind11::object dtype;       ///< numpy dtype of the elements
  std::vector<int64_t> shape;   ///< -1 where dynamic (memrefs)
  std::vector<int64_t> strides; ///< in elements, kDynamic where dynamic
  int64_t offset = kDynamic;
  /// log2 of the element size, which is a power of two for every element
  /// type (strides convert by a shift, not a division).
  int elementShift = 0;
  /// Never written by the function (declared `llvm.readonly`, or a tensor):
  /// read-only arrays may be passed.
  bool readOnly = false;
  /// The identity layout: the code may assume contiguous rows (copy with
  /// memcpy, collapse dimensions), so each stride must be the contiguous
  /// one even where the type leaves it dynamic.
  bool contiguous = false;
  /// A tensor the function may write in place (`bufferization.writable =
  /// true`): bufferization assumed no other argument shares its memory.
  bool writableTensor = false;
  /// A memref the function may write (mlirJitFunctionMayWriteArgument): an
  /// argument it does not write that overlaps it is read from a copy.
  bool mayWrite = false;
  /// `memref<*xT>`: passed as {rank, pointer to a descriptor}, of any rank
  /// (`shape` and `strides` are empty).
  bool unranked = false;
  /// Vectors: the LLVM type of the C interface (`vector<4xf32>`, or
  /// `!llvm.array<2 x vector<8xi16>>` for more dimensions).
  std::string llvmType;

  int rank() const { return static_cast<int>(shape.size()); }
};

/// The most dimensions an unranked memref argument may have: numpy's.
constexpr int kMaxRank = 64;

/// A function's arguments and results.
struct Signature {
  std::vector<ValueSpec> args, results;
  std::string text; ///< the MLIR function type, for messages
};

/// The specs of the values of `function`, a `func.func` named `name`.
/// `dtypes` holds, for each argument then each result, the numpy dtype of a
/// memref's elements (None if the element type has none) and is None for
/// scalars. Throws TypeError naming the first unsupported type.
Signature describeSignature(MlirOperation function, const std::string &name,
                            pybind11::sequence dtypes);

/// Declares each tensor argument of the func.func `function` that says
/// nothing else `bufferization.writable = false`: a tensor is a value, so
/// bufferization copies it rather than write to the caller's array.
void markTensorArgumentsImmutable(MlirOperation function);

/// Size and alignment of a value held in memory: memrefs as their
/// descriptor.
size_t sizeOf(const ValueSpec &spec);
size_t alignOf(const ValueSpec &spec);
/// `value` rounded up to `alignment`, a power of two (a mask, not a
/// division: the typed call's frame is aligned on every call).
inline size_t alignTo(size_t value, size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/// The LLVM dialect type of `spec`'s value in the C interface (a memref's
/// is a pointer to its descriptor).
std::string llvmTypeOf(const ValueSpec &spec);

/// The LLVM dialect type of `spec`'s value held in memory, as in a struct
/// of results: a memref as its descriptor.
std::string llvmStorageTypeOf(const ValueSpec &spec);

/// The C interface returns a struct (several results, a complex, a memref)
/// through a pointer passed as its first argument.
bool resultsByPointer(const std::vector<ValueSpec> &results);

/// Field offsets of the results' struct; sets `size` to its size.
std::vector<size_t> structLayout(const std::vector<ValueSpec> &fields,
                                 size_t &size);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITVALUES_H
