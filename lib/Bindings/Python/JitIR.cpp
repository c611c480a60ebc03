//===- JitIR.cpp - jit()'s own parsing and lowering, on deep stacks -------===//

#include "JitIR.h"
#include "DeepStack.h"
#include "PybindUtils.h"
#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <string>

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
    text += prefix + location + ": ";
    mlirDiagnosticPrint(diagnostic, appendToString, &text);
  }

  MlirContext context;
  MlirDiagnosticHandlerID id;
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
        MlirPassManager pm = mlirPassManagerCreate(ctx);
        std::string parseErrors;
        MlirLogicalResult parsed = mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(pm), toStringRef(pipeline),
            appendToString, &parseErrors);
        if (mlirLogicalResultIsFailure(parsed)) {
          mlirPassManagerDestroy(pm);
          throw py::value_error(parseErrors);
        }
        MlirLogicalResult result;
        std::string errors;
        try {
          size_t stack = stackForDepth(nestingDepth(op), "transform");
          ErrorCollector collector(ctx);
          runOnStack(stack, "transform",
                     [&] { result = mlirPassManagerRunOnOp(pm, op); });
          errors = collector.text;
        } catch (...) {
          mlirPassManagerDestroy(pm);
          throw;
        }
        mlirPassManagerDestroy(pm);
        if (mlirLogicalResultIsFailure(result))
          return toPyStrLossless(errors);
        return py::none();
      },
      py::arg("module"), py::arg("pipeline"),
      "Run the pass pipeline `pipeline` on `module` on a stack sized for "
      "its nesting: None, or the errors as MLIRError prints them. An "
      "invalid pipeline is a ValueError.");
}
