# RUN: %PYTHON %s | FileCheck %s
#
# linalg.conv_2d_nhwc_hwcf under FAST_PIPELINE: jit-convolutions-as-matmuls
# copies the input's windows into a matrix (a row an output pixel, a column
# a filter tap) and makes the convolution the matmul of that matrix and the
# filter, in blocks of 256 rows on the threads, each block's matmul tiled,
# packed and vectorized by the schedule. A 1x1 filter with unit strides
# over an input the output's size reads the input as it is. Strides,
# dilations and the cast are kept, and a dynamic batch. Left to the loops:
# fewer than 8 filters (faster there), and more dynamic sizes (LLVM 22
# crashes on the unfolding of the result then). The results are
# DEFAULT_PIPELINE's loops' (small integers: exact whatever the rounding)
# and numpy's.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

CONV = """
func.func @conv(%x: tensor<{x}x{input}>, %k: tensor<{k}x{input}>, %o: tensor<{o}x{output}>) -> tensor<{o}x{output}> {{
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<[{dh}, {dw}]> : tensor<2xi64>, strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}
      ins(%x, %k : tensor<{x}x{input}>, tensor<{k}x{input}>) outs(%o : tensor<{o}x{output}>) -> tensor<{o}x{output}>
  return %r : tensor<{o}x{output}>
}}
"""


def out_size(size, kernel, stride, dilation):
    return (size - (kernel - 1) * dilation - 1) // stride + 1


def conv(shape, element="f32", output=None, strides=(1, 1), dilations=(1, 1), dynamic="none"):
    """A conv_2d_nhwc_hwcf source for `shape` (n, h, w, c, kh, kw, f), its
    sizes static, the batch `?` (dynamic="batch") or all `?` ("all")."""
    n, h, w, c, kh, kw, f = shape
    oh, ow = (out_size(*args) for args in zip((h, w), (kh, kw), strides, dilations))

    def dims(*sizes, batched=True):
        if dynamic == "all":
            return "?x?x?x?"
        first = "?" if dynamic == "batch" and batched else str(sizes[0])
        return "x".join([first, *map(str, sizes[1:])])

    return CONV.format(
        x=dims(n, h, w, c),
        k=dims(kh, kw, c, f, batched=False),
        o=dims(n, oh, ow, f),
        input=element,
        output=output or element,
        sh=strides[0],
        sw=strides[1],
        dh=dilations[0],
        dw=dilations[1],
    )


def rewritten(source):
    with Context():
        module = Module.parse(source)
        PassManager.parse("builtin.module(func.func(jit-convolutions-as-matmuls))").run(
            module.operation
        )
        print(module)


# The windows (n, oh, ow, kh, kw, c) read with the strides and dilations,
# folded to a matrix; the filter and the output folded; their matmul in
# blocks of 256 rows in an scf.forall, its result unfolded to the output's
# shape.
# The window map: rows at oh * 3 + kh, columns at ow * 2 + kw * 2.
# CHECK: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 3 + d3, d2 * 2 + d4 * 2, d5)>
# CHECK-LABEL: func.func @conv
# CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
# CHECK-SAME: ins(%{{.*}} : tensor<2x9x11x3xf32>) outs(%{{.*}} : tensor<2x3x5x3x2x3xf32>)
# CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x3x5x3x2x3xf32> into tensor<30x18xf32>
# CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<3x2x3x8xf32> into tensor<18x8xf32>
# CHECK: tensor.collapse_shape {{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<2x3x5x8xf32> into tensor<30x8xf32>
# CHECK: scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<30x8xf32>)
# CHECK: linalg.matmul ins({{.*}} : tensor<?x18xf32>, tensor<18x8xf32>) outs({{.*}} : tensor<?x8xf32>)
# CHECK: tensor.parallel_insert_slice
# CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 5, 8] : tensor<30x8xf32> into tensor<2x3x5x8xf32>
# CHECK-NOT: linalg.conv_2d_nhwc_hwcf
rewritten(conv((2, 9, 11, 3, 3, 2, 8), strides=(3, 2), dilations=(1, 2)))

# A 1x1 filter with unit strides: the input is the matrix, no copy.
# CHECK-LABEL: func.func @conv
# CHECK-NOT: linalg.generic
# CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<2x6x7x3xf32> into tensor<84x3xf32>
# CHECK: linalg.matmul
rewritten(conv((2, 6, 7, 3, 1, 1, 8)))

# A 1x1 filter with a stride of 2: windows copied.
# CHECK-LABEL: func.func @conv
# CHECK: linalg.generic
# CHECK: linalg.matmul
rewritten(conv((2, 6, 7, 3, 1, 1, 8), strides=(2, 1)))

# A batch of unknown size: the same matrices, of unknown height; the result
# unfolded with the batch's size.
# CHECK-LABEL: func.func @conv
# CHECK-NOT: linalg.generic
# CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<?x6x7x3xf32> into tensor<?x3xf32>
# CHECK: scf.forall
# CHECK: linalg.matmul ins({{.*}} : tensor<?x3xf32>, tensor<3x8xf32>) outs({{.*}} : tensor<?x8xf32>)
# CHECK: tensor.expand_shape {{.*}} output_shape [%{{.*}}, 6, 7, 8]
rewritten(conv((2, 6, 7, 3, 1, 1, 8), dynamic="batch"))

# All sizes unknown, or fewer than 8 filters: left to the loops.
# CHECK-LABEL: func.func @conv
# CHECK-NOT: linalg.matmul
# CHECK: linalg.conv_2d_nhwc_hwcf
rewritten(conv((2, 6, 7, 3, 1, 1, 8), dynamic="all"))
# CHECK-LABEL: func.func @conv
# CHECK-NOT: linalg.matmul
# CHECK: linalg.conv_2d_nhwc_hwcf
rewritten(conv((2, 9, 9, 3, 3, 3, 7)))

rng = np.random.default_rng(0)


def expected_conv(x, k, o, strides, dilations, dtype):
    """numpy's convolution: o + the sum over the taps, in the output's type."""
    n, oh, ow, f = o.shape
    result = o.astype(np.int64 if dtype.kind == "i" else np.float64)
    for i in range(k.shape[0]):
        for j in range(k.shape[1]):
            rows = x[:, i * dilations[0] :: strides[0]][:, :oh]
            columns = rows[:, :, j * dilations[1] :: strides[1]][:, :, :ow]
            result = result + np.tensordot(
                columns.astype(result.dtype), k[i, j].astype(result.dtype), 1
            )
    return result.astype(dtype)


# Sizes around the schedule's blocks (64 rows and columns), 1x1 to 5x5
# filters, strides and dilations, a batch of 1 or several; sizes static,
# the batch dynamic, or all; f32, f64, i32, and i8 into i32. Both pipelines equal numpy
# exactly (small integers).
agree = {}
for element, output, dtype, out_dtype in [
    ("f32", None, np.float32, np.float32),
    ("f64", None, np.float64, np.float64),
    ("i32", None, np.int32, np.int32),
    ("i8", "i32", np.int8, np.int32),
]:
    for shape, strides, dilations in [
        ((1, 10, 10, 3, 3, 3, 8), (1, 1), (1, 1)),
        ((2, 17, 19, 5, 3, 2, 9), (2, 1), (1, 1)),
        ((1, 14, 13, 6, 3, 3, 65), (1, 2), (2, 1)),
        ((3, 9, 9, 70, 1, 1, 8), (1, 1), (1, 1)),
        ((1, 9, 9, 4, 1, 1, 8), (2, 2), (1, 1)),
        ((1, 12, 12, 2, 5, 5, 3), (1, 1), (1, 1)),
        ((2, 3, 3, 4, 3, 3, 16), (1, 1), (1, 1)),
    ]:
        n, h, w, c, kh, kw, f = shape
        oh, ow = (out_size(*args) for args in zip((h, w), (kh, kw), strides, dilations))
        x = rng.integers(-3, 4, (n, h, w, c)).astype(dtype)
        k = rng.integers(-3, 4, (kh, kw, c, f)).astype(dtype)
        o = rng.integers(-3, 4, (n, oh, ow, f)).astype(out_dtype)
        expected = expected_conv(x, k, o, strides, dilations, np.dtype(out_dtype))
        for dynamic in ("none", "batch", "all"):
            source = conv(shape, element, output, strides, dilations, dynamic)
            results = [
                jit(source, pipeline=p).conv(x, k, o) for p in (FAST_PIPELINE, DEFAULT_PIPELINE)
            ]
            key = (element, shape)
            agree[key] = agree.get(key, True) and all(np.array_equal(r, expected) for r in results)
# CHECK: agree: True
print("agree:", all(agree.values()) or agree)

# Views (reversed rows, a Fortran-order input, a strided filter) and random
# floats large enough for the threads: within rounding of numpy.
shape = (2, 30, 28, 16, 3, 3, 32)
fast = jit(conv(shape, dynamic="batch"), pipeline=FAST_PIPELINE)
x = rng.standard_normal((2, 30, 28, 16), dtype=np.float32)
k = rng.standard_normal((3, 3, 16, 32), dtype=np.float32)
o = np.zeros((2, 28, 26, 32), np.float32)
views = [
    (x, k),
    (x[:, ::-1], k),
    (np.asfortranarray(x), k),
    (x, np.ascontiguousarray(k[:, :, :, ::-1])[:, :, :, ::-1]),
]
# CHECK: views and random: [True, True, True, True]
print(
    "views and random:",
    [
        np.allclose(
            fast.conv(xv, kv, o),
            expected_conv(xv, kv, o, (1, 1), (1, 1), np.dtype(np.float32)),
            rtol=1e-4,
            atol=1e-4,
        )
        for xv, kv in views
    ],
)

# An output shorter or narrower than the input allows: the convolution
# reads the input's first rows and columns, so a 1x1 filter's windows are
# copied.
SMALLER = """
func.func @conv(%x: tensor<1x{h}x{w}x2xf32>, %k: tensor<1x1x2x8xf32>, %o: tensor<1x8x7x8xf32>) -> tensor<1x8x7x8xf32> {{
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %k : tensor<1x{h}x{w}x2xf32>, tensor<1x1x2x8xf32>)
      outs(%o : tensor<1x8x7x8xf32>) -> tensor<1x8x7x8xf32>
  return %r : tensor<1x8x7x8xf32>
}}
"""
smaller = []
for h, w in [(10, 7), (8, 9)]:
    x = rng.integers(-3, 4, (1, h, w, 2)).astype(np.float32)
    k = rng.integers(-3, 4, (1, 1, 2, 8)).astype(np.float32)
    o = np.zeros((1, 8, 7, 8), np.float32)
    fast = jit(SMALLER.format(h=h, w=w), pipeline=FAST_PIPELINE)
    smaller.append(np.array_equal(fast.conv(x, k, o), x[:, :8, :7] @ k[0, 0]))
# CHECK: an output smaller than the input: [True, True]
print("an output smaller than the input:", smaller)

# Memrefs are left to the loops; a size of 0 computes nothing.
MEMREF = """
func.func @conv(%x: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %o: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf ins(%x, %k : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%o : memref<?x?x?x?xf32>)
  return
}
"""
x = rng.integers(-3, 4, (1, 6, 6, 2)).astype(np.float32)
k = rng.integers(-3, 4, (3, 3, 2, 3)).astype(np.float32)
o = np.zeros((1, 4, 4, 3), np.float32)
jit(MEMREF, pipeline=FAST_PIPELINE).conv(x, k, o)
zero = conv((0, 5, 5, 2, 3, 3, 4))
# CHECK: memrefs and empty batches: True (0, 3, 3, 4)
print(
    "memrefs and empty batches:",
    np.array_equal(o, expected_conv(x, k, np.zeros_like(o), (1, 1), (1, 1), np.dtype(np.float32))),
    jit(zero, pipeline=FAST_PIPELINE)
    .conv(*(np.zeros(s, np.float32) for s in [(0, 5, 5, 2), (3, 3, 2, 4), (0, 3, 3, 4)]))
    .shape,
)
