//===- MainModule.cpp - The _mlir extension module ------------------------===//
//
// `_mlir.ir` and `_mlir.passmanager`: the subset of upstream's Python IR API a
// JIT user needs, over the C API only. Each part is bound by its own file
// (IRModule.h lists them).
//
//===----------------------------------------------------------------------===//

#include "IRModule.h"

#include "mlir-c/RegisterEverything.h"

using namespace mlir::python;

PYBIND11_MODULE(_mlir, m) {
  m.doc() = "MLIR IR and pass manager bindings over the MLIR C API";
  registerUtf8SafeExceptions();
  mlirRegisterAllPasses();
  py::module_ ir = m.def_submodule("ir", "MLIR IR");
  // Type and Attribute first: the core classes' signatures name them.
  populateIRTypes(ir);
  populateIRAttributes(ir);
  populateIRCore(ir);
  py::module_ passmanager = m.def_submodule("passmanager", "MLIR pass manager");
  populatePassManagerSubmodule(passmanager);
}
