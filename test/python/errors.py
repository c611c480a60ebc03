# RUN: %PYTHON %s 2>%t.stderr | FileCheck %s
# Failures are exceptions, never messages on stderr: it stays empty.
# RUN: FileCheck --allow-empty --check-prefix=STDERR %s < %t.stderr
# STDERR-NOT: {{.}}
#
# Every misuse is a Python exception that says what went wrong; nothing
# crashes the process. Cases that crash upstream run in a subprocess, which
# must exit with 0.
#
# mlir.ir and mlir.passmanager are upstream's own bindings, and behave as
# upstream's (upstream's tests, //test/upstream, check them); the cases here
# are this project's: the engine, jit() and the runtime.

import ctypes
import gc
import io
import os
import tempfile
import textwrap

import numpy as np

from mlir.execution_engine import *
from mlir.ir import *
from mlir.passmanager import *
from mlir.runtime import *

# The `add` and `call` (calls `hook`) modules, and lowered(source) with the
# lowering pipeline LOWERING.
from fixtures import ADD, CALLBACK, LOWERING, expect_error, lowered, run_python


def in_subprocess(name, code):
    """Runs `code` (with this file's imports and helpers) in a new interpreter;
    prints what it printed and its exit code."""
    print(f"CASE: {name}")
    prelude = open(__file__).read().split("# END " + "PRELUDE")[0]
    result = run_python(prelude + "\n" + textwrap.dedent(code))
    for line in result.stdout.splitlines():
        print("  " + line)
    print(f"  exit code: {result.returncode}")


noop = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(lambda x: x)

# END PRELUDE

with Context():
    # CHECK-LABEL: CASE: untranslatable module
    # CHECK: RuntimeError: Failure while creating the ExecutionEngine. could not convert to LLVM IR:
    # CHECK-NEXT: -:2:1: error: cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: func.func
    expect_error("untranslatable module", lambda: ExecutionEngine(Module.parse(ADD)))

    # CHECK-LABEL: CASE: engine from a non-module
    # CHECK: TypeError: expected an mlir.ir.Module, got <class 'int'>
    expect_error("engine from a non-module", lambda: ExecutionEngine(42))

    # CHECK-LABEL: CASE: optimization level
    # CHECK: RuntimeError: Failure while creating the ExecutionEngine. optimization level 7 is out of range: use 0, 1, 2 or 3
    expect_error("optimization level", lambda: ExecutionEngine(lowered(ADD), opt_level=7))

    # CHECK-LABEL: CASE: unloadable shared library
    # CHECK: RuntimeError: Failure while creating the ExecutionEngine. cannot load shared library '/nonexistent/libfoo.so': no such file; give the library file's path
    expect_error(
        "unloadable shared library",
        lambda: ExecutionEngine(lowered(ADD), shared_libs=["/nonexistent/libfoo.so"]),
    )

    # CHECK-LABEL: CASE: unknown function
    # CHECK: RuntimeError: Unknown function sub: the module defines no function 'sub' (looked up as '_mlir_ciface_sub'; a function called through invoke/lookup needs the llvm.emit_c_interface attribute)
    expect_error("unknown function", lambda: ExecutionEngine(lowered(ADD)).lookup("sub"))

    # CHECK-LABEL: CASE: invoke of an unknown function
    # CHECK: RuntimeError: Unknown function no_such_function: the module defines no function 'no_such_function'
    expect_error(
        "invoke of an unknown function",
        lambda: ExecutionEngine(lowered(ADD)).invoke(
            "no_such_function", ctypes.byref(ctypes.c_int64())
        ),
    )

    # CHECK-LABEL: CASE: function without a C interface
    # CHECK: RuntimeError: Unknown function plain: the module defines 'plain' but not its C interface '_mlir_ciface_plain': give the function the llvm.emit_c_interface attribute before lowering it
    expect_error(
        "function without a C interface",
        lambda: ExecutionEngine(lowered("func.func @plain() { return }")).lookup("plain"),
    )

    # CHECK-LABEL: CASE: raw_lookup of an unknown name
    # CHECK: raw_lookup: 0
    print("CASE: raw_lookup of an unknown name")
    print("raw_lookup:", ExecutionEngine(lowered(ADD)).raw_lookup("no_such_function"))

    # CHECK-LABEL: CASE: invoke with a value, not a pointer
    # CHECK: TypeError: argument 1 of 'add' must be a pointer, such as ctypes.pointer(x) or ctypes.byref(x) for a ctypes value x, got c_long
    expect_error(
        "invoke with a value, not a pointer",
        lambda: ExecutionEngine(lowered(ADD)).invoke(
            "add", ctypes.byref(ctypes.c_int64()), ctypes.c_int64(), ctypes.byref(ctypes.c_int64())
        ),
    )

    # CHECK-LABEL: CASE: invoke with a zero address
    # CHECK: ValueError: argument 2 of 'add' is a null pointer
    expect_error(
        "invoke with a zero address",
        lambda: ExecutionEngine(lowered(ADD)).invoke(
            "add", ctypes.byref(ctypes.c_int64()), ctypes.byref(ctypes.c_int64()), 0
        ),
    )

    # ctypes.cast of a str points into a buffer it frees at once.
    # CHECK-LABEL: CASE: invoke with a str
    # CHECK: TypeError: argument 0 of 'add' must be a pointer, such as ctypes.pointer(x) or ctypes.byref(x) for a ctypes value x, got str
    expect_error(
        "invoke with a str",
        lambda: ExecutionEngine(lowered(ADD)).invoke(
            "add", "ab", ctypes.byref(ctypes.c_int64()), ctypes.byref(ctypes.c_int64())
        ),
    )

    # CHECK-LABEL: CASE: lookup of a name that is not a str
    # CHECK: TypeError: the function name must be a str, got bytes
    expect_error(
        "lookup of a name that is not a str", lambda: ExecutionEngine(lowered(ADD)).lookup(b"add")
    )

    # CHECK-LABEL: CASE: engine from a capsule of another kind
    # CHECK: TypeError: expected an mlir.ir.Module: the capsule has the wrong type
    expect_error(
        "engine from a capsule of another kind",
        lambda: ExecutionEngine(Context.current._CAPIPtr),
    )

    # CHECK-LABEL: CASE: missing runtime symbol
    # CHECK: RuntimeError: cannot look up '_mlir_ciface_call': symbols used by the module are neither defined nor registered: _mlir_ciface_hook; register them before the first lookup or invocation
    expect_error(
        "missing runtime symbol", lambda: ExecutionEngine(lowered(CALLBACK)).lookup("call")
    )

    # CHECK-LABEL: CASE: missing symbol at initialize
    # CHECK: RuntimeError: Failure while initializing the ExecutionEngine: symbols used by the module are neither defined nor registered: _mlir_ciface_hook
    expect_error(
        "missing symbol at initialize",
        lambda: ExecutionEngine(lowered(CALLBACK)).initialize(),
    )

    # CHECK-LABEL: CASE: runtime registered twice
    # CHECK: RuntimeError: Failure while registering runtime '_mlir_ciface_hook': cannot register symbol '_mlir_ciface_hook': it is already registered with this engine
    def register_twice():
        engine = ExecutionEngine(lowered(CALLBACK))
        engine.register_runtime("hook", noop)
        engine.register_runtime("hook", noop)

    expect_error("runtime registered twice", register_twice)

    # CHECK-LABEL: CASE: runtime the module defines
    # CHECK: RuntimeError: Failure while registering runtime '_mlir_ciface_add': cannot register symbol '_mlir_ciface_add': the module already defines it
    expect_error(
        "runtime the module defines",
        lambda: ExecutionEngine(lowered(ADD)).register_runtime("add", noop),
    )

    # CHECK-LABEL: CASE: runtime registered after a lookup
    # CHECK: RuntimeError: Failure while registering runtime '_mlir_ciface_hook': cannot register symbol '_mlir_ciface_hook': the module has already been compiled {{.*}}; register runtime symbols right after creating the engine
    def register_late():
        engine = ExecutionEngine(lowered(ADD))
        engine.lookup("add")
        engine.register_runtime("hook", noop)

    expect_error("runtime registered after a lookup", register_late)

    # CHECK-LABEL: CASE: runtime that is not a pointer
    # CHECK: TypeError: callback for 'hook' must be a ctypes pointer with a .value address
    expect_error(
        "runtime that is not a pointer",
        lambda: ExecutionEngine(lowered(CALLBACK)).raw_register_runtime("hook", print),
    )

    # CHECK-LABEL: CASE: null runtime
    # CHECK: ValueError: callback for 'hook' is a null pointer
    expect_error(
        "null runtime",
        lambda: ExecutionEngine(lowered(CALLBACK)).raw_register_runtime("hook", ctypes.c_void_p(0)),
    )

    # CHECK-LABEL: CASE: dump without object dumps
    # CHECK: RuntimeError: Failure while dumping the object file: cannot dump object code: the engine was created without enabling object dumps
    expect_error(
        "dump without object dumps",
        lambda: ExecutionEngine(lowered(ADD), enable_object_dump=False).dump_to_object_file(
            os.path.join(tempfile.gettempdir(), "unused.o")
        ),
    )

    # CHECK-LABEL: CASE: dump to an unwritable path
    # CHECK: RuntimeError: Failure while dumping the object file: cannot write object file '/nonexistent/dir/add.o': No such file or directory
    expect_error(
        "dump to an unwritable path",
        lambda: ExecutionEngine(lowered(ADD)).dump_to_object_file("/nonexistent/dir/add.o"),
    )

    # CHECK-LABEL: CASE: released engine
    # CHECK: RuntimeError: the ExecutionEngine has been released (_testing_release)
    def use_released():
        engine = ExecutionEngine(lowered(ADD))
        capsule = engine._CAPIPtr
        engine._testing_release()
        owner = ExecutionEngine._CAPICreate(capsule)
        engine.lookup("add")

    expect_error("released engine", use_released)

    # CHECK-LABEL: CASE: wrong capsule
    # CHECK: TypeError: expected an ExecutionEngine capsule
    expect_error(
        "wrong capsule",
        lambda: ExecutionEngine._CAPICreate(Context.current._CAPIPtr),
    )

    # CHECK-LABEL: CASE: memref descriptor of a non-array
    # CHECK: TypeError: {{.*}}numpy
    expect_error(
        "memref descriptor of a non-array",
        lambda: get_ranked_memref_descriptor("not an array"),
    )

    # CHECK-LABEL: CASE: shared library by bare name
    # CHECK: RuntimeError: Failure while creating the ExecutionEngine. cannot load shared library 'libm.so.6': no such file; give the library file's path
    expect_error(
        "shared library by bare name",
        lambda: ExecutionEngine(lowered(ADD), shared_libs=["libm.so.6"]),
    )

    # CHECK-LABEL: CASE: invoke with a null pointer
    # CHECK: ValueError: argument 0 of 'add' is a null pointer
    expect_error(
        "invoke with a null pointer",
        lambda: ExecutionEngine(lowered(ADD)).invoke(
            "add",
            ctypes.POINTER(ctypes.c_int64)(),
            ctypes.pointer(ctypes.c_int64()),
            ctypes.pointer(ctypes.c_int64()),
        ),
    )

# Typed calls check everything before native code runs.
TYPED = jit(
    """
    func.func @first(%x: memref<4xf32>) -> f32 {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<4xf32>
      return %v : f32
    }
    func.func @call(%a: i8) -> i8 {
      %r = func.call @hook(%a) : (i8) -> i8
      return %r : i8
    }
    func.func private @hook(i8) -> i8
    """
)

# CHECK-LABEL: CASE: typed call with too many arguments
# CHECK: TypeError: first() takes 1 arguments, got 2 (its type is (memref<4xf32>) -> f32)
expect_error("typed call with too many arguments", lambda: TYPED.first(np.zeros(4, np.float32), 1))

# CHECK-LABEL: CASE: typed call with a wrong dtype
# CHECK: TypeError: argument 0 of 'first' (memref<4xf32>): expected an array of dtype float32, got dtype int64
expect_error("typed call with a wrong dtype", lambda: TYPED.first(np.zeros(4, np.int64)))

# CHECK-LABEL: CASE: typed call with a wrong shape
# CHECK: ValueError: argument 0 of 'first' (memref<4xf32>): dimension 0 must be 4, got shape (5,)
expect_error("typed call with a wrong shape", lambda: TYPED.first(np.zeros(5, np.float32)))

# CHECK-LABEL: CASE: typed call with callbacks missing
# CHECK: RuntimeError: callbacks declared in the module are not registered: hook
expect_error("typed call with callbacks missing", lambda: TYPED.call(1))

# CHECK-LABEL: CASE: MLIR runtime function without its library
# CHECK: RuntimeError: callbacks declared in the module are not registered: printMemrefF32; register them with JitModule.register(name, fn) or @JitModule.callback(name) before the first call (printMemrefF32: MLIR's runtime libraries define these, which the package carries in mlir/_mlir_libs: pass shared_libs=['{{.*}}/mlir/_mlir_libs/libmlir_c_runner_utils.so', '{{.*}}/mlir/_mlir_libs/libmlir_runner_utils.so'] (libmlir_async_runtime.so for async))
expect_error(
    "MLIR runtime function without its library",
    lambda: jit("""
    func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
    func.func @show(%m: memref<2xf32>) {
      %u = memref.cast %m : memref<2xf32> to memref<*xf32>
      call @printMemrefF32(%u) : (memref<*xf32>) -> ()
      return
    }""").show(np.zeros(2, np.float32)),
)

# CHECK-LABEL: CASE: callback for an undeclared name
# CHECK: ValueError: cannot register callback 'hoook': the module declares no func.func private @hoook; declared: hook
expect_error("callback for an undeclared name", lambda: TYPED.register("hoook", abs))

# CHECK-LABEL: CASE: callback of the wrong arity
# CHECK: TypeError: callback 'hook' is declared (i8) -> i8: it must accept 1 positional arguments
expect_error("callback of the wrong arity", lambda: TYPED.register("hook", lambda a, b: a))

TYPED.register("hook", lambda a: a * 100)

# CHECK-LABEL: CASE: callback result out of range
# CHECK: ValueError: result 0 of 'hook' (i8): 300 is out of range [-128, 127]
expect_error("callback result out of range", lambda: TYPED.call(3))

# CHECK-LABEL: CASE: callback result of the wrong kind
# CHECK: TypeError: result 0 of 'hook' (f32): expected a float, got numpy.complex64
TYPED_COMPLEX = jit(
    """
    func.func @call(%a: f32) -> f32 {
      %r = func.call @hook(%a) : (f32) -> f32
      return %r : f32
    }
    func.func private @hook(f32) -> f32
    """
)
TYPED_COMPLEX.register("hook", lambda a: np.complex64(1 + 2j))
expect_error("callback result of the wrong kind", lambda: TYPED_COMPLEX.call(1.0))
del TYPED_COMPLEX

# CHECK-LABEL: CASE: callback registered after the first call
# CHECK: RuntimeError: cannot register callback 'hook': the module was compiled by its first call; register callbacks before calling
expect_error("callback registered after the first call", lambda: TYPED.register("hook", abs))

del TYPED

# jit()'s pipelines: MLIR's reasons in the exception, none on stderr.
# CHECK-LABEL: CASE: jit with a bad pass option
# CHECK: ValueError: failed to add `canonicalize` with options `max-iterations=x`: for the --max-iterations option: 'x' value invalid for long argument!
expect_error(
    "jit with a bad pass option",
    lambda: jit(ADD, pipeline="builtin.module(canonicalize{max-iterations=x})", cache_dir=None),
)

# CHECK-LABEL: CASE: jit with an unknown pass
# CHECK: ValueError: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
expect_error(
    "jit with an unknown pass",
    lambda: jit(ADD, pipeline="builtin.module(no-such-pass)", cache_dir=None),
)

# CHECK-LABEL: CASE: jit of text that does not parse
# CHECK: MLIRError: Unable to parse module assembly:
# CHECK-NEXT: error: "-":1:13: expected non-function type
expect_error("jit of text that does not parse", lambda: jit("func.func @f(", cache_dir=None))

# CHECK-LABEL: CASE: jit whose pipeline fails
# CHECK: MLIRError: Failure while executing pass pipeline:
# CHECK-NEXT: error: {{.*}}can't run 'func.func' pass manager on 'builtin.module' op
expect_error(
    "jit whose pipeline fails",
    lambda: jit(ADD, pipeline="func.func(canonicalize)", cache_dir=None),
)

# Upstream segfaults on each of these.

# CHECK-LABEL: CASE: invoke with too few arguments
# CHECK: TypeError: 'add' takes 3 pointer arguments (one for each argument, then one for the result), got 1
# CHECK: exit code: 0
in_subprocess(
    "invoke with too few arguments",
    """
    with Context():
        expect_error("", lambda: ExecutionEngine(lowered(ADD)).invoke(
            "add", ctypes.pointer(ctypes.c_int64(1))))
    """,
)

# CHECK-LABEL: CASE: invoke with no arguments
# CHECK: TypeError: 'add' takes 3 pointer arguments (one for each argument, then one for the result), got 0
# CHECK: exit code: 0
in_subprocess(
    "invoke with no arguments",
    """
    with Context():
        expect_error("", lambda: ExecutionEngine(lowered(ADD)).invoke("add"))
    """,
)

# Ints are addresses, as upstream (ctypes.cast takes them): 0 is refused.
# CHECK-LABEL: CASE: invoke with ints for pointers
# CHECK: ValueError: argument 0 of 'add' is a null pointer
# CHECK: exit code: 0
in_subprocess(
    "invoke with ints for pointers",
    """
    with Context():
        expect_error("", lambda: ExecutionEngine(lowered(ADD)).invoke("add", 0, 0, 0))
    """,
)

# CHECK-LABEL: CASE: lookup outliving its engine
# CHECK: 1 + 2 = 3
# CHECK: exit code: 0
in_subprocess(
    "lookup outliving its engine",
    """
    with Context():
        add = ExecutionEngine(lowered(ADD)).lookup("add")
    gc.collect()
    a, b, r = ctypes.c_int64(1), ctypes.c_int64(2), ctypes.c_int64()
    add((ctypes.c_void_p * 3)(*[ctypes.addressof(x) for x in (a, b, r)]))
    print(f"{a.value} + {b.value} = {r.value}")
    """,
)

gc.collect()
# CHECK: live contexts: 0
print("live contexts:", Context._get_live_count())
