# RUN: %PYTHON %s | FileCheck %s
#
# Memrefs through upstream's ExecutionEngine API: callbacks taking ranked
# and unranked memrefs (with offsets), and jitted adds of f32, f16, complex,
# bf16, f8 and dynamic 2-D memrefs passed as ctypes descriptors.

import ctypes
import gc
import sys

import numpy as np
from ml_dtypes import bfloat16, float8_e5m2

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


def lowerSCFToLLVM(module):
    pm = PassManager.parse(
        "builtin.module(convert-scf-to-cf,convert-complex-to-llvm,"
        "finalize-memref-to-llvm,convert-func-to-llvm,convert-arith-to-llvm,"
        "convert-cf-to-llvm,reconcile-unrealized-casts)"
    )
    pm.run(module.operation)
    return module


def memref_ptr(descriptor):
    # A memref argument is passed as a pointer to a pointer to its descriptor.
    return ctypes.pointer(ctypes.pointer(descriptor))


# A callback receives an unranked memref and views it with numpy.
# CHECK-LABEL: TEST: testUnrankedMemRefCallback
def testUnrankedMemRefCallback():
    @ctypes.CFUNCTYPE(None, ctypes.POINTER(UnrankedMemRefDescriptor))
    def callback(a):
        arr = unranked_memref_to_numpy(a, np.float32)
        log("Inside callback: ")
        log(arr)

    with Context():
        module = Module.parse(
            r"""
func.func @callback_memref(%arg0: memref<*xf32>) attributes { llvm.emit_c_interface } {
  call @some_callback_into_python(%arg0) : (memref<*xf32>) -> ()
  return
}
func.func private @some_callback_into_python(memref<*xf32>) -> () attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.register_runtime("some_callback_into_python", callback)
        inp_arr = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
        # CHECK: Inside callback:
        # CHECK{LITERAL}: [[1. 2.]
        # CHECK{LITERAL}:  [3. 4.]]
        execution_engine.invoke(
            "callback_memref", memref_ptr(get_unranked_memref_descriptor(inp_arr))
        )
        # A broadcast (stride 0) array.
        inp_arr_1 = np.array([5, 6, 7], dtype=np.float32)
        strided_arr = np.broadcast_to(inp_arr_1[:, None], (3, 4))
        # CHECK: Inside callback:
        # CHECK{LITERAL}: [[5. 5. 5. 5.]
        # CHECK{LITERAL}:  [6. 6. 6. 6.]
        # CHECK{LITERAL}:  [7. 7. 7. 7.]]
        execution_engine.invoke(
            "callback_memref",
            memref_ptr(get_unranked_memref_descriptor(strided_arr)),
        )
        # A 0-d array.
        # CHECK: Inside callback:
        # CHECK-NEXT: 8.5
        execution_engine.invoke(
            "callback_memref",
            memref_ptr(get_unranked_memref_descriptor(np.array(8.5, np.float32))),
        )


run(testUnrankedMemRefCallback)


# A callback receives a ranked memref.
# CHECK-LABEL: TEST: testRankedMemRefCallback
def testRankedMemRefCallback():
    @ctypes.CFUNCTYPE(None, ctypes.POINTER(make_nd_memref_descriptor(2, ctypes.c_float)))
    def callback(a):
        arr = ranked_memref_to_numpy(a)
        log("Inside Callback: ")
        log(arr)
        log("shape:", arr.shape, "strides:", arr.strides)

    with Context():
        module = Module.parse(
            r"""
func.func @callback_memref(%arg0: memref<2x2xf32>) attributes { llvm.emit_c_interface } {
  call @some_callback_into_python(%arg0) : (memref<2x2xf32>) -> ()
  return
}
func.func private @some_callback_into_python(memref<2x2xf32>) -> () attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.register_runtime("some_callback_into_python", callback)
        inp_arr = np.array([[1.0, 5.0], [6.0, 7.0]], np.float32)
        # CHECK: Inside Callback:
        # CHECK{LITERAL}: [[1. 5.]
        # CHECK{LITERAL}:  [6. 7.]]
        # CHECK: shape: (2, 2) strides: (8, 4)
        execution_engine.invoke(
            "callback_memref", memref_ptr(get_ranked_memref_descriptor(inp_arr))
        )
        # A transposed view: the callback sees the strides of the view.
        # CHECK: Inside Callback:
        # CHECK{LITERAL}: [[1. 6.]
        # CHECK{LITERAL}:  [5. 7.]]
        # CHECK: shape: (2, 2) strides: (4, 8)
        execution_engine.invoke(
            "callback_memref", memref_ptr(get_ranked_memref_descriptor(inp_arr.T))
        )


run(testRankedMemRefCallback)


# A callback receives a ranked memref whose offset is not zero.
# CHECK-LABEL: TEST: testRankedMemRefWithOffsetCallback
def testRankedMemRefWithOffsetCallback():
    @ctypes.CFUNCTYPE(None, ctypes.POINTER(make_nd_memref_descriptor(1, ctypes.c_float)))
    def callback(a):
        log("offset:", a[0].offset)
        arr = ranked_memref_to_numpy(a)
        log("Inside Callback: ")
        log(arr)

    with Context():
        module = Module.parse(
            r"""
func.func @callback_memref(%arg0: memref<5xf32>) attributes { llvm.emit_c_interface } {
  %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %arg0 : memref<5xf32> -> memref<f32>, index, index, index
  %reinterpret_cast = memref.reinterpret_cast %base_buffer to offset: [3], sizes: [2], strides: [1] : memref<f32> to memref<2xf32, strided<[1], offset: 3>>
  %cast = memref.cast %reinterpret_cast : memref<2xf32, strided<[1], offset: 3>> to memref<?xf32, strided<[?], offset: ?>>
  call @some_callback_into_python(%cast) : (memref<?xf32, strided<[?], offset: ?>>) -> ()
  return
}
func.func private @some_callback_into_python(memref<?xf32, strided<[?], offset: ?>>) attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.register_runtime("some_callback_into_python", callback)
        inp_arr = np.array([0, 0, 0, 1, 2], dtype=np.float32)
        # CHECK: offset: 3
        # CHECK: Inside Callback:
        # CHECK{LITERAL}: [1. 2.]
        execution_engine.invoke(
            "callback_memref", memref_ptr(get_ranked_memref_descriptor(inp_arr))
        )


run(testRankedMemRefWithOffsetCallback)


# A callback receives an unranked memref whose offset is not zero.
# CHECK-LABEL: TEST: testUnrankedMemRefWithOffsetCallback
def testUnrankedMemRefWithOffsetCallback():
    @ctypes.CFUNCTYPE(None, ctypes.POINTER(UnrankedMemRefDescriptor))
    def callback(a):
        log("rank:", a[0].rank)
        arr = unranked_memref_to_numpy(a, np.float32)
        log("Inside callback: ")
        log(arr)

    with Context():
        module = Module.parse(
            r"""
func.func @callback_memref(%arg0: memref<5xf32>) attributes { llvm.emit_c_interface } {
  %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %arg0 : memref<5xf32> -> memref<f32>, index, index, index
  %reinterpret_cast = memref.reinterpret_cast %base_buffer to offset: [3], sizes: [2], strides: [1] : memref<f32> to memref<2xf32, strided<[1], offset: 3>>
  %cast = memref.cast %reinterpret_cast : memref<2xf32, strided<[1], offset: 3>> to memref<*xf32>
  call @some_callback_into_python(%cast) : (memref<*xf32>) -> ()
  return
}
func.func private @some_callback_into_python(memref<*xf32>) attributes { llvm.emit_c_interface }
"""
        )
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.register_runtime("some_callback_into_python", callback)
        inp_arr = np.array([1, 2, 3, 4, 5], dtype=np.float32)
        # CHECK: rank: 1
        # CHECK: Inside callback:
        # CHECK{LITERAL}: [4. 5.]
        execution_engine.invoke(
            "callback_memref", memref_ptr(get_ranked_memref_descriptor(inp_arr))
        )


run(testUnrankedMemRefWithOffsetCallback)


# A 1-d and a 0-d memref in, a 1-d memref out.
# CHECK-LABEL: TEST: testMemrefAdd
def testMemrefAdd():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xf32>, %arg1: memref<f32>, %arg2: memref<1xf32>) attributes { llvm.emit_c_interface } {
  %0 = arith.constant 0 : index
  %1 = memref.load %arg0[%0] : memref<1xf32>
  %2 = memref.load %arg1[] : memref<f32>
  %3 = arith.addf %1, %2 : f32
  memref.store %3, %arg2[%0] : memref<1xf32>
  return
}
"""
        )
        arg1 = np.array([32.5]).astype(np.float32)
        arg2 = np.array(6).astype(np.float32)
        res = np.array([0]).astype(np.float32)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
            memref_ptr(get_ranked_memref_descriptor(res)),
        )
        # CHECK: [32.5] + 6.0 = [38.5]
        log("{0} + {1} = {2}".format(arg1, arg2, res))


run(testMemrefAdd)


# f16 memrefs.
# CHECK-LABEL: TEST: testF16MemrefAdd
def testF16MemrefAdd():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xf16>, %arg1: memref<1xf16>, %arg2: memref<1xf16>) attributes { llvm.emit_c_interface } {
  %0 = arith.constant 0 : index
  %1 = memref.load %arg0[%0] : memref<1xf16>
  %2 = memref.load %arg1[%0] : memref<1xf16>
  %3 = arith.addf %1, %2 : f16
  memref.store %3, %arg2[%0] : memref<1xf16>
  return
}
"""
        )
        arg1 = np.array([11.0]).astype(np.float16)
        arg2 = np.array([22.5]).astype(np.float16)
        arg3 = np.array([0.0]).astype(np.float16)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
            memref_ptr(get_ranked_memref_descriptor(arg3)),
        )
        # CHECK: [11.] + [22.5] = [33.5]
        log("{0} + {1} = {2}".format(arg1, arg2, arg3))


run(testF16MemrefAdd)


# complex<f32> memrefs.
# CHECK-LABEL: TEST: testComplexMemrefAdd
def testComplexMemrefAdd():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xcomplex<f32>>, %arg1: memref<1xcomplex<f32>>, %arg2: memref<1xcomplex<f32>>) attributes { llvm.emit_c_interface } {
  %0 = arith.constant 0 : index
  %1 = memref.load %arg0[%0] : memref<1xcomplex<f32>>
  %2 = memref.load %arg1[%0] : memref<1xcomplex<f32>>
  %3 = complex.add %1, %2 : complex<f32>
  memref.store %3, %arg2[%0] : memref<1xcomplex<f32>>
  return
}
"""
        )
        arg1 = np.array([1.0 + 2.0j]).astype(np.complex64)
        arg2 = np.array([3.0 + 4.0j]).astype(np.complex64)
        arg3 = np.array([0.0 + 0.0j]).astype(np.complex64)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
            memref_ptr(get_ranked_memref_descriptor(arg3)),
        )
        # CHECK: [1.+2.j] + [3.+4.j] = [4.+6.j]
        log("{0} + {1} = {2}".format(arg1, arg2, arg3))


run(testComplexMemrefAdd)


# Unranked complex<f32> memrefs, cast to ranked ones inside.
# CHECK-LABEL: TEST: testComplexUnrankedMemrefAdd
def testComplexUnrankedMemrefAdd():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<*xcomplex<f32>>, %arg1: memref<*xcomplex<f32>>, %arg2: memref<*xcomplex<f32>>) attributes { llvm.emit_c_interface } {
  %A = memref.cast %arg0 : memref<*xcomplex<f32>> to memref<1xcomplex<f32>>
  %B = memref.cast %arg1 : memref<*xcomplex<f32>> to memref<1xcomplex<f32>>
  %C = memref.cast %arg2 : memref<*xcomplex<f32>> to memref<1xcomplex<f32>>
  %0 = arith.constant 0 : index
  %1 = memref.load %A[%0] : memref<1xcomplex<f32>>
  %2 = memref.load %B[%0] : memref<1xcomplex<f32>>
  %3 = complex.add %1, %2 : complex<f32>
  memref.store %3, %C[%0] : memref<1xcomplex<f32>>
  return
}
"""
        )
        arg1 = np.array([5.0 + 6.0j]).astype(np.complex64)
        arg2 = np.array([7.0 + 8.0j]).astype(np.complex64)
        arg3 = np.array([0.0 + 0.0j]).astype(np.complex64)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_unranked_memref_descriptor(arg1)),
            memref_ptr(get_unranked_memref_descriptor(arg2)),
            memref_ptr(get_unranked_memref_descriptor(arg3)),
        )
        # CHECK: [5.+6.j] + [7.+8.j] = [12.+14.j]
        log("{0} + {1} = {2}".format(arg1, arg2, arg3))


run(testComplexUnrankedMemrefAdd)


# bf16 memrefs (numpy dtype from ml_dtypes).
# CHECK-LABEL: TEST: testBF16Memref
def testBF16Memref():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xbf16>, %arg1: memref<1xbf16>) attributes { llvm.emit_c_interface } {
  %0 = arith.constant 0 : index
  %1 = memref.load %arg0[%0] : memref<1xbf16>
  %2 = arith.addf %1, %1 : bf16
  memref.store %2, %arg1[%0] : memref<1xbf16>
  return
}
"""
        )
        arg1 = np.array([0.75]).astype(bfloat16)
        arg2 = np.array([0.0]).astype(bfloat16)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
        )
        # CHECK: bfloat16 [1.5]
        log(arg2.dtype, arg2)


run(testBF16Memref)


# f8E5M2 memrefs (numpy dtype from ml_dtypes).
# CHECK-LABEL: TEST: testF8E5M2Memref
def testF8E5M2Memref():
    with Context():
        module = Module.parse(
            r"""
func.func @main(%arg0: memref<1xf8E5M2>, %arg1: memref<1xf8E5M2>) attributes { llvm.emit_c_interface } {
  %0 = arith.constant 0 : index
  %1 = memref.load %arg0[%0] : memref<1xf8E5M2>
  memref.store %1, %arg1[%0] : memref<1xf8E5M2>
  return
}
"""
        )
        arg1 = np.array([0.5]).astype(float8_e5m2)
        arg2 = np.array([0.0]).astype(float8_e5m2)
        execution_engine = ExecutionEngine(lowerToLLVM(module))
        execution_engine.invoke(
            "main",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
        )
        # CHECK: float8_e5m2 [0.5]
        log(arg2.dtype, arg2)


run(testF8E5M2Memref)


# A static and a dynamically shaped 2-d memref added with scf loops.
# CHECK-LABEL: TEST: testDynamicMemrefAdd2D
def testDynamicMemrefAdd2D():
    with Context():
        module = Module.parse(
            r"""
func.func @memref_add_2d(%arg0: memref<2x3xf32>, %arg1: memref<?x?xf32>, %arg2: memref<2x3xf32>) attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %arg1, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg1, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %d0 step %c1 {
    scf.for %j = %c0 to %d1 step %c1 {
      %a = memref.load %arg0[%i, %j] : memref<2x3xf32>
      %b = memref.load %arg1[%i, %j] : memref<?x?xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %arg2[%i, %j] : memref<2x3xf32>
    }
  }
  return
}
"""
        )
        arg1 = np.arange(6, dtype=np.float32).reshape(2, 3)
        # memref<?x?xf32> has the identity layout: the array is contiguous.
        arg2 = np.arange(0, 12, 2, dtype=np.float32).reshape(2, 3)
        res = np.zeros((2, 3), np.float32)
        execution_engine = ExecutionEngine(lowerSCFToLLVM(module))
        execution_engine.invoke(
            "memref_add_2d",
            memref_ptr(get_ranked_memref_descriptor(arg1)),
            memref_ptr(get_ranked_memref_descriptor(arg2)),
            memref_ptr(get_ranked_memref_descriptor(res)),
        )
        # CHECK: True
        log(np.allclose(arg1 + arg2, res))
        # CHECK{LITERAL}: [[ 0.  3.  6.]
        # CHECK{LITERAL}:  [ 9. 12. 15.]]
        log(res)


run(testDynamicMemrefAdd2D)
