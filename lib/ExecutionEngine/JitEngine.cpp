//===- JitEngine.cpp - An OrcEngine with what its module defines ---------===//

#include "JitEngine.h"
#include "ModuleSymbols.h"
#include "ObjectStore.h"
#include "RuntimeFunctions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;

namespace mlir_execution_engine {

std::string nameWithNul(llvm::StringRef name) {
  return name.substr(0, name.find('\0')).str() + "\\0...";
}

namespace {

/// The symbols the module declares that nothing defines (not registered,
/// not in the process or a loaded library), as a list for messages.
std::string findMissingSymbols(JitEngine &jit) {
  std::lock_guard<std::mutex> lock(jit.mutex);
  std::string missing;
  for (const std::string &name : jit.declaredSymbols)
    if (!jit.registeredSymbols.contains(name) &&
        !llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name))
      missing += (missing.empty() ? "" : ", ") + name;
  return missing;
}

std::string describeMissingSymbols(const std::string &missing) {
  return "symbols used by the module are neither defined nor registered: " +
         missing +
         "; register them before the first lookup or invocation, or load "
         "the shared library that defines them";
}

/// Explains a failed link: ORC's own error names the symbols it could not
/// materialize, and those it lacked only among the session's errors.
std::string explainCompileFailure(JitEngine &jit, llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  std::string missing = findMissingSymbols(jit);
  if (missing.empty())
    return message;
  return describeMissingSymbols(missing) + " (" + message + ")";
}

/// Prints `diagnostic` as MLIR's command-line tools do: `file:line:col: error:
/// message`.
void printDiagnostic(llvm::raw_ostream &os, Diagnostic &diagnostic,
                     llvm::StringRef severity) {
  Location location = diagnostic.getLocation();
  if (auto fileLoc = dyn_cast<FileLineColLoc>(location))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << location;
  os << ": " << severity << ": " << diagnostic << "\n";
}

/// Checks every shared library loads, since the engine itself only prints a
/// failure to stderr and goes on without the library.
LogicalResult checkSharedLibraries(llvm::ArrayRef<llvm::StringRef> paths,
                                   std::string &error) {
  for (llvm::StringRef path : paths) {
    // The file system calls stop at a NUL: they would load another file.
    if (path.contains('\0')) {
      error = "cannot load shared library '" +
              path.substr(0, path.find('\0')).str() +
              "\\0...': the path contains a NUL character";
      return failure();
    }
    if (llvm::sys::fs::is_directory(path)) {
      error = "cannot load shared library '" + path.str() +
              "': it is a directory; give the library file's path";
      return failure();
    }
    // The engine reads the file at `path` itself: dlopen's search of the
    // library path for a bare name does not help it.
    if (!llvm::sys::fs::is_regular_file(path)) {
      error = "cannot load shared library '" + path.str() +
              "': no such file; give the library file's path";
      return failure();
    }
    std::string reason;
    auto library =
        llvm::sys::DynamicLibrary::getLibrary(path.str().c_str(), &reason);
    if (!library.isValid()) {
      error = "cannot load shared library '" + path.str() + "': " + reason;
      return failure();
    }
    llvm::sys::DynamicLibrary::closeLibrary(library);
  }
  return success();
}

/// The module as LLVM IR, or the diagnostics of what cannot be translated.
std::unique_ptr<llvm::Module>
translate(ModuleOp module, llvm::LLVMContext &llvmContext, std::string &error) {
  MLIRContext &context = *module->getContext();
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerOpenMPDialectTranslation(context);
  // Translation failures are reported as diagnostics on the context: collect
  // them for the error message instead of letting them reach stderr.
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    printDiagnostic(diagnosticStream, diagnostic, "error");
    for (Diagnostic &note : diagnostic.getNotes())
      printDiagnostic(diagnosticStream, note, "note");
    return success();
  });
  auto llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    error = "could not convert to LLVM IR" +
            (diagnostics.empty() ? "" : ":\n" + diagnostics);
  return llvmModule;
}

} // namespace

void *JitEngine::lookup(llvm::StringRef name, bool packed, std::string &error) {
  JitEngine &jit = *this;
  if (name.contains('\0')) {
    error = "cannot look up '" + nameWithNul(name) +
            "': the name contains a NUL character";
    return nullptr;
  }
  std::string symbol = packed ? ("_mlir_" + name).str() : name.str();
  if (jit.moduleSymbols.contains(symbol) && !jit.compiled) {
    // Without shared libraries (whose init functions may define symbols
    // invisible here), missing symbols are known before linking: report them
    // and leave the engine usable, rather than fail a link that no later
    // registration can repair.
    if (!jit.hasSharedLibraries) {
      std::string missing = findMissingSymbols(jit);
      if (!missing.empty()) {
        error = describeMissingSymbols(missing);
        return nullptr;
      }
    }
    jit.compiled = true;
  }
  auto address = jit.engine->lookup(symbol);
  if (address)
    return *address;
  error = explainCompileFailure(jit, address.takeError());
  return nullptr;
}

/// Links the module, so that missing symbols are reported as an error
/// before anything runs.
static LogicalResult compile(JitEngine &jit, std::string &error) {
  if (jit.anyFunction.empty()) {
    jit.compiled = true;
    return success();
  }
  return success(jit.lookup(jit.anyFunction, /*packed=*/false, error) !=
                 nullptr);
}

namespace {

/// Why `options` (and `module`, if any) cannot make an engine, or "".
std::string findRefusal(ModuleOp module, const JitEngineOptions &options) {
  if (options.optLevel < 0 || options.optLevel > 3)
    return "optimization level " + std::to_string(options.optLevel) +
           " is out of range: use 0, 1, 2 or 3";
  if (options.cacheDir.contains('\0'))
    return "the cache directory '" + nameWithNul(options.cacheDir) +
           "' contains a NUL character";
  return module ? findRefusedContent(module) : "";
}

/// The key of the engine's cache entry: the caller's key, or the module
/// printed generically with its locations, in the engine's environment.
std::string findCacheKey(ModuleOp module, const JitEngineOptions &options) {
  std::string content = options.cacheKey.str();
  if (content.empty()) {
    llvm::raw_string_ostream os(content);
    module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }
  return objectKey(describeKeyEnvironment(options.optLevel, options.enablePIC,
                                          options.sharedLibPaths),
                   content);
}

/// An engine with no code yet, over a new ORC engine.
std::unique_ptr<JitEngine> newJitEngine(const JitEngineOptions &options,
                                        const std::string &key,
                                        std::string &error) {
  OrcEngineOptions orcOptions;
  orcOptions.optLevel = options.optLevel;
  orcOptions.enablePIC = options.enablePIC;
  orcOptions.enableGDBListener = options.enableGDBListener;
  orcOptions.enablePerfListener = options.enablePerfListener;
  orcOptions.sharedLibPaths = options.sharedLibPaths;
  auto engine = OrcEngine::create(orcOptions);
  if (!engine) {
    error = "cannot set up the JIT for the host: " +
            llvm::toString(engine.takeError());
    return nullptr;
  }
  if (llvm::Error failure = defineMissingRuntimeFunctions(**engine)) {
    error = llvm::toString(std::move(failure));
    return nullptr;
  }
  auto jit = std::make_unique<JitEngine>();
  jit->engine = std::move(*engine);
  jit->enableObjectDump = options.enableObjectDump;
  jit->hasSharedLibraries = !options.sharedLibPaths.empty();
  jit->cacheDir = options.cacheDir.str();
  jit->cacheKey = key;
  return jit;
}

/// Gives `jit` the object and symbols of the cache entry `stored`; false if
/// this version cannot use them.
bool loadStoredObject(JitEngine &jit, StoredObject &stored) {
  std::string object =
      jit.enableObjectDump ? stored.object->getBuffer().str() : "";
  if (!deserializeModuleSymbols(stored.metadata, jit))
    return false;
  if (llvm::Error failure = jit.engine->addObject(std::move(stored.object))) {
    llvm::consumeError(std::move(failure));
    return false;
  }
  jit.object = std::move(object);
  jit.fromCache = true;
  return true;
}

/// Compiles `module` into `jit`, storing the object in the cache if it has
/// one.
LogicalResult compileModule(JitEngine &jit, ModuleOp module,
                            const JitEngineOptions &options,
                            std::string &error) {
  // Only compiling needs the target (loading an object does not): a new
  // process's first cached engine pages in less of LLVM.
  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;
  jit.cacheAnnotation = options.cacheAnnotation.str();
  llvm::LLVMContext llvmContext;
  auto llvmModule = translate(module, llvmContext, error);
  if (!llvmModule)
    return failure();
  auto compiled = jit.engine->compile(*llvmModule);
  if (!compiled) {
    error =
        "cannot compile the module: " + llvm::toString(compiled.takeError());
    return failure();
  }
  collectModuleSymbols(module, jit);
  if (!jit.cacheDir.empty()) {
    std::string warning =
        storeObject(jit.cacheDir, jit.cacheKey, serializeModuleSymbols(jit),
                    (*compiled)->getBuffer());
    if (!warning.empty() && options.onCacheWarning)
      options.onCacheWarning(warning);
  }
  if (jit.enableObjectDump)
    jit.object = (*compiled)->getBuffer().str();
  if (llvm::Error added = jit.engine->addObject(std::move(*compiled))) {
    error = llvm::toString(std::move(added));
    return failure();
  }
  return success();
}

} // namespace

std::unique_ptr<JitEngine> JitEngine::create(ModuleOp module,
                                             const JitEngineOptions &options,
                                             std::string &error) {
  error = findRefusal(module, options);
  if (!error.empty() ||
      failed(checkSharedLibraries(options.sharedLibPaths, error)))
    return nullptr;

  std::string key;
  std::optional<StoredObject> stored;
  if (!options.cacheDir.empty()) {
    key = findCacheKey(module, options);
    stored = loadObject(options.cacheDir, key);
  }
  if (stored) {
    auto jit = newJitEngine(options, key, error);
    if (!jit || loadStoredObject(*jit, *stored))
      return jit;
    // A whole entry this version cannot use (an object LLVM refuses): it
    // would fail every process.
    removeObject(options.cacheDir, key);
  }
  if (!module)
    return nullptr;
  auto jit = newJitEngine(options, key, error);
  if (!jit || failed(compileModule(*jit, module, options, error)))
    return nullptr;
  return jit;
}

LogicalResult JitEngine::registerSymbol(llvm::StringRef name, void *address,
                                        std::string &error) {
  auto refuse = [&](const std::string &why) {
    error = "cannot register symbol '" + name.str() + "': " + why;
    return failure();
  };
  if (name.contains('\0')) {
    error = "cannot register symbol '" + nameWithNul(name) +
            "': the name contains a NUL character";
    return failure();
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (compiled)
    return refuse("the module has already been compiled (by a lookup, an "
                  "invocation, initialization or an object dump); register "
                  "runtime symbols right after creating the engine");
  if (moduleSymbols.contains(name))
    return refuse("the module already defines it");
  if (!registeredSymbols.insert(name).second)
    return refuse("it is already registered with this engine");
  if (llvm::Error failure = engine->define(name, address)) {
    registeredSymbols.erase(name);
    return refuse(llvm::toString(std::move(failure)));
  }
  return success();
}

LogicalResult JitEngine::initialize(std::string &error) {
  if (failed(compile(*this, error)))
    return failure();
  if (llvm::Error failure = engine->initialize()) {
    error = llvm::toString(std::move(failure));
    return mlir::failure();
  }
  return success();
}

LogicalResult JitEngine::dumpToObjectFile(llvm::StringRef path,
                                          std::string &error) {
  if (path.contains('\0')) {
    error = "cannot write object file '" + nameWithNul(path) +
            "': the file name contains a NUL character";
    return failure();
  }
  if (!enableObjectDump) {
    error = "cannot dump object code: the engine was created without "
            "enabling object dumps";
    return failure();
  }
  // Upstream's engine compiles the module first: a module that cannot be
  // linked fails here too.
  if (failed(compile(*this, error)))
    return failure();
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (!ec) {
    file << object;
    file.close();
    ec = file.error();
    file.clear_error();
  }
  if (ec) {
    error = "cannot write object file '" + path.str() + "': " + ec.message();
    return failure();
  }
  return success();
}

bool JitEngine::removeCacheEntry() {
  if (!fromCache)
    return false;
  removeObject(cacheDir, cacheKey);
  return true;
}

} // namespace mlir_execution_engine
