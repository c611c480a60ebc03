//===- ParallelReductions.cpp - Whole reductions split over threads -------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_PARALLELREDUCTIONS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// The chunks a reduction is split into, whatever the number of threads:
/// the partial results, combined in order, are the same on any machine.
constexpr int64_t kChunks = 8;

/// Whether `combiner` gives the same result whatever the order it combines
/// values in: integer and bitwise ops, float min and max, and float
/// additions and multiplications that may reassociate (`fastmath<reassoc>`,
/// which a split changes only as LLVM's vectorizer already does).
bool combinesInAnyOrder(Operation *combiner) {
  if (isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
          arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
          arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp,
          arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return true;
  if (!isa<arith::AddFOp, arith::MulFOp>(combiner))
    return false;
  auto flags =
      cast<arith::ArithFastMathInterface>(combiner).getFastMathFlagsAttr();
  return flags && arith::bitEnumContainsAll(flags.getValue(),
                                            arith::FastMathFlags::reassoc);
}

/// The op whose result `op` yields (null for a block argument).
Operation *yieldedOp(linalg::GenericOp op) {
  return op.getBody()->getTerminator()->getOperand(0).getDefiningOp();
}

/// Whether `op` reduces tensors over its one loop into one result that
/// only its combiner reads. Its maps must be projected permutations (LLVM
/// 22's tiling offsets `d0 floordiv 2` wrongly, and crashes on `(d0) -> (0)`),
/// and its loop not known to be shorter than kChunks (it crashes on a
/// static size of 0). Over several loops, LLVM 22 does not split it.
bool isWholeReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 1 || op.getNumReductionLoops() != 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return false;
  int64_t size = op.getStaticLoopRanges().front();
  if (!ShapedType::isDynamic(size) && size < kChunks)
    return false;
  BlockArgument accumulator = op.getRegionOutputArgs().front();
  Operation *combiner = yieldedOp(op);
  return combiner && accumulator.hasOneUse() &&
         accumulator.getUses().begin()->getOwner() == combiner &&
         combiner->getBlock() == op.getBody() && combinesInAnyOrder(combiner);
}

/// Splits each whole reduction (a sum, a maximum) of linalg.generic on
/// tensors into kChunks chunks of its loop, an scf.forall that
/// FAST_PIPELINE runs on OpenMP's threads, each reducing its chunk into a
/// partial result; a linalg op then combines the partial results in order.
/// Loops that also have parallel dimensions already run on every core.
struct ParallelReductionsPass
    : public jit::impl::ParallelReductionsBase<ParallelReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isWholeReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      rewriter.setInsertionPoint(op);
      // Asked before the split, which erases `op` and its body.
      bool sum = isa<arith::AddFOp>(yieldedOp(op));
      FailureOr<linalg::ForallReductionTilingResult> split =
          linalg::tileReductionUsingForall(
              rewriter, cast<PartialReductionOpInterface>(op.getOperation()),
              {rewriter.getIndexAttr(kChunks)});
      // Left as it is where it cannot be split (no neutral element).
      if (failed(split) || !sum)
        continue;
      // Partial sums start at -0.0, the neutral element of IEEE addition
      // (LLVM 22 starts them at +0.0: a sum of -0.0s would be +0.0).
      for (Value partial : split->initialValues) {
        auto fill = partial.getDefiningOp<linalg::FillOp>();
        if (!fill)
          continue;
        rewriter.setInsertionPoint(fill);
        Type element = fill.getInputs().front().getType();
        fill.getInputsMutable().assign(arith::ConstantOp::create(
            rewriter, fill.getLoc(), rewriter.getFloatAttr(element, -0.0)));
      }
    }
  }
};

} // namespace
