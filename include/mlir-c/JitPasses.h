//===- JitPasses.h - This project's passes, for pass pipelines ----*- C -*-===//
//
// Passes the lowering pipelines of `jit()` use that upstream registers only
// as test passes.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_JITPASSES_H
#define MLIR_C_JITPASSES_H

#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers, once per process, `jit-approximate-math`: math ops on f32 (and
/// on f16 and bf16, computed in f32) whose approximations are accurate over
/// the whole range (tanh, exp, expm1, log1p, erf, acos) become MLIR's
/// polynomial approximations, plain arithmetic that LLVM vectorizes, instead
/// of calls to libm.
MLIR_CAPI_EXPORTED void mlirRegisterJitPasses(void);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_JITPASSES_H
