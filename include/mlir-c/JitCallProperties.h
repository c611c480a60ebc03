//===-- mlir-c/JitCallProperties.h - What jitted calls may do -----*- C -*-===//
//
// What calls of a module's functions may do, decided on its IR before it is
// lowered: whether they may run long without calling back (a binding may
// then release its interpreter's lock), call anything, or allocate; and
// whether only the module's own code runs between a call and a callback;
// which arguments they may write.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_JITCALLPROPERTIES_H
#define MLIR_C_JITCALLPROPERTIES_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MlirJitCallProperties {
  /// It may run long without calling a callback: it calls anything but a
  /// callback, copies or makes whole arrays (memref.copy, tensors, linalg),
  /// runs a region on OpenMP's threads, has several blocks, or has a loop or
  /// a branch (an scf.if without an else among them) that calls no callback.
  bool mayRunWithoutCallbacks;
  /// It calls something, directly or through a pointer.
  bool calls;
  /// It may allocate memory: it allocates or copies memrefs, uses tensors
  /// or linalg, or calls something.
  bool mayAllocate;
} MlirJitCallProperties;

/// The properties of calls of `function`, a function-like op with one
/// region, in which a call of one of the `numCallbacks` symbols `callbacks`
/// calls a callback.
MLIR_CAPI_EXPORTED MlirJitCallProperties
mlirJitFunctionGetCallProperties(MlirOperation function, intptr_t numCallbacks,
                                 MlirStringRef const *callbacks);

/// Whether calls of `function`, a function-like op with one region, may
/// write the memory of its memref argument `index` (or of a view of it):
/// an op's memory effects say so, or an op that does not say (a call, a
/// loop passing it on) reaches it.
MLIR_CAPI_EXPORTED bool mlirJitFunctionMayWriteArgument(MlirOperation function,
                                                        intptr_t index);

/// Whether every op in `module` lowers, through this project's pipelines, to
/// the module's own code and to C library functions that never call back,
/// and every call is of one of the module's func.funcs.
MLIR_CAPI_EXPORTED bool mlirJitModuleCallsOnlyOwnCode(MlirOperation module);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_JITCALLPROPERTIES_H
