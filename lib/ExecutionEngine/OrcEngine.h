//===- OrcEngine.h - This project's JIT engine on ORC LLJIT -----*- C++ -*-===//
//
// What mlir::ExecutionEngine does, on LLVM's public ORC API, with what it
// keeps private made available. A module is compiled to an object file at
// once, which the caller may keep (the persistent cache, object dumps); the
// JIT links objects, compiled now or in another process, at the first lookup,
// after the caller has defined its symbols. The session's errors are kept
// for the caller, never printed; GDB and perf listeners are optional.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_ORCENGINE_H
#define MLIR_EXECUTION_ENGINE_ORCENGINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir_execution_engine {

/// The host the engine compiles for, detected once per process: detection
/// runs `cpuid` many times, which is slow in a virtual machine.
struct HostTarget {
  std::string triple;
  std::string cpu;
  /// "+name" or "-name", sorted.
  std::vector<std::string> features;
};
const HostTarget &hostTarget();

struct OrcEngineOptions {
  int optLevel = 2;
  bool enablePIC = false;
  bool enableGDBListener = false;
  bool enablePerfListener = false;
  llvm::ArrayRef<llvm::StringRef> sharedLibPaths;
};

class OrcEngine {
public:
  /// The prefix of the packed wrapper `void _mlir_<f>(void **)` added for
  /// each function the module defines, as upstream's engine adds it.
  static constexpr const char *kPackedPrefix = "_mlir_";
  /// The functions running the module's global constructors and destructors,
  /// defined in every module (from its llvm.global_ctors/dtors), so that an
  /// object loaded from the cache runs them as the compiled module would.
  static constexpr const char *kConstructors = "__mlir_jit_run_ctors";
  static constexpr const char *kDestructors = "__mlir_jit_run_dtors";
  /// The shared compiler runtime searched for the functions LLVM's code
  /// calls (`__truncdfhf2`, `__divti3`, ...).
  static constexpr const char *kCompilerRuntime = "libgcc_s.so.1";
  /// The prefixes of LLVM's OpenMP runtime's functions that code lowered
  /// from the OpenMP dialect calls (`__kmpc_fork_call`, `omp_get_thread_num`).
  static constexpr const char *kOpenMPPrefixes[] = {"__kmpc_", "omp_"};

  /// Creates the JIT and loads the shared libraries: those with upstream's
  /// `__mlir_execution_engine_init`/`_destroy` functions give their symbols
  /// through init; the others are searched by name.
  static llvm::Expected<std::unique_ptr<OrcEngine>>
  create(const OrcEngineOptions &options);

  ~OrcEngine();
  OrcEngine(const OrcEngine &) = delete;
  OrcEngine &operator=(const OrcEngine &) = delete;

  /// Compiles `module` (translated from MLIR, its data layout and triple
  /// unset) for the host, with packed wrappers and constructor runners, at
  /// the engine's opt level.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  compile(llvm::Module &module);
  /// Adds an object `compile` made (in any process), linked at the first
  /// lookup.
  llvm::Error addObject(std::unique_ptr<llvm::MemoryBuffer> object);
  /// Defines `name` as `address` for the jitted code.
  llvm::Error define(llvm::StringRef name, void *address);
  /// Looks up `name`, linking the objects the first time.
  llvm::Expected<void *> lookup(llvm::StringRef name);
  /// Runs the module's global constructors, once.
  llvm::Error initialize();
  /// Whether the linked code calls LLVM's OpenMP runtime (known once
  /// linked, by the first lookup).
  bool usesOpenMP() const { return openMPUsed.load(); }

private:
  OrcEngine() = default;
  /// Searches the compiler runtime and LLVM's OpenMP runtime for the
  /// functions compiled code calls.
  llvm::Error addRuntimes();
  /// Loads the shared libraries at `paths`, for their symbols or through
  /// their init and destroy functions.
  llvm::Error loadSharedLibraries(llvm::ArrayRef<llvm::StringRef> paths);

  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::optional<llvm::orc::JITTargetMachineBuilder> machineBuilder;
  int optLevel = 2;
  std::vector<void (*)()> libraryDestroyFunctions;
  /// Errors the session reports outside a lookup's own error.
  std::mutex sessionErrorsMutex;
  std::string sessionErrors;
  bool initialized = false;
  /// Set when linking resolves a function of LLVM's OpenMP runtime.
  std::atomic<bool> openMPUsed{false};
};

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_ORCENGINE_H
