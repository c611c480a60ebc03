"""Kernels written in linalg on tensors, jitted, against numpy, side by side.

Prints each kernel's throughput as a ratio to numpy's, measured in the same
run, the measures taking turns (the fastest round of each):
- elementwise `a * x + y` over 10^7 f32, returning a new array (numpy's
  `a * x + y` makes one too);
- `sum` over 10^7 f32, the additions allowed to reassociate
  (`fastmath<reassoc>`), against `ndarray.sum`;
- the fused elementwise `tanh(x) * y + 1` over 10^7 f32, one
  `linalg.generic`, against numpy's three passes;
- a row softmax of 2048x1024 f32 as four `linalg.generic`s (row max,
  `exp(x - max)`, row sum, division), against numpy's;
  these four each through DEFAULT_PIPELINE (one thread) and FAST_PIPELINE
  (their parallel dimensions on LLVM's OpenMP runtime's threads);
- `linalg.matmul` f32 at 512^3 through DEFAULT_PIPELINE (linalg to loops),
  and at 512^3, 513^3 (a row and a column past the blocks), 1024^3 and
  2048^3 through FAST_PIPELINE (tiled, packed, vectorized, its blocks on
  LLVM's OpenMP runtime's threads), in GFLOP/s, against `numpy.matmul`,
  both on all cores, then both on one.

numpy's BLAS reads OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when it loads:
both are removed from this process's environment before numpy is imported,
so that it runs the kernel it picks for this CPU, which is printed.

OpenBLAS's worker threads do not spin after a kernel (unless the
environment says otherwise: OPENBLAS_THREAD_TIMEOUT=4, its minimum). By
default they spin about 0.1 s (2^28 cycles) without yielding the core, and
the jitted matmul measured right after numpy's ran at half speed. OpenMP's
workers (this package's, PyTorch's) keep their defaults: they yield the
core while they wait, and waking sleeping ones at every parallel region
(OMP_WAIT_POLICY=passive) made the softmax, four regions, 3 times slower.

`--short` (or BENCH_SHORT=1) runs small sizes once, checking the results
but not the times (a smoke test).
"""

import os
import sys

# Before numpy loads OpenBLAS.
for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(variable, None)
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import ctypes  # noqa: E402
import glob  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from mlir.execution_engine import FAST_PIPELINE, jit  # noqa: E402

SHORT = "--short" in sys.argv[1:] or os.environ.get("BENCH_SHORT") == "1"
N = 10_000 if SHORT else 10_000_000
MATMUL_SIZES = (64,) if SHORT else (512, 513, 1024, 2048)
ROUNDS = 1 if SHORT else 15
# Seconds each measure waits for the previous one's worker threads to stop
# spinning (it then wakes its own with an untimed call): LLVM's OpenMP
# runtime (this package's) spins 200 ms after a parallel region, yielding
# the core; PyTorch's and JAX's pools less. With them spinning, the library
# measured next shared the two cores; with every pool asleep, each paid for
# waking its own (a 512^3 matmul measured right after DEFAULT_PIPELINE's,
# which takes 0.3 s, woke OpenMP's sleeping workers: 0.97 of numpy's speed
# against 1.10 awake).
SETTLE = 0.0 if SHORT else 0.25
ROWS, COLUMNS = (16, 32) if SHORT else (2048, 1024)

SOURCE = """
#map = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @axpy(%a: f32, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    %s = arith.addf %m, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @sum(%x: tensor<?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%f : tensor<f32>) {
  ^bb0(%xi: f32, %acc: f32):
    %s = arith.addf %xi, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}
func.func @fused(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %t = math.tanh %xi : f32
    %m = arith.mulf %t, %yi : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty(%m) : tensor<?xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%rows_empty : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%max_init : tensor<?xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %r = arith.maximumf %xi, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %all_empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %exp = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %mi: f32, %o: f32):
    %d = arith.subf %xi, %mi : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x?xf32>) outs(%sum_init : tensor<?xf32>) {
  ^bb0(%ei: f32, %acc: f32):
    %r = arith.addf %ei, %acc fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%all_empty : tensor<?x?xf32>) {
  ^bb0(%ei: f32, %si: f32, %o: f32):
    %q = arith.divf %ei, %si : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def openblas():
    """numpy's OpenBLAS library (scipy-openblas, bundled with the wheel)."""
    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    paths = glob.glob(os.path.join(libs, "libscipy_openblas*.so"))
    return ctypes.CDLL(paths[0]) if paths else None


def blas_threads(library, count):
    if library is not None:
        library.scipy_openblas_set_num_threads64_(count)


def jit_threads(count):
    """Sets the thread count of the OpenMP runtime the package loaded."""
    ctypes.CDLL("libomp.so.5").omp_set_num_threads(count)


def measure(measures):
    """Seconds per call of each measure (`name: function`): the measures
    take turns, round after round, and each keeps its fastest round. Each
    first waits SETTLE seconds, for the worker threads of the one before to
    stop spinning on the cores, then runs once untimed, waking its own: each
    library is measured as in a loop of its calls."""
    fastest = dict.fromkeys(measures, float("inf"))
    for _ in range(ROUNDS):
        for name, function in measures.items():
            if SETTLE:
                time.sleep(SETTLE)
                function()
            start = time.perf_counter()
            function()
            fastest[name] = min(fastest[name], time.perf_counter() - start)
    return fastest


def main():
    library = openblas()
    if library is not None:
        library.scipy_openblas_get_corename64_.restype = ctypes.c_char_p
        library.scipy_openblas_get_config64_.restype = ctypes.c_char_p
        library.scipy_openblas_get_num_threads64_.restype = ctypes.c_int
        threads = library.scipy_openblas_get_num_threads64_()
        print(
            f"numpy {np.__version__}: OpenBLAS kernel "
            f"{library.scipy_openblas_get_corename64_().decode()} "
            f"({library.scipy_openblas_get_config64_().decode()}), {threads} threads"
        )
    else:
        threads = 0
        print(f"numpy {np.__version__}: OpenBLAS not found, its kernel unknown")
    if SHORT:
        print("short run (smoke test): the figures below mean nothing")

    module = jit(SOURCE, opt_level=3)
    fast = jit(SOURCE, pipeline=FAST_PIPELINE, opt_level=3)
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    y = rng.random(N, dtype=np.float32)
    a = np.float32(2.5)
    xs = x * 8 - 4  # tanh varies over [-4, 4]
    logits = rng.standard_normal((ROWS, COLUMNS), dtype=np.float32)

    def softmax(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    for jitted in (module, fast):
        assert np.allclose(jitted.axpy(a, x, y), a * x + y)
        assert np.isclose(jitted.sum(x), x.astype(np.float64).sum(), rtol=1e-5)
        assert np.allclose(jitted.fused(xs, y), np.tanh(xs) * y + 1, rtol=1e-6, atol=1e-6)
        assert np.allclose(jitted.softmax(logits), softmax(logits), rtol=1e-5, atol=1e-7)

    # Each kernel against numpy's alone, so that both see the same caches.
    def both(kernel, *arguments):
        default_kernel, fast_kernel = module[kernel], fast[kernel]
        return {"jit": lambda: default_kernel(*arguments), "fast": lambda: fast_kernel(*arguments)}

    axpy = measure({**both("axpy", a, x, y), "numpy": lambda: a * x + y})
    total = measure({**both("sum", x), "numpy": lambda: x.sum()})
    fused = measure({**both("fused", xs, y), "numpy": lambda: np.tanh(xs) * y + 1})
    rows = measure({**both("softmax", logits), "numpy": lambda: softmax(logits)})
    matmuls = {}
    for size in MATMUL_SIZES:
        A = rng.random((size, size), dtype=np.float32)
        B = rng.random((size, size), dtype=np.float32)
        assert np.allclose(fast.matmul(A, B), A @ B, rtol=1e-4)
        kernels = {"fast": lambda: fast.matmul(A, B), "numpy": lambda: A @ B}
        if size == MATMUL_SIZES[0]:
            assert np.allclose(module.matmul(A, B), A @ B, rtol=1e-4)
            kernels["default"] = lambda: module.matmul(A, B)
        matmuls[size] = measure(kernels)
        blas_threads(library, 1)
        jit_threads(1)
        single = measure({"fast": lambda: fast.matmul(A, B), "numpy": lambda: A @ B})
        matmuls[size].update({f"{name}, 1 thread": time for name, time in single.items()})
        blas_threads(library, threads)
        jit_threads(os.cpu_count())

    for name, times, goal in [
        (f"axpy, {N} f32", axpy, 1),
        (f"sum, {N} f32", total, 1.5),
        (f"tanh(x) * y + 1, {N} f32", fused, 2),
        (f"row softmax, {ROWS}x{COLUMNS} f32", rows, 2),
    ]:
        print(
            f"{name}: DEFAULT_PIPELINE {times['jit'] * 1e3:.2f} ms, FAST_PIPELINE "
            f"{times['fast'] * 1e3:.2f} ms ({os.cpu_count()} threads), numpy "
            f"{times['numpy'] * 1e3:.2f} ms: throughput {times['numpy'] / times['jit']:.2f}x "
            f"and {times['numpy'] / times['fast']:.2f}x numpy's (goal >= {goal})"
        )
    for size, times in matmuls.items():
        gflops = {name: 2 * size**3 / time / 1e9 for name, time in times.items()}
        default = f"; DEFAULT_PIPELINE {gflops['default']:.2f}" if "default" in gflops else ""
        print(
            f"matmul {size}^3 f32, GFLOP/s: FAST_PIPELINE {gflops['fast']:.1f}, numpy "
            f"{gflops['numpy']:.1f} ({threads} threads each): "
            f"{times['numpy'] / times['fast']:.2f}x numpy's (goal >= 1); on 1 thread "
            f"{gflops['fast, 1 thread']:.1f} and {gflops['numpy, 1 thread']:.1f}: "
            f"{times['numpy, 1 thread'] / times['fast, 1 thread']:.2f}x{default}"
        )


if __name__ == "__main__":
    main()
