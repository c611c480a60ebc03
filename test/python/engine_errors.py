# RUN: %PYTHON %s | FileCheck %s
#
# Hardening of the ExecutionEngine and the callbacks (issue 19): no use of
# the Python API crashes the process or silently gives a wrong answer. What
# each class of misuse is promised:
#
# 1. Callback signatures. `ExecutionEngine.register_runtime(name, cb)` with a
#    ctypes CFUNCTYPE whose signature does not match the module's declaration
#    of `_mlir_ciface_<name>` (its LLVM function type, recorded by the C API
#    when the engine is created) raises TypeError naming the declaration, its
#    type and the callback's signature: c_float is f32, c_double f64,
#    c_intN/c_uintN iN, c_bool i1, c_void_p/c_char_p/POINTER(...) ptr, None
#    void. A name the module does not declare is registered unchecked (a
#    shared library may use it).
# 2. Exceptions in ctypes callbacks. An exception a ctypes callback raises,
#    or a result ctypes cannot convert, is re-raised by the `invoke` or the
#    `lookup()` function call that ran the jitted code: the same exception
#    object. So is a typed (mlir.jit) callback's when its module's engine is
#    called through `invoke`/`lookup` (the code goes on meanwhile, getting
#    zeros; a typed call instead stops at the callback when only its
#    module's own code runs in between: docs/typed_calls.md, jit_callbacks.py).
#    Nothing stays pending: the next call runs and is right. A call made by
#    a later callback of the same call neither raises nor drops it. Threads
#    raising at once leak nothing.
# 3. Lifetimes. An engine (`JitModule.engine`) and the functions `lookup`
#    returns keep working after the JitModule is gone, callbacks included; a
#    callback closure that refers to its JitModule (a cycle through the
#    engine), or a ctypes callback's to its engine, is collected once
#    everything is dropped, and not before.
# 4. Callbacks on threads Python never created. A typed callback called, and
#    raising, on a pthread a shared library started has no Python caller on
#    its thread: its exception goes to the module, whose running call (the
#    one that started the thread) re-raises it, or, if none is running, its
#    next call (typed, or through the engine's invoke/lookup) re-raises it
#    before running any code. One raised while another is still to be
#    re-raised goes to sys.unraisablehook, with the callback's name. The
#    thread's later callbacks run normally. So does one raised under a raw
#    ctypes function over the jitted code (not lookup's), which raises none.
#
# Paths, names, addresses and capsules are in engine_misuse.py. Cases that
# could crash run in a subprocess, which must exit with 0.

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
import threading
import tracemalloc
import weakref

from fixtures import expect_error
from mlir.execution_engine import *
from mlir.ir import *
from mlir.passmanager import *

LOWERING = "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"

F32_HOOK = """
func.func @call(%a: f32) -> f32 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%a) : (f32) -> f32
  return %r : f32
}
func.func private @hook(f32) -> f32 attributes { llvm.emit_c_interface }
"""

I64_HOOK = """
func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%a) : (i64) -> i64
  return %r : i64
}
func.func private @hook(i64) -> i64 attributes { llvm.emit_c_interface }
"""

# For mlir.jit: the typed layer adds the C interfaces.
TYPED_HOOK = """
func.func @call(%a: i64) -> i64 {
  %r = func.call @hook(%a) : (i64) -> i64
  return %r : i64
}
func.func private @hook(i64) -> i64
"""

I64_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)


def engine_for(source):
    with Context():
        module = Module.parse(source)
        PassManager.parse(LOWERING).run(module.operation)
        return ExecutionEngine(module, opt_level=0)


def call_i64(engine, value):
    """`call(value)` through invoke."""
    arg, result = ctypes.c_int64(value), ctypes.c_int64(-1)
    engine.invoke("call", ctypes.pointer(arg), ctypes.pointer(result))
    return result.value


def in_subprocess(name, code):
    """Runs `code` (with this file's imports and helpers) in a new interpreter;
    prints what it printed and its exit code."""
    print(f"CASE: {name}")
    prelude = open(__file__).read().split("# END " + "PRELUDE")[0]
    try:
        result = subprocess.run(
            [sys.executable, "-c", prelude + "\n" + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        print("  timed out (a deadlock?)")
        return
    for line in result.stdout.splitlines():
        print("  " + line)
    if result.returncode:
        for line in result.stderr.splitlines()[-20:]:
            print("  stderr: " + line)
    print(f"  exit code: {result.returncode}")


FOREIGN = """
func.func private @cb(f64) -> f64
func.func @on_thread(%x: f64) -> f64 {
  %fp = func.constant @cb : (f64) -> f64
  %p = builtin.unrealized_conversion_cast %fp : (f64) -> f64 to !llvm.ptr
  %r = llvm.call @call_on_new_thread(%p, %x) : (!llvm.ptr, f64) -> f64
  return %r : f64
}
func.func @twice_on_thread(%x: f64) -> f64 {
  %fp = func.constant @cb : (f64) -> f64
  %p = builtin.unrealized_conversion_cast %fp : (f64) -> f64 to !llvm.ptr
  %r0 = llvm.call @call_on_new_thread(%p, %x) : (!llvm.ptr, f64) -> f64
  %r1 = llvm.call @call_on_new_thread(%p, %x) : (!llvm.ptr, f64) -> f64
  %r = arith.addf %r0, %r1 : f64
  return %r : f64
}
func.func @later(%x: f64) {
  %fp = func.constant @cb : (f64) -> f64
  %p = builtin.unrealized_conversion_cast %fp : (f64) -> f64 to !llvm.ptr
  %status = llvm.call @call_on_detached_thread(%p, %x) : (!llvm.ptr, f64) -> i32
  return
}
func.func @plain(%x: f64) -> f64 {
  return %x : f64
}
llvm.func @call_on_new_thread(!llvm.ptr, f64) -> f64
llvm.func @call_on_detached_thread(!llvm.ptr, f64) -> i32
"""


class Boom(Exception):
    """An exception class that weak references can follow."""


# END PRELUDE

# --- 1. Callback signatures -------------------------------------------------

# CHECK-LABEL: CASE: c_double callback for an f32 declaration
# CHECK: TypeError: callback for 'hook' is CFUNCTYPE(c_double, c_double), but the module declares '_mlir_ciface_hook' as !llvm.func<f32 (f32)>: the callback must be CFUNCTYPE(c_float, c_float)
expect_error(
    "c_double callback for an f32 declaration",
    lambda: engine_for(F32_HOOK).register_runtime(
        "hook", ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(lambda x: x + 1)
    ),
)

# CHECK-LABEL: CASE: callback with a missing argument
# CHECK: TypeError: callback for 'hook' is CFUNCTYPE(c_long), but the module declares '_mlir_ciface_hook' as !llvm.func<i64 (i64)>
expect_error(
    "callback with a missing argument",
    lambda: engine_for(I64_HOOK).register_runtime(
        "hook", ctypes.CFUNCTYPE(ctypes.c_int64)(lambda: 1)
    ),
)

# CHECK-LABEL: CASE: callback returning nothing for an i64 result
# CHECK: TypeError: callback for 'hook' is CFUNCTYPE(None, c_long), but the module declares '_mlir_ciface_hook' as !llvm.func<i64 (i64)>: the callback must be CFUNCTYPE(c_int64, c_int64)
expect_error(
    "callback returning nothing for an i64 result",
    lambda: engine_for(I64_HOOK).register_runtime(
        "hook", ctypes.CFUNCTYPE(None, ctypes.c_int64)(lambda x: None)
    ),
)

# CHECK-LABEL: CASE: callback with i32 for i64
# CHECK: TypeError: callback for 'hook' is CFUNCTYPE(c_int, c_int), but the module declares '_mlir_ciface_hook' as !llvm.func<i64 (i64)>
expect_error(
    "callback with i32 for i64",
    lambda: engine_for(I64_HOOK).register_runtime(
        "hook", ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(lambda x: x)
    ),
)


def matching_signatures():
    engine = engine_for(F32_HOOK)
    hook = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(lambda x: x * 2)
    engine.register_runtime("hook", hook)
    arg, result = ctypes.c_float(1.25), ctypes.c_float()
    engine.invoke("call", ctypes.pointer(arg), ctypes.pointer(result))
    print(f"  f32 call(1.25) = {result.value}")
    engine = engine_for(I64_HOOK)
    engine.register_runtime("hook", ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(abs))
    # A name the module does not declare: a shared library may use it.
    engine.register_runtime("not_declared", ctypes.CFUNCTYPE(ctypes.c_double)(lambda: 1.0))
    print(f"  i64 call(7) with c_uint64 = {call_i64(engine, 7)}")
    print("  undeclared name accepted")


# CHECK-LABEL: CASE: matching signatures
# CHECK-NEXT: f32 call(1.25) = 2.5
# CHECK-NEXT: i64 call(7) with c_uint64 = 7
# CHECK-NEXT: undeclared name accepted
# CHECK-NEXT: no exception
expect_error("matching signatures", matching_signatures)

# --- 2. Exceptions in ctypes callbacks --------------------------------------


def raising_ctypes_callbacks():
    raised = []

    def hook(x):
        if x < 0:
            raised.append(Boom(f"negative {x}"))
            raise raised[-1]
        return x * 3

    callback = I64_FN(hook)
    engine = engine_for(I64_HOOK)
    engine.register_runtime("hook", callback)
    try:
        call_i64(engine, -1)
    except Boom as error:
        print(
            f"  invoke raised {type(error).__name__}: {error}, the same object: {error is raised[-1]}"
        )
    print(f"  then call(5) = {call_i64(engine, 5)}")
    packed = engine.lookup("call")
    arg, result = ctypes.c_int64(-2), ctypes.c_int64()
    args = (ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result))
    try:
        packed(args)
    except Boom as error:
        print(
            f"  lookup()() raised {type(error).__name__}: {error}, the same object: {error is raised[-1]}"
        )
    arg.value = 6
    packed(args)
    print(f"  then lookup()() of 6 = {result.value}")


# CHECK-LABEL: CASE: raising ctypes callback
# CHECK-NEXT: invoke raised Boom: negative -1, the same object: True
# CHECK-NEXT: then call(5) = 15
# CHECK-NEXT: lookup()() raised Boom: negative -2, the same object: True
# CHECK-NEXT: then lookup()() of 6 = 18
# CHECK-NEXT: no exception
expect_error("raising ctypes callback", raising_ctypes_callbacks)


def wrong_result_type():
    engine = engine_for(I64_HOOK)
    engine.register_runtime("hook", I64_FN(lambda x: "not an int" if x == 1 else x + 1))
    try:
        call_i64(engine, 1)
        print("  raised nothing")
    except Exception as error:
        print(f"  raised {type(error).__name__}: {error}")
    print(f"  then call(2) = {call_i64(engine, 2)}")


# CHECK-LABEL: CASE: ctypes callback returning a str for i64
# CHECK-NEXT: raised TypeError: {{.*}}
# CHECK-NEXT: then call(2) = 3
# CHECK-NEXT: no exception
expect_error("ctypes callback returning a str for i64", wrong_result_type)


TWO_HOOKS = """
func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @first(%a) : (i64) -> i64
  %s = func.call @second(%a) : (i64) -> i64
  %t = arith.addi %r, %s : i64
  return %t : i64
}
func.func @twice(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = arith.addi %a, %a : i64
  return %r : i64
}
func.func private @first(i64) -> i64 attributes { llvm.emit_c_interface }
func.func private @second(i64) -> i64 attributes { llvm.emit_c_interface }
"""


def nested_call_after_a_raise():
    engine = engine_for(TWO_HOOKS)

    def first(x):
        raise Boom(f"first got {x}")

    def second(x):
        arg, result = ctypes.c_int64(x), ctypes.c_int64()
        engine.invoke("twice", ctypes.pointer(arg), ctypes.pointer(result))
        print(f"  the nested call in second returned {result.value}")
        return result.value

    engine.register_runtime("first", I64_FN(first))
    engine.register_runtime("second", I64_FN(second))
    call_i64(engine, 21)


# The exception a callback raised belongs to the call that ran it: a call
# made by a later callback (its code goes on) neither raises nor drops it.
# CHECK-LABEL: CASE: nested call after a callback raised
# CHECK-NEXT: the nested call in second returned 42
# CHECK-NEXT: Boom: first got 21
expect_error("nested call after a callback raised", nested_call_after_a_raise)


def typed_callback_through_invoke():
    from mlir.execution_engine import jit

    module = jit(TYPED_HOOK)

    @module.callback("hook")
    def hook(x):
        if x < 0:
            raise Boom(f"typed hook got {x}")
        return x + 10

    engine = module.engine
    for value in (-1, 1):
        try:
            print(f"  invoke: call({value}) = {call_i64(engine, value)}")
        except Boom as error:
            print(f"  invoke raised Boom: {error}")
    packed = engine.lookup("call")
    for value in (-2, 2):
        arg, result = ctypes.c_int64(value), ctypes.c_int64()
        try:
            packed((ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result)))
            print(f"  lookup()(): call({value}) = {result.value}")
        except Boom as error:
            print(f"  lookup()() raised Boom: {error}")
    print(f"  typed call(3) = {module.call(3)}")


# CHECK-LABEL: CASE: typed callback through invoke and lookup
# CHECK-NEXT: invoke raised Boom: typed hook got -1
# CHECK-NEXT: invoke: call(1) = 11
# CHECK-NEXT: lookup()() raised Boom: typed hook got -2
# CHECK-NEXT: lookup()(): call(2) = 12
# CHECK-NEXT: typed call(3) = 13
# CHECK-NEXT: no exception
expect_error("typed callback through invoke and lookup", typed_callback_through_invoke)


def threads_raising_leak_nothing():
    engine = engine_for(I64_HOOK)
    refs = []

    def hook(x):
        error = Boom(f"thread {x}")
        if refs is not None:
            refs.append(weakref.ref(error))
        raise error

    engine.register_runtime("hook", I64_FN(hook))
    failures = []

    def worker(index, rounds):
        for _ in range(rounds):
            try:
                call_i64(engine, index)
                failures.append(f"thread {index}: no exception")
            except Boom as error:
                if str(error) != f"thread {index}":
                    failures.append(f"thread {index} got {error}")

    def round_of_threads(rounds):
        threads = [threading.Thread(target=worker, args=(i, rounds)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    round_of_threads(20)
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    print(f"  failures: {failures[:3]}")
    print(f"  exceptions raised: {len(refs)}, still alive: {alive}")
    # Then without keeping weak references: memory must not grow with the
    # number of exceptions (1600 with their tracebacks would be hundreds of
    # kilobytes).
    refs = None
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    round_of_threads(200)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    print(f"  failures: {failures[:3]}")
    print(f"  memory growth under 32 KiB: {growth < 32768} ({growth} bytes)")


# CHECK-LABEL: CASE: 8 threads raising through invoke
# CHECK-NEXT: failures: []
# CHECK-NEXT: exceptions raised: 160, still alive: 0
# CHECK-NEXT: failures: []
# CHECK-NEXT: memory growth under 32 KiB: True
expect_error("8 threads raising through invoke", threads_raising_leak_nothing)

# --- 3. Lifetimes -----------------------------------------------------------

# CHECK-LABEL: CASE: engine and lookup outliving their JitModule
# CHECK-NEXT: engine.invoke: call(4) = 14
# CHECK-NEXT: lookup()(): call(5) = 15
# CHECK-NEXT: exit code: 0
in_subprocess(
    "engine and lookup outliving their JitModule",
    """
    from mlir.execution_engine import jit
    m = jit(TYPED_HOOK)
    m.register("hook", lambda x: x + 10)
    eng = m.engine
    packed = eng.lookup("call")
    del m
    gc.collect()
    print(f"engine.invoke: call(4) = {call_i64(eng, 4)}")
    del eng
    gc.collect()
    arg, result = ctypes.c_int64(5), ctypes.c_int64()
    packed((ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result)))
    print(f"lookup()(): call(5) = {result.value}")
    """,
)

# CHECK-LABEL: CASE: callback closure referring to its JitModule
# CHECK-NEXT: module alive while the engine is: True
# CHECK-NEXT: engine.invoke: call(1) = 101
# CHECK-NEXT: module alive while a lookup function is: True
# CHECK-NEXT: lookup()(): call(2) = 102
# CHECK-NEXT: module collected after everything is dropped: True
# CHECK-NEXT: exit code: 0
in_subprocess(
    "callback closure referring to its JitModule",
    """
    from mlir.execution_engine import jit

    def make():
        m = jit(TYPED_HOOK)
        m.offset = 100
        m.register("hook", lambda x: x + m.offset)  # the closure holds m: a cycle
        return m

    m = make()
    ref = weakref.ref(m)
    eng = m.engine
    del m
    gc.collect()
    print(f"module alive while the engine is: {ref() is not None}")
    print(f"engine.invoke: call(1) = {call_i64(eng, 1)}")
    packed = eng.lookup("call")
    del eng
    gc.collect()
    print(f"module alive while a lookup function is: {ref() is not None}")
    arg, result = ctypes.c_int64(2), ctypes.c_int64()
    packed((ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result)))
    print(f"lookup()(): call(2) = {result.value}")
    del packed, arg, result
    gc.collect()
    print(f"module collected after everything is dropped: {ref() is None}")
    """,
)

# CHECK-LABEL: CASE: ctypes callback closure referring to its engine
# CHECK-NEXT: call(1) = 2 while the engine lives
# CHECK-NEXT: engine collected after it is dropped: True
# CHECK-NEXT: exit code: 0
in_subprocess(
    "ctypes callback closure referring to its engine",
    """
    engine = engine_for(I64_HOOK)
    engine.register_runtime("hook", I64_FN(lambda x: x + engine.calls))  # a cycle
    engine.calls = 1
    ref = weakref.ref(engine)
    print(f"call(1) = {call_i64(engine, 1)} while the engine lives")
    del engine
    gc.collect()
    print(f"engine collected after it is dropped: {ref() is None}")
    """,
)

# --- 4. Callbacks on threads Python never created ---------------------------


# CHECK-LABEL: CASE: typed callback raising on a foreign thread
# CHECK-NEXT: on_thread(-1) raised Boom: cb got -1.0 on thread True
# CHECK-NEXT: then on_thread(2) = 4.0
# CHECK-NEXT: then on_thread(3) = 6.0
# CHECK-NEXT: invoke raised Boom: cb got -4.0 on thread True
# CHECK-NEXT: then invoke of 5 = 10.0
# CHECK-NEXT: twice_on_thread(-6) raised Boom: cb got -6.0 on thread True
# CHECK-NEXT: unraisable: Boom: cb got -6.0 on thread True, in callback 'cb' called on a thread Python did not create
# CHECK-NEXT: then twice_on_thread(7) = 28.0
# CHECK-NEXT: exit code: 0
in_subprocess(
    "typed callback raising on a foreign thread",
    """
    from mlir.execution_engine import jit
    main = threading.get_ident()
    m = jit(FOREIGN, shared_libs=[os.environ["FOREIGN_THREAD_LIB"]])

    @m.callback("cb")
    def cb(x):
        if x < 0:
            raise Boom(f"cb got {x} on thread {threading.get_ident() != main}")
        return 2 * x

    reports = []
    sys.unraisablehook = reports.append
    try:
        m.on_thread(-1.0)
        print("on_thread(-1) raised nothing")
    except Boom as error:
        print(f"on_thread(-1) raised Boom: {error}")
    print(f"then on_thread(2) = {m.on_thread(2.0)}")
    print(f"then on_thread(3) = {m.on_thread(3.0)}")
    arg, result = ctypes.c_double(-4.0), ctypes.c_double()
    try:
        m.engine.invoke("on_thread", ctypes.pointer(arg), ctypes.pointer(result))
        print(f"invoke raised nothing: {result.value}")
    except Boom as error:
        print(f"invoke raised Boom: {error}")
    arg.value = 5.0
    m.engine.invoke("on_thread", ctypes.pointer(arg), ctypes.pointer(result))
    print(f"then invoke of 5 = {result.value}")
    try:
        m.twice_on_thread(-6.0)
        print("twice_on_thread(-6) raised nothing")
    except Boom as error:
        print(f"twice_on_thread(-6) raised Boom: {error}")
    for report in reports:
        print(f"unraisable: {type(report.exc_value).__name__}: {report.exc_value}, in {report.object}")
    print(f"then twice_on_thread(7) = {m.twice_on_thread(7.0)}")
    """,
)

# A raw ctypes function over the jitted code (not `lookup`'s) raises
# nothing: the callback's exception goes to its module, as on a thread
# Python never created, and later calls run their callbacks.
# CHECK-LABEL: CASE: typed callback raising under a raw ctypes call
# CHECK-NEXT: raw(-1) = 1, calls [-1]
# CHECK-NEXT: raw(5) = 6, calls [5]
# CHECK-NEXT: the next typed call raised Boom: cb got -1
# CHECK-NEXT: then f(3) = 4, raw(7) = 8
# CHECK-NEXT: exit code: 0
in_subprocess(
    "typed callback raising under a raw ctypes call",
    """
    from mlir.execution_engine import jit
    m = jit(TYPED_HOOK)
    calls = []

    @m.callback("hook")
    def hook(x):
        calls.append(x)
        if x < 0:
            raise Boom(f"cb got {x}")
        return x

    function = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(m.engine.raw_lookup("_mlir_ciface_call"))

    def raw(x):
        arg, result = ctypes.c_int64(x), ctypes.c_int64()
        function((ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result)))
        return result.value + 1

    print(f"raw(-1) = {raw(-1)}, calls {calls}")
    calls.clear()
    print(f"raw(5) = {raw(5)}, calls {calls}")
    try:
        m.call(3)
    except Boom as error:
        print(f"the next typed call raised Boom: {error}")
    print(f"then f(3) = {m.call(3) + 1}, raw(7) = {raw(7)}")
    """,
)

# CHECK-LABEL: CASE: typed callback raising on a detached foreign thread
# CHECK-NEXT: later(-8) returned None; the callback ran: True
# CHECK-NEXT: the next call, plain(1), raised Boom: cb got -8.0
# CHECK-NEXT: then plain(1) = 1.0
# CHECK-NEXT: exit code: 0
in_subprocess(
    "typed callback raising on a detached foreign thread",
    """
    import time
    from mlir.execution_engine import jit
    m = jit(FOREIGN, shared_libs=[os.environ["FOREIGN_THREAD_LIB"]])
    go, ran = threading.Event(), threading.Event()

    @m.callback("cb")
    def cb(x):
        go.wait(60)  # until later() has returned
        ran.set()
        raise Boom(f"cb got {x}")

    returned = m.later(-8.0)
    go.set()
    ran.wait(60)
    time.sleep(0.2)  # the callback's exception reaches the module
    print(f"later(-8) returned {returned}; the callback ran: {ran.is_set()}")
    try:
        print(f"plain(1) = {m.plain(1.0)}")
    except Boom as error:
        print(f"the next call, plain(1), raised Boom: {error}")
    print(f"then plain(1) = {m.plain(1.0)}")
    """,
)
