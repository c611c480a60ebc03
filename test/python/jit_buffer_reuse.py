# RUN: %PYTHON %s | FileCheck %s
#
# Buffers of 4 MiB or more that jitted code allocated (results, temporaries)
# are kept when freed, up to 64 MiB, for the next allocation they fit: a
# function called in a loop reuses its last result's memory instead of
# faulting in new pages. An array's memory is never handed out while the
# array lives, and what is kept stays bounded.

import resource
import threading

import numpy as np

from mlir.execution_engine import FAST_PIPELINE, jit

from fixtures import heap_bytes_in_use

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
# A temporary of n floats, freed before it returns.
TEMPORARY = """
func.func @through_temporary(%n: index, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloc(%n) : memref<?xf32>
  memref.store %v, %t[%c0] : memref<?xf32>
  %r = memref.load %t[%c0] : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return %r : f32
}
"""
MIB = 1 << 20
default = jit(SOURCE)
fast = jit(SOURCE, pipeline=FAST_PIPELINE)
temporary = jit(TEMPORARY)
x = np.arange(2 * MIB, dtype=np.float32)  # 8 MiB


def page_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


for name, module in (("default", default), ("fast", fast)):
    module.scaled(x, 1.0)
    faults = page_faults()
    for i in range(200):
        r = module.scaled(x, float(i))
    # 8 MiB of new pages a call would be 400 huge-page faults (or 400,000).
    print(f"{name}: a result reuses the last one's pages:", page_faults() - faults < 100, r[5] == 995.0)

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
temporary.through_temporary(MIB, 1.0)
faults = page_faults()
values = [temporary.through_temporary(MIB, float(i)) for i in range(200)]
# CHECK: temporaries reuse their pages: True True
print("temporaries reuse their pages:", page_faults() - faults < 100, values[7] == 7.0)

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
