# RUN: %PYTHON %s | FileCheck %s
#
# Stress: THREADS threads run workloads concurrently for about SECONDS
# seconds: creating engines, calling jitted functions (their own and shared
# ones, which run without the GIL), and having jitted code call Python
# callbacks, through the upstream API (invoke, register_runtime) and typed
# calls (jit). Every result is checked. A thread still running well after the
# deadline is a deadlock: the test prints every thread's stack and fails. At
# the end no Context is alive.
#
# STRESS_THREADS and STRESS_SECONDS override the defaults. To add a workload,
# write `def workload_<name>(rng, index):` that raises (AssertionError or
# any other exception) on a wrong result; thread `index` runs the workloads
# in turn, starting with the index-th, so each runs at least once.

import collections
import ctypes
import faulthandler
import gc
import os
import random
import sys
import threading
import time
import traceback

import numpy as np

from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import Context, Location, MLIRError, Module
from mlir.runtime import get_ranked_memref_descriptor

from fixtures import lowered  # parses and lowers to the LLVM dialect

THREADS = int(os.environ.get("STRESS_THREADS", "8"))
SECONDS = float(os.environ.get("STRESS_SECONDS", "3"))
# How long after the deadline a thread may still take to finish its
# workload (sanitizer builds are slow) before it counts as stuck.
GRACE_SECONDS = 120

# For the upstream API: every function has a C interface.
FUNCTIONS = """
func.func @add(%a: i64, %b: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
func.func @sum(%x: memref<?xf64>) -> f64 attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %t = arith.addf %acc, %v : f64
    scf.yield %t : f64
  }
  return %s : f64
}
func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%a) : (i64) -> i64
  return %r : i64
}
func.func private @hook(i64) -> i64 attributes { llvm.emit_c_interface }
"""

# For typed calls: a callback and a loop long enough to overlap with others.
TYPED = """
func.func @add(%a: i64, %b: i64) -> i64 {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
func.func @call_cb(%a: f64, %b: i64) -> f64 {
  %r = func.call @cb(%a, %b) : (f64, i64) -> f64
  return %r : f64
}
func.func private @cb(f64, i64) -> f64
func.func @scale(%x: memref<?xf64>, %s: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = arith.mulf %v, %s : f64
    memref.store %w, %x[%i] : memref<?xf64>
  }
  return
}
"""

HOOK_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
P = ctypes.pointer


class CallbackError(Exception):
    pass


def wrap64(value):
    return ctypes.c_int64(value).value


def invoke_add(engine, a, b):
    x, y, r = ctypes.c_int64(a), ctypes.c_int64(b), ctypes.c_int64()
    engine.invoke("add", P(x), P(y), P(r))
    return r.value


def invoke_call(engine, a):
    x, r = ctypes.c_int64(a), ctypes.c_int64()
    engine.invoke("call", P(x), P(r))
    return r.value


def invoke_sum(engine, array):
    r = ctypes.c_double()
    engine.invoke("sum", P(P(get_ranked_memref_descriptor(array))), P(r))
    return r.value


# ===------------------------------------------------------------------------===#
# Shared objects, created before the threads start: every thread calls them.
# ===------------------------------------------------------------------------===#

shared_context = Context()
# Which threads the shared callbacks ran on, and on behalf of which caller.
callback_threads = collections.defaultdict(list)


def shared_hook(x):
    callback_threads["hook"].append(threading.get_ident())
    return x ^ 0x5555


shared_hook_callback = HOOK_TYPE(shared_hook)
with shared_context:
    shared_engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=0)
    shared_engine.register_runtime("hook", shared_hook_callback)


def shared_cb(a, b):
    if b == 13:
        raise CallbackError(f"thirteen from {threading.get_ident()}")
    return a * 2 + b


shared_typed = jit(TYPED)
shared_typed.register("cb", shared_cb)


# ===------------------------------------------------------------------------===#
# Workloads.
# ===------------------------------------------------------------------------===#


def workload_own_engine(rng, index):
    """A new context and engine, at a random optimization level."""
    with Context():
        engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=rng.randrange(4))
        engine.register_runtime("hook", shared_hook_callback)
        for _ in range(20):
            a, b = rng.randrange(-(2**63), 2**63), rng.randrange(-(2**63), 2**63)
            assert invoke_add(engine, a, b) == wrap64(a + b), (a, b)
        data = np.arange(rng.randrange(1, 1000), dtype=np.float64)
        assert invoke_sum(engine, data) == sum(data.tolist())


def workload_own_callback(rng, index):
    """An engine calling back a callback of this thread, on this thread."""
    me = threading.get_ident()
    seen = []

    def hook(x):
        seen.append(threading.get_ident())
        return x * 3 + index

    callback = HOOK_TYPE(hook)
    with Context():
        engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=rng.randrange(4))
        engine.register_runtime("hook", callback)
        del callback  # the engine keeps it alive
        for _ in range(20):
            x = rng.randrange(-(10**6), 10**6)
            assert invoke_call(engine, x) == x * 3 + index, x
    assert seen == [me] * 20, seen


def workload_shared_engine(rng, index):
    """One engine, called from every thread at once."""
    me = threading.get_ident()
    for _ in range(50):
        a, b = rng.randrange(-(2**40), 2**40), rng.randrange(-(2**40), 2**40)
        assert invoke_add(shared_engine, a, b) == a + b, (a, b)
        before = callback_threads["hook"].count(me)
        x = rng.randrange(-(2**62), 2**62)
        assert invoke_call(shared_engine, x) == x ^ 0x5555, x
        assert callback_threads["hook"].count(me) == before + 1
    data = np.arange(rng.randrange(10_000, 100_000), dtype=np.float64) % 7
    assert invoke_sum(shared_engine, data) == sum(data.tolist())


def workload_lookup_outlives_engine(rng, index):
    """A function from lookup() keeps its engine alive."""
    with Context():
        engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=0)
        engine.register_runtime("hook", shared_hook_callback)
        add = engine.lookup("add")
        del engine
    gc.collect()
    a, b, r = ctypes.c_int64(index), ctypes.c_int64(1000), ctypes.c_int64()
    add((ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in (a, b, r)]))
    assert r.value == index + 1000, r.value


def workload_misuse(rng, index):
    """Errors raised concurrently are each thread's own."""

    def expect(error_type, text, fn, *args):
        try:
            fn(*args)
        except error_type as error:
            assert text in str(error), (text, str(error))
        else:
            raise AssertionError(f"no {error_type.__name__} for {text!r}")

    with Context():
        engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=0)
        name = f"missing_{index}"
        expect(RuntimeError, f"Unknown function {name}: ", engine.lookup, name)
        engine.register_runtime("hook", shared_hook_callback)
        expect(
            RuntimeError,
            "already registered",
            engine.register_runtime,
            "hook",
            shared_hook_callback,
        )
        expect(TypeError, "'add' takes 3 pointer arguments", engine.invoke, "add")
        expect(MLIRError, "Unable to parse", Module.parse, f"func.func @f{index}(")
        assert invoke_call(engine, index) == index ^ 0x5555


def workload_contexts(rng, index):
    """Nested contexts and locations are per thread."""
    outer = Context()
    with outer:
        assert Context.current is outer
        for depth in range(rng.randrange(1, 5)):
            inner = Context()
            with inner, Location.unknown():
                assert Context.current is inner
                module = Module.parse(f"func.func private @f{index}_{depth}()")
                assert f"@f{index}_{depth}" in str(module)
            assert Context.current is outer


def workload_own_typed(rng, index):
    """A typed module of this thread, with a callback."""
    module = jit(TYPED, opt_level=rng.randrange(4))
    module.register("cb", lambda a, b: a - b - index)
    for _ in range(20):
        a, b = rng.randrange(-(2**62), 2**62), rng.randrange(-(2**62), 2**62)
        assert module.add(a, b) == a + b
        x, y = rng.randrange(-1000, 1000), rng.randrange(-1000, 1000)
        assert module.call_cb(float(x), y) == x - y - index


def workload_shared_typed(rng, index):
    """A typed module called from every thread at once, whose callback raises
    for some calls: each call sees its own exception, or none."""
    data = np.ones(rng.randrange(10_000, 200_000))
    shared_typed.scale(data, float(index + 2))
    assert (data == index + 2).all()
    for _ in range(50):
        x, b = rng.randrange(-1000, 1000), rng.choice([13, index, -index, 7])
        try:
            result = shared_typed.call_cb(float(x), b)
        except CallbackError as error:
            assert b == 13, (b, error)
            assert str(error) == f"thirteen from {threading.get_ident()}", str(error)
        else:
            assert b != 13 and result == x * 2 + b, (x, b, result)


WORKLOADS = {
    name[len("workload_") :]: fn for name, fn in globals().items() if name.startswith("workload_")
}


# ===------------------------------------------------------------------------===#
# Running them.
# ===------------------------------------------------------------------------===#


class Worker(threading.Thread):
    def __init__(self, index, deadline, barrier):
        super().__init__(name=f"stress-{index}", daemon=True)
        self.index = index
        self.deadline = deadline
        self.barrier = barrier
        self.runs = collections.Counter()
        self.errors = []
        self.current = None

    def run(self):
        rng = random.Random(self.index)
        names = list(WORKLOADS)
        # At least one round over the workloads between all threads.
        minimum = -(-len(names) // THREADS)
        self.barrier.wait()
        iteration = 0
        while iteration < minimum or time.monotonic() < self.deadline:
            self.current = names[(self.index + iteration) % len(names)]
            try:
                WORKLOADS[self.current](rng, self.index)
            except BaseException:
                self.errors.append(f"{self.current}: {traceback.format_exc()}")
            self.runs[self.current] += 1
            iteration += 1
        self.current = None


def main():
    barrier = threading.Barrier(THREADS + 1)
    start = time.monotonic()
    deadline = start + SECONDS
    workers = [Worker(i, deadline, barrier) for i in range(THREADS)]
    for worker in workers:
        worker.start()
    barrier.wait()
    # If the main thread itself hangs, dump every stack and exit.
    faulthandler.dump_traceback_later(SECONDS + 2 * GRACE_SECONDS, exit=True)
    stuck = []
    for worker in workers:
        worker.join(timeout=max(0.0, deadline + GRACE_SECONDS - time.monotonic()))
        if worker.is_alive():
            stuck.append(worker)
    faulthandler.cancel_dump_traceback_later()
    elapsed = time.monotonic() - start

    runs = collections.Counter()
    errors = []
    for worker in workers:
        runs.update(worker.runs)
        errors += worker.errors
    for name in WORKLOADS:
        print(f"workload {name}: {'ran' if runs[name] else 'did not run'} ({runs[name]} runs)")
    for error in errors:
        print("ERROR in " + error)
    for worker in stuck:
        print(f"STUCK: thread {worker.index} in workload {worker.current}")
    if stuck:
        sys.stdout.flush()
        faulthandler.dump_traceback(all_threads=True)
        os._exit(1)

    global shared_context, shared_engine, shared_typed
    shared_context = shared_engine = shared_typed = None
    gc.collect()
    live = Context._get_live_count()
    print(
        f"stress: {THREADS} threads, {sum(runs.values())} runs in {elapsed:.1f}s, "
        f"{len(errors)} errors, {len(stuck)} stuck"
    )
    print(f"live contexts: {live}")
    return 1 if errors or live else 0


if __name__ == "__main__":
    sys.exit(main())

# CHECK: workload own_engine: ran
# CHECK: workload own_callback: ran
# CHECK: workload shared_engine: ran
# CHECK: workload lookup_outlives_engine: ran
# CHECK: workload misuse: ran
# CHECK: workload contexts: ran
# CHECK: workload own_typed: ran
# CHECK: workload shared_typed: ran
# CHECK-NOT: ERROR
# CHECK: stress: {{[0-9]+}} threads, {{[0-9]+}} runs in {{.*}}, 0 errors, 0 stuck
# CHECK: live contexts: 0
