//===- JitPasses.h - This project's passes, for pass pipelines ----*- C -*-===//
//
// The passes of lib/Transforms/Passes.td, which the lowering pipelines of
// `jit()` use: mlirRegisterJitPasses registers all of them (call it once,
// before parsing a pipeline that names them), mlirCreateJit<Pass> makes one
// (jit-approximate-math: mlirCreateJitApproximateMath, ...).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_JITPASSES_H
#define MLIR_C_JITPASSES_H

#include "mlir-c/JitPasses.capi.h.inc"

#endif // MLIR_C_JITPASSES_H
