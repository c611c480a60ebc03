//===- JitCallProperties.cpp - C API of //lib/Analysis:CallProperties -----===//

#include "mlir-c/JitCallProperties.h"

#include "lib/Analysis/ArgumentWrites.h"
#include "lib/Analysis/CallProperties.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;

MlirJitCallProperties
mlirJitFunctionGetCallProperties(MlirOperation function, intptr_t numCallbacks,
                                 MlirStringRef const *callbacks) {
  llvm::StringSet<> names;
  for (intptr_t i = 0; i < numCallbacks; ++i)
    names.insert(unwrap(callbacks[i]));
  jit::CallProperties properties = jit::analyzeCalls(unwrap(function), names);
  return {properties.mayRunWithoutCallbacks, properties.calls,
          properties.mayAllocate};
}

bool mlirJitModuleCallsOnlyOwnCode(MlirOperation module) {
  return jit::callsOnlyOwnCode(unwrap(module));
}

bool mlirJitFunctionMayWriteArgument(MlirOperation function, intptr_t index) {
  return jit::mayWriteArgument(unwrap(function), index);
}
