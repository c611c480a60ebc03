//===- CallProperties.h - What calls of jitted functions may do -*- C++ -*-===//
//
// Decided on a module's IR before lowering, so that the Python bindings know
// for each function whether a call of it may release the GIL, needs a
// thread state, and may be stopped by a raising callback.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_ANALYSIS_CALLPROPERTIES_H
#define MLIR_EXECUTION_ENGINE_ANALYSIS_CALLPROPERTIES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::jit {

/// What a call of a function may do.
struct CallProperties {
  /// It may run long without calling a Python callback: it calls anything
  /// but a callback (which may run long, or wait for a thread that calls
  /// back), copies or makes whole arrays (memref.copy, tensors, linalg), runs
  /// a region on OpenMP's threads, has several blocks, or has a loop or a
  /// branch (an scf.if without an else among them) in which no callback is
  /// called. Otherwise it is cheap straight-line code, or code whose every
  /// loop and branch calls one.
  bool mayRunWithoutCallbacks = false;
  /// It calls something, directly or through a pointer.
  bool calls = false;
  /// It may allocate memory: it allocates or copies memrefs, uses tensors
  /// (which bufferization allocates) or linalg, or calls something.
  bool mayAllocate = false;
};

/// The properties of `function` (a function-like op with one region),
/// whose calls of the symbols in `callbacks` are calls of Python callbacks.
CallProperties analyzeCalls(Operation *function,
                            const llvm::StringSet<> &callbacks);

/// Whether every op nested in `module` lowers, through this project's
/// pipelines, to the module's own code and to C library functions that
/// never call back (malloc, memrefCopy, libm), and every call is of one of
/// the module's func.funcs: then nothing but the module's own frames lies
/// between a call of it and a callback it makes.
bool callsOnlyOwnCode(Operation *module);

} // namespace mlir::jit

#endif // MLIR_EXECUTION_ENGINE_ANALYSIS_CALLPROPERTIES_H
