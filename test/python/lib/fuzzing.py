"""The fuzzers' harness (test/python/fuzz_*.py): running examples in batches,
each in an interpreter of its own, and the strategies several fuzzers use.

A fuzzer file defines `batch_<name>()` functions, each running a @given test
through `fuzz(...)` and calling the API through `attempt(...)`, and ends with
`main(globals(), __file__)`. Run without arguments it runs each batch in a
subprocess (`fuzz_x.py BATCH`): a crash fails that batch, which then prints
the example it was running. Examples are derandomized and their number
fixed, so a run is deterministic and takes seconds; FUZZ_SCALE=20 runs twenty
times as many, random ones.

Every batch declares with `@successes(at_least)` the share of its examples
that must call the API successfully (`attempt` returning True): a fuzzer
whose calls all fail, from a broken generator or a broken product, fails.
"""

import collections
import ctypes
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import ADD, CALLBACK, FUNCTIONS
from mlir.ir import Context, MLIRError

# The exceptions a misuse may raise.
EXPECTED = (MLIRError, ValueError, TypeError, RuntimeError, KeyError)
EXPECTED_NAMES = sorted(e.__name__ for e in EXPECTED)

SCALE = int(os.environ.get("FUZZ_SCALE", "1"))
# Sanitized builds (--config=asan) run several times slower: half as many
# examples there by default (CI's time), the full number when FUZZ_SCALE is
# given.
SANITIZED_FACTOR = (
    0.5 if os.environ.get("MLIR_SANITIZERS") and "FUZZ_SCALE" not in os.environ else 1.0
)

# ===------------------------------------------------------------------------===#
# Running examples.
# ===------------------------------------------------------------------------===#

outcomes = collections.Counter()  # "ok" and exception type names
successes_by_label = collections.Counter()  # "ok" by attempt()'s label
examples = 0


class CallbackError(Exception):
    """Raised by fuzzed callbacks; the call that ran them must re-raise it."""


current_case = ""


def record(what):
    """Writes what is about to run where the parent finds it after a crash."""
    path = os.environ.get("FUZZ_LAST_EXAMPLE")
    if path:
        with open(path, "w") as f:
            f.write(f"example {current_case[:3000]}\ncalling {what[:1000]}")


def attempt(label, fn, *args, allowed=(), **kwargs):
    """Calls fn; returns (True, result) or (False, the expected exception)."""
    try:
        text = f"{label}{args!r}{kwargs if kwargs else ''}"
    except Exception:  # a repr may fail for odd objects
        text = label
    record(text)
    try:
        result = fn(*args, **kwargs)
    except EXPECTED + tuple(allowed) as error:
        assert str(error), f"{label}: {type(error).__name__} without a message"
        outcomes[type(error).__name__] += 1
        return False, error
    outcomes["ok"] += 1
    successes_by_label[label] += 1
    return True, result


def fuzz(max_examples, strategy):
    """Runs the decorated test on `max_examples * FUZZ_SCALE` examples
    (half as many when sanitized)."""

    def decorate(test):
        def counted(case):
            global examples, current_case
            examples += 1
            try:
                current_case = repr(case)
            except Exception:
                current_case = "(no repr)"
            test(case)

        counted.__name__ = test.__name__
        return settings(
            max_examples=max(1, int(max_examples * SCALE * SANITIZED_FACTOR)),
            derandomize=SCALE == 1,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=False,
        )(given(strategy)(counted))

    return decorate


# ===------------------------------------------------------------------------===#
# Inputs.
# ===------------------------------------------------------------------------===#

# Needs allow_unregistered_dialects. Upstream's inliner crashes on it (on an
# unregistered operation with a region, `any(inline)`, mlir-opt too): the
# pipeline batch leaves it out.
UNREGISTERED = """
module attributes {test.attr = 1 : i32} {
  "x.y"() ({ ^bb0(%a: i32): "x.z"(%a) : (i32) -> () }) {k = [1, 2.0, "s", @sym, unit, dense<1> : tensor<2xi8>]} : () -> ()
}
"""

# Valid modules, mutated by the parse batch; the pipeline batch runs passes
# on them.
CORPUS = [
    ADD,
    CALLBACK,
    FUNCTIONS,
    """
func.func @loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
    %t = arith.addi %a, %i : index
    scf.yield %t : index
  }
  return %s : index
}
""",
    """
memref.global "private" constant @table : memref<3xi32> = dense<[7, 8, 9]>
func.func @get_table() -> memref<3xi32> {
  %t = memref.get_global @table : memref<3xi32>
  return %t : memref<3xi32>
}
""",
    """
func.func @f(%x: memref<4x?xf32, strided<[?, 1], offset: ?>>, %c: complex<f64>) -> (f32, complex<f64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0, %c0] : memref<4x?xf32, strided<[?, 1], offset: ?>>
  %w = math.sqrt %v : f32
  return %w, %c : f32, complex<f64>
}
""",
    """
llvm.func @g(%a: i32) -> i32 {
  %0 = llvm.mlir.constant(1 : i32) : i32
  %1 = llvm.add %a, %0 : i32
  llvm.return %1 : i32
}
llvm.mlir.global internal constant @s("hi\\00") {addr_space = 0 : i32}
""",
    """
func.func @branch(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^t, ^f
^t:
  return %a : f32
^f:
  %r = arith.select %c, %a, %b : f32
  return %r : f32
}
""",
    """
#map = affine_map<(d0, d1) -> (d0 * 4 + d1)>
func.func @affine(%m: memref<8xf32>) {
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 4 {
      %k = affine.apply #map(%i, %j)
      %v = affine.load %m[%k] : memref<8xf32>
      affine.store %v, %m[%k] : memref<8xf32>
    }
  }
  return
}
""",
]

TOKENS = [
    "func.func",
    "llvm.func",
    "@f",
    "@add",
    "%a",
    "%0",
    "%r:2",
    "^bb0",
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    "[",
    "]",
    ":",
    ",",
    "->",
    "=",
    "i1",
    "i32",
    "i64",
    "f32",
    "index",
    "memref<?xf32>",
    "memref<*xf32>",
    "tensor<2x?xf64>",
    "complex<f32>",
    "!llvm.ptr",
    "!llvm.struct<(i32, f64)>",
    "vector<4xf32>",
    "return",
    "arith.addi",
    "arith.constant",
    "func.call",
    "scf.for",
    "scf.yield",
    "memref.load",
    "dense<[1, 2]>",
    "affine_map<(d0) -> (d0)>",
    "loc(",
    "#loc",
    "attributes",
    "{llvm.emit_c_interface}",
    "private",
    "module",
    '"x.y"()',
    "0x7FF0000000000000",
    "1.0e+309",
    "-9223372036854775809",
    '"\\00"',
    "// comment",
    "#map",
    "unit",
    "@",
    "%",
    "^",
    "!",
    "#",
    '"',
    "\n",
    "\0",
]

# Not in the process, so registering them hijacks nothing the jitted code
# needs.
_process = ctypes.CDLL(None)


def harmless_symbol(name):
    try:
        getattr(_process, name)
    except (AttributeError, ValueError, TypeError):
        return name
    return "fuzz_" + name


@st.composite
def mlir_text(draw):
    kind = draw(st.sampled_from(["mutated", "mutated", "tokens", "text"]))
    if kind == "text":
        return draw(st.text(max_size=300))
    if kind == "tokens":
        return " ".join(draw(st.lists(st.sampled_from(TOKENS), max_size=60)))
    text = draw(st.sampled_from(CORPUS + [UNREGISTERED]))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        insert = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=4)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "truncate"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + insert + text[i:]
        elif op == "replace":
            text = text[:i] + insert + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i]
    return text


PASSES = [
    "canonicalize",
    "cse",
    "inline",
    "sccp",
    "symbol-dce",
    "loop-invariant-code-motion",
    "convert-scf-to-cf",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "convert-arith-to-llvm",
    "convert-math-to-llvm",
    "convert-index-to-llvm",
    "convert-complex-to-llvm",
    "finalize-memref-to-llvm",
    "expand-strided-metadata",
    "lower-affine",
    "arith-expand",
    "reconcile-unrealized-casts",
    "no-such-pass",
    "canonicalize{max-iterations=1 region-simplify=disabled}",
    "canonicalize{max-iterations=-1}",
    "cse{bad-option=1}",
    "convert-func-to-llvm{index-bitwidth=32}",
    "convert-func-to-llvm{index-bitwidth=x}",
    "func.func(canonicalize)",
    "func.func(cse)",
    "llvm.func(canonicalize)",
    "any(cse)",
    "builtin.module(symbol-dce)",
]


@st.composite
def pipeline_text(draw):
    kind = draw(st.sampled_from(["structured", "structured", "mutated", "text"]))
    if kind == "text":
        return draw(st.text(max_size=80))
    passes = ",".join(draw(st.lists(st.sampled_from(PASSES), max_size=6)))
    anchor = draw(st.sampled_from(["builtin.module", "func.func", "any", "", "nope"]))
    text = f"{anchor}({passes})" if anchor else passes
    if kind == "mutated" and text:
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, len(text)))
        text = text[:i] + draw(st.sampled_from(["", "(", ")", "{", "}", ",", "=", "\0"])) + text[j:]
    return text


# Any Python value a confused caller might pass.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.complex_numbers(),
    st.text(max_size=10),
    st.binary(max_size=10),
    st.sampled_from(
        [
            np.int8(-1),
            np.uint64(2**64 - 1),
            np.float32("nan"),
            np.float16(1.5),
            np.bool_(True),
            np.complex64(1j),
            "\ud800",
            object(),
            print,
            int,
        ]
    ),
)

CTYPES_SCALARS = [
    ctypes.c_int8,
    ctypes.c_int16,
    ctypes.c_int32,
    ctypes.c_int64,
    ctypes.c_uint64,
    ctypes.c_float,
    ctypes.c_double,
    ctypes.c_bool,
    ctypes.c_char,
]


@st.composite
def ctypes_pointer(draw):
    """A non-null ctypes pointer to at least 8 bytes of storage (a ctypes
    object keeps scalars in a 16-byte buffer) of the wrong or right type."""
    kind = draw(st.sampled_from(["scalar", "array", "double", "void"]))
    ctype = draw(st.sampled_from(CTYPES_SCALARS))
    if kind == "array":
        return ctypes.pointer((ctype * draw(st.integers(0, 4)))())
    if kind == "double":
        return ctypes.pointer(ctypes.pointer(ctype()))
    if kind == "void":
        return ctypes.c_void_p(ctypes.addressof(KEEP))
    return ctypes.pointer(ctype())


KEEP = ctypes.c_int64()  # what the c_void_p pointers above point to

null_pointers = st.sampled_from(
    [ctypes.c_void_p(), ctypes.c_void_p(0), ctypes.POINTER(ctypes.c_int64)()]
)


def make_array(dtype, shape, step, order):
    array = np.zeros(shape, dtype, order=order)
    if array.dtype.kind in "iufcb":
        array.flat[:] = np.arange(array.size) % 100
    return array[tuple(slice(None, None, step) for _ in shape)] if shape else array


arrays = st.builds(
    make_array,
    st.sampled_from(
        [
            "int8",
            "int32",
            "int64",
            "float16",
            "float32",
            "float64",
            "complex64",
            "complex128",
            "bool",
            "uint16",
            "object",
            "U3",
            "V4",
            "datetime64[s]",
        ]
    ),
    st.lists(st.integers(0, 5), max_size=4).map(tuple),
    st.sampled_from([1, 1, 2, -1]),
    st.sampled_from(["C", "F"]),
)

any_value = st.one_of(
    scalars,
    arrays,
    st.lists(st.integers(-3, 3), max_size=4),
    st.builds(lambda p: p, ctypes_pointer()),
)


def hook(x):
    return x ^ 0x5555


HOOK = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(hook)
HOOK_ADDRESS = ctypes.cast(HOOK, ctypes.c_void_p).value


# ===------------------------------------------------------------------------===#
# Batches, each in a subprocess.
# ===------------------------------------------------------------------------===#


def successes(at_least, labels=None):
    """Declares that the batch's calls through attempt() (those with one of
    `labels`, or all) succeed at least `at_least` times per example."""

    def decorate(batch):
        batch.min_successes = (at_least, labels)
        return batch

    return decorate


def run_batch(batch):
    start = time.monotonic()
    batch()
    gc.collect()
    assert Context._get_live_count() == 0, f"{Context._get_live_count()} contexts alive"
    at_least, labels = batch.min_successes
    if labels is None:
        ok = outcomes["ok"]
    else:
        ok = sum(successes_by_label[label] for label in labels)
    required = int(at_least * examples)
    assert examples > 0, "no example ran"
    assert ok >= required, (
        f"only {ok} successful calls{' of ' + ', '.join(labels) if labels else ''} in "
        f"{examples} examples; at least {required} ({at_least} an example) expected"
    )
    result = {
        "examples": examples,
        "outcomes": dict(outcomes),
        "successes": ok,
        "required": required,
        "seconds": time.monotonic() - start,
    }
    print("RESULT " + json.dumps(result), flush=True)


def main(namespace, path):
    """Runs the batch named on the command line, or, without one, every
    `batch_*` of `namespace` in a subprocess of its own, printing a line
    each and a summary; exits with 1 if a batch failed."""
    batches = {
        name[len("batch_") :]: fn for name, fn in namespace.items() if name.startswith("batch_")
    }
    for name, fn in batches.items():
        assert hasattr(fn, "min_successes"), f"batch_{name} declares no @successes(...)"
    if len(sys.argv) > 1:
        run_batch(batches[sys.argv[1]])
        return
    total = collections.Counter()
    total_examples = 0
    failures = 0
    for name in batches:
        with tempfile.NamedTemporaryFile("r", suffix=".txt") as last:
            env = dict(os.environ, FUZZ_LAST_EXAMPLE=last.name)
            # A batch's time grows with the scale (and sanitizers slow it
            # several times): its limit catches hangs, not long runs.
            process = subprocess.run(
                [sys.executable, path, name],
                env=env,
                capture_output=True,
                text=True,
                timeout=900 * SCALE,
            )
            results = [line for line in process.stdout.splitlines() if line.startswith("RESULT ")]
            if process.returncode != 0 or not results:
                failures += 1
                print(f"batch {name}: FAILED with exit code {process.returncode}")
                print(f"  last example: {open(last.name).read()!r}")
                print("  stdout: " + process.stdout[-3000:].replace("\n", "\n  "))
                print("  stderr: " + process.stderr[-6000:].replace("\n", "\n  "))
                continue
        result = json.loads(results[-1][len("RESULT ") :])
        total.update(result["outcomes"])
        total_examples += result["examples"]
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result["outcomes"].items()))
        print(
            f"batch {name}: {result['examples']} examples, no crash, "
            f"{result['successes']} successful calls (at least {result['required']}) "
            f"({counts}; {result['seconds']:.1f}s)"
        )
    print(f"fuzz: {len(batches)} batches, {total_examples} examples, {failures} failed")
    print("exceptions: " + " ".join(f"{name}={total[name]}" for name in EXPECTED_NAMES))
    sys.exit(1 if failures else 0)
