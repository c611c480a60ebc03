"""The embedded `mlir` package: jitted code calls back into Python."""

import ctypes
import unittest

from mlir.execution_engine import ExecutionEngine
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

SOURCE = """
func.func @callback_test(%arg0: f32, %arg1: i32) -> f32 attributes { llvm.emit_c_interface } {
  %result = func.call @some_callback_into_python(%arg0, %arg1) : (f32, i32) -> f32
  return %result : f32
}
func.func private @some_callback_into_python(f32, i32) -> f32 attributes { llvm.emit_c_interface }
"""
LOWER_TO_LLVM = (
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"
)


@ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_int)
def some_callback_into_python(a, b):
    return a + b


class EmbeddedPythonTest(unittest.TestCase):
    def test_callback_into_python(self):
        with Context():
            module = Module.parse(SOURCE)
            PassManager.parse(LOWER_TO_LLVM).run(module.operation)
            engine = ExecutionEngine(module)
            engine.register_runtime("some_callback_into_python", some_callback_into_python)
            a, b, result = ctypes.c_float(42.0), ctypes.c_int(2), ctypes.c_float()
            engine.invoke(
                "callback_test", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(result)
            )
        self.assertEqual(result.value, 44.0)


if __name__ == "__main__":
    unittest.main()
