//===- RuntimeFunctions.h - Runtime functions the host may lack -*- C++ -*-===//
//
// Compiler-runtime functions jitted code may call that this process lacks,
// defined in every engine.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_RUNTIMEFUNCTIONS_H
#define MLIR_EXECUTION_ENGINE_RUNTIMEFUNCTIONS_H

#include "OrcEngine.h"

#include "llvm/Support/Error.h"

namespace mlir_execution_engine {

/// Defines the compiler-runtime functions jitted code may call that this
/// process lacks.
llvm::Error defineMissingRuntimeFunctions(OrcEngine &engine);

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_RUNTIMEFUNCTIONS_H
