# RUN: %PYTHON %s | FileCheck %s
#
# DEFAULT_PIPELINE leaves the float min/max ops to LLVM's intrinsics
# (jit-expand-arith, where upstream's arith-expand writes compare-and-select
# code that orders -0 and +0 wrongly and whose reductions LLVM does not
# vectorize). The results are arith's: maximumf/minimumf propagate NaN and
# order -0 below +0; maxnumf/minnumf return the other operand when one is
# NaN. Checked on edge values in vectorized elementwise loops and in
# reductions, scalar (scf.for) and a linalg row reduction on tensors, as in
# a softmax.

import itertools
import math

import ml_dtypes
import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

OPS = ("maximumf", "minimumf", "maxnumf", "minnumf")
TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, -1e30, math.inf, -math.inf, math.nan, 1e-40]

source = []
for op, t in itertools.product(OPS, TYPES):
    source.append(f"""
func.func @{op}_{t}(%x: memref<?x{t}>, %y: memref<?x{t}>, %r: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x{t}>
  scf.for %i = %c0 to %n step %c1 {{
    %a = memref.load %x[%i] : memref<?x{t}>
    %b = memref.load %y[%i] : memref<?x{t}>
    %m = arith.{op} %a, %b : {t}
    memref.store %m, %r[%i] : memref<?x{t}>
  }}
  return
}}""")
for op, t in itertools.product(OPS, ("f32", "f64")):
    source.append(f"""
func.func @reduce_{op}_{t}(%x: memref<?x{t}>, %init: {t}) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x{t}>
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> {t} {{
    %a = memref.load %x[%i] : memref<?x{t}>
    %next = arith.{op} %acc, %a : {t}
    scf.yield %next : {t}
  }}
  return %m : {t}
}}""")
source.append("""
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %m = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %r = arith.maximumf %xi, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %m : tensor<?xf32>
}""")
module = jit("\n".join(source), opt_level=3)


def expected(op, a, b):
    """arith's `op` on Python floats."""
    if op in ("maximumf", "minimumf"):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if a == b == 0:  # -0 < +0
            negative = math.copysign(1, a) < 0, math.copysign(1, b) < 0
            return -0.0 if (all(negative) if op == "maximumf" else any(negative)) else 0.0
    elif math.isnan(a) or math.isnan(b):
        return b if math.isnan(a) else a
    return max(a, b) if op.startswith("max") else min(a, b)


def same(got, want, op):
    """Bit for bit, but the sign of a zero from maxnumf/minnumf of ±0, which
    arith leaves open."""
    if math.isnan(want):
        return math.isnan(got)
    signed = op in ("maximumf", "minimumf") or want != 0
    return got == want and (not signed or math.copysign(1, got) == math.copysign(1, want))


# Every pair of edge values, 16 of them and more in a row so that the
# vectorized loop body runs too.
pairs = list(itertools.product(EDGES, EDGES))
for t, dtype in TYPES.items():
    x = np.array([a for a, _ in pairs] * 17, dtype=dtype)
    y = np.array([b for _, b in pairs] * 17, dtype=dtype)
    wrong = []
    for op in OPS:
        r = np.empty_like(x)
        module[f"{op}_{t}"](x, y, r)
        wrong += [
            (op, float(a), float(b), float(g))
            for a, b, g in zip(x, y, r)
            if not same(float(g), expected(op, float(a), float(b)), op)
        ]
    print(f"elementwise {t}: {len(x) * len(OPS)} results, wrong: {wrong[:4]}")
# CHECK: elementwise f32: 6800 results, wrong: []
# CHECK-NEXT: elementwise f64: 6800 results, wrong: []
# CHECK-NEXT: elementwise f16: 6800 results, wrong: []
# CHECK-NEXT: elementwise bf16: 6800 results, wrong: []

# Reductions over 1000 values with one edge value at a position in the
# vectorized body, in the remainder, or first, from an initial value that
# is an edge value too.
rng = np.random.default_rng(28)
wrong = []
for t, op, edge, at, init in itertools.product(
    ("f32", "f64"), OPS, EDGES, (0, 500, 999), (-math.inf, math.nan, -0.0, 0.0)
):
    x = rng.uniform(-1, 1, 1000).astype(TYPES[t])
    x[at] = edge
    want = init
    for v in x.tolist():
        want = expected(op, want, v)
    got = module[f"reduce_{op}_{t}"](x, init)
    if not same(got, want, op):
        wrong.append((t, op, edge, at, init, got, want))
print(f"reductions: wrong: {wrong[:4]}")
# CHECK: reductions: wrong: []

x = rng.uniform(-1, 1, (64, 333)).astype(np.float32)
x[3, 100] = math.nan
x[5, :] = -0.0
x[6, :] = -math.inf
x[7, 200] = 0.0
row_max = module.row_max(x, np.full(64, -math.inf, np.float32))
want = []
for row in x.tolist():
    m = -math.inf
    for v in row:
        m = expected("maximumf", m, v)
    want.append(m)
print(
    "row max:",
    all(same(float(g), w, "maximumf") for g, w in zip(row_max, want)),
    "NaN row:",
    math.isnan(row_max[3]),
    "-0 row:",
    math.copysign(1, row_max[5]),
)
# CHECK: row max: True NaN row: True -0 row: -1.0


# What DEFAULT_PIPELINE makes of them: LLVM's intrinsics, no selects; on
# bf16, the intrinsic on f32 (LLVM would otherwise flush subnormals); f16's
# maxnumf as compare-and-select (LLVM would call libm's fmaxf per element).
def lower(text):
    with Context():
        module = Module.parse(text)
        PassManager.parse(DEFAULT_PIPELINE).run(module.operation)
        return str(module)


text = lower("""
func.func @f(%a: f32, %b: f32, %c: f64, %d: f64) -> (f32, f64) {
  %x = arith.minimumf %a, %b : f32
  %y = arith.maxnumf %c, %d : f64
  return %x, %y : f32, f64
}""")
print(
    "intrinsics:",
    "llvm.intr.minimum(" in text,
    "llvm.intr.maxnum(" in text,
    "selects:",
    text.count("llvm.select"),
)
# CHECK: intrinsics: True True selects: 0
text = lower("""
func.func @f(%a: bf16, %b: bf16) -> bf16 {
  %x = arith.maxnumf %a, %b : bf16
  return %x : bf16
}""")
print(
    "bf16:",
    [line.split("=", 1)[1].strip() for line in text.splitlines() if "llvm.intr.maxnum" in line],
)
# CHECK: bf16: ['llvm.intr.maxnum(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32) -> f32']
text = lower("""
func.func @f(%a: f16, %b: f16) -> f16 {
  %x = arith.maxnumf %a, %b : f16
  return %x : f16
}""")
print("f16: intrinsic", "llvm.intr.maxnum" in text, "selects", text.count("llvm.select") > 0)
# CHECK: f16: intrinsic False selects True
