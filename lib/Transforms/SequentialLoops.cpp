//===- SequentialLoops.cpp - Parallel loops that must run in order
//----------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_SEQUENTIALLOOPS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {
/// Whether `loop` allocates on the stack: its iterations must stay
/// parallel ones, which convert-scf-to-openmp frees each in an
/// alloca_scope (as sequential loops they would pile up on the stack).
bool allocatesOnStack(scf::ParallelOp loop) {
  return loop->walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether `loop` must run on the calling thread: it calls something (a
/// Python callback there would wait for the GIL the caller may hold, and
/// its exception would have no call to go to), or it reduces
/// (convert-scf-to-openmp takes only some reductions, and on some types).
bool runsOnCallingThread(scf::ParallelOp loop) {
  return loop.getNumReductions() > 0 ||
         loop->walk([](CallOpInterface) { return WalkResult::interrupt(); })
             .wasInterrupted();
}

/// Whether `loop` runs as sequential loops: it must run on the calling
/// thread, or it is nested in another parallel loop (OpenMP would run it
/// on the thread of the outer loop's iteration anyway, at the cost of a
/// parallel region each time: the matmul's blocks copy their pieces in
/// such loops).
bool isSequential(scf::ParallelOp loop) {
  return runsOnCallingThread(loop) ||
         (loop->getParentOfType<scf::ParallelOp>() && !allocatesOnStack(loop));
}

/// Rewrites `loop` as nested scf.for loops, each reduction an iteration
/// argument that its scf.reduce region combines with the iteration's value.
void runSequentially(scf::ParallelOp loop) {
  OpBuilder builder(loop);
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  auto body = [&](OpBuilder &nested, Location, ValueRange ivs,
                  ValueRange accumulators) {
    IRMapping mapping;
    mapping.map(loop.getInductionVars(), ivs);
    for (Operation &op : loop.getBody()->without_terminator())
      nested.clone(op, mapping);
    scf::ValueVector combined;
    for (auto [region, accumulator, value] : llvm::zip(
             reduce.getReductions(), accumulators, reduce.getOperands())) {
      Block &combiner = region.front();
      mapping.map(combiner.getArgument(0), accumulator);
      mapping.map(combiner.getArgument(1), mapping.lookupOrDefault(value));
      for (Operation &op : combiner.without_terminator())
        nested.clone(op, mapping);
      combined.push_back(mapping.lookupOrDefault(
          cast<scf::ReduceReturnOp>(combiner.getTerminator()).getResult()));
    }
    return combined;
  };
  scf::LoopNest nest = scf::buildLoopNest(
      builder, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), loop.getInitVals(), body);
  loop.replaceAllUsesWith(nest.results);
  loop.erase();
}

/// Whether `loop`'s body is straight-line code (as a linalg op's loops on
/// elementwise ops), which LLVM vectorizes along its innermost dimension.
bool isStraightLine(scf::ParallelOp loop) {
  return !allocatesOnStack(loop) &&
         llvm::all_of(loop.getBody()->without_terminator(),
                      [](Operation &op) { return op.getNumRegions() == 0; });
}

/// Rewrites `loop`'s innermost dimension as an scf.for loop inside it:
/// convert-scf-to-openmp would make all its dimensions one loop whose
/// indices are divided out of a counter every iteration, which LLVM does
/// not vectorize.
void runInnermostSequentially(scf::ParallelOp loop) {
  OpBuilder builder(loop);
  ValueRange lower = loop.getLowerBound(), upper = loop.getUpperBound(),
             step = loop.getStep();
  scf::ParallelOp::create(
      builder, loop.getLoc(), lower.drop_back(), upper.drop_back(),
      step.drop_back(),
      [&](OpBuilder &nested, Location loc, ValueRange outerIvs) {
        scf::buildLoopNest(
            nested, loc, lower.take_back(), upper.take_back(), step.take_back(),
            [&](OpBuilder &inner, Location, ValueRange innerIvs) {
              ValueRange ivs = loop.getInductionVars();
              IRMapping mapping;
              mapping.map(ivs.drop_back(), outerIvs);
              mapping.map(ivs.take_back(), innerIvs);
              for (Operation &op : loop.getBody()->without_terminator())
                inner.clone(op, mapping);
            });
      });
  loop.erase();
}

/// Rewrites the scf.parallel loops that run sequentially as scf.for loops,
/// so that convert-scf-to-openmp takes only the others, and the innermost
/// dimension of those others whose bodies LLVM vectorizes.
struct SequentialLoopsPass
    : public jit::impl::SequentialLoopsBase<SequentialLoopsPass> {
  void runOnOperation() override {
    // Post-order: inner loops first, so that an outer loop clones them
    // rewritten.
    // Each loop with whether it runs wholly sequentially.
    SmallVector<std::pair<scf::ParallelOp, bool>> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      bool sequential = isSequential(loop);
      if (sequential || (loop.getNumLoops() > 1 && isStraightLine(loop)))
        loops.emplace_back(loop, sequential);
    });
    for (auto [loop, sequential] : loops) {
      if (sequential)
        runSequentially(loop);
      else
        runInnermostSequentially(loop);
    }
  }
};

} // namespace
