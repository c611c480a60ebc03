//===-- mlir-c/ExecutionEngine.h - Execution engine management ----*- C -*-===//
//
// The ExecutionEngine C API of MLIR 22, with the same signatures as upstream,
// plus "Checked" variants that report failures instead of aborting the
// process or printing to stderr.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_EXECUTIONENGINE_H
#define MLIR_C_EXECUTIONENGINE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

DEFINE_C_API_STRUCT(MlirExecutionEngine, void);

#undef DEFINE_C_API_STRUCT

//===----------------------------------------------------------------------===//
// Upstream API.
//===----------------------------------------------------------------------===//

/// Creates an ExecutionEngine for the provided ModuleOp. The ModuleOp is
/// expected to be "translatable" to LLVM IR (only contains operations in
/// dialects that implement the `LLVMTranslationDialectInterface`). The module
/// ownership stays with the client and can be destroyed as soon as the call
/// returns. `optLevel` is the optimization level to be used for transformation
/// and code generation. LLVM passes at `optLevel` are run before code
/// generation. The number and array of paths corresponding to shared libraries
/// that will be loaded are specified via `numPaths` and `sharedLibPaths`
/// respectively. `enableObjectDump` keeps the compiled object code so that
/// `mlirExecutionEngineDumpToObjectFile` can write it; `enablePIC` generates
/// position-independent code. Returns a null engine on failure; use
/// `mlirExecutionEngineCreateChecked` to learn why.
MLIR_CAPI_EXPORTED MlirExecutionEngine mlirExecutionEngineCreate(
    MlirModule op, int optLevel, int numPaths,
    const MlirStringRef *sharedLibPaths, bool enableObjectDump, bool enablePIC);

/// Runs the module's global constructors (`llvm.mlir.global_ctors`), once:
/// later calls do nothing. Register every runtime symbol first.
MLIR_CAPI_EXPORTED void mlirExecutionEngineInitialize(MlirExecutionEngine jit);

/// Destroy an ExecutionEngine instance.
MLIR_CAPI_EXPORTED void mlirExecutionEngineDestroy(MlirExecutionEngine jit);

/// Checks whether an execution engine is null.
static inline bool mlirExecutionEngineIsNull(MlirExecutionEngine jit) {
  return !jit.ptr;
}

/// Invoke a native function in the execution engine by name with the arguments
/// and result of the invoked function passed as an array of pointers. The
/// function must have been tagged with the `llvm.emit_c_interface` attribute.
/// Returns a failure if the execution fails for any reason (the function name
/// can't be resolved for instance).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineInvokePacked(
    MlirExecutionEngine jit, MlirStringRef name, void **arguments);

/// Lookup the wrapper of the native function in the execution engine with the
/// given name, returns nullptr if the function can't be looked-up.
MLIR_CAPI_EXPORTED void *
mlirExecutionEngineLookupPacked(MlirExecutionEngine jit, MlirStringRef name);

/// Lookup a native function in the execution engine by name, returns nullptr
/// if the name can't be looked-up.
MLIR_CAPI_EXPORTED void *mlirExecutionEngineLookup(MlirExecutionEngine jit,
                                                   MlirStringRef name);

/// Register a symbol with the jit: this symbol will be accessible to the jitted
/// code. Where upstream aborts (the name is already defined), this does
/// nothing; `mlirExecutionEngineRegisterSymbolChecked` reports it.
MLIR_CAPI_EXPORTED void
mlirExecutionEngineRegisterSymbol(MlirExecutionEngine jit, MlirStringRef name,
                                  void *sym);

/// Dump as an object in `fileName`.
MLIR_CAPI_EXPORTED void
mlirExecutionEngineDumpToObjectFile(MlirExecutionEngine jit,
                                    MlirStringRef fileName);

//===----------------------------------------------------------------------===//
// Checked API: each reports a failure and its reason through `onError`
// (called once with the whole message, may be NULL) instead of aborting or
// printing to stderr.
//===----------------------------------------------------------------------===//

/// Like `mlirExecutionEngineCreate`. On failure returns a null engine and
/// passes the reason to `onError`: the diagnostics of an operation that cannot
/// be translated to LLVM IR, a shared library that cannot be loaded, or a
/// target that cannot be set up.
MLIR_CAPI_EXPORTED MlirExecutionEngine mlirExecutionEngineCreateChecked(
    MlirModule op, int optLevel, int numPaths,
    const MlirStringRef *sharedLibPaths, bool enableObjectDump, bool enablePIC,
    MlirStringCallback onError, void *userData);

/// Like `mlirExecutionEngineRegisterSymbol`. Fails if `name` is already
/// registered, is defined by the module, or the module has already been
/// compiled (by a lookup, an invocation, `Initialize` or a dump): runtime
/// symbols must be registered before any of those.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineRegisterSymbolChecked(
    MlirExecutionEngine jit, MlirStringRef name, void *sym,
    MlirStringCallback onError, void *userData);

/// Like `mlirExecutionEngineLookup` (`packed` false) or
/// `mlirExecutionEngineLookupPacked` (`packed` true). Returns NULL on failure
/// and passes the reason to `onError`, such as the names of symbols the module
/// uses but neither defines nor has registered.
MLIR_CAPI_EXPORTED void *
mlirExecutionEngineLookupChecked(MlirExecutionEngine jit, MlirStringRef name,
                                 bool packed, MlirStringCallback onError,
                                 void *userData);

/// Like `mlirExecutionEngineInitialize`. Fails, without running any
/// constructor, if the module cannot be compiled (missing symbols).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineInitializeChecked(
    MlirExecutionEngine jit, MlirStringCallback onError, void *userData);

/// Like `mlirExecutionEngineDumpToObjectFile`. Fails if the engine was created
/// without `enableObjectDump`, the module cannot be compiled, or the file
/// cannot be written.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineDumpToObjectFileChecked(
    MlirExecutionEngine jit, MlirStringRef fileName, MlirStringCallback onError,
    void *userData);

/// Returns how many pointers the packed wrapper of the function `name` reads
/// (see `mlirExecutionEngineInvokePacked`): one for each argument, plus one
/// for the result if it returns a value. Returns -1 if the module defines no
/// function `name`.
MLIR_CAPI_EXPORTED int64_t mlirExecutionEngineGetNumPackedArguments(
    MlirExecutionEngine jit, MlirStringRef name);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_EXECUTIONENGINE_H
