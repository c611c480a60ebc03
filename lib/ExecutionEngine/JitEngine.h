//===- JitEngine.h - An OrcEngine with what its module defines --*- C++ -*-===//
//
// The engine behind the ExecutionEngine C API: an OrcEngine (OrcEngine.h)
// with what the checked API needs to know: which names are defined (by the
// module or by registration) and whether the module has been linked, after
// which registering a symbol can no longer help. With a cache directory, the
// object and what the engine knows of the module are stored together
// (ObjectStore.h), so that a later engine needs neither the module's
// translation nor its compilation. Every failure is an error string for the
// caller, never a message on stderr.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_JITENGINE_H
#define MLIR_EXECUTION_ENGINE_JITENGINE_H

#include "OrcEngine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir_execution_engine {

/// The pointers a packed wrapper `_mlir_<f>(void **)` reads.
struct PackedArguments {
  /// The size in bytes of each pointer's target.
  std::vector<int64_t> sizes;
  /// Whether the last one is the result, which the wrapper writes.
  bool returnsValue = false;
};

struct JitEngineOptions {
  int optLevel = 2;
  bool enablePIC = false;
  bool enableObjectDump = false;
  bool enableGDBListener = true;
  bool enablePerfListener = false;
  llvm::SmallVector<llvm::StringRef> sharedLibPaths;
  /// The persistent cache's directory (empty for none) and the key of the
  /// module's entry (empty: the module's text).
  llvm::StringRef cacheDir, cacheKey;
  /// The caller's data stored with the cache entry.
  llvm::StringRef cacheAnnotation;
  /// Told why a compiled module could not be stored in the cache.
  std::function<void(llvm::StringRef)> onCacheWarning;
};

struct JitEngine {
  /// An engine for `module`, or from the cache alone if `module` is null
  /// (null with `error` empty on a miss).
  static std::unique_ptr<JitEngine> create(mlir::ModuleOp module,
                                           const JitEngineOptions &options,
                                           std::string &error);

  /// Makes `name` resolve to `address` in the module; fails once the module
  /// is linked, for a name the module defines and for one registered before.
  mlir::LogicalResult registerSymbol(llvm::StringRef name, void *address,
                                     std::string &error);
  /// The address of `name` (its packed wrapper if `packed`). Looking up a
  /// symbol of the module links the module.
  void *lookup(llvm::StringRef name, bool packed, std::string &error);
  /// Links the module and runs its global constructors.
  mlir::LogicalResult initialize(std::string &error);
  /// Writes the module's object code to `path` (needs enableObjectDump).
  mlir::LogicalResult dumpToObjectFile(llvm::StringRef path,
                                       std::string &error);
  /// Removes the cache entry the engine was loaded from; false if it was
  /// not loaded from the cache.
  bool removeCacheEntry();

  std::unique_ptr<OrcEngine> engine;
  bool enableObjectDump = false;
  /// The object code, kept for dumps.
  std::string object;
  /// The caller's data stored with the cache entry.
  std::string cacheAnnotation;
  /// The cache entry's directory and key (empty without a cache), and
  /// whether the engine was loaded from it.
  std::string cacheDir, cacheKey;
  bool fromCache = false;
  bool hasSharedLibraries = false;
  /// Names the module defines, including the `_mlir_` packed wrappers the
  /// engine generates for each function.
  llvm::StringSet<> moduleSymbols;
  /// For each function the module defines, the pointers its packed wrapper
  /// reads: the size of what each points to, the arguments', then the
  /// result's (which the wrapper writes) if it returns a value.
  llvm::StringMap<PackedArguments> packedArguments;
  /// Symbols the module declares but does not define.
  std::vector<std::string> declaredSymbols;
  /// For each function the module declares but does not define, its LLVM
  /// dialect function type as text (`!llvm.func<f32 (f32, i64)>`), so that
  /// bindings can check a runtime registered for it.
  llvm::StringMap<std::string> declaredFunctionTypes;
  /// A defined function, looked up to force compilation.
  std::string anyFunction;
  /// Guards `registeredSymbols` and the transition to `compiled` (linked).
  std::mutex mutex;
  llvm::StringSet<> registeredSymbols;
  std::atomic<bool> compiled{false};
};

/// A name or path holding a NUL character as messages show it. LLVM's symbol
/// tables and ORC end names at a NUL (two names differing after it would
/// collide), so no symbol may hold one.
std::string nameWithNul(llvm::StringRef name);

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_JITENGINE_H
