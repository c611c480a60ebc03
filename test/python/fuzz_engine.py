# RUN: %PYTHON %s | FileCheck %s
#
# Fuzzes the upstream-style engine API with hypothesis: ExecutionEngine
# options, initialize, dump_to_object_file and lookups; invoke() with random
# argument lists (right ones must give right results); random names into
# register_runtime, raw_register_runtime and lookups; callbacks raising or
# returning through every call path. Nothing may crash the
# process, and every failure must be a Python exception of an expected type,
# with a message.
#
# The harness (lib/fuzzing.py) runs each batch in a subprocess of its own;
# FUZZ_SCALE=20 runs twenty times as many examples, random ones.

import ctypes
import os
import tempfile

import numpy as np
from hypothesis import strategies as st

from fixtures import CALLBACK, FUNCTIONS, lowered
from fuzzing import (
    HOOK,
    CallbackError,
    HOOK_ADDRESS,
    any_value,
    attempt,
    ctypes_pointer,
    fuzz,
    harmless_symbol,
    hook,
    main,
    null_pointers,
    scalars,
    successes,
)
from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import Context
from mlir.runtime import get_ranked_memref_descriptor

# A case that crashed once, now fuzzed: invoke() with a null pointer.
NULL_POINTERS_RAISE = True


@successes(0.5)
def batch_engine():
    """ExecutionEngine options, initialize, dump, lookups."""
    tmp = tempfile.mkdtemp()
    libs = st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "/nonexistent/libfoo.so",
                    "/",
                    "/etc/hostname",
                    "/dev/null",
                    os.environ["MLIR_C_RUNNER_UTILS"],
                    os.environ["MLIR_RUNNER_UTILS"],
                ]
            ),
            st.text(min_size=1, max_size=20).map(lambda s: "/nonexistent/" + s),
            scalars,
        ),
        max_size=3,
    )
    options = st.fixed_dictionaries(
        {},
        optional={
            "opt_level": st.one_of(st.integers(-3, 6), scalars),
            "shared_libs": st.one_of(libs, scalars),
            "enable_object_dump": st.one_of(st.booleans(), scalars),
            "enable_pic": st.one_of(st.booleans(), scalars),
        },
    )
    with Context():
        module = lowered(FUNCTIONS)

        @fuzz(50, st.tuples(options, st.text(max_size=20), st.booleans(), any_value))
        def test(case):
            kwargs, name, dump, not_a_module = case
            attempt("ExecutionEngine", ExecutionEngine, not_a_module)
            ok, engine = attempt("ExecutionEngine", ExecutionEngine, module, **kwargs)
            if not ok:
                return
            attempt("_packed_arguments", engine._packed_arguments, name)
            attempt("raw_lookup", engine.raw_lookup, name)
            attempt("raw_lookup", engine.raw_lookup, "_mlir_ciface_" + name)
            if dump:
                path = os.path.join(tmp, "out.o")
                attempt("dump_to_object_file", engine.dump_to_object_file, path)
                attempt(
                    "dump_to_object_file", engine.dump_to_object_file, "/nonexistent/" + name + ".o"
                )
            attempt("initialize", engine.initialize)

        test()


@successes(0.1)
def batch_invoke():
    """invoke() with random argument lists; right ones give right results."""
    names = ["add", "nop", "fma", "sum", "call"]
    COUNTS = {"add": 3, "nop": 0, "fma": 4, "sum": 2, "call": 2}  # pointers each takes
    with Context():
        engine = ExecutionEngine(lowered(FUNCTIONS), opt_level=0)
        engine.register_runtime("hook", HOOK)
        pointer_or_null = ctypes_pointer()
        if NULL_POINTERS_RAISE:
            pointer_or_null = st.one_of(ctypes_pointer(), null_pointers)

        @st.composite
        def calls(draw):
            name = draw(st.one_of(st.sampled_from(names), st.text(max_size=10)))
            mode = draw(st.sampled_from(["right", "pointers", "values"]))
            if mode == "right" and name in names:
                return (
                    name,
                    mode,
                    draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=3, max_size=3)),
                )
            if mode == "pointers" and name != "sum":
                # Wrongly typed pointers read and write garbage, but only
                # within the objects: it is not an error invoke can see.
                count = draw(st.one_of(st.just(COUNTS.get(name, 0)), st.integers(0, 5)))
                return name, mode, draw(st.lists(pointer_or_null, min_size=count, max_size=count))
            values = draw(st.lists(st.one_of(any_value, ctypes_pointer()), max_size=5))
            # invoke takes what ctypes.cast takes, as upstream: ints, str and
            # bytes are addresses, and random ones would be written through.
            values = [0 if isinstance(v, (int, str, bytes)) else v for v in values]
            if (
                name == "sum"
                and len(values) == 2
                and all(
                    isinstance(v, (ctypes._Pointer, ctypes.Array, ctypes.c_void_p)) for v in values
                )
            ):
                values[0] = None  # a wrong descriptor would be read as one
            return name, "values", values

        @fuzz(300, calls())
        def test(case):
            name, mode, args = case
            if mode != "right":
                attempt("invoke", engine.invoke, name, *args)
                return
            a, b, c = args
            P = ctypes.pointer
            if name == "add":
                x, y, r = ctypes.c_int64(a), ctypes.c_int64(b), ctypes.c_int64()
                assert attempt("invoke", engine.invoke, "add", P(x), P(y), P(r))[0]
                assert r.value == ctypes.c_int64(a + b).value
            elif name == "nop":
                assert attempt("invoke", engine.invoke, "nop")[0]
            elif name == "fma":
                x, y, z = (ctypes.c_double(v / 7) for v in (a, b, c))
                r = ctypes.c_double()
                assert attempt("invoke", engine.invoke, "fma", P(x), P(y), P(z), P(r))[0]
                assert r.value == x.value * y.value + z.value, (a, b, c, r.value)
            elif name == "sum":
                data = np.array([a, b, c], np.float64) / 3
                desc = get_ranked_memref_descriptor(data)
                r = ctypes.c_double()
                assert attempt("invoke", engine.invoke, "sum", P(P(desc)), P(r))[0]
                assert r.value == (data[0] + data[1]) + data[2], (r.value, data)
            else:
                x, r = ctypes.c_int64(a), ctypes.c_int64()
                assert attempt("invoke", engine.invoke, "call", P(x), P(r))[0]
                assert r.value == hook(a)

        test()


@successes(0.7)
def batch_names():
    """Random names into register_runtime, raw_register_runtime and lookups
    on fresh engines; a registered hook makes `call` work."""
    names = st.one_of(
        st.sampled_from(
            [
                "hook",
                "call",
                "_mlir_ciface_hook",
                "_mlir_ciface_call",
                "_mlir_call",
                "",
                "\0",
                "a\0b",
                "x" * 5000,
                "\U0001f642",
                "\ud800",
            ]
        ),
        st.text(max_size=12),
    )
    steps = st.lists(
        st.one_of(
            st.tuples(st.just("register_runtime"), names),
            st.tuples(
                st.just("raw_register_runtime"),
                names.map(harmless_symbol),
                st.sampled_from(["hook", "null", "int", "callable"]),
            ),
            st.tuples(st.sampled_from(["lookup", "raw_lookup", "invoke"]), names),
            st.tuples(st.sampled_from(["call", "initialize"])),
        ),
        max_size=6,
    )
    raw_values = {
        "hook": lambda: ctypes.c_void_p(HOOK_ADDRESS),
        "null": lambda: ctypes.c_void_p(0),
        "int": lambda: HOOK_ADDRESS,
        "callable": lambda: HOOK,
    }
    with Context():
        module = lowered(CALLBACK)

        @fuzz(60, steps)
        def test(steps):
            engine = ExecutionEngine(module, opt_level=0)
            for step in steps:
                if step[0] == "register_runtime":
                    attempt("register_runtime", engine.register_runtime, step[1], HOOK)
                elif step[0] == "raw_register_runtime":
                    attempt(
                        "raw_register_runtime",
                        engine.raw_register_runtime,
                        step[1],
                        raw_values[step[2]](),
                    )
                elif step[0] == "lookup":
                    attempt("lookup", engine.lookup, step[1])
                elif step[0] == "raw_lookup":
                    attempt("raw_lookup", engine.raw_lookup, step[1])
                elif step[0] == "invoke":
                    attempt("invoke", engine.invoke, step[1])
                elif step[0] == "initialize":
                    attempt("initialize", engine.initialize)
                else:
                    x, r = ctypes.c_int64(7), ctypes.c_int64()
                    ok, _ = attempt(
                        "invoke", engine.invoke, "call", ctypes.pointer(x), ctypes.pointer(r)
                    )
                    assert not ok or r.value == hook(7), r.value

        test()


@successes(0.5)
def batch_callback_errors():
    """A callback raising or returning, reached through a typed call, the
    typed module's engine (invoke, lookup) and a ctypes callback through
    invoke: an exception reaches the caller, the same object, and nothing
    stays pending (the next call's result is right)."""
    behaviours = st.one_of(
        st.integers(-(2**40), 2**40),
        st.builds(CallbackError, st.text(min_size=1, max_size=5)),
        st.sampled_from([KeyError("k"), ZeroDivisionError("z"), ArithmeticError("a")]),
    )
    outcome = [0]

    def behave(x):
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0] + x

    with Context():
        typed = jit(CALLBACK)
        typed.register("hook", behave)
        engine = ExecutionEngine(lowered(CALLBACK))
        engine.register_runtime("hook", ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(behave))
    typed_lookup = typed.engine.lookup("call")

    def through(path, x):
        if path == "typed":
            return typed.call(x)
        a, r = ctypes.c_int64(x), ctypes.c_int64()
        args = (ctypes.pointer(a), ctypes.pointer(r))
        if path == "typed engine invoke":
            typed.engine.invoke("call", *args)
        elif path == "typed engine lookup":
            typed_lookup((ctypes.c_void_p * 2)(*[ctypes.cast(p, ctypes.c_void_p) for p in args]))
        else:
            engine.invoke("call", *args)
        return r.value

    paths = ["typed", "typed engine invoke", "typed engine lookup", "ctypes invoke"]

    @fuzz(
        200,
        st.lists(
            st.tuples(st.sampled_from(paths), behaviours, st.integers(-1000, 1000)),
            min_size=1,
            max_size=4,
        ),
    )
    def test(calls):
        for path, behaviour, x in calls:
            outcome[0] = behaviour
            raised = (type(behaviour),) if isinstance(behaviour, BaseException) else ()
            ok, value = attempt(path, through, path, x, allowed=raised)
            if raised:
                assert not ok and value is behaviour, (path, value, behaviour)
                # hypothesis keeps the drawn exception; its traceback would
                # keep the frames, and so the modules, alive.
                behaviour.__traceback__ = None
            else:
                assert ok and value == behaviour + x, (path, value, behaviour, x)
        outcome[0] = 0  # drop the exception, its frames and their cycles

    test()


main(globals(), __file__)

# CHECK: batch engine: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: batch invoke: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: batch names: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: batch callback_errors: {{[1-9][0-9]*}} examples, no crash, {{[1-9][0-9]*}} successful calls
# CHECK: fuzz: 4 batches, {{[1-9][0-9]*}} examples, 0 failed
# The expected kinds of exception were seen.
# CHECK: exceptions: KeyError={{[0-9]+}} MLIRError={{[0-9]+}} RuntimeError={{[1-9][0-9]*}} TypeError={{[1-9][0-9]*}} ValueError={{[1-9][0-9]*}}
