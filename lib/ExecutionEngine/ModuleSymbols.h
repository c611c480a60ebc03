//===- ModuleSymbols.h - What a JitEngine knows of its module ---*- C++ -*-===//
//
// The symbols a module defines and declares, read from the LLVM dialect
// module before translation and kept with its cache entry; and the module
// contents the engine refuses before translating, which would otherwise
// abort the process or collide inside ORC.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_MODULESYMBOLS_H
#define MLIR_EXECUTION_ENGINE_MODULESYMBOLS_H

#include "JitEngine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir_execution_engine {

/// Why the engine refuses `module` (a symbol with a NUL character, a
/// reserved name, an unknown garbage collector), or an empty string.
std::string findRefusedContent(mlir::ModuleOp module);

/// Records the symbols the module defines, so that registering one of them
/// fails cleanly instead of aborting inside ORC, and those it only declares,
/// to name the missing ones when compilation fails.
void collectModuleSymbols(mlir::Operation *module, JitEngine &jit);

/// What `collectModuleSymbols` found, and the caller's annotation, as the
/// cache entry's metadata.
std::string serializeModuleSymbols(const JitEngine &jit);

/// Reads what `serializeModuleSymbols` wrote; false if it is malformed.
bool deserializeModuleSymbols(llvm::StringRef in, JitEngine &jit);

} // namespace mlir_execution_engine

#endif // MLIR_EXECUTION_ENGINE_MODULESYMBOLS_H
