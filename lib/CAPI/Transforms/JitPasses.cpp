//===- JitPasses.cpp - This project's passes ------------------------------===//

#include "mlir-c/JitPasses.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Pass/Pass.h"
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

} // namespace

void mlirRegisterJitPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { PassRegistration<ApproximateMathPass>(); });
}
