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
// Options, and the persistent object cache.
//===----------------------------------------------------------------------===//

/// How to create an engine. Start from
/// `mlirExecutionEngineOptionsGetDefault()`, which matches
/// `mlirExecutionEngineCreate`'s behaviour, and set fields.
typedef struct MlirExecutionEngineOptions {
  /// 0 to 3: the optimization and code generation level.
  int optLevel;
  int numSharedLibPaths;
  const MlirStringRef *sharedLibPaths;
  bool enableObjectDump;
  bool enablePIC;
  /// Tell GDB about jitted code, so that backtraces name its functions.
  bool enableGDBListener;
  /// Tell perf about jitted code (where LLVM was built with perf support):
  /// LLVM writes jitdump files under `$JITDUMPDIR` (else the temporary
  /// directory) `/.debug/jit/`, and leaves them there. Off by default, unlike
  /// upstream's engine; creating an engine fails if that directory cannot be
  /// created.
  bool enablePerfListener;
  /// A directory for the persistent object cache, shared by processes; empty
  /// for none. An engine whose key is there loads the object instead of
  /// translating, optimizing and compiling the module; otherwise it stores
  /// the object it compiles. The key covers `cacheKey` (or the module), the
  /// opt level, PIC, the shared libraries' paths, sizes and modification
  /// times, LLVM's version, the host's triple, CPU and features, and the
  /// cache's format. At most `MLIR_JIT_CACHE_MAX_BYTES` (default 1 GiB) stay,
  /// the least recently used going first.
  MlirStringRef cacheDir;
  /// What the key covers instead of the module's generic printed form, such
  /// as the source text and pass pipeline the module was lowered from; empty
  /// for the module.
  MlirStringRef cacheKey;
  /// What the caller stores with the entry it compiles, such as its own
  /// analysis of the module, returned by
  /// `mlirExecutionEngineGetCacheAnnotation` for an engine loaded from it.
  MlirStringRef cacheAnnotation;
  /// Called when the cache cannot be used (such as an unwritable directory):
  /// the engine compiles as it would without one. May be NULL.
  MlirStringCallback onCacheWarning;
  void *cacheWarningUserData;
} MlirExecutionEngineOptions;

/// The options `mlirExecutionEngineCreate` uses at opt level 2: no shared
/// libraries, object dumps and PIC off, the GDB listener on (as upstream's
/// engine), the perf listener off, no cache.
MLIR_CAPI_EXPORTED MlirExecutionEngineOptions
mlirExecutionEngineOptionsGetDefault(void);

/// Like `mlirExecutionEngineCreateChecked`, with `options`.
MLIR_CAPI_EXPORTED MlirExecutionEngine mlirExecutionEngineCreateWithOptions(
    MlirModule op, const MlirExecutionEngineOptions *options,
    MlirStringCallback onError, void *userData);

/// An engine made from the cache alone, without a module: `options` must
/// name a cache directory and a `cacheKey`. Returns a null engine without
/// calling `onError` if the cache holds no entry for them (then create the
/// engine from the module with the same options, which stores one); calls
/// `onError` for any other failure.
MLIR_CAPI_EXPORTED MlirExecutionEngine
mlirExecutionEngineCreateFromCache(const MlirExecutionEngineOptions *options,
                                   MlirStringCallback onError, void *userData);

/// Passes to `callback` the annotation stored with the cache entry the engine
/// was loaded from, or the one it was created with.
MLIR_CAPI_EXPORTED void mlirExecutionEngineGetCacheAnnotation(
    MlirExecutionEngine jit, MlirStringCallback callback, void *userData);

/// Removes the cache entry the engine was loaded from (such as one whose
/// annotation the caller cannot use, so that the next engine compiles and
/// stores a new one); returns false if the engine was not loaded from the
/// cache.
MLIR_CAPI_EXPORTED bool
mlirExecutionEngineRemoveCacheEntry(MlirExecutionEngine jit);

/// What the object cache did in this process.
typedef struct MlirExecutionEngineCacheStatistics {
  /// Entries loaded, and keys looked for and not found (or found damaged).
  int64_t hits, misses;
  /// Entries written.
  int64_t stores;
  /// Modules compiled to object code, by any engine.
  int64_t compilations;
} MlirExecutionEngineCacheStatistics;

MLIR_CAPI_EXPORTED MlirExecutionEngineCacheStatistics
mlirExecutionEngineGetCacheStatistics(void);

/// The bound `MLIR_JIT_CACHE_MAX_BYTES` sets on a cache's size (a decimal
/// number of bytes; unset or blank for the default, 1 GiB). Returns false if
/// it is invalid, which caches nothing.
MLIR_CAPI_EXPORTED bool mlirExecutionEngineGetCacheMaxBytes(uint64_t *maxBytes);

/// Sets `*entries` and `*bytes` to the count and total size of the cache
/// entries in `directory` (0 if it does not exist). Fails if it or an entry
/// cannot be read: sets `*errorNumber` to the errno and passes the reason,
/// naming the file, to `onError`.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineGetCacheContents(
    MlirStringRef directory, int64_t *entries, uint64_t *bytes,
    int *errorNumber, MlirStringCallback onError, void *userData);

/// Removes this user's cache entries in `directory`, and their temporary
/// files writers left an hour ago or more (not those being written); sets
/// `*removed` to the number of entries removed. The cache's trust model
/// applies: a directory no cache uses (another user's, or one others can
/// write that is not sticky) is refused, with `*errorNumber` EPERM, and the
/// entries of other users in a shared sticky directory are left to them.
/// Fails, as `mlirExecutionEngineGetCacheContents` does, if the directory
/// cannot be read or a file cannot be removed.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineClearCache(
    MlirStringRef directory, int64_t *removed, int *errorNumber,
    MlirStringCallback onError, void *userData);

/// `mlirExecutionEngineClearCache`, which also sets `*spared` to the number
/// of other users' entries it left; with `allUsers`, removes every entry of
/// any directory instead (as root, other users' too).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineClearCacheEntries(
    MlirStringRef directory, bool allUsers, int64_t *removed, int64_t *spared,
    int *errorNumber, MlirStringCallback onError, void *userData);

/// Whether the module's code calls LLVM's OpenMP runtime (libomp.so.5, for
/// code lowered from the OpenMP dialect): known once the module is linked,
/// by its first lookup.
MLIR_CAPI_EXPORTED bool mlirExecutionEngineUsesOpenMP(MlirExecutionEngine jit);

/// Checks `OMP_NUM_THREADS` against what LLVM's OpenMP runtime reads without
/// aborting the process (or reading garbage), and threads beyond one a core
/// against what the process can start, unless the runtime has read it
/// already in this process; with `read`, the runtime then reads it, so that
/// a value set later is not read (a forked child's runtime, starting again
/// in fork(), reads the value set since only if it can). A lookup of a
/// module that uses the runtime checks it so, and fails if it is not one.
/// Fails with the reason and what to do.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirExecutionEngineCheckOpenMPThreads(
    bool read, MlirStringCallback onError, void *userData);

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

/// Returns the size in bytes of what the `index`th pointer the packed wrapper
/// of the function `name` reads points to (an argument, or last, the result
/// if it returns a value), and sets `*isResult` (if not null) to whether it
/// is the result, which the wrapper writes. Returns -1 if the module defines
/// no function `name` or it has no such pointer.
MLIR_CAPI_EXPORTED int64_t mlirExecutionEngineGetPackedArgumentSize(
    MlirExecutionEngine jit, MlirStringRef name, int64_t index, bool *isResult);

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
