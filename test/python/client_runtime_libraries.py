# RUN: %PYTHON %s | FileCheck %s
#
# A client written for upstream's bindings, in its style: IR built with
# mlir.dialects, MLIR's runtime libraries found in mlir/_mlir_libs (where
# upstream-style packages put them), ExecutionEngine with a register_runtime
# callback, a memref printed by printMemrefF32, a kernel timed with rtclock
# and nanoTime, and a Context and Location left entered at exit, which must
# not crash the interpreter (lit runs the pipeline with pipefail: a signal
# or a nonzero status fails the test). test/wheel runs it from the installed
# wheel too, with these CHECK lines.

import ctypes
import os
import sys

import numpy as np

import mlir._mlir_libs
from mlir.dialects import arith, func, memref, scf
from mlir.execution_engine import ExecutionEngine
from mlir.ir import (
    Context,
    F32Type,
    F64Type,
    IndexType,
    InsertionPoint,
    IntegerType,
    Location,
    MemRefType,
    Module,
    UnitAttr,
    UnrankedMemRefType,
)
from mlir.passmanager import PassManager
from mlir.runtime import get_ranked_memref_descriptor

LIBS = os.path.dirname(mlir._mlir_libs.__file__)


def runtime_library(name):
    # As clients' helpers do: the package's own copy, or an error.
    path = os.path.join(LIBS, name)
    if not os.path.isfile(path):
        raise RuntimeError(f"Could not find shared library {path}")
    return path


# CHECK: runtime libraries: libmlir_c_runner_utils.so libmlir_runner_utils.so libmlir_async_runtime.so libmlir_float16_utils.so libmlir_apfloat_wrappers.so
NAMES = [
    "libmlir_c_runner_utils.so",
    "libmlir_runner_utils.so",
    "libmlir_async_runtime.so",
    "libmlir_float16_utils.so",
    "libmlir_apfloat_wrappers.so",
]
print("runtime libraries:", *[os.path.basename(runtime_library(n)) for n in NAMES])

# Each loads by its path alone, in a process without the package.
for name in NAMES:
    code = "import ctypes, sys; ctypes.CDLL(sys.argv[1]); print('loaded')"
    result = os.popen(f'{sys.executable} -S -c "{code}" {runtime_library(name)} 2>&1').read()
    assert result == "loaded\n", (name, result)
# CHECK-NEXT: each loads alone
print("each loads alone")

_libc = ctypes.CDLL(None)


def flush():
    # printMemrefF32 prints through C stdio: flush both streams in order.
    sys.stdout.flush()
    _libc.fflush(None)


def c_interface(op):
    op.attributes["llvm.emit_c_interface"] = UnitAttr.get()
    return op


def build_module():
    f32, f64, i64, index = (
        F32Type.get(),
        F64Type.get(),
        IntegerType.get_signless(64),
        IndexType.get(),
    )
    matrix = MemRefType.get([2, 3], f32)
    module = Module.create()
    with InsertionPoint(module.body):
        get_factor = c_interface(func.FuncOp("get_factor", ([], [f32]), visibility="private"))
        print_memref = c_interface(
            func.FuncOp(
                "printMemrefF32", ([UnrankedMemRefType.get(f32, None)], []), visibility="private"
            )
        )
        rtclock = func.FuncOp("rtclock", ([], [f64]), visibility="private")
        nano_time = c_interface(func.FuncOp("nanoTime", ([], [i64]), visibility="private"))

        def for_each(upper, body):
            loop = scf.ForOp(
                arith.ConstantOp(index, 0).result,
                arith.ConstantOp(index, upper).result,
                arith.ConstantOp(index, 1).result,
            )
            with InsertionPoint(loop.body):
                body(loop.induction_variable)
                scf.YieldOp([])

        @func.FuncOp.from_py_func(matrix)
        def scale_and_print(buffer):
            factor = func.CallOp(get_factor, []).result

            def scale(i, j):
                value = memref.LoadOp(buffer, [i, j]).result
                memref.StoreOp(arith.MulFOp(value, factor).result, buffer, [i, j])

            for_each(2, lambda i: for_each(3, lambda j: scale(i, j)))
            func.CallOp(
                print_memref, [memref.CastOp(UnrankedMemRefType.get(f32, None), buffer).result]
            )

        @func.FuncOp.from_py_func(matrix)
        def timed(buffer):
            start = func.CallOp(rtclock, []).result
            one = arith.ConstantOp(f32, 1.0).result

            def add_one(i, j):
                value = memref.LoadOp(buffer, [i, j]).result
                memref.StoreOp(arith.AddFOp(value, one).result, buffer, [i, j])

            for_each(100000, lambda _: for_each(2, lambda i: for_each(3, lambda j: add_one(i, j))))
            return arith.SubFOp(func.CallOp(rtclock, []).result, start).result

        @func.FuncOp.from_py_func()
        def nanoseconds():
            return func.CallOp(nano_time, []).result

        for function in [scale_and_print, timed, nanoseconds]:
            c_interface(function.func_op)
    return module


with Context(), Location.unknown():
    module = build_module()
    PassManager.parse(
        "builtin.module(convert-scf-to-cf,finalize-memref-to-llvm,convert-func-to-llvm,"
        "convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    engine = ExecutionEngine(
        module,
        shared_libs=[
            runtime_library("libmlir_c_runner_utils.so"),
            runtime_library("libmlir_runner_utils.so"),
        ],
    )

    @ctypes.CFUNCTYPE(ctypes.c_float)
    def get_factor():
        return 2.0

    engine.register_runtime("get_factor", get_factor)

    data = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    descriptor = ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(data)))
    # CHECK-NEXT: Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
    # CHECK-NEXT: {{\[\[}}2, {{ *}}4, {{ *}}6],
    # CHECK-NEXT: {{ \[}}8, {{ *}}10, {{ *}}12]]
    flush()
    engine.invoke("scale_and_print", descriptor)
    flush()
    # CHECK-NEXT: scaled in place: [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    print("scaled in place:", data.ravel().tolist())

    seconds, before, after = ctypes.c_double(), ctypes.c_int64(), ctypes.c_int64()
    engine.invoke("nanoseconds", ctypes.pointer(before))
    engine.invoke("timed", descriptor, ctypes.pointer(seconds))
    engine.invoke("nanoseconds", ctypes.pointer(after))
    # rtclock reads the wall clock in microseconds, nanoTime a steady clock.
    # CHECK-NEXT: timed: 100000 additions, rtclock and nanoTime agree: True
    span = (after.value - before.value) * 1e-9
    agree = 0 < seconds.value and abs(seconds.value - span) < 1e-3 + span / 2
    print(f"timed: {int(data[0, 0] - 2)} additions, rtclock and nanoTime agree: {agree}")

# jit() links a declaration to a function the libraries define only as its
# C interface (_mlir_ciface_nanoTime).
from mlir.execution_engine import jit  # noqa: E402

clock = jit(
    """
    func.func private @nanoTime() -> i64
    func.func @elapsed() -> i64 {
      %a = func.call @nanoTime() : () -> i64
      %b = func.call @nanoTime() : () -> i64
      %d = arith.subi %b, %a : i64
      return %d : i64
    }
    """,
    shared_libs=[runtime_library("libmlir_runner_utils.so")],
)
# CHECK-NEXT: jit() and nanoTime: True
print("jit() and nanoTime:", 0 <= clock.elapsed() < 10**9)

# Left entered, as scripts and notebooks do: the exit status stays 0.
Context().__enter__()
Location.unknown().__enter__()
# CHECK-NEXT: exiting with a Context entered
print("exiting with a Context entered")
