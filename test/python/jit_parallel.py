# RUN: env OMP_NUM_THREADS=2 %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE runs parallel loops on the threads of LLVM's OpenMP runtime,
# OMP_NUM_THREADS of them (two here, whatever the machine): the matmul
# schedule's blocks and the module's own scf.parallel and scf.forall, whose
# reductions combine the threads' partial results. A callback in a parallel
# loop runs on its iteration's thread, taking the GIL; an exception it raises
# is re-raised when the call returns, and the module's next call runs anew.
# A loop of one iteration does not fork. DEFAULT_PIPELINE runs the same
# loops on the calling thread.

import ctypes
import threading

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit

MATMUL = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

LOOPS = """
func.func private @visit(i64)

func.func @parallel(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = arith.index_cast %i : index to i64
    func.call @visit(%v) : (i64) -> ()
    scf.reduce
  }
  return
}

func.func @forall(%n: index) {
  scf.forall (%i) in (%n) {
    %v = arith.index_cast %i : index to i64
    func.call @visit(%v) : (i64) -> ()
  }
  return
}

func.func @sum_of_squares(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.mulf %v, %v : f64
    scf.reduce(%s : f64) {
    ^bb0(%l: f64, %r: f64):
      %t = arith.addf %l, %r : f64
      scf.reduce.return %t : f64
    }
  }
  return %sum : f64
}
"""


def check_matmul():
    module = jit(MATMUL, pipeline=FAST_PIPELINE, opt_level=3, cache_dir=None)
    rng = np.random.default_rng(0)
    # One block, blocks and remainders in every dimension, more blocks than
    # threads.
    for m, n, k in [(1, 1, 1), (63, 65, 7), (64, 128, 512), (65, 129, 513), (300, 260, 600)]:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        c = rng.standard_normal((m, n), dtype=np.float32)
        expected = c + a @ b
        result = module.mm(a, b, c)
        close = np.allclose(result, expected, rtol=1e-4, atol=1e-4 * np.sqrt(k))
        print(f"matmul {m}x{n}x{k}: {'right' if close else 'WRONG'}")


# CHECK: matmul 1x1x1: right
# CHECK: matmul 63x65x7: right
# CHECK: matmul 64x128x512: right
# CHECK: matmul 65x129x513: right
# CHECK: matmul 300x260x600: right
check_matmul()


def check_loops(pipeline, name):
    module = jit(LOOPS, pipeline=pipeline, cache_dir=None)
    visits = []

    @module.callback("visit")
    def visit(i):
        visits.append((i, threading.get_ident()))

    for loop in ("parallel", "forall"):
        visits.clear()
        module[loop](1000)
        iterations = sorted(i for i, _ in visits)
        threads = {thread for _, thread in visits}
        print(
            f"{name} {loop}: every iteration once: {iterations == list(range(1000))}, "
            f"threads: {len(threads)}, the caller's among them: "
            f"{threading.get_ident() in threads}"
        )

    x = np.arange(100001, dtype=np.float64) / 1000
    print(f"{name} reduction: {np.isclose(module.sum_of_squares(x), np.dot(x, x), rtol=1e-12)}")

    def fail_at_500(i):
        visits.append((i, threading.get_ident()))
        if i == 500:
            raise KeyError("iteration 500")

    module = jit(LOOPS, pipeline=pipeline, cache_dir=None)
    module.register("visit", fail_at_500)
    visits.clear()
    try:
        module.parallel(1000)
        print(f"{name}: no exception")
    except KeyError as error:
        print(f"{name}: raised after the call: {error!r}")
    visits.clear()
    module.parallel(400)
    print(f"{name}: next call: {sorted(i for i, _ in visits) == list(range(400))}")


# CHECK: fast parallel: every iteration once: True, threads: 2, the caller's among them: True
# CHECK: fast forall: every iteration once: True, threads: 2, the caller's among them: True
# CHECK: fast reduction: True
# CHECK: fast: raised after the call: KeyError('iteration 500')
# CHECK: fast: next call: True
check_loops(FAST_PIPELINE, "fast")


def check_forks_from_two_iterations():
    # The OpenMP runtime the package loaded (by its soname).
    in_parallel = ctypes.CDLL("libomp.so.5").omp_in_parallel
    module = jit(LOOPS, pipeline=FAST_PIPELINE, cache_dir=None)
    seen = []
    module.register("visit", lambda i: seen.append(in_parallel()))
    for n in (0, 1, 2, 3):
        seen.clear()
        module.parallel(n)
        print(f"{n} iterations: in a parallel region: {seen}")


# CHECK: 0 iterations: in a parallel region: []
# CHECK: 1 iterations: in a parallel region: [0]
# CHECK: 2 iterations: in a parallel region: [1, 1]
# CHECK: 3 iterations: in a parallel region: [1, 1, 1]
check_forks_from_two_iterations()

# CHECK: default parallel: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: default forall: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: default reduction: True
# CHECK: default: raised after the call: KeyError('iteration 500')
# CHECK: default: next call: True
check_loops(DEFAULT_PIPELINE, "default")
