//===- UncloneReturnedArguments.cpp - Returned arguments stay views -------===//
//
// jit-unclone-returned-arguments: after bufferization and its deallocation
// pipeline, which make every result the caller's own by cloning a returned
// argument (or a view of one), the function returns the argument itself, so
// that the caller gets a view of its array. A clone that changes the type
// only in its static shape becomes a memref.cast (still a view); one that
// changes the layout stays a copy, whose strides its type promises.
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_UNCLONERETURNEDARGUMENTS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// Whether `value` is an argument of `function`'s entry block or a chain of
/// views of one.
bool viewsArgumentOf(Value value, func::FuncOp function) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::SubViewOp, memref::ReinterpretCastOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::TransposeOp>(op))
      return false;
    value = op->getOperand(0);
  }
  return cast<BlockArgument>(value).getOwner() == &function.front();
}

/// Whether a clone from `from` to `to` can be a memref.cast: both have the
/// same layout, element type and memory space, and differ only in which
/// sizes are static.
bool castsExactly(Type from, Type to) {
  auto source = dyn_cast<MemRefType>(from);
  auto target = dyn_cast<MemRefType>(to);
  return source && target && source.getLayout() == target.getLayout() &&
         memref::CastOp::areCastCompatible(source, target);
}

struct UncloneReturnedArgumentsPass
    : public jit::impl::UncloneReturnedArgumentsBase<
          UncloneReturnedArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto function : module.getOps<func::FuncOp>()) {
      // A function the module calls keeps its clones: the caller's
      // deallocation owns (and frees) what a call returns.
      if (function.isExternal() ||
          !SymbolTable::symbolKnownUseEmpty(function, module))
        continue;
      SmallVector<bufferization::CloneOp> clones;
      function.walk([&](bufferization::CloneOp clone) {
        Value result = clone.getOutput();
        if (result.hasOneUse() &&
            isa<func::ReturnOp>(*result.getUsers().begin()) &&
            viewsArgumentOf(clone.getInput(), function))
          clones.push_back(clone);
      });
      for (bufferization::CloneOp clone : clones) {
        Value input = clone.getInput();
        if (input.getType() == clone.getType()) {
          clone.replaceAllUsesWith(input);
          clone.erase();
        } else if (castsExactly(input.getType(), clone.getType())) {
          OpBuilder builder(clone);
          Value cast = memref::CastOp::create(builder, clone.getLoc(),
                                              clone.getType(), input);
          clone.replaceAllUsesWith(cast);
          clone.erase();
        }
      }
    }
  }
};

} // namespace
