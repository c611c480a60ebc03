# RUN: %PYTHON %s | FileCheck %s
#
# Upstream's ExecutionEngine API: invoking jitted functions, ctypes
# callbacks and their lifetime, capsules, shared libraries, object files and
# global constructors (memrefs are in execution_engine_memrefs.py).

import ctypes
import gc
import os
import sys
import tempfile
import time
import weakref

import numpy as np

from mlir.ir import *
from mlir.passmanager import *
from mlir.execution_engine import *
from mlir.runtime import *


def log(*args):
    # Flush after every line so that what the jitted code prints (through C
    # stdio, see flush_native_stdout) lands in order in the same stream.
    print(*args)
    sys.stdout.flush()


_libc = ctypes.CDLL(None)


def flush_native_stdout():
    # The runner utils print with C++ streams, which go through C stdio:
    # flush its buffer before Python prints anything else.
    _libc.fflush(None)


def run(f):
    log("\nTEST: " + f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()


def lowerToLLVM(module):
    pm = PassManager.parse(
        "builtin.module(convert-complex-to-llvm,finalize-memref-to-llvm,"
        "convert-func-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,"
        "reconcile-unrealized-casts)"
    )
    pm.run(module.operation)
    return module


def memref_ptr(descriptor):
    # A memref argument is passed as a pointer to a pointer to its descriptor.
    return ctypes.pointer(ctypes.pointer(descriptor))


# A function without arguments or results runs.
# CHECK-LABEL: TEST: testInvokeVoid
def testInvokeVoid():
    with Context():
        module = Module.parse(
            r"""
func.func @void() attributes { llvm.emit_c_interface } {
  return
}
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke("void")
        # CHECK: void returned
        log("void returned")


run(testInvokeVoid)


# Scalar arguments and a scalar result, passed as pointers.
# CHECK-LABEL: TEST: testInvokeFloatAdd
def testInvokeFloatAdd():
    with Context():
        module = Module.parse(
            r"""
func.func @add(%arg0: f32, %arg1: f32) -> f32 attributes { llvm.emit_c_interface } {
  %add = arith.addf %arg0, %arg1 : f32
  return %add : f32
}
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        c_float_p = ctypes.c_float * 1
        arg0 = c_float_p(42.0)
        arg1 = c_float_p(2.0)
        res = c_float_p(-1.0)
        execution_engine.invoke("add", arg0, arg1, res)
        # CHECK: 42.0 + 2.0 = 44.0
        log("{0} + {1} = {2}".format(arg0[0], arg1[0], res[0]))


run(testInvokeFloatAdd)


# Jitted code calls a Python function registered as a runtime symbol.
# CHECK-LABEL: TEST: testBasicCallback
def testBasicCallback():
    calls = []

    @ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_int)
    def callback(a, b):
        calls.append((a, b))
        return a / 2 + b / 2

    with Context():
        module = Module.parse(
            r"""
func.func @add(%arg0: f32, %arg1: i32) -> f32 attributes { llvm.emit_c_interface } {
  %resf = call @some_callback_into_python(%arg0, %arg1) : (f32, i32) -> (f32)
  return %resf : f32
}
func.func private @some_callback_into_python(f32, i32) -> f32 attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.register_runtime("some_callback_into_python", callback)
        c_float_p = ctypes.c_float * 1
        c_int_p = ctypes.c_int * 1
        arg0 = c_float_p(42.0)
        arg1 = c_int_p(2)
        res = c_float_p(-1.0)
        execution_engine.invoke("add", arg0, arg1, res)
        # CHECK: 42.0 + 2 = 44.0
        log("{0} + {1} = {2}".format(arg0[0], arg1[0], res[0] * 2))
        # CHECK: callback calls: [(42.0, 2)]
        log("callback calls:", calls)


run(testBasicCallback)


# The engine keeps a registered callback alive: once the caller has dropped
# its only reference, the jitted code still calls it.
# CHECK-LABEL: TEST: testCallbackLifetime
def testCallbackLifetime():
    calls = []

    def make_callback():
        @ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
        def callback(x):
            calls.append(x)
            return x * 3 + 1

        return callback

    with Context():
        module = Module.parse(
            r"""
func.func @compute(%arg0: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = call @triple_plus_one(%arg0) : (i64) -> i64
  %s = call @triple_plus_one(%r) : (i64) -> i64
  return %s : i64
}
func.func private @triple_plus_one(i64) -> i64 attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        callback = make_callback()
        callback_ref = weakref.ref(callback)
        execution_engine.register_runtime("triple_plus_one", callback)
        del callback
        gc.collect()
        # CHECK: callback alive: True
        log("callback alive:", callback_ref() is not None)
        # Overwrite the trampoline's memory if it were freed.
        garbage = [
            ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(lambda x: -x) for _ in range(100)
        ]
        arg = ctypes.c_int64(5)
        res = ctypes.c_int64(0)
        execution_engine.invoke("compute", ctypes.pointer(arg), ctypes.pointer(res))
        # CHECK: compute(5) = 49
        log("compute({0}) = {1}".format(arg.value, res.value))
        # CHECK: callback calls: [5, 16]
        log("callback calls:", calls)
        del garbage
        # The engine releases the callback when it goes.
        del execution_engine
        gc.collect()
        # CHECK: callback alive after the engine: False
        log("callback alive after the engine:", callback_ref() is not None)


run(testCallbackLifetime)


# A module that cannot be translated to LLVM IR is an error naming the op.
# CHECK-LABEL: TEST: testInvalidModule
def testInvalidModule():
    with Context():
        module = Module.parse(
            r"""
func.func @foo() { return }
"""
        )
        try:
            ExecutionEngine(module)
        except RuntimeError as e:
            message = str(e)
            # CHECK: Got RuntimeError: Failure while creating the ExecutionEngine. could not convert to LLVM IR:
            log("Got RuntimeError:", message.splitlines()[0])
            # CHECK: error: cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: func.func
            log(message.splitlines()[1])
        else:
            log("no exception raised")


run(testInvalidModule)


# Capsule interop: an engine handed over through its C API capsule.
# CHECK-LABEL: TEST: testCapsule
def testCapsule():
    with Context():
        module = Module.parse(
            r"""
llvm.func @none() {
  llvm.return
}
"""
        )
        execution_engine = ExecutionEngine(module)
        execution_engine_capsule = execution_engine._CAPIPtr
        # CHECK: mlir.execution_engine.ExecutionEngine._CAPIPtr
        log(repr(execution_engine_capsule))
        execution_engine._testing_release()
        execution_engine1 = ExecutionEngine._CAPICreate(execution_engine_capsule)
        # CHECK: _mlirExecutionEngine.ExecutionEngine
        log(repr(execution_engine1))
        # The new owner works: the released one is no longer usable.
        # CHECK: raw_lookup: True
        log("raw_lookup:", execution_engine1.raw_lookup("none") != 0)
        try:
            execution_engine.raw_lookup("none")
        except RuntimeError as e:
            # CHECK: released engine: the ExecutionEngine has been released (_testing_release)
            log("released engine:", e)


run(testCapsule)


# Functions from shared libraries given to the engine.
# CHECK-LABEL: TEST: testSharedLibLoad
def testSharedLibLoad():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xf32>) attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %cst42 = arith.constant 42.0 : f32
  memref.store %cst42, %arg0[%c0] : memref<1xf32>
  %u_memref = memref.cast %arg0 : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u_memref) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
"""
        )
        arg0 = np.array([0.0]).astype(np.float32)
        shared_libs = [
            os.environ["MLIR_RUNNER_UTILS"],
            os.environ["MLIR_C_RUNNER_UTILS"],
        ]
        execution_engine = ExecutionEngine(
            lowerToLLVM(module), opt_level=3, shared_libs=shared_libs
        )
        execution_engine.invoke("main", memref_ptr(get_ranked_memref_descriptor(arg0)))
        flush_native_stdout()
        # CHECK: Unranked Memref
        # CHECK-SAME: rank = 1 offset = 0 sizes = [1] strides = [1]
        # CHECK-NEXT: [42]
        # CHECK-NEXT: arg0 after the call: [42.]
        log("arg0 after the call:", arg0)


run(testSharedLibLoad)


# nanoTime from the C runner utils: the system clock, in nanoseconds.
# CHECK-LABEL: TEST: testNanoTime
def testNanoTime():
    with Context():
        module = Module.parse(
            r"""
func.func @main() -> i64 attributes { llvm.emit_c_interface } {
  %now = call @nanoTime() : () -> i64
  return %now : i64
}
func.func private @nanoTime() -> i64 attributes { llvm.emit_c_interface }
"""
        )
        shared_libs = [
            os.environ["MLIR_RUNNER_UTILS"],
            os.environ["MLIR_C_RUNNER_UTILS"],
        ]
        execution_engine = ExecutionEngine(
            lowerToLLVM(module), opt_level=3, shared_libs=shared_libs
        )
        execution_engine.lookup("main")  # compile before taking the time
        before = time.time_ns()
        res = ctypes.c_int64(0)
        execution_engine.invoke("main", ctypes.pointer(res))
        after = time.time_ns()
        # CHECK: nanoTime within the call: True
        log("nanoTime within the call:", before <= res.value <= after)


run(testNanoTime)


# The jitted object code written to a file.
# CHECK-LABEL: TEST: testDumpToObjectFile
def testDumpToObjectFile():
    fd, object_path = tempfile.mkstemp(suffix=".o")
    os.close(fd)
    try:
        with Context():
            module = Module.parse(
                r"""
func.func @main() attributes { llvm.emit_c_interface } {
  return
}
"""
            )
            execution_engine = ExecutionEngine(lowerToLLVM(module), opt_level=3, enable_pic=True)
            # CHECK: Object file is empty: True
            log("Object file is empty:", os.path.getsize(object_path) == 0)
            execution_engine.dump_to_object_file(object_path)
            # CHECK: Object file is empty: False
            log("Object file is empty:", os.path.getsize(object_path) == 0)
            with open(object_path, "rb") as f:
                magic = f.read(4)
            # CHECK: ELF object: True
            log("ELF object:", magic == b"\x7fELF")
    finally:
        os.remove(object_path)


run(testDumpToObjectFile)


# A global constructor calls a Python callback when the engine is initialized,
# and only once.
# CHECK-LABEL: TEST: testJITCallbackInGlobalCtor
def testJITCallbackInGlobalCtor():
    init_cnt = 0

    @ctypes.CFUNCTYPE(None)
    def initCallback():
        nonlocal init_cnt
        init_cnt += 1

    with Context():
        module = Module.parse(
            r"""
llvm.mlir.global_ctors ctors = [@ctor], priorities = [0 : i32], data = [#llvm.zero]
llvm.func @ctor() {
  func.call @init_callback() : () -> ()
  llvm.return
}
func.func private @init_callback() attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        # CHECK: calls after creation: 0
        log("calls after creation:", init_cnt)
        execution_engine.register_runtime("init_callback", initCallback)
        # CHECK: calls after registration: 0
        log("calls after registration:", init_cnt)
        execution_engine.initialize()
        # CHECK: calls after initialize: 1
        log("calls after initialize:", init_cnt)
        execution_engine.initialize()
        # CHECK: calls after a second initialize: 1
        log("calls after a second initialize:", init_cnt)


run(testJITCallbackInGlobalCtor)


# An engine whose module uses a symbol nobody defined fails to look anything
# up, saying which symbol; nothing was compiled, so registering the symbol
# then repairs the engine.
# CHECK-LABEL: TEST: testRegisteringMissingSymbolRepairs
def testRegisteringMissingSymbolRepairs():
    @ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
    def hook(x):
        return x * 3

    with Context():
        module = Module.parse(
            r"""
func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%a) : (i64) -> i64
  return %r : i64
}
func.func private @hook(i64) -> i64 attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        try:
            execution_engine.lookup("call")
        except Exception as error:
            # CHECK: lookup before registering: RuntimeError: {{.*}}_mlir_ciface_hook
            log(f"lookup before registering: {type(error).__name__}: {error}")
        else:
            log("lookup before registering: no exception")
        execution_engine.register_runtime("hook", hook)
        a, r = ctypes.c_int64(14), ctypes.c_int64(-1)
        execution_engine.invoke("call", ctypes.pointer(a), ctypes.pointer(r))
        # CHECK: after registering: call(14) = 42
        log(f"after registering: call({a.value}) = {r.value}")


run(testRegisteringMissingSymbolRepairs)
