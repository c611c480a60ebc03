# RUN: %PYTHON %s | FileCheck %s
#
# Upstream-style callbacks (ExecutionEngine.register_runtime with a ctypes
# CFUNCTYPE function): an exception the callback raises while jitted code
# runs is re-raised, the same object, by the invoke or the looked-up function
# that ran the code (ctypes alone would only report it to
# sys.unraisablehook), and the engine still works afterwards. Found untested
# by the mutant suite (test/mutants, engine_callback_error_not_reraised).

import ctypes

from mlir.execution_engine import ExecutionEngine
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

error = ZeroDivisionError("raised in the callback")


@ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
def reciprocal_times_six(x):
    if x == 0:
        raise error
    return 6 // x


with Context():
    module = Module.parse("""
func.func @compute(%x: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = call @reciprocal_times_six(%x) : (i64) -> i64
  return %r : i64
}
func.func private @reciprocal_times_six(i64) -> i64 attributes { llvm.emit_c_interface }
""")
    PassManager.parse(
        "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    engine = ExecutionEngine(module)
    engine.register_runtime("reciprocal_times_six", reciprocal_times_six)


def invoke(x):
    arg, result = ctypes.c_int64(x), ctypes.c_int64(-1)
    engine.invoke("compute", ctypes.pointer(arg), ctypes.pointer(result))
    return result.value


def lookup_call(x):
    arg, result = ctypes.c_int64(x), ctypes.c_int64(-1)
    packed = (ctypes.c_void_p * 2)(
        ctypes.cast(ctypes.pointer(arg), ctypes.c_void_p),
        ctypes.cast(ctypes.pointer(result), ctypes.c_void_p),
    )
    engine.lookup("compute")(packed)
    return result.value


for name, call in [("invoke", invoke), ("lookup", lookup_call)]:
    try:
        call(0)
        print(f"{name}: no exception raised")
    except ZeroDivisionError as raised:
        print(f"{name}: {type(raised).__name__}: {raised}, same object: {raised is error}")
    print(f"{name} afterwards: {call(2)}")

# CHECK: invoke: ZeroDivisionError: raised in the callback, same object: True
# CHECK: invoke afterwards: 3
# CHECK: lookup: ZeroDivisionError: raised in the callback, same object: True
# CHECK: lookup afterwards: 3
