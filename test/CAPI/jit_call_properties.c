//===- jit_call_properties.c - What calls of jitted functions may do ------===//
//
// RUN: jit_call_properties_test 2>&1 | FileCheck %s
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/JitCallProperties.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <stdlib.h>

static MlirContext createContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  return ctx;
}

static MlirModule parse(MlirContext ctx, const char *source) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse the module\n");
    exit(1);
  }
  return module;
}

/// Prints the properties of calls of the module's function `@f`, in which
/// calls of `@cb` call a callback: whether it may run long without calling
/// back, calls anything, may allocate; and whether the module calls only its
/// own code.
static void printProperties(MlirContext ctx, const char *name,
                            const char *source) {
  MlirModule module = parse(ctx, source);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirSymbolTable table = mlirSymbolTableCreate(moduleOp);
  MlirOperation f =
      mlirSymbolTableLookup(table, mlirStringRefCreateFromCString("f"));
  MlirStringRef callbacks[] = {mlirStringRefCreateFromCString("cb")};
  MlirJitCallProperties properties =
      mlirJitFunctionGetCallProperties(f, 1, callbacks);
  printf("%s: long %d, calls %d, allocates %d, own %d\n", name,
         properties.mayRunWithoutCallbacks, properties.calls,
         properties.mayAllocate, mlirJitModuleCallsOnlyOwnCode(moduleOp));
  mlirSymbolTableDestroy(table);
  mlirModuleDestroy(module);
}

// Each line: whether a call may run long without calling back, whether it
// calls anything, whether it may allocate, and whether the module calls only
// its own code.
#define CALLBACK "func.func private @cb(i64)\n"
#define BOUNDS                                                                 \
  "%lb = arith.constant 0 : index\n"                                           \
  "%ub = arith.constant 8 : index\n"                                           \
  "%step = arith.constant 1 : index\n"

/// Whether a call may run long without calling back.
static void testLoopsAndBranches(MlirContext ctx) {
  // Straight-line code keeps the GIL: it is short.
  // CHECK: straight: long 0, calls 0, allocates 0, own 1
  printProperties(ctx, "straight",
                  "func.func @f(%x: i64) -> i64 {\n"
                  "  %y = arith.addi %x, %x : i64\n"
                  "  return %y : i64\n"
                  "}");

  // A loop whose every iteration calls back keeps it too.
  // CHECK: loop calling back: long 0, calls 1, allocates 1, own 1
  printProperties(ctx, "loop calling back",
                  CALLBACK "func.func @f(%x: i64) {\n" BOUNDS
                           "  scf.for %i = %lb to %ub step %step {\n"
                           "    func.call @cb(%x) : (i64) -> ()\n"
                           "  }\n"
                           "  return\n"
                           "}");

  // A loop that calls no callback may run long without Python.
  // CHECK: loop: long 1, calls 0, allocates 0, own 1
  printProperties(ctx, "loop",
                  "func.func @f(%x: i64) {\n" BOUNDS
                  "  scf.for %i = %lb to %ub step %step {\n"
                  "    %y = arith.addi %x, %x : i64\n"
                  "  }\n"
                  "  return\n"
                  "}");

  // So may an inner loop without a callback, in an outer loop with one.
  // CHECK: inner loop: long 1, calls 1, allocates 1, own 1
  printProperties(ctx, "inner loop",
                  CALLBACK "func.func @f(%x: i64) {\n" BOUNDS
                           "  scf.for %i = %lb to %ub step %step {\n"
                           "    func.call @cb(%x) : (i64) -> ()\n"
                           "    scf.for %j = %lb to %ub step %step {\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}");

  // Nested loops each calling back (the outer one through the inner one).
  // CHECK: nested loops calling back: long 0, calls 1, allocates 1, own 1
  printProperties(ctx, "nested loops calling back",
                  CALLBACK "func.func @f(%x: i64) {\n" BOUNDS
                           "  scf.for %i = %lb to %ub step %step {\n"
                           "    scf.for %j = %lb to %ub step %step {\n"
                           "      func.call @cb(%x) : (i64) -> ()\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}");

  // A branch whose one side calls no callback.
  // CHECK: branch: long 1, calls 1, allocates 1, own 1
  printProperties(ctx, "branch",
                  CALLBACK "func.func @f(%x: i64, %c: i1) {\n"
                           "  scf.if %c {\n"
                           "    func.call @cb(%x) : (i64) -> ()\n"
                           "  } else {\n"
                           "    scf.for %i = %x to %x step %x : i64 {\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}");

  // A loop calling back only in the then-branch of an scf.if may run long.
  // CHECK: branch without else: long 1, calls 1, allocates 1, own 1
  printProperties(ctx, "branch without else",
                  CALLBACK "func.func @f(%x: i64, %c: i1) {\n" BOUNDS
                           "  scf.for %i = %lb to %ub step %step {\n"
                           "    scf.if %c {\n"
                           "      func.call @cb(%x) : (i64) -> ()\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}");
  // CHECK: branches calling back: long 0, calls 1, allocates 1, own 1
  printProperties(ctx, "branches calling back",
                  CALLBACK "func.func @f(%x: i64, %c: i1) {\n" BOUNDS
                           "  scf.for %i = %lb to %ub step %step {\n"
                           "    scf.if %c {\n"
                           "      func.call @cb(%x) : (i64) -> ()\n"
                           "    } else {\n"
                           "      func.call @cb(%x) : (i64) -> ()\n"
                           "    }\n"
                           "  }\n"
                           "  return\n"
                           "}");

  // Blocks may form loops.
  // CHECK: blocks: long 1, calls 0, allocates 0, own 1
  printProperties(ctx, "blocks",
                  "func.func @f(%x: i64) {\n"
                  "  cf.br ^next\n"
                  "^next:\n"
                  "  return\n"
                  "}");
}

/// Calls, and what runs between a call and its callbacks.
static void testCalls(MlirContext ctx) {
  // A call of a function that is not a callback may run long, and a call
  // through a pointer may call anything: neither is only the module's code.
  // CHECK: other call: long 1, calls 1, allocates 1, own 1
  printProperties(ctx, "other call",
                  "func.func @g(%x: i64) {\n"
                  "  return\n"
                  "}\n"
                  "func.func @f(%x: i64) {\n"
                  "  func.call @g(%x) : (i64) -> ()\n"
                  "  return\n"
                  "}");
  // CHECK: call through a pointer: long 1, calls 1, allocates 1, own 0
  printProperties(ctx, "call through a pointer",
                  "func.func @f(%g: (i64) -> (), %x: i64) {\n"
                  "  func.call_indirect %g(%x) : (i64) -> ()\n"
                  "  return\n"
                  "}");

  // An external LLVM function (such as libc's qsort) may call the module
  // back; the LLVM dialect is not this project's pipelines' to lower.
  // CHECK: llvm call: long 1, calls 1, allocates 1, own 0
  printProperties(ctx, "llvm call",
                  "llvm.func @qsort(!llvm.ptr)\n"
                  "func.func @f(%p: !llvm.ptr) {\n"
                  "  llvm.call @qsort(%p) : (!llvm.ptr) -> ()\n"
                  "  return\n"
                  "}");

  // OpenMP's regions run on other threads.
  // CHECK: openmp: long 1, calls 1, allocates 1, own 0
  printProperties(ctx, "openmp",
                  CALLBACK "func.func @f(%x: i64) {\n"
                           "  omp.parallel {\n"
                           "    func.call @cb(%x) : (i64) -> ()\n"
                           "    omp.terminator\n"
                           "  }\n"
                           "  return\n"
                           "}");
}

static void testAllocations(MlirContext ctx) {
  // Allocations may fail, and tensors and linalg allocate.
  // CHECK: alloc: long 0, calls 0, allocates 1, own 1
  printProperties(ctx, "alloc",
                  "func.func @f(%x: i64) {\n"
                  "  %m = memref.alloc() : memref<4xi64>\n"
                  "  memref.dealloc %m : memref<4xi64>\n"
                  "  return\n"
                  "}");
  // A copy is a loop over whole arrays.
  // CHECK: copy: long 1, calls 0, allocates 1, own 1
  printProperties(ctx, "copy",
                  "func.func @f(%a: memref<?xf64>, %b: memref<?xf64>) {\n"
                  "  memref.copy %a, %b : memref<?xf64> to memref<?xf64>\n"
                  "  return\n"
                  "}");
  // CHECK: alloca: long 0, calls 0, allocates 0, own 1
  printProperties(ctx, "alloca",
                  "func.func @f(%x: i64) {\n"
                  "  %m = memref.alloca() : memref<4xi64>\n"
                  "  return\n"
                  "}");
  // CHECK: tensor: long 1, calls 0, allocates 1, own 1
  printProperties(ctx, "tensor",
                  "func.func @f(%x: i64) -> tensor<4xi64> {\n"
                  "  %t = tensor.splat %x : tensor<4xi64>\n"
                  "  return %t : tensor<4xi64>\n"
                  "}");
}

static void testOtherDialects(MlirContext ctx) {
  // The async dialect's lowering calls MLIR's async runtime, whose threads
  // may call the module.
  // CHECK: async: long 1, calls 0, allocates 0, own 0
  printProperties(ctx, "async",
                  "func.func @f(%x: i64) {\n"
                  "  %token = async.execute {\n"
                  "    async.yield\n"
                  "  }\n"
                  "  return\n"
                  "}");
}

/// Prints, for each argument of the module's function `@f`, whether calls
/// of it may write the argument's memory.
static void printWrites(MlirContext ctx, const char *name, const char *source) {
  MlirModule module = parse(ctx, source);
  MlirSymbolTable table = mlirSymbolTableCreate(mlirModuleGetOperation(module));
  MlirOperation f =
      mlirSymbolTableLookup(table, mlirStringRefCreateFromCString("f"));
  printf("%s:", name);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(entry); ++i)
    printf(" %d", mlirJitFunctionMayWriteArgument(f, i));
  printf("\n");
  mlirSymbolTableDestroy(table);
  mlirModuleDestroy(module);
}

#define M "memref<?xf32>"
static void testArgumentWrites(MlirContext ctx) {
  // CHECK: linalg ins, outs: 0 1
  printWrites(ctx, "linalg ins, outs",
              "func.func @f(%a: " M ", %b: " M ") {\n"
              "  linalg.copy ins(%a : " M ") outs(%b : " M ")\n"
              "  return\n}");
  // CHECK: load, store through a subview: 0 1
  printWrites(ctx, "load, store through a subview",
              "func.func @f(%a: " M ", %b: " M ") {\n"
              "  %c0 = arith.constant 0 : index\n"
              "  %c1 = arith.constant 1 : index\n"
              "  %v = memref.load %a[%c0] : " M "\n"
              "  %s = memref.subview %b[1] [1] [1] : " M
              " to memref<1xf32, strided<[1], offset: 1>>\n"
              "  memref.store %v, %s[%c0] : memref<1xf32, strided<[1], "
              "offset: 1>>\n"
              "  return\n}");
  // CHECK: passed to a call, returned, a scalar: 1 0 0
  printWrites(ctx, "passed to a call, returned, a scalar",
              "func.func private @g(" M ")\n"
              "func.func @f(%a: " M ", %b: " M ", %x: f32) -> " M " {\n"
              "  func.call @g(%a) : (" M ") -> ()\n"
              "  return %b : " M "\n}");
}
#undef M

int main(void) {
  MlirContext ctx = createContext();
  testLoopsAndBranches(ctx);
  testCalls(ctx);
  testAllocations(ctx);
  testOtherDialects(ctx);
  testArgumentWrites(ctx);
  mlirContextDestroy(ctx);
  return 0;
}
