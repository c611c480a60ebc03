# RUN: %PYTHON %s | FileCheck %s
#
# Misuse of the ExecutionEngine's paths, names, addresses and capsules: no
# use of the Python API crashes the process or silently gives a wrong answer
# (engine_errors.py has the callbacks). What each class of misuse is
# promised:
#
# 1. Paths and names. A `shared_libs` entry or a `dump_to_object_file` name
#    with a NUL character is a ValueError ("... contains a NUL character"),
#    not a shorter path; a directory given as a shared library says it is
#    one. LLVM ends symbol names at a NUL, so a name given to `lookup`,
#    `invoke` or `register_runtime` with one is a ValueError, and a module
#    defining a symbol with one cannot make an engine (RuntimeError).
# 2. Addresses and capsules. `raw_register_runtime` with a `.value` that is
#    no address (-1, 2**64) and `invoke` with an int outside [0, 2**64) are
#    ValueErrors saying the value is not a valid address (ctypes would wrap
#    it modulo 2**64); `ExecutionEngine(obj)` lets an exception `obj._CAPIPtr`
#    raises propagate. An engine taken over through its capsule keeps the
#    callbacks its code calls alive.
#
# Cases that could crash run in a subprocess, which must exit with 0.

import ctypes
import gc
import os
import subprocess
import textwrap
import types
import weakref

from fixtures import ADD, CALLBACK, expect_error, lowered, run_python
from mlir.execution_engine import *
from mlir.ir import *

I64_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)


def engine_for(source):
    return ExecutionEngine(lowered(source, Context()), opt_level=0)


def in_subprocess(name, code):
    """Runs `code` (with this file's imports and helpers) in a new interpreter;
    prints what it printed and its exit code."""
    print(f"CASE: {name}")
    prelude = open(__file__).read().split("# END " + "PRELUDE")[0]
    try:
        result = run_python(prelude + "\n" + textwrap.dedent(code), timeout=300)
    except subprocess.TimeoutExpired:
        print("  timed out (a deadlock?)")
        return
    for line in result.stdout.splitlines():
        print("  " + line)
    if result.returncode:
        for line in result.stderr.splitlines()[-20:]:
            print("  stderr: " + line)
    print(f"  exit code: {result.returncode}")


class Boom(Exception):
    """An exception of this test's own."""


# END PRELUDE

# --- 1. Paths ---------------------------------------------------------------

# CHECK-LABEL: CASE: shared library path with a NUL
# CHECK: ValueError: shared library path '{{.*}}libmlir_c_runner_utils.so{{.*}}\0...' contains a NUL character
expect_error(
    "shared library path with a NUL",
    lambda: ExecutionEngine(
        Module.parse("", Context()),
        shared_libs=[os.environ["MLIR_C_RUNNER_UTILS"] + "\0.bak"],
    ),
)

# CHECK-LABEL: CASE: jit shared library path with a NUL
# CHECK: ValueError: shared library path '{{.*}}libmlir_c_runner_utils.so{{.*}}\0...' contains a NUL character
expect_error(
    "jit shared library path with a NUL",
    lambda: jit(
        "func.func @f() { return }", shared_libs=[os.environ["MLIR_C_RUNNER_UTILS"] + "\0x"]
    ).f(),
)

# CHECK-LABEL: CASE: shared library that is a directory
# CHECK: RuntimeError: Failure while creating the ExecutionEngine. cannot load shared library '/tmp': it is a directory; give the library file's path
expect_error(
    "shared library that is a directory",
    lambda: ExecutionEngine(Module.parse("", Context()), shared_libs=["/tmp"]),
)


def dump_with_nul():
    engine = engine_for(ADD)
    directory = os.environ.get("TEST_TMPDIR", "/tmp")
    path = os.path.join(directory, "engine_errors.o")
    try:
        engine.dump_to_object_file(path + "\0.txt")
    finally:
        print(f"  a file was written at the truncated path: {os.path.exists(path)}")


# CHECK-LABEL: CASE: object file name with a NUL
# CHECK-NEXT: a file was written at the truncated path: False
# CHECK-NEXT: ValueError: object file name '{{.*}}engine_errors.o\0...' contains a NUL character
expect_error("object file name with a NUL", dump_with_nul)

# CHECK-LABEL: CASE: module symbol with a NUL
# CHECK: RuntimeError: Failure while creating the ExecutionEngine. the symbol 'add\0...' contains a NUL character, which LLVM symbol names cannot hold: rename it
expect_error("module symbol with a NUL", lambda: engine_for(ADD.replace("@add", '@"add\\00x"')))

# Code generation would abort the process on a garbage collector LLVM does
# not know.
# CHECK-LABEL: CASE: unknown garbage collector
# CHECK: RuntimeError: Failure while creating the ExecutionEngine. function 'f' names the garbage collector 'ab', which LLVM does not know
expect_error(
    "unknown garbage collector",
    lambda: ExecutionEngine(
        Module.parse(
            'llvm.func @f() attributes {garbageCollector = "ab"} { llvm.return }', Context()
        )
    ),
)

# CHECK-LABEL: CASE: lookup of a name with a NUL
# CHECK: ValueError: symbol name '_mlir_ciface_add\0...' contains a NUL character
expect_error("lookup of a name with a NUL", lambda: engine_for(ADD).lookup("add\0x"))

# CHECK-LABEL: CASE: runtime registered under a name with a NUL
# CHECK: ValueError: symbol name '_mlir_ciface_hook\0...' contains a NUL character
expect_error(
    "runtime registered under a name with a NUL",
    lambda: engine_for(ADD).register_runtime("hook\0x", I64_FN(lambda x: x)),
)

# --- 2. Addresses and capsules ----------------------------------------------

# CHECK-LABEL: CASE: raw runtime at address -1
# CHECK: ValueError: callback for '_mlir_ciface_hook' has .value -1, which is not a valid address (an address is an int from 1 to 2**64 - 1)
expect_error(
    "raw runtime at address -1",
    lambda: engine_for(CALLBACK).raw_register_runtime(
        "_mlir_ciface_hook", types.SimpleNamespace(value=-1)
    ),
)

# CHECK-LABEL: CASE: raw runtime at address 2**64
# CHECK: ValueError: callback for '_mlir_ciface_hook' has .value 18446744073709551616, which is not a valid address
expect_error(
    "raw runtime at address 2**64",
    lambda: engine_for(CALLBACK).raw_register_runtime(
        "_mlir_ciface_hook", types.SimpleNamespace(value=2**64)
    ),
)

# CHECK-LABEL: CASE: invoke with an int of 2**64
# CHECK: ValueError: argument 0 of 'add' is 18446744073709551616, which is not a valid address (an address is an int from 1 to 2**64 - 1)
expect_error(
    "invoke with an int of 2**64",
    lambda: engine_for(ADD).invoke("add", 2**64, 8, 8),
)

# ctypes would wrap 2**64 + 8 to 8: the jitted code read address 8 and the
# process crashed.
# CHECK-LABEL: CASE: invoke with an int of 2**64 + 8
# CHECK-NEXT: ValueError: argument 1 of 'add' is 18446744073709551624, which is not a valid address
# CHECK-NEXT: exit code: 0
in_subprocess(
    "invoke with an int of 2**64 + 8",
    """
    try:
        engine_for(ADD).invoke(
            "add", ctypes.pointer(ctypes.c_int64()), 2**64 + 8, ctypes.pointer(ctypes.c_int64())
        )
        print("no exception")
    except ValueError as error:
        print(f"ValueError: {error}")
    """,
)


class FailingCapsule:
    @property
    def _CAPIPtr(self):
        raise Boom("no capsule today")


# CHECK-LABEL: CASE: module whose _CAPIPtr raises
# CHECK: Boom: no capsule today
expect_error("module whose _CAPIPtr raises", lambda: ExecutionEngine(FailingCapsule()))

# The callbacks an engine's code calls stay alive with the engine, whichever
# object owns it: after `_testing_release` and `_CAPICreate`, dropping the
# first object frees none of them.
# CHECK-LABEL: CASE: callbacks of an engine taken over through its capsule
# CHECK-NEXT: callback alive after its first owner is gone: True
# CHECK-NEXT: call(2) through the new owner = 6
# CHECK-NEXT: exit code: 0
in_subprocess(
    "callbacks of an engine taken over through its capsule",
    """
    engine = engine_for(CALLBACK)
    hook = lambda x: x * 3
    alive = weakref.ref(hook)
    engine.register_runtime("hook", I64_FN(hook))
    del hook
    capsule = engine._CAPIPtr
    engine._testing_release()
    owner = ExecutionEngine._CAPICreate(capsule)
    del engine
    gc.collect()
    print(f"callback alive after its first owner is gone: {alive() is not None}")
    address = owner.raw_lookup("_mlir_ciface_call")
    call = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
    arg, result = ctypes.c_int64(2), ctypes.c_int64()
    call((ctypes.c_void_p * 2)(ctypes.addressof(arg), ctypes.addressof(result)))
    print(f"call(2) through the new owner = {result.value}")
    """,
)
