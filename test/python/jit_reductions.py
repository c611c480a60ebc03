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
func.func @{name}(%x: tensor<{size}x{t}>) -> {t} {{
  %init = arith.constant {init} : {t}
  %e = tensor.empty() : tensor<{t}>
  %f = linalg.fill ins(%init : {t}) outs(%e : tensor<{t}>) -> tensor<{t}>
  %r = linalg.generic {{indexing_maps = [#all, #none], iterator_types = ["reduction"]}}
      ins(%x : tensor<{size}x{t}>) outs(%f : tensor<{t}>) {{
  ^bb0(%xi: {t}, %acc: {t}):
    %s = {combine} %xi, %acc {flags}: {t}
    linalg.yield %s : {t}
  }} -> tensor<{t}>
  %v = tensor.extract %r[] : tensor<{t}>
  return %v : {t}
}}
"""


def reduction(name, t, init, combine, flags="", size="?"):
    return REDUCE.format(name=name, t=t, init=init, combine=combine, flags=flags, size=size)


def print_split(source):
    """Prints `source` after jit-parallel-reductions alone."""
    with Context():
        module = Module.parse(source)
        PassManager.parse("builtin.module(jit-parallel-reductions)").run(module.operation)
        print(module)


SOURCE = (
    MAPS
    + reduction("sum", "f32", "0.0", "arith.addf", "fastmath<reassoc> ")
    + reduction("ordered_sum", "f32", "0.0", "arith.addf")
    + reduction("isum", "i64", "0", "arith.addi")
    + reduction("maximum", "f32", "0xFF800000", "arith.maximumf")
    + reduction("from_negative_zero", "f32", "-0.0", "arith.addf", "fastmath<reassoc> ")
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
print_split(SOURCE)

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

# A sum of -0.0s is -0.0: the partial sums start at -0.0, the neutral
# element of IEEE addition.
# CHECK: sum of -0.0s: -0.0
print(f"sum of -0.0s: {fast.from_negative_zero(np.full(1000, -0.0, np.float32))}")

# Left whole: loops of a static size under 8 (LLVM 22's tiling crashed on a
# size of 0), maps that are not projected permutations (its chunks read the
# wrong elements of `d0 floordiv 2`; it crashed on `(d0) -> (0)`).
# CHECK-LABEL: func.func @static_empty
# CHECK-NOT: scf.forall
# CHECK-LABEL: func.func @static_small
# CHECK-NOT: scf.forall
# CHECK-LABEL: func.func @static_large
# CHECK: scf.forall
# CHECK-LABEL: func.func @halves
# CHECK-NOT: scf.forall
# CHECK-LABEL: func.func @into_one
# CHECK-NOT: scf.forall
# CHECK-LABEL: func.func @end
STATIC = MAPS + "".join(
    reduction(name, "f32", "0.0", "arith.addf", "fastmath<reassoc> ", size)
    for name, size in [("static_empty", 0), ("static_small", 5), ("static_large", 1000)]
)
UNUSUAL_MAPS = """
func.func @halves(%x: tensor<?xi64>, %a: tensor<?xi64>) -> i64 {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %f = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>, #all, #none],
      iterator_types = ["reduction"]} ins(%x, %a : tensor<?xi64>, tensor<?xi64>)
      outs(%f : tensor<i64>) {
  ^bb0(%xi: i64, %ai: i64, %acc: i64):
    %p = arith.muli %xi, %ai : i64
    %s = arith.addi %p, %acc : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %v = tensor.extract %r[] : tensor<i64>
  return %v : i64
}
func.func @into_one(%x: tensor<?xf32>) -> tensor<1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#all, affine_map<(d0) -> (0)>],
      iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%f : tensor<1xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %s = arith.addf %xi, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
func.func @end() {
  return
}
"""
print_split(STATIC + UNUSUAL_MAPS)

# CHECK: static sums right: True True True
static = jit(STATIC, pipeline=FAST_PIPELINE, cache_dir=None)
print(
    "static sums right:",
    static.static_empty(np.ones(0, np.float32)) == 0,
    static.static_small(np.ones(5, np.float32)) == 5,
    static.static_large(np.ones(1000, np.float32)) == 1000,
)

# CHECK: unusual maps right: True True
unusual = jit(MAPS + UNUSUAL_MAPS, pipeline=FAST_PIPELINE, cache_dir=None)
x, a = np.arange(1, 501, dtype=np.int64), np.arange(1, 1001, dtype=np.int64)
print(
    "unusual maps right:",
    unusual.halves(x, a) == int((np.repeat(x, 2) * a).sum()),
    unusual.into_one(np.ones(1000, np.float32))[0] == 1000,
)

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
