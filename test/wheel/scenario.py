"""What a user of the package does first, against an installed wheel
(`python scenario.py VENV`: the package must come from that venv) or the
package ./bazelw builds (`python scenario.py`): jitted code calls back into
Python (callback_test(42.0, 2) = 44.0), a typed call on a numpy array, a
tensor kernel through FAST_PIPELINE, and a warm start from the object cache.
"""

import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import mlir
from mlir.execution_engine import FAST_PIPELINE, ExecutionEngine, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

if len(sys.argv) > 1:
    venv = os.path.realpath(sys.argv[1])
    assert os.path.realpath(mlir.__file__).startswith(venv + os.sep), mlir.__file__
    assert not any("runfiles" in p for p in sys.path), sys.path
print("mlir from", mlir.__file__)

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


with Context():
    module = Module.parse(SOURCE)
    PassManager.parse(LOWER_TO_LLVM).run(module.operation)
    engine = ExecutionEngine(module)
    engine.register_runtime("some_callback_into_python", some_callback_into_python)
    a, b, result = ctypes.c_float(42.0), ctypes.c_int(2), ctypes.c_float()
    engine.invoke("callback_test", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(result))
    print(f"callback_test({a.value}, {b.value}) = {result.value}")
    assert result.value == 44.0, result.value

    # One typed call, with a Python callback.
    typed = jit(SOURCE)
    typed.register("some_callback_into_python", lambda a, b: a + b)
    typed_result = typed.callback_test(42.0, 2)
    print(f"typed callback_test(42.0, 2) = {typed_result}")
    assert typed_result == 44.0, typed_result

# A typed call with a memref: numpy arrays in and out, without copying.
scale = jit("""
func.func @scale(%x: memref<?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %x[%i] : memref<?xf32>
  }
  return
}
""")
values = np.arange(8, dtype=np.float32)
scale.scale(values, 2.0)
print(f"numpy {np.__version__}: scale(arange(8), 2.0) = {values.tolist()}")
assert values.tolist() == [2.0 * i for i in range(8)], values

# A tensor kernel through FAST_PIPELINE, whose schedule ships in the wheel.
matmul = jit(
    """
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
""",
    pipeline=FAST_PIPELINE,
)
a, b = np.ones((70, 9), np.float32), np.ones((9, 130), np.float32)
product = matmul.matmul(a, b, np.zeros((70, 130), np.float32))
print(f"FAST_PIPELINE matmul: {product[0, 0]}")
assert (product == 9).all(), product

# A warm start: a second process finds the first one's object code in the
# cache and compiles nothing.
WARM_START = """
import json, sys
from mlir import jit_cache
from mlir.execution_engine import jit
add = jit("func.func @add(%a: i64, %b: i64) -> i64 { %r = arith.addi %a, %b : i64 return %r : i64 }",
          cache_dir=sys.argv[1])
assert add.add(2, 3) == 5
print(json.dumps(jit_cache.statistics()))
"""
with tempfile.TemporaryDirectory() as cache_dir:
    runs = [
        subprocess.run(
            [sys.executable, "-c", WARM_START, cache_dir],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for _ in range(2)
    ]
cold, warm = (json.loads(run) for run in runs)
print(f"object cache: cold {cold}, warm {warm}")
assert cold["stores"] == 1 and cold["compilations"] == 1, cold
assert warm["hits"] == 1 and warm["compilations"] == 0, warm

print("wheel scenario: OK")
