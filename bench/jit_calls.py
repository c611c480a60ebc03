"""Typed calls against the upstream-style paths, measured side by side.

Prints, for each goal of the typed layer, the ratio of its cost to the
reference measured in the same run, the measures taking turns (the fastest
round of each). Two
upstream references: `invoke` per call (a lookup and new ctypes objects each
time), and the best upstream code can do, looking the function up once and
calling the ctypes function repeatedly with prebuilt arguments (for memrefs,
a descriptor made once).

`--short` (or BENCH_SHORT=1) runs a few iterations of each, for a smoke
test (CI): the figures then mean nothing.
"""

import ctypes
import os
import sys
import timeit

import numpy as np

from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager
from mlir.runtime import get_ranked_memref_descriptor

SOURCE = """
func.func @add(%a: i64, %b: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
func.func @first(%x: memref<?xf32>) -> f32 attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf32>
  return %v : f32
}
func.func @call_back(%n: index) -> f64 attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %x = arith.index_cast %i : index to i64
    %y = func.call @hook(%x) : (i64) -> f64
    %s = arith.addf %acc, %y : f64
    scf.yield %s : f64
  }
  return %sum : f64
}
func.func private @hook(i64) -> f64 attributes { llvm.emit_c_interface }
"""

LOWERING = (
    "builtin.module(convert-scf-to-cf,finalize-memref-to-llvm,convert-func-to-llvm,"
    "convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)"
)
SHORT = "--short" in sys.argv[1:] or os.environ.get("BENCH_SHORT") == "1"
CALLBACKS = 200 if SHORT else 20_000


def measure(measures, rounds=2 if SHORT else 30):
    """Seconds per run of each measure, `name: (code, number)` where code is
    a function or a statement run in the caller's namespace `namespace`.
    The measures take turns, round after round, each timing `number` runs a
    round, and each keeps its fastest round: a burst of load on the shared
    machine slows one round of every measure alike rather than all of one.
    Cheap calls are timed as statements, the way a careful user writes them
    inline, so that no wrapper's call is counted on either side."""
    fastest = dict.fromkeys(measures, float("inf"))
    for _ in range(rounds):
        for name, (code, number, namespace) in measures.items():
            if SHORT:
                number = max(1, number // 1000)
            seconds = timeit.timeit(code, number=number, globals=namespace)
            fastest[name] = min(fastest[name], seconds / number)
    return fastest


def upstream_lookup(engine, name):
    """What upstream's `lookup` returns: a plain ctypes function. (This
    package's `lookup` wraps the call to re-raise callback exceptions, which
    costs a Python-level call: measuring against it would flatter.)"""
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup("_mlir_ciface_" + name))


def hook(x):
    return x * 0.5


def main():
    with Context():
        module = Module.parse(SOURCE)
        PassManager.parse(LOWERING).run(module.operation)
        engine = ExecutionEngine(module)
        ctypes_hook = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64)(hook)
        engine.register_runtime("hook", ctypes_hook)

        typed = jit(SOURCE)
        typed.register("hook", hook)

    # Scalar call: upstream style builds ctypes values and pointers per call.
    def upstream_add():
        a, b, r = ctypes.c_int64(1), ctypes.c_int64(2), ctypes.c_int64()
        engine.invoke("add", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(r))
        return r.value

    def python_add(a, b):
        return a + b

    # Upstream at its best: looked up once, arguments built once.
    add_function = upstream_lookup(engine, "add")
    a, b, r = ctypes.c_int64(1), ctypes.c_int64(2), ctypes.c_int64()
    add_args = (ctypes.c_void_p * 3)(*[ctypes.addressof(x) for x in (a, b, r)])

    def reused_add():
        add_function(add_args)
        return r.value

    add = typed.add
    assert upstream_add() == reused_add() == add(1, 2) == python_add(1, 2) == 3

    # memref<?xf32> call with a 16-element array.
    array = np.arange(16, dtype=np.float32)

    def upstream_first():
        r = ctypes.c_float()
        descriptor = ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))
        engine.invoke("first", descriptor, ctypes.pointer(r))
        return r.value

    # At its best: the descriptor made once, the pointer array built once.
    first_function = upstream_lookup(engine, "first")
    descriptor = ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))
    first_result = ctypes.c_float()
    first_args = (ctypes.c_void_p * 2)(
        ctypes.cast(descriptor, ctypes.c_void_p).value, ctypes.addressof(first_result)
    )

    def reused_first():
        first_function(first_args)
        return first_result.value

    first = typed.first
    assert upstream_first() == reused_first() == first(array) == 0.0

    # JIT -> Python callbacks: the same loop calling `hook` CALLBACKS times.
    expected = sum(hook(i) for i in range(CALLBACKS))

    def upstream_loop():
        n, r = ctypes.c_int64(CALLBACKS), ctypes.c_double()
        engine.invoke("call_back", ctypes.pointer(n), ctypes.pointer(r))
        return r.value

    call_back = typed.call_back
    assert upstream_loop() == call_back(CALLBACKS) == expected

    here = locals()
    report(
        measure(
            {
                "upstream add": (upstream_add, 500, None),
                "reused add": ("add_function(add_args); r.value", 20_000, here),
                "typed add": ("add(1, 2)", 20_000, here),
                "python add": ("python_add(1, 2)", 20_000, here),
                "upstream memref": (upstream_first, 100, None),
                "reused memref": ("first_function(first_args); first_result.value", 20_000, here),
                "typed memref": ("first(array)", 20_000, here),
                "ctypes callbacks": (upstream_loop, 1, None),
                "typed callbacks": (lambda: call_back(CALLBACKS), 1, None),
            }
        )
    )


# Each ratio: its name, the measures divided, the goal as printed and its bound.
GOALS = [
    (
        "typed add(i64, i64) / upstream invoke",
        "typed add",
        "upstream add",
        "<= 1/15 (0.067)",
        1 / 15,
    ),
    ("typed add(i64, i64) / lookup once, reused args", "typed add", "reused add", "<= 0.25", 0.25),
    ("typed add(i64, i64) / Python function call", "typed add", "python add", "<= 2", 2),
    (
        "typed memref<?xf32> call / descriptor + invoke",
        "typed memref",
        "upstream memref",
        "<= 1/10 (0.1)",
        0.1,
    ),
    (
        "typed memref<?xf32> call / lookup once, cached desc.",
        "typed memref",
        "reused memref",
        "<= 0.15",
        0.15,
    ),
    (
        "typed callback / ctypes CFUNCTYPE callback",
        "typed callbacks",
        "ctypes callbacks",
        "<= 0.6",
        0.6,
    ),
]


def report(t):
    """Prints each ratio against its goal, then the times per call (`t`: the
    seconds each measure took, a callback measure CALLBACKS calls)."""
    ns = {name: seconds * 1e9 for name, seconds in t.items()}
    ns["typed callbacks"] /= CALLBACKS
    ns["ctypes callbacks"] /= CALLBACKS
    if SHORT:
        print("short run (smoke test): the figures below mean nothing")
    print(f"{'measure':52} {'ratio':>8}  goal")
    for name, numerator, denominator, goal, bound in GOALS:
        ratio = ns[numerator] / ns[denominator]
        print(f"{name:52} {ratio:8.3f}  {goal}  {'met' if ratio <= bound else 'NOT MET'}")
    print()
    print(
        "per call: typed add %.0f ns, upstream add %.0f ns (invoke), %.0f ns (reused), "
        "Python add %.0f ns"
        % (ns["typed add"], ns["upstream add"], ns["reused add"], ns["python add"])
    )
    print(
        "per call: typed memref %.0f ns, upstream memref %.0f ns (invoke), %.0f ns (reused)"
        % (ns["typed memref"], ns["upstream memref"], ns["reused memref"])
    )
    print(
        "per callback: typed %.0f ns, ctypes %.0f ns"
        % (ns["typed callbacks"], ns["ctypes callbacks"])
    )


if __name__ == "__main__":
    main()
