//===- DecomposeAggregates.cpp - Aggregate linalg ops as simpler ones -----===//
//
// jit-decompose-aggregates: an aggregate linalg op (linalg::AggregatedOp-
// Interface: linalg.softmax) is no structured op, which convert-linalg-to-
// loops would lower: left alone, it reached the LLVM translation as an
// unrealized cast ("LLVM Translation failed for operation: builtin.
// unrealized_conversion_cast"). This pass, run on tensors before
// bufferization (and on memrefs before the lowering), replaces each by the
// ops its interface decomposes it into (a softmax: its row maximum,
// exponentials, row sum and division, as linalg.fill and linalg.generic
// ops, which FAST_PIPELINE then computes as a parallel chain), or fails
// naming the op: decompositions take tensors only.
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATES
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

struct DecomposeAggregatesPass
    : public jit::impl::DecomposeAggregatesBase<DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk([&](linalg::AggregatedOpInterface aggregate) {
      aggregates.push_back(aggregate);
    });
    bool failures = false;
    for (linalg::AggregatedOpInterface aggregate : aggregates) {
      Operation *op = aggregate.getOperation();
      if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>)) {
        op->emitOpError("on memrefs is not lowered: jit() decomposes it into "
                        "simpler linalg ops on tensors only; give it tensors "
                        "(or write the ops it stands for), and a pipeline "
                        "that bufferizes them itself must run "
                        "jit-decompose-aggregates first");
        failures = true;
        continue;
      }
      OpBuilder builder(op);
      FailureOr<SmallVector<Value>> values =
          aggregate.decomposeOperation(builder);
      if (failed(values) || values->size() != op->getNumResults()) {
        op->emitOpError("cannot be decomposed into simpler linalg ops, "
                        "which jit() lowers; write the ops it stands for");
        failures = true;
        continue;
      }
      op->replaceAllUsesWith(*values);
      op->erase();
    }
    if (failures)
      signalPassFailure();
  }
};

} // namespace
