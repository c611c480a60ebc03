//===- RegisterAccumulators.cpp - Loops' accumulators kept in registers
//-----===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_REGISTERACCUMULATORS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {
/// The memref `memref` is a view of, through its view-like ops.
Value viewedMemref(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `memref` is the result of an allocation (heap or stack).
bool isAllocation(Value memref) {
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
      memref.getDefiningOp());
}

/// Whether memory from `allocation`, allocated in a function, and `other`
/// cannot overlap: `other` views another allocation, or an argument of
/// that function (which existed before the allocation).
bool isDisjoint(Value allocation, Value other) {
  Value viewed = viewedMemref(other);
  if (viewed == allocation)
    return false;
  if (isAllocation(viewed))
    return true;
  auto argument = dyn_cast<BlockArgument>(viewed);
  auto function =
      allocation.getDefiningOp()->getParentOfType<CallableOpInterface>();
  return argument && function && argument.getOwner()->isEntryBlock() &&
         argument.getOwner()->getParentOp() == function;
}

/// The load and store of an accumulator in `loop`'s body: one element of an
/// allocation, at indices the loop does not change, that the loop loads
/// then stores and no other access in it can touch (the loops of a linalg
/// reduction). Null when the body has none, or other effects.
std::pair<memref::LoadOp, memref::StoreOp> findAccumulator(scf::ForOp loop) {
  SmallVector<memref::LoadOp> loads;
  memref::StoreOp store;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      loads.push_back(load);
    else if (auto opStore = dyn_cast<memref::StoreOp>(op); opStore && !store)
      store = opStore;
    else if (!isMemoryEffectFree(&op))
      return {};
  }
  if (!store || loop.getUnsignedCmp() || loop.getNumRegionIterArgs() != 0)
    return {};
  Value allocation = viewedMemref(store.getMemRef());
  if (!isAllocation(allocation) ||
      !loop.isDefinedOutsideOfLoop(store.getMemRef()) ||
      !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return {};
  memref::LoadOp accumulator;
  for (memref::LoadOp load : loads) {
    if (load.getMemRef() == store.getMemRef() &&
        llvm::equal(load.getIndices(), store.getIndices()) && !accumulator &&
        load->isBeforeInBlock(store))
      accumulator = load;
    else if (!isDisjoint(allocation, load.getMemRef()))
      return {};
  }
  if (!accumulator)
    return {};
  return {accumulator, store};
}

/// Keeps `loop`'s accumulator in a register: loaded before the loop (when
/// it runs at all), an iteration argument, stored after. LLVM would do it
/// itself only where it proves the accumulator apart from the other
/// memrefs, which it cannot in the functions OpenMP's regions become: its
/// loop then neither keeps the accumulator in a register nor vectorizes.
void keepInRegister(scf::ForOp loop, memref::LoadOp load,
                    memref::StoreOp store) {
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  Value runs =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                            loop.getLowerBound(), loop.getUpperBound());
  scf::IfOp::create(builder, loc, runs, [&](OpBuilder &then, Location) {
    Value initial = then.clone(*load)->getResult(0);
    auto accumulating = scf::ForOp::create(
        then, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
        ValueRange{initial},
        [&](OpBuilder &body, Location, Value iv, ValueRange accumulator) {
          IRMapping mapping;
          mapping.map(loop.getInductionVar(), iv);
          mapping.map(load.getResult(), accumulator.front());
          for (Operation &op : loop.getBody()->without_terminator())
            if (&op != load && &op != store)
              body.clone(op, mapping);
          scf::YieldOp::create(body, loc,
                               mapping.lookupOrDefault(store.getValue()));
        });
    memref::StoreOp::create(then, loc, accumulating.getResult(0),
                            store.getMemRef(), store.getIndices());
    scf::YieldOp::create(then, loc);
  });
  loop.erase();
}

/// Keeps the accumulators of loops (linalg's reductions) in registers.
struct RegisterAccumulatorsPass
    : public jit::impl::RegisterAccumulatorsBase<RegisterAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      auto [load, store] = findAccumulator(loop);
      if (load)
        keepInRegister(loop, load, store);
    }
  }
};

} // namespace
