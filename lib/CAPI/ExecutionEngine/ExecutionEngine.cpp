//===- ExecutionEngine.cpp - C API for MLIR JIT ---------------------------===//
//
// The ExecutionEngine C API over this project's OrcEngine. An
// MlirExecutionEngine points to a JitEngine, which adds what the checked API
// needs to know: which names are defined (by the module or by registration)
// and whether the module has been linked, after which registering a symbol
// can no longer help. With a cache directory, the object and what the
// JitEngine knows of the module are stored together, so that a later engine
// needs neither the module's translation nor its compilation.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/ExecutionEngineChecked.h"

#include "ObjectStore.h"
#include "OrcEngine.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/GCStrategy.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;
using mlir_execution_engine::OrcEngine;

namespace {

/// The pointers a packed wrapper `_mlir_<f>(void **)` reads.
struct PackedArguments {
  /// The size in bytes of each pointer's target.
  std::vector<int64_t> sizes;
  /// Whether the last one is the result, which the wrapper writes.
  bool returnsValue = false;
};

struct JitEngine {
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

/// Finds a symbol of the module named as one the engine defines in every
/// module (the global constructors' and destructors' runners): the error,
/// or an empty string if there is none.
std::string findReservedSymbol(ModuleOp module) {
  for (const char *reserved :
       {OrcEngine::kConstructors, OrcEngine::kDestructors})
    if (SymbolTable::lookupSymbolIn(module, reserved))
      return std::string("the symbol '") + reserved +
             "' is reserved: the engine defines it to run the module's "
             "global constructors or destructors; rename it";
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
      PackedArguments &packed = jit.packedArguments[name];
      DataLayout layout = DataLayout::closest(function);
      for (Type param : type.getParams())
        packed.sizes.push_back(layout.getTypeSize(param));
      packed.returnsValue = !isa<LLVM::LLVMVoidType>(type.getReturnType());
      if (packed.returnsValue)
        packed.sizes.push_back(layout.getTypeSize(type.getReturnType()));
      jit.moduleSymbols.insert(("_mlir_" + name).str());
      if (jit.anyFunction.empty())
        jit.anyFunction = name.str();
    }
  }
}

/// What `collectModuleSymbols` found, for the cache: records of a kind
/// ("D" defined, "P" packed argument count, "U" declared, "T" declared
/// function type, "A" any function, "N" the caller's annotation) and strings,
/// each `<length>:<bytes>`.
std::string serializeModuleSymbols(const JitEngine &jit) {
  std::string out;
  auto field = [&](llvm::StringRef text) {
    out += std::to_string(text.size()) + ":" + text.str();
  };
  for (const auto &name : jit.moduleSymbols)
    field("D"), field(name.getKey());
  // "P": the sizes, comma-separated, then ">" and the result's if any.
  for (const auto &packed : jit.packedArguments) {
    const std::vector<int64_t> &sizes = packed.second.sizes;
    size_t numArguments = sizes.size() - packed.second.returnsValue;
    std::string text;
    for (size_t i = 0; i < sizes.size(); ++i)
      text += (i == numArguments ? ">"
               : i               ? ","
                                 : "") +
              std::to_string(sizes[i]);
    if (!packed.second.returnsValue)
      text += ">";
    field("P"), field(packed.getKey()), field(text);
  }
  for (const std::string &name : jit.declaredSymbols)
    field("U"), field(name);
  for (const auto &type : jit.declaredFunctionTypes)
    field("T"), field(type.getKey()), field(type.second);
  field("A"), field(jit.anyFunction);
  field("N"), field(jit.cacheAnnotation);
  return out;
}

/// Reads a "P" record's value; false if it is malformed.
bool parsePackedArguments(llvm::StringRef text, PackedArguments &packed) {
  auto [arguments, result] = text.split('>');
  if (arguments.size() == text.size())
    return false; // no ">"
  llvm::SmallVector<llvm::StringRef> fields;
  arguments.split(fields, ',', -1, /*KeepEmpty=*/false);
  packed.returnsValue = !result.empty();
  if (packed.returnsValue)
    fields.push_back(result);
  for (llvm::StringRef field : fields) {
    int64_t size;
    if (field.getAsInteger(10, size) || size < 0)
      return false;
    packed.sizes.push_back(size);
  }
  return true;
}

/// Reads what `serializeModuleSymbols` wrote; false if it is malformed.
bool deserializeModuleSymbols(llvm::StringRef in, JitEngine &jit) {
  auto field = [&](std::string &text) {
    auto [length, rest] = in.split(':');
    size_t size;
    if (length.getAsInteger(10, size) || size > rest.size())
      return false;
    text = rest.substr(0, size).str();
    in = rest.drop_front(size);
    return true;
  };
  std::string kind, name, value;
  // Every entry ends with the records "A" and "N".
  bool sawAnyFunction = false, complete = false;
  while (!in.empty()) {
    if (!field(kind) || !field(name))
      return false;
    if (kind == "D") {
      jit.moduleSymbols.insert(name);
    } else if (kind == "U") {
      jit.declaredSymbols.push_back(name);
    } else if (kind == "A") {
      jit.anyFunction = name;
      sawAnyFunction = true;
    } else if (kind == "N") {
      jit.cacheAnnotation = name;
      complete = sawAnyFunction;
    } else if (kind == "P" || kind == "T") {
      if (!field(value))
        return false;
      if (kind == "T")
        jit.declaredFunctionTypes[name] = value;
      else if (!parsePackedArguments(value, jit.packedArguments[name]))
        return false;
    } else {
      return false;
    }
  }
  return complete;
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

/// `value` rounded to a double by rounding to odd (truncated, with a sticky
/// last bit if anything was lost): rounding that again to fewer bits rounds
/// as once.
template <typename Wide> double doubleRoundedToOdd(Wide value) {
  double nearest = static_cast<double>(value);
  if (static_cast<Wide>(nearest) != value && value == value &&
      std::isfinite(nearest)) {
    uint64_t bits;
    std::memcpy(&bits, &nearest, sizeof(bits));
    if (std::fabs(nearest) > (value < 0 ? -value : value))
      bits -= 1;
    bits |= 1;
    std::memcpy(&nearest, &bits, sizeof(bits));
  }
  return nearest;
}

float truncXFBF2(long double value) {
  return truncDFBF2(doubleRoundedToOdd(value));
}

float truncTFBF2(__float128 value) {
  return truncDFBF2(doubleRoundedToOdd(value));
}

/// Defines the compiler-runtime functions jitted code may call that this
/// process lacks.
llvm::Error defineMissingRuntimeFunctions(OrcEngine &engine) {
  std::pair<const char *, void *> functions[] = {
      {"__truncsfbf2", reinterpret_cast<void *>(&truncSFBF2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncDFBF2)},
      {"__truncxfbf2", reinterpret_cast<void *>(&truncXFBF2)},
      {"__trunctfbf2", reinterpret_cast<void *>(&truncTFBF2)},
  };
  for (auto [name, address] : functions)
    if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name))
      if (llvm::Error error = engine.define(name, address))
        return error;
  return llvm::Error::success();
}

/// Looks up `name` (its packed wrapper if `packed`). Looking up a symbol of
/// the module links the module.
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

namespace {

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

/// Creates an engine for `op`, or from the cache alone if `op` is null
/// (returning null with `error` empty on a miss).
JitEngine *createEngine(MlirModule op,
                        const MlirExecutionEngineOptions &options,
                        std::string &error) {
  auto fail = [&](llvm::StringRef message) -> JitEngine * {
    error = message.str();
    return nullptr;
  };
  if (options.optLevel < 0 || options.optLevel > 3)
    return fail("optimization level " + std::to_string(options.optLevel) +
                " is out of range: use 0, 1, 2 or 3");
  if (options.numSharedLibPaths < 0 ||
      (options.numSharedLibPaths > 0 && !options.sharedLibPaths))
    return fail("invalid list of shared library paths");
  llvm::StringRef cacheDir = unwrap(options.cacheDir);
  llvm::StringRef cacheKey = unwrap(options.cacheKey);
  if (cacheDir.contains('\0'))
    return fail("the cache directory '" + nameWithNul(cacheDir) +
                "' contains a NUL character");

  ModuleOp module = mlirModuleIsNull(op) ? ModuleOp() : unwrap(op);
  if (module)
    for (const std::string &refusal :
         {findNulSymbol(module), findReservedSymbol(module),
          findUnknownGarbageCollector(module)})
      if (!refusal.empty())
        return fail(refusal);

  llvm::SmallVector<llvm::StringRef> libPaths;
  for (int i = 0; i < options.numSharedLibPaths; ++i)
    libPaths.push_back(unwrap(options.sharedLibPaths[i]));
  if (failed(checkSharedLibraries(libPaths, error)))
    return nullptr;

  std::string key;
  std::optional<mlir_execution_engine::StoredObject> stored;
  if (!cacheDir.empty()) {
    std::string content = cacheKey.str();
    if (content.empty()) {
      llvm::raw_string_ostream os(content);
      module->print(os,
                    OpPrintingFlags().printGenericOpForm().enableDebugInfo());
    }
    key = mlir_execution_engine::objectKey(
        mlir_execution_engine::describeKeyEnvironment(
            options.optLevel, options.enablePIC, libPaths),
        content);
    stored = mlir_execution_engine::loadObject(cacheDir, key);
  }
  if (!module && !stored)
    return nullptr;

  mlir_execution_engine::OrcEngineOptions orcOptions;
  orcOptions.optLevel = options.optLevel;
  orcOptions.enablePIC = options.enablePIC;
  orcOptions.enableGDBListener = options.enableGDBListener;
  orcOptions.enablePerfListener = options.enablePerfListener;
  orcOptions.sharedLibPaths = libPaths;
  auto newJit = [&]() -> std::unique_ptr<JitEngine> {
    auto engine = OrcEngine::create(orcOptions);
    if (!engine) {
      fail("cannot set up the JIT for the host: " +
           llvm::toString(engine.takeError()));
      return nullptr;
    }
    if (llvm::Error failure = defineMissingRuntimeFunctions(**engine)) {
      fail(llvm::toString(std::move(failure)));
      return nullptr;
    }
    auto jit = std::make_unique<JitEngine>();
    jit->engine = std::move(*engine);
    jit->enableObjectDump = options.enableObjectDump;
    jit->hasSharedLibraries = !libPaths.empty();
    jit->cacheDir = cacheDir.str();
    jit->cacheKey = key;
    return jit;
  };

  if (stored) {
    auto jit = newJit();
    if (!jit)
      return nullptr;
    std::string object =
        options.enableObjectDump ? stored->object->getBuffer().str() : "";
    if (deserializeModuleSymbols(stored->metadata, *jit)) {
      llvm::Error failure = jit->engine->addObject(std::move(stored->object));
      if (!failure) {
        jit->object = std::move(object);
        jit->fromCache = true;
        return jit.release();
      }
      llvm::consumeError(std::move(failure));
    }
    // A whole entry this version cannot use (an object LLVM refuses): it
    // would fail every process.
    mlir_execution_engine::removeObject(cacheDir, key);
    if (!module)
      return nullptr;
  }

  auto jit = newJit();
  if (!jit)
    return nullptr;
  jit->cacheAnnotation = unwrap(options.cacheAnnotation).str();
  // Only compiling needs the target (loading an object does not): a new
  // process's first cached engine pages in less of LLVM.
  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;
  llvm::LLVMContext llvmContext;
  auto llvmModule = translate(module, llvmContext, error);
  if (!llvmModule)
    return nullptr;
  auto compiled = jit->engine->compile(*llvmModule);
  if (!compiled)
    return fail("cannot compile the module: " +
                llvm::toString(compiled.takeError()));
  collectModuleSymbols(module, *jit);
  if (!cacheDir.empty()) {
    std::string warning = mlir_execution_engine::storeObject(
        cacheDir, key, serializeModuleSymbols(*jit), (*compiled)->getBuffer());
    if (!warning.empty() && options.onCacheWarning)
      options.onCacheWarning(wrap(llvm::StringRef(warning)),
                             options.cacheWarningUserData);
  }
  if (options.enableObjectDump)
    jit->object = (*compiled)->getBuffer().str();
  if (llvm::Error failure = jit->engine->addObject(std::move(*compiled)))
    return fail(llvm::toString(std::move(failure)));
  return jit.release();
}

} // namespace

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
  JitEngine &engine = *unwrapJit(jit);
  if (!engine.fromCache)
    return false;
  mlir_execution_engine::removeObject(engine.cacheDir, engine.cacheKey);
  return true;
}

extern "C" MlirExecutionEngineCacheStatistics
mlirExecutionEngineGetCacheStatistics(void) {
  auto counts = mlir_execution_engine::objectStoreStatistics();
  return {counts.hits, counts.misses, counts.stores, counts.compilations};
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
  if (llvm::Error error = jit.engine->define(symbolName, sym)) {
    jit.registeredSymbols.erase(symbolName);
    return report(onError, userData,
                  "cannot register symbol '" + symbolName.str() +
                      "': " + llvm::toString(std::move(error)));
  }
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
  if (llvm::Error failure = jit.engine->initialize())
    return report(onError, userData, llvm::toString(std::move(failure)));
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
  // Upstream's engine compiles the module first: a module that cannot be
  // linked fails here too.
  std::string error;
  if (failed(compile(jit, error)))
    return report(onError, userData, error);
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (!ec) {
    file << jit.object;
    file.close();
    ec = file.error();
    file.clear_error();
  }
  if (ec)
    return report(onError, userData,
                  "cannot write object file '" + path.str() +
                      "': " + ec.message());
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
