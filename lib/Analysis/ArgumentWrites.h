//===- ArgumentWrites.h - Which arguments a function may write -*- C++ -*-===//
//
// Decided on a module's IR before lowering, so that a typed call knows
// which array arguments a function may write: one that may be written and
// overlaps another argument makes the call read a copy of the other
// (numpy's rule for overlapping inputs and outputs).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_ANALYSIS_ARGUMENTWRITES_H
#define MLIR_EXECUTION_ENGINE_ANALYSIS_ARGUMENTWRITES_H

#include "mlir/IR/Operation.h"

namespace mlir::jit {

/// Whether `function` (a function-like op with one region) may write the
/// memory of its memref argument `index`: an op writes it or a view of it
/// (its memory effects say so), a function of the module it is passed to
/// may, or it reaches an op that does not say what it does with it (a
/// callback or another function the module does not define, a branch or a
/// loop passing it on, its address taken). False for an argument of a
/// definition that is not a memref; true for any of a declaration's.
bool mayWriteArgument(Operation *function, unsigned index);

} // namespace mlir::jit

#endif // MLIR_EXECUTION_ENGINE_ANALYSIS_ARGUMENTWRITES_H
