//===- CallProperties.cpp - What calls of jitted functions may do ---------===//

#include "CallProperties.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace {

/// The symbol `call` calls directly, if it is one of `symbols`.
bool callsOneOf(CallOpInterface call, const llvm::StringSet<> &symbols) {
  auto callee =
      llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  return callee && callee.getNestedReferences().empty() &&
         symbols.contains(callee.getRootReference().getValue());
}

bool hasSeveralBlocks(Region &region) {
  return !region.empty() && !region.hasOneBlock();
}

/// Whether `op`, which has no region, may take long without a call: it
/// copies or makes whole arrays (a memref.copy, tensors, which bufferization
/// may copy, linalg's loops).
bool mayLoopOverArrays(Operation *op) {
  return llvm::isa<memref::CopyOp>(op) ||
         llvm::is_contained({"tensor", "bufferization", "linalg"},
                            op->getName().getDialectNamespace());
}

bool mayRunWithoutCallbacks(Operation *function,
                            const llvm::StringSet<> &callbacks) {
  if (function->getNumRegions() != 1 ||
      hasSeveralBlocks(function->getRegion(0)))
    return true;
  // Post-order: an op's regions are visited before it. A region calls back
  // when it calls a callback, or holds an op each of whose regions does (an
  // scf.if without an else, or with an else that calls none, does not).
  llvm::SmallPtrSet<Region *, 16> callingBack;
  return function
      ->walk<WalkOrder::PostOrder>([&](Operation *op) {
        if (op == function)
          return WalkResult::advance();
        if (auto call = llvm::dyn_cast<CallOpInterface>(op)) {
          if (!callsOneOf(call, callbacks))
            return WalkResult::interrupt();
        } else if (op->getNumRegions() != 0) {
          // OpenMP's regions may run on other threads, where each callback
          // takes the GIL.
          if (op->getName().getDialectNamespace() == "omp" ||
              llvm::any_of(op->getRegions(), hasSeveralBlocks) ||
              !llvm::all_of(op->getRegions(), [&](Region &region) {
                return callingBack.contains(&region);
              }))
            return WalkResult::interrupt();
        } else {
          return mayLoopOverArrays(op) ? WalkResult::interrupt()
                                       : WalkResult::advance();
        }
        callingBack.insert(op->getParentRegion());
        return WalkResult::advance();
      })
      .wasInterrupted();
}

bool mayAllocate(Operation *op) {
  return llvm::isa<memref::AllocOp, memref::ReallocOp, CallOpInterface>(op) ||
         mayLoopOverArrays(op);
}

} // namespace

jit::CallProperties jit::analyzeCalls(Operation *function,
                                      const llvm::StringSet<> &callbacks) {
  CallProperties properties;
  properties.mayRunWithoutCallbacks =
      mayRunWithoutCallbacks(function, callbacks);
  function->walk([&](Operation *op) {
    properties.calls |= llvm::isa<CallOpInterface>(op);
    properties.mayAllocate |= mayAllocate(op);
  });
  return properties;
}

bool jit::callsOnlyOwnCode(Operation *module) {
  // Dialects whose ops this project's pipelines lower to the module's own
  // code and to C library functions that never call back.
  static constexpr StringLiteral ownCodeDialects[] = {
      "builtin", "func",   "arith",   "math",   "scf",
      "cf",      "memref", "complex", "index",  "ub",
      "affine",  "vector", "linalg",  "tensor", "bufferization"};
  llvm::StringSet<> functions;
  for (Region &region : module->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (op.getName().getStringRef() == "func.func")
          functions.insert(SymbolTable::getSymbolName(&op).getValue());
  return !module
              ->walk([&](Operation *op) {
                auto call = llvm::dyn_cast<CallOpInterface>(op);
                if (!llvm::is_contained(ownCodeDialects,
                                        op->getName().getDialectNamespace()) ||
                    (call && !callsOneOf(call, functions)))
                  return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}
