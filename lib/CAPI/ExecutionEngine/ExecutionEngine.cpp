//===- ExecutionEngine.cpp - C API for MLIR JIT ---------------------------===//
//
// The ExecutionEngine C API over mlir::ExecutionEngine. An MlirExecutionEngine
// points to a JitEngine, which adds what the checked API needs to know: which
// names are defined (by the module or by registration) and whether the module
// has been compiled, after which registering a symbol can no longer help.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/ExecutionEngineChecked.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/GCStrategy.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>

using namespace mlir;

namespace {

struct JitEngine {
  std::unique_ptr<ExecutionEngine> engine;
  bool enableObjectDump = false;
  bool hasSharedLibraries = false;
  /// Names the module defines, including the `_mlir_` packed wrappers the
  /// engine generates for each function.
  llvm::StringSet<> moduleSymbols;
  /// For each function the module defines, how many pointers its packed
  /// wrapper reads.
  llvm::StringMap<int64_t> numPackedArguments;
  /// Symbols the module declares but does not define.
  std::vector<std::string> declaredSymbols;
  /// For each function the module declares but does not define, its LLVM
  /// dialect function type as text (`!llvm.func<f32 (f32, i64)>`), so that
  /// bindings can check a runtime registered for it.
  llvm::StringMap<std::string> declaredFunctionTypes;
  /// A defined function, looked up to force compilation.
  std::string anyFunction;
  /// Guards `registeredSymbols` and the transition to `compiled`.
  std::mutex mutex;
  llvm::StringSet<> registeredSymbols;
  std::atomic<bool> compiled{false};
};

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

/// A name or path holding a NUL character as messages show it. LLVM's symbol
/// tables and ORC end names at a NUL (two names differing after it would
/// collide), so no symbol may hold one.
std::string nameWithNul(llvm::StringRef name) {
  return name.substr(0, name.find('\0')).str() + "\\0...";
}

/// Finds a symbol of the module whose name has a NUL character: the error,
/// or an empty string if there is none.
std::string findNulSymbol(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations())
    if (auto symbol = dyn_cast<SymbolOpInterface>(op))
      if (symbol.getName().contains('\0'))
        return "the symbol '" + nameWithNul(symbol.getName()) +
               "' contains a NUL character, which LLVM symbol names cannot "
               "hold: rename it";
  return "";
}

/// Finds a function naming a garbage collector LLVM does not know, on which
/// code generation would abort the process: the error, or an empty string.
std::string findUnknownGarbageCollector(ModuleOp module) {
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    std::optional<llvm::StringRef> name = function.getGarbageCollector();
    if (!name)
      continue;
    bool known = false;
    for (const auto &strategy : llvm::GCRegistry::entries())
      known |= strategy.getName() == *name;
    if (!known)
      return "function '" + function.getName().str() +
             "' names the garbage collector '" + name->str() +
             "', which LLVM does not know";
  }
  return "";
}

/// Records the symbols the module defines, so that registering one of them
/// fails cleanly instead of aborting inside ORC, and those it only declares,
/// to name the missing ones when compilation fails.
void collectModuleSymbols(Operation *module, JitEngine &jit) {
  for (Operation &op : module->getRegion(0).front()) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol)
      continue;
    llvm::StringRef name = symbol.getName();
    bool defined = !symbol.isDeclaration();
    if (auto function = dyn_cast<LLVM::LLVMFuncOp>(op))
      defined = !function.isExternal();
    else if (auto global = dyn_cast<LLVM::GlobalOp>(op))
      defined = global.getValue() || !global.getInitializerRegion().empty();
    if (!defined) {
      jit.declaredSymbols.push_back(name.str());
      if (auto function = dyn_cast<LLVM::LLVMFuncOp>(op)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        Type(function.getFunctionType()).print(os);
        jit.declaredFunctionTypes[name] = os.str();
      }
      continue;
    }
    jit.moduleSymbols.insert(name);
    if (auto function = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      LLVM::LLVMFunctionType type = function.getFunctionType();
      jit.numPackedArguments[name] =
          type.getNumParams() +
          (isa<LLVM::LLVMVoidType>(type.getReturnType()) ? 0 : 1);
      jit.moduleSymbols.insert(("_mlir_" + name).str());
      if (jit.anyFunction.empty())
        jit.anyFunction = name.str();
    }
  }
}

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

/// Explains a failed compilation: ORC's own error names only the symbols it
/// could not materialize, and reports the missing ones on stderr.
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

/// float/double -> bf16 with IEEE rounding (to nearest, ties to even), for
/// the compiler-runtime calls LLVM emits on CPUs without native bf16
/// conversion: gcc 12's libgcc lacks them, so without these a process built
/// with it cannot run bf16 code. The x86-64 ABI returns a bf16 in the low 16
/// bits of xmm0, as it returns a float: the bits travel inside a float.
float bf16InFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t bf16 = value != value ? 0x7fc0 // a quiet NaN
                                 : (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
  float carrier;
  std::memcpy(&carrier, &bf16, sizeof(carrier));
  return carrier;
}

float truncSFBF2(float value) { return bf16InFloat(value); }

float truncDFBF2(double value) {
  // Round once: first to a float rounded to odd (truncated, with a sticky
  // last bit if anything was lost), which keeps enough bits for the second
  // rounding to give the correctly rounded bf16.
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) != value && value == value) {
    uint32_t bits;
    std::memcpy(&bits, &nearest, sizeof(bits));
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(value))
      bits -= 1;
    bits |= 1;
    std::memcpy(&nearest, &bits, sizeof(bits));
  }
  return bf16InFloat(nearest);
}

/// Defines the compiler-runtime functions jitted code may call that this
/// process lacks.
void defineMissingRuntimeFunctions(ExecutionEngine &engine) {
  std::pair<const char *, void *> functions[] = {
      {"__truncsfbf2", reinterpret_cast<void *>(&truncSFBF2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncDFBF2)},
  };
  engine.registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto [name, address] : functions)
      if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name))
        symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

/// Looks up `name` (its packed wrapper if `packed`). Looking up a symbol of
/// the module compiles the module.
void *lookup(JitEngine &jit, llvm::StringRef name, bool packed,
             std::string &error) {
  if (name.contains('\0')) {
    error = "cannot look up '" + nameWithNul(name) +
            "': the name contains a NUL character";
    return nullptr;
  }
  std::string symbol = packed ? ("_mlir_" + name).str() : name.str();
  if (jit.moduleSymbols.contains(symbol) && !jit.compiled) {
    // Without shared libraries (whose init functions may define symbols
    // invisible here), missing symbols are known before compiling: report
    // them and leave the engine usable, rather than fail a compilation that
    // ORC reports on stderr and that no later registration can repair.
    if (!jit.hasSharedLibraries) {
      std::string missing = findMissingSymbols(jit);
      if (!missing.empty()) {
        error = describeMissingSymbols(missing);
        return nullptr;
      }
    }
    jit.compiled = true;
  }
  if (packed) {
    auto fn = jit.engine->lookupPacked(name);
    if (fn)
      return reinterpret_cast<void *>(*fn);
    error = explainCompileFailure(jit, fn.takeError());
    return nullptr;
  }
  auto address = jit.engine->lookup(name);
  if (address)
    return *address;
  error = explainCompileFailure(jit, address.takeError());
  return nullptr;
}

/// Compiles the module, so that missing symbols are reported as an error
/// rather than aborting inside the engine's own compilation.
LogicalResult compile(JitEngine &jit, std::string &error) {
  if (jit.anyFunction.empty()) {
    jit.compiled = true;
    return success();
  }
  return success(lookup(jit, jit.anyFunction, /*packed=*/false, error) !=
                 nullptr);
}

} // namespace

//===----------------------------------------------------------------------===//
// Checked API.
//===----------------------------------------------------------------------===//

extern "C" MlirExecutionEngine
mlirExecutionEngineCreateChecked(MlirModule op, int optLevel, int numPaths,
                                 const MlirStringRef *sharedLibPaths,
                                 bool enableObjectDump, bool enablePIC,
                                 MlirStringCallback onError, void *userData) {
  auto fail = [&](llvm::StringRef message) {
    report(onError, userData, message);
    return MlirExecutionEngine{nullptr};
  };
  if (mlirModuleIsNull(op))
    return fail("cannot create an ExecutionEngine from a null module");
  if (optLevel < 0 || optLevel > 3)
    return fail("optimization level " + std::to_string(optLevel) +
                " is out of range: use 0, 1, 2 or 3");
  if (numPaths < 0 || (numPaths > 0 && !sharedLibPaths))
    return fail("invalid list of shared library paths");

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  ModuleOp module = unwrap(op);
  for (const std::string &refusal :
       {findNulSymbol(module), findUnknownGarbageCollector(module)})
    if (!refusal.empty())
      return fail(refusal);
  MLIRContext &context = *module->getContext();
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerOpenMPDialectTranslation(context);

  llvm::SmallVector<llvm::StringRef> libPaths;
  for (int i = 0; i < numPaths; ++i)
    libPaths.push_back(unwrap(sharedLibPaths[i]));
  std::string error;
  if (failed(checkSharedLibraries(libPaths, error)))
    return fail(error);

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return fail("cannot detect the host target: " +
                llvm::toString(builder.takeError()));
  if (enablePIC)
    builder->setRelocationModel(llvm::Reloc::PIC_);
  auto targetMachine = builder->createTargetMachine();
  if (!targetMachine)
    return fail("cannot create a target machine for the host: " +
                llvm::toString(targetMachine.takeError()));

  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               targetMachine->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.sharedLibPaths = libPaths;
  options.enableObjectDump = enableObjectDump;

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
  auto engine =
      ExecutionEngine::create(module, options, std::move(*targetMachine));
  if (!engine) {
    std::string message = llvm::toString(engine.takeError());
    if (!diagnostics.empty())
      message += ":\n" + diagnostics;
    return fail(message);
  }

  defineMissingRuntimeFunctions(**engine);
  auto *jit = new JitEngine;
  jit->engine = std::move(*engine);
  jit->enableObjectDump = enableObjectDump;
  jit->hasSharedLibraries = !libPaths.empty();
  collectModuleSymbols(module, *jit);
  return MlirExecutionEngine{jit};
}

extern "C" MlirLogicalResult mlirExecutionEngineRegisterSymbolChecked(
    MlirExecutionEngine jitHandle, MlirStringRef name, void *sym,
    MlirStringCallback onError, void *userData) {
  JitEngine &jit = *unwrapJit(jitHandle);
  llvm::StringRef symbolName = unwrap(name);
  if (symbolName.contains('\0'))
    return report(onError, userData,
                  "cannot register symbol '" + nameWithNul(symbolName) +
                      "': the name contains a NUL character");
  std::lock_guard<std::mutex> lock(jit.mutex);
  if (jit.compiled)
    return report(onError, userData,
                  "cannot register symbol '" + symbolName.str() +
                      "': the module has already been compiled (by a lookup, "
                      "an invocation, initialization or an object dump); "
                      "register runtime symbols right after creating the "
                      "engine");
  if (jit.moduleSymbols.contains(symbolName))
    return report(onError, userData,
                  "cannot register symbol '" + symbolName.str() +
                      "': the module already defines it");
  if (!jit.registeredSymbols.insert(symbolName).second)
    return report(onError, userData,
                  "cannot register symbol '" + symbolName.str() +
                      "': it is already registered with this engine");
  jit.engine->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner(symbolName)] = {llvm::orc::ExecutorAddr::fromPtr(sym),
                                     llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return mlirLogicalResultSuccess();
}

extern "C" void *mlirExecutionEngineLookupChecked(MlirExecutionEngine jit,
                                                  MlirStringRef name,
                                                  bool packed,
                                                  MlirStringCallback onError,
                                                  void *userData) {
  std::string error;
  void *address = lookup(*unwrapJit(jit), unwrap(name), packed, error);
  if (!address)
    report(onError, userData, error);
  return address;
}

extern "C" MlirLogicalResult mlirExecutionEngineInitializeChecked(
    MlirExecutionEngine jitHandle, MlirStringCallback onError, void *userData) {
  JitEngine &jit = *unwrapJit(jitHandle);
  std::string error;
  if (failed(compile(jit, error)))
    return report(onError, userData, error);
  jit.engine->initialize();
  return mlirLogicalResultSuccess();
}

extern "C" MlirLogicalResult mlirExecutionEngineDumpToObjectFileChecked(
    MlirExecutionEngine jitHandle, MlirStringRef fileName,
    MlirStringCallback onError, void *userData) {
  JitEngine &jit = *unwrapJit(jitHandle);
  llvm::StringRef path = unwrap(fileName);
  if (path.contains('\0'))
    return report(onError, userData,
                  "cannot write object file '" + nameWithNul(path) +
                      "': the file name contains a NUL character");
  if (!jit.enableObjectDump)
    return report(onError, userData,
                  "cannot dump object code: the engine was created without "
                  "enabling object dumps");
  std::string error;
  if (failed(compile(jit, error)))
    return report(onError, userData, error);
  // The engine reports a file it cannot write only on stderr: try it first.
  {
    std::error_code ec;
    llvm::raw_fd_ostream probe(path, ec);
    if (ec)
      return report(onError, userData,
                    "cannot write object file '" + path.str() +
                        "': " + ec.message());
  }
  jit.engine->dumpToObjectFile(path);
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size) || size == 0)
    return report(onError, userData,
                  "no object code was written to '" + path.str() + "'");
  return mlirLogicalResultSuccess();
}

extern "C" int64_t
mlirExecutionEngineGetNumPackedArguments(MlirExecutionEngine jit,
                                         MlirStringRef name) {
  const llvm::StringMap<int64_t> &counts = unwrapJit(jit)->numPackedArguments;
  auto it = counts.find(unwrap(name));
  return it == counts.end() ? -1 : it->second;
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
