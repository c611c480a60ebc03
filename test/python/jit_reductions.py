# RUN: %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE splits a whole reduction of a linalg.generic on tensors (a
# sum, a maximum) into 8 chunks reduced in parallel, their partial results
# combined in order (jit-parallel-reductions), when the combiner allows any
# order: integer ops, float min and max, float additions and multiplications
# marked `fastmath<reassoc>`. Other float reductions keep their order, and
# so DEFAULT_PIPELINE's result to the bit. The chunks do not depend on the
# thread count: the result is the same on any machine.

import numpy as np
from fixtures import run_python
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

MAPS = """
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
"""
REDUCE = """
func.func @{name}(%x: tensor<?x{t}>) -> {t} {{
  %init = arith.constant {init} : {t}
  %e = tensor.empty() : tensor<{t}>
  %f = linalg.fill ins(%init : {t}) outs(%e : tensor<{t}>) -> tensor<{t}>
  %r = linalg.generic {{indexing_maps = [#all, #none], iterator_types = ["reduction"]}}
      ins(%x : tensor<?x{t}>) outs(%f : tensor<{t}>) {{
  ^bb0(%xi: {t}, %acc: {t}):
    %s = {combine} %xi, %acc {flags}: {t}
    linalg.yield %s : {t}
  }} -> tensor<{t}>
  %v = tensor.extract %r[] : tensor<{t}>
  return %v : {t}
}}
"""


def reduction(name, t, init, combine, flags=""):
    return REDUCE.format(name=name, t=t, init=init, combine=combine, flags=flags)


SOURCE = (
    MAPS
    + reduction("sum", "f32", "0.0", "arith.addf", "fastmath<reassoc> ")
    + reduction("ordered_sum", "f32", "0.0", "arith.addf")
    + reduction("isum", "i64", "0", "arith.addi")
    + reduction("maximum", "f32", "0xFF800000", "arith.maximumf")
)


# The pass itself: the sum becomes an scf.forall of 8 chunks, then one
# linalg op that combines their partial sums; the ordered sum is left alone.
# CHECK-LABEL: func.func @sum
# CHECK: linalg.fill {{.*}} -> tensor<8xf32>
# CHECK: scf.forall (%{{.*}}) in (8)
# CHECK: linalg.generic
# CHECK: scf.forall.in_parallel
# CHECK: linalg.reduce
# CHECK-LABEL: func.func @ordered_sum
# CHECK-NOT: scf.forall
# CHECK-LABEL: func.func @isum
# CHECK: scf.forall
# CHECK-LABEL: func.func @maximum
# CHECK: scf.forall
with Context():
    module = Module.parse(SOURCE)
    PassManager.parse("builtin.module(jit-parallel-reductions)").run(module.operation)
    print(module)

fast = jit(SOURCE, pipeline=FAST_PIPELINE, cache_dir=None)
default = jit(SOURCE, pipeline=DEFAULT_PIPELINE, cache_dir=None)
rng = np.random.default_rng(0)

# Sizes below, at and above the chunk count, an odd size and an empty one:
# the chunks cover every element once.
# CHECK: sums right: True
# CHECK: integer sums exact: True
# CHECK: maxima exact: True
# CHECK: ordered sums as DEFAULT_PIPELINE's: True
sums = integers = maxima = ordered = True
for n in [0, 1, 7, 8, 9, 1000, 1_000_003]:
    x = rng.standard_normal(n, dtype=np.float32)
    i = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    sums &= bool(np.isclose(fast.sum(x), x.sum(dtype=np.float64), rtol=1e-5, atol=1e-3))
    integers &= fast.isum(i) == int(i.sum())
    maxima &= fast.maximum(x) == (x.max() if n else -np.inf)
    ordered &= fast.ordered_sum(x) == default.ordered_sum(x)
print(f"sums right: {sums}")
print(f"integer sums exact: {integers}")
print(f"maxima exact: {maxima}")
print(f"ordered sums as DEFAULT_PIPELINE's: {ordered}")

# A NaN anywhere is the maximum, whichever chunk holds it.
# CHECK: NaN maximum: True
x = np.zeros(100_000, np.float32)
x[77_777] = np.nan
print(f"NaN maximum: {np.isnan(fast.maximum(x))}")

# The same sum to the bit on 1 thread and on 3 (more threads than cores).
# CHECK: same sum on 1 and 3 threads: True
CODE = """
import numpy as np, sys
from mlir.execution_engine import FAST_PIPELINE, jit
module = jit(sys.argv[1], pipeline=FAST_PIPELINE, cache_dir=None)
x = np.random.default_rng(1).standard_normal(3_000_001, dtype=np.float32)
print(repr(module.sum(x)))
"""
results = [
    run_python(CODE, SOURCE, env={"OMP_NUM_THREADS": threads}).stdout for threads in ("1", "3")
]
print(f"same sum on 1 and 3 threads: {results[0] == results[1] and results[0] != ''}")
