//===- ModuleSymbols.cpp - What a JitEngine knows of its module -----------===//

#include "ModuleSymbols.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/IR/GCStrategy.h"

using namespace mlir;

namespace mlir_execution_engine {

/// Finds a symbol of the module whose name has a NUL character: the error,
/// or an empty string if there is none.
static std::string findNulSymbol(ModuleOp module) {
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
static std::string findReservedSymbol(ModuleOp module) {
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
static std::string findUnknownGarbageCollector(ModuleOp module) {
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

std::string findRefusedContent(ModuleOp module) {
  for (const std::string &refusal :
       {findNulSymbol(module), findReservedSymbol(module),
        findUnknownGarbageCollector(module)})
    if (!refusal.empty())
      return refusal;
  return "";
}

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

// The metadata: records of a kind ("D" defined, "P" packed argument count,
// "U" declared, "T" declared function type, "A" any function, "N" the
// caller's annotation) and strings, each `<length>:<bytes>`.
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
static bool parsePackedArguments(llvm::StringRef text,
                                 PackedArguments &packed) {
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

} // namespace mlir_execution_engine
