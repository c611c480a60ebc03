//===- NestingDepth.cpp - How deeply IR nests, without recursion ----------===//

#include "mlir-c/NestingDepth.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <vector>

using namespace mlir;

namespace {

/// Depths of types and attributes, each computed once (they form a DAG),
/// by a walk over an explicit stack: the walk itself must not recurse.
class DepthWalker {
public:
  intptr_t depthOf(Type type) {
    return depthOf(Element(type.getAsOpaquePointer()), /*isType=*/true);
  }
  intptr_t depthOf(Attribute attribute) {
    return attribute ? depthOf(Element(attribute.getAsOpaquePointer()),
                               /*isType=*/false)
                     : 0;
  }

private:
  using Element = const void *;
  struct Frame {
    Element element;
    bool isType;
    bool expanded;
  };

  intptr_t depthOf(Element root, bool rootIsType) {
    std::vector<Frame> stack{{root, rootIsType, false}};
    while (!stack.empty()) {
      Frame &frame = stack.back();
      if (depths.count(frame.element) && !frame.expanded) {
        stack.pop_back(); // known, or being computed (a cycle): skip
        continue;
      }
      Element element = frame.element;
      bool isType = frame.isType;
      std::vector<Frame> children;
      auto onAttribute = [&](Attribute a) {
        if (a)
          children.push_back({a.getAsOpaquePointer(), false, false});
      };
      auto onType = [&](Type t) {
        if (t)
          children.push_back({t.getAsOpaquePointer(), true, false});
      };
      if (isType)
        Type::getFromOpaquePointer(element).walkImmediateSubElements(
            onAttribute, onType);
      else
        Attribute::getFromOpaquePointer(element).walkImmediateSubElements(
            onAttribute, onType);
      if (!frame.expanded) {
        frame.expanded = true;
        depths[element] = 0; // in progress
        for (const Frame &child : children)
          if (!depths.count(child.element))
            stack.push_back(child);
        continue;
      }
      intptr_t deepest = 0;
      for (const Frame &child : children)
        deepest = std::max(deepest, depths.lookup(child.element));
      depths[element] = deepest + 1;
      stack.pop_back();
    }
    return depths.lookup(root);
  }

  llvm::DenseMap<Element, intptr_t> depths;
};

} // namespace

intptr_t mlirTypeGetNestingDepth(MlirType type) {
  return DepthWalker().depthOf(unwrap(type));
}

intptr_t mlirAttributeGetNestingDepth(MlirAttribute attribute) {
  return DepthWalker().depthOf(unwrap(attribute));
}

intptr_t mlirOperationGetNestingDepth(MlirOperation op) {
  DepthWalker walker;
  intptr_t deepestOperation = 0, deepestElement = 0;
  // Operations by their nesting level, over an explicit stack too.
  std::vector<std::pair<Operation *, intptr_t>> stack{{unwrap(op), 1}};
  while (!stack.empty()) {
    auto [operation, level] = stack.back();
    stack.pop_back();
    deepestOperation = std::max(deepestOperation, level);
    intptr_t deepest =
        std::max({walker.depthOf(operation->getRawDictionaryAttrs()),
                  walker.depthOf(operation->getPropertiesAsAttribute()),
                  walker.depthOf(LocationAttr(operation->getLoc()))});
    for (Type type : operation->getResultTypes())
      deepest = std::max(deepest, walker.depthOf(type));
    for (Region &region : operation->getRegions())
      for (Block &block : region) {
        for (BlockArgument argument : block.getArguments())
          deepest = std::max({deepest, walker.depthOf(argument.getType()),
                              walker.depthOf(LocationAttr(argument.getLoc()))});
        for (Operation &nested : block)
          stack.emplace_back(&nested, level + 1);
      }
    deepestElement = std::max(deepestElement, deepest);
  }
  return deepestOperation + deepestElement;
}
