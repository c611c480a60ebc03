// The embedded C API: jits a function over a symbol registered from C and
// calls it: callback_test(42.0, 2) = 44.0.
#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>

static float callback(float f, int i) { return f + (float)i; }

static void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  mlirRegisterAllPasses();

  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @callback_test(%a : f32, %b : i32) -> f32 "
               "attributes { llvm.emit_c_interface } {\n"
               "  %r = call @callback(%a, %b) : (f32, i32) -> f32\n"
               "  return %r : f32\n"
               "}\n"
               "func.func private @callback(f32, i32) -> f32 "
               "attributes { llvm.emit_c_interface }"));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  if (mlirModuleIsNull(module) ||
      mlirLogicalResultIsFailure(mlirParsePassPipeline(
          opm,
          mlirStringRefCreateFromCString(
              "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
              "reconcile-unrealized-casts)"),
          printToStderr, NULL)) ||
      mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "cannot parse or lower the module\n");
    return 1;
  }
  mlirPassManagerDestroy(pm);

  MlirExecutionEngine jit =
      mlirExecutionEngineCreate(module, 2, 0, NULL, false, false);
  if (mlirExecutionEngineIsNull(jit)) {
    fprintf(stderr, "cannot create the engine\n");
    return 1;
  }
  mlirExecutionEngineRegisterSymbol(
      jit, mlirStringRefCreateFromCString("_mlir_ciface_callback"),
      (void *)callback);
  float a = 42.0f, result = 0.0f;
  int b = 2;
  void *args[3] = {&a, &b, &result};
  MlirLogicalResult status = mlirExecutionEngineInvokePacked(
      jit, mlirStringRefCreateFromCString("callback_test"), args);
  printf("callback_test(%.1f, %d) = %.1f\n", a, b, result);

  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return mlirLogicalResultIsSuccess(status) && result == 44.0f ? 0 : 1;
}
