//===- IRCore.cpp - Context, Location, Module, Operation ------------------===//
//
// The core of `_mlir.ir`: contexts and the thread's stack of entered ones,
// locations, diagnostics and MLIRError, modules, operations, regions and
// blocks.
//
//===----------------------------------------------------------------------===//

#include "IRModule.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/RegisterEverything.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::python;

namespace {

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

} // namespace

//===----------------------------------------------------------------------===//
// Context and Location.
//===----------------------------------------------------------------------===//

PyMlirContext *PyMlirContext::create() {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(context);
  return new PyMlirContext(context);
}

py::object mlir::python::resolveContext(py::object context) {
  if (!context.is_none()) {
    if (!py::isinstance<PyMlirContext>(context))
      throw py::type_error("expected a Context, got " +
                           std::string(py::str(py::type::handle_of(context))));
    return context;
  }
  if (enteredContexts.empty())
    throw py::value_error("no current Context: pass context=... or use "
                          "`with Context():`");
  return py::reinterpret_borrow<py::object>(enteredContexts.back());
}

void mlir::python::requireSameContext(MlirContext expected, MlirContext actual,
                                      const std::string &what) {
  if (!mlirContextEqual(expected, actual))
    throw py::value_error(what + " belongs to another Context");
}

void mlir::python::checkNesting(const std::string &text) {
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

PyLocation mlir::python::resolveLocation(py::object location) {
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

namespace {

RawDiagnostic toRawDiagnostic(MlirDiagnostic diagnostic) {
  RawDiagnostic raw{mlirDiagnosticGetSeverity(diagnostic),
                    mlirDiagnosticGetLocation(diagnostic),
                    printToString(mlirDiagnosticPrint, diagnostic),
                    {}};
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    raw.notes.push_back(toRawDiagnostic(mlirDiagnosticGetNote(diagnostic, i)));
  return raw;
}

PyDiagnosticInfo toDiagnosticInfo(const RawDiagnostic &raw,
                                  const py::object &context) {
  PyDiagnosticInfo info{
      raw.severity, PyLocation{raw.location, context}, raw.message, {}};
  for (const RawDiagnostic &note : raw.notes)
    info.notes.push_back(toDiagnosticInfo(note, context));
  return info;
}

/// The MLIRError class; never released, so that nothing Python is destroyed
/// after the interpreter has finalized.
PyObject *mlirErrorClass = nullptr;

} // namespace

void ErrorCapture::raise(const std::string &message) {
  std::vector<PyDiagnosticInfo> infos;
  for (const RawDiagnostic &raw : errors)
    infos.push_back(toDiagnosticInfo(raw, context));
  py::object error =
      py::handle(mlirErrorClass)(toPyStrLossless(message), py::cast(infos));
  PyErr_SetObject(mlirErrorClass, error.ptr());
  throw py::error_already_set();
}

MlirLogicalResult ErrorCapture::handle(MlirDiagnostic diagnostic,
                                       void *userData) {
  auto *self = static_cast<ErrorCapture *>(userData);
  if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
    return mlirLogicalResultFailure(); // not ours: let it through
  self->errors.push_back(toRawDiagnostic(diagnostic));
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Module, Operation, Region, Block.
//===----------------------------------------------------------------------===//

namespace {

/// Runs `destroy` (destroying `op`, which recurses on how deeply it nests)
/// on a stack deep enough for it. In a destructor: if no such stack can be
/// had, the IR is leaked rather than the process crashed.
void destroyOnStack(MlirOperation op, const std::function<void()> &destroy) {
  try {
    runOnStackFor(op, "destroy", destroy);
  } catch (...) {
    PyErr_Clear();
  }
}

class PyModule {
public:
  PyModule(MlirModule module, py::object context)
      : module(module), context(std::move(context)),
        root{mlirModuleGetOperation(module), /*isModule=*/true} {
    liveModules()[module.ptr] = this;
  }
  ~PyModule() {
    liveModules().erase(module.ptr);
    *alive = false;
    destroyOnStack(mlirModuleGetOperation(module),
                   [&] { mlirModuleDestroy(module); });
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
        new PyModule(module, PyMlirContext::wrap(mlirModuleGetContext(module))),
        py::return_value_policy::take_ownership);
  }

  /// How many Module objects of `context` are alive.
  static size_t liveCount(MlirContext context) {
    size_t count = 0;
    for (auto &entry : liveModules())
      count +=
          mlirContextEqual(mlirModuleGetContext(entry.second->module), context);
    return count;
  }

  MlirModule module;
  py::object context;
  /// Counts pass runs on the module, for the handles into it.
  PyIRRoot root;
  /// False once the module is destroyed: its capsules carry it.
  LivenessFlag alive = newLivenessFlag();

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
      : root{operation, /*isModule=*/false}, operation(operation),
        context(std::move(context)) {}
  ~PyOwnedOperation() {
    destroyOnStack(operation, [&] { mlirOperationDestroy(operation); });
  }
  PyOwnedOperation(const PyOwnedOperation &) = delete;
  PyOwnedOperation &operator=(const PyOwnedOperation &) = delete;

  /// Counts pass runs on the operation, for the handles into it.
  PyIRRoot root;

private:
  MlirOperation operation;
  py::object context; // destroyed after the operation
};

/// A region; `stable` if it is a region of the root, which no pass run
/// erases.
struct PyRegion {
  MlirRegion get() const {
    checkFresh(root, generation, stable, "Region");
    return raw;
  }

  MlirRegion raw;
  py::object owner;
  PyIRRoot *root;
  uint64_t generation;
  bool stable;
};

/// A block; `stable` if it is a module's body, which no pass run erases.
struct PyBlock {
  MlirBlock get() const {
    checkFresh(root, generation, stable, "Block");
    return raw;
  }

  MlirBlock raw;
  py::object owner;
  PyIRRoot *root;
  uint64_t generation;
  bool stable;
};

std::vector<PyOperation> blockOperations(const PyBlock &block) {
  std::vector<PyOperation> operations;
  for (MlirOperation op = mlirBlockGetFirstOperation(block.get());
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    operations.emplace_back(op, block.owner, block.root);
  return operations;
}

std::vector<PyBlock> regionBlocks(const PyRegion &region) {
  std::vector<PyBlock> blocks;
  // A module's region has its body as its one block.
  bool stable = region.stable && region.root->isModule;
  for (MlirBlock block = mlirRegionGetFirstBlock(region.get());
       !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block))
    blocks.push_back(PyBlock{block, region.owner, region.root,
                             region.root ? region.root->generation : 0,
                             stable});
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
      mlirOperationGetAttributeByName(op.get(), toStringRef(name));
  if (mlirAttributeIsNull(attribute))
    throw py::key_error("operation '" + operationName(op.get()) +
                        "' has no attribute '" + name + "'");
  return wrapAttribute(attribute, contextOfOperation(op.get()));
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
  MlirOperation op = self.get();
  runOnStackFor(op, "print", [&] {
    mlirOperationPrintWithFlags(op, flags, appendToString, &text);
  });
  mlirOpPrintingFlagsDestroy(flags);
  if (binary)
    return py::bytes(text);
  return py::str(text);
}

} // namespace

py::object mlir::python::contextOfOperation(MlirOperation operation) {
  return PyMlirContext::wrap(mlirOperationGetContext(operation));
}

MlirOpPrintingFlags
mlir::python::printingFlags(std::optional<int64_t> largeElementsLimit,
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
    mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/true, prettyDebugInfo);
  if (printGenericOpForm)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  return flags;
}

//===----------------------------------------------------------------------===//
// The bindings.
//===----------------------------------------------------------------------===//

namespace {

/// Context: creation, the current one, multithreading, capsules.
void bindContext(py::class_<PyMlirContext> &contextClass) {
  contextClass.def(py::init(&PyMlirContext::create))
      .def_static("_get_live_count", &PyMlirContext::liveCount)
      .def(
          "_get_live_module_count",
          [](PyMlirContext &self) { return PyModule::liveCount(self.get()); },
          "How many Module objects of this Context are alive.")
      .def(
          "enable_multithreading",
          [](PyMlirContext &self, bool enable) {
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
      .def("__exit__", [](py::object self,
                          py::args) { exit(enteredContexts, self, "Context"); })
      .def_property(
          "allow_unregistered_dialects",
          [](PyMlirContext &self) {
            return mlirContextGetAllowUnregisteredDialects(self.get());
          },
          [](PyMlirContext &self, bool allow) {
            mlirContextSetAllowUnregisteredDialects(self.get(), allow);
          })
      .def_property_readonly("_CAPIPtr",
                             [](PyMlirContext &self) {
                               return withLiveness(
                                   mlirPythonContextToCapsule(self.get()),
                                   self.alive);
                             })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirContext context = mlirPythonCapsuleToContext(capsule.ptr());
            if (mlirContextIsNull(context)) {
              PyErr_Clear();
              throw py::type_error("expected a Context capsule");
            }
            requireLiveCapsule(capsule.ptr());
            return PyMlirContext::wrap(context);
          },
          py::arg("capsule"));
}

/// Location: factories and the current one.
void bindLocation(py::class_<PyLocation> &locationClass) {
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
            return PyLocation{mlirLocationFileLineColGet(contextOf(context),
                                                         toStringRef(filename),
                                                         line, column),
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
        return toPyStrLossless(printToString(mlirLocationPrint, self.location));
      });
}

/// DiagnosticInfo, and MLIRError, which carries them.
void bindDiagnostics(py::module_ &m) {
  py::class_<PyDiagnosticInfo>(m, "DiagnosticInfo")
      .def_readonly("severity", &PyDiagnosticInfo::severity)
      .def_readonly("location", &PyDiagnosticInfo::location)
      // Lossless: a diagnostic may quote input that is not UTF-8.
      .def_property_readonly(
          "message",
          [](PyDiagnosticInfo &self) { return toPyStrLossless(self.message); })
      .def_readonly("notes", &PyDiagnosticInfo::notes)
      .def("__str__", [](PyDiagnosticInfo &self) {
        return toPyStrLossless(self.message);
      });

  // MLIRError(message, error_diagnostics), as upstream's: Python code, in
  // _mlir_error.py next to this extension module (`m` is its `ir`).
  std::string name = py::str(m.attr("__name__"));
  std::string package = name.substr(0, name.rfind("_mlir.ir"));
  py::object errorClass =
      py::module_::import((package + "_mlir_error").c_str()).attr("MLIRError");
  errorClass.attr("__module__") = m.attr("__name__");
  m.attr("MLIRError") = errorClass;
  mlirErrorClass = errorClass.release().ptr();
}

/// Module: parsing, creation, its operation and body, capsules.
void bindModule(py::module_ &m) {
  py::class_<PyModule>(m, "Module")
      .def_static(
          "parse",
          // str is text; bytes is text or MLIR bytecode.
          [](const std::string &asm_, py::object context) {
            MlirModule module = parseOrRaise(
                context, asm_, mlirModuleCreateParse, mlirModuleIsNull,
                "Unable to parse module assembly");
            return new PyModule(module, context);
          },
          py::arg("asm"), py::arg("context") = py::none())
      .def_static(
          "parseFile",
          [](const std::string &path, py::object context) {
            context = resolveContext(context);
            requireNoNul(path);
            // MLIR reads the whole file, naming locations after it, and
            // reports a file it cannot open as a diagnostic. Anything but a
            // regular file (a device, a FIFO) may never end: refuse it.
            struct stat info;
            bool exists = stat(path.c_str(), &info) == 0;
            if (exists && !S_ISREG(info.st_mode))
              throw py::value_error(
                  "cannot parse " +
                  std::string(py::repr(toPyStrLossless(path))) +
                  ": not a regular file");
            size_t size = exists ? static_cast<size_t>(info.st_size) : 0;
            // Read here too, only to refuse nesting the IR cannot have.
            if (exists) {
              std::string text;
              if (FILE *file = std::fopen(path.c_str(), "rb")) {
                char buffer[65536];
                for (size_t n;
                     (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;)
                  text.append(buffer, n);
                std::fclose(file);
              }
              checkNesting(text);
              size = std::max(size, text.size());
            }
            ErrorCapture errors(context);
            MlirContext ctx = contextOf(context);
            MlirModule module;
            runOnStack(stackForInput(size), "parse", [&] {
              module = mlirModuleCreateParseFromFile(ctx, toStringRef(path));
            });
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
      .def_property_readonly("operation",
                             [](py::object self) {
                               PyModule &module = self.cast<PyModule &>();
                               return PyOperation(
                                   mlirModuleGetOperation(module.module), self,
                                   &module.root);
                             })
      .def_property_readonly("body",
                             [](py::object self) {
                               PyModule &module = self.cast<PyModule &>();
                               return PyBlock{mlirModuleGetBody(module.module),
                                              self, &module.root,
                                              module.root.generation,
                                              /*stable=*/true};
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
      .def_property_readonly("_CAPIPtr",
                             [](PyModule &self) {
                               return withLiveness(
                                   mlirPythonModuleToCapsule(self.module),
                                   self.alive);
                             })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirModule module = mlirPythonCapsuleToModule(capsule.ptr());
            if (mlirModuleIsNull(module)) {
              PyErr_Clear();
              throw py::type_error("expected a Module capsule");
            }
            requireLiveCapsule(capsule.ptr());
            return PyModule::wrap(module);
          },
          py::arg("capsule"),
          "The Module in `capsule`: the live Python object if there is one, "
          "else a new one that takes ownership of the module.");
}

/// Operation: parsing, printing, bytecode, attributes, regions.
void bindOperation(py::class_<PyOperation> &operationClass) {
  operationClass
      .def_property_readonly("_CAPIPtr",
                             [](PyOperation &self) {
                               return py::reinterpret_steal<py::object>(
                                   mlirPythonOperationToCapsule(self.get()));
                             })
      .def_static(
          "parse",
          [](const std::string &source, const std::string &sourceName,
             py::object context) {
            context = resolveContext(context);
            checkNesting(source);
            ErrorCapture errors(context);
            MlirContext ctx = contextOf(context);
            MlirOperation op;
            runOnStack(stackForInput(source.size()), "parse", [&] {
              op = mlirOperationCreateParse(ctx, toStringRef(source),
                                            toStringRef(sourceName));
            });
            if (mlirOperationIsNull(op))
              errors.raise("Unable to parse operation assembly");
            auto *owned = new PyOwnedOperation(op, context);
            py::object owner =
                py::cast(owned, py::return_value_policy::take_ownership);
            return PyOperation(op, owner, &owned->root);
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
           py::arg("assume_verified") = false, py::arg("skip_regions") = false,
           "The textual form: a str, or bytes if `binary`.")
      .def(
          "write_bytecode",
          [](PyOperation &self, py::object file,
             std::optional<int64_t> desiredVersion) {
            std::string data;
            if (!desiredVersion) {
              runOnStackFor(self.get(), "write bytecode", [&] {
                mlirOperationWriteBytecode(self.get(), appendToString, &data);
              });
            } else {
              // The writer reports an unsupported version as a diagnostic.
              ErrorCapture errors(contextOfOperation(self.get()));
              MlirBytecodeWriterConfig config =
                  mlirBytecodeWriterConfigCreate();
              mlirBytecodeWriterConfigDesiredEmitVersion(config,
                                                         *desiredVersion);
              MlirLogicalResult result;
              runOnStackFor(self.get(), "write bytecode", [&] {
                result = mlirOperationWriteBytecodeWithConfig(
                    self.get(), config, appendToString, &data);
              });
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
      .def_property_readonly(
          "name", [](PyOperation &self) { return operationName(self.get()); })
      // Upstream's `op.operation is op`.
      .def_property_readonly("operation", [](py::object self) { return self; })
      .def_property_readonly(
          "context",
          [](PyOperation &self) { return contextOfOperation(self.get()); })
      .def_property_readonly(
          "attributes",
          [](PyOperation &self) {
            self.get(); // refuses a stale handle now, not at first use
            return PyOpAttributeMap{self};
          })
      .def_property_readonly(
          "regions",
          [](PyOperation &self) {
            std::vector<PyRegion> regions;
            MlirOperation op = self.get();
            for (intptr_t i = 0, e = mlirOperationGetNumRegions(op); i < e; ++i)
              regions.push_back(PyRegion{mlirOperationGetRegion(op, i),
                                         self.owner, self.root, self.generation,
                                         self.stable});
            return regions;
          })
      .def("verify",
           [](PyOperation &self) {
             ErrorCapture errors(contextOfOperation(self.get()));
             bool valid;
             runOnStackFor(self.get(), "verify",
                           [&] { valid = mlirOperationVerify(self.get()); });
             if (!valid)
               errors.raise("Verification failed");
             return true;
           })
      .def("__str__", [](PyOperation &self) {
        return printToString(mlirOperationPrint, self.get());
      });
}

/// An operation's attributes, as a mapping of NamedAttributes.
void bindOpAttributes(py::class_<PyOpAttributeMap> &attributeMapClass,
                      py::class_<PyNamedAttribute> &namedAttributeClass) {
  attributeMapClass.def("__getitem__", &operationAttribute, py::arg("name"))
      .def(
          "__getitem__",
          [](PyOpAttributeMap &self, intptr_t index) {
            MlirOperation op = self.op.get();
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
            MlirOperation op = self.op.get();
            MlirStringRef key = toStringRef(name);
            requireSameContext(mlirOperationGetContext(op),
                               mlirAttributeGetContext(attribute.attribute),
                               "the attribute");
            if (!mlirOperationHasInherentAttributeByName(op, key)) {
              // Lowerings copy discardable attributes onto the ops they
              // create, where these names are the segment sizes: MLIR reads
              // an attribute of another kind there and crashes.
              if (name == "operandSegmentSizes" || name == "resultSegmentSizes")
                throw py::value_error(
                    "cannot set '" + name + "' on '" + operationName(op) +
                    "': it has no such inherent attribute, and ops that "
                    "lowering creates from it would take it for their "
                    "segment sizes; give a discardable attribute a "
                    "dialect-prefixed name");
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
                "cannot set '" + name + "' of '" + operationName(op) + "' to " +
                printToString(mlirAttributePrint, attribute.attribute) +
                ": the operation's inherent attribute is of another kind");
          },
          py::arg("name"), py::arg("attr"))
      .def(
          "__delitem__",
          [](PyOpAttributeMap &self, const std::string &name) {
            MlirOperation op = self.op.get();
            if (mlirOperationHasInherentAttributeByName(op, toStringRef(name)))
              throw py::value_error("cannot delete '" + name +
                                    "': it is an inherent attribute "
                                    "of '" +
                                    operationName(op) + "' (set it instead)");
            if (!mlirOperationRemoveDiscardableAttributeByName(
                    op, toStringRef(name)))
              throw py::key_error("operation '" + operationName(self.op.get()) +
                                  "' has no attribute '" + name + "'");
          },
          py::arg("name"))
      .def(
          "__contains__",
          [](PyOpAttributeMap &self, const std::string &name) {
            return !mlirAttributeIsNull(mlirOperationGetAttributeByName(
                self.op.get(), toStringRef(name)));
          },
          py::arg("name"))
      .def("__len__",
           [](PyOpAttributeMap &self) {
             return mlirOperationGetNumAttributes(self.op.get());
           })
      .def("__iter__", [](PyOpAttributeMap &self) {
        MlirOperation op = self.op.get();
        py::list named;
        for (intptr_t i = 0, e = mlirOperationGetNumAttributes(op); i < e; ++i)
          named.append(namedAttribute(op, i));
        return py::iter(named);
      });

  namedAttributeClass.def_readonly("name", &PyNamedAttribute::name)
      .def_readonly("attr", &PyNamedAttribute::attr)
      .def("__repr__", [](PyNamedAttribute &self) {
        return "NamedAttribute(" + self.name + "=" +
               std::string(py::str(self.attr)) + ")";
      });
}

/// Region and Block: iteration over blocks and operations.
void bindRegionAndBlock(py::class_<PyRegion> &regionClass,
                        py::class_<PyBlock> &blockClass) {
  regionClass.def_property_readonly("blocks", &regionBlocks)
      .def("__iter__", [](PyRegion &self) {
        return py::iter(py::cast(regionBlocks(self)));
      });

  blockClass.def_property_readonly("operations", &blockOperations)
      .def("__iter__",
           [](PyBlock &self) {
             return py::iter(py::cast(blockOperations(self)));
           })
      .def("__str__", [](PyBlock &self) {
        return printToString(mlirBlockPrint, self.get());
      });
}

} // namespace

void mlir::python::populateIRCore(py::module_ &m) {
  py::enum_<MlirDiagnosticSeverity>(m, "DiagnosticSeverity")
      .value("ERROR", MlirDiagnosticError)
      .value("WARNING", MlirDiagnosticWarning)
      .value("NOTE", MlirDiagnosticNote)
      .value("REMARK", MlirDiagnosticRemark);

  // Registered first, so that signatures mention them by their Python names
  // (Type and Attribute are, by populateIRTypes and populateIRAttributes).
  py::class_<PyMlirContext> contextClass(m, "Context");
  py::class_<PyLocation> locationClass(m, "Location");
  py::class_<PyOperation> operationClass(m, "Operation");
  py::class_<PyOpAttributeMap> attributeMapClass(m, "OpAttributeMap");
  py::class_<PyNamedAttribute> namedAttributeClass(m, "NamedAttribute");
  py::class_<PyRegion> regionClass(m, "Region");
  py::class_<PyBlock> blockClass(m, "Block");
  py::class_<PyOwnedOperation>(m, "_OwnedOperation");

  bindContext(contextClass);
  bindLocation(locationClass);
  bindDiagnostics(m);
  bindModule(m);
  bindOperation(operationClass);
  bindOpAttributes(attributeMapClass, namedAttributeClass);
  bindRegionAndBlock(regionClass, blockClass);
}
