# RUN: %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE fuses consecutive elementwise linalg ops on tensors before
# bufferization (linalg-fuse-elementwise-ops), each producer used once into
# its consumer: one loop and no temporary between them, with the results of
# DEFAULT_PIPELINE, which runs each op as a loop of its own.

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

# (tanh(x) * y + 1) * x as three generics; `both` returns a producer its
# consumer uses too, which stays a loop of its own.
SOURCE = """
#map = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %t = math.tanh %xi : f32
    %m = arith.mulf %t, %yi : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%ai: f32, %o: f32):
    %s = arith.addf %ai, %one : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %c = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%b, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%bi: f32, %xi: f32, %o: f32):
    %p = arith.mulf %bi, %xi : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  return %c : tensor<?xf32>
}
func.func @both(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %t = math.exp %xi : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%ai: f32, %o: f32):
    %s = arith.addf %ai, %ai : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}
"""

fast = jit(SOURCE, pipeline=FAST_PIPELINE, cache_dir=None)
default = jit(SOURCE, pipeline=DEFAULT_PIPELINE, cache_dir=None)
rng = np.random.default_rng(0)
# CHECK: chain 0: same
# CHECK: chain 1: same
# CHECK: chain 1000003: same
# CHECK: both 1000003: same
for n in [0, 1, 1000003]:
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    chain = fast.chain(x, y)
    same = np.array_equal(chain, default.chain(x, y)) and np.allclose(
        chain, (np.tanh(x) * y + 1) * x, rtol=1e-5, atol=1e-6
    )
    print(f"chain {n}: {'same' if same else 'DIFFERENT'}")
same = all(map(np.array_equal, fast.both(x), default.both(x)))
print(f"both {n}: {'same' if same else 'DIFFERENT'}")

# What FAST_PIPELINE makes of each function: the chain one loop, on
# OpenMP's threads, and one allocation (its result); `both` two of each.
# CHECK: chain: parallel loops 1, allocations 1
# CHECK: both: parallel loops 2, allocations 2
for name in ["chain", "both"]:
    start = SOURCE.index(f"func.func @{name}(")
    source = SOURCE[: SOURCE.index("func.func")] + SOURCE[start : SOURCE.index("\n}\n", start) + 3]
    with Context():
        module = Module.parse(source)
        PassManager.parse(FAST_PIPELINE).run(module.operation)
        lowered = str(module)
    print(
        f"{name}: parallel loops {lowered.count('omp.parallel')}, "
        f"allocations {lowered.count('llvm.call @_mlir_memref_to_llvm_alloc')}"
    )
