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

#include "DeepStack.h"
#include "PybindUtils.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <pybind11/pybind11.h>
// In every file: pybind11 needs the same type casters in all of them.
#include <pybind11/stl.h>

#include <functional>
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
    *alive = false;
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
    return py::cast(new PyMlirContext(context),
                    py::return_value_policy::take_ownership);
  }

  static size_t liveCount() { return liveContexts().size(); }

  MlirContext get() const { return context; }

  /// Whether passes may run on several threads; MLIR's C API cannot tell.
  /// True for a context made outside Python too, the safe assumption.
  bool multithreading = true;

  /// False once the context is destroyed: its capsules carry it.
  LivenessFlag alive = newLivenessFlag();

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

/// Raises ValueError for input nesting brackets ([{) more than 1000 deep.
/// Parsing itself is safe at any depth (DeepStack.h), but the operations it
/// makes are not: destroying them recurses on their nesting of regions, on
/// whatever thread drops the last reference.
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

/// A diagnostic as collected, without Python objects: the handler may run on
/// a thread of its own (DeepStack.h).
struct RawDiagnostic {
  MlirDiagnosticSeverity severity;
  MlirLocation location;
  std::string message;
  std::vector<RawDiagnostic> notes;
};

/// Collects the error diagnostics emitted on a context while it lives, so
/// that a failure raises MLIRError carrying them instead of printing them.
/// The handler touches nothing Python.
class ErrorCapture {
public:
  explicit ErrorCapture(py::object context) : context(std::move(context)) {
    id = mlirContextAttachDiagnosticHandler(contextOf(this->context), handle,
                                            this, nullptr);
  }
  ~ErrorCapture() {
    mlirContextDetachDiagnosticHandler(contextOf(context), id);
  }

  /// The collected error messages, one a line.
  std::string messages() const {
    std::string text;
    for (const RawDiagnostic &error : errors)
      text += (text.empty() ? "" : "\n") + error.message;
    return text;
  }

  /// Raises MLIRError(message, the collected diagnostics).
  [[noreturn]] void raise(const std::string &message);

private:
  static MlirLogicalResult handle(MlirDiagnostic diagnostic, void *userData);

  py::object context;
  MlirDiagnosticHandlerID id;
  std::vector<RawDiagnostic> errors;
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
  MlirContext ctx = contextOf(context);
  T result;
  runOnStack(stackForInput(text.size()), "parse",
             [&] { result = parse(ctx, toStringRef(text)); });
  if (isNull(result))
    errors.raise(what);
  return result;
}

//===----------------------------------------------------------------------===//
// Operation.
//===----------------------------------------------------------------------===//

/// What every handle into one tree of IR (a Module's, or an operation's
/// parsed on its own) shares: its root operation, and how many pass runs
/// there have been on the tree. A pass run may erase or replace any
/// operation, region or block under the root, so a handle taken before one
/// refuses to be used (rather than read freed memory); the root, its regions
/// and a module's body are never erased, and stay valid.
struct PyIRRoot {
  MlirOperation root;
  bool isModule;
  uint64_t generation = 0;
};

/// Raises RuntimeError for a handle into `root` taken before its last pass
/// run (`what`: "Operation", "Region", "Block").
inline void checkFresh(const PyIRRoot *root, uint64_t generation, bool stable,
                       const char *what) {
  if (root && !stable && root->generation != generation)
    throw std::runtime_error(
        std::string("this ") + what +
        " was taken before a pass run (PassManager.run) on its module, "
        "which may have erased or replaced it; get it again from the module");
}

/// An operation; `owner` keeps the module (or parent object) it lives in
/// alive, and with it `root`.
struct PyOperation {
  PyOperation(MlirOperation operation, py::object owner, PyIRRoot *root)
      : raw(operation), owner(std::move(owner)), root(root),
        generation(root ? root->generation : 0),
        stable(root && mlirOperationEqual(operation, root->root)) {}

  /// The operation; RuntimeError if a pass run may have erased it.
  MlirOperation get() const {
    checkFresh(root, generation, stable, "Operation");
    return raw;
  }

  MlirOperation raw;
  py::object owner;
  PyIRRoot *root;
  uint64_t generation;
  /// The root itself: no pass run erases it.
  bool stable;
};

/// Records a pass run on `op`'s tree: every handle into it taken before is
/// stale from now on, except `op` itself (the run's target is never erased).
inline void recordPassRun(PyOperation &op) {
  if (!op.root)
    return;
  op.generation = ++op.root->generation;
}

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
