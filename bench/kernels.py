"""The broad benchmark: kernels people write every day, jitted by this
package with no pipeline named (jit()'s default), against numpy, JAX's `jit`
and PyTorch (eager and `torch.compile`) on the CPU, in one process, taking
turns as peers.py's do; each family at several sizes, every result checked
against a float64 numpy reference before anything is timed.

Each line gives every library's time and this package's ratio to the
fastest peer (above 1: ahead); the last lines give each family's worst
ratio. `--family NAME` (repeatable) runs some families only; `--short`
runs small sizes once (a smoke test: results checked, times meaningless);
`--compile` measures first calls instead (compile times, cold and warm).
Run by peers.sh (`bench/peers.sh kernels.py`), figures in bench/README.md.
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# First: it sets the environment numpy's BLAS reads when it loads.
import numpy_kernels  # noqa: E402, I001
import peers  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from mlir.execution_engine import FAST_PIPELINE, jit  # noqa: E402

SOURCE = """
#bmm_a = affine_map<(b, m, n, k) -> (b, m, k)>
#bmm_bt = affine_map<(b, m, n, k) -> (b, n, k)>
#bmm_c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batch_matmul(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %batches = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%batches, %m, %n) : tensor<?x?x?xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
                           outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// softmax(q kᵀ) v for each head (q scaled already).
func.func @attention(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>)
    -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %heads = tensor.dim %q, %c0 : tensor<?x?x?xf32>
  %rows = tensor.dim %q, %c1 : tensor<?x?x?xf32>
  %keys = tensor.dim %k, %c1 : tensor<?x?x?xf32>
  %width = tensor.dim %v, %c2 : tensor<?x?x?xf32>
  %zero = arith.constant 0.0 : f32
  %scores_empty = tensor.empty(%heads, %rows, %keys) : tensor<?x?x?xf32>
  %scores_zero = linalg.fill ins(%zero : f32) outs(%scores_empty : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %scores = linalg.batch_matmul indexing_maps = [#bmm_a, #bmm_bt, #bmm_c]
      ins(%q, %k : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%scores_zero : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%scores : tensor<?x?x?xf32>)
      outs(%scores_empty : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %out_empty = tensor.empty(%heads, %rows, %width) : tensor<?x?x?xf32>
  %out_zero = linalg.fill ins(%zero : f32) outs(%out_empty : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%out_zero : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %out : tensor<?x?x?xf32>
}

#rows = affine_map<(i, j) -> (i, j)>
#columns = affine_map<(i, j) -> (j)>
func.func @column_sums(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #columns], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %s, %a : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @transpose(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%n, %m) : tensor<?x?xf32>
  %r = linalg.transpose ins(%x : tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) permutation = [1, 0]
  return %r : tensor<?x?xf32>
}

func.func @matvec(%a: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%m) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.matvec ins(%a, %x : tensor<?x?xf32>, tensor<?xf32>) outs(%acc : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention_numpy(q, k, v):
    return softmax(q @ np.swapaxes(k, 1, 2), 2) @ v


def attention_jax(q, k, v):
    return jax.nn.softmax(q @ jnp.swapaxes(k, 1, 2), axis=2) @ v


def attention_torch(q, k, v):
    return torch.softmax(q @ k.transpose(1, 2), dim=2) @ v


def batch_matmul_cases(rng, short):
    sizes = (
        [(2, 16, 8, 24)] if short else [(64, 128, 128, 128), (16, 256, 64, 256), (8, 100, 300, 70)]
    )
    for batches, m, n, k in sizes:
        a = rng.standard_normal((batches, m, k), dtype=np.float32)
        b = rng.standard_normal((batches, k, n), dtype=np.float32)
        yield (
            f"batch_matmul {batches}x{m}x{n}x{k}",
            "batch_matmul",
            (a, b),
            lambda a, b: a @ b,
            (lambda a, b: a @ b,) * 3,
            2 * batches * m * n * k,
        )


def attention_cases(rng, short):
    sizes = [(2, 10, 8)] if short else [(8, 512, 64), (8, 256, 64), (12, 197, 64)]
    for heads, tokens, width in sizes:
        q, k, v = (rng.standard_normal((heads, tokens, width), dtype=np.float32) for _ in range(3))
        q /= np.float32(np.sqrt(width))
        yield (
            f"attention {heads} heads, {tokens} tokens x {width}",
            "attention",
            (q, k, v),
            attention_numpy,
            (attention_numpy, attention_jax, attention_torch),
            4 * heads * tokens * tokens * width,
        )


def column_sums_cases(rng, short):
    sizes = [(5, 7)] if short else [(4096, 4096), (20000, 1000), (100000, 64), (64, 100000)]
    for rows, columns in sizes:
        x = rng.standard_normal((rows, columns), dtype=np.float32)
        yield (
            f"column sums {rows}x{columns}",
            "column_sums",
            (x,),
            lambda x: x.sum(axis=0),
            (lambda x: x.sum(axis=0), lambda x: x.sum(axis=0), lambda x: x.sum(dim=0)),
            None,
        )


def transpose_cases(rng, short):
    sizes = [(5, 7)] if short else [(4096, 4096), (1000, 3000), (64, 100000)]
    for rows, columns in sizes:
        x = rng.standard_normal((rows, columns), dtype=np.float32)
        # A copy in the transposed layout, as the jitted function returns.
        yield (
            f"transpose {rows}x{columns}",
            "transpose",
            (x,),
            lambda x: x.T,
            (
                lambda x: np.ascontiguousarray(x.T),
                lambda x: x.T,
                lambda x: x.t().contiguous(),
            ),
            None,
        )


def skinny_matmul_cases(rng, short):
    # Tall and skinny (M much larger than N and K), and few columns.
    sizes = [(9, 5, 7)] if short else [(16384, 64, 64), (100000, 32, 32), (4096, 4096, 64)]
    matmul = jit(numpy_kernels.SOURCE, pipeline=FAST_PIPELINE).matmul
    for m, n, k in sizes:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        yield (
            f"matmul {m}x{n}x{k}",
            matmul,
            (a, b),
            lambda a, b: a @ b,
            (lambda a, b: a @ b,) * 3,
            2 * m * n * k,
        )


def matvec_cases(rng, short):
    sizes = [(5, 7)] if short else [(4096, 4096), (1000, 1000), (16384, 256)]
    for rows, columns in sizes:
        a = rng.standard_normal((rows, columns), dtype=np.float32)
        x = rng.standard_normal(columns, dtype=np.float32)
        yield (
            f"matvec {rows}x{columns}",
            "matvec",
            (a, x),
            lambda a, x: a @ x,
            (lambda a, x: a @ x,) * 3,
            2 * rows * columns,
        )


CONV = """
func.func @conv(%x: tensor<{n}x{h}x{w}x{c}xf32>, %k: tensor<{kh}x{kw}x{c}x{f}xf32>) -> tensor<{n}x{oh}x{ow}x{f}xf32> {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{n}x{oh}x{ow}x{f}xf32>
  %o = linalg.fill ins(%zero : f32) outs(%empty : tensor<{n}x{oh}x{ow}x{f}xf32>) -> tensor<{n}x{oh}x{ow}x{f}xf32>
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}
      ins(%x, %k : tensor<{n}x{h}x{w}x{c}xf32>, tensor<{kh}x{kw}x{c}x{f}xf32>)
      outs(%o : tensor<{n}x{oh}x{ow}x{f}xf32>) -> tensor<{n}x{oh}x{ow}x{f}xf32>
  return %r : tensor<{n}x{oh}x{ow}x{f}xf32>
}}
"""


def conv_numpy(x, k, stride):
    """NHWC x HWCF, a tensordot a filter tap."""
    oh = (x.shape[1] - k.shape[0]) // stride + 1
    ow = (x.shape[2] - k.shape[1]) // stride + 1
    out = 0
    for i in range(k.shape[0]):
        for j in range(k.shape[1]):
            window = x[:, i : i + stride * oh : stride, j : j + stride * ow : stride]
            out = out + np.tensordot(window, k[i, j], 1)
    return out


def conv_torch(x, k, stride):
    """NHWC x HWCF through torch's NCHW conv2d on channels-last memory."""
    nchw = x.permute(0, 3, 1, 2)
    return torch.nn.functional.conv2d(nchw, k.permute(3, 2, 0, 1), stride=stride).permute(
        0, 2, 3, 1
    )


def convolution_cases(rng, short):
    # (n, h, w, c, kh, kw, f, stride): a ResNet-like 3x3, its 1x1, a strided
    # 3x3, a batch of small images. Sizes are static (the rewrite needs n,
    # oh and ow known but for one of them).
    sizes = (
        [(1, 6, 7, 3, 3, 3, 4, 1)]
        if short
        else [
            (1, 58, 58, 64, 3, 3, 64, 1),
            (1, 56, 56, 64, 1, 1, 256, 1),
            (1, 113, 113, 32, 3, 3, 64, 2),
            (16, 34, 34, 16, 3, 3, 32, 1),
        ]
    )
    for n, h, w, c, kh, kw, f, stride in sizes:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
        source = CONV.format(n=n, h=h, w=w, c=c, kh=kh, kw=kw, f=f, oh=oh, ow=ow, s=stride)
        x = rng.standard_normal((n, h, w, c), dtype=np.float32)
        k = rng.standard_normal((kh, kw, c, f), dtype=np.float32)
        yield (
            f"conv {kh}x{kw}/{stride} {n}x{h}x{w}x{c} -> {f}",
            jit(source, pipeline=FAST_PIPELINE).conv,
            (x, k),
            lambda x, k, stride=stride: conv_numpy(x, k, stride),
            (
                lambda x, k, stride=stride: conv_numpy(x, k, stride),
                lambda x, k, stride=stride: jax.lax.conv_general_dilated(
                    x, k, (stride, stride), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
                ),
                lambda x, k, stride=stride: conv_torch(x, k, stride),
            ),
            2 * n * oh * ow * f * kh * kw * c,
        )


FAMILIES = {
    "batch_matmul": batch_matmul_cases,
    "attention": attention_cases,
    "column_sums": column_sums_cases,
    "transpose": transpose_cases,
    "matvec": matvec_cases,
    "skinny_matmul": skinny_matmul_cases,
    "convolution": convolution_cases,
}


def run_case(module, name, function, arrays, reference, peer_functions, work):
    """Checks every library's result against a float64 reference, then
    measures; returns this package's ratio to the fastest peer. `function`
    is a function of `module` by name, or a jitted function of its own."""
    expected = reference(*(a.astype(np.float64) for a in arrays))
    ours = getattr(module, function) if isinstance(function, str) else function
    return peers.compare(
        name,
        lambda: ours(*arrays),
        peers.peers(*peer_functions, *arrays),
        work,
        expected=expected,
        rtol=1e-3,
        atol=1e-4 * max(float(np.abs(expected).max(initial=0)), 1e-30),
    )


ROW_SOFTMAX = """
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def first_call(compile_and_call):
    """Seconds of `compile_and_call()`, the fastest of three."""
    fastest = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        compile_and_call()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest


def compile_times(rng):
    """The first call of a row softmax and of 8-head attention, compiled
    with a cold object cache and loaded from a warm one, against jax.jit's
    first call of a new function (its trace and compilation)."""
    x = rng.standard_normal((256, 1024), dtype=np.float32)
    q, k, v = (rng.standard_normal((8, 128, 64), dtype=np.float32) for _ in range(3))
    attention_source = "func.func @attention" + SOURCE.split("func.func @attention")[1]
    attention_source = attention_source.split("#rows")[0]
    prelude = SOURCE.split("func.func @batch_matmul")[0]
    kernels = [
        ("row softmax 256x1024", ROW_SOFTMAX, "softmax", (x,), lambda x: jax.nn.softmax(x, axis=1)),
        ("attention, 8 heads", prelude + attention_source, "attention", (q, k, v), attention_jax),
    ]
    for name, source, function, arrays, jax_fn in kernels:

        def cold():
            with tempfile.TemporaryDirectory() as directory:
                getattr(jit(source, pipeline=FAST_PIPELINE, cache_dir=directory), function)(*arrays)

        warm_directory = tempfile.mkdtemp()
        getattr(jit(source, pipeline=FAST_PIPELINE, cache_dir=warm_directory), function)(*arrays)

        def warm():
            getattr(jit(source, pipeline=FAST_PIPELINE, cache_dir=warm_directory), function)(
                *arrays
            )

        def jax_first():
            jax.jit(lambda *a: jax_fn(*a))(*arrays).block_until_ready()

        times = {"cold": first_call(cold), "warm": first_call(warm), "jax": first_call(jax_first)}
        listed = ", ".join(f"{what} {t * 1e3:.0f} ms" for what, t in times.items())
        print(
            f"first call, {name}: {listed}; cold {times['jax'] / times['cold']:.2f}x jax's",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--compile", action="store_true", help="first calls only: compile times")
    args = parser.parse_args()
    print(
        f"jax {jax.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"numpy {np.__version__}"
    )
    rng = np.random.default_rng(0)
    if args.compile:
        compile_times(rng)
        return
    module = jit(SOURCE, pipeline=FAST_PIPELINE)
    worst = {}
    for family in args.family or FAMILIES:
        for case in FAMILIES[family](rng, args.short):
            ratio = run_case(module, *case)
            worst[family] = min(worst.get(family, ratio), ratio)
    for family, ratio in worst.items():
        print(f"{family}: worst ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
