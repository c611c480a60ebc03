//===- UnbatchMatmuls.cpp - A batch of matmuls as matmuls in parallel ----===//
//
// jit-unbatch-matmuls: FAST_PIPELINE's schedule tiles, packs and vectorizes
// linalg.matmul; a linalg.batch_matmul (a batched matmul, multi-head
// attention's two products) was lowered to scalar loops, 50 times slower.
// This pass, run on tensors before the schedule, replaces each
// linalg.batch_matmul by an scf.forall over its batches, each a
// linalg.matmul on rank-reduced slices: the batches run on the threads, the
// schedule takes each matmul. A broadcast operand (a map without the
// batch dimension) is every batch's; a transposed one (multi-head
// attention's keys) is transposed first, in its batch's iteration: the
// schedule's packing then copies rows of it rather than gathering columns
// (q kᵀ 10 times faster). The op's cast is kept; each element is the same
// sum, in the same order.
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"
#include "lib/Transforms/StaticSizes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_UNBATCHMATMULS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// Whether `map`, over (batch, m, n, k), reads the batch dimension as its
/// first result and nowhere else: the operand is sliced per batch.
bool slicedPerBatch(AffineMap map) {
  return map.getNumResults() == 3 &&
         map.getResult(0) == getAffineDimExpr(0, map.getContext()) &&
         !map.getResult(1).isFunctionOfDim(0) &&
         !map.getResult(2).isFunctionOfDim(0);
}

/// Whether `map` does not read the batch dimension: one operand for all.
bool broadcastOverBatches(AffineMap map) {
  return map.getNumResults() == 2 && !map.isFunctionOfDim(0);
}

/// The slice of `value` (a tensor of rank 3) for `batch`, rank-reduced.
Value batchSlice(OpBuilder &builder, Location loc, Value value, Value batch) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, value);
  sizes[0] = builder.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets(3, builder.getIndexAttr(0));
  offsets[0] = batch;
  SmallVector<OpFoldResult> strides(3, builder.getIndexAttr(1));
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  return tensor::ExtractSliceOp::create(builder, loc, sliceType, value, offsets,
                                        sizes, strides);
}

/// The maps over (m, n, k) of `maps`, over (batch, m, n, k), the batch
/// dimension dropped; none unless C is sliced per batch and A and B are
/// each sliced per batch or broadcast.
std::optional<SmallVector<AffineMap>> matmulMaps(ArrayRef<AffineMap> maps) {
  if (!slicedPerBatch(maps[2]) ||
      !llvm::all_of(maps.take_front(2), [](AffineMap map) {
        return slicedPerBatch(map) || broadcastOverBatches(map);
      }))
    return std::nullopt;
  llvm::SmallBitVector batchDimension(4);
  batchDimension.set(0);
  SmallVector<AffineMap> reduced;
  for (AffineMap map : maps)
    reduced.push_back(compressDims(
        map.getNumResults() == 3 ? map.dropResult(0) : map, batchDimension));
  return reduced;
}

/// Whether `map` is `expected` or, if `transposable`, its transpose.
bool isOrTransposes(AffineMap map, AffineMap expected, bool transposable) {
  return map == expected ||
         (transposable &&
          map == AffineMap::get(3, 0,
                                {expected.getResult(1), expected.getResult(0)},
                                map.getContext()));
}

/// `value` (a matrix) in the layout `expected` reads: itself, or its
/// transpose (a linalg.transpose, which the schedule's packing then reads
/// row by row instead of gathering a column).
Value inLayout(OpBuilder &builder, Location loc, Value value, AffineMap map,
               AffineMap expected) {
  if (map == expected)
    return value;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, value);
  std::swap(sizes[0], sizes[1]);
  Value empty = tensor::EmptyOp::create(builder, loc, sizes,
                                        getElementTypeOrSelf(value.getType()));
  return linalg::TransposeOp::create(builder, loc, value, empty,
                                     ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

/// Replaces `batchMatmul` by an scf.forall of linalg.matmuls, or leaves it
/// (on memrefs, of a static size of 0, or with maps this pass does not
/// know).
void unbatch(linalg::BatchMatmulOp batchMatmul) {
  if (!batchMatmul.hasPureTensorSemantics() ||
      jit::hasStaticZeroSize(batchMatmul))
    return;
  std::optional<SmallVector<AffineMap>> maps =
      matmulMaps(batchMatmul.getIndexingMapsArray());
  SmallVector<AffineMap> defaults =
      linalg::MatmulOp::getDefaultIndexingMaps(batchMatmul.getContext());
  if (!maps || !isOrTransposes((*maps)[0], defaults[0], true) ||
      !isOrTransposes((*maps)[1], defaults[1], true) ||
      !isOrTransposes((*maps)[2], defaults[2], false))
    return;

  OpBuilder builder(batchMatmul);
  Location loc = batchMatmul.getLoc();
  Value output = batchMatmul.getDpsInits()[0];
  // The batches, counted as the loops count them: in the first operand that
  // has them (with C's count, a shorter A was read past its end).
  auto hasBatches = [](Value value) {
    return cast<ShapedType>(value.getType()).getRank() == 3;
  };
  auto inputs = batchMatmul.getDpsInputs();
  auto counted = llvm::find_if(inputs, hasBatches);
  OpFoldResult batches = tensor::getMixedSize(
      builder, loc, counted != inputs.end() ? *counted : output, 0);
  auto forall = scf::ForallOp::create(builder, loc, ArrayRef{batches},
                                      ValueRange{output}, std::nullopt);
  builder.setInsertionPoint(forall.getTerminator());
  Value batch = forall.getInductionVars()[0];
  Value outputSlice =
      batchSlice(builder, loc, forall.getRegionIterArgs()[0], batch);
  SmallVector<Value> matrices;
  for (auto [input, map, expected] : llvm::zip(inputs, *maps, defaults)) {
    // A broadcast operand (a matrix) is every batch's.
    Value matrix =
        hasBatches(input) ? batchSlice(builder, loc, input, batch) : input;
    matrices.push_back(inLayout(builder, loc, matrix, map, expected));
  }
  // The cast, given to the builder: the body it builds casts that way.
  SmallVector<NamedAttribute> cast;
  if (linalg::TypeFnAttr castAttr = batchMatmul.getCastAttr())
    cast.push_back(builder.getNamedAttr("cast", castAttr));
  Value product =
      linalg::MatmulOp::create(builder, loc, TypeRange{outputSlice.getType()},
                               matrices, ValueRange{outputSlice}, cast)
          ->getResult(0);

  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  auto sliceOp = outputSlice.getDefiningOp<tensor::ExtractSliceOp>();
  tensor::ParallelInsertSliceOp::create(
      builder, loc, product, forall.getRegionIterArgs()[0],
      sliceOp.getMixedOffsets(), sliceOp.getMixedSizes(),
      sliceOp.getMixedStrides());
  batchMatmul->replaceAllUsesWith(forall->getResults());
  batchMatmul->erase();
}

struct UnbatchMatmulsPass
    : public jit::impl::UnbatchMatmulsBase<UnbatchMatmulsPass> {
  void runOnOperation() override {
    SmallVector<linalg::BatchMatmulOp> batchMatmuls;
    getOperation()->walk(
        [&](linalg::BatchMatmulOp op) { batchMatmuls.push_back(op); });
    for (linalg::BatchMatmulOp batchMatmul : batchMatmuls)
      unbatch(batchMatmul);
  }
};

} // namespace
