//===- ArgumentWrites.cpp - Which arguments a function may write ----------===//

#include "ArgumentWrites.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

/// Whether `user` may write the memory of `value`, one of its operands:
/// its memory effects on the value say so, or it has no memory effects to
/// ask (a call, a branch, a loop passing the value on), or it yields the
/// value to ops whose results then alias it. Returning it from the function
/// ends the call.
bool mayWrite(Operation *user, Value value) {
  if (user->hasTrait<OpTrait::ReturnLike>())
    return !isa<FunctionOpInterface>(user->getParentOp());
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
           (!e.getValue() || e.getValue() == value);
  });
}

} // namespace

bool jit::mayWriteArgument(Operation *function, unsigned index) {
  if (function->getNumRegions() != 1 || function->getRegion(0).empty())
    return true;
  Value argument = function->getRegion(0).front().getArgument(index);
  if (!isa<MemRefType, UnrankedMemRefType>(argument.getType()))
    return false;
  // The argument and every memref an op derives from it (views, casts, the
  // base buffer of extract_strided_metadata) share its memory.
  SmallVector<Value> aliases{argument};
  llvm::SmallPtrSet<Value, 8> seen{argument};
  while (!aliases.empty()) {
    Value value = aliases.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (mayWrite(user, value))
        return true;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          aliases.push_back(result);
    }
  }
  return false;
}
