# RUN: %PYTHON %s | FileCheck %s
#
# A module built with upstream's dialect builders (mlir.dialects) runs through
# jit() and through ExecutionEngine; jit() leaves the caller's module as it
# was.

import ctypes

import numpy as np

from mlir.dialects import arith, func, memref
from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import (
    Context,
    F32Type,
    FunctionType,
    IndexType,
    InsertionPoint,
    Location,
    MemRefType,
    Module,
    UnitAttr,
)
from mlir.passmanager import PassManager

from fixtures import LOWERING


def build(ctx):
    """@scale(%x: memref<4xf32>, %s: f32) -> f32: x[i] *= s in place,
    returns x[3]; @twice(%a: f32) -> f32."""
    f32, index = F32Type.get(), IndexType.get()
    module = Module.create()
    with InsertionPoint(module.body):
        vector = MemRefType.get([4], f32)

        @func.FuncOp.from_py_func(vector, f32)
        def scale(x, s):
            for i in range(4):
                at = arith.ConstantOp(index, i)
                value = memref.LoadOp(x, [at]).result
                memref.StoreOp(arith.MulFOp(value, s).result, x, [at])
            return memref.LoadOp(x, [arith.ConstantOp(index, 3)]).result

        @func.FuncOp.from_py_func(f32)
        def twice(a):
            return arith.AddFOp(a, a).result

    return module


with Context() as ctx, Location.unknown():
    module = build(ctx)
    before = str(module)
    first = module.body.operations[0]

    # CHECK: jit: 12.0 [ 3.  6.  9. 12.]
    m = jit(module, cache_dir=None)
    x = np.arange(1, 5, dtype=np.float32)
    print("jit:", m.scale(x, np.float32(3.0)), x)
    # CHECK: twice: 5.0
    print("twice:", m.twice(2.5))
    # CHECK: module unchanged: True func.func
    print("module unchanged:", str(module) == before, first.operation.name)

    # CHECK: ExecutionEngine: 5.0
    for op in module.body.operations:
        op.attributes["llvm.emit_c_interface"] = UnitAttr.get()
    PassManager.parse(LOWERING).run(module.operation)
    engine = ExecutionEngine(module)
    a, result = ctypes.c_float(2.5), ctypes.c_float()
    engine.invoke("twice", ctypes.pointer(a), ctypes.pointer(result))
    print("ExecutionEngine:", result.value)
