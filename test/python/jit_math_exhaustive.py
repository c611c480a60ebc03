# RUN: %PYTHON %s | FileCheck %s
#
# The approximations of jit-approximate-math (tanh, exp, expm1, log1p, erf
# and acos on f32) over every f32 input: the 2^32 bit patterns in 256
# shards of 2^24. By default (CI) a sample: the shards that hold the inputs
# where each function is least accurate, or upstream's tanh and erf were
# (3.7372892, 1.8308047: 5 ulp), and two more, and those inputs themselves;
# MATH_SHARDS=all runs all 256 (the long run of docs/typed_calls.md, an
# hour on one core), MATH_SHARDS=3,17,... the ones named, MATH_JOBS=N in N
# processes.
#
# The reference: the float64 function (numpy's, and for erf libm's through a
# jitted f64 call, checked against Python's math.erf), at most 4 units of
# float64's last place from the exact value, that is 2^-27 of f32's, rounded
# to f32. That is the correctly rounded f32 result, but where the exact value
# is within 2^-27 f32 ulp of halfway between two floats: there the count of
# ulps may be off by one. The fractional error against the float64 value
# itself, also printed, is off by 2^-27 ulp at most. Errors are counted
# where the result is a normal float (a result below the smallest normal
# float may be flushed to zero, of the same sign); infinities, NaN and zeros
# must be exact, the sign of zero too.

import math
import multiprocessing
import os
import sys

import numpy as np
from mlir.execution_engine import jit

np.seterr(all="ignore")

# Each function: its float64 reference and the largest error allowed, in
# units in the last place of the correctly rounded f32 result (the bounds
# docs/typed_calls.md states).
BOUNDS = {"tanh": 1, "exp": 2, "expm1": 3, "log1p": 2, "erf": 1, "acos": 1}
NUMPY = {"tanh": np.tanh, "exp": np.exp, "expm1": np.expm1, "log1p": np.log1p, "acos": np.arccos}
SHARDS = 256
SHARD_SIZE = 2**32 // SHARDS
CHUNK = 2**22
SMALLEST_NORMAL = np.float32(np.finfo(np.float32).smallest_normal)
# Inputs where each function is least accurate over all 2^32 inputs (the
# largest error from the float64 value, docs/typed_calls.md), and where
# upstream's tanh and erf were (5 ulp).
KNOWN = {
    "tanh": [1.015272, -1.015272, 3.7372892, -3.7372892, 5.126039],
    "exp": [-0.024724156],
    "expm1": [0.01537888],
    "log1p": [17395918.0],
    "erf": [1.0269741, -1.0269741, 1.8308047, -1.8308047, 1.8628029],
    "acos": [0.607433],
}
# Two shards besides those: one of negative inputs of magnitude around 1, one
# of positive ones around 4 (where tanh and erf near 1).
EXTRA_SHARDS = [190, 64]

SOURCE = "\n".join(
    f"""
func.func @{name}(%x: memref<?x{t}>, %y: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x{t}>
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %x[%i] : memref<?x{t}>
    %r = math.{op} %v : {t}
    memref.store %r, %y[%i] : memref<?x{t}>
  }}
  return
}}"""
    # Named apart from libm's functions, which the f64 one calls.
    for name, op, t in [(f"f32_{name}", name, "f32") for name in BOUNDS]
    + [("f64_erf", "erf", "f64")]
)

_module = None


def module():
    global _module
    if _module is None:
        _module = jit(SOURCE, opt_level=3)
    return _module


def call(name, x):
    y = np.empty_like(x)
    module()[f"f{x.dtype.itemsize * 8}_{name}"](x, y)
    return y


def reference(name, x64):
    if name == "erf":
        return call("erf", x64)
    return NUMPY[name](x64)


def shard_of(value):
    bits = int(np.array([value], np.float32).view(np.uint32)[0])
    return bits // SHARD_SIZE


class Result:
    """The worst error over some inputs, and the inputs that were wrong."""

    def __init__(self):
        self.ulp = 0.0  # against the rounded reference
        self.exact = 0.0  # against the float64 reference
        self.worst = None  # the input of the largest `exact`
        self.inputs = 0
        self.wrong = []  # (input, result, expected) of inexact specials and zeros

    def merge(self, other):
        if other.exact > self.exact:
            self.exact, self.worst = other.exact, other.worst
        self.ulp = max(self.ulp, other.ulp)
        self.inputs += other.inputs
        self.wrong += other.wrong[: max(0, 10 - len(self.wrong))]
        return self


def check(name, x):
    """The errors of function `name` over the f32 array `x`."""
    result = Result()
    result.inputs = x.size
    got = call(name, x)
    reference64 = reference(name, x.astype(np.float64))
    expected = reference64.astype(np.float32)
    finite = np.isfinite(expected)
    normal = finite & (np.abs(expected) >= SMALLEST_NORMAL)
    spacing = np.spacing(np.abs(expected[normal])).astype(np.float64)
    g = got[normal].astype(np.float64)
    ulp = np.abs(g - expected[normal].astype(np.float64)) / spacing
    exact = np.abs(g - reference64[normal]) / spacing
    ulp[np.isnan(ulp)] = np.inf
    exact[np.isnan(exact)] = np.inf
    if ulp.size:
        result.ulp = float(ulp.max())
        i = int(exact.argmax())
        result.exact = float(exact[i])
        result.worst = float(x[normal][i])
    # Infinities and NaN exactly; zeros and results below the smallest
    # normal float within it (or flushed), of the same sign.
    both_nan = np.isnan(expected) & np.isnan(got)
    special = ~finite & ~both_nan & (got != expected)
    tiny = finite & ~normal
    tiny_wrong = tiny & (
        (np.abs(got) > SMALLEST_NORMAL)
        | (np.signbit(got) != np.signbit(expected))
        | ((expected == 0) & (got != 0))
    )
    for i in np.flatnonzero(special | tiny_wrong)[:10]:
        result.wrong.append((float(x[i]), float(got[i]), float(expected[i])))
    return result


def check_shard(args):
    name, shard = args
    result = Result()
    start = shard * SHARD_SIZE
    for offset in range(0, SHARD_SIZE, CHUNK):
        bits = np.arange(start + offset, start + offset + CHUNK, dtype=np.uint64)
        result.merge(check(name, bits.astype(np.uint32).view(np.float32)))
    return name, result


def main():
    # The f64 reference of erf is libm's: the same as Python's.
    sample = np.random.default_rng(46).standard_normal(100_000) * 3
    libm = np.array([math.erf(v) for v in sample])
    assert np.array_equal(reference("erf", sample), libm), "erf64 is not libm's erf"

    which = os.environ.get("MATH_SHARDS", "sample")
    jobs = int(os.environ.get("MATH_JOBS", "1"))
    names = list(BOUNDS)
    if which == "all":
        shards = {name: list(range(SHARDS)) for name in names}
    elif which == "sample":
        shards = {
            name: sorted({shard_of(v) for v in KNOWN.get(name, [])} | set(EXTRA_SHARDS))
            for name in names
        }
    else:
        chosen = sorted({int(s) for s in which.split(",")})
        shards = {name: chosen for name in names}
    work = [(name, shard) for name in names for shard in shards[name]]
    results = {name: Result() for name in names}
    pool = multiprocessing.get_context("spawn").Pool(jobs) if jobs > 1 else None
    # In fresh processes, each jitting the module for itself, or in this one.
    for done, (name, result) in enumerate(
        (pool.imap_unordered if pool else map)(check_shard, work), 1
    ):
        results[name].merge(result)
        if done % 64 == 0:
            print(f"{done} of {len(work)} shards", file=sys.stderr, flush=True)
    if pool:
        pool.close()
    for name in names:
        # And the known inputs themselves, and the signed zeros.
        known = np.array(KNOWN.get(name, []) + [0.0, -0.0], np.float32)
        results[name].merge(check(name, known))

    for name in names:
        r = results[name]
        print(
            f"{name}: {len(shards[name])} shards, max ulp {r.ulp:.0f} within {BOUNDS[name]}:",
            f"{r.ulp <= BOUNDS[name]}, specials and zeros exact: {not r.wrong}",
            f"({r.inputs} inputs; {r.exact:.3f} ulp from the float64 value at {r.worst!r};",
            f"wrong: {r.wrong})",
        )


if __name__ == "__main__":
    main()

# CHECK: tanh: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 1: True, specials and zeros exact: True
# CHECK-NEXT: exp: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 2: True, specials and zeros exact: True
# CHECK-NEXT: expm1: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 3: True, specials and zeros exact: True
# CHECK-NEXT: log1p: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 2: True, specials and zeros exact: True
# CHECK-NEXT: erf: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 1: True, specials and zeros exact: True
# CHECK-NEXT: acos: {{[0-9]+}} shards, max ulp {{[0-9]+}} within 1: True, specials and zeros exact: True
