"""The kernels of numpy_kernels.py, jitted by this package, against numpy,
JAX's `jit` and PyTorch (eager and `torch.compile`) on the CPU, in one
process, taking turns (each after the others' worker threads have stopped
spinning); every result checked against numpy's.

Run by peers.sh in a venv of its own (bench/requirements_peers.txt, not part
of the tests). Several thread pools share the cores in one process: the
figures say how the kernels compare, numpy_kernels.py has the goals.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# First: it sets the environment numpy's BLAS reads when it loads.
import numpy_kernels  # noqa: E402, I001

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from mlir.execution_engine import FAST_PIPELINE, jit  # noqa: E402

N = 10_000_000
ROWS, COLUMNS = 2048, 1024
SIZES = (512, 513, 1024, 2048)


def softmax_numpy(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def peers(numpy_fn, jax_fn, torch_fn, *arrays):
    """The same kernel as numpy, JAX and torch functions of `arrays`, each
    returning a numpy array."""
    on_jax = [jnp.asarray(a) for a in arrays]
    on_torch = [torch.from_numpy(a) for a in arrays]
    jitted = jax.jit(jax_fn)
    compiled = torch.compile(torch_fn)
    return {
        "numpy": lambda: numpy_fn(*arrays),
        "jax": lambda: np.asarray(jitted(*on_jax).block_until_ready()),
        "torch": lambda: torch_fn(*on_torch).numpy(),
        "torch.compile": lambda: compiled(*on_torch).numpy(),
    }


def compare(name, ours, others, work=None, expected=None, rtol=1e-4, atol=1e-5):
    """Checks every result against `expected` (numpy's result unless
    given), measures, prints each time and this package's ratio to the
    fastest peer, which it returns."""
    if expected is None:
        expected = others["numpy"]()
    for peer, function in {"jit": ours, **others}.items():
        got = np.asarray(function(), dtype=np.float64)
        if got.shape != np.shape(expected) or not np.allclose(got, expected, rtol=rtol, atol=atol):
            raise AssertionError(f"{name}: {peer} differs from the expected result")
    times = numpy_kernels.measure({"jit": ours, **others})
    best = min((t, peer) for peer, t in times.items() if peer != "jit")
    unit = (lambda t: f"{work / t / 1e9:.0f} GFLOP/s") if work else (lambda t: f"{t * 1e3:.2f} ms")
    listed = ", ".join(f"{peer} {unit(t)}" for peer, t in times.items())
    ratio = best[0] / times["jit"]
    print(f"{name}: {listed}; jit {ratio:.2f}x the fastest peer ({best[1]})", flush=True)
    return ratio


def main():
    print(
        f"jax {jax.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), numpy {np.__version__}"
    )
    fast = jit(numpy_kernels.SOURCE, pipeline=FAST_PIPELINE, opt_level=3)
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    y = rng.random(N, dtype=np.float32)
    a = np.float32(2.5)
    compare(
        f"a * x + y, {N} f32 (FAST_PIPELINE)",
        lambda: fast.axpy(a, x, y),
        peers(lambda x, y: a * x + y, lambda x, y: a * x + y, lambda x, y: a * x + y, x, y),
    )
    compare(
        f"sum, {N} f32 (FAST_PIPELINE)",
        lambda: fast.sum(x),
        peers(lambda x: x.sum(), lambda x: x.sum(), lambda x: x.sum(), x),
    )
    xs = x * 8 - 4
    compare(
        f"tanh(x) * y + 1, {N} f32 (FAST_PIPELINE)",
        lambda: fast.fused(xs, y),
        peers(
            lambda x, y: np.tanh(x) * y + 1,
            lambda x, y: jnp.tanh(x) * y + 1,
            lambda x, y: torch.tanh(x) * y + 1,
            xs,
            y,
        ),
    )
    logits = rng.standard_normal((ROWS, COLUMNS), dtype=np.float32)
    compare(
        f"row softmax, {ROWS}x{COLUMNS} f32 (FAST_PIPELINE)",
        lambda: fast.softmax(logits),
        peers(
            softmax_numpy,
            lambda v: jax.nn.softmax(v, axis=1),
            lambda v: torch.softmax(v, dim=1),
            logits,
        ),
    )
    for size in SIZES:
        A = rng.random((size, size), dtype=np.float32)
        B = rng.random((size, size), dtype=np.float32)
        compare(
            f"matmul {size}^3 f32 (FAST_PIPELINE)",
            lambda: fast.matmul(A, B),
            peers(lambda a, b: a @ b, lambda a, b: a @ b, lambda a, b: a @ b, A, B),
            work=2 * size**3,
        )


if __name__ == "__main__":
    main()
