# RUN: %PYTHON %s | FileCheck %s
#
# JitModules on Dask: a module jitted in the client is pickled to the worker
# processes of a distributed.LocalCluster (3 processes, one thread each) and
# mapped over numpy partitions there. A JitModule pickles as its source,
# options and callbacks; on a worker it rebuilds from the persistent cache
# the client filled (one directory, given as cache_dir= and as
# MLIR_JIT_CACHE_DIR), so no worker compiles: each worker's
# mlir.jit_cache.statistics() counts hits and no compilation, and the
# results are those of the same calls made serially in the client. A
# callback travels with its module: a top-level function (by reference) or a
# lambda (by value, with cloudpickle).
#
# The script runs as __main__: Dask sends the functions it is given by value
# (cloudpickle), and the worker processes, started with multiprocessing's
# spawn, import the script again as __mp_main__, which is why everything but
# definitions runs under `if __name__ == "__main__"`.

import logging
import os
import tempfile

import numpy as np

import mlir.jit_cache
from mlir.execution_engine import jit

# sum(x) and square(x) over a memref<?xf64>.
KERNELS = """
func.func @sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %t = arith.addf %acc, %v : f64
    scf.yield %t : f64
  }
  return %s : f64
}
func.func @square(%x: memref<?xf64>) -> memref<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %y = memref.alloc(%n) : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = arith.mulf %v, %v : f64
    memref.store %w, %y[%i] : memref<?xf64>
  }
  return %y : memref<?xf64>
}
"""

# scaled_sum(x) sums scale(x[i]), scale being a Python callback.
CALLBACK = """
func.func private @scale(f64) -> f64
func.func @scaled_sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = func.call @scale(%v) : (f64) -> f64
    %t = arith.addf %acc, %w : f64
    scf.yield %t : f64
  }
  return %s : f64
}
"""


# Seconds a task may take: a task whose arguments a worker cannot unpickle
# never finishes (the worker logs the error), so waiting has a bound.
TIMEOUT = 60


def scale(x):
    """The callback: a top-level function of this script. The module pickles
    it by reference, as `__main__.scale`, which a worker resolves in its
    __mp_main__, this script imported again."""
    return 2.5 * x + 1.0


def run_partition(module, name, partition):
    """On a worker: module.<name>(partition), with this process's id and
    count of compilations."""
    result = module[name](partition)
    return result, os.getpid(), mlir.jit_cache.statistics()["compilations"]


def run_on_workers(client, label, module, name, partitions):
    """module.<name> mapped over the partitions on the cluster; prints what
    the workers did."""
    futures = client.map(
        run_partition, [module] * len(partitions), [name] * len(partitions), partitions, pure=False
    )
    outcomes = [future.result(timeout=TIMEOUT) for future in futures]
    serial = [module[name](p) for p in partitions]
    results = [result for result, _, _ in outcomes]
    equal = all(np.array_equal(r, s) for r, s in zip(results, serial))
    print(f"{label}: results equal serial: {equal}")
    pids = {pid for _, pid, _ in outcomes}
    print(f"{label}: ran in worker processes: {os.getpid() not in pids}")
    print(f"{label}: compilations on workers: {sum(c for _, _, c in outcomes)}")
    return results


def main():
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as directory:
        # A fresh cache. Workers inherit the environment: they would agree on
        # the cache even without the cache_dir the pickled modules carry.
        cache_dir = os.path.join(directory, "jit_cache")
        os.environ["MLIR_JIT_CACHE_DIR"] = cache_dir

        kernels = jit(KERNELS, cache_dir=cache_dir)
        with_callback = jit(CALLBACK, cache_dir=cache_dir)
        with_callback.register("scale", scale)
        with_lambda = jit(CALLBACK, cache_dir=cache_dir)
        with_lambda.register("scale", lambda x: -x)
        rng = np.random.default_rng(0)
        data = rng.standard_normal(60_000)
        partitions = np.array_split(data, 6)

        # The client compiles KERNELS and CALLBACK once each, by the first
        # call, and stores them. Callbacks are not part of the cache key:
        # with_lambda, CALLBACK too, loads with_callback's entry.
        kernels.sum(partitions[0])
        with_callback.scaled_sum(partitions[0])
        with_lambda.scaled_sum(partitions[0])
        stats = mlir.jit_cache.statistics()
        # CHECK: client: compilations 2, stores 2, entries 2
        print(
            f"client: compilations {stats['compilations']}, stores {stats['stores']}, "
            f"entries {mlir.jit_cache.info(cache_dir)['entries']}"
        )

        with (
            LocalCluster(
                n_workers=3,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
                local_directory=os.path.join(directory, "dask"),
            ) as cluster,
            Client(cluster) as client,
        ):
            client.wait_for_workers(3, timeout=TIMEOUT)
            # CHECK: sum: results equal serial: True
            # CHECK: sum: ran in worker processes: True
            # CHECK: sum: compilations on workers: 0
            sums = run_on_workers(client, "sum", kernels, "sum", partitions)
            # CHECK: sum of sums close to numpy's: True
            print("sum of sums close to numpy's:", bool(np.isclose(sum(sums), data.sum())))
            # CHECK: square: results equal serial: True
            # CHECK: square: ran in worker processes: True
            # CHECK: square: compilations on workers: 0
            run_on_workers(client, "square", kernels, "square", partitions)
            # CHECK: scaled_sum: results equal serial: True
            # CHECK: scaled_sum: ran in worker processes: True
            # CHECK: scaled_sum: compilations on workers: 0
            scaled = run_on_workers(client, "scaled_sum", with_callback, "scaled_sum", partitions)
            # CHECK: scaled sums close to numpy's: True
            print(
                "scaled sums close to numpy's:",
                bool(np.isclose(sum(scaled), (2.5 * data + 1.0).sum())),
            )

            # A lambda cannot be pickled by reference: the module pickles it
            # with cloudpickle, by value.
            # CHECK: lambda: results equal serial: True
            # CHECK: lambda: ran in worker processes: True
            # CHECK: lambda: compilations on workers: 0
            run_on_workers(client, "lambda", with_lambda, "scaled_sum", partitions)

            # Every worker, once it ran each module, loaded both from the
            # cache: it compiled and stored nothing.
            workers = list(client.scheduler_info()["workers"])
            for worker in workers:
                for module, name in [(kernels, "sum"), (with_callback, "scaled_sum")]:
                    client.submit(
                        run_partition, module, name, partitions[1], workers=[worker], pure=False
                    ).result(timeout=TIMEOUT)
            per_worker = client.run(mlir.jit_cache.statistics)
            # CHECK: workers: 3, each compiled 0, stored 0, hit the cache: True
            print(
                f"workers: {len(per_worker)}, "
                f"each compiled {max(s['compilations'] for s in per_worker.values())}, "
                f"stored {max(s['stores'] for s in per_worker.values())}, "
                f"hit the cache: {all(s['hits'] >= 2 for s in per_worker.values())}"
            )

        # CHECK: entries after: 2
        print("entries after:", mlir.jit_cache.info(cache_dir)["entries"])


if __name__ == "__main__":
    main()
