# RUN: %PYTHON %s | FileCheck %s
#
# Buffers of 4 MiB or more that jitted code allocated (results, temporaries)
# are kept when freed, up to 64 MiB, for the next allocation they fit: a
# function called in a loop reuses its last result's memory instead of
# faulting in new pages. An array's memory is never handed out while the
# array lives (nor twice after a callback's results failed, nor when a
# stopped call frees its own), and what is kept stays bounded
# (jit_fork_amid_allocations.py: a child forked amid allocations).

import resource
import threading

import numpy as np

from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit

from fixtures import TEMPORARY, heap_bytes_in_use

SOURCE = """
#map = affine_map<(d0) -> (d0)>
func.func @scaled(%x: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %m = arith.mulf %xi, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""
MIB = 1 << 20
default = jit(SOURCE)
fast = jit(SOURCE, pipeline=FAST_PIPELINE)
temporary = jit(TEMPORARY)
x = np.arange(2 * MIB, dtype=np.float32)  # 8 MiB
big = np.ones(12 * MIB, np.float32)  # 48 MiB


def page_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


# What a new buffer of 48 MiB costs in page faults (24 with huge pages,
# 12,288 without, more under ASan): a result over 64 MiB is never kept, so
# each is new memory.
huge = np.ones(20 * MIB, np.float32)  # 80 MiB
default.scaled(x, 1.0)
before = page_faults()
default.scaled(huge, 1.0)
NEW_PAGES = (page_faults() - before) * 48 / 80
del huge


def faults_a_call(function, *args):
    """`function(*args)`'s page faults a call, called in a loop where each
    result is freed once the next one is made, and its last result."""
    result = function(*args)
    before = page_faults()
    for _ in range(20):
        result = function(*args)
    return (page_faults() - before) / 20, result


for name, module in (("default", default), ("fast", fast)):
    faults, r = faults_a_call(module.scaled, big, 3.0)
    print(f"{name}: a result reuses the last one's pages:", faults < NEW_PAGES / 4, r[5] == 3.0)

    # Live results never share memory, and keep their values.
    kept = [module.scaled(x, float(i)) for i in range(12)]
    distinct = not any(np.shares_memory(a, b) for j, a in enumerate(kept) for b in kept[:j])
    intact = all(np.array_equal(a, x * i) for i, a in enumerate(kept))
    print(f"{name}: 12 live results distinct and intact:", distinct, intact)
    del kept, r
# CHECK: default: a result reuses the last one's pages: True True
# CHECK-NEXT: default: 12 live results distinct and intact: True True
# CHECK-NEXT: fast: a result reuses the last one's pages: True True
# CHECK-NEXT: fast: 12 live results distinct and intact: True True

# A temporary's buffer is kept too.
faults, value = faults_a_call(temporary.through_temporary, big.size, 7.0)
# CHECK: temporaries reuse their pages: True True
print("temporaries reuse their pages:", faults < NEW_PAGES / 4, value == 7.0)

# What is kept stays under 64 MiB, whatever sizes come and go; a result
# larger than that is freed at once.
before = heap_bytes_in_use()
for mib in (4, 5, 9, 17, 33, 60, 4, 63, 100, 5, 48):
    default.scaled(np.ones(mib * MIB // 4, np.float32), 2.0)
grown = heap_bytes_in_use() - before
# CHECK: kept under 64 MiB: True
print("kept under 64 MiB:", grown <= 65 * MIB, "" if grown <= 65 * MIB else grown)

# Threads calling at once each get their own buffers.
errors = []


def calls(scale):
    mine = np.full(MIB + scale, scale, np.float32)
    for _ in range(50):
        r = fast.scaled(mine, 3.0)
        if r.shape != mine.shape or not np.all(r == 3 * scale):
            errors.append(scale)


threads = [threading.Thread(target=calls, args=(scale,)) for scale in range(1, 5)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
# CHECK: 4 threads, wrong results: []
print("4 threads, wrong results:", errors)

# A callback's results that fail to convert: the copy of the first is freed
# once, not again when the failure stops the call (the buffer was then kept
# twice, and handed to two arrays).
N = 2 * MIB
results = jit(
    f"""
func.func private @two() -> (memref<{N}xf32>, memref<4xf32>)
func.func @first_of_two() -> f32 {{
  %a, %b = func.call @two() : () -> (memref<{N}xf32>, memref<4xf32>)
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<{N}xf32>
  return %v : f32
}}
func.func @pair(%v: f32, %w: f32) -> (memref<{N}xf32>, memref<{N}xf32>) {{
  %a = memref.alloc() : memref<{N}xf32>
  %b = memref.alloc() : memref<{N}xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<{N}xf32>)
  linalg.fill ins(%w : f32) outs(%b : memref<{N}xf32>)
  return %a, %b : memref<{N}xf32>, memref<{N}xf32>
}}
"""
)
results.register("two", lambda: (np.ones(N, np.float32), np.ones(4, np.float64)))
try:
    results.first_of_two()
except TypeError as error:
    # CHECK: result 1 of 'two' (memref<4xf32>): expected an array of dtype float32, got dtype float64
    print(error)
a, b = results.pair(1.0, 2.0)
# CHECK: after a failed conversion, two results apart: False 1.0 2.0
print("after a failed conversion, two results apart:", np.shares_memory(a, b), a[0], b[0])
del a, b

# A result that another module's call returned inside a callback is the
# callback's, not the outer call's: the outer call, stopped, does not free
# it. (That module's pipeline is its own, so its calls cannot be stopped.)
inner = jit(
    f"""
func.func @filled(%v: f32) -> memref<{N}xf32> {{
  %a = memref.alloc() : memref<{N}xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<{N}xf32>)
  return %a : memref<{N}xf32>
}}""",
    pipeline=DEFAULT_PIPELINE.replace("builtin.module(", "builtin.module(canonicalize,"),
)
outer = jit(
    """
func.func private @keep()
func.func private @fail()
func.func @keep_then_fail() {
  func.call @keep() : () -> ()
  func.call @fail() : () -> ()
  return
}"""
)
kept = []
outer.register("keep", lambda: kept.append(inner.filled(7.0)))


def fail():
    raise RuntimeError("failed")


outer.register("fail", fail)
try:
    outer.keep_then_fail()
except RuntimeError:
    pass
fresh = inner.filled(1.0)
# CHECK: a result kept from a stopped call's callback: False 7.0
print("a result kept from a stopped call's callback:", np.shares_memory(kept[0], fresh), kept[0][0])
del kept, fresh
