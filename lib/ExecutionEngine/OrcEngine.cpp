//===- OrcEngine.cpp - This project's JIT engine on ORC LLJIT -------------===//

#include "OrcEngine.h"
#include "ObjectStore.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <dlfcn.h>

// Of LLVM's OpenMP runtime, which this library links: its address tells
// which file the loader took it from.
extern "C" int omp_get_max_threads();

using namespace llvm;
using namespace llvm::orc;

namespace mlir_execution_engine {

namespace {

/// Stands for the JIT's IR compiler, which the engine never uses.
class NoIRCompiler : public IRCompileLayer::IRCompiler {
public:
  NoIRCompiler() : IRCompiler(IRSymbolMapper::ManglingOptions()) {}
  Expected<std::unique_ptr<MemoryBuffer>> operator()(Module &) override {
    return createStringError("the engine adds objects, not IR modules");
  }
};

/// Upstream's protocol for shared libraries (mlir::ExecutionEngine's
/// kLibraryInitFnName and kLibraryDestroyFnName).
constexpr const char *kLibraryInit = "__mlir_execution_engine_init";
constexpr const char *kLibraryDestroy = "__mlir_execution_engine_destroy";
using LibraryInitFn = void (*)(StringMap<void *> &);

/// Fails if LLVM's perf listener could not create its directory of jitdump
/// files: it would only say so on stderr.
Error checkPerfDumpDirectory() {
  SmallString<256> directory;
  if (std::optional<std::string> base = sys::Process::GetEnv("JITDUMPDIR"))
    directory = *base;
  else
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, directory);
  sys::path::append(directory, ".debug", "jit");
  if (std::error_code ec = sys::fs::create_directories(directory))
    return createStringError("cannot enable the perf listener: it cannot "
                             "create its directory '" +
                             directory.str() + "': " + ec.message() +
                             "; set JITDUMPDIR to a writable directory");
  return Error::success();
}

/// What JITTargetMachineBuilder::detectHost makes, without detecting again.
JITTargetMachineBuilder hostMachineBuilder(const OrcEngineOptions &options) {
  const HostTarget &host = hostTarget();
  JITTargetMachineBuilder builder{Triple(host.triple)};
  builder.setCPU(host.cpu);
  builder.addFeatures(host.features);
  builder.setCodeGenOptLevel(static_cast<CodeGenOptLevel>(options.optLevel));
  if (options.enablePIC)
    builder.setRelocationModel(Reloc::PIC_);
  return builder;
}

/// Defines `_mlir_<f>(void **arguments)` for each externally visible function
/// `f`: it loads each argument through its pointer, calls `f` and stores the
/// result through the pointer after the arguments.
void addPackedWrappers(Module &module) {
  std::vector<Function *> functions;
  for (Function &function : module)
    if (!function.isDeclaration() && !function.hasLocalLinkage())
      functions.push_back(&function);
  IRBuilder<> builder(module.getContext());
  for (Function *function : functions) {
    std::string name = (OrcEngine::kPackedPrefix + function->getName()).str();
    if (module.getFunction(name))
      continue;
    auto *wrapper = Function::Create(
        FunctionType::get(builder.getVoidTy(), builder.getPtrTy(), false),
        GlobalValue::ExternalLinkage, name, module);
    builder.SetInsertPoint(
        BasicBlock::Create(module.getContext(), "", wrapper));
    Value *pointers = wrapper->getArg(0);
    auto argumentPointer = [&](unsigned index) {
      Value *slot =
          builder.CreateConstGEP1_64(builder.getPtrTy(), pointers, index);
      return builder.CreateLoad(builder.getPtrTy(), slot);
    };
    std::vector<Value *> arguments;
    for (Argument &argument : function->args())
      arguments.push_back(builder.CreateLoad(
          argument.getType(), argumentPointer(argument.getArgNo())));
    CallInst *result = builder.CreateCall(function, arguments);
    if (!result->getType()->isVoidTy())
      builder.CreateStore(result, argumentPointer(function->arg_size()));
    builder.CreateRetVoid();
  }
}

/// Replaces `llvm.global_ctors` (or `_dtors`) by the function `name` calling
/// them: constructors by increasing priority, destructors by decreasing
/// priority, as LLVM's language reference orders them.
void defineStructorRunner(Module &module, bool constructors, StringRef name) {
  std::vector<std::pair<unsigned, Function *>> structors;
  for (const CtorDtorIterator::Element &element :
       constructors ? getConstructors(module) : getDestructors(module))
    if (element.Func)
      structors.push_back({element.Priority, element.Func});
  std::stable_sort(
      structors.begin(), structors.end(), [&](const auto &a, const auto &b) {
        return constructors ? a.first < b.first : a.first > b.first;
      });
  if (GlobalVariable *array = module.getNamedGlobal(
          constructors ? "llvm.global_ctors" : "llvm.global_dtors"))
    array->eraseFromParent();
  IRBuilder<> builder(module.getContext());
  auto *runner = Function::Create(FunctionType::get(builder.getVoidTy(), false),
                                  GlobalValue::ExternalLinkage, name, module);
  builder.SetInsertPoint(BasicBlock::Create(module.getContext(), "", runner));
  for (auto &[priority, function] : structors)
    builder.CreateCall(function->getFunctionType(), function);
  builder.CreateRetVoid();
}

/// LLVM converts an integer wider than float's significand to bfloat
/// through float, rounding twice (the i32 0x1810001 becomes 0x1800000, not
/// the nearest 0x1820000), and integers wider than 128 bits to half or float
/// wrongly where they overflow. Converts such integers through double
/// instead, rounding once: an integer of more than double's 53 significant
/// bits first keeps its top 53 with the rest folded into a sticky last bit,
/// which rounds to bfloat's 8 (or float's 24) as the whole would.
void convertIntegersRoundingOnce(Module &module) {
  SmallVector<CastInst *> casts;
  for (Function &function : module)
    for (Instruction &instruction : instructions(function))
      if (auto *cast = dyn_cast<CastInst>(&instruction))
        if (isa<SIToFPInst>(cast) || isa<UIToFPInst>(cast)) {
          Type *target = cast->getType()->getScalarType();
          unsigned bits = cast->getSrcTy()->getScalarSizeInBits();
          if ((target->isBFloatTy() && bits > 24) ||
              ((target->isHalfTy() || target->isFloatTy()) && bits > 128))
            casts.push_back(cast);
        }
  for (CastInst *cast : casts) {
    IRBuilder<> builder(cast);
    Value *value = cast->getOperand(0);
    bool isSigned = isa<SIToFPInst>(cast);
    Type *type = value->getType();
    unsigned bits = type->getScalarSizeInBits();
    auto constant = [&](uint64_t v) { return ConstantInt::get(type, v); };
    // |value| as an unsigned number (the most negative one included).
    Value *magnitude = isSigned ? builder.CreateBinaryIntrinsic(
                                      Intrinsic::abs, value, builder.getFalse())
                                : value;
    if (bits > 53) {
      Value *length = builder.CreateSub(
          constant(bits), builder.CreateBinaryIntrinsic(
                              Intrinsic::ctlz, magnitude, builder.getFalse()));
      Value *excess = builder.CreateSub(length, constant(53));
      Value *shift = builder.CreateSelect(
          builder.CreateICmpUGT(length, constant(53)), excess, constant(0));
      Value *dropped = builder.CreateAnd(
          magnitude, builder.CreateSub(builder.CreateShl(constant(1), shift),
                                       constant(1)));
      Value *sticky =
          builder.CreateZExt(builder.CreateICmpNE(dropped, constant(0)), type);
      magnitude = builder.CreateShl(
          builder.CreateOr(builder.CreateLShr(magnitude, shift), sticky),
          shift);
    }
    Value *wide = builder.CreateUIToFP(
        magnitude, type->getWithNewType(builder.getDoubleTy()));
    if (isSigned)
      wide = builder.CreateSelect(builder.CreateICmpSLT(value, constant(0)),
                                  builder.CreateFNeg(wide), wide);
    cast->replaceAllUsesWith(builder.CreateFPTrunc(wide, cast->getType()));
    cast->eraseFromParent();
  }
}

} // namespace

const HostTarget &hostTarget() {
  static const HostTarget host = [] {
    HostTarget host{sys::getProcessTriple(), sys::getHostCPUName().str(), {}};
    for (const auto &feature : sys::getHostCPUFeatures())
      host.features.push_back((feature.second ? "+" : "-") +
                              feature.getKey().str());
    std::sort(host.features.begin(), host.features.end());
    return host;
  }();
  return host;
}

namespace {

/// LLJIT as the engine uses it: objects the engine compiled itself, linked
/// in memory, with the listeners `options` asks for.
Expected<std::unique_ptr<LLJIT>>
createJit(const OrcEngineOptions &options,
          const JITTargetMachineBuilder &machineBuilder) {
  return LLJITBuilder()
      .setJITTargetMachineBuilder(machineBuilder)
      // From the triple: LLJIT would create a target machine for it.
      .setDataLayout(
          DataLayout(machineBuilder.getTargetTriple().computeDataLayout()))
      // The engine compiles modules itself (`compile`) and adds objects:
      // the JIT's own IR compiler, and its target machine, go unused.
      .setCompileFunctionCreator(
          [](JITTargetMachineBuilder)
              -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
            return std::make_unique<NoIRCompiler>();
          })
      // Constructors run through kConstructors, the same with cached
      // objects: no platform rewrites the IR for them.
      .setPlatformSetUp(setUpInactivePlatform)
      .setObjectLinkingLayerCreator(
          [&](ExecutionSession &session)
              -> Expected<std::unique_ptr<ObjectLayer>> {
            auto layer = std::make_unique<RTDyldObjectLinkingLayer>(
                session, [](const MemoryBuffer &) {
                  return std::make_unique<SectionMemoryManager>();
                });
            if (options.enableGDBListener)
              layer->registerJITEventListener(
                  *JITEventListener::createGDBRegistrationListener());
            if (options.enablePerfListener)
              if (JITEventListener *perf =
                      JITEventListener::createPerfJITEventListener())
                layer->registerJITEventListener(*perf);
            return layer;
          })
      .create();
}

/// A search of LLVM's OpenMP runtime, for its own functions only. The
/// runtime is loaded privately (with this library): it is found by its
/// file's name, and opened with RTLD_NOLOAD to stay private
/// (DynamicLibrarySearchGenerator::Load would make it global, and a library
/// loaded later that wants GCC's libgomp could bind to its GOMP_
/// functions). Null when this library has no OpenMP runtime. `used` is set
/// when linking looks for one of its functions.
Expected<std::unique_ptr<DynamicLibrarySearchGenerator>>
searchOpenMPRuntime(char globalPrefix, std::atomic<bool> &used) {
  Dl_info openmp;
  if (!dladdr(reinterpret_cast<void *>(&omp_get_max_threads), &openmp) ||
      !openmp.dli_fname)
    return nullptr;
  void *handle = dlopen(openmp.dli_fname, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!handle)
    return createStringError(Twine("cannot open LLVM's OpenMP runtime: ") +
                             dlerror());
  auto isOpenMPFunction = [&used](const SymbolStringPtr &name) {
    bool openmp =
        llvm::any_of(OrcEngine::kOpenMPPrefixes, [&](const char *prefix) {
          return (*name).starts_with(prefix);
        });
    if (openmp)
      used = true;
    return openmp;
  };
  return std::make_unique<DynamicLibrarySearchGenerator>(
      sys::DynamicLibrary(handle), globalPrefix, std::move(isOpenMPFunction));
}

} // namespace

Expected<std::unique_ptr<OrcEngine>>
OrcEngine::create(const OrcEngineOptions &options) {
  std::unique_ptr<OrcEngine> engine(new OrcEngine);
  engine->optLevel = options.optLevel;
  auto machineBuilder = hostMachineBuilder(options);
  engine->machineBuilder = machineBuilder;
  if (options.enablePerfListener)
    if (Error error = checkPerfDumpDirectory())
      return std::move(error);
  auto jit = createJit(options, machineBuilder);
  if (!jit)
    return jit.takeError();
  engine->jit = std::move(*jit);
  // ORC prints errors it cannot return (such as the symbols a failed
  // materialization lacked) to stderr: keep them for lookups' errors (every
  // later lookup of a failed module fails for the same reasons).
  OrcEngine *self = engine.get();
  engine->jit->getExecutionSession().setErrorReporter([self](Error error) {
    std::string message = toString(std::move(error));
    std::lock_guard<std::mutex> lock(self->sessionErrorsMutex);
    if (!StringRef(self->sessionErrors).contains(message))
      self->sessionErrors +=
          (self->sessionErrors.empty() ? "" : "; ") + message;
  });
  if (Error error = engine->addRuntimes())
    return std::move(error);
  if (Error error = engine->loadSharedLibraries(options.sharedLibPaths))
    return std::move(error);
  return engine;
}

Error OrcEngine::addRuntimes() {
  JITDylib *process = jit->getProcessSymbolsJITDylib().get();
  JITDylib &searched = process ? *process : jit->getMainJITDylib();
  char globalPrefix = jit->getDataLayout().getGlobalPrefix();
  // The compiler runtime LLVM's code calls for what the host has no
  // instruction for (f16 conversions, 128-bit division, powi, ...): a
  // program links it statically; here it is GCC's, which every glibc system
  // has, but which Python loads only privately (through libstdc++), where
  // the process's symbols are not searched. Searched after the process's
  // symbols: through the library's own scope, `malloc` would be libc's,
  // not an interposed one (a sanitizer's, jemalloc).
  if (auto runtime =
          DynamicLibrarySearchGenerator::Load(kCompilerRuntime, globalPrefix))
    searched.addGenerator(std::move(*runtime));
  else
    consumeError(runtime.takeError()); // then such calls name their symbol
  // For code lowered from the OpenMP dialect.
  auto openmp = searchOpenMPRuntime(globalPrefix, openMPUsed);
  if (!openmp)
    return openmp.takeError();
  if (*openmp)
    searched.addGenerator(std::move(*openmp));
  return Error::success();
}

Error OrcEngine::loadSharedLibraries(ArrayRef<StringRef> paths) {
  JITDylib &main = jit->getMainJITDylib();
  char globalPrefix = jit->getDataLayout().getGlobalPrefix();
  for (StringRef path : paths) {
    std::string reason;
    auto library =
        sys::DynamicLibrary::getPermanentLibrary(path.str().c_str(), &reason);
    if (!library.isValid())
      return createStringError("cannot load shared library '" + path.str() +
                               "': " + reason);
    void *init = library.getAddressOfSymbol(kLibraryInit);
    void *destroy = library.getAddressOfSymbol(kLibraryDestroy);
    if (!init || !destroy) {
      // Its exported symbols, found by name.
      auto generator =
          DynamicLibrarySearchGenerator::Load(path.str().c_str(), globalPrefix);
      if (!generator)
        return generator.takeError();
      main.addGenerator(std::move(*generator));
      continue;
    }
    StringMap<void *> exported;
    reinterpret_cast<LibraryInitFn>(init)(exported);
    libraryDestroyFunctions.push_back(reinterpret_cast<void (*)()>(destroy));
    for (auto &symbol : exported)
      if (Error error = define(symbol.getKey(), symbol.getValue()))
        return error;
  }
  return Error::success();
}

OrcEngine::~OrcEngine() {
  if (initialized) {
    if (auto destructors = lookup(kDestructors))
      reinterpret_cast<void (*)()>(*destructors)();
    else
      consumeError(destructors.takeError());
  }
  for (auto destroy : libraryDestroyFunctions)
    destroy();
  // Before the members its error reporter writes to.
  jit.reset();
}

Expected<std::unique_ptr<MemoryBuffer>> OrcEngine::compile(Module &module) {
  // Made here, not in `create`: an engine loading a cached object needs none.
  auto targetMachine = machineBuilder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  module.setDataLayout(jit->getDataLayout());
  module.setTargetTriple(jit->getTargetTriple());
  defineStructorRunner(module, /*constructors=*/true, kConstructors);
  defineStructorRunner(module, /*constructors=*/false, kDestructors);
  addPackedWrappers(module);
  auto optimize = mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                                  targetMachine->get());
  if (Error error = optimize(&module))
    return std::move(error);
  // After optimization, which would fold the conversion back into one.
  convertIntegersRoundingOnce(module);
  auto object = SimpleCompiler(**targetMachine)(module);
  if (object)
    countCompilation();
  return object;
}

Error OrcEngine::addObject(std::unique_ptr<MemoryBuffer> object) {
  return jit->addObjectFile(std::move(object));
}

Error OrcEngine::define(StringRef name, void *address) {
  SymbolMap symbols;
  symbols[jit->mangleAndIntern(name)] = {ExecutorAddr::fromPtr(address),
                                         JITSymbolFlags::Exported};
  return jit->getMainJITDylib().define(absoluteSymbols(std::move(symbols)));
}

Expected<void *> OrcEngine::lookup(StringRef name) {
  auto address = jit->lookup(name);
  if (address)
    return address->toPtr<void *>();
  std::string message = toString(address.takeError());
  std::lock_guard<std::mutex> lock(sessionErrorsMutex);
  if (!sessionErrors.empty())
    message = sessionErrors + " (" + message + ")";
  return createStringError(message);
}

Error OrcEngine::initialize() {
  if (initialized)
    return Error::success();
  auto constructors = lookup(kConstructors);
  if (!constructors)
    return constructors.takeError();
  initialized = true;
  reinterpret_cast<void (*)()>(*constructors)();
  return Error::success();
}

} // namespace mlir_execution_engine
