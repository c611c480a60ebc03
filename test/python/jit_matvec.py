# RUN: %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE's schedule for linalg.matvec (schedules/fast.mlir): blocks
# of 64 rows on the threads; in each, 8 rows at a time, an 8 x 8 piece of A
# transposed in registers and its columns added in order, as FMAs on the 8
# rows' sums; the last rows and steps of k peeled off. Each row's sum keeps
# the loops' order: the results are DEFAULT_PIPELINE's (small integers:
# exact; an FMA rounds once, so a product of more than 24 bits may differ
# in its last bit, as in the matmul schedule), at sizes around the blocks,
# on views, tensors and memrefs.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from fixtures import print_scheduled

MATVEC = """
func.func @matvec(%a: tensor<{m}x{k}x{input}>, %x: tensor<{k}x{input}>, %y: tensor<{m}x{output}>) -> tensor<{m}x{output}> {{
  %r = linalg.matvec ins(%a, %x : tensor<{m}x{k}x{input}>, tensor<{k}x{input}>)
                     outs(%y : tensor<{m}x{output}>) -> tensor<{m}x{output}>
  return %r : tensor<{m}x{output}>
}}
"""
MEMREF = """
func.func @matvec(%a: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.matvec ins(%a, %x : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?xf32>)
  return
}
"""


def matvec(element="f32", output=None, m="?", k="?"):
    return MATVEC.format(m=m, k=k, input=element, output=output or element)


# CHECK-LABEL: func.func @matvec
# CHECK: scf.forall
# CHECK: scf.for {{.*}} step %c8
# CHECK: scf.for {{.*}} step %c8
# CHECK: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
# CHECK: vector.shuffle
# CHECK-COUNT-8: vector.fma {{.*}} : vector<8xf32>
# CHECK: linalg.matvec {{.*}} tensor<8x?xf32>
# CHECK: linalg.matvec {{.*}} tensor<?x?xf32>
# CHECK: scf.forall.in_parallel
print_scheduled(matvec())

rng = np.random.default_rng(0)
agree = {}
for element, output, dtype, out_dtype in [
    ("f32", None, np.float32, np.float32),
    ("f64", None, np.float64, np.float64),
    ("i32", None, np.int32, np.int32),
    ("i8", "i32", np.int8, np.int32),
    ("f16", "f32", np.float16, np.float32),
]:
    for m, k in [(64, 8), (65, 9), (7, 7), (130, 1030), (1, 100), (100, 1), (0, 5), (5, 0)]:
        a = rng.integers(-4, 4, (m, k)).astype(dtype)
        x = rng.integers(-4, 4, k).astype(dtype)
        y = rng.integers(-4, 4, m).astype(out_dtype)
        expected = a.astype(out_dtype) @ x.astype(out_dtype) + y
        for sizes in ({}, {"m": m, "k": k}):
            source = matvec(element, output, **sizes)
            results = [
                jit(source, pipeline=p).matvec(a, x, y) for p in (FAST_PIPELINE, DEFAULT_PIPELINE)
            ]
            agree[element] = agree.get(element, True) and all(
                np.array_equal(result, expected) for result in results
            )
# CHECK: agree: {'f32': True, 'f64': True, 'i32': True, 'i8': True, 'f16': True}
print("agree:", agree)

# Views (negative strides, Fortran order, a column of a matrix as x), and
# random floats within rounding of numpy's.
fast = jit(matvec(), pipeline=FAST_PIPELINE)
a = rng.integers(-4, 4, (300, 200)).astype(np.float32)
x = rng.integers(-4, 4, 200).astype(np.float32)
y = np.zeros(300, np.float32)
strided = rng.integers(-4, 4, 398).astype(np.float32)[::2]
views = [(a[::-1], x), (a[:, ::-1], x[::-1]), (np.asfortranarray(a), x), (a[::2, 1:], strided)]
# CHECK: views: [True, True, True, True]
print("views:", [np.array_equal(fast.matvec(v, w, y[: v.shape[0]]), v @ w) for v, w in views])
a = rng.standard_normal((1000, 777), dtype=np.float32)
x = rng.standard_normal(777, dtype=np.float32)
# CHECK: random: True
print(
    "random:",
    np.allclose(fast.matvec(a, x, np.zeros(1000, np.float32)), a @ x, rtol=1e-4, atol=1e-4),
)

# On memrefs: scheduled the same way, written in place.
a = rng.integers(-4, 4, (133, 70)).astype(np.float32)
x = rng.integers(-4, 4, 70).astype(np.float32)
y = np.ones(133, np.float32)
jit(MEMREF, pipeline=FAST_PIPELINE).matvec(a, x, y)
# CHECK: memref: True
print("memref:", np.array_equal(y, a @ x + 1))

# The element types checked are the operands': shaped types in an attribute,
# printed before them, do not let an i1 matvec (whose vectorized loads would
# read bytes as packed bits) into the schedule.
I1 = """
func.func @matvec(%a: tensor<?x?xi1>, %x: tensor<?xi1>, %y: tensor<?xi1>) -> tensor<?xi1> {
  %r = linalg.matvec {note = [tensor<f32>, tensor<f32>, tensor<f32>]}
      ins(%a, %x : tensor<?x?xi1>, tensor<?xi1>) outs(%y : tensor<?xi1>) -> tensor<?xi1>
  return %r : tensor<?xi1>
}
"""
a = np.zeros((16, 8), np.bool_)
a[:, 0] = True
x = np.eye(8, dtype=np.bool_)[0]
# CHECK: i1: True
print("i1:", bool(jit(I1, pipeline=FAST_PIPELINE).matvec(a, x, np.zeros(16, np.bool_)).all()))
