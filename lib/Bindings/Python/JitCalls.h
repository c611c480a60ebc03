//===- JitCalls.h - Typed calls into and out of jitted code ---------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITCALLS_H
#define MLIR_BINDINGS_PYTHON_JITCALLS_H

#include <pybind11/pybind11.h>

namespace mlir::python {

/// Adds the typed call layer's native parts to `_mlirExecutionEngine`.
void bindJit(pybind11::module_ &m);

} // namespace mlir::python

#endif // MLIR_BINDINGS_PYTHON_JITCALLS_H
