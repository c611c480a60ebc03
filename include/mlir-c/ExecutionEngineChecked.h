//===-- mlir-c/ExecutionEngineChecked.h - Checked JIT C API -------*- C -*-===//
//
// This project's additions to upstream's ExecutionEngine C API
// (mlir-c/ExecutionEngine.h, whose declarations are used unchanged): "Checked"
// variants that report failures instead of aborting the process or printing
// to stderr. The implementation behind both headers is this project's
// (lib/CAPI), which replaces upstream's CAPIExecutionEngine. Where upstream
// differs: mlirExecutionEngineRegisterSymbol does nothing (instead of
// aborting) if the name is already defined, and mlirExecutionEngineInitialize
// runs the module's global constructors once, later calls doing nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_EXECUTIONENGINECHECKED_H
#define MLIR_C_EXECUTIONENGINECHECKED_H

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/// If the module declares, without defining, a function `name` (an external
/// `llvm.func`, such as `_mlir_ciface_<f>` for a `func.func private @f` with a
/// C interface), passes its LLVM dialect function type as text to `callback`
/// (such as `!llvm.func<f32 (f32, i64)>`) and returns true; returns false
/// otherwise. Lets bindings check a runtime registered for `name` against
/// the declaration that calls it.
MLIR_CAPI_EXPORTED bool mlirExecutionEngineGetDeclaredFunctionType(
    MlirExecutionEngine jit, MlirStringRef name, MlirStringCallback callback,
    void *userData);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_EXECUTIONENGINECHECKED_H
