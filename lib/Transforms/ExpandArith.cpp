//===- ExpandArith.cpp - The arith ops convert-arith-to-llvm lacks, expanded
//---===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_EXPANDARITH
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {
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
struct ExpandArithPass : public jit::impl::ExpandArithBase<ExpandArithPass> {
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

} // namespace
