# RUN: %PYTHON %s | FileCheck %s
#
# Aggregate linalg ops (linalg::AggregatedOpInterface: linalg.softmax) are
# no structured ops, which convert-linalg-to-loops lowers: left alone, one
# failed in the LLVM translation ("LLVM Translation failed for operation:
# builtin.unrealized_conversion_cast"). jit-decompose-aggregates replaces
# each, on tensors, by the linalg ops it stands for (a softmax: row maximum,
# exponentials, row sum, division), under every pipeline; FAST_PIPELINE
# then computes a softmax along the last dimension as a parallel chain. On
# memrefs, where the decomposition does not apply, the error names the op.

import numpy as np
from fixtures import show_error
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit

PIPELINES = {"DEFAULT_PIPELINE": DEFAULT_PIPELINE, "FAST_PIPELINE": FAST_PIPELINE}

SOFTMAX = """
func.func @softmax(%x: tensor<{shape}x{element}>) -> tensor<{shape}x{element}> {{
  {dims}
  %e = tensor.empty({sizes}) : tensor<{shape}x{element}>
  %r = linalg.softmax dimension({dimension}) ins(%x : tensor<{shape}x{element}>)
                      outs(%e : tensor<{shape}x{element}>) -> tensor<{shape}x{element}>
  return %r : tensor<{shape}x{element}>
}}
"""


def softmax(shape, dimension, element="f32", static=False):
    """A linalg.softmax along `dimension` of a tensor of `shape`, its sizes
    dynamic unless `static`."""
    text = "x".join(str(size) if static else "?" for size in shape)
    dims = sizes = ""
    if not static:
        dims = "\n  ".join(
            f"%c{i} = arith.constant {i} : index\n  %d{i} = tensor.dim %x, %c{i} : tensor<{text}x{element}>"
            for i in range(len(shape))
        )
        sizes = ", ".join(f"%d{i}" for i in range(len(shape)))
    return SOFTMAX.format(shape=text, element=element, dims=dims, sizes=sizes, dimension=dimension)


def reference(x, dimension):
    """numpy's softmax of `x` along `dimension`, in float64."""
    wide = x.astype(np.float64)
    exp = np.exp(wide - wide.max(axis=dimension, keepdims=True))
    return exp / exp.sum(axis=dimension, keepdims=True)


# f32 and f64, 1-d to 3-d, along each dimension, sizes dynamic and static:
# within a few ulp of numpy's, and the same bits under both pipelines.
# CHECK: f32 (1000,) along 0: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (7,) along 0: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (130, 257) along 0: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (130, 257) along 1: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (4, 5, 6) along 0: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (4, 5, 6) along 1: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (4, 5, 6) along 2: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (3, 1000) along 1 static: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f32 (1, 1) along 0: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
# CHECK: f64 (64, 33) along 1: DEFAULT_PIPELINE True, FAST_PIPELINE True, same True
rng = np.random.default_rng(46)
for element, shape, dimension, static in [
    ("f32", (1000,), 0, False),
    ("f32", (7,), 0, False),
    ("f32", (130, 257), 0, False),
    ("f32", (130, 257), 1, False),
    ("f32", (4, 5, 6), 0, False),
    ("f32", (4, 5, 6), 1, False),
    ("f32", (4, 5, 6), 2, False),
    ("f32", (3, 1000), 1, True),
    ("f32", (1, 1), 0, False),
    ("f64", (64, 33), 1, False),
]:
    dtype = {"f32": np.float32, "f64": np.float64}[element]
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    expected = reference(x, dimension)
    tolerance = 2e-5 if element == "f32" else 1e-13
    results, close = [], []
    for name, pipeline in PIPELINES.items():
        module = jit(softmax(shape, dimension, element, static), pipeline=pipeline, cache_dir=None)
        results.append(module.softmax(x))
        close.append(f"{name} {np.allclose(results[-1], expected, rtol=tolerance, atol=0)}")
    same = results[0].tobytes() == results[1].tobytes()
    print(
        f"{element} {shape} along {dimension}{' static' if static else ''}: "
        f"{', '.join(close)}, same {same}"
    )

# A softmax inside a larger function: its input computed, its result used.
# CHECK: softmax of x + 1, times 2: DEFAULT_PIPELINE True, FAST_PIPELINE True
CHAINED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %s = linalg.softmax dimension(1) ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %two : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}
"""
x = rng.standard_normal((8, 16)).astype(np.float32)
print(
    "softmax of x + 1, times 2:",
    ", ".join(
        f"{name} {np.allclose(jit(CHAINED, pipeline=p, cache_dir=None).f(x), 2 * reference(x + 1, 1), rtol=2e-5)}"
        for name, p in PIPELINES.items()
    ),
)

# On memrefs the decomposition does not apply: an error naming the op,
# under both pipelines.
ON_MEMREFS = """
func.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>)
  return
}
"""
# CHECK: MLIRError: Failure while executing pass pipeline:
# CHECK-NEXT: error: "-":3:3: 'linalg.softmax' op on memrefs is not lowered: jit() decomposes it into simpler linalg ops on tensors only; give it tensors (or write the ops it stands for), and a pipeline that bufferizes them itself must run jit-decompose-aggregates first
# CHECK: MLIRError: Failure while executing pass pipeline:
# CHECK-NEXT: error: "-":3:3: 'linalg.softmax' op on memrefs is not lowered
for pipeline in PIPELINES.values():
    x = np.ones((2, 3), np.float32)
    show_error(lambda: jit(ON_MEMREFS, pipeline=pipeline, cache_dir=None).softmax(x, x.copy()))
