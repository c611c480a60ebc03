# RUN: %PYTHON %s | FileCheck %s
#
# linalg.batch_matmul under FAST_PIPELINE: jit-unbatch-matmuls makes each
# batch a linalg.matmul on rank-reduced slices, the batches an scf.forall
# (on the threads), which the schedule then tiles, packs and vectorizes.
# Transposed and broadcast operands keep their maps, the cast its kind. The
# results are DEFAULT_PIPELINE's loops' (small integers: exact whatever the
# order) and numpy's, at sizes around the schedule's blocks, on views.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

A_MAP = "affine_map<(b, m, n, k) -> (b, m, k)>"
A_BROADCAST = "affine_map<(b, m, n, k) -> (m, k)>"
A_TRANSPOSED = "affine_map<(b, m, n, k) -> (b, k, m)>"
B_MAP = "affine_map<(b, m, n, k) -> (b, k, n)>"
B_TRANSPOSED = "affine_map<(b, m, n, k) -> (b, n, k)>"
C_MAP = "affine_map<(b, m, n, k) -> (b, m, n)>"

BATCH_MATMUL = """
func.func @bmm(%a: tensor<{a}x{input}>, %b: tensor<{b}x{input}>, %c: tensor<{c}x{output}>) -> tensor<{c}x{output}> {{
  %r = linalg.batch_matmul indexing_maps = [{a_map}, {b_map}, {c_map}] {cast}
      ins(%a, %b : tensor<{a}x{input}>, tensor<{b}x{input}>)
      outs(%c : tensor<{c}x{output}>) -> tensor<{c}x{output}>
  return %r : tensor<{c}x{output}>
}}
"""


def batch_matmul(
    element="f32",
    output=None,
    transposed=False,
    broadcast=False,
    a_transposed=False,
    cast="",
    shape=None,
):
    """A batch_matmul source, B `transposed`, A `broadcast` or
    `a_transposed`; `shape` (batches, m, n, k) makes the sizes static, else
    they are `?`."""
    batches, m, n, k = (str(size) for size in shape) if shape else "????"
    a_shape = f"{batches}x{k}x{m}" if a_transposed else f"{batches}x{m}x{k}"
    return BATCH_MATMUL.format(
        a=f"{m}x{k}" if broadcast else a_shape,
        b=f"{batches}x{n}x{k}" if transposed else f"{batches}x{k}x{n}",
        c=f"{batches}x{m}x{n}",
        input=element,
        output=output or element,
        a_map=A_BROADCAST if broadcast else A_TRANSPOSED if a_transposed else A_MAP,
        b_map=B_TRANSPOSED if transposed else B_MAP,
        c_map=C_MAP,
        cast=cast,
    )


# The rewrite itself: one scf.forall over the batches, a linalg.matmul on
# 2-D slices; a transposed B is transposed first, in the iteration.
# CHECK-LABEL: func.func @bmm
# CHECK: scf.forall (%[[BATCH:.*]]) in (%{{.*}}) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<?x?x?xf32>)
# CHECK: %[[C:.*]] = tensor.extract_slice %[[OUT]][%[[BATCH]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : tensor<?x?x?xf32> to tensor<?x?xf32>
# CHECK: %[[A:.*]] = tensor.extract_slice %arg0[%[[BATCH]], 0, 0]
# CHECK: %[[BT:.*]] = tensor.extract_slice %arg1[%[[BATCH]], 0, 0]
# CHECK: %[[B:.*]] = linalg.transpose ins(%[[BT]] : tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) permutation = [1, 0]
# CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[C]] : tensor<?x?xf32>)
# CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[BATCH]], 0, 0]
# CHECK-NOT: linalg.batch_matmul
with Context():
    module = Module.parse(batch_matmul(transposed=True))
    PassManager.parse("builtin.module(func.func(jit-unbatch-matmuls))").run(module.operation)
    print(module)

# A broadcast A is passed whole to every batch's matmul, unsliced.
# CHECK-LABEL: func.func @bmm
# CHECK: scf.forall
# CHECK: linalg.matmul ins(%arg0, %{{.*}} : tensor<4x3xi8>, tensor<3x5xi8>) outs(%{{.*}} : tensor<4x5xi32>) -> tensor<4x5xi32>
with Context():
    module = Module.parse(batch_matmul("i8", "i32", broadcast=True, shape=(2, 4, 5, 3)))
    PassManager.parse("builtin.module(func.func(jit-unbatch-matmuls))").run(module.operation)
    print(module)

rng = np.random.default_rng(0)


def operands(batches, m, n, k, dtype, transposed=False, broadcast=False, a_transposed=False):
    a_shape = (m, k) if broadcast else (batches, k, m) if a_transposed else (batches, m, k)
    b_shape = (batches, n, k) if transposed else (batches, k, n)
    a, b = (rng.integers(-4, 4, shape).astype(dtype) for shape in (a_shape, b_shape))
    c = rng.integers(-4, 4, (batches, m, n)).astype(dtype)
    expected = (np.swapaxes(a, 1, 2) if a_transposed else a) @ (
        np.swapaxes(b, 1, 2) if transposed else b
    ) + c
    return a, b, c, expected


# Each batch's matmul crosses the schedule's blocks (64 rows, 64 columns,
# 1024 steps of k) or has a size of 0 or 1; batches of 0, 1 and several.
# Both pipelines agree with numpy exactly, sizes static and dynamic,
# operands transposed or broadcast (f64 takes f32's route).
agree = {}
for element, dtype in [("f32", np.float32), ("i32", np.int32)]:
    for batches, m, n, k in [
        (3, 65, 70, 9),
        (2, 64, 64, 1030),
        (1, 7, 129, 5),
        (5, 1, 1, 1),
        (0, 5, 6, 7),
        (2, 0, 6, 7),
        (2, 5, 0, 7),
        (2, 5, 6, 0),
    ]:
        for layout in [{}, {"transposed": True}, {"broadcast": True}, {"a_transposed": True}]:
            a, b, c, expected = operands(batches, m, n, k, dtype, **layout)
            for shape in [None, (batches, m, n, k)] if not layout else [None]:
                source = batch_matmul(element, shape=shape, **layout)
                results = [
                    jit(source, pipeline=p).bmm(a, b, c) for p in (FAST_PIPELINE, DEFAULT_PIPELINE)
                ]
                key = (element, *layout)
                agree[key] = agree.get(key, True) and all(
                    np.array_equal(result, expected) for result in results
                )
# CHECK: agree: True
print("agree:", all(agree.values()) or agree)

# Views: negative and zero strides, a Fortran-order batch, a sliced one.
source = batch_matmul("f32")
fast = jit(source, pipeline=FAST_PIPELINE)
a, b, c, _ = operands(4, 33, 40, 17, np.float32)
views = [
    (a[::-1], b, c),
    (a, b[:, ::-1, :], c),
    (np.broadcast_to(a[:1], a.shape), b, c),
    (np.asfortranarray(a), np.asfortranarray(b), c),
    (a[:, ::2, :], b, c[:, ::2, :].copy()),
]
# CHECK: views: [True, True, True, True, True]
print("views:", [np.array_equal(fast.bmm(x, y, z), x @ y + z) for x, y, z in views])

# Random floats, large enough for the threads: within rounding of numpy.
a = rng.standard_normal((6, 130, 96), dtype=np.float32)
b = rng.standard_normal((6, 96, 200), dtype=np.float32)
c = np.zeros((6, 130, 200), np.float32)
# CHECK: random: True
print("random:", np.allclose(fast.bmm(a, b, c), a @ b, rtol=1e-4, atol=1e-4))

# The rewrite leaves memrefs (lowered to parallel loops) and unsigned
# extension (the schedule would sign-extend: left to the loops) right.
MEMREF = """
func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}
"""
a, b, c, expected = operands(3, 9, 10, 11, np.float32)
jit(MEMREF, pipeline=FAST_PIPELINE).bmm(a, b, c)
unsigned = batch_matmul("i8", "i32", cast="{cast = #linalg.type_fn<cast_unsigned>}")
a8 = rng.integers(0, 255, (2, 9, 70)).astype(np.uint8).view(np.int8)
b8 = rng.integers(0, 255, (2, 70, 5)).astype(np.uint8).view(np.int8)
c32 = np.zeros((2, 9, 5), np.int32)
expected_unsigned = a8.view(np.uint8).astype(np.int32) @ b8.view(np.uint8).astype(np.int32)
# CHECK: memref: True, unsigned: True
print(
    f"memref: {np.array_equal(c, expected)}, "
    f"unsigned: {np.array_equal(jit(unsigned, pipeline=FAST_PIPELINE).bmm(a8, b8, c32), expected_unsigned)}"
)
