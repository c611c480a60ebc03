//===- consumer_module.cpp - A consumer's extension module ----------------===//
//
// What a monorepo adds beside upstream's bindings: an extension module of its
// own, built from upstream's binding headers (@llvm-project labels), that
// takes upstream's IR objects (an mlir.ir.Module, through its capsule) and
// uses MLIR through the one C API library of the process.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <string>
#include <string_view>
#include <vector>

NB_MODULE(_embedding_consumer, m) {
  m.def(
      "function_names",
      [](MlirModule module) {
        std::vector<std::string> names;
        for (MlirOperation op =
                 mlirBlockGetFirstOperation(mlirModuleGetBody(module));
             !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
          MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
          if (std::string_view(name.data, name.length) != "func.func")
            continue;
          MlirAttribute symbol = mlirOperationGetAttributeByName(
              op, mlirStringRefCreateFromCString("sym_name"));
          MlirStringRef value = mlirStringAttrGetValue(symbol);
          names.emplace_back(value.data, value.length);
        }
        return names;
      },
      nanobind::arg("module"),
      "The names of the func.func operations of `module` (an mlir.ir.Module).");
}
