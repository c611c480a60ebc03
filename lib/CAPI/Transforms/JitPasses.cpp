//===- JitPasses.cpp - This project's passes ------------------------------===//

#include "mlir-c/JitPasses.h"

#include "Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
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

/// A constant `value` of `type`, a splat if `type` is shaped.
Value constantOf(PatternRewriter &rewriter, Location loc, Type type,
                 TypedAttr value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(shaped, Attribute(value)));
  return arith::ConstantOp::create(rewriter, loc, value);
}

/// Builds f32 arithmetic (scalars or vectors of `type`) at `loc`.
struct F32Builder {
  PatternRewriter &rewriter;
  Location loc;
  Type type;

  Value f32(float value) const {
    return constantOf(rewriter, loc, type, rewriter.getF32FloatAttr(value));
  }
  Value fma(Value a, Value b, Value c) const {
    return math::FmaOp::create(rewriter, loc, a, b, c);
  }
  Value add(Value a, Value b) const {
    return arith::AddFOp::create(rewriter, loc, a, b);
  }
  Value sub(Value a, Value b) const {
    return arith::SubFOp::create(rewriter, loc, a, b);
  }
  Value mul(Value a, Value b) const {
    return arith::MulFOp::create(rewriter, loc, a, b);
  }
  Value neg(Value a) const { return arith::NegFOp::create(rewriter, loc, a); }
  /// select(x <keep> bound, x, bound): one vmaxps/vminps when `keep` is
  /// unordered, which keeps NaN.
  Value clamp(Value x, arith::CmpFPredicate keep, float bound) const {
    Value limit = f32(bound);
    Value kept = arith::CmpFOp::create(rewriter, loc, keep, x, limit);
    return arith::SelectOp::create(rewriter, loc, kept, x, limit);
  }
  /// `x < bound ? below : above`, without a branch.
  Value selectBelow(Value x, float bound, Value below, Value above) const {
    Value isBelow = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, x, f32(bound));
    return arith::SelectOp::create(rewriter, loc, isBelow, below, above);
  }
  /// The polynomial of `coefficients` (the highest degree's first) at `x`.
  Value polynomial(Value x, ArrayRef<float> coefficients) const {
    Value p = f32(coefficients.front());
    for (float coefficient : coefficients.drop_front())
      p = fma(p, x, f32(coefficient));
    return p;
  }
};

/// exp(x) on f32 in 15 vector instructions (upstream's approximation takes
/// 20, and was half of a softmax's time): exp(x) = 2^k * e^r, k = floor(x /
/// ln 2), r = x - k ln 2 in [0, ln 2), e^r a polynomial of degree 6
/// (relative error 2e-9), 2^k made from k's bits. x is first clamped to
/// [-88, 89], keeping NaN: k then stays in [-127, 128], where 2^k is 0 (a
/// result below 2^-126 is flushed to zero) or +inf (the result overflows).
/// At most 2 ulp from the correctly rounded result. This is the part after
/// the clamps, for x NaN or in [-88, 89].
Value expOfF32InRange(const F32Builder &b, Value x) {
  Value k = math::FloorOp::create(b.rewriter, b.loc,
                                  b.mul(x, b.f32(1.44269504088896341f)));
  // Cody and Waite: k * 0.693359375 is exact, r exact but for ln 2's tail.
  Value r = b.fma(k, b.f32(-0.693359375f), x);
  r = b.fma(k, b.f32(2.12194440e-4f), r);
  // e^r on [0, ln 2], fitted for relative error.
  Value p =
      b.polynomial(r, {1.94851612e-3f, 7.79272243e-3f, 4.19147052e-2f,
                       1.66610211e-1f, 5.00005841e-1f, 9.99999821e-1f, 1.0f});
  // k + 127 in the low bits of a float's significand (1.5 * 2^23 + 127 + k
  // is exact), shifted into the exponent of 2^k.
  Type i32 = b.rewriter.getI32Type();
  if (auto shaped = dyn_cast<ShapedType>(b.type))
    i32 = shaped.clone(i32);
  Value biased = arith::BitcastOp::create(b.rewriter, b.loc, i32,
                                          b.add(k, b.f32(12583039.0f)));
  Value power = arith::BitcastOp::create(
      b.rewriter, b.loc, b.type,
      arith::ShLIOp::create(b.rewriter, b.loc, biased,
                            constantOf(b.rewriter, b.loc, i32,
                                       b.rewriter.getI32IntegerAttr(23))));
  return b.mul(p, power);
}

Value expOfF32(const F32Builder &b, Value x) {
  x = b.clamp(x, arith::CmpFPredicate::UGT, -88.0f);
  return expOfF32InRange(b, b.clamp(x, arith::CmpFPredicate::ULT, 89.0f));
}

/// A pattern replacing `Op` on f32 (or vectors of it) by `build(b, x)`.
template <typename Op, Value (*build)(const F32Builder &, Value)>
struct OfF32 : public OpRewritePattern<Op> {
  // Before upstream's approximations of the same ops.
  OfF32(MLIRContext *context) : OpRewritePattern<Op>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const final {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    F32Builder b{rewriter, op.getLoc(), type};
    rewriter.replaceOp(op, build(b, op.getOperand()));
    return success();
  }
};

/// tanh(x) on f32, at most 1 ulp from the correctly rounded result over
/// every input (upstream's, Eigen's rational function, reaches 5):
/// copysign(tanh(a), x) of a = |x| clamped to 10 (where tanh is 1.0f),
/// - below 1: a + a^3 P(a^2), P of degree 6 fitted for relative error
///   (5e-9);
/// - from 1: 1 - 2 / (e^2a + 1), where 2 / (e^2a + 1) is under a quarter of
///   the result, which keeps exp's 2 ulp to a fraction of one.
/// Both computed and one selected, which vectorizes; the sign copied back,
/// so that tanh(-0) = -0.
Value tanhOfF32(const F32Builder &b, Value x) {
  Value a = b.clamp(math::AbsFOp::create(b.rewriter, b.loc, x),
                    arith::CmpFPredicate::ULT, 10.0f);
  Value a2 = b.mul(a, a);
  Value p = b.polynomial(a2, {-0.000358451623f, 0.00230136327f, -0.00794610474f,
                              0.0214866567f, -0.0538798012f, 0.133323446f,
                              -0.333332956f});
  Value below = b.fma(b.mul(a, a2), p, a);
  Value e = expOfF32InRange(b, b.add(a, a));
  Value above =
      b.sub(b.f32(1.0f), arith::DivFOp::create(b.rewriter, b.loc, b.f32(2.0f),
                                               b.add(e, b.f32(1.0f))));
  Value tanhOfA = b.selectBelow(a, 1.0f, below, above);
  return math::CopySignOp::create(b.rewriter, b.loc, tanhOfA, x);
}

/// erf(x) on f32, at most 1 ulp from the correctly rounded result over every
/// input (upstream's, rational functions on three intervals, reaches 5, and
/// gives erf(-0) = +0): copysign(erf(a), x) of a = |x| clamped to 4 (where
/// erf is 1.0f),
/// - below 1: a + a R(a^2), R of degree 6 fitted to erf(a) / a - 1 for
///   relative error of erf (1.2e-9), R's rounding errors a tenth of the
///   result's;
/// - from 1: 1 - e^-a^2 Q(a - 1), Q of degree 8 fitted to e^a^2 erfc(a)
///   (an error of 3e-9 of the result; erfc is at most 0.19 of it, and so is
///   exp's error), e^-a^2 as e^-h (1 - l) of a^2 = h + l exactly (l = fma(a,
///   a, -h)), since an error of a^2 becomes one of e^-a^2.
/// Both computed and one selected, which vectorizes.
Value erfOfF32(const F32Builder &b, Value x) {
  Value a = b.clamp(math::AbsFOp::create(b.rewriter, b.loc, x),
                    arith::CmpFPredicate::ULT, 4.0f);
  Value a2 = b.mul(a, a);
  Value r = b.polynomial(a2, {7.85386146e-05f, -0.000801019371f, 0.00518832775f,
                              -0.0268538129f, 0.112835854f, -0.37612626f,
                              0.128379166f});
  Value below = b.fma(a, r, a);
  Value minusA2 = b.neg(a2);
  Value low = b.fma(a, a, minusA2);
  Value q = b.polynomial(b.sub(a, b.f32(1.0f)),
                         {0.000108195869f, -0.00106609135f, 0.0049349349f,
                          -0.0151411751f, 0.0368966162f, -0.0790611804f,
                          0.15435189f, -0.273211151f, 0.427583575f});
  Value eq = b.mul(expOfF32InRange(b, minusA2), q);
  Value erfc = b.fma(b.neg(eq), low, eq);
  Value erfOfA = b.selectBelow(a, 1.0f, below, b.sub(b.f32(1.0f), erfc));
  return math::CopySignOp::create(b.rewriter, b.loc, erfOfA, x);
}

/// Polynomial approximations of math functions on f32: the project's own for
/// exp, tanh and erf, MLIR's (which upstream applies only in its test pass
/// `test-math-polynomial-approximation`) for the others; on f16 and bf16
/// through f32. Their accuracy over all 2^32 inputs:
/// test/python/jit_math_exhaustive.py.
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
    patterns.add<OfF32<math::ExpOp, expOfF32>>(&getContext());
    patterns.add<OfF32<math::TanhOp, tanhOfF32>>(&getContext());
    patterns.add<OfF32<math::ErfOp, erfOfF32>>(&getContext());
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

/// The memref `memref` is a view of, through its view-like ops.
Value viewedMemref(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `memref` is the result of an allocation (heap or stack).
bool isAllocation(Value memref) {
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
      memref.getDefiningOp());
}

/// Whether memory from `allocation`, allocated in a function, and `other`
/// cannot overlap: `other` views another allocation, or an argument of
/// that function (which existed before the allocation).
bool isDisjoint(Value allocation, Value other) {
  Value viewed = viewedMemref(other);
  if (viewed == allocation)
    return false;
  if (isAllocation(viewed))
    return true;
  auto argument = dyn_cast<BlockArgument>(viewed);
  auto function =
      allocation.getDefiningOp()->getParentOfType<CallableOpInterface>();
  return argument && function && argument.getOwner()->isEntryBlock() &&
         argument.getOwner()->getParentOp() == function;
}

/// The load and store of an accumulator in `loop`'s body: one element of an
/// allocation, at indices the loop does not change, that the loop loads
/// then stores and no other access in it can touch (the loops of a linalg
/// reduction). Null when the body has none, or other effects.
std::pair<memref::LoadOp, memref::StoreOp> findAccumulator(scf::ForOp loop) {
  SmallVector<memref::LoadOp> loads;
  memref::StoreOp store;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      loads.push_back(load);
    else if (auto opStore = dyn_cast<memref::StoreOp>(op); opStore && !store)
      store = opStore;
    else if (!isMemoryEffectFree(&op))
      return {};
  }
  if (!store || loop.getUnsignedCmp() || loop.getNumRegionIterArgs() != 0)
    return {};
  Value allocation = viewedMemref(store.getMemRef());
  if (!isAllocation(allocation) ||
      !loop.isDefinedOutsideOfLoop(store.getMemRef()) ||
      !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return {};
  memref::LoadOp accumulator;
  for (memref::LoadOp load : loads) {
    if (load.getMemRef() == store.getMemRef() &&
        llvm::equal(load.getIndices(), store.getIndices()) && !accumulator &&
        load->isBeforeInBlock(store))
      accumulator = load;
    else if (!isDisjoint(allocation, load.getMemRef()))
      return {};
  }
  if (!accumulator)
    return {};
  return {accumulator, store};
}

/// Keeps `loop`'s accumulator in a register: loaded before the loop (when
/// it runs at all), an iteration argument, stored after. LLVM would do it
/// itself only where it proves the accumulator apart from the other
/// memrefs, which it cannot in the functions OpenMP's regions become: its
/// loop then neither keeps the accumulator in a register nor vectorizes.
void keepInRegister(scf::ForOp loop, memref::LoadOp load,
                    memref::StoreOp store) {
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  Value runs =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                            loop.getLowerBound(), loop.getUpperBound());
  scf::IfOp::create(builder, loc, runs, [&](OpBuilder &then, Location) {
    Value initial = then.clone(*load)->getResult(0);
    auto accumulating = scf::ForOp::create(
        then, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
        ValueRange{initial},
        [&](OpBuilder &body, Location, Value iv, ValueRange accumulator) {
          IRMapping mapping;
          mapping.map(loop.getInductionVar(), iv);
          mapping.map(load.getResult(), accumulator.front());
          for (Operation &op : loop.getBody()->without_terminator())
            if (&op != load && &op != store)
              body.clone(op, mapping);
          scf::YieldOp::create(body, loc,
                               mapping.lookupOrDefault(store.getValue()));
        });
    memref::StoreOp::create(then, loc, accumulating.getResult(0),
                            store.getMemRef(), store.getIndices());
    scf::YieldOp::create(then, loc);
  });
  loop.erase();
}

/// Keeps the accumulators of loops (linalg's reductions) in registers.
struct RegisterAccumulatorsPass
    : public PassWrapper<RegisterAccumulatorsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RegisterAccumulatorsPass)

  StringRef getArgument() const final { return "jit-register-accumulators"; }
  StringRef getDescription() const final {
    return "Keep an scf.for's accumulator, an element of an allocation it "
           "loads and stores, in an iteration argument";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      auto [load, store] = findAccumulator(loop);
      if (load)
        keepInRegister(loop, load, store);
    }
  }
};

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
    : public PassWrapper<SequentialLoopsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SequentialLoopsPass)

  StringRef getArgument() const final { return "jit-sequential-loops"; }
  StringRef getDescription() const final {
    return "Rewrite the scf.parallel loops that call, reduce or are nested "
           "in another as scf.for loops, and the innermost dimension of the "
           "others that have straight-line bodies";
  }
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
struct ParallelIfPass : public PassWrapper<ParallelIfPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ParallelIfPass)

  StringRef getArgument() const final { return "jit-parallel-if"; }
  StringRef getDescription() const final {
    return "Run an omp.parallel's loop on the calling thread alone when it "
           "has fewer than two iterations, or runs fewer ops than a fork "
           "costs";
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

void mlirRegisterJitPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistration<ApproximateMathPass>();
    PassRegistration<ExpandArithPass>();
    PassRegistration<ParallelIfPass>();
    registerDecomposeAggregatesPass();
    registerHoistAllocasPass();
    registerParallelReductionsPass();
    registerParallelFusionPass();
    PassRegistration<RegisterAccumulatorsPass>();
    PassRegistration<SequentialLoopsPass>();
    registerUncloneReturnedArgumentsPass();
  });
}
