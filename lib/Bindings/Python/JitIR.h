//===- JitIR.h - jit()'s own parsing and lowering, on deep stacks ---------===//

#ifndef MLIR_BINDINGS_PYTHON_JITIR_H
#define MLIR_BINDINGS_PYTHON_JITIR_H

#include <pybind11/pybind11.h>

namespace mlir::python::jit {

/// Adds `_parse_module` and `_run_pipeline` to the module: jit()'s parse of
/// MLIR text and its pass pipelines, each on a stack sized for its input
/// (upstream's Module.parse and PassManager.run recurse on the caller's
/// stack, which deep IR overflows).
void populateJitIR(pybind11::module_ &m);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITIR_H
