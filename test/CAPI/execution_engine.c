//===- execution_engine.c - Test for the C bindings of the JIT
//-------------===//
//
// RUN: execution_engine_test 2>%t.stderr | FileCheck %s
// Failures are reported as values, never on stderr: it stays empty.
// RUN: FileCheck --allow-empty --check-prefix=STDERR %s < %t.stderr
// STDERR-NOT: {{.}}
//
//===----------------------------------------------------------------------===//

#include "mlir-c/ExecutionEngineChecked.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kLowering =
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
    "reconcile-unrealized-casts)";

/// `add(x) = x + x`, with a C interface.
static const char *kDoubleSource = "func.func @add(%arg0 : i32) -> i32 "
                                   "attributes { llvm.emit_c_interface } {\n"
                                   "  %res = arith.addi %arg0, %arg0 : i32\n"
                                   "  return %res : i32\n"
                                   "}";

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static void printToStdout(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stdout);
}

static MlirContext createContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirRegisterAllLLVMTranslations(ctx);
  return ctx;
}

/// Parses `source` and, if `lower`, lowers it to the LLVM dialect; exits on
/// failure.
static MlirModule parseModule(MlirContext ctx, const char *source, int lower) {
  MlirModule module = mlirModuleCreateParse(ctx, str(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse the module\n");
    exit(1);
  }
  if (!lower)
    return module;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                            str(kLowering), printToStdout, NULL);
  if (mlirLogicalResultIsFailure(parsed) ||
      mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "cannot lower the module\n");
    exit(1);
  }
  mlirPassManagerDestroy(pm);
  return module;
}

/// Exits (failing the test) if `jit` is null.
static MlirExecutionEngine requireEngine(MlirExecutionEngine jit) {
  if (mlirExecutionEngineIsNull(jit)) {
    printf("cannot create the engine\n");
    exit(1);
  }
  return jit;
}

// CHECK-LABEL: testInvokePacked
void testInvokePacked(MlirContext ctx) {
  printf("testInvokePacked\n");
  MlirModule module = parseModule(ctx, kDoubleSource, 1);
  MlirExecutionEngine jit = requireEngine(mlirExecutionEngineCreate(
      module, /*optLevel=*/2, /*numPaths=*/0, /*sharedLibPaths=*/NULL,
      /*enableObjectDump=*/false, /*enablePIC=*/false));
  // One pointer for the argument, one for the result.
  // CHECK: packed arguments: 2 2 -1
  printf("packed arguments: %lld %lld %lld\n",
         (long long)mlirExecutionEngineGetNumPackedArguments(jit, str("add")),
         (long long)mlirExecutionEngineGetNumPackedArguments(
             jit, str("_mlir_ciface_add")),
         (long long)mlirExecutionEngineGetNumPackedArguments(
             jit, str("nonexistent")));
  int input = 42;
  int result = -1;
  void *args[2] = {&input, &result};
  MlirLogicalResult status =
      mlirExecutionEngineInvokePacked(jit, str("add"), args);
  // CHECK: Input: 42 Result: 84 Success: 1
  printf("Input: %d Result: %d Success: %d\n", input, result,
         mlirLogicalResultIsSuccess(status));
  // CHECK: Unknown function: 0 (null: 1)
  status = mlirExecutionEngineInvokePacked(jit, str("nonexistent"), args);
  printf("Unknown function: %d (null: %d)\n",
         mlirLogicalResultIsSuccess(status),
         mlirExecutionEngineLookup(jit, str("nonexistent")) == NULL);
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

static float someCallbackIntoPython(float f, int i) { return f + (float)i; }

static const char *kCallbackModule =
    "func.func @callback_test(%arg0 : f32, %arg1 : i32) -> f32 "
    "attributes { llvm.emit_c_interface } {\n"
    "  %r = call @some_callback_into_python(%arg0, %arg1) : (f32, i32) -> f32\n"
    "  return %r : f32\n"
    "}\n"
    "func.func private @some_callback_into_python(f32, i32) -> f32 "
    "attributes { llvm.emit_c_interface }";

// CHECK-LABEL: testRegisterSymbol
void testRegisterSymbol(MlirContext ctx) {
  printf("testRegisterSymbol\n");
  MlirModule module = parseModule(ctx, kCallbackModule, 1);
  MlirExecutionEngine jit = requireEngine(
      mlirExecutionEngineCreate(module, 2, 0, NULL, false, false));

  // The declarations' types, for checking what is registered for them.
  // CHECK: declared: !llvm.func<f32 (f32, i32)> (found: 1)
  printf("declared: ");
  bool found = mlirExecutionEngineGetDeclaredFunctionType(
      jit, str("_mlir_ciface_some_callback_into_python"), printToStdout, NULL);
  printf(" (found: %d)\n", found);
  // CHECK: defined function: (found: 0)
  printf("defined function: ");
  found = mlirExecutionEngineGetDeclaredFunctionType(jit, str("callback_test"),
                                                     printToStdout, NULL);
  printf("(found: %d)\n", found);

  mlirExecutionEngineRegisterSymbol(
      jit, str("_mlir_ciface_some_callback_into_python"),
      (void *)someCallbackIntoPython);

  // A second registration, or one for a name the module defines, fails.
  // CHECK: duplicate: cannot register symbol
  // '_mlir_ciface_some_callback_into_python': it is already registered with
  // this engine
  printf("duplicate: ");
  MlirLogicalResult status = mlirExecutionEngineRegisterSymbolChecked(
      jit, str("_mlir_ciface_some_callback_into_python"),
      (void *)someCallbackIntoPython, printToStdout, NULL);
  // CHECK-SAME: (failed: 1)
  printf(" (failed: %d)\n", mlirLogicalResultIsFailure(status));
  // CHECK: defined: cannot register symbol 'callback_test': the module already
  // defines it CHECK-SAME: (failed: 1)
  printf("defined: ");
  status = mlirExecutionEngineRegisterSymbolChecked(
      jit, str("callback_test"), (void *)someCallbackIntoPython, printToStdout,
      NULL);
  printf(" (failed: %d)\n", mlirLogicalResultIsFailure(status));

  float f = 42.0f;
  int i = 2;
  float result = 0.0f;
  void *args[3] = {&f, &i, &result};
  status = mlirExecutionEngineInvokePacked(jit, str("callback_test"), args);
  // CHECK: 42.000000 + 2 = 44.000000 (success: 1)
  printf("%f + %d = %f (success: %d)\n", f, i, result,
         mlirLogicalResultIsSuccess(status));

  // Once compiled, a new symbol could not be used any more.
  // CHECK: late: cannot register symbol 'late': the module has already been
  // compiled CHECK-SAME: (failed: 1)
  printf("late: ");
  status = mlirExecutionEngineRegisterSymbolChecked(
      jit, str("late"), (void *)someCallbackIntoPython, printToStdout, NULL);
  printf(" (failed: %d)\n", mlirLogicalResultIsFailure(status));
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

// CHECK-LABEL: testMissingSymbol
void testMissingSymbol(MlirContext ctx) {
  printf("testMissingSymbol\n");
  MlirModule module = parseModule(ctx, kCallbackModule, 1);
  MlirExecutionEngine jit = requireEngine(
      mlirExecutionEngineCreate(module, 2, 0, NULL, false, false));
  // CHECK: symbols used by the module are neither defined nor registered:
  // _mlir_ciface_some_callback_into_python; register them
  printf("lookup: ");
  void *fn =
      mlirExecutionEngineLookupChecked(jit, str("callback_test"),
                                       /*packed=*/true, printToStdout, NULL);
  // CHECK: (null: 1)
  printf(" (null: %d)\n", fn == NULL);
  // Nothing was compiled: registering the symbol now repairs the engine.
  mlirExecutionEngineRegisterSymbol(
      jit, str("_mlir_ciface_some_callback_into_python"),
      (void *)someCallbackIntoPython);
  float f = 1.5f, result = 0.0f;
  int i = 2;
  void *args[3] = {&f, &i, &result};
  MlirLogicalResult status =
      mlirExecutionEngineInvokePacked(jit, str("callback_test"), args);
  // CHECK: after registering: 1.500000 + 2 = 3.500000 (success: 1)
  printf("after registering: %f + %d = %f (success: %d)\n", f, i, result,
         mlirLogicalResultIsSuccess(status));
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

// CHECK-LABEL: testUntranslatableModule
void testUntranslatableModule(MlirContext ctx) {
  printf("testUntranslatableModule\n");
  // Not lowered: func.func cannot be translated to LLVM IR.
  MlirModule module =
      parseModule(ctx, "func.func @f() { return }", /*lower=*/0);
  MlirExecutionEngine jit = mlirExecutionEngineCreateChecked(
      module, 2, 0, NULL, false, false, printToStdout, NULL);
  // CHECK: could not convert to LLVM IR
  // CHECK: error: {{.*}}func.func
  // CHECK: null: 1
  printf("\nnull: %d\n", mlirExecutionEngineIsNull(jit));
  // CHECK: optLevel: optimization level 7 is out of range: use 0, 1, 2 or 3
  // CHECK-SAME: (null: 1)
  printf("optLevel: ");
  jit = mlirExecutionEngineCreateChecked(module, 7, 0, NULL, false, false,
                                         printToStdout, NULL);
  printf(" (null: %d)\n", mlirExecutionEngineIsNull(jit));
  // CHECK: sharedLib: cannot load shared library '/nonexistent/libfoo.so'
  // CHECK-SAME: (null: 1)
  printf("sharedLib: ");
  MlirStringRef lib = str("/nonexistent/libfoo.so");
  jit = mlirExecutionEngineCreateChecked(module, 2, 1, &lib, false, false,
                                         printToStdout, NULL);
  printf(" (null: %d)\n", mlirExecutionEngineIsNull(jit));
  // A NUL would make the file calls use a shorter path.
  // CHECK: sharedLibNul: cannot load shared library '/tmp\0...': the path
  // contains a NUL character CHECK-SAME: (null: 1)
  printf("sharedLibNul: ");
  MlirStringRef withNul = mlirStringRefCreate("/tmp\0/libfoo.so", 15);
  jit = mlirExecutionEngineCreateChecked(module, 2, 1, &withNul, false, false,
                                         printToStdout, NULL);
  printf(" (null: %d)\n", mlirExecutionEngineIsNull(jit));
  // CHECK: sharedLibDirectory: cannot load shared library '/tmp': it is a
  // directory CHECK-SAME: (null: 1)
  printf("sharedLibDirectory: ");
  MlirStringRef directory = str("/tmp");
  jit = mlirExecutionEngineCreateChecked(module, 2, 1, &directory, false, false,
                                         printToStdout, NULL);
  printf(" (null: %d)\n", mlirExecutionEngineIsNull(jit));
  mlirModuleDestroy(module);
}

// CHECK-LABEL: testNulNames
// LLVM's symbol tables end a name at a NUL: two names differing after one
// would collide. Symbols and names holding one are refused.
void testNulNames(MlirContext ctx) {
  printf("testNulNames\n");
  MlirModule module = parseModule(
      ctx,
      "func.func @\"f\\00x\"() attributes { llvm.emit_c_interface } { return }",
      1);
  // CHECK: create: the symbol 'f\0...' contains a NUL character, which LLVM
  // symbol names cannot hold: rename it
  // CHECK-SAME: (null: 1)
  printf("create: ");
  MlirExecutionEngine jit = mlirExecutionEngineCreateChecked(
      module, 2, 0, NULL, false, false, printToStdout, NULL);
  printf(" (null: %d)\n", mlirExecutionEngineIsNull(jit));
  mlirModuleDestroy(module);

  module = parseModule(ctx, kCallbackModule, 1);
  jit = requireEngine(
      mlirExecutionEngineCreate(module, 2, 0, NULL, false, false));
  MlirStringRef withNul = mlirStringRefCreate("callback_test\0x", 15);
  // CHECK: lookup: cannot look up 'callback_test\0...': the name contains a
  // NUL character
  // CHECK-SAME: (null: 1)
  printf("lookup: ");
  void *fn = mlirExecutionEngineLookupChecked(jit, withNul, /*packed=*/true,
                                              printToStdout, NULL);
  printf(" (null: %d)\n", fn == NULL);
  // CHECK: register: cannot register symbol 'callback_test\0...': the name
  // contains a NUL character
  // CHECK-SAME: (failed: 1)
  printf("register: ");
  MlirLogicalResult status = mlirExecutionEngineRegisterSymbolChecked(
      jit, withNul, (void *)someCallbackIntoPython, printToStdout, NULL);
  printf(" (failed: %d)\n", mlirLogicalResultIsFailure(status));
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

// CHECK-LABEL: testDumpToObjectFile
void testDumpToObjectFile(MlirContext ctx) {
  printf("testDumpToObjectFile\n");
  MlirModule module = parseModule(ctx, kCallbackModule, 1);
  MlirExecutionEngine jit = requireEngine(mlirExecutionEngineCreate(
      module, 3, 0, NULL, /*enableObjectDump=*/true, /*enablePIC=*/true));
  mlirExecutionEngineRegisterSymbol(
      jit, str("_mlir_ciface_some_callback_into_python"),
      (void *)someCallbackIntoPython);
  char path[] = "/tmp/mlir_capi_objectXXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    printf("mkstemp failed\n");
    exit(1);
  }
  close(fd);
  MlirLogicalResult status = mlirExecutionEngineDumpToObjectFileChecked(
      jit, str(path), printToStdout, NULL);
  struct stat info;
  // CHECK: object file written: 1 (success: 1)
  printf("object file written: %d (success: %d)\n",
         stat(path, &info) == 0 && info.st_size > 0,
         mlirLogicalResultIsSuccess(status));
  unlink(path);
  mlirExecutionEngineDestroy(jit);

  // Without enableObjectDump there is nothing to dump.
  jit = requireEngine(
      mlirExecutionEngineCreate(module, 3, 0, NULL, false, false));
  // CHECK: cannot dump object code: the engine was created without enabling
  // object dumps CHECK-SAME: (failed: 1)
  status = mlirExecutionEngineDumpToObjectFileChecked(jit, str(path),
                                                      printToStdout, NULL);
  printf(" (failed: %d)\n", mlirLogicalResultIsFailure(status));
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

static int ctorCalls = 0;
static void countCtorCall(void) { ++ctorCalls; }

// CHECK-LABEL: testInitialize
void testInitialize(MlirContext ctx) {
  printf("testInitialize\n");
  MlirModule module = parseModule(
      ctx,
      "llvm.mlir.global_ctors ctors = [@ctor], priorities = [0 : i32], "
      "data = [#llvm.zero]\n"
      "llvm.func @count_ctor_call()\n"
      "llvm.func @ctor() {\n"
      "  llvm.call @count_ctor_call() : () -> ()\n"
      "  llvm.return\n"
      "}",
      0);
  MlirExecutionEngine jit = requireEngine(
      mlirExecutionEngineCreate(module, 2, 0, NULL, false, false));
  mlirExecutionEngineRegisterSymbol(jit, str("count_ctor_call"),
                                    (void *)countCtorCall);
  // CHECK: after create: 0
  printf("after create: %d\n", ctorCalls);
  MlirLogicalResult status =
      mlirExecutionEngineInitializeChecked(jit, printToStdout, NULL);
  // CHECK: after initialize: 1 (success: 1)
  printf("after initialize: %d (success: %d)\n", ctorCalls,
         mlirLogicalResultIsSuccess(status));
  status = mlirExecutionEngineInitializeChecked(jit, printToStdout, NULL);
  // CHECK: after second initialize: 1 (success: 1)
  printf("after second initialize: %d (success: %d)\n", ctorCalls,
         mlirLogicalResultIsSuccess(status));
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

/// Prints "<label>: <message>" for a reported failure or warning.
static void printLabelled(MlirStringRef message, void *label) {
  printf("%s: %.*s\n", (const char *)label, (int)message.length, message.data);
}

/// Invokes `add(21)` on `jit`, prints the result.
static void invokeAdd(MlirExecutionEngine jit, const char *label) {
  int input = 21, result = -1;
  void *args[2] = {&input, &result};
  MlirLogicalResult status =
      mlirExecutionEngineInvokePacked(jit, str("add"), args);
  printf("%s: %d (success: %d)\n", label, result,
         mlirLogicalResultIsSuccess(status));
}

/// The cache's counters, since the first call (the process's own engines
/// count too).
static void printStatistics(const char *label) {
  static MlirExecutionEngineCacheStatistics base;
  static bool started = false;
  MlirExecutionEngineCacheStatistics s =
      mlirExecutionEngineGetCacheStatistics();
  if (!started)
    base = s, started = true;
  printf("%s: hits %lld misses %lld stores %lld compilations %lld\n", label,
         (long long)(s.hits - base.hits), (long long)(s.misses - base.misses),
         (long long)(s.stores - base.stores),
         (long long)(s.compilations - base.compilations));
}

/// Creates a new directory `dir` (of `size` bytes) in the test's temporary
/// directory.
static void makeTemporaryDirectory(char *dir, size_t size) {
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(dir, size, "%s/capi_cache_XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("cannot create a directory\n");
    exit(1);
  }
}

/// Compiling, storing and loading through the cache in `dir`.
// CHECK-LABEL: testCache
void testCache(MlirContext ctx, const char *dir) {
  printf("testCache\n");
  MlirModule module = parseModule(ctx, kDoubleSource, 1);
  // CHECK: before: hits 0 misses 0 stores 0 compilations 0
  printStatistics("before");
  MlirExecutionEngineOptions options = mlirExecutionEngineOptionsGetDefault();
  // CHECK: defaults: opt 2 gdb 1 perf 0 dump 0 pic 0
  printf("defaults: opt %d gdb %d perf %d dump %d pic %d\n", options.optLevel,
         options.enableGDBListener, options.enablePerfListener,
         options.enableObjectDump, options.enablePIC);
  options.enableGDBListener = false;
  options.enablePerfListener = false;
  options.cacheDir = str(dir);
  options.cacheKey = str("add, doubled");
  options.cacheAnnotation = str("the caller's note");
  options.onCacheWarning = printLabelled;
  options.cacheWarningUserData = (void *)"warning";

  // A miss is a null engine and no error.
  // CHECK: from an empty cache: null 1
  MlirExecutionEngine jit = mlirExecutionEngineCreateFromCache(
      &options, printLabelled, (void *)"error");
  printf("from an empty cache: null %d\n", mlirExecutionEngineIsNull(jit));

  // CHECK: compiled: 42 (success: 1)
  // CHECK: after compiling: hits 0 misses 2 stores 1 compilations 1
  jit = requireEngine(mlirExecutionEngineCreateWithOptions(
      module, &options, printLabelled, (void *)"error"));
  invokeAdd(jit, "compiled");
  mlirExecutionEngineDestroy(jit);
  printStatistics("after compiling");

  // CHECK: loaded: 42 (success: 1)
  // CHECK: annotation: the caller's note
  // CHECK: after loading: hits 1 misses 2 stores 1 compilations 1
  jit = requireEngine(mlirExecutionEngineCreateFromCache(
      &options, printLabelled, (void *)"error"));
  invokeAdd(jit, "loaded");
  mlirExecutionEngineGetCacheAnnotation(jit, printLabelled,
                                        (void *)"annotation");
  mlirExecutionEngineDestroy(jit);
  printStatistics("after loading");

  // Keyed by the module itself: the second engine loads the first's object.
  // CHECK: by module: 42 (success: 1)
  // CHECK: by module again: 42 (success: 1)
  // CHECK: keyed by the module: hits 2 misses 3 stores 2 compilations 2
  options.cacheKey = str("");
  for (int i = 0; i < 2; ++i) {
    jit = requireEngine(mlirExecutionEngineCreateWithOptions(
        module, &options, printLabelled, (void *)"error"));
    invokeAdd(jit, i ? "by module again" : "by module");
    mlirExecutionEngineDestroy(jit);
  }
  printStatistics("keyed by the module");
  mlirModuleDestroy(module);
}

/// What the directory `dir`, which testCache filled, holds, emptying it, and
/// directories that cannot be used.
// CHECK-LABEL: testCacheDirectory
void testCacheDirectory(MlirContext ctx, const char *dir) {
  printf("testCacheDirectory\n");
  MlirModule module = parseModule(ctx, kDoubleSource, 1);
  MlirExecutionEngineOptions options = mlirExecutionEngineOptionsGetDefault();
  options.enableGDBListener = false;
  options.enablePerfListener = false;
  options.onCacheWarning = printLabelled;
  options.cacheWarningUserData = (void *)"warning";

  // What the directory holds, and emptying it.
  // CHECK: contents: 1 entries 2 bytes 1
  // CHECK: cleared: 1 removed 2
  // CHECK: contents: 1 entries 0 bytes 0
  // CHECK: max bytes: 1 1073741824
  int64_t entries = -1, removed = -1;
  uint64_t bytes = 0, maxBytes = 0;
  int errorNumber = 0;
  MlirLogicalResult status = mlirExecutionEngineGetCacheContents(
      str(dir), &entries, &bytes, &errorNumber, printLabelled, (void *)"error");
  printf("contents: %d entries %lld bytes %d\n",
         mlirLogicalResultIsSuccess(status), (long long)entries, bytes > 0);
  status = mlirExecutionEngineClearCache(str(dir), &removed, &errorNumber,
                                         printLabelled, (void *)"error");
  printf("cleared: %d removed %lld\n", mlirLogicalResultIsSuccess(status),
         (long long)removed);
  status = mlirExecutionEngineGetCacheContents(
      str(dir), &entries, &bytes, &errorNumber, printLabelled, (void *)"error");
  printf("contents: %d entries %lld bytes %llu\n",
         mlirLogicalResultIsSuccess(status), (long long)entries,
         (unsigned long long)bytes);
  bool valid = mlirExecutionEngineGetCacheMaxBytes(&maxBytes);
  printf("max bytes: %d %llu\n", valid, (unsigned long long)maxBytes);

  // CHECK: error: creating an engine from the cache needs a cache directory
  // CHECK-SAME: and a cache key
  MlirExecutionEngine jit = mlirExecutionEngineCreateFromCache(
      &options, printLabelled, (void *)"error");

  // A directory that cannot be created: a warning, and a working engine.
  char blocked[4200];
  snprintf(blocked, sizeof(blocked), "%s/file", dir);
  fclose(fopen(blocked, "w"));
  strcat(blocked, "/cache");
  options.cacheDir = str(blocked);
  // CHECK: warning: cannot create the cache directory '{{.*}}/file/cache'
  // CHECK-SAME: : Not a directory
  // CHECK: uncached: 42 (success: 1)
  jit = requireEngine(mlirExecutionEngineCreateWithOptions(
      module, &options, printLabelled, (void *)"error"));
  invokeAdd(jit, "uncached");
  // CHECK: error: cannot read the cache directory '{{.*}}/file/cache'
  // CHECK-SAME: : Not a directory
  // CHECK: unreadable: 0 errno 20
  status = mlirExecutionEngineGetCacheContents(str(blocked), &entries, &bytes,
                                               &errorNumber, printLabelled,
                                               (void *)"error");
  printf("unreadable: %d errno %d\n", mlirLogicalResultIsSuccess(status),
         errorNumber);
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = createContext();
  mlirRegisterAllPasses();
  testInvokePacked(ctx);
  testRegisterSymbol(ctx);
  testMissingSymbol(ctx);
  testUntranslatableModule(ctx);
  testNulNames(ctx);
  testDumpToObjectFile(ctx);
  testInitialize(ctx);
  char cacheDir[4096];
  makeTemporaryDirectory(cacheDir, sizeof(cacheDir));
  testCache(ctx, cacheDir);
  testCacheDirectory(ctx, cacheDir);
  mlirContextDestroy(ctx);
  return 0;
}
