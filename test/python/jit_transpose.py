# RUN: %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE's schedule for 2-D linalg.transpose (schedules/fast.mlir):
# blocks of 128 x 128 on the threads, each copied while its rows of the
# input and columns of the output stay in the caches. A copy: the results
# are DEFAULT_PIPELINE's and numpy's exactly, at sizes around the blocks,
# for every element type, on views, tensors and memrefs; other ranks are
# left to the loops.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from fixtures import print_scheduled

TRANSPOSE = """
func.func @transpose(%x: tensor<{m}x{n}x{element}>, %out: tensor<{n}x{m}x{element}>) -> tensor<{n}x{m}x{element}> {{
  %r = linalg.transpose ins(%x : tensor<{m}x{n}x{element}>) outs(%out : tensor<{n}x{m}x{element}>) permutation = [1, 0]
  return %r : tensor<{n}x{m}x{element}>
}}
"""
MEMREF = """
func.func @transpose(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  linalg.transpose ins(%x : memref<?x?xf32>) outs(%out : memref<?x?xf32>) permutation = [1, 0]
  return
}
"""
PERMUTE = """
func.func @transpose(%x: tensor<?x?x?xf32>, %out: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.transpose ins(%x : tensor<?x?x?xf32>) outs(%out : tensor<?x?x?xf32>) permutation = [2, 0, 1]
  return %r : tensor<?x?x?xf32>
}
"""


def transpose(element="f32", m="?", n="?"):
    return TRANSPOSE.format(m=m, n=n, element=element)


# CHECK-LABEL: func.func @transpose
# CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}})
# CHECK: linalg.transpose ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) permutation = [1, 0]
# CHECK: scf.forall.in_parallel
print_scheduled(transpose())

rng = np.random.default_rng(0)
agree = {}
for element, dtype in [
    ("f32", np.float32),
    ("f64", np.float64),
    ("f16", np.float16),
    ("i8", np.int8),
    ("i1", np.bool_),
    ("i64", np.int64),
]:
    for m, n in [(128, 128), (127, 129), (129, 257), (1, 300), (300, 1), (0, 5), (5, 0), (3, 2)]:
        x = rng.integers(0, 2 if dtype is np.bool_ else 100, (m, n)).astype(dtype)
        out = np.zeros((n, m), dtype)
        for sizes in ({}, {"m": m, "n": n}):
            results = [
                jit(transpose(element, **sizes), pipeline=p).transpose(x, out)
                for p in (FAST_PIPELINE, DEFAULT_PIPELINE)
            ]
            agree[element] = agree.get(element, True) and all(
                np.array_equal(r, x.T) for r in results
            )
# CHECK: agree: {'f32': True, 'f64': True, 'f16': True, 'i8': True, 'i1': True, 'i64': True}
print("agree:", agree)

fast = jit(transpose(), pipeline=FAST_PIPELINE)
x = rng.standard_normal((300, 500), dtype=np.float32)
views = [x[::-1], x[:, ::-1], x[::3, 7:], np.asfortranarray(x), np.broadcast_to(x[:1], x.shape)]
# CHECK: views: [True, True, True, True, True]
print(
    "views:",
    [np.array_equal(fast.transpose(v, np.zeros(v.shape[::-1], np.float32)), v.T) for v in views],
)

# On memrefs: scheduled the same way, the output written in place; a 3-D
# permutation is left to the loops.
out = np.zeros((500, 300), np.float32)
jit(MEMREF, pipeline=FAST_PIPELINE).transpose(x, out)
y = rng.standard_normal((5, 130, 140), dtype=np.float32)
permuted = jit(PERMUTE, pipeline=FAST_PIPELINE).transpose(y, np.zeros((140, 5, 130), np.float32))
# CHECK: memref: True, 3-D: True
print(f"memref: {np.array_equal(out, x.T)}, 3-D: {np.array_equal(permuted, y.transpose(2, 0, 1))}")
