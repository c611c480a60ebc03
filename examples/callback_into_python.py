"""Jitted MLIR code calling back into Python.

`callback_test` is compiled by the JIT; it calls `some_callback_into_python`,
which is a Python function registered with the engine.
"""

import ctypes

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


# mypy takes a class used as a decorator (CFUNCTYPE returns one) for untyped.
@ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_int)  # type: ignore[untyped-decorator]
def some_callback_into_python(a: float, b: int) -> float:
    return a + b


def main() -> None:
    with Context():
        module = Module.parse(SOURCE)
        PassManager.parse(LOWER_TO_LLVM).run(module.operation)
        engine = ExecutionEngine(module)
        engine.register_runtime("some_callback_into_python", some_callback_into_python)

        a, b, result = ctypes.c_float(42.0), ctypes.c_int(2), ctypes.c_float()
        engine.invoke("callback_test", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(result))
        print(f"callback_test({a.value}, {b.value}) = {result.value}")


if __name__ == "__main__":
    main()
