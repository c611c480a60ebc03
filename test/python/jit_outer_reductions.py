# RUN: %PYTHON %s | FileCheck %s
#
# Reductions over an outer loop (a column sum) under FAST_PIPELINE:
# jit-parallel-fusion tiles them by columns (2048 at least, an eighth of
# them at most), each tile an scf.forall iteration that sums its columns
# over every row, in the rows' order. They used to fork the threads once a
# row. The results are DEFAULT_PIPELINE's, bit for bit, at sizes around
# the tiles, on views, reducing over each axis of 3-D arrays.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

COLUMN_SUM = """
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (j)>
func.func @reduce(%x: tensor<?x?x{element}>) -> tensor<?x{element}> {{
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?x{element}>
  %init = arith.constant {init} : {element}
  %e = tensor.empty(%n) : tensor<?x{element}>
  %acc = linalg.fill ins(%init : {element}) outs(%e : tensor<?x{element}>) -> tensor<?x{element}>
  %r = linalg.generic {{indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}}
      ins(%x : tensor<?x?x{element}>) outs(%acc : tensor<?x{element}>) {{
  ^bb0(%a: {element}, %s: {element}):
    %t = {combine} %s, %a : {element}
    linalg.yield %t : {element}
  }} -> tensor<?x{element}>
  return %r : tensor<?x{element}>
}}
"""

# The 3-D reductions: over axis 0 and axis 1 (axis 2, the inner one, is a
# row reduction, tiled by rows as before).
AXIS_SUM = """
#in = affine_map<(i, j, k) -> (i, j, k)>
#out = affine_map<(i, j, k) -> ({kept})>
func.func @reduce(%x: tensor<?x?x?xf32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {{
  %r = linalg.generic {{indexing_maps = [#in, #out], iterator_types = [{iterators}]}}
      ins(%x : tensor<?x?x?xf32>) outs(%acc : tensor<?x?xf32>) {{
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %s, %a : f32
    linalg.yield %t : f32
  }} -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}}
"""
AXES = {
    0: ("j, k", '"reduction", "parallel", "parallel"'),
    1: ("i, k", '"parallel", "reduction", "parallel"'),
}

SUM = COLUMN_SUM.format(element="f32", init="0.0", combine="arith.addf")

# One scf.forall over tiles of columns; inside, the rows' loop is the
# reduction's (lowered later to the outer loop of each tile).
# CHECK-LABEL: func.func @reduce
# CHECK: scf.forall (%[[COLUMN:.*]]) = (0) to (%{{.*}}) step (%{{.*}}) shared_outs
# CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
# CHECK-SAME: ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}} : tensor<?xf32>)
# CHECK: scf.forall.in_parallel
with Context():
    module = Module.parse(SUM)
    PassManager.parse("builtin.module(func.func(jit-parallel-fusion))").run(module.operation)
    print(module)

rng = np.random.default_rng(0)
fast, loops = (jit(SUM, pipeline=pipeline) for pipeline in (FAST_PIPELINE, DEFAULT_PIPELINE))
shapes = [
    (3, 2047),
    (5, 2048),
    (7, 2049),
    (2, 4097),
    (1, 16385),
    (300, 64),
    (1000, 1),
    (0, 5),
    (5, 0),
]
# CHECK: sums: True
print(
    "sums:",
    all(
        np.array_equal(fast.reduce(x), loops.reduce(x))
        for x in (rng.standard_normal(shape, dtype=np.float32) for shape in shapes)
    ),
)

x = rng.standard_normal((40, 5000), dtype=np.float32)
views = [x[::-1], x[:, ::-1], x[::3, 7:], np.asfortranarray(x), np.broadcast_to(x[:1], x.shape)]
# CHECK: views: [True, True, True, True, True]
print("views:", [np.array_equal(fast.reduce(v), loops.reduce(v)) for v in views])

# A maximum and an integer sum, reduced the same way.
for element, init, combine, dtype in [
    ("f32", "0xFF800000", "arith.maximumf", np.float32),
    ("i32", "0", "arith.addi", np.int32),
]:
    source = COLUMN_SUM.format(element=element, init=init, combine=combine)
    x = rng.integers(-1000, 1000, (33, 4100)).astype(dtype)
    expected = x.max(axis=0) if "max" in combine else x.sum(axis=0, dtype=dtype)
    # CHECK: f32 arith.maximumf: True
    # CHECK: i32 arith.addi: True
    print(
        element,
        combine + ":",
        np.array_equal(jit(source, pipeline=FAST_PIPELINE).reduce(x), expected),
    )

# 3-D: over axis 0 ([reduction, parallel, parallel]: tiled in its second
# loop) and axis 1 (tiled in its first, as before).
for axis, (kept, iterators) in AXES.items():
    source = AXIS_SUM.format(kept=kept, iterators=iterators)
    fast, loops = (jit(source, pipeline=pipeline) for pipeline in (FAST_PIPELINE, DEFAULT_PIPELINE))
    agree = True
    for shape in [(9, 3, 2050), (4, 5000, 3), (2, 2, 2)]:
        x = rng.standard_normal(shape, dtype=np.float32)
        acc = np.zeros([size for i, size in enumerate(shape) if i != axis], np.float32)
        agree &= np.array_equal(fast.reduce(x, acc), loops.reduce(x, acc))
        agree &= np.allclose(fast.reduce(x, acc), x.sum(axis=axis), rtol=1e-4, atol=1e-4)
    # CHECK: axis 0: True
    # CHECK: axis 1: True
    print(f"axis {axis}:", agree)
