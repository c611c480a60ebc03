# RUN: %PYTHON %s | FileCheck %s
#
# Every type at jit()'s boundary, in every position: one function a type and
# position, generated, whose values must round-trip exactly (bit for bit,
# NaNs, signed zeros, subnormals and extremes included), memrefs and
# tensors also through strided and offset views. Positions:
# - "argument and result": @id(x) returns x;
# - "callback argument": @give(x) passes x to a callback, which keeps it;
# - "callback result": @take() returns what a callback returned.
# What is refused is refused at jit() or at the call, saying why; the
# summary at the end counts both.

import collections
import math

import ml_dtypes
import numpy as np

from mlir.execution_engine import jit

SCALARS = {
    "i1": [True, False],
    "i8": [-128, 127, 0],
    "i16": [-(2**15), 2**15 - 1],
    "i32": [-(2**31), 2**31 - 1],
    "i64": [-(2**63), 2**63 - 1],
    "index": [-(2**63), 2**63 - 1, 0],
    "f16": [65504.0, -(2.0**-24), 0.333251953125, -0.0, math.inf, math.nan],
    "bf16": [3.3895313892515355e38, 2.0**-133, -1.0078125, -0.0, -math.inf, math.nan],
    "f32": [3.4028234663852886e38, 2.0**-149, float(np.float32(0.1)), -0.0, math.nan],
    "f64": [1.7976931348623157e308, 5e-324, 0.1, -0.0, math.inf, math.nan],
    "complex<f32>": [complex(0.5, -0.25), complex(-0.0, math.inf)],
    "complex<f64>": [complex(0.1, 1e308), complex(math.nan, -0.0)],
}

# Element types of memrefs and tensors, with their dtypes.
ELEMENTS = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "index": np.int64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
}

# Shapes: the type's text with E for the element type, the array to pass
# (made from a base array of 24 elements), and whether it is a view.
SHAPES = [
    ("memref<?xE>", lambda base: base[:7]),
    ("memref<2x3xE>", lambda base: base[:6].reshape(2, 3)),
    ("memref<E>", lambda base: base[5:6].reshape(())),
    (
        "memref<?x?xE, strided<[?, ?], offset: ?>>",
        lambda base: base.reshape(4, 6)[1:4, ::-2],
    ),
    ("memref<?xE, strided<[?], offset: ?>>", lambda base: base[3::5]),
    ("memref<*xE>", lambda base: base.reshape(2, 3, 4)),
    ("memref<*xE>", lambda base: base[5:6].reshape(())),
    ("tensor<?xE>", lambda base: base[::-3]),
    ("tensor<2x3xE>", lambda base: base.reshape(4, 6)[::2, 1::2]),
    ("tensor<E>", lambda base: base[7:8].reshape(())),
    ("vector<8xE>", lambda base: base[::3]),
    ("vector<2x4xE>", lambda base: base.reshape(4, 6)[:2, 1:5]),
]


def base_array(dtype):
    """24 elements of `dtype` covering its extremes, special values and
    random bits (for floats, NaNs with payloads too)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.array([i % 3 == 0 for i in range(24)])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = [info.min, info.max, 0, -1, 1] + list(range(-9, 10))
        return np.array(values, dtype=dtype)
    bits = np.random.default_rng(len(dtype.str)).integers(
        0, 256, 24 * dtype.itemsize, dtype=np.uint8
    )
    return bits.view(dtype).copy()


def same(a, b):
    """Bit-for-bit equality of scalars or arrays."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
        )
    if isinstance(a, complex) or isinstance(b, complex):
        return same(complex(a).real, complex(b).real) and same(complex(a).imag, complex(b).imag)
    if isinstance(a, float) or isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b


def source(position, t):
    """The module testing `position` of type `t`."""
    if position == "argument and result":
        return f"func.func @id(%x: {t}) -> {t} {{ return %x : {t} }}"
    if position == "callback argument":
        return f"""
        func.func private @keep({t})
        func.func @give(%x: {t}) {{
          func.call @keep(%x) : ({t}) -> ()
          return
        }}"""
    return f"""
    func.func private @make() -> {t}
    func.func @take() -> {t} {{
      %r = func.call @make() : () -> {t}
      return %r : {t}
    }}"""


results = collections.defaultdict(collections.Counter)
wrong = []


def check(position, type_text, values, compare=same):
    """Runs `position` of `type_text` with each of `values`: ok, refused
    (with its message), or wrong (recorded)."""
    kept = []
    try:
        module = jit(source(position, type_text))
        pending = list(values)
        if position == "callback argument":
            module.register("keep", lambda x: kept.append(x.copy() if hasattr(x, "copy") else x))
        elif position == "callback result":
            module.register("make", lambda: pending.pop(0))
        for value in values:
            if position == "argument and result":
                got = module.id(value)
            elif position == "callback argument":
                module.give(value)
                got = kept.pop()
            else:
                got = module.take()
            if not compare(got, value):
                wrong.append(f"{position}, {type_text}: {value!r} came back as {got!r}")
    except (TypeError, ValueError) as error:
        message = str(error).replace(type_text, "T")
        results[position][f"refused: {type(error).__name__}: {message}"] += 1
        return
    results[position]["ok"] += 1


POSITIONS = ["argument and result", "callback argument", "callback result"]

for type_text, values in SCALARS.items():
    for position in POSITIONS:
        check(position, type_text, values)

for element, dtype in ELEMENTS.items():
    for shape, view in SHAPES:
        if shape.startswith("vector") and element.startswith("complex"):
            continue  # no such type
        type_text = shape.replace("E", element, 1)
        base = base_array(dtype)
        value = view(base)
        for position in POSITIONS:
            check(position, type_text, [value])

# A memref result that is its argument is a view of it.
module = jit(source("argument and result", "memref<?x?xf32, strided<[?, ?], offset: ?>>"))
base = np.arange(24, dtype=np.float32).reshape(4, 6)
view = base[1:, ::-2]
got = module.id(view)
# CHECK: memref result is a view: True True
print(
    "memref result is a view:",
    np.shares_memory(got, base),
    got.__array_interface__["data"][0] == view.__array_interface__["data"][0],
)

# A 0-d memref or tensor takes a 0-d array, not a numpy scalar.
# CHECK: TypeError: argument 0 of 'id' (tensor<f32>): expected a numpy array, got numpy.float32
try:
    jit(source("argument and result", "tensor<f32>")).id(np.float32(1))
except TypeError as error:
    print(f"TypeError: {error}")

for position in POSITIONS:
    print(position + ":")
    for outcome, count in sorted(results[position].items()):
        print(f"  {count} {outcome}")
print(f"wrong: {len(wrong)}")
for line in wrong:
    print("  " + line)

# CHECK-LABEL: argument and result:
# CHECK-NEXT: 162 ok
# CHECK-NEXT: 2 refused: TypeError: cannot call 'id': argument 0 of 'id' (T): type T is not supported: LLVM packs vectors of i1 as bits, which typed calls do not convert
# CHECK-LABEL: callback argument:
# CHECK-NEXT: 162 ok
# CHECK-NEXT: 2 refused: TypeError: argument 0 of 'keep' (T): type T is not supported: LLVM packs vectors of i1 as bits
# CHECK-LABEL: callback result:
# CHECK-NEXT: 162 ok
# CHECK-NEXT: 2 refused: TypeError: result 0 of 'make' (T): type T is not supported: LLVM packs vectors of i1 as bits
# CHECK-NEXT: wrong: 0
