//===- ArgumentWrites.cpp - Which arguments a function may write ----------===//

#include "ArgumentWrites.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

bool mayWriteArgument(Operation *function, unsigned index,
                      llvm::SmallPtrSetImpl<Operation *> &active);

/// Whether `call` may write `value`, one of its operands: the callee is a
/// function of the module that may write the argument it gets (a function
/// being analyzed, one the call's module does not define, or a callback,
/// may).
bool callMayWrite(CallOpInterface call, Value value,
                  llvm::SmallPtrSetImpl<Operation *> &active) {
  auto callee =
      dyn_cast_if_present<FunctionOpInterface>(call.resolveCallable());
  if (!callee || callee.isExternal() || active.contains(callee))
    return true;
  for (auto [i, operand] : llvm::enumerate(call.getArgOperands()))
    if (operand == value && mayWriteArgument(callee, i, active))
      return true;
  return false;
}

/// Whether `user` may write the memory of `value`, one of its operands: its
/// memory effects on the value say so; it has none to ask (a loop passing
/// the value on); it yields or branches with the value (to block arguments
/// or results that then alias it); it turns the memref into an address
/// (code may store through that) or writable tensor; or it calls a function
/// that may write it. Returning it from the function ends the call.
bool mayWrite(Operation *user, Value value,
              llvm::SmallPtrSetImpl<Operation *> &active) {
  if (user->hasTrait<OpTrait::ReturnLike>())
    return !isa<FunctionOpInterface>(user->getParentOp());
  if (user->getNumSuccessors() > 0 ||
      isa<memref::ExtractAlignedPointerAsIndexOp, UnrealizedConversionCastOp>(
          user) ||
      user->hasAttr("writable"))
    return true;
  if (auto call = dyn_cast<CallOpInterface>(user))
    return callMayWrite(call, value, active);
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

bool mayWriteArgument(Operation *function, unsigned index,
                      llvm::SmallPtrSetImpl<Operation *> &active) {
  if (function->getNumRegions() != 1 || function->getRegion(0).empty())
    return true;
  Value argument = function->getRegion(0).front().getArgument(index);
  if (!isa<BaseMemRefType>(argument.getType()))
    return false;
  active.insert(function);
  // The argument and every memref an op derives from it (views, casts, the
  // base buffer of extract_strided_metadata) share its memory.
  SmallVector<Value> aliases{argument};
  llvm::SmallPtrSet<Value, 8> seen{argument};
  bool written = false;
  while (!aliases.empty() && !written) {
    Value value = aliases.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if ((written = mayWrite(user, value, active)))
        break;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          aliases.push_back(result);
    }
  }
  active.erase(function);
  return written;
}

} // namespace

bool jit::mayWriteArgument(Operation *function, unsigned index) {
  llvm::SmallPtrSet<Operation *, 4> active;
  return ::mayWriteArgument(function, index, active);
}
