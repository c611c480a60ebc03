//===- IRModule.h - Shared types of the _mlir extension module ------------===//
//
// The Python wrappers of MLIR objects and the helpers that the files of the
// `_mlir` module share (IRCore, IRTypes, IRAttributes, Pass), as upstream's
// IRModule.h. Python objects that refer into MLIR keep their owner alive: a
// Module its Context, an Operation (or Block, Region, Type, Attribute,
// Location) the object it was reached from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_BINDINGS_PYTHON_IRMODULE_H
#define MLIR_BINDINGS_PYTHON_IRMODULE_H

#include "PybindUtils.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <pybind11/pybind11.h>
// In every file: pybind11 needs the same type casters in all of them.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace mlir::python {

//===----------------------------------------------------------------------===//
// Context.
//===----------------------------------------------------------------------===//

/// A Context (upstream's name: Python's C API has a PyContext).
class PyMlirContext {
public:
  explicit PyMlirContext(MlirContext context) : context(context) {
    liveContexts()[context.ptr] = this;
  }
  ~PyMlirContext() {
    liveContexts().erase(context.ptr);
    mlirContextDestroy(context);
  }
  PyMlirContext(const PyMlirContext &) = delete;
  PyMlirContext &operator=(const PyMlirContext &) = delete;

  /// A new context with every upstream dialect and LLVM translation.
  static PyMlirContext *create();

  /// The Python object wrapping `context`; creates one (which then owns the
  /// context) for a context made outside Python.
  static py::object wrap(MlirContext context) {
    auto it = liveContexts().find(context.ptr);
    if (it != liveContexts().end())
      return py::cast(it->second, py::return_value_policy::reference);
    return py::cast(new PyMlirContext(context), py::return_value_policy::take_ownership);
  }

  static size_t liveCount() { return liveContexts().size(); }

  MlirContext get() const { return context; }

  /// Whether passes may run on several threads; MLIR's C API cannot tell.
  /// True for a context made outside Python too, the safe assumption.
  bool multithreading = true;

private:
  static std::unordered_map<void *, PyMlirContext *> &liveContexts() {
    static std::unordered_map<void *, PyMlirContext *> contexts;
    return contexts;
  }

  MlirContext context;
};

/// The context given, or the current one: `context` may be None.
py::object resolveContext(py::object context);

inline MlirContext contextOf(const py::object &context) {
  return context.cast<PyMlirContext &>().get();
}

/// Raises ValueError unless `actual` is `expected`: MLIR objects of different
/// contexts must not refer to each other (one may be freed first).
void requireSameContext(MlirContext expected, MlirContext actual,
                        const std::string &what);

/// MLIR's parsers recurse on nesting: deep enough input overflows the stack.
/// Raises ValueError for input nesting brackets deeper than any real IR.
void checkNesting(const std::string &text);

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

/// The location given, else the current one, else an unknown location in the
/// current context: `location` may be None.
PyLocation resolveLocation(py::object location);

/// `type` as its most specific Python class (IRTypes.cpp).
py::object wrapType(MlirType type, const py::object &context);

/// `attribute` as its most specific Python class (IRAttributes.cpp).
py::object wrapAttribute(MlirAttribute attribute, const py::object &context);

//===----------------------------------------------------------------------===//
// Diagnostics and MLIRError.
//===----------------------------------------------------------------------===//

struct PyDiagnosticInfo {
  MlirDiagnosticSeverity severity;
  PyLocation location;
  std::string message;
  std::vector<PyDiagnosticInfo> notes;
};

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

  /// Raises MLIRError(message, the collected diagnostics).
  [[noreturn]] void raise(const std::string &message);

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData);

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
// Operation.
//===----------------------------------------------------------------------===//

/// An operation; `owner` keeps the module (or parent object) it lives in
/// alive.
struct PyOperation {
  MlirOperation operation;
  py::object owner;
};

py::object contextOfOperation(MlirOperation operation);

/// Printing flags from upstream's keyword arguments; the caller destroys
/// them.
MlirOpPrintingFlags printingFlags(std::optional<int64_t> largeElementsLimit,
                                  std::optional<int64_t> largeResourceLimit,
                                  bool enableDebugInfo, bool prettyDebugInfo,
                                  bool printGenericOpForm);

//===----------------------------------------------------------------------===//
// The parts of the module, each bound by its own file.
//===----------------------------------------------------------------------===//

/// Context, Location, diagnostics and MLIRError, Module, Operation, Region,
/// Block (IRCore.cpp).
void populateIRCore(py::module_ &m);
/// Type and its builtin subclasses (IRTypes.cpp).
void populateIRTypes(py::module_ &m);
/// Attribute and its builtin subclasses (IRAttributes.cpp).
void populateIRAttributes(py::module_ &m);
/// PassManager (Pass.cpp).
void populatePassManagerSubmodule(py::module_ &m);

} // namespace mlir::python

#endif // MLIR_BINDINGS_PYTHON_IRMODULE_H
