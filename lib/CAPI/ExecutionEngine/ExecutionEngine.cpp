//===- ExecutionEngine.cpp - C API for MLIR JIT ---------------------------===//
//
// The ExecutionEngine C API over this project's engine
// (lib/ExecutionEngine/JitEngine.h): an MlirExecutionEngine points to a
// JitEngine. Each function unwraps its arguments, forwards, and reports the
// engine's error through the caller's callback.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/ExecutionEngineChecked.h"

#include "lib/ExecutionEngine/JitEngine.h"
#include "lib/ExecutionEngine/ObjectStore.h"
#include "lib/ExecutionEngine/OpenMPThreads.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <string>

using namespace mlir;
using mlir_execution_engine::JitEngine;
using mlir_execution_engine::PackedArguments;

namespace {

JitEngine *unwrapJit(MlirExecutionEngine jit) {
  return static_cast<JitEngine *>(jit.ptr);
}

/// Reports `message` through the caller's callback, if any; returns failure.
MlirLogicalResult report(MlirStringCallback onError, void *userData,
                         llvm::StringRef message) {
  if (onError)
    onError(wrap(message), userData);
  return mlirLogicalResultFailure();
}

/// Creates an engine for `op`, or from the cache alone if `op` is null
/// (returning null with `error` empty on a miss).
JitEngine *createEngine(MlirModule op,
                        const MlirExecutionEngineOptions &options,
                        std::string &error) {
  if (options.numSharedLibPaths < 0 ||
      (options.numSharedLibPaths > 0 && !options.sharedLibPaths)) {
    error = "invalid list of shared library paths";
    return nullptr;
  }
  mlir_execution_engine::JitEngineOptions jitOptions;
  jitOptions.optLevel = options.optLevel;
  jitOptions.enablePIC = options.enablePIC;
  jitOptions.enableObjectDump = options.enableObjectDump;
  jitOptions.enableGDBListener = options.enableGDBListener;
  jitOptions.enablePerfListener = options.enablePerfListener;
  for (int i = 0; i < options.numSharedLibPaths; ++i)
    jitOptions.sharedLibPaths.push_back(unwrap(options.sharedLibPaths[i]));
  jitOptions.cacheDir = unwrap(options.cacheDir);
  jitOptions.cacheKey = unwrap(options.cacheKey);
  jitOptions.cacheAnnotation = unwrap(options.cacheAnnotation);
  if (options.onCacheWarning)
    jitOptions.onCacheWarning = [&options](llvm::StringRef warning) {
      options.onCacheWarning(wrap(warning), options.cacheWarningUserData);
    };
  return JitEngine::create(mlirModuleIsNull(op) ? ModuleOp() : unwrap(op),
                           jitOptions, error)
      .release();
}

} // namespace

//===----------------------------------------------------------------------===//
// Checked API.
//===----------------------------------------------------------------------===//

extern "C" MlirExecutionEngineOptions
mlirExecutionEngineOptionsGetDefault(void) {
  MlirExecutionEngineOptions options = {};
  options.optLevel = 2;
  options.enableGDBListener = true;
  return options;
}

extern "C" MlirExecutionEngine mlirExecutionEngineCreateWithOptions(
    MlirModule op, const MlirExecutionEngineOptions *options,
    MlirStringCallback onError, void *userData) {
  if (mlirModuleIsNull(op)) {
    report(onError, userData,
           "cannot create an ExecutionEngine from a null module");
    return MlirExecutionEngine{nullptr};
  }
  std::string error;
  JitEngine *jit = createEngine(op, *options, error);
  if (!jit)
    report(onError, userData, error);
  return MlirExecutionEngine{jit};
}

extern "C" MlirExecutionEngine
mlirExecutionEngineCreateFromCache(const MlirExecutionEngineOptions *options,
                                   MlirStringCallback onError, void *userData) {
  if (options->cacheDir.length == 0 || options->cacheKey.length == 0) {
    report(onError, userData,
           "creating an engine from the cache needs a cache directory and "
           "a cache key");
    return MlirExecutionEngine{nullptr};
  }
  std::string error;
  JitEngine *jit = createEngine(MlirModule{nullptr}, *options, error);
  if (!jit && !error.empty())
    report(onError, userData, error);
  return MlirExecutionEngine{jit};
}

extern "C" void mlirExecutionEngineGetCacheAnnotation(
    MlirExecutionEngine jit, MlirStringCallback callback, void *userData) {
  callback(wrap(llvm::StringRef(unwrapJit(jit)->cacheAnnotation)), userData);
}

extern "C" bool mlirExecutionEngineRemoveCacheEntry(MlirExecutionEngine jit) {
  return unwrapJit(jit)->removeCacheEntry();
}

extern "C" MlirExecutionEngineCacheStatistics
mlirExecutionEngineGetCacheStatistics(void) {
  auto counts = mlir_execution_engine::objectStoreStatistics();
  return {counts.hits, counts.misses, counts.stores, counts.compilations};
}

extern "C" bool mlirExecutionEngineGetCacheMaxBytes(uint64_t *maxBytes) {
  std::optional<uint64_t> limit = mlir_execution_engine::cacheMaxBytes();
  if (limit)
    *maxBytes = *limit;
  return limit.has_value();
}

/// Reports `error` of the object store: its errno and its message.
static MlirLogicalResult
reportStoreError(const mlir_execution_engine::StoreError &error,
                 int *errorNumber, MlirStringCallback onError, void *userData) {
  *errorNumber = error.code;
  return report(onError, userData, error.message);
}

extern "C" MlirLogicalResult mlirExecutionEngineGetCacheContents(
    MlirStringRef directory, int64_t *entries, uint64_t *bytes,
    int *errorNumber, MlirStringCallback onError, void *userData) {
  mlir_execution_engine::StoreError error;
  auto contents =
      mlir_execution_engine::describeObjectStore(unwrap(directory), error);
  if (!contents)
    return reportStoreError(error, errorNumber, onError, userData);
  *entries = contents->entries;
  *bytes = contents->bytes;
  return mlirLogicalResultSuccess();
}

extern "C" MlirLogicalResult mlirExecutionEngineClearCacheEntries(
    MlirStringRef directory, bool allUsers, int64_t *removed, int64_t *spared,
    int *errorNumber, MlirStringCallback onError, void *userData) {
  mlir_execution_engine::StoreError error;
  auto cleared = mlir_execution_engine::clearObjectStore(unwrap(directory),
                                                         allUsers, error);
  if (!cleared)
    return reportStoreError(error, errorNumber, onError, userData);
  *removed = cleared->removed;
  *spared = cleared->spared;
  return mlirLogicalResultSuccess();
}

extern "C" MlirLogicalResult
mlirExecutionEngineClearCache(MlirStringRef directory, int64_t *removed,
                              int *errorNumber, MlirStringCallback onError,
                              void *userData) {
  int64_t spared;
  return mlirExecutionEngineClearCacheEntries(directory, /*allUsers=*/false,
                                              removed, &spared, errorNumber,
                                              onError, userData);
}

extern "C" MlirExecutionEngine
mlirExecutionEngineCreateChecked(MlirModule op, int optLevel, int numPaths,
                                 const MlirStringRef *sharedLibPaths,
                                 bool enableObjectDump, bool enablePIC,
                                 MlirStringCallback onError, void *userData) {
  MlirExecutionEngineOptions options = mlirExecutionEngineOptionsGetDefault();
  options.optLevel = optLevel;
  options.numSharedLibPaths = numPaths;
  options.sharedLibPaths = sharedLibPaths;
  options.enableObjectDump = enableObjectDump;
  options.enablePIC = enablePIC;
  return mlirExecutionEngineCreateWithOptions(op, &options, onError, userData);
}

extern "C" MlirLogicalResult mlirExecutionEngineRegisterSymbolChecked(
    MlirExecutionEngine jit, MlirStringRef name, void *sym,
    MlirStringCallback onError, void *userData) {
  std::string error;
  if (failed(unwrapJit(jit)->registerSymbol(unwrap(name), sym, error)))
    return report(onError, userData, error);
  return mlirLogicalResultSuccess();
}

extern "C" void *mlirExecutionEngineLookupChecked(MlirExecutionEngine jit,
                                                  MlirStringRef name,
                                                  bool packed,
                                                  MlirStringCallback onError,
                                                  void *userData) {
  std::string error;
  JitEngine *engine = unwrapJit(jit);
  void *address = engine->lookup(unwrap(name), packed, error);
  // Code that calls LLVM's OpenMP runtime is about to run: the runtime must
  // not read an OMP_NUM_THREADS it would abort the process on.
  if (address && engine->engine->usesOpenMP() &&
      !mlir_execution_engine::checkOpenMPThreads(/*read=*/true, error))
    address = nullptr;
  if (!address)
    report(onError, userData, error);
  return address;
}

extern "C" bool mlirExecutionEngineUsesOpenMP(MlirExecutionEngine jit) {
  return unwrapJit(jit)->engine->usesOpenMP();
}

extern "C" MlirLogicalResult
mlirExecutionEngineCheckOpenMPThreads(bool read, MlirStringCallback onError,
                                      void *userData) {
  std::string error;
  if (!mlir_execution_engine::checkOpenMPThreads(read, error))
    return report(onError, userData, error);
  return mlirLogicalResultSuccess();
}

extern "C" MlirLogicalResult mlirExecutionEngineInitializeChecked(
    MlirExecutionEngine jit, MlirStringCallback onError, void *userData) {
  std::string error;
  if (failed(unwrapJit(jit)->initialize(error)))
    return report(onError, userData, error);
  return mlirLogicalResultSuccess();
}

extern "C" MlirLogicalResult mlirExecutionEngineDumpToObjectFileChecked(
    MlirExecutionEngine jit, MlirStringRef fileName, MlirStringCallback onError,
    void *userData) {
  std::string error;
  if (failed(unwrapJit(jit)->dumpToObjectFile(unwrap(fileName), error)))
    return report(onError, userData, error);
  return mlirLogicalResultSuccess();
}

extern "C" int64_t
mlirExecutionEngineGetNumPackedArguments(MlirExecutionEngine jit,
                                         MlirStringRef name) {
  const llvm::StringMap<PackedArguments> &packed =
      unwrapJit(jit)->packedArguments;
  auto it = packed.find(unwrap(name));
  return it == packed.end() ? -1 : it->second.sizes.size();
}

extern "C" int64_t
mlirExecutionEngineGetPackedArgumentSize(MlirExecutionEngine jit,
                                         MlirStringRef name, int64_t index,
                                         bool *isResult) {
  const llvm::StringMap<PackedArguments> &packed =
      unwrapJit(jit)->packedArguments;
  auto it = packed.find(unwrap(name));
  if (it == packed.end() || index < 0 ||
      index >= static_cast<int64_t>(it->second.sizes.size()))
    return -1;
  if (isResult)
    *isResult = it->second.returnsValue &&
                index + 1 == static_cast<int64_t>(it->second.sizes.size());
  return it->second.sizes[index];
}

extern "C" bool mlirExecutionEngineGetDeclaredFunctionType(
    MlirExecutionEngine jit, MlirStringRef name, MlirStringCallback callback,
    void *userData) {
  const llvm::StringMap<std::string> &types =
      unwrapJit(jit)->declaredFunctionTypes;
  auto it = types.find(unwrap(name));
  if (it == types.end())
    return false;
  if (callback)
    callback(wrap(llvm::StringRef(it->second)), userData);
  return true;
}

//===----------------------------------------------------------------------===//
// Upstream API.
//===----------------------------------------------------------------------===//

extern "C" MlirExecutionEngine
mlirExecutionEngineCreate(MlirModule op, int optLevel, int numPaths,
                          const MlirStringRef *sharedLibPaths,
                          bool enableObjectDump, bool enablePIC) {
  return mlirExecutionEngineCreateChecked(op, optLevel, numPaths,
                                          sharedLibPaths, enableObjectDump,
                                          enablePIC, nullptr, nullptr);
}

extern "C" void mlirExecutionEngineDestroy(MlirExecutionEngine jit) {
  delete unwrapJit(jit);
}

extern "C" void mlirExecutionEngineInitialize(MlirExecutionEngine jit) {
  (void)mlirExecutionEngineInitializeChecked(jit, nullptr, nullptr);
}

extern "C" MlirLogicalResult
mlirExecutionEngineInvokePacked(MlirExecutionEngine jit, MlirStringRef name,
                                void **arguments) {
  auto fn = reinterpret_cast<void (*)(void **)>(
      mlirExecutionEngineLookupPacked(jit, name));
  if (!fn)
    return mlirLogicalResultFailure();
  fn(arguments);
  return mlirLogicalResultSuccess();
}

extern "C" void *mlirExecutionEngineLookupPacked(MlirExecutionEngine jit,
                                                 MlirStringRef name) {
  return mlirExecutionEngineLookupChecked(jit, name, /*packed=*/true, nullptr,
                                          nullptr);
}

extern "C" void *mlirExecutionEngineLookup(MlirExecutionEngine jit,
                                           MlirStringRef name) {
  return mlirExecutionEngineLookupChecked(jit, name, /*packed=*/false, nullptr,
                                          nullptr);
}

extern "C" void mlirExecutionEngineRegisterSymbol(MlirExecutionEngine jit,
                                                  MlirStringRef name,
                                                  void *sym) {
  (void)mlirExecutionEngineRegisterSymbolChecked(jit, name, sym, nullptr,
                                                 nullptr);
}

extern "C" void mlirExecutionEngineDumpToObjectFile(MlirExecutionEngine jit,
                                                    MlirStringRef fileName) {
  (void)mlirExecutionEngineDumpToObjectFileChecked(jit, fileName, nullptr,
                                                   nullptr);
}
