//===- JitPasses.cpp - This project's passes ------------------------------===//

#include "mlir-c/JitPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

#include <mutex>

using namespace mlir;

namespace {

/// The functions whose approximations are accurate over the whole f32 range
/// (test/python/jit_math_accuracy.py): others (sin and cos near their
/// zeros and for large arguments, log, log2 and cbrt of denormals, atan)
/// stay calls to libm.
bool isApproximated(StringRef name) {
  return llvm::is_contained({"math.tanh", "math.exp", "math.expm1",
                             "math.log1p", "math.erf", "math.acos"},
                            name);
}

/// MLIR's polynomial approximations of math functions, which upstream
/// applies only in its test pass `test-math-polynomial-approximation`; on
/// f16 and bf16 through f32.
struct ApproximateMathPass
    : public PassWrapper<ApproximateMathPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMathPass)

  StringRef getArgument() const final { return "jit-approximate-math"; }
  StringRef getDescription() const final {
    return "Replace math ops on f32, f16 and bf16 by polynomial "
           "approximations that vectorize";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// Whether `type` (or its elements) is `elementType`.
template <typename ElementType> bool isOf(Type type) {
  return isa<ElementType>(getElementTypeOrSelf(type));
}

/// Whether `type` (or its elements) is a 16-bit float.
bool is16BitFloat(Type type) {
  return isOf<BFloat16Type>(type) || isOf<Float16Type>(type);
}

/// A min/max of bf16, or maximumf/minimumf of f16, as one of f32, exact: on
/// bf16 LLVM would round the result back with AVX512-BF16's vcvtneps2bf16,
/// which flushes subnormals to zero. (f16 maxnumf/minnumf are left to
/// upstream's compare-and-select, which vectorizes: LLVM narrows them back
/// to f16 and, without AVX512-FP16, calls libm's fmaxf for each element.)
template <typename MinMaxOp>
struct MinMaxOf16BitFloatAsF32 : public OpRewritePattern<MinMaxOp> {
  using OpRewritePattern<MinMaxOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(MinMaxOp op,
                                PatternRewriter &rewriter) const final {
    Type type = op.getType();
    if (!isOf<BFloat16Type>(type) &&
        !(isOf<Float16Type>(type) &&
          isa<arith::MaximumFOp, arith::MinimumFOp>(op.getOperation())))
      return failure();
    Type f32 = rewriter.getF32Type();
    if (auto shaped = dyn_cast<ShapedType>(type))
      f32 = shaped.clone(f32);
    Location loc = op.getLoc();
    Value lhs = arith::ExtFOp::create(rewriter, loc, f32, op.getLhs());
    Value rhs = arith::ExtFOp::create(rewriter, loc, f32, op.getRhs());
    Value result =
        MinMaxOp::create(rewriter, loc, lhs, rhs, op.getFastmathAttr());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, result);
    return success();
  }
};

/// Upstream's arith-expand{include-bf16} but for float min/max, which
/// convert-arith-to-llvm makes LLVM's minimum/maximum/minnum/maxnum
/// intrinsics (on 16-bit floats through f32, or compare-and-select): LLVM
/// vectorizes their reductions (a row max), not the compare-and-select
/// arith-expand writes for them (which also orders -0 and +0 wrongly).
struct ExpandArithPass : public PassWrapper<ExpandArithPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandArithPass)

  StringRef getArgument() const final { return "jit-expand-arith"; }
  StringRef getDescription() const final {
    return "Expand the arith ops convert-arith-to-llvm does not lower (integer "
           "ceil/floor division, scaling casts) or lowers inexactly (bf16 "
           "casts, 16-bit float min/max), leaving float min/max to LLVM";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect, vector::VectorDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    // Before upstream's compare-and-select of the same ops.
    patterns.add<MinMaxOf16BitFloatAsF32<arith::MaximumFOp>,
                 MinMaxOf16BitFloatAsF32<arith::MinimumFOp>,
                 MinMaxOf16BitFloatAsF32<arith::MaxNumFOp>,
                 MinMaxOf16BitFloatAsF32<arith::MinNumFOp>>(&getContext(),
                                                            /*benefit=*/2);
    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, vector::VectorDialect>();
    target.addIllegalOp<arith::CeilDivSIOp, arith::CeilDivUIOp,
                        arith::FloorDivSIOp, arith::ScalingExtFOp,
                        arith::ScalingTruncFOp>();
    target.addDynamicallyLegalOp<arith::MaximumFOp, arith::MinimumFOp,
                                 arith::MaxNumFOp, arith::MinNumFOp>(
        [](Operation *op) {
          return !is16BitFloat(op->getResult(0).getType());
        });
    target.addDynamicallyLegalOp<arith::ExtFOp>([](arith::ExtFOp op) {
      return !(isOf<BFloat16Type>(op.getIn().getType()) &&
               isOf<Float32Type>(op.getType()));
    });
    target.addDynamicallyLegalOp<arith::TruncFOp>([](arith::TruncFOp op) {
      return !(isOf<Float32Type>(op.getIn().getType()) &&
               isOf<BFloat16Type>(op.getType()));
    });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

/// Whether `loop` must run on the calling thread: it calls something (a
/// Python callback there would wait for the GIL the caller may hold, and
/// its exception would have no call to go to), or it reduces
/// (convert-scf-to-openmp takes only some reductions, and on some types).
bool runsOnCallingThread(scf::ParallelOp loop) {
  return loop.getNumReductions() > 0 ||
         loop->walk([](CallOpInterface) { return WalkResult::interrupt(); })
             .wasInterrupted();
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

/// Rewrites the scf.parallel loops that must run on the calling thread as
/// sequential loops, so that convert-scf-to-openmp takes only the others.
struct SequentialLoopsPass
    : public PassWrapper<SequentialLoopsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SequentialLoopsPass)

  StringRef getArgument() const final { return "jit-sequential-loops"; }
  StringRef getDescription() const final {
    return "Rewrite the scf.parallel loops that call or reduce as scf.for "
           "loops";
  }
  void runOnOperation() override {
    // Post-order: inner loops first, so that an outer loop clones them
    // rewritten.
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (runsOnCallingThread(loop))
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      runSequentially(loop);
  }
};

/// Makes each omp.parallel fork only when its loop has two iterations or
/// more (its `if` clause): for one, waking the other threads costs
/// microseconds and gains nothing (a small matmul is a single block).
struct ParallelIfPass : public PassWrapper<ParallelIfPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ParallelIfPass)

  StringRef getArgument() const final { return "jit-parallel-if"; }
  StringRef getDescription() const final {
    return "Run an omp.parallel's loop on the calling thread alone when it "
           "has fewer than two iterations";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect>();
  }
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
        Value zero = arith::ConstantOp::create(
            builder, loc, builder.getZeroAttr(lower.getType()));
        Value span = arith::MaxSIOp::create(
            builder, loc, arith::SubIOp::create(builder, loc, upper, lower),
            zero);
        Value count = arith::CeilDivSIOp::create(builder, loc, span, step);
        iterations =
            iterations ? arith::MulIOp::create(builder, loc, iterations, count)
                       : count;
      }
      Value two = arith::ConstantOp::create(
          builder, loc, builder.getIntegerAttr(iterations.getType(), 2));
      Value fork = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sge, iterations, two);
      parallel.getIfExprMutable().assign(fork);
    });
  }
};

} // namespace

void mlirRegisterJitPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistration<ApproximateMathPass>();
    PassRegistration<ExpandArithPass>();
    PassRegistration<ParallelIfPass>();
    PassRegistration<SequentialLoopsPass>();
  });
}
