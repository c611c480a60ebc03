//===- ApproximateMath.cpp - Polynomial approximations of math functions on f32
//---===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

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
    : public jit::impl::ApproximateMathBase<ApproximateMathPass> {
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

} // namespace
