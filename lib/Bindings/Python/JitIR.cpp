//===- JitIR.cpp - jit()'s own parsing and lowering, on deep stacks -------===//

#include "JitIR.h"
#include "DeepStack.h"
#include "PybindUtils.h"
#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/JitCallProperties.h"
#include "mlir-c/Pass.h"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace py = pybind11;
using namespace mlir::python;

namespace {

/// Takes every diagnostic of `context` while it lives (nothing reaches
/// stderr) and keeps the errors and their notes as upstream's MLIRError
/// prints them: "\nerror: <location>: <message>".
class ErrorCollector {
public:
  explicit ErrorCollector(MlirContext context) : context(context) {
    id = mlirContextAttachDiagnosticHandler(context, handle, this, nullptr);
  }
  ~ErrorCollector() { mlirContextDetachDiagnosticHandler(context, id); }
  ErrorCollector(const ErrorCollector &) = delete;
  ErrorCollector &operator=(const ErrorCollector &) = delete;

  std::string text;

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *self) {
    if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError) {
      auto &text = static_cast<ErrorCollector *>(self)->text;
      append(text, "\nerror: ", diagnostic);
      for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e;
           ++i)
        append(text, "\n note: ", mlirDiagnosticGetNote(diagnostic, i));
    }
    return mlirLogicalResultSuccess();
  }

  static void append(std::string &text, const char *prefix,
                     MlirDiagnostic diagnostic) {
    std::string location;
    mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), appendToString,
                      &location);
    // loc(...) -> ...
    if (location.size() > 5 && location.compare(0, 4, "loc(") == 0)
      location = location.substr(4, location.size() - 5);
    std::string message;
    mlirDiagnosticPrint(diagnostic, appendToString, &message);
    // Continuation lines indented, as upstream's MLIRError prints them.
    for (size_t at = 0; (at = message.find('\n', at)) != std::string::npos;
         at += 3)
      message.replace(at, 1, "\n  ");
    text += prefix + location + ": " + message;
  }

  MlirContext context;
  MlirDiagnosticHandlerID id;
};

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

/// `text` without surrounding blanks, newlines and colons.
std::string trimmed(const std::string &text) {
  size_t begin = text.find_first_not_of(" \n:");
  size_t end = text.find_last_not_of(" \n");
  return begin == std::string::npos ? std::string()
                                    : text.substr(begin, end - begin + 1);
}

/// Parses `pipeline` into `pm` on a stack sized for it. Raises ValueError
/// with MLIR's message and what LLVM printed to stderr meanwhile (a bad pass
/// option's reason, or an error in a nested pipeline option that the parse
/// itself lets through).
void parsePipeline(MlirPassManager pm, const std::string &pipeline) {
  std::string error, printed;
  MlirLogicalResult status;
  runOnStack(stackForInput(pipeline.size()), "parse", [&] {
    StderrCapture capture;
    status =
        mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                              toStringRef(pipeline), appendToString, &error);
    printed = capture.release();
  });
  if (mlirLogicalResultIsSuccess(status) && trimmed(printed).empty())
    return;
  std::string message = trimmed(error);
  if (!trimmed(printed).empty())
    message += (message.empty() ? "" : ": ") + trimmed(printed);
  throw py::value_error(
      message.empty() ? "invalid pass pipeline '" + pipeline + "'" : message);
}

/// Destroys the pass manager it holds, however the scope ends.
struct PassManagerOwner {
  MlirPassManager pm;
  ~PassManagerOwner() { mlirPassManagerDestroy(pm); }
};

} // namespace

void mlir::python::jit::populateJitIR(py::module_ &m) {
  m.def(
      "_parse_module",
      [](py::object context, const std::string &text) -> py::tuple {
        MlirContext ctx = unwrapCapsule(context, mlirPythonCapsuleToContext,
                                        "an mlir.ir.Context");
        size_t stack = stackForInput(text.size());
        ErrorCollector errors(ctx);
        MlirModule module;
        runOnStack(stack, "parse", [&] {
          module = mlirModuleCreateParse(ctx, toStringRef(text));
        });
        if (mlirModuleIsNull(module))
          return py::make_tuple(py::none(), toPyStrLossless(errors.text));
        return py::make_tuple(py::reinterpret_steal<py::object>(
                                  mlirPythonModuleToCapsule(module)),
                              py::str());
      },
      py::arg("context"), py::arg("text"),
      "Parse `text` in `context` on a stack sized for it: (a capsule for "
      "Module._CAPICreate, '') or (None, the errors as MLIRError prints "
      "them).");

  m.def(
      "_run_pipeline",
      [](py::object module, const std::string &pipeline) -> py::object {
        MlirOperation op = mlirModuleGetOperation(unwrapCapsule(
            module, mlirPythonCapsuleToModule, "an mlir.ir.Module"));
        MlirContext ctx = mlirOperationGetContext(op);
        PassManagerOwner owner{mlirPassManagerCreate(ctx)};
        parsePipeline(owner.pm, pipeline);
        ErrorCollector errors(ctx);
        MlirLogicalResult result;
        runOnStackFor(op, "transform",
                      [&] { result = mlirPassManagerRunOnOp(owner.pm, op); });
        if (mlirLogicalResultIsFailure(result))
          return toPyStrLossless(errors.text);
        return py::none();
      },
      py::arg("module"), py::arg("pipeline"),
      "Run the pass pipeline `pipeline` on `module` on a stack sized for "
      "its nesting: None, or the errors as MLIRError prints them. An "
      "invalid pipeline is a ValueError.");

  m.def(
      "_print_operation",
      [](py::object operation) {
        return toPyStrLossless(
            printToString(mlirOperationPrint,
                          unwrapCapsule(operation, mlirPythonCapsuleToOperation,
                                        "an mlir.ir.Operation")));
      },
      py::arg("operation"),
      "`operation` as text (str(operation)), printed on a stack sized for "
      "its nesting.");

  m.def(
      "_call_properties",
      [](py::object function, py::list callbacks) {
        MlirOperation op = unwrapCapsule(function, mlirPythonCapsuleToOperation,
                                         "an mlir.ir.Operation");
        std::vector<std::string> texts;
        for (py::handle name : callbacks)
          texts.push_back(name.cast<std::string>());
        std::vector<MlirStringRef> names;
        for (const std::string &text : texts)
          names.push_back(toStringRef(text));
        MlirJitCallProperties properties;
        runOnStackFor(op, "analyse", [&] {
          properties =
              mlirJitFunctionGetCallProperties(op, names.size(), names.data());
        });
        return py::make_tuple(properties.mayRunWithoutCallbacks,
                              properties.calls, properties.mayAllocate);
      },
      py::arg("function"), py::arg("callbacks"),
      "What calls of the func.func `function` may do, whose calls of the "
      "symbols `callbacks` call Python callbacks: (whether it may run long "
      "without calling back, whether it calls anything, whether it may "
      "allocate). See mlir-c/JitCallProperties.h.");

  m.def(
      "_calls_only_own_code",
      [](py::object module) {
        MlirOperation op = mlirModuleGetOperation(unwrapCapsule(
            module, mlirPythonCapsuleToModule, "an mlir.ir.Module"));
        bool own;
        runOnStackFor(op, "analyse",
                      [&] { own = mlirJitModuleCallsOnlyOwnCode(op); });
        return own;
      },
      py::arg("module"),
      "Whether every op of `module` lowers to its own code and C library "
      "functions that never call back, and every call is of one of its "
      "func.funcs.");
}
