//===- JitCallbacks.h - Calls from jitted code into Python ----------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITCALLBACKS_H
#define MLIR_BINDINGS_PYTHON_JITCALLBACKS_H

#include <pybind11/pybind11.h>

namespace mlir::python::jit {

/// Adds `_CallbackSlot` and the functions that generate callback
/// trampolines and bind them to an engine.
void populateJitCallbacks(pybind11::module_ &m);

/// Makes `engine` (an ExecutionEngine) keep `object`, which its code calls
/// (a typed callback's slot), alive as long as it lives, as it keeps ctypes
/// callbacks (ExecutionEngineModule.cpp).
void keepAliveWithEngine(pybind11::handle engine, pybind11::handle object);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITCALLBACKS_H
