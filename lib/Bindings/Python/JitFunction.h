//===- JitFunction.h - Typed calls into jitted code -----------------------===//

#ifndef MLIR_BINDINGS_PYTHON_JITFUNCTION_H
#define MLIR_BINDINGS_PYTHON_JITFUNCTION_H

#include "mlir-c/ExecutionEngine.h"

#include <pybind11/pybind11.h>

#include <string>

namespace mlir::python::jit {

/// Adds `JitFunction` and the function creating one to the module.
void populateJitFunctions(pybind11::module_ &m);

/// The stack compiling `engine`'s module may need (ExecutionEngineModule.cpp
/// records it from the module's nesting depth when it creates the engine; 0
/// for an engine it did not create).
size_t compileStackOf(MlirExecutionEngine engine);

/// The packed wrapper `symbol` of `engine` (compiling the module on first
/// use, on a stack deep enough for it), or null with the reason in `error`.
void *lookupOnCompileStack(MlirExecutionEngine engine,
                           const std::string &symbol, std::string &error);

/// Whether LLVM's OpenMP runtime may read OMP_NUM_THREADS now (see
/// mlirExecutionEngineCheckOpenMPThreads; with `read`, it then reads it);
/// else false with a ValueError saying why.
bool checkOpenMPThreads(bool read);

/// After a failed lookup of `engine`, whether the failure was the check of
/// OMP_NUM_THREADS (the module is linked and uses LLVM's OpenMP runtime):
/// then true, with a ValueError saying why.
bool raiseOpenMPThreadsError(MlirExecutionEngine engine);

} // namespace mlir::python::jit

#endif // MLIR_BINDINGS_PYTHON_JITFUNCTION_H
