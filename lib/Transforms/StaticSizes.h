//===- StaticSizes.h - Shape checks the passes share ----------*- C++ -*-===//
//
// What several passes ask of an op's operand shapes before rewriting it.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_TRANSFORMS_STATICSIZES_H
#define MLIR_EXECUTION_ENGINE_TRANSFORMS_STATICSIZES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::jit {

/// Whether a type of `op`'s (shaped) operands has a static size of 0: the
/// op computes nothing, and LLVM 22's tiling and slicing of a static 0
/// fail.
inline bool hasStaticZeroSize(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    return llvm::is_contained(cast<ShapedType>(type).getShape(), 0);
  });
}

} // namespace mlir::jit

#endif // MLIR_EXECUTION_ENGINE_TRANSFORMS_STATICSIZES_H
