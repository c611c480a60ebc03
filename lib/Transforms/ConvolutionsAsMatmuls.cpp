//===- ConvolutionsAsMatmuls.cpp - 2-D convolutions as matmuls ----------===//
//
// jit-convolutions-as-matmuls: a linalg.conv_2d_nhwc_hwcf was lowered to
// seven nested scalar loops on one core (about 2.7 GFLOP/s, 50 to 100 times
// slower than PyTorch's). This pass, run on tensors before FAST_PIPELINE's
// schedule, rewrites it as the matmul the schedule tiles, packs, vectorizes
// and runs on the threads: the input's windows are copied into a matrix
// (im2col) with a row for each output pixel (n, oh, ow) and a column for
// each filter tap (kh, kw, c), the filter read as a (kh*kw*c) x f matrix,
// the output as (n*oh*ow) x f, the matmul computed in blocks of 256 rows on
// the threads. Each output element is the same sum, its terms in the same
// order (kh, then kw, then c). The matrix is a temporary of kh*kw times the
// input's size (9 times for 3x3 filters). A 1x1 filter with unit
// strides over an input the size of the output needs no copy: the input is
// that matrix already. Left to the loops: convolutions on memrefs, those of
// fewer than 8 filters (a matmul of so few columns was slower than the
// loops: with 4 filters 2 times, with 1, 30 times; with 8, 3 times faster),
// and those with more than one of n, oh and ow dynamic (LLVM 22's
// expand-strided-metadata crashes on the memref.expand_shape of the result
// then, a group of several dynamic sizes).
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"
#include "lib/Transforms/StaticSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace mlir::jit {
#define GEN_PASS_DEF_CONVOLUTIONSASMATMULS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::jit

namespace {

/// The reassociation that folds (n, oh, ow) and keeps the last dimension.
const SmallVector<ReassociationIndices> kPixelsByLast = {{0, 1, 2}, {3}};

/// Whether the input of `conv` is, as it is, the (n*oh*ow) x c matrix of
/// its windows: a statically 1x1 filter, unit strides, and the input's
/// height and width statically the output's.
bool inputIsWindowMatrix(linalg::Conv2DNhwcHwcfOp conv) {
  ArrayRef<int64_t> input =
      cast<ShapedType>(conv.getInputs()[0].getType()).getShape();
  ArrayRef<int64_t> filter =
      cast<ShapedType>(conv.getInputs()[1].getType()).getShape();
  ArrayRef<int64_t> output =
      cast<ShapedType>(conv.getOutputs()[0].getType()).getShape();
  return filter[0] == 1 && filter[1] == 1 &&
         llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t stride) { return stride == 1; }) &&
         !ShapedType::isDynamic(input[1]) && input[1] == output[1] &&
         !ShapedType::isDynamic(input[2]) && input[2] == output[2];
}

/// The (n*oh*ow) x (kh*kw*c) matrix of `conv`'s input windows: a copy of
/// the input as (n, oh, ow, kh, kw, c), read with the strides and
/// dilations, folded to two dimensions.
Value windowMatrix(OpBuilder &builder, Location loc,
                   linalg::Conv2DNhwcHwcfOp conv) {
  Value input = conv.getInputs()[0];
  if (inputIsWindowMatrix(conv))
    return tensor::CollapseShapeOp::create(builder, loc, input, kPixelsByLast);
  SmallVector<OpFoldResult> outputSizes =
      tensor::getMixedSizes(builder, loc, conv.getOutputs()[0]);
  SmallVector<OpFoldResult> filterSizes =
      tensor::getMixedSizes(builder, loc, conv.getInputs()[1]);
  SmallVector<OpFoldResult> sizes = {outputSizes[0], outputSizes[1],
                                     outputSizes[2], filterSizes[0],
                                     filterSizes[1], filterSizes[2]};
  Value empty = tensor::EmptyOp::create(builder, loc, sizes,
                                        getElementTypeOrSelf(input.getType()));

  MLIRContext *context = builder.getContext();
  AffineExpr n, oh, ow, kh, kw, c;
  bindDims(context, n, oh, ow, kh, kw, c);
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  AffineMap read = AffineMap::get(6, 0,
                                  {n, oh * strides[0] + kh * dilations[0],
                                   ow * strides[1] + kw * dilations[1], c},
                                  context);
  SmallVector<AffineMap> maps = {read,
                                 AffineMap::getMultiDimIdentityMap(6, context)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  Value windows =
      linalg::GenericOp::create(
          builder, loc, TypeRange{empty.getType()}, ValueRange{input},
          ValueRange{empty}, maps, iterators,
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(nested, nestedLoc, args[0]);
          })
          ->getResult(0);
  return tensor::CollapseShapeOp::create(
      builder, loc, windows,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
}

/// Rows of the window matrix a thread's task computes.
constexpr int64_t kRowsPerTask = 256;

/// `pixels` + `windows` x `filter`, blocks of kRowsPerTask rows in an
/// scf.forall: the schedule splits a matmul by columns only, and a
/// convolution has few (its filters), often one panel's worth.
Value multiplyInRowBlocks(OpBuilder &builder, Location loc, Value windows,
                          Value filter, Value pixels) {
  Value rows = tensor::DimOp::create(builder, loc, pixels, 0);
  Value block = arith::ConstantIndexOp::create(builder, loc, kRowsPerTask);
  Value tasks = arith::CeilDivUIOp::create(builder, loc, rows, block);
  auto forall =
      scf::ForallOp::create(builder, loc, ArrayRef<OpFoldResult>{tasks},
                            ValueRange{pixels}, std::nullopt);
  builder.setInsertionPoint(forall.getTerminator());
  Value task = forall.getInductionVars()[0];
  Value first = arith::MulIOp::create(builder, loc, task, block);
  // The last block's rows: those left, kRowsPerTask at most.
  Value count = arith::MinUIOp::create(
      builder, loc, block, arith::SubIOp::create(builder, loc, rows, first));
  auto rowsOf = [&](Value matrix) {
    OpFoldResult columns = tensor::getMixedSize(builder, loc, matrix, 1);
    SmallVector<OpFoldResult> offsets = {first, builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {count, columns};
    SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(builder, loc, matrix, offsets, sizes,
                                          strides);
  };
  tensor::ExtractSliceOp output = rowsOf(forall.getRegionIterArgs()[0]);
  // The convolution's cast is a signed one, as is the matmul's default.
  Value product = linalg::MatmulOp::create(
                      builder, loc, TypeRange{output.getType()},
                      ValueRange{rowsOf(windows), filter}, ValueRange{output})
                      ->getResult(0);
  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      builder, loc, product, forall.getRegionIterArgs()[0],
      output.getMixedOffsets(), output.getMixedSizes(),
      output.getMixedStrides());
  builder.setInsertionPointAfter(forall);
  return forall.getResult(0);
}

/// The fewest filters (the matmul's columns) worth a matmul.
constexpr int64_t kMinFilters = 8;

/// Whether `conv` has statically fewer than kMinFilters filters.
bool hasFewFilters(linalg::Conv2DNhwcHwcfOp conv) {
  int64_t filters =
      cast<ShapedType>(conv.getInputs()[1].getType()).getShape()[3];
  return !ShapedType::isDynamic(filters) && filters < kMinFilters;
}

/// Whether more than one of the output's n, oh and ow is dynamic.
bool hasDynamicPixelSizes(linalg::Conv2DNhwcHwcfOp conv) {
  ArrayRef<int64_t> output =
      cast<ShapedType>(conv.getOutputs()[0].getType()).getShape();
  return llvm::count_if(output.take_front(3), ShapedType::isDynamic) > 1;
}

/// Replaces `conv` by the matmul of its window matrix and filter, or leaves
/// it (on memrefs, of a static size of 0, of few filters, or with dynamic
/// pixel sizes).
void rewriteAsMatmul(linalg::Conv2DNhwcHwcfOp conv) {
  if (!conv.hasPureTensorSemantics() || jit::hasStaticZeroSize(conv) ||
      hasFewFilters(conv) || hasDynamicPixelSizes(conv))
    return;
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  Value output = conv.getOutputs()[0];
  Value windows = windowMatrix(builder, loc, conv);
  Value filter = tensor::CollapseShapeOp::create(
      builder, loc, conv.getInputs()[1],
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  Value pixels =
      tensor::CollapseShapeOp::create(builder, loc, output, kPixelsByLast);
  Value product = multiplyInRowBlocks(builder, loc, windows, filter, pixels);
  Value result = tensor::ExpandShapeOp::create(
      builder, loc, output.getType(), product, kPixelsByLast,
      tensor::getMixedSizes(builder, loc, output));
  conv->replaceAllUsesWith(ValueRange{result});
  conv->erase();
}

struct ConvolutionsAsMatmulsPass
    : public jit::impl::ConvolutionsAsMatmulsBase<ConvolutionsAsMatmulsPass> {
  void runOnOperation() override {
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation()->walk(
        [&](linalg::Conv2DNhwcHwcfOp op) { convs.push_back(op); });
    for (linalg::Conv2DNhwcHwcfOp conv : convs)
      rewriteAsMatmul(conv);
  }
};

} // namespace
