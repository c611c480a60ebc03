//===- Passes.h - Passes in files of their own ------------------*- C++ -*-===//
//
// Registration of the passes JitPasses.cpp's mlirRegisterJitPasses registers
// that live in files of their own.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CAPI_TRANSFORMS_PASSES_H
#define LIB_CAPI_TRANSFORMS_PASSES_H

/// jit-decompose-aggregates (DecomposeAggregates.cpp).
void registerDecomposeAggregatesPass();

/// jit-hoist-allocas (HoistAllocas.cpp).
void registerHoistAllocasPass();

/// jit-parallel-fusion (ParallelFusion.cpp).
void registerParallelFusionPass();

/// jit-parallel-reductions (ParallelReductions.cpp).
void registerParallelReductionsPass();

/// jit-unclone-returned-arguments (UncloneReturnedArguments.cpp).
void registerUncloneReturnedArgumentsPass();

#endif // LIB_CAPI_TRANSFORMS_PASSES_H
