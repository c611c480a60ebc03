//===-- mlir-c/NestingDepth.h - How deeply IR nests ---------------*- C -*-===//
//
// This project's addition to upstream's IR C API: how deeply a type, an
// attribute or an operation nests, computed without recursion. MLIR prints,
// verifies, converts and destroys IR by recursing on its nesting: a caller
// (the Python bindings) sizes the stack those run on by these depths, so
// that no input, however deep, overflows it.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_NESTINGDEPTH_H
#define MLIR_C_NESTINGDEPTH_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The depth of `type`: 1 plus the deepest of the types and attributes it
/// holds (a `tuple<tuple<i32>>` is 3 deep).
MLIR_CAPI_EXPORTED intptr_t mlirTypeGetNestingDepth(MlirType type);

/// The depth of `attribute`, as for types.
MLIR_CAPI_EXPORTED intptr_t
mlirAttributeGetNestingDepth(MlirAttribute attribute);

/// The depth of `op`: how deeply operations nest in its regions, plus the
/// depth of the deepest type or attribute that it or any operation in it
/// holds (attributes, properties, locations, result and block argument
/// types).
MLIR_CAPI_EXPORTED intptr_t mlirOperationGetNestingDepth(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_NESTINGDEPTH_H
