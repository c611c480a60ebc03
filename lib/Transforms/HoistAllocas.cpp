//===- HoistAllocas.cpp - Stack allocations in loops free each iteration --===//
//
// jit-hoist-allocas: a loop (scf.for, scf.parallel, scf.forall, affine's) is
// an automatic allocation scope, whose memref.allocas are freed at the end
// of each iteration, but convert-scf-to-cf lowers it to blocks without
// freeing them: an alloca inside a loop grows the stack every iteration
// (LLVM keeps only the allocas of a function's entry block in its frame).
// convert-vector-to-scf puts its temporaries (the buffers of a transfer of
// an n-d vector) in the innermost such scope, the loop around the transfer:
// at opt_level 0, where LLVM does not promote them to registers, the
// matmul's k loop overflowed the stack at 130x1030x70.
//
// This pass, run before the loops are lowered, moves an alloca of a static
// size out of its loops (scf.while's too, which is no scope), to just
// before the outermost of them within its scope (the function, or one
// parallel iteration's memref.alloca_scope, each thread its own): the loop
// reuses one buffer, whose contents an alloca does not define anyway, and
// code that never enters the loop allocates nothing. A loop with allocas of
// dynamic size saves the stack pointer at the start of its body and
// restores it at the end, as memref.alloca_scope is lowered.
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_HOISTALLOCAS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// The innermost loop enclosing `op` (scf.for, scf.while, affine.for, ...:
/// lowered to blocks that run its body again without freeing its allocas)
/// within `op`'s automatic allocation scope, or null. A loop that is a scope
/// (scf.for) frees its allocas each iteration by MLIR's rules; one that is
/// not (scf.while) runs the body of the function again: freeing each
/// iteration's allocas is what both would do in a loop.
Operation *enclosingLoop(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<LoopLikeOpInterface>(parent))
      return parent;
    if (parent->hasTrait<OpTrait::AutomaticAllocationScope>())
      return nullptr;
  }
  return nullptr;
}

/// Frees the stack `loop`'s iterations allocate at the end of each one:
/// llvm.intr.stacksave at the start of its body, llvm.intr.stackrestore
/// before its terminator. Fails on a body of several blocks.
LogicalResult freeEachIteration(Operation *loop) {
  for (Region &region : loop->getRegions()) {
    if (!region.hasOneBlock())
      return loop->emitOpError(
          "allocates on the stack in a body of several blocks, which "
          "jit-hoist-allocas cannot free each iteration");
  }
  auto pointer = LLVM::LLVMPointerType::get(loop->getContext());
  for (Region &region : loop->getRegions()) {
    Block &body = region.front();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    Value stack = LLVM::StackSaveOp::create(builder, loop->getLoc(), pointer);
    builder.setInsertionPoint(body.getTerminator());
    LLVM::StackRestoreOp::create(builder, loop->getLoc(), stack);
  }
  return success();
}

struct HoistAllocasPass : public jit::impl::HoistAllocasBase<HoistAllocasPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> allocas;
    getOperation()->walk(
        [&](memref::AllocaOp alloca) { allocas.push_back(alloca); });
    llvm::SetVector<Operation *> loops;
    for (memref::AllocaOp alloca : allocas) {
      Operation *loop = enclosingLoop(alloca);
      if (!loop)
        continue;
      if (alloca->getNumOperands() != 0) {
        loops.insert(loop);
        continue;
      }
      // Just before the outermost loop of its scope: allocated once, where
      // the loop is entered (never where it is not, as at the function's
      // entry); in a parallel iteration's memref.alloca_scope, each
      // thread its own.
      while (Operation *outer = enclosingLoop(loop))
        loop = outer;
      alloca->moveBefore(loop);
    }
    for (Operation *loop : loops)
      if (failed(freeEachIteration(loop)))
        return signalPassFailure();
  }
};

} // namespace
