//===- MainModule.cpp - The _mlir extension module ------------------------===//
//
// `_mlir.ir` and `_mlir.passmanager`: the subset of upstream's Python IR API a
// JIT user needs, over the C API only. Python objects that refer into MLIR
// keep their owner alive: a Module its Context, an Operation (or Block,
// Region, Type, Attribute, Location) the object it was reached from.
//
//===----------------------------------------------------------------------===//

#include "PybindUtils.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace mlir::python;

namespace {

//===----------------------------------------------------------------------===//
// Context, with the thread's stack of entered contexts and locations.
//===----------------------------------------------------------------------===//

class PyContext {
public:
  explicit PyContext(MlirContext context) : context(context) {
    liveContexts()[context.ptr] = this;
  }
  ~PyContext() {
    liveContexts().erase(context.ptr);
    mlirContextDestroy(context);
  }
  PyContext(const PyContext &) = delete;
  PyContext &operator=(const PyContext &) = delete;

  static PyContext *create() {
    MlirContext context = mlirContextCreate();
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    mlirRegisterAllDialects(registry);
    mlirContextAppendDialectRegistry(context, registry);
    mlirDialectRegistryDestroy(registry);
    mlirRegisterAllLLVMTranslations(context);
    return new PyContext(context);
  }

  /// The Python object wrapping `context`; creates one (which then owns the
  /// context) for a context made outside Python.
  static py::object wrap(MlirContext context) {
    auto it = liveContexts().find(context.ptr);
    if (it != liveContexts().end())
      return py::cast(it->second, py::return_value_policy::reference);
    return py::cast(new PyContext(context), py::return_value_policy::take_ownership);
  }

  static size_t liveCount() { return liveContexts().size(); }

  MlirContext get() const { return context; }

  /// Whether passes may run on several threads; MLIR's C API cannot tell.
  /// True for a context made outside Python too, the safe assumption.
  bool multithreading = true;

private:
  static std::unordered_map<void *, PyContext *> &liveContexts() {
    static std::unordered_map<void *, PyContext *> contexts;
    return contexts;
  }

  MlirContext context;
};

/// Objects entered with `with`, innermost last. They hold a reference taken
/// at __enter__ and dropped at __exit__; raw pointers, so that nothing is
/// destroyed when the thread or interpreter exits with a context still
/// entered.
thread_local std::vector<PyObject *> enteredContexts;
thread_local std::vector<PyObject *> enteredLocations;

py::object enter(std::vector<PyObject *> &stack, py::object self) {
  stack.push_back(self.inc_ref().ptr());
  return self;
}

void exit(std::vector<PyObject *> &stack, py::handle self, const char *what) {
  if (stack.empty() || stack.back() != self.ptr())
    throw std::runtime_error(std::string("exiting a ") + what +
                             " that is not the innermost one entered");
  stack.pop_back();
  self.dec_ref();
}

/// The context given, or the current one: `context` may be None.
py::object resolveContext(py::object context) {
  if (!context.is_none()) {
    if (!py::isinstance<PyContext>(context))
      throw py::type_error("expected a Context, got " +
                           std::string(py::str(py::type::handle_of(context))));
    return context;
  }
  if (enteredContexts.empty())
    throw py::value_error("no current Context: pass context=... or use "
                          "`with Context():`");
  return py::reinterpret_borrow<py::object>(enteredContexts.back());
}

MlirContext contextOf(const py::object &context) {
  return context.cast<PyContext &>().get();
}

/// Raises ValueError unless `actual` is `expected`: MLIR objects of different
/// contexts must not refer to each other (one may be freed first).
void requireSameContext(MlirContext expected, MlirContext actual,
                        const std::string &what) {
  if (!mlirContextEqual(expected, actual))
    throw py::value_error(what + " belongs to another Context");
}

/// MLIR's parsers recurse on nesting: deep enough input overflows the stack.
/// Raises ValueError for input nesting brackets deeper than any real IR.
void checkNesting(const std::string &text) {
  // MLIR bytecode (its magic number first) is binary, not bracketed text.
  if (text.rfind("ML\xefR", 0) == 0)
    return;
  constexpr int kMaxDepth = 1000;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // skip a string literal
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw py::value_error("the input nests brackets more than " +
                              std::to_string(kMaxDepth) +
                              " deep, beyond what MLIR's parser can recurse");
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
}

//===----------------------------------------------------------------------===//
// Values that live in a context: Location, Type, Attribute.
//===----------------------------------------------------------------------===//

struct PyLocation {
  MlirLocation location;
  py::object context;
};

struct PyType {
  MlirType type;
  py::object context;
};

struct PyAttribute {
  MlirAttribute attribute;
  py::object context;
};

PyLocation resolveLocation(py::object location) {
  if (!location.is_none())
    return location.cast<PyLocation>();
  if (!enteredLocations.empty())
    return py::handle(enteredLocations.back()).cast<PyLocation>();
  py::object context = resolveContext(py::none());
  return PyLocation{mlirLocationUnknownGet(contextOf(context)), context};
}

//===----------------------------------------------------------------------===//
// Diagnostics and MLIRError.
//===----------------------------------------------------------------------===//

struct PyDiagnosticInfo {
  MlirDiagnosticSeverity severity;
  PyLocation location;
  std::string message;
  std::vector<PyDiagnosticInfo> notes;
};

PyDiagnosticInfo toDiagnosticInfo(MlirDiagnostic diagnostic,
                                  const py::object &context) {
  PyDiagnosticInfo info{
      mlirDiagnosticGetSeverity(diagnostic),
      PyLocation{mlirDiagnosticGetLocation(diagnostic), context},
      printToString(mlirDiagnosticPrint, diagnostic),
      {}};
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    info.notes.push_back(
        toDiagnosticInfo(mlirDiagnosticGetNote(diagnostic, i), context));
  return info;
}

/// The MLIRError class; never released, so that nothing Python is destroyed
/// after the interpreter has finalized.
PyObject *mlirErrorClass = nullptr;

/// Collects the error diagnostics emitted on a context while it lives, so
/// that a failure raises MLIRError carrying them instead of printing them.
class ErrorCapture {
public:
  explicit ErrorCapture(py::object context) : context(std::move(context)) {
    id = mlirContextAttachDiagnosticHandler(contextOf(this->context), handle,
                                            this, nullptr);
  }
  ~ErrorCapture() { mlirContextDetachDiagnosticHandler(contextOf(context), id); }

  /// The collected error messages, one a line.
  std::string messages() const {
    std::string text;
    for (const PyDiagnosticInfo &error : errors)
      text += (text.empty() ? "" : "\n") + error.message;
    return text;
  }

  [[noreturn]] void raise(const std::string &message) {
    py::object error =
        py::handle(mlirErrorClass)(message, py::cast(errors));
    PyErr_SetObject(mlirErrorClass, error.ptr());
    throw py::error_already_set();
  }

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData) {
    auto *self = static_cast<ErrorCapture *>(userData);
    if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
      return mlirLogicalResultFailure(); // not ours: let it through
    self->errors.push_back(toDiagnosticInfo(diagnostic, self->context));
    return mlirLogicalResultSuccess();
  }

  py::object context;
  MlirDiagnosticHandlerID id;
  std::vector<PyDiagnosticInfo> errors;
};

/// Parses `text` in `context` (None: the current one) with a C API parser,
/// raising MLIRError("<what>", diagnostics) on failure.
template <typename T>
T parseOrRaise(py::object &context, const std::string &text,
               T (*parse)(MlirContext, MlirStringRef), bool (*isNull)(T),
               const std::string &what) {
  context = resolveContext(context);
  checkNesting(text);
  ErrorCapture errors(context);
  T result = parse(contextOf(context), toStringRef(text));
  if (isNull(result))
    errors.raise(what);
  return result;
}

//===----------------------------------------------------------------------===//
// Types and attributes, returned as their most specific Python class.
//===----------------------------------------------------------------------===//

struct PyIntegerType : PyType {};
struct PyIndexType : PyType {};
struct PyF16Type : PyType {};
struct PyBF16Type : PyType {};
struct PyF32Type : PyType {};
struct PyF64Type : PyType {};
struct PyComplexType : PyType {};
struct PyMemRefType : PyType {};
struct PyUnrankedMemRefType : PyType {};
struct PyFunctionType : PyType {};
struct PyTypeAttr : PyAttribute {};
struct PyStringAttr : PyAttribute {};
struct PyUnitAttr : PyAttribute {};

/// An optional attribute argument: None is the null attribute.
MlirAttribute optionalAttribute(py::handle attribute) {
  return attribute.is_none() ? mlirAttributeGetNull()
                             : attribute.cast<PyAttribute &>().attribute;
}

py::object wrapType(MlirType type, const py::object &context) {
  PyType base{type, context};
  if (mlirTypeIsAInteger(type))
    return py::cast(PyIntegerType{base});
  if (mlirTypeIsAIndex(type))
    return py::cast(PyIndexType{base});
  if (mlirTypeIsAF16(type))
    return py::cast(PyF16Type{base});
  if (mlirTypeIsABF16(type))
    return py::cast(PyBF16Type{base});
  if (mlirTypeIsAF32(type))
    return py::cast(PyF32Type{base});
  if (mlirTypeIsAF64(type))
    return py::cast(PyF64Type{base});
  if (mlirTypeIsAComplex(type))
    return py::cast(PyComplexType{base});
  if (mlirTypeIsAMemRef(type))
    return py::cast(PyMemRefType{base});
  if (mlirTypeIsAUnrankedMemRef(type))
    return py::cast(PyUnrankedMemRefType{base});
  if (mlirTypeIsAFunction(type))
    return py::cast(PyFunctionType{base});
  return py::cast(base);
}

py::object wrapAttribute(MlirAttribute attribute, const py::object &context) {
  PyAttribute base{attribute, context};
  if (mlirAttributeIsAType(attribute))
    return py::cast(PyTypeAttr{base});
  if (mlirAttributeIsAString(attribute))
    return py::cast(PyStringAttr{base});
  if (mlirAttributeIsAUnit(attribute))
    return py::cast(PyUnitAttr{base});
  return py::cast(base);
}

/// Binds a concrete type class: `Cls(type)` casts (ValueError if `type` is
/// another kind), `Cls.isinstance(type)` tests.
template <typename T>
py::class_<T, PyType> bindTypeSubclass(py::module_ &m, const char *name,
                                       bool (*isA)(MlirType)) {
  py::class_<T, PyType> cls(m, name);
  cls.def(py::init([isA, name](const PyType &type) {
            if (!isA(type.type))
              throw py::value_error(
                  "cannot cast type to " + std::string(name) + " (from " +
                  printToString(mlirTypePrint, type.type) + ")");
            return T{type};
          }),
          py::arg("cast_from_type"))
      .def_static(
          "isinstance",
          [isA](const PyType &type) { return isA(type.type); },
          py::arg("other"));
  return cls;
}

/// Binds a concrete attribute class, as bindTypeSubclass does types.
template <typename T>
py::class_<T, PyAttribute> bindAttributeSubclass(py::module_ &m,
                                                 const char *name,
                                                 bool (*isA)(MlirAttribute)) {
  py::class_<T, PyAttribute> cls(m, name);
  cls.def(py::init([isA, name](const PyAttribute &attribute) {
            if (!isA(attribute.attribute))
              throw py::value_error(
                  "cannot cast attribute to " + std::string(name) + " (from " +
                  printToString(mlirAttributePrint, attribute.attribute) +
                  ")");
            return T{attribute};
          }),
          py::arg("cast_from_attr"))
      .def_static(
          "isinstance",
          [isA](const PyAttribute &attribute) {
            return isA(attribute.attribute);
          },
          py::arg("other"));
  return cls;
}

void checkIntegerWidth(unsigned width) {
  constexpr unsigned kMaxWidth = (1u << 24) - 1; // IntegerType::kMaxWidth
  if (width > kMaxWidth)
    throw py::value_error("integer width " + std::to_string(width) +
                          " is larger than MLIR's maximum, " +
                          std::to_string(kMaxWidth));
}

/// A builtin type class with a `get(context=None)` factory.
template <typename T>
void bindSimpleType(py::module_ &m, const char *name, bool (*isA)(MlirType),
                    MlirType (*get)(MlirContext)) {
  bindTypeSubclass<T>(m, name, isA)
      .def_static(
          "get",
          [get](py::object context) {
            context = resolveContext(context);
            return T{PyType{get(contextOf(context)), context}};
          },
          py::arg("context") = py::none());
}

std::vector<int64_t> memrefShape(MlirType type) {
  std::vector<int64_t> shape;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(type); i < e; ++i)
    shape.push_back(mlirShapedTypeGetDimSize(type, i));
  return shape;
}

//===----------------------------------------------------------------------===//
// Module, Operation, Region, Block.
//===----------------------------------------------------------------------===//

class PyModule {
public:
  PyModule(MlirModule module, py::object context)
      : module(module), context(std::move(context)) {
    liveModules()[module.ptr] = this;
  }
  ~PyModule() {
    liveModules().erase(module.ptr);
    mlirModuleDestroy(module);
  }
  PyModule(const PyModule &) = delete;
  PyModule &operator=(const PyModule &) = delete;

  /// The Python object of `module`: the live one if there is one (so that a
  /// capsule round trip gives back the same object), else a new one that
  /// owns the module, as upstream's.
  static py::object wrap(MlirModule module) {
    auto it = liveModules().find(module.ptr);
    if (it != liveModules().end())
      return py::cast(it->second, py::return_value_policy::reference);
    return py::cast(
        new PyModule(module, PyContext::wrap(mlirModuleGetContext(module))),
        py::return_value_policy::take_ownership);
  }

  /// How many Module objects of `context` are alive.
  static size_t liveCount(MlirContext context) {
    size_t count = 0;
    for (auto &entry : liveModules())
      count += mlirContextEqual(mlirModuleGetContext(entry.second->module),
                                context);
    return count;
  }

  MlirModule module;
  py::object context;

private:
  static std::unordered_map<const void *, PyModule *> &liveModules() {
    static std::unordered_map<const void *, PyModule *> modules;
    return modules;
  }
};

/// Owns an operation parsed on its own (Operation.parse) until the last
/// Python object referring into it is gone.
class PyOwnedOperation {
public:
  PyOwnedOperation(MlirOperation operation, py::object context)
      : operation(operation), context(std::move(context)) {}
  ~PyOwnedOperation() { mlirOperationDestroy(operation); }
  PyOwnedOperation(const PyOwnedOperation &) = delete;
  PyOwnedOperation &operator=(const PyOwnedOperation &) = delete;

private:
  MlirOperation operation;
  py::object context; // destroyed after the operation
};

/// An operation; `owner` keeps the module (or parent object) it lives in
/// alive.
struct PyOperation {
  MlirOperation operation;
  py::object owner;
};

struct PyRegion {
  MlirRegion region;
  py::object owner;
};

struct PyBlock {
  MlirBlock block;
  py::object owner;
};

py::object contextOfOperation(MlirOperation operation) {
  return PyContext::wrap(mlirOperationGetContext(operation));
}

std::vector<PyOperation> blockOperations(const PyBlock &block) {
  std::vector<PyOperation> operations;
  for (MlirOperation op = mlirBlockGetFirstOperation(block.block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    operations.push_back(PyOperation{op, block.owner});
  return operations;
}

std::vector<PyBlock> regionBlocks(const PyRegion &region) {
  std::vector<PyBlock> blocks;
  for (MlirBlock block = mlirRegionGetFirstBlock(region.region);
       !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block))
    blocks.push_back(PyBlock{block, region.owner});
  return blocks;
}

std::string operationName(MlirOperation operation) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(operation));
  return std::string(name.data, name.length);
}

/// The attributes of an operation, read and written in place.
struct PyOpAttributeMap {
  PyOperation op;
};

struct PyNamedAttribute {
  std::string name;
  py::object attr;
};

PyNamedAttribute namedAttribute(MlirOperation op, intptr_t index) {
  MlirNamedAttribute named = mlirOperationGetAttribute(op, index);
  MlirStringRef name = mlirIdentifierStr(named.name);
  return PyNamedAttribute{
      std::string(name.data, name.length),
      wrapAttribute(named.attribute, contextOfOperation(op))};
}

py::object operationAttribute(const PyOpAttributeMap &map,
                              const std::string &name) {
  const PyOperation &op = map.op;
  MlirAttribute attribute =
      mlirOperationGetAttributeByName(op.operation, toStringRef(name));
  if (mlirAttributeIsNull(attribute))
    throw py::key_error("operation '" + operationName(op.operation) +
                        "' has no attribute '" + name + "'");
  return wrapAttribute(attribute, contextOfOperation(op.operation));
}

/// Accepts an Operation or anything with an `.operation` (a Module).
PyOperation toOperation(py::handle object) {
  if (py::isinstance<PyOperation>(object))
    return object.cast<PyOperation>();
  if (py::hasattr(object, "operation") && !py::isinstance<py::type>(object))
    return object.attr("operation").cast<PyOperation>();
  throw py::type_error("expected an Operation or a Module, got " +
                       std::string(py::str(py::type::handle_of(object))));
}

//===----------------------------------------------------------------------===//
// PassManager.
//===----------------------------------------------------------------------===//

/// Captures what is written to file descriptor 2 while it lives: LLVM's
/// option parser reports a bad pass option's reason only there.
class StderrCapture {
public:
  StderrCapture() {
    file = std::tmpfile();
    saved = file ? dup(2) : -1;
    if (saved >= 0)
      dup2(fileno(file), 2);
  }
  ~StderrCapture() { release(); }
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;

  /// Restores stderr and returns what was written meanwhile.
  std::string release() {
    std::string text;
    if (saved < 0)
      return text;
    dup2(saved, 2);
    close(saved);
    saved = -1;
    std::rewind(file);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;)
      text.append(buffer, n);
    std::fclose(file);
    return text;
  }

private:
  FILE *file = nullptr;
  int saved = -1;
};

/// Parses `pipeline` into `pm`, raising ValueError with the parser's message
/// (upstream's text, first) and whatever LLVM printed to stderr meanwhile.
void parsePipeline(MlirOpPassManager pm, const std::string &pipeline,
                   bool append) {
  checkNesting(pipeline);
  std::string error;
  StderrCapture stderrCapture;
  MlirLogicalResult status =
      append ? mlirOpPassManagerAddPipeline(pm, toStringRef(pipeline),
                                            appendToString, &error)
             : mlirParsePassPipeline(pm, toStringRef(pipeline),
                                     appendToString, &error);
  std::string printed = stderrCapture.release();
  if (mlirLogicalResultIsFailure(status)) {
    auto trim = [](std::string text) {
      size_t begin = text.find_first_not_of(" \n:");
      size_t end = text.find_last_not_of(" \n");
      return begin == std::string::npos ? std::string()
                                        : text.substr(begin, end - begin + 1);
    };
    // Upstream's ValueError text is MLIR's message: keep it first (without
    // surrounding blank lines), and add only after it.
    size_t begin = error.find_first_not_of(" \n");
    size_t end = error.find_last_not_of(" \n");
    std::string message =
        begin == std::string::npos ? "" : error.substr(begin, end - begin + 1);
    if (!trim(printed).empty())
      message += (message.empty() ? "" : ": ") + trim(printed);
    if (message.empty())
      message = "invalid pass pipeline '" + pipeline + "'";
    throw py::value_error(message);
  }
  if (!printed.empty()) // not an error: let it through
    std::fwrite(printed.data(), 1, printed.size(), stderr);
}

class PyPassManager {
public:
  /// `context` is None for a pass manager made from a capsule: the C API
  /// cannot tell its context.
  PyPassManager(MlirPassManager pm, py::object context)
      : pm(pm), context(std::move(context)) {
    if (!mlirPassManagerIsNull(pm))
      owners()[pm.ptr] = this;
  }
  ~PyPassManager() {
    if (!mlirPassManagerIsNull(pm)) {
      owners().erase(pm.ptr);
      mlirPassManagerDestroy(pm);
    }
  }

  /// The PassManager object that owns each live pass manager, so that
  /// _CAPICreate of one hands back its owner rather than a second owner that
  /// would destroy it twice.
  static std::unordered_map<void *, PyPassManager *> &owners() {
    static std::unordered_map<void *, PyPassManager *> owners;
    return owners;
  }
  PyPassManager(const PyPassManager &) = delete;
  PyPassManager &operator=(const PyPassManager &) = delete;

  MlirPassManager get() const {
    if (mlirPassManagerIsNull(pm))
      throw std::runtime_error(
          "the PassManager has been released (_testing_release)");
    return pm;
  }

  /// Gives up ownership of the pass manager (for tests of the capsule API);
  /// _CAPICreate takes its context back from releasedContexts().
  void release() {
    if (!mlirPassManagerIsNull(pm) && !context.is_none())
      releasedContexts()[pm.ptr] = context.inc_ref().ptr();
    owners().erase(pm.ptr);
    pm = MlirPassManager{nullptr};
  }

  /// The context of each released pass manager, a strong reference; raw
  /// pointers, so that nothing Python is destroyed after finalization.
  static std::unordered_map<void *, PyObject *> &releasedContexts() {
    static std::unordered_map<void *, PyObject *> contexts;
    return contexts;
  }

  /// Appends `pipeline` (textual form), raising ValueError with the parser's
  /// message if it is not valid.
  void addPipeline(const std::string &pipeline) {
    parsePipeline(mlirPassManagerGetAsOpPassManager(get()), pipeline,
                  /*append=*/true);
  }

  MlirPassManager pm;
  py::object context;
  /// IR printing at module scope was enabled: it needs multithreading off
  /// while passes run, not only when it was enabled.
  bool printsModuleScope = false;
};

/// Printing flags from upstream's keyword arguments; the caller destroys
/// them.
MlirOpPrintingFlags printingFlags(std::optional<int64_t> largeElementsLimit,
                                  std::optional<int64_t> largeResourceLimit,
                                  bool enableDebugInfo, bool prettyDebugInfo,
                                  bool printGenericOpForm) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (largeElementsLimit) {
    mlirOpPrintingFlagsElideLargeElementsAttrs(flags, *largeElementsLimit);
    // As upstream: the elements limit bounds resources too unless given.
    mlirOpPrintingFlagsElideLargeResourceString(flags, *largeElementsLimit);
  }
  if (largeResourceLimit)
    mlirOpPrintingFlagsElideLargeResourceString(flags, *largeResourceLimit);
  if (enableDebugInfo)
    mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/true,
                                       prettyDebugInfo);
  if (printGenericOpForm)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  return flags;
}

/// Operation.get_asm: the textual form as str, or as bytes when `binary`
/// (upstream's meaning; bytecode is write_bytecode's).
py::object operationAsm(const PyOperation &self, bool binary,
                        std::optional<int64_t> largeElementsLimit,
                        std::optional<int64_t> largeResourceLimit,
                        bool enableDebugInfo, bool prettyDebugInfo,
                        bool printGenericOpForm, bool useLocalScope,
                        bool useNameLocAsPrefix, bool assumeVerified,
                        bool skipRegions) {
  MlirOpPrintingFlags flags =
      printingFlags(largeElementsLimit, largeResourceLimit, enableDebugInfo,
                    prettyDebugInfo, printGenericOpForm);
  if (useLocalScope)
    mlirOpPrintingFlagsUseLocalScope(flags);
  if (useNameLocAsPrefix)
    mlirOpPrintingFlagsPrintNameLocAsPrefix(flags);
  if (assumeVerified)
    mlirOpPrintingFlagsAssumeVerified(flags);
  if (skipRegions)
    mlirOpPrintingFlagsSkipRegions(flags);
  std::string text;
  mlirOperationPrintWithFlags(self.operation, flags, appendToString, &text);
  mlirOpPrintingFlagsDestroy(flags);
  if (binary)
    return py::bytes(text);
  return py::str(text);
}

void bindIR(py::module_ &m) {
  py::enum_<MlirDiagnosticSeverity>(m, "DiagnosticSeverity")
      .value("ERROR", MlirDiagnosticError)
      .value("WARNING", MlirDiagnosticWarning)
      .value("NOTE", MlirDiagnosticNote)
      .value("REMARK", MlirDiagnosticRemark);

  // Registered first, so that signatures mention them by their Python names.
  py::class_<PyContext> contextClass(m, "Context");
  py::class_<PyLocation> locationClass(m, "Location");
  py::class_<PyAttribute> attributeClass(m, "Attribute");
  py::class_<PyOperation> operationClass(m, "Operation");
  py::class_<PyOpAttributeMap> attributeMapClass(m, "OpAttributeMap");
  py::class_<PyNamedAttribute> namedAttributeClass(m, "NamedAttribute");
  py::class_<PyRegion> regionClass(m, "Region");
  py::class_<PyBlock> blockClass(m, "Block");
  py::class_<PyOwnedOperation>(m, "_OwnedOperation");

  //===--------------------------------------------------------------------===//
  // Context.
  //===--------------------------------------------------------------------===//
  contextClass
      .def(py::init(&PyContext::create))
      .def_static("_get_live_count", &PyContext::liveCount)
      .def(
          "_get_live_module_count",
          [](PyContext &self) { return PyModule::liveCount(self.get()); },
          "How many Module objects of this Context are alive.")
      .def(
          "enable_multithreading",
          [](PyContext &self, bool enable) {
            mlirContextEnableMultithreading(self.get(), enable);
            self.multithreading = enable;
          },
          py::arg("enable"),
          "Let passes run on several threads (the default), or not; IR "
          "printing at module scope needs it off.")
      .def_property_readonly_static(
          "current",
          [](py::object) -> py::object {
            if (enteredContexts.empty())
              return py::none();
            return py::reinterpret_borrow<py::object>(enteredContexts.back());
          },
          "The innermost Context entered on this thread, or None.")
      .def("__enter__",
           [](py::object self) { return enter(enteredContexts, self); })
      .def("__exit__",
           [](py::object self, py::args) {
             exit(enteredContexts, self, "Context");
           })
      .def_property(
          "allow_unregistered_dialects",
          [](PyContext &self) {
            return mlirContextGetAllowUnregisteredDialects(self.get());
          },
          [](PyContext &self, bool allow) {
            mlirContextSetAllowUnregisteredDialects(self.get(), allow);
          })
      .def_property_readonly(
          "_CAPIPtr",
          [](PyContext &self) {
            return py::reinterpret_steal<py::object>(
                mlirPythonContextToCapsule(self.get()));
          })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirContext context = mlirPythonCapsuleToContext(capsule.ptr());
            if (mlirContextIsNull(context)) {
              PyErr_Clear();
              throw py::type_error("expected a Context capsule");
            }
            return PyContext::wrap(context);
          },
          py::arg("capsule"));

  //===--------------------------------------------------------------------===//
  // Location.
  //===--------------------------------------------------------------------===//
  locationClass
      .def_static(
          "unknown",
          [](py::object context) {
            context = resolveContext(context);
            return PyLocation{mlirLocationUnknownGet(contextOf(context)),
                              context};
          },
          py::arg("context") = py::none())
      .def_static(
          "file",
          [](const std::string &filename, unsigned line, unsigned column,
             py::object context) {
            context = resolveContext(context);
            return PyLocation{
                mlirLocationFileLineColGet(contextOf(context),
                                           toStringRef(filename), line, column),
                context};
          },
          py::arg("filename"), py::arg("line"), py::arg("col"),
          py::arg("context") = py::none())
      .def_property_readonly_static(
          "current",
          [](py::object) -> py::object {
            if (enteredLocations.empty())
              return py::none();
            return py::reinterpret_borrow<py::object>(enteredLocations.back());
          },
          "The innermost Location entered on this thread, or None.")
      .def("__enter__",
           [](py::object self) {
             // Entering a location also makes its context current.
             enter(enteredContexts, self.cast<PyLocation &>().context);
             return enter(enteredLocations, self);
           })
      .def("__exit__",
           [](py::object self, py::args) {
             exit(enteredLocations, self, "Location");
             exit(enteredContexts, self.cast<PyLocation &>().context,
                  "Context");
           })
      .def_property_readonly("context",
                             [](PyLocation &self) { return self.context; })
      .def("__str__", [](PyLocation &self) {
        return printToString(mlirLocationPrint, self.location);
      });

  py::class_<PyDiagnosticInfo>(m, "DiagnosticInfo")
      .def_readonly("severity", &PyDiagnosticInfo::severity)
      .def_readonly("location", &PyDiagnosticInfo::location)
      .def_readonly("message", &PyDiagnosticInfo::message)
      .def_readonly("notes", &PyDiagnosticInfo::notes)
      .def("__str__", [](PyDiagnosticInfo &self) { return self.message; });

  // MLIRError(message, error_diagnostics): an exception whose text lists the
  // diagnostics, as upstream's.
  py::dict scope;
  py::exec(R"py(
class MLIRError(Exception):
    """An MLIR failure, with the error diagnostics that explain it."""

    def __init__(self, message, error_diagnostics):
        super().__init__(message, error_diagnostics)
        self.message = message
        self.error_diagnostics = error_diagnostics

    def __str__(self):
        def describe(diagnostic):
            # As upstream: `"file":1:2`, not `loc("file":1:2)`; continuation
            # lines indented.
            location = str(diagnostic.location)
            if location.startswith("loc(") and location.endswith(")"):
                location = location[4:-1]
            return location + ": " + diagnostic.message.replace("\n", "\n  ")

        text = self.message
        if self.error_diagnostics:
            text += ":"
        for diagnostic in self.error_diagnostics:
            text += "\nerror: " + describe(diagnostic)
            for note in diagnostic.notes:
                text += "\n note: " + describe(note)
        return text
)py",
           scope);
  py::object errorClass = scope["MLIRError"];
  errorClass.attr("__module__") = m.attr("__name__");
  m.attr("MLIRError") = errorClass;
  mlirErrorClass = errorClass.release().ptr();

  //===--------------------------------------------------------------------===//
  // Types.
  //===--------------------------------------------------------------------===//
  py::class_<PyType>(m, "Type")
      .def(py::init([](const PyType &type) { return type; }),
           py::arg("cast_from_type"))
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            MlirType type =
                parseOrRaise(context, asm_, mlirTypeParseGet, mlirTypeIsNull,
                             "Unable to parse type: '" + asm_ + "'");
            return wrapType(type, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_property_readonly("context",
                             [](PyType &self) { return self.context; })
      .def("__eq__",
           [](PyType &self, py::object other) {
             return py::isinstance<PyType>(other) &&
                    mlirTypeEqual(self.type, other.cast<PyType &>().type);
           })
      .def("__hash__",
           [](PyType &self) { return reinterpret_cast<intptr_t>(self.type.ptr); })
      .def("maybe_downcast",
           [](PyType &self) { return wrapType(self.type, self.context); })
      .def("__str__",
           [](PyType &self) { return printToString(mlirTypePrint, self.type); })
      .def("__repr__",
           [](py::object self) {
             return std::string(py::str(py::type::handle_of(self).attr(
                        "__name__"))) +
                    "(" + printToString(mlirTypePrint,
                                        self.cast<PyType &>().type) +
                    ")";
           })
      .def_property_readonly(
          "_CAPIPtr", [](PyType &self) {
            return py::reinterpret_steal<py::object>(
                mlirPythonTypeToCapsule(self.type));
          });

  bindTypeSubclass<PyIntegerType>(m, "IntegerType", mlirTypeIsAInteger)
      .def_static(
          "get_signless",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{
                {mlirIntegerTypeGet(contextOf(context), width), context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_static(
          "get_signed",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{
                {mlirIntegerTypeSignedGet(contextOf(context), width), context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_static(
          "get_unsigned",
          [](unsigned width, py::object context) {
            checkIntegerWidth(width);
            context = resolveContext(context);
            return PyIntegerType{{mlirIntegerTypeUnsignedGet(
                                      contextOf(context), width),
                                  context}};
          },
          py::arg("width"), py::arg("context") = py::none())
      .def_property_readonly("width",
                             [](PyType &self) {
                               return mlirIntegerTypeGetWidth(self.type);
                             })
      .def_property_readonly("is_signless",
                             [](PyType &self) {
                               return mlirIntegerTypeIsSignless(self.type);
                             })
      .def_property_readonly("is_signed",
                             [](PyType &self) {
                               return mlirIntegerTypeIsSigned(self.type);
                             })
      .def_property_readonly("is_unsigned", [](PyType &self) {
        return mlirIntegerTypeIsUnsigned(self.type);
      });
  bindSimpleType<PyIndexType>(m, "IndexType", mlirTypeIsAIndex,
                              mlirIndexTypeGet);
  bindSimpleType<PyF16Type>(m, "F16Type", mlirTypeIsAF16, mlirF16TypeGet);
  bindSimpleType<PyBF16Type>(m, "BF16Type", mlirTypeIsABF16, mlirBF16TypeGet);
  bindSimpleType<PyF32Type>(m, "F32Type", mlirTypeIsAF32, mlirF32TypeGet);
  bindSimpleType<PyF64Type>(m, "F64Type", mlirTypeIsAF64, mlirF64TypeGet);

  bindTypeSubclass<PyComplexType>(m, "ComplexType", mlirTypeIsAComplex)
      .def_static(
          "get",
          [](const PyType &elementType) {
            if (!mlirTypeIsAInteger(elementType.type) &&
                !mlirTypeIsAFloat(elementType.type))
              throw py::value_error(
                  "invalid element type for ComplexType: expected integer or "
                  "floating point, got " +
                  printToString(mlirTypePrint, elementType.type));
            return PyComplexType{
                {mlirComplexTypeGet(elementType.type), elementType.context}};
          },
          py::arg("element_type"))
      .def_property_readonly("element_type", [](PyType &self) {
        return wrapType(mlirComplexTypeGetElementType(self.type), self.context);
      });

  bindTypeSubclass<PyMemRefType>(m, "MemRefType", mlirTypeIsAMemRef)
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object layout, py::object memorySpace, py::object loc) {
            PyLocation location = resolveLocation(loc);
            MlirContext context = contextOf(elementType.context);
            requireSameContext(context, mlirLocationGetContext(location.location),
                               "the location");
            for (py::handle attribute : {layout, memorySpace})
              if (!attribute.is_none())
                requireSameContext(
                    context,
                    mlirAttributeGetContext(attribute.cast<PyAttribute &>().attribute),
                    "the layout or memory space");
            ErrorCapture errors(elementType.context);
            MlirType type = mlirMemRefTypeGetChecked(
                location.location, elementType.type, shape.size(),
                shape.data(), optionalAttribute(layout),
                optionalAttribute(memorySpace));
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyMemRefType{{type, elementType.context}};
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("layout") = py::none(), py::arg("memory_space") = py::none(),
          py::arg("loc") = py::none())
      .def_property_readonly(
          "element_type",
          [](PyType &self) {
            return wrapType(mlirShapedTypeGetElementType(self.type),
                            self.context);
          })
      .def_property_readonly(
          "rank", [](PyType &self) { return mlirShapedTypeGetRank(self.type); })
      .def_property_readonly("shape",
                             [](PyType &self) { return memrefShape(self.type); })
      .def_property_readonly("has_static_shape",
                             [](PyType &self) {
                               return mlirShapedTypeHasStaticShape(self.type);
                             })
      .def_static("get_dynamic_size", &mlirShapedTypeGetDynamicSize)
      .def_static("get_dynamic_stride_or_offset",
                  &mlirShapedTypeGetDynamicStrideOrOffset)
      .def(
          "get_strides_and_offset",
          [](PyType &self) {
            std::vector<int64_t> strides(mlirShapedTypeGetRank(self.type));
            int64_t offset = 0;
            if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(
                    self.type, strides.data(), &offset)))
              throw py::value_error(
                  "the layout of " + printToString(mlirTypePrint, self.type) +
                  " is not strided");
            return py::make_tuple(strides, offset);
          })
      .def_property_readonly("layout", [](PyType &self) {
        return wrapAttribute(mlirMemRefTypeGetLayout(self.type), self.context);
      });

  bindTypeSubclass<PyUnrankedMemRefType>(m, "UnrankedMemRefType",
                                         mlirTypeIsAUnrankedMemRef)
      .def_static(
          "get",
          [](const PyType &elementType, py::object memorySpace,
             py::object loc) {
            PyLocation location = resolveLocation(loc);
            MlirContext context = contextOf(elementType.context);
            requireSameContext(context, mlirLocationGetContext(location.location),
                               "the location");
            if (!memorySpace.is_none())
              requireSameContext(
                  context,
                  mlirAttributeGetContext(
                      memorySpace.cast<PyAttribute &>().attribute),
                  "the memory space");
            ErrorCapture errors(elementType.context);
            MlirType type = mlirUnrankedMemRefTypeGetChecked(
                location.location, elementType.type,
                optionalAttribute(memorySpace));
            if (mlirTypeIsNull(type))
              errors.raise("Invalid type");
            return PyUnrankedMemRefType{{type, elementType.context}};
          },
          py::arg("element_type"), py::arg("memory_space") = py::none(),
          py::arg("loc") = py::none())
      .def_property_readonly("element_type", [](PyType &self) {
        return wrapType(mlirShapedTypeGetElementType(self.type), self.context);
      });

  bindTypeSubclass<PyFunctionType>(m, "FunctionType", mlirTypeIsAFunction)
      .def_static(
          "get",
          [](std::vector<PyType> inputs, std::vector<PyType> results,
             py::object context) {
            context = resolveContext(context);
            std::vector<MlirType> in, out;
            for (PyType &t : inputs) {
              requireSameContext(contextOf(context), mlirTypeGetContext(t.type),
                                 "input type " +
                                     printToString(mlirTypePrint, t.type));
              in.push_back(t.type);
            }
            for (PyType &t : results) {
              requireSameContext(contextOf(context), mlirTypeGetContext(t.type),
                                 "result type " +
                                     printToString(mlirTypePrint, t.type));
              out.push_back(t.type);
            }
            return PyFunctionType{{mlirFunctionTypeGet(contextOf(context),
                                                       in.size(), in.data(),
                                                       out.size(), out.data()),
                                   context}};
          },
          py::arg("inputs"), py::arg("results"), py::arg("context") = py::none())
      .def_property_readonly(
          "inputs",
          [](PyType &self) {
            py::list inputs;
            for (intptr_t i = 0, e = mlirFunctionTypeGetNumInputs(self.type);
                 i < e; ++i)
              inputs.append(wrapType(mlirFunctionTypeGetInput(self.type, i),
                                     self.context));
            return inputs;
          })
      .def_property_readonly("results", [](PyType &self) {
        py::list results;
        for (intptr_t i = 0, e = mlirFunctionTypeGetNumResults(self.type);
             i < e; ++i)
          results.append(
              wrapType(mlirFunctionTypeGetResult(self.type, i), self.context));
        return results;
      });

  //===--------------------------------------------------------------------===//
  // Attributes.
  //===--------------------------------------------------------------------===//
  attributeClass
      .def(py::init([](const PyAttribute &attribute) { return attribute; }),
           py::arg("cast_from_attr"))
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            MlirAttribute attribute = parseOrRaise(
                context, asm_, mlirAttributeParseGet, mlirAttributeIsNull,
                "Unable to parse attribute: '" + asm_ + "'");
            return wrapAttribute(attribute, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_property_readonly("context",
                             [](PyAttribute &self) { return self.context; })
      .def_property_readonly("type",
                             [](PyAttribute &self) {
                               return wrapType(
                                   mlirAttributeGetType(self.attribute),
                                   self.context);
                             })
      .def("__eq__",
           [](PyAttribute &self, py::object other) {
             return py::isinstance<PyAttribute>(other) &&
                    mlirAttributeEqual(self.attribute,
                                       other.cast<PyAttribute &>().attribute);
           })
      .def("__hash__",
           [](PyAttribute &self) {
             return reinterpret_cast<intptr_t>(self.attribute.ptr);
           })
      .def("__str__", [](PyAttribute &self) {
        return printToString(mlirAttributePrint, self.attribute);
      });

  bindAttributeSubclass<PyTypeAttr>(m, "TypeAttr", mlirAttributeIsAType)
      .def_static(
          "get",
          [](const PyType &type, py::object context) {
            return PyTypeAttr{{mlirTypeAttrGet(type.type), type.context}};
          },
          py::arg("value"), py::arg("context") = py::none())
      .def_property_readonly("value", [](PyAttribute &self) {
        return wrapType(mlirTypeAttrGetValue(self.attribute), self.context);
      });

  bindAttributeSubclass<PyStringAttr>(m, "StringAttr", mlirAttributeIsAString)
      .def_static(
          "get",
          [](const std::string &value, py::object context) {
            context = resolveContext(context);
            return PyStringAttr{
                {mlirStringAttrGet(contextOf(context), toStringRef(value)),
                 context}};
          },
          py::arg("value"), py::arg("context") = py::none())
      .def_property_readonly("value", [](PyAttribute &self) {
        MlirStringRef value = mlirStringAttrGetValue(self.attribute);
        return std::string(value.data, value.length);
      });

  bindAttributeSubclass<PyUnitAttr>(m, "UnitAttr", mlirAttributeIsAUnit)
      .def_static(
          "get",
          [](py::object context) {
            context = resolveContext(context);
            return PyUnitAttr{{mlirUnitAttrGet(contextOf(context)), context}};
          },
          py::arg("context") = py::none());

  //===--------------------------------------------------------------------===//
  // Module, Operation, Region, Block.
  //===--------------------------------------------------------------------===//
  py::class_<PyModule>(m, "Module")
      .def_static(
          "parse",
          // str is text; bytes is text or MLIR bytecode.
          [](const std::string &asm_, py::object context) {
            MlirModule module =
                parseOrRaise(context, asm_, mlirModuleCreateParse,
                             mlirModuleIsNull, "Unable to parse module assembly");
            return new PyModule(module, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_static(
          "parseFile",
          [](const std::string &path, py::object context) {
            context = resolveContext(context);
            // Read it once here only to refuse nesting MLIR's parser cannot
            // recurse through; MLIR reads it again, naming locations after
            // the file, and reports a file it cannot open as a diagnostic.
            std::ifstream file(path, std::ios::binary);
            if (file) {
              std::stringstream text;
              text << file.rdbuf();
              checkNesting(text.str());
            }
            ErrorCapture errors(context);
            MlirModule module = mlirModuleCreateParseFromFile(
                contextOf(context), toStringRef(path));
            if (mlirModuleIsNull(module))
              errors.raise("Unable to parse module assembly");
            return new PyModule(module, context);
          },
          py::arg("path"), py::arg("context") = py::none())
      .def_static(
          "create",
          [](py::object loc) {
            PyLocation location = resolveLocation(loc);
            return new PyModule(mlirModuleCreateEmpty(location.location),
                                location.context);
          },
          py::arg("loc") = py::none())
      .def_property_readonly("context",
                             [](PyModule &self) { return self.context; })
      .def_property_readonly(
          "operation",
          [](py::object self) {
            return PyOperation{
                mlirModuleGetOperation(self.cast<PyModule &>().module), self};
          })
      .def_property_readonly(
          "body",
          [](py::object self) {
            return PyBlock{mlirModuleGetBody(self.cast<PyModule &>().module),
                           self};
          })
      .def("dump",
           [](PyModule &self) {
             mlirOperationDump(mlirModuleGetOperation(self.module));
           })
      .def("__str__",
           [](PyModule &self) {
             return printToString(mlirOperationPrint,
                                  mlirModuleGetOperation(self.module));
           })
      .def_property_readonly(
          "_CAPIPtr",
          [](PyModule &self) {
            return py::reinterpret_steal<py::object>(
                mlirPythonModuleToCapsule(self.module));
          })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirModule module = mlirPythonCapsuleToModule(capsule.ptr());
            if (mlirModuleIsNull(module)) {
              PyErr_Clear();
              throw py::type_error("expected a Module capsule");
            }
            return PyModule::wrap(module);
          },
          py::arg("capsule"),
          "The Module in `capsule`: the live Python object if there is one, "
          "else a new one that takes ownership of the module.");

  operationClass
      .def_static(
          "parse",
          [](const std::string &source, const std::string &sourceName,
             py::object context) {
            context = resolveContext(context);
            checkNesting(source);
            ErrorCapture errors(context);
            MlirOperation op = mlirOperationCreateParse(
                contextOf(context), toStringRef(source),
                toStringRef(sourceName));
            if (mlirOperationIsNull(op))
              errors.raise("Unable to parse operation assembly");
            py::object owner =
                py::cast(new PyOwnedOperation(op, context),
                         py::return_value_policy::take_ownership);
            return PyOperation{op, owner};
          },
          py::arg("source"), py::kw_only(), py::arg("source_name") = "",
          py::arg("context") = py::none(),
          "Parse one operation, from text (str or bytes) or MLIR bytecode "
          "(bytes); raises MLIRError with the diagnostics.")
      .def("get_asm", &operationAsm, py::arg("binary") = false,
           py::arg("large_elements_limit") = py::none(),
           py::arg("large_resource_limit") = py::none(),
           py::arg("enable_debug_info") = false,
           py::arg("pretty_debug_info") = false,
           py::arg("print_generic_op_form") = false,
           py::arg("use_local_scope") = false,
           py::arg("use_name_loc_as_prefix") = false,
           py::arg("assume_verified") = false,
           py::arg("skip_regions") = false,
           "The textual form: a str, or bytes if `binary`.")
      .def(
          "write_bytecode",
          [](PyOperation &self, py::object file,
             std::optional<int64_t> desiredVersion) {
            std::string data;
            if (!desiredVersion) {
              mlirOperationWriteBytecode(self.operation, appendToString, &data);
            } else {
              // The writer reports an unsupported version as a diagnostic.
              ErrorCapture errors(contextOfOperation(self.operation));
              MlirBytecodeWriterConfig config =
                  mlirBytecodeWriterConfigCreate();
              mlirBytecodeWriterConfigDesiredEmitVersion(config,
                                                         *desiredVersion);
              MlirLogicalResult result = mlirOperationWriteBytecodeWithConfig(
                  self.operation, config, appendToString, &data);
              mlirBytecodeWriterConfigDestroy(config);
              if (mlirLogicalResultIsFailure(result)) {
                std::string reason = errors.messages();
                throw py::value_error(
                    "Unable to honor desired bytecode version " +
                    std::to_string(*desiredVersion) +
                    (reason.empty() ? "" : ": " + reason));
              }
            }
            file.attr("write")(py::bytes(data));
          },
          py::arg("file"), py::arg("desired_version") = py::none(),
          "Write the MLIR bytecode of the operation to `file`, a binary file "
          "object; raises ValueError if `desired_version` is unsupported.")
      .def_property_readonly("name",
                             [](PyOperation &self) {
                               return operationName(self.operation);
                             })
      // Upstream's `op.operation is op`.
      .def_property_readonly("operation",
                             [](py::object self) { return self; })
      .def_property_readonly("context",
                             [](PyOperation &self) {
                               return contextOfOperation(self.operation);
                             })
      .def_property_readonly(
          "attributes",
          [](PyOperation &self) { return PyOpAttributeMap{self}; })
      .def_property_readonly(
          "regions",
          [](PyOperation &self) {
            std::vector<PyRegion> regions;
            for (intptr_t i = 0, e = mlirOperationGetNumRegions(self.operation);
                 i < e; ++i)
              regions.push_back(
                  PyRegion{mlirOperationGetRegion(self.operation, i),
                           self.owner});
            return regions;
          })
      .def("verify",
           [](PyOperation &self) {
             ErrorCapture errors(contextOfOperation(self.operation));
             if (!mlirOperationVerify(self.operation))
               errors.raise("Verification failed");
             return true;
           })
      .def("__str__", [](PyOperation &self) {
        return printToString(mlirOperationPrint, self.operation);
      });

  attributeMapClass
      .def("__getitem__", &operationAttribute, py::arg("name"))
      .def(
          "__getitem__",
          [](PyOpAttributeMap &self, intptr_t index) {
            MlirOperation op = self.op.operation;
            if (index < 0)
              index += mlirOperationGetNumAttributes(op);
            if (index < 0 || index >= mlirOperationGetNumAttributes(op))
              throw py::index_error("attribute index out of range");
            return namedAttribute(op, index);
          },
          py::arg("index"))
      .def(
          "__setitem__",
          [](PyOpAttributeMap &self, const std::string &name,
             const PyAttribute &attribute) {
            MlirOperation op = self.op.operation;
            MlirStringRef key = toStringRef(name);
            requireSameContext(mlirOperationGetContext(op),
                               mlirAttributeGetContext(attribute.attribute),
                               "the attribute");
            if (!mlirOperationHasInherentAttributeByName(op, key)) {
              mlirOperationSetDiscardableAttributeByName(op, key,
                                                         attribute.attribute);
              return;
            }
            // A property keeps only attributes of its own kind: check it took
            // this one, or the operation is left with an invalid property.
            MlirAttribute previous =
                mlirOperationGetInherentAttributeByName(op, key);
            mlirOperationSetInherentAttributeByName(op, key,
                                                    attribute.attribute);
            if (mlirAttributeEqual(
                    mlirOperationGetInherentAttributeByName(op, key),
                    attribute.attribute))
              return;
            if (!mlirAttributeIsNull(previous))
              mlirOperationSetInherentAttributeByName(op, key, previous);
            throw py::value_error(
                "cannot set '" + name + "' of '" + operationName(op) +
                "' to " + printToString(mlirAttributePrint, attribute.attribute) +
                ": the operation's inherent attribute is of another kind");
          },
          py::arg("name"), py::arg("attr"))
      .def(
          "__delitem__",
          [](PyOpAttributeMap &self, const std::string &name) {
            MlirOperation op = self.op.operation;
            if (mlirOperationHasInherentAttributeByName(op, toStringRef(name)))
              throw py::value_error(
                  "cannot delete '" + name + "': it is an inherent attribute "
                  "of '" + operationName(op) + "' (set it instead)");
            if (!mlirOperationRemoveDiscardableAttributeByName(
                    op, toStringRef(name)))
              throw py::key_error("operation '" +
                                  operationName(self.op.operation) +
                                  "' has no attribute '" + name + "'");
          },
          py::arg("name"))
      .def(
          "__contains__",
          [](PyOpAttributeMap &self, const std::string &name) {
            return !mlirAttributeIsNull(mlirOperationGetAttributeByName(
                self.op.operation, toStringRef(name)));
          },
          py::arg("name"))
      .def("__len__",
           [](PyOpAttributeMap &self) {
             return mlirOperationGetNumAttributes(self.op.operation);
           })
      .def("__iter__", [](PyOpAttributeMap &self) {
        MlirOperation op = self.op.operation;
        py::list named;
        for (intptr_t i = 0, e = mlirOperationGetNumAttributes(op); i < e;
             ++i)
          named.append(namedAttribute(op, i));
        return py::iter(named);
      });

  namedAttributeClass
      .def_readonly("name", &PyNamedAttribute::name)
      .def_readonly("attr", &PyNamedAttribute::attr)
      .def("__repr__", [](PyNamedAttribute &self) {
        return "NamedAttribute(" + self.name + "=" +
               std::string(py::str(self.attr)) + ")";
      });

  regionClass
      .def_property_readonly("blocks", &regionBlocks)
      .def("__iter__", [](PyRegion &self) {
        return py::iter(py::cast(regionBlocks(self)));
      });

  blockClass
      .def_property_readonly("operations", &blockOperations)
      .def("__iter__",
           [](PyBlock &self) {
             return py::iter(py::cast(blockOperations(self)));
           })
      .def("__str__", [](PyBlock &self) {
        return printToString(mlirBlockPrint, self.block);
      });
}

void bindPassManager(py::module_ &m) {
  py::class_<PyPassManager>(m, "PassManager")
      .def(py::init([](const std::string &anchorOp, py::object context) {
             context = resolveContext(context);
             return new PyPassManager(
                 mlirPassManagerCreateOnOperation(contextOf(context),
                                                  toStringRef(anchorOp)),
                 context);
           }),
           py::arg("anchor_op") = "any", py::arg("context") = py::none())
      .def_static(
          "parse",
          [](const std::string &pipeline, py::object context) {
            context = resolveContext(context);
            auto pm = std::make_unique<PyPassManager>(
                mlirPassManagerCreate(contextOf(context)), context);
            parsePipeline(mlirPassManagerGetAsOpPassManager(pm->get()),
                          pipeline, /*append=*/false);
            return pm.release();
          },
          py::arg("pipeline"), py::arg("context") = py::none())
      .def("add", &PyPassManager::addPipeline, py::arg("pipeline"))
      .def(
          "enable_verifier",
          [](PyPassManager &self, bool enable) {
            mlirPassManagerEnableVerifier(self.get(), enable);
          },
          py::arg("enable"))
      .def(
          "enable_ir_printing",
          [](PyPassManager &self, bool printBeforeAll, bool printAfterAll,
             bool printModuleScope, bool printAfterChange,
             bool printAfterFailure, std::optional<int64_t> largeElementsLimit,
             std::optional<int64_t> largeResourceLimit, bool enableDebugInfo,
             bool printGenericOpForm,
             std::optional<std::string> treePrintingDirPath) {
            MlirPassManager pm = self.get();
            // MLIR aborts the process when module-scope printing is set up
            // on a context that may run passes on several threads.
            if (printModuleScope &&
                (self.context.is_none() ||
                 self.context.cast<PyContext &>().multithreading))
              throw py::value_error(
                  "print_module_scope=True needs multithreading disabled on "
                  "the PassManager's Context: call "
                  "context.enable_multithreading(False) first");
            // MLIR only prints to stderr when it cannot write the tree.
            std::string treePath = treePrintingDirPath.value_or("");
            if (!treePath.empty()) {
              std::error_code error;
              std::filesystem::create_directories(treePath, error);
              if (error || !std::filesystem::is_directory(treePath))
                throw py::value_error(
                    "cannot use tree_printing_dir_path '" + treePath + "': " +
                    (error ? error.message() : "not a directory"));
            }
            MlirOpPrintingFlags flags =
                printingFlags(largeElementsLimit, largeResourceLimit,
                              enableDebugInfo, /*prettyDebugInfo=*/false,
                              printGenericOpForm);
            self.printsModuleScope = printModuleScope;
            mlirPassManagerEnableIRPrinting(
                pm, printBeforeAll, printAfterAll, printModuleScope,
                printAfterChange, printAfterFailure, flags,
                toStringRef(treePath));
            mlirOpPrintingFlagsDestroy(flags);
          },
          py::arg("print_before_all") = false,
          py::arg("print_after_all") = true,
          py::arg("print_module_scope") = false,
          py::arg("print_after_change") = false,
          py::arg("print_after_failure") = false,
          py::arg("large_elements_limit") = py::none(),
          py::arg("large_resource_limit") = py::none(),
          py::arg("enable_debug_info") = false,
          py::arg("print_generic_op_form") = false,
          py::arg("tree_printing_dir_path") = py::none(),
          "Print the IR around passes, to stderr or to files under "
          "`tree_printing_dir_path`; by default after every pass.")
      .def(
          "run",
          [](PyPassManager &self, py::object target) {
            MlirPassManager pm = self.get();
            if (self.printsModuleScope &&
                self.context.cast<PyContext &>().multithreading)
              throw py::value_error(
                  "IR printing at module scope needs multithreading disabled "
                  "while passes run: call "
                  "context.enable_multithreading(False) again");
            PyOperation op = toOperation(target);
            if (!self.context.is_none() &&
                !mlirContextEqual(mlirOperationGetContext(op.operation),
                                  contextOf(self.context)))
              throw py::value_error("the operation belongs to another Context "
                                    "than the PassManager");
            ErrorCapture errors(contextOfOperation(op.operation));
            if (mlirLogicalResultIsFailure(
                    mlirPassManagerRunOnOp(pm, op.operation)))
              errors.raise("Failure while executing pass pipeline");
          },
          py::arg("operation"))
      .def("__str__",
           [](PyPassManager &self) {
             return printToString(
                 mlirPrintPassPipeline,
                 mlirPassManagerGetAsOpPassManager(self.get()));
           })
      .def_property_readonly("_CAPIPtr",
                             [](PyPassManager &self) {
                               return py::reinterpret_steal<py::object>(
                                   mlirPythonPassManagerToCapsule(self.get()));
                             })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirPassManager pm = mlirPythonCapsuleToPassManager(capsule.ptr());
            if (mlirPassManagerIsNull(pm)) {
              PyErr_Clear();
              throw py::type_error("expected a PassManager capsule");
            }
            // Still owned by a PassManager of ours: that one.
            auto owner = PyPassManager::owners().find(pm.ptr);
            if (owner != PyPassManager::owners().end())
              return py::cast(owner->second);
            // Its context, if it was released by a PassManager of ours.
            py::object context = py::none();
            auto it = PyPassManager::releasedContexts().find(pm.ptr);
            if (it != PyPassManager::releasedContexts().end()) {
              context = py::reinterpret_steal<py::object>(it->second);
              PyPassManager::releasedContexts().erase(it);
            }
            return py::cast(new PyPassManager(pm, context),
                            py::return_value_policy::take_ownership);
          },
          py::arg("capsule"),
          "The PassManager of the pass manager in `capsule`: its owner if "
          "it has one here, else a new owner (its previous owner must have "
          "released it).")
      .def("_testing_release", &PyPassManager::release,
           "Release the pass manager without destroying it (for testing).");
}

} // namespace

PYBIND11_MODULE(_mlir, m) {
  m.doc() = "MLIR IR and pass manager bindings over the MLIR C API";
  registerUtf8SafeExceptions();
  mlirRegisterAllPasses();
  py::module_ ir = m.def_submodule("ir", "MLIR IR");
  bindIR(ir);
  py::module_ passmanager = m.def_submodule("passmanager", "MLIR pass manager");
  bindPassManager(passmanager);
}
