//===- Pass.cpp - PassManager ---------------------------------------------===//
//
// `_mlir.passmanager.PassManager`: parse, extend and run pass pipelines,
// raising what MLIR reports (on a diagnostic or on stderr) as exceptions.
//
//===----------------------------------------------------------------------===//

#include "IRModule.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/Pass.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <unistd.h>

using namespace mlir::python;

namespace {

/// Accepts an Operation or anything with an `.operation` (a Module): the
/// Operation object.
py::object toOperation(py::handle object) {
  if (py::isinstance<PyOperation>(object))
    return py::reinterpret_borrow<py::object>(object);
  if (py::hasattr(object, "operation") && !py::isinstance<py::type>(object)) {
    py::object op = object.attr("operation");
    if (py::isinstance<PyOperation>(op))
      return op;
  }
  throw py::type_error("expected an Operation or a Module, got " +
                       std::string(py::str(py::type::handle_of(object))));
}

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
  std::string printed;
  MlirLogicalResult status;
  runOnStack(stackForInput(pipeline.size()), "parse", [&] {
    StderrCapture stderrCapture;
    status = append ? mlirOpPassManagerAddPipeline(pm, toStringRef(pipeline),
                                                   appendToString, &error)
                    : mlirParsePassPipeline(pm, toStringRef(pipeline),
                                            appendToString, &error);
    printed = stderrCapture.release();
  });
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
      *alive = false;
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
    // The pass manager lives on: its capsules stay valid, and its next owner
    // (_CAPICreate) takes their flag over.
    if (!mlirPassManagerIsNull(pm))
      releasedLiveness()[pm.ptr] = alive;
    alive = newLivenessFlag();
    owners().erase(pm.ptr);
    pm = MlirPassManager{nullptr};
  }

  /// The liveness flag of each released pass manager's capsules.
  static std::unordered_map<void *, LivenessFlag> &releasedLiveness() {
    static auto *flags = new std::unordered_map<void *, LivenessFlag>();
    return *flags;
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
  /// False once the pass manager is destroyed: its capsules carry it.
  LivenessFlag alive = newLivenessFlag();
  /// Where IR printing writes its tree, if it does.
  std::string treePrintingDir;
  /// IR printing at module scope was enabled: it needs multithreading off
  /// while passes run, not only when it was enabled.
  bool printsModuleScope = false;
};

} // namespace

void mlir::python::populatePassManagerSubmodule(py::module_ &m) {
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
                 self.context.cast<PyMlirContext &>().multithreading))
              throw py::value_error(
                  "print_module_scope=True needs multithreading disabled on "
                  "the PassManager's Context: call "
                  "context.enable_multithreading(False) first");
            // MLIR only prints to stderr when it cannot write the tree.
            std::string treePath = treePrintingDirPath.value_or("");
            requireNoNul(treePath);
            if (!treePath.empty()) {
              std::error_code error;
              std::filesystem::create_directories(treePath, error);
              if (error || !std::filesystem::is_directory(treePath))
                throw py::value_error(
                    "cannot use tree_printing_dir_path '" + treePath +
                    "': " + (error ? error.message() : "not a directory"));
            }
            MlirOpPrintingFlags flags = printingFlags(
                largeElementsLimit, largeResourceLimit, enableDebugInfo,
                /*prettyDebugInfo=*/false, printGenericOpForm);
            self.printsModuleScope = printModuleScope;
            self.treePrintingDir = treePath;
            mlirPassManagerEnableIRPrinting(pm, printBeforeAll, printAfterAll,
                                            printModuleScope, printAfterChange,
                                            printAfterFailure, flags,
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
                self.context.cast<PyMlirContext &>().multithreading)
              throw py::value_error(
                  "IR printing at module scope needs multithreading disabled "
                  "while passes run: call "
                  "context.enable_multithreading(False) again");
            py::object opObject = toOperation(target);
            PyOperation &op = opObject.cast<PyOperation &>();
            MlirOperation operation = op.get();
            if (!self.context.is_none() &&
                !mlirContextEqual(mlirOperationGetContext(operation),
                                  contextOf(self.context)))
              throw py::value_error("the operation belongs to another Context "
                                    "than the PassManager");
            ErrorCapture errors(contextOfOperation(operation));
            // MLIR only prints to stderr when it cannot write the tree of IR
            // printing: capture it and raise it.
            std::optional<StderrCapture> treeErrors;
            if (!self.treePrintingDir.empty())
              treeErrors.emplace();
            MlirLogicalResult result;
            runOnStackFor(operation, "run passes", [&] {
              result = mlirPassManagerRunOnOp(pm, operation);
            });
            // Passes may have erased or replaced any operation under the
            // target: handles into it taken before are stale now.
            recordPassRun(op);
            if (treeErrors) {
              std::string printed = treeErrors->release();
              std::string failures, rest;
              size_t begin = 0;
              while (begin < printed.size()) {
                size_t end = printed.find('\n', begin);
                end = end == std::string::npos ? printed.size() : end + 1;
                std::string line = printed.substr(begin, end - begin);
                (line.rfind("Error ", 0) == 0 ? failures : rest) += line;
                begin = end;
              }
              if (!rest.empty()) // not ours: let it through
                std::fwrite(rest.data(), 1, rest.size(), stderr);
              if (!failures.empty()) {
                while (!failures.empty() && failures.back() == '\n')
                  failures.pop_back();
                throw std::runtime_error("IR printing could not write under "
                                         "tree_printing_dir_path '" +
                                         self.treePrintingDir +
                                         "': " + failures);
              }
            }
            if (mlirLogicalResultIsFailure(result))
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
                               return withLiveness(
                                   mlirPythonPassManagerToCapsule(self.get()),
                                   self.alive);
                             })
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirPassManager pm = mlirPythonCapsuleToPassManager(capsule.ptr());
            if (mlirPassManagerIsNull(pm)) {
              PyErr_Clear();
              throw py::type_error("expected a PassManager capsule");
            }
            requireLiveCapsule(capsule.ptr());
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
            auto *adopted = new PyPassManager(pm, context);
            // Released by a PassManager of ours: its capsules' flag is the
            // new owner's now.
            auto flag = PyPassManager::releasedLiveness().find(pm.ptr);
            if (flag != PyPassManager::releasedLiveness().end()) {
              adopted->alive = flag->second;
              PyPassManager::releasedLiveness().erase(flag);
            } else if (LivenessFlag alive = capsuleLiveness(capsule.ptr())) {
              adopted->alive = alive;
            }
            return py::cast(adopted, py::return_value_policy::take_ownership);
          },
          py::arg("capsule"),
          "The PassManager of the pass manager in `capsule`: its owner if "
          "it has one here, else a new owner (its previous owner must have "
          "released it).")
      .def("_testing_release", &PyPassManager::release,
           "Release the pass manager without destroying it (for testing).");
}
