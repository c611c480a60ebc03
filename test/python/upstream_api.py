# RUN: %PYTHON %s | FileCheck %s
#
# Conformance with upstream LLVM 22's Python API of the modules this project
# provides in place of upstream's: every name of mlir.execution_engine and
# mlir.runtime, called the way upstream documents it (positional and keyword
# forms, capsules, star imports). mlir.ir and mlir.passmanager are upstream's
# own.

import ctypes
import gc
import io
import os
import sys
import tempfile

import numpy as np

from mlir.execution_engine import *
from mlir.ir import *
from mlir.passmanager import *
from mlir.runtime import *

import mlir.execution_engine
import mlir.ir
import mlir.passmanager
import mlir.runtime

TO_LLVM = (
    "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
    "finalize-memref-to-llvm,reconcile-unrealized-casts)"
)

TRIPLE = """
func.func @triple(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %c3 = arith.constant 3 : i32
  %y = arith.muli %x, %c3 : i32
  return %y : i32
}
"""


def section(name):
    print(f"\nSECTION: {name}")


def check_error(label, fn):
    """Prints the type and first line of the exception fn raises."""
    try:
        fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        print(f"{label}: no exception")


# The star imports give the upstream names.
# CHECK-LABEL: SECTION: star imports
section("star imports")
names = {
    "mlir.execution_engine": (mlir.execution_engine, ["ExecutionEngine"]),
    "mlir.runtime": (
        mlir.runtime,
        [
            "C128",
            "C64",
            "F16",
            "BF16",
            "F8E4M3FN",
            "F8E5M2",
            "as_ctype",
            "to_numpy",
            "make_nd_memref_descriptor",
            "make_zero_d_memref_descriptor",
            "UnrankedMemRefDescriptor",
            "get_ranked_memref_descriptor",
            "get_unranked_memref_descriptor",
            "move_aligned_ptr_by_offset",
            "unranked_memref_to_numpy",
            "ranked_memref_to_numpy",
        ],
    ),
}
for module_name, (module, expected) in names.items():
    missing = [n for n in expected if not hasattr(module, n) or n not in globals()]
    # CHECK: mlir.execution_engine missing: []
    # CHECK: mlir.runtime missing: []
    print(module_name, "missing:", missing)


# CHECK-LABEL: SECTION: ExecutionEngine
section("ExecutionEngine")
with Context():
    module = Module.parse(
        TRIPLE
        + """
func.func @report(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%x) : (i32) -> i32
  return %r : i32
}
func.func private @hook(i32) -> i32 attributes { llvm.emit_c_interface }
"""
    )
    PassManager.parse(TO_LLVM).run(module.operation)
    engine = ExecutionEngine(
        module, opt_level=2, shared_libs=[], enable_object_dump=True, enable_pic=False
    )

    hook_type = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
    hook = hook_type(lambda x: x + 1000)
    engine.register_runtime("hook", hook)
    engine.initialize()

    # Every pointer form ctypes.cast takes, as upstream.
    x, result = ctypes.c_int32(5), ctypes.c_int32()
    engine.invoke("triple", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: pointer: 15
    print("pointer:", result.value)
    engine.invoke("triple", ctypes.byref(x), ctypes.byref(result))
    # CHECK: byref: 15
    print("byref:", result.value)
    engine.invoke("triple", ctypes.addressof(x), ctypes.c_void_p(ctypes.addressof(result)))
    # CHECK: address: 15
    print("address:", result.value)
    buffer = (ctypes.c_int32 * 1)(7)
    engine.invoke("triple", buffer, ctypes.cast(ctypes.pointer(result), ctypes.c_void_p))
    # CHECK: array: 21
    print("array:", result.value)
    engine.invoke("report", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: callback: 1005
    print("callback:", result.value)

    triple = engine.lookup("triple")
    args = (ctypes.c_void_p * 2)(ctypes.addressof(x), ctypes.addressof(result))
    triple(args)
    # CHECK: lookup: 15
    print("lookup:", result.value)
    # raw_lookup: the packed wrapper's address, 0 for unknown names.
    # CHECK: raw_lookup: True 0
    print(
        "raw_lookup:",
        engine.raw_lookup("_mlir_ciface_triple") != 0,
        engine.raw_lookup("no_such_function"),
    )
    if not engine.raw_lookup("no_such_function"):
        # CHECK: not found, as upstream code tests it
        print("not found, as upstream code tests it")
    # CHECK: unknown lookup: RuntimeError: Unknown function no_such_function: the module defines no function 'no_such_function'
    check_error("unknown lookup", lambda: engine.lookup("no_such_function"))
    # CHECK: unknown invoke: RuntimeError: Unknown function no_such_function:
    check_error("unknown invoke", lambda: engine.invoke("no_such_function", ctypes.byref(x)))

    object_path = os.path.join(tempfile.mkdtemp(), "triple.o")
    engine.dump_to_object_file(object_path)
    # CHECK: object file: True
    print("object file:", os.path.getsize(object_path) > 0)

    # raw_register_runtime takes a ctypes object whose .value is the address.
    raw_module = Module.parse("""
func.func @twice(%x: i32) -> i32 attributes { llvm.emit_c_interface } {
  %r = func.call @raw_hook(%x) : (i32) -> i32
  return %r : i32
}
func.func private @raw_hook(i32) -> i32 attributes { llvm.emit_c_interface }
""")
    PassManager.parse(TO_LLVM).run(raw_module.operation)
    raw_engine = ExecutionEngine(raw_module)
    raw_hook = hook_type(lambda x: 2 * x)
    raw_engine.raw_register_runtime("_mlir_ciface_raw_hook", ctypes.cast(raw_hook, ctypes.c_void_p))
    raw_engine.invoke("twice", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: raw runtime: 10
    print("raw runtime:", result.value)

    # A module given by anything carrying its capsule (another binding's
    # Module), or by the capsule itself.
    class ForeignModule:
        def __init__(self, module):
            self._module = module

        @property
        def _CAPIPtr(self):
            return self._module._CAPIPtr

    foreign = ExecutionEngine(ForeignModule(module))
    foreign.register_runtime("hook", hook)
    foreign.invoke("triple", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: foreign module: 15
    print("foreign module:", result.value)
    from_capsule = ExecutionEngine(raw_module._CAPIPtr)
    from_capsule.register_runtime("raw_hook", raw_hook)
    from_capsule.invoke("twice", ctypes.pointer(x), ctypes.pointer(result))
    # CHECK: capsule module: 10
    print("capsule module:", result.value)

    # Engine capsules.
    capsule = engine._CAPIPtr
    # CHECK: engine capsule: <capsule object "mlir.execution_engine.ExecutionEngine._CAPIPtr"
    print("engine capsule:", repr(capsule))
    engine._testing_release()
    new_owner = ExecutionEngine._CAPICreate(capsule)
    # CHECK: new owner raw_lookup: True
    print("new owner raw_lookup:", new_owner.raw_lookup("_mlir_ciface_triple") != 0)
del engine, new_owner, raw_engine, foreign, from_capsule, module, raw_module, triple
gc.collect()


# CHECK-LABEL: SECTION: runtime
section("runtime")
with Context():
    module = Module.parse("""
func.func @scale(%m: memref<?xf32>, %out: memref<?xf32>) attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %out[%i] : memref<?xf32>
  }
  return
}
func.func @first(%m: memref<*xf32>) -> f32 attributes { llvm.emit_c_interface } {
  %r = memref.cast %m : memref<*xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %r[%c0] : memref<?xf32>
  return %v : f32
}
""")
    PassManager.parse(
        "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-func-to-llvm,"
        "convert-arith-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    engine = ExecutionEngine(module)
    data = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    engine.invoke(
        "scale",
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(data))),
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))),
    )
    # CHECK: ranked: [0. 2. 4. 6.]
    print("ranked:", out)
    first = ctypes.c_float()
    shifted_data = data + 9
    engine.invoke(
        "first",
        ctypes.pointer(ctypes.pointer(get_unranked_memref_descriptor(shifted_data))),
        ctypes.pointer(first),
    )
    # CHECK: unranked: 9.0
    print("unranked:", first.value)

    descriptor = get_ranked_memref_descriptor(np.arange(6, dtype=np.int64).reshape(2, 3))
    as_array = ranked_memref_to_numpy(ctypes.pointer(descriptor))
    # CHECK: ranked_memref_to_numpy: (2, 3) [0 1 2 3 4 5]
    print("ranked_memref_to_numpy:", as_array.shape, as_array.ravel())
    unranked = get_unranked_memref_descriptor(np.arange(3, dtype=np.float64))
    # CHECK: unranked_memref_to_numpy: [0. 1. 2.]
    print(
        "unranked_memref_to_numpy:", unranked_memref_to_numpy(ctypes.pointer(unranked), np.float64)
    )
    # CHECK: descriptor types: True ['allocated', 'aligned', 'offset', 'shape', 'strides']
    print(
        "descriptor types:",
        isinstance(unranked, UnrankedMemRefDescriptor),
        [f[0] for f in make_nd_memref_descriptor(2, ctypes.c_float)._fields_],
    )
    zero_d = make_zero_d_memref_descriptor(ctypes.c_double)()
    # CHECK: zero-d fields: ['allocated', 'aligned', 'offset']
    print("zero-d fields:", [f[0] for f in zero_d._fields_])
    # CHECK: as_ctype: True True True True
    print(
        "as_ctype:",
        as_ctype(np.float32) is ctypes.c_float,
        as_ctype(np.complex64) is C64,
        as_ctype(np.float16) is F16,
        as_ctype(np.complex128) is C128,
    )
    # CHECK: to_numpy: complex64
    print("to_numpy:", to_numpy(np.ctypeslib.as_array((C64 * 2)())).dtype)
    shifted = move_aligned_ptr_by_offset(descriptor.aligned, 2)
    # CHECK: move_aligned_ptr_by_offset: 2
    print("move_aligned_ptr_by_offset:", shifted[0])
    # CHECK: struct types: C128 BF16 F8E4M3FN F8E5M2
    print("struct types:", C128.__name__, BF16.__name__, F8E4M3FN.__name__, F8E5M2.__name__)
del engine, module
# Everything that refers into a Context, then the contexts themselves.
for name in [
    "ctx",
    "loc",
    "i8",
    "parsed",
    "generic",
    "complex_type",
    "function_type",
    "attr",
    "type_attr",
    "diagnostic",
]:
    globals().pop(name, None)
gc.collect()
# CHECK: end live contexts: 0
print("end live contexts:", Context._get_live_count())
