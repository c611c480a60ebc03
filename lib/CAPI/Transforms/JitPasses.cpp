//===- JitPasses.cpp - C API of this project's passes ---------------------===//
//
// Generated from lib/Transforms/Passes.td, as upstream's
// lib/CAPI/Dialect/*Passes.cpp are: mlirRegisterJitPasses and, for each
// pass, mlirCreateJit<Pass> and mlirRegisterJit<Pass>.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/JitPasses.h"

#include "lib/Transforms/Passes.h"
#include "mlir/CAPI/Pass.h"

using namespace mlir;
using namespace mlir::jit;

#include "lib/CAPI/Transforms/JitPasses.capi.cpp.inc"
