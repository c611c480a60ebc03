//===- ParallelIf.cpp - A fork only where it pays
//---------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_PARALLELIF
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {
/// The trip count, as an index, of a loop from `lower` to `upper` by `step`.
Value tripCount(OpBuilder &builder, Location loc, Value lower, Value upper,
                Value step) {
  Value zero = arith::ConstantOp::create(builder, loc,
                                         builder.getZeroAttr(lower.getType()));
  Value span = arith::MaxSIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, upper, lower), zero);
  // At least 1: a step of 0 (a loop that does not run) divides by zero.
  Value one = arith::ConstantOp::create(builder, loc,
                                        builder.getOneAttr(step.getType()));
  Value count = arith::CeilDivSIOp::create(
      builder, loc, span, arith::MaxSIOp::create(builder, loc, step, one));
  if (count.getType().isIndex())
    return count;
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                    count);
}

/// Whether `value` is known before `parallel`: defined outside it, or a
/// constant.
bool isKnownBefore(Value value, Operation *parallel) {
  APInt constant;
  return !parallel->isAncestor(value.getParentRegion()->getParentOp()) ||
         matchPattern(value, m_ConstantInt(&constant));
}

/// `value`, known before `parallel`, for use there.
Value before(OpBuilder &builder, Value value, Operation *parallel) {
  if (!parallel->isAncestor(value.getParentRegion()->getParentOp()))
    return value;
  APInt constant;
  matchPattern(value, m_ConstantInt(&constant));
  return arith::ConstantOp::create(
      builder, value.getLoc(),
      builder.getIntegerAttr(value.getType(), constant));
}

/// Whether the trip counts of `region`'s loops are known before `parallel`.
bool isCountable(Region &region, Operation *parallel) {
  return !region
              .walk([&](scf::ForOp loop) {
                if (!isKnownBefore(loop.getLowerBound(), parallel) ||
                    !isKnownBefore(loop.getUpperBound(), parallel) ||
                    !isKnownBefore(loop.getStep(), parallel))
                  return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}

/// The ops one run of countable `region` executes, computed before
/// `parallel`: one for each op, and an scf.for's trip count times its
/// body's.
Value countOps(OpBuilder &builder, Location loc, Region &region,
               Operation *parallel) {
  int64_t ops = 0;
  Value nestedOps;
  for (Block &block : region) {
    for (Operation &op : block) {
      ++ops;
      for (Region &nested : op.getRegions()) {
        Value count = countOps(builder, loc, nested, parallel);
        if (auto loop = dyn_cast<scf::ForOp>(op))
          count = arith::MulIOp::create(
              builder, loc,
              tripCount(builder, loc,
                        before(builder, loop.getLowerBound(), parallel),
                        before(builder, loop.getUpperBound(), parallel),
                        before(builder, loop.getStep(), parallel)),
              count);
        nestedOps = nestedOps
                        ? arith::AddIOp::create(builder, loc, nestedOps, count)
                        : count;
      }
    }
  }
  Value total = arith::ConstantIndexOp::create(builder, loc, ops);
  return nestedOps ? arith::AddIOp::create(builder, loc, total, nestedOps)
                   : total;
}

/// Forking costs a few microseconds (waking OpenMP's threads): about the
/// time of this many ops, which a parallel region must run to fork.
constexpr int64_t kOpsWorthForking = 1 << 17;

/// Makes each omp.parallel fork only when its loop has two iterations or
/// more and, when its ops can be counted before it, kOpsWorthForking ops
/// (its `if` clause): a small matmul is a single block, a small elementwise
/// loop costs less than the fork.
struct ParallelIfPass : public jit::impl::ParallelIfBase<ParallelIfPass> {
  void runOnOperation() override {
    getOperation()->walk([](omp::ParallelOp parallel) {
      omp::LoopNestOp nest;
      parallel.walk([&](omp::LoopNestOp op) {
        nest = op;
        return WalkResult::interrupt();
      });
      // As convert-scf-to-openmp makes them: an exclusive loop whose bounds
      // are defined outside.
      if (parallel.getIfExpr() || !nest || nest.getLoopInclusive() ||
          llvm::any_of(nest->getOperands(), [&](Value bound) {
            return !bound.getParentRegion()->isAncestor(
                parallel->getParentRegion());
          }))
        return;
      OpBuilder builder(parallel);
      Location loc = parallel.getLoc();
      Value iterations;
      for (auto [lower, upper, step] :
           llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                     nest.getLoopSteps())) {
        Value count = tripCount(builder, loc, lower, upper, step);
        iterations =
            iterations ? arith::MulIOp::create(builder, loc, iterations, count)
                       : count;
      }
      Value fork = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sge, iterations,
          arith::ConstantIndexOp::create(builder, loc, 2));
      if (isCountable(nest.getRegion(), parallel)) {
        Value total = arith::MulIOp::create(
            builder, loc, iterations,
            countOps(builder, loc, nest.getRegion(), parallel));
        Value enough = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::sge, total,
            arith::ConstantIndexOp::create(builder, loc, kOpsWorthForking));
        fork = arith::AndIOp::create(builder, loc, fork, enough);
      }
      parallel.getIfExprMutable().assign(fork);
    });
  }
};

} // namespace
