# RUN: %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE computes a chain of linalg ops on tensors that ends in a
# linalg.generic (a softmax's row maximum, exponentials, row sum and
# division) in tiles of rows of its last op, an scf.forall on OpenMP's
# threads, each tile computing its part of every op of the chain
# (jit-parallel-fusion): one fork a call, and tiles that stay in the caches
# between the ops. Rows are computed independently: the results are those
# of DEFAULT_PIPELINE to the bit, on any number of threads.

import numpy as np
from fixtures import run_python
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

MAPS = """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#column = affine_map<(d0, d1) -> (d1)>
"""
# A row softmax as four generics, over a shape given as text.
SOFTMAX = """
func.func @{name}(%x: tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<{shape}xf32>
  %n = tensor.dim %x, %c1 : tensor<{shape}xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty({rows_sizes}) : tensor<{rows}xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%rows_empty : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %max = linalg.generic {{indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<{shape}xf32>) outs(%max_init : tensor<{rows}xf32>) {{
  ^bb0(%xi: f32, %acc: f32):
    %r = arith.maximumf %xi, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<{rows}xf32>
  %all_empty = tensor.empty({all_sizes}) : tensor<{shape}xf32>
  %exp = linalg.generic {{indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %max : tensor<{shape}xf32>, tensor<{rows}xf32>) outs(%all_empty : tensor<{shape}xf32>) {{
  ^bb0(%xi: f32, %mi: f32, %o: f32):
    %d = arith.subf %xi, %mi : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }} -> tensor<{shape}xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %sum = linalg.generic {{indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%exp : tensor<{shape}xf32>) outs(%sum_init : tensor<{rows}xf32>) {{
  ^bb0(%ei: f32, %acc: f32):
    %r = arith.addf %ei, %acc : f32
    linalg.yield %r : f32
  }} -> tensor<{rows}xf32>
  %r = linalg.generic {{indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%exp, %sum : tensor<{shape}xf32>, tensor<{rows}xf32>) outs(%all_empty : tensor<{shape}xf32>) {{
  ^bb0(%ei: f32, %si: f32, %o: f32):
    %q = arith.divf %ei, %si : f32
    linalg.yield %q : f32
  }} -> tensor<{shape}xf32>
  return %r : tensor<{shape}xf32>
}}
"""


def softmax(name, rows="?", columns="?"):
    dynamic = [size for size, given in (("%m", rows), ("%n", columns)) if given == "?"]
    return SOFTMAX.format(
        name=name,
        shape=f"{rows}x{columns}",
        rows=rows,
        rows_sizes="%m" if rows == "?" else "",
        all_sizes=", ".join(dynamic),
    )


def print_fused(source):
    """Prints `source` after jit-parallel-fusion alone."""
    with Context():
        module = Module.parse(source)
        PassManager.parse("builtin.module(jit-parallel-fusion)").run(module.operation)
        print(module)


# The pass itself: one scf.forall over tiles of rows holds the four ops, the
# exponentials computed once a tile though two ops read them; nothing is
# left outside it.
# CHECK-LABEL: func.func @softmax
# CHECK-NOT: linalg.generic
# CHECK: scf.forall
# CHECK: linalg.fill
# CHECK: linalg.generic
# CHECK: math.exp
# CHECK-NOT: math.exp
# CHECK: arith.divf
# CHECK: scf.forall.in_parallel
# CHECK-NOT: linalg.generic
# CHECK: return
print_fused(MAPS + softmax("softmax"))

# Left outside the tiles: a producer whose tile would be the same in every
# one (column sums, which every row reads whole), and a producer a function
# also returns (the exponentials); the rest of each chain is tiled.
# CHECK-LABEL: func.func @centered
# CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
# CHECK: scf.forall (
# CHECK-LABEL: func.func @with_exponentials
# CHECK: math.exp
# CHECK: scf.forall (
# CHECK-NOT: math.exp
# CHECK: arith.divf
# CHECK: return
# A chain whose last op reduces its first loop is not tiled.
# CHECK-LABEL: func.func @total_of_squares
# CHECK-NOT: scf.forall
# CHECK: return
OTHERS = """
func.func @centered(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %columns_empty = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%columns_empty : tensor<?xf32>) -> tensor<?xf32>
  %sums = linalg.generic {indexing_maps = [#rows, #column], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %s = arith.addf %xi, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #column, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sums : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %si: f32, %o: f32):
    %d = arith.subf %xi, %si : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @with_exponentials(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %exp = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %e = math.exp %xi : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %rows_empty = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%ei: f32, %acc: f32):
    %s = arith.addf %ei, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%ei: f32, %si: f32, %o: f32):
    %q = arith.divf %ei, %si : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %r, %exp : tensor<?x?xf32>, tensor<?x?xf32>
}
func.func @total_of_squares(%x: tensor<?x?xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %squares = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %s = arith.mulf %xi, %xi : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %total = linalg.generic {indexing_maps = [#rows, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%squares : tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%si: f32, %acc: f32):
    %s = arith.addf %si, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %total : tensor<f32>
}
"""
OTHERS = MAPS + OTHERS
print_fused(OTHERS)

# Not tiled: a chain with a loop of static size 0 (LLVM 22's tiling crashes
# on it).
# CHECK-LABEL: func.func @static_empty
# CHECK-NOT: scf.forall
# CHECK: return
STATIC_EMPTY = softmax("static_empty", 5, 0)
print_fused(MAPS + STATIC_EMPTY)

# Results: each of DEFAULT_PIPELINE to the bit (each row's ops in the same
# order), on shapes with no rows, fewer rows than tiles, rows that do not
# divide into tiles, rows of one element and rows longer than a tile.
# CHECK: softmax as DEFAULT_PIPELINE's: True
# CHECK: others as DEFAULT_PIPELINE's: True
SOFTMAXES = MAPS + softmax("softmax") + softmax("static_softmax", 2049, 129) + STATIC_EMPTY
fast = jit(SOFTMAXES, pipeline=FAST_PIPELINE, cache_dir=None)
default = jit(SOFTMAXES, pipeline=DEFAULT_PIPELINE, cache_dir=None)
fast_others = jit(OTHERS, pipeline=FAST_PIPELINE, cache_dir=None)
default_others = jit(OTHERS, pipeline=DEFAULT_PIPELINE, cache_dir=None)
rng = np.random.default_rng(0)
same = same_others = True
for shape in [(0, 5), (5, 0), (1, 1), (3, 7), (9, 1024), (1000, 3), (2049, 129), (2, 40000)]:
    x = rng.standard_normal(shape, dtype=np.float32) * 10
    expected = default.softmax(x)
    same &= np.array_equal(fast.softmax(x), expected)
    if shape[0]:
        same &= np.allclose(expected.sum(axis=1), 1, rtol=1e-5) if shape[1] else True
    for name in ("centered", "with_exponentials", "total_of_squares"):
        ours, theirs = fast_others[name](x), default_others[name](x)
        pairs = zip(ours, theirs) if isinstance(ours, tuple) else [(ours, theirs)]
        same_others &= all(np.array_equal(a, b) for a, b in pairs)
x = rng.standard_normal((2049, 129), dtype=np.float32)
same &= np.array_equal(fast.static_softmax(x), default.static_softmax(x))
same &= fast.static_empty(np.ones((5, 0), np.float32)).shape == (5, 0)
print(f"softmax as DEFAULT_PIPELINE's: {same}")
print(f"others as DEFAULT_PIPELINE's: {same_others}")

# A chain whose tiles call back into Python runs on the calling thread
# (jit-sequential-loops), and a callback's exception is raised by the call.
# A producer that calls back is not fused: in tiles it would be called again
# for each op that reads it (here the sum and the division), and after the
# calls of ops between it and the chain's end.
# CHECK: callbacks in tiles: True
# CHECK: raised: KeyError('no 7')
# CHECK: a producer's callbacks once an element: True, True
CALLING = """
func.func private @offset(f32) -> f32
func.func @shifted(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %rows_empty = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%rows_empty : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %r = arith.maximumf %xi, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %mi: f32, %o: f32):
    %d = arith.subf %xi, %mi : f32
    %v = func.call @offset(%d) : (f32) -> f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @normalized(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %a = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %v = func.call @offset(%xi) : (f32) -> f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %rows_empty = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%ai: f32, %acc: f32):
    %s = arith.addf %ai, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%ai: f32, %si: f32, %o: f32):
    %q = arith.divf %ai, %si : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""
calling = jit(MAPS + CALLING, pipeline=FAST_PIPELINE, cache_dir=None)
refused = []
calls = []


@calling.callback("offset")
def offset(v):
    calls.append(v)
    if v in refused:
        raise KeyError(f"no {-v:g}")
    return v + 1


x = rng.integers(0, 100, (300, 50)).astype(np.float32)
expected = x - x.max(axis=1, keepdims=True) + 1
print(f"callbacks in tiles: {np.array_equal(calling.shifted(x), expected)}")

refused.append(-7)
x[200, 3] = x[200].max() - 7
try:
    calling.shifted(x)
    print("no exception")
except KeyError as error:
    print(f"raised: {error!r}")

refused.clear()
calls.clear()
x = rng.integers(0, 100, (30, 20)).astype(np.float32)
result = calling.normalized(x)
expected = (x + 1) / (x + 1).sum(axis=1, keepdims=True)
print(
    f"a producer's callbacks once an element: {len(calls) == x.size}, "
    f"{np.allclose(result, expected, rtol=1e-6)}"
)

# The same bits on 1 thread and on 3 (more threads than cores).
# CHECK: same softmax on 1 and 3 threads: True
CODE = """
import hashlib, numpy as np, sys
from mlir.execution_engine import FAST_PIPELINE, jit
module = jit(sys.argv[1], pipeline=FAST_PIPELINE, cache_dir=None)
x = np.random.default_rng(1).standard_normal((3001, 257), dtype=np.float32)
print(hashlib.sha256(module.softmax(x).tobytes()).hexdigest())
"""
results = [
    run_python(CODE, MAPS + softmax("softmax"), env={"OMP_NUM_THREADS": threads}).stdout
    for threads in ("1", "3")
]
print(f"same softmax on 1 and 3 threads: {results[0] == results[1] and results[0] != ''}")
