//===- JitFunction.h - Typed calls into jitted code -----------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITFUNCTION_H
#define MLIR_BINDINGS_PYTHON_JITFUNCTION_H

#include <pybind11/pybind11.h>

namespace mlir::python::jit {

/// Adds `JitFunction` and the function creating one to the module.
void populateJitFunctions(pybind11::module_ &m);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITFUNCTION_H
