//===- ParallelFusion.cpp - Chains of linalg ops fused in parallel tiles --===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_PARALLELFUSION
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// The elements of its iteration space a tile computes at most: the tiles
/// of a chain's ops stay in the caches between them.
constexpr int64_t kTileElements = 16384;
/// The tiles a chain is split into at least, where it has as many rows.
constexpr int64_t kMinTiles = 8;

/// Whether `op`'s loops are known to be empty (LLVM 22's tiling crashes on
/// a static size of 0 in any of them).
bool hasEmptyLoop(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

/// Whether `op` may be fused into a tile: a linalg.generic or linalg.fill
/// on tensors without side effects (a call back into Python), which
/// would then move past other ops' and run again for each op that reads
/// the tile.
bool isFusable(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && isa<linalg::GenericOp, linalg::FillOp>(op) &&
         linalgOp.hasPureTensorSemantics() && !hasEmptyLoop(linalgOp) &&
         isMemoryEffectFree(op);
}

/// The ops of `root`'s block before it whose results only ops of the chain
/// use, transitively: computed in `root`'s tiles, they need no whole tensor
/// between them. `root` first, then each op before its producers.
SetVector<Operation *> chainOf(Operation *root) {
  SetVector<Operation *> chain;
  chain.insert(root);
  for (Operation *op = root->getPrevNode(); op; op = op->getPrevNode()) {
    if (isFusable(op) && !op->use_empty() &&
        llvm::all_of(op->getUsers(),
                     [&](Operation *user) { return chain.contains(user); }))
      chain.insert(op);
  }
  return chain;
}

/// The loop of `op` its tiles split: its first parallel one, if any.
std::optional<unsigned> tiledLoop(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto parallel = llvm::find(iterators, utils::IteratorType::parallel);
  if (parallel == iterators.end())
    return std::nullopt;
  return parallel - iterators.begin();
}

/// Whether `op` may end a chain: a linalg.generic on tensors in a
/// function's body (not in a loop already), with a parallel loop. The
/// chain is worth tiling when another linalg.generic of it feeds `op`, or
/// when `op` reduces over an outer loop (a column sum): lowered as it is,
/// its parallel loop, inside the reduction's, would fork once a row.
bool mayEndChain(linalg::GenericOp op) {
  std::optional<unsigned> tiled = tiledLoop(op);
  if (!op.hasPureTensorSemantics() || !tiled || hasEmptyLoop(op) ||
      !isa<FunctionOpInterface>(op->getParentOp()))
    return false;
  // Each tile writes its own part of every result: an output that does not
  // vary along the tiled loop (a total over a loop mislabelled parallel)
  // would be written by every tile at once.
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return op.getMatchingIndexingMap(&init).isFunctionOfDim(*tiled);
  });
}

/// A tile's size in `op`'s first loop: as many of its rows (its iterations
/// of the other loops) as make kTileElements, at least one, and at most an
/// eighth of them, so that the tiles keep every core busy.
SmallVector<OpFoldResult> rowsPerTile(OpBuilder &builder, Operation *op) {
  Location loc = op->getLoc();
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value).getResult();
  };
  auto value = [&](OpFoldResult size) -> Value {
    if (auto attr = dyn_cast<Attribute>(size))
      return index(cast<IntegerAttr>(attr).getInt());
    return cast<Value>(size);
  };
  SmallVector<Range> domain =
      cast<TilingInterface>(op).getIterationDomain(builder);
  Value one = index(1);
  Value row = one;
  for (Range range : llvm::drop_begin(domain))
    row = builder.createOrFold<arith::MulIOp>(loc, row, value(range.size));
  Value rows = builder.createOrFold<arith::DivUIOp>(
      loc, index(kTileElements),
      builder.createOrFold<arith::MaxUIOp>(loc, row, one));
  Value eighth = builder.createOrFold<arith::CeilDivUIOp>(
      loc, value(domain.front().size), index(kMinTiles));
  rows = builder.createOrFold<arith::MinUIOp>(loc, rows, eighth);
  return {builder.createOrFold<arith::MaxUIOp>(loc, rows, one)};
}

/// The columns of a tile of an op that reduces over its rows, at least:
/// its inner loop runs over them, contiguous, which LLVM vectorizes, and
/// each thread streams long runs of each row (with 512 columns, a 4096 x
/// 4096 f32 column sum on 2 threads took twice as long as one thread
/// reading whole rows; with 2048, about as long, and less than numpy).
constexpr int64_t kMinColumns = 2048;

/// Tile sizes of `op`'s loops: in its first loop, as many of its rows (its
/// iterations of the other loops) as make kTileElements, at least one, and
/// at most an eighth of them, so that the tiles keep every core busy. An op
/// that reduces over its first loops (a column sum) is tiled in its first
/// parallel loop instead: an eighth of it, at least kMinColumns; the
/// reduction then runs in each tile, over the rows of its columns.
SmallVector<OpFoldResult> tileSizes(OpBuilder &builder, Operation *op) {
  unsigned tiled = *tiledLoop(cast<linalg::GenericOp>(op));
  if (tiled != 0) {
    SmallVector<OpFoldResult> sizes(tiled, builder.getIndexAttr(0));
    Location loc = op->getLoc();
    Range range = cast<TilingInterface>(op).getIterationDomain(builder)[tiled];
    Value extent = getValueOrCreateConstantIndexOp(builder, loc, range.size);
    Value eighth = builder.createOrFold<arith::CeilDivUIOp>(
        loc, extent, arith::ConstantIndexOp::create(builder, loc, kMinTiles));
    sizes.push_back(builder.createOrFold<arith::MaxUIOp>(
        loc, eighth,
        arith::ConstantIndexOp::create(builder, loc, kMinColumns)));
    return sizes;
  }
  return rowsPerTile(builder, op);
}

/// Whether `slice`, in a tile loop, takes a different part of its tensor
/// in each iteration (a tile of a producer that does not would compute the
/// same values in every one).
bool movesWithLoop(tensor::ExtractSliceOp slice) {
  auto loop = slice->getParentOfType<scf::ForallOp>();
  return loop && llvm::any_of(slice.getMixedOffsets(), [&](OpFoldResult o) {
           auto value = dyn_cast<Value>(o);
           return value && !loop.isDefinedOutsideOfLoop(value);
         });
}

/// The ops a rewriter erased.
struct ErasedOps : public RewriterBase::Listener {
  DenseSet<Operation *> ops;
  void notifyOperationErased(Operation *op) override { ops.insert(op); }
};

/// Computes each chain of linalg ops on tensors that ends in a
/// linalg.generic (a softmax's row maximum, exponentials, sum and
/// division) in tiles of its last op's first, parallel loop: an
/// scf.forall that FAST_PIPELINE runs on OpenMP's threads, each tile
/// computing its part of every op of the chain, a tile of a producer
/// that two ops use computed once. The chain's ops then fork threads once,
/// not once each, and pass their tiles through the caches, not memory.
struct ParallelFusionPass
    : public jit::impl::ParallelFusionBase<ParallelFusionPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ends;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (mayEndChain(op))
        ends.push_back(op);
    });
    // Last first: a chain that takes another's end takes all of it.
    SmallVector<SetVector<Operation *>> chains;
    DenseSet<Operation *> taken;
    for (linalg::GenericOp end : llvm::reverse(ends)) {
      if (taken.contains(end))
        continue;
      SetVector<Operation *> chain = chainOf(end);
      if (*tiledLoop(end) == 0 &&
          llvm::none_of(chain.getArrayRef().drop_front(), [](Operation *op) {
            return isa<linalg::GenericOp>(op);
          }))
        continue;
      taken.insert(chain.begin(), chain.end());
      chains.push_back(std::move(chain));
    }
    if (chains.empty())
      return;
    IRRewriter rewriter(&getContext());
    ErasedOps erased;
    rewriter.setListener(&erased);
    for (const SetVector<Operation *> &chain : chains)
      fuseInTiles(rewriter, chain);
    // A chain's op not erased yet (an erased op's address may be reused).
    auto isChainOp = [&](Operation *op) {
      return op && taken.contains(op) && !erased.ops.contains(op);
    };
    // Tiling asked the chain's ops their sizes: asked their destinations
    // instead, the ops are left unused, and the tiles of a producer that
    // two ops use are the same ops, which CSE merges.
    getOperation()->walk([&](tensor::DimOp dim) {
      Value source = dim.getSource();
      while (isChainOp(source.getDefiningOp()))
        source = cast<DestinationStyleOpInterface>(source.getDefiningOp())
                     .getTiedOpOperand(cast<OpResult>(source))
                     ->get();
      if (source != dim.getSource())
        rewriter.modifyOpInPlace(
            dim, [&] { dim.getSourceMutable().assign(source); });
    });
    // CSE also erases the slices of the chain's ops that tiling left unused.
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    for (const SetVector<Operation *> &chain : chains)
      for (Operation *op : chain)
        if (isChainOp(op) && op->use_empty())
          rewriter.eraseOp(op);
  }

  /// Tiles `chain`'s end (its first op), fusing into each tile the tiles of
  /// the chain's producers that it needs.
  static void fuseInTiles(RewriterBase &rewriter,
                          const SetVector<Operation *> &chain) {
    auto end = cast<TilingInterface>(chain.front());
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
        .setTileSizeComputationFunction(tileSizes);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp slice, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!chain.contains(producer.getOwner()) || !movesWithLoop(slice))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(end);
    FailureOr<scf::SCFTileAndFuseResult> tiled =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, end, options);
    if (failed(tiled))
      return;
    for (OpResult result : end->getResults())
      if (Value replacement = tiled->replacements.lookup(result))
        rewriter.replaceAllUsesWith(result, replacement);
  }
};

} // namespace
