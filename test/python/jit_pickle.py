# RUN: %PYTHON %s | FileCheck %s
#
# A JitModule travels to other processes (issue 13): it pickles as its
# source, pipeline and options, with its callbacks where those pickle, and
# rebuilds on the receiving side from the shared cache, without compiling.
# A callback that cannot be pickled is a PicklingError, at pickling time,
# naming it. Workers of a ProcessPoolExecutor using the `spawn` start method
# map a kernel over partitions: their results equal the serial ones, and no
# worker compiles once the entry exists (counted, not timed).

import concurrent.futures
import multiprocessing
import os
import pickle
import tempfile
import threading

import numpy as np

from mlir import ir, jit_cache
from mlir.execution_engine import jit

KERNEL = """
func.func private @weight(f64) -> f64
func.func @weighted_sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = func.call @weight(%v) : (f64) -> f64
    %s = arith.addf %acc, %w : f64
    scf.yield %s : f64
  }
  return %sum : f64
}
"""


def weight(value):
    """The callback: top level, so that pickle takes it by reference."""
    return value * value


def weighted_sum(module, partition):
    """Runs in a worker: the result and how many modules the worker has
    compiled so far."""
    return module.weighted_sum(partition), jit_cache.statistics()["compilations"]


def main():
    cache = tempfile.mkdtemp(prefix="jit_pickle_", dir=os.environ.get("TEST_TMPDIR"))
    module = jit(KERNEL, cache_dir=cache)
    module.register("weight", weight)
    partitions = [np.arange(i * 100, (i + 1) * 100, dtype=np.float64) for i in range(6)]
    serial = [module.weighted_sum(p) for p in partitions]
    print("entries:", jit_cache.info(cache)["entries"])
    # CHECK: entries: 1

    # In this process: a new Context, the engine from the cache.
    before = jit_cache.statistics()
    copy = pickle.loads(pickle.dumps(module))
    print("round trip equal:", [copy.weighted_sum(p) for p in partitions] == serial)
    after = jit_cache.statistics()
    print(
        "round trip compiled:",
        after["compilations"] - before["compilations"],
        "hits:",
        after["hits"] - before["hits"],
    )
    # CHECK: round trip equal: True
    # CHECK: round trip compiled: 0 hits: 1

    # A module given as an ir.Module pickles as its text before lowering.
    with ir.Context():
        parsed = jit(ir.Module.parse(KERNEL), cache_dir=cache)
    parsed.register("weight", weight)
    print(
        "ir.Module round trip:",
        pickle.loads(pickle.dumps(parsed)).weighted_sum(partitions[1]) == serial[1],
    )
    # CHECK: ir.Module round trip: True

    # Workers started with `spawn` share nothing with this process but the
    # cache directory.
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        outcomes = list(pool.map(weighted_sum, [module] * len(partitions), partitions))
    print("workers equal serial:", [r for r, _ in outcomes] == serial)
    print("compilations in workers:", sorted({c for _, c in outcomes}))
    # CHECK: workers equal serial: True
    # CHECK: compilations in workers: [0]

    # Without a cache, the other side compiles: still right.
    uncached = jit(KERNEL, cache_dir=None)
    uncached.register("weight", weight)
    before = jit_cache.statistics()["compilations"]
    rebuilt = pickle.loads(pickle.dumps(uncached))
    print(
        "uncached:",
        rebuilt.weighted_sum(partitions[2]) == serial[2],
        "compiled:",
        jit_cache.statistics()["compilations"] - before,
    )
    # CHECK: uncached: True compiled: 1

    # A callback neither pickle nor cloudpickle takes (it holds a lock).
    lock = threading.Lock()

    def locked_weight(value):
        with lock:
            return value

    unpicklable = jit(KERNEL, cache_dir=cache)
    unpicklable.register("weight", locked_weight)
    try:
        pickle.dumps(unpicklable)
    except pickle.PicklingError as error:
        print("PicklingError:", error)
    # CHECK: PicklingError: cannot pickle the JitModule: its callback 'weight' (<function main.<locals>.locked_weight at {{.*}}>) cannot be pickled ({{.*}}); register a function defined at a module's top level, or install cloudpickle


if __name__ == "__main__":
    main()
