# RUN: %PYTHON %s 2>%t.stderr | FileCheck %s
# Nothing goes to stderr (a callback's exception is re-raised, not printed).
# RUN: FileCheck --allow-empty --check-prefix=STDERR %s < %t.stderr
# STDERR-NOT: {{.}}
#
# Typed calls of mlir.execution_engine.jit: scalars, memrefs, results,
# bf16 and f8 values, the module's API and options (callbacks are in
# jit_callbacks.py).

import ctypes
import gc

import ml_dtypes
import numpy as np

from mlir.execution_engine import ExecutionEngine, jit
from mlir.ir import Context, FunctionType, Module

from fixtures import (
    heap_bytes_in_use,
    show_error,
)  # show_error prints `Type: message` of what a call raises


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()


# CHECK-LABEL: TEST: testScalarTypes
def testScalarTypes():
    module = jit(
        """
        func.func @id_i1(%a: i1) -> i1 { return %a : i1 }
        func.func @id_i8(%a: i8) -> i8 { return %a : i8 }
        func.func @id_i16(%a: i16) -> i16 { return %a : i16 }
        func.func @add_i32(%a: i32, %b: i32) -> i32 {
          %r = arith.addi %a, %b : i32
          return %r : i32
        }
        func.func @add_i64(%a: i64, %b: i64) -> i64 {
          %r = arith.addi %a, %b : i64
          return %r : i64
        }
        func.func @add_index(%a: index, %b: index) -> index {
          %r = arith.addi %a, %b : index
          return %r : index
        }
        func.func @half_f16(%a: f16) -> f16 {
          %h = arith.constant 0.5 : f16
          %r = arith.mulf %a, %h : f16
          return %r : f16
        }
        func.func @id_bf16(%a: bf16) -> bf16 { return %a : bf16 }
        func.func @mul_f32(%a: f32, %b: f32) -> f32 {
          %r = arith.mulf %a, %b : f32
          return %r : f32
        }
        func.func @sqrt_f64(%a: f64) -> f64 {
          %r = math.sqrt %a : f64
          return %r : f64
        }
        func.func @mul_c64(%a: complex<f32>, %b: complex<f32>) -> complex<f32> {
          %r = complex.mul %a, %b : complex<f32>
          return %r : complex<f32>
        }
        func.func @abs_c128(%a: complex<f64>) -> f64 {
          %r = complex.abs %a : complex<f64>
          return %r : f64
        }
        """
    )
    # CHECK: True False
    print(module.id_i1(True), module.id_i1(False))
    # CHECK: -128 127 -32768
    print(module.id_i8(-128), module.id_i8(127), module.id_i16(-32768))
    # CHECK: -1 9223372036854775807 42
    print(
        module.add_i32(2**31 - 1, -(2**31)),
        module.add_i64(2**62, 2**62 - 1),
        module.add_index(40, 2),
    )
    # CHECK: 0.75 1.5 7.5
    print(module.half_f16(1.5), module.id_bf16(1.5), module.mul_f32(2.5, 3))
    # CHECK: 1.4142135623730951
    print(module.sqrt_f64(2.0))
    # CHECK: (-5+10j) 5.0
    print(module.mul_c64(1 + 2j, 3 + 4j), module.abs_c128(3 - 4j))
    # numpy scalars are accepted too.
    # CHECK: 7 2.0
    print(module.add_i64(np.int64(3), np.int32(4)), module.sqrt_f64(np.float32(4.0)))

    # CHECK: ValueError: argument 0 of 'id_i8' (i8): 128 is out of range [-128, 127]
    show_error(module.id_i8, 128)
    # CHECK: ValueError: argument 1 of 'add_i32' (i32): -2147483649 is out of range [-2147483648, 2147483647]
    show_error(module.add_i32, 0, -(2**31) - 1)
    # CHECK: ValueError: argument 0 of 'add_i64' (i64): 9223372036854775808 is out of range
    show_error(module.add_i64, 2**63, 0)
    # CHECK: ValueError: argument 0 of 'id_i1' (i1): 2 is out of range [0, 1]
    show_error(module.id_i1, 2)
    # CHECK: TypeError: argument 0 of 'add_i64' (i64): expected an int, got float
    show_error(module.add_i64, 1.0, 2)
    # CHECK: TypeError: argument 0 of 'mul_f32' (f32): expected a float, got str
    show_error(module.mul_f32, "2", 1.0)
    # CHECK: TypeError: argument 0 of 'sqrt_f64' (f64): expected a float, got complex
    show_error(module.sqrt_f64, 1j)
    # CHECK: TypeError: argument 0 of 'mul_c64' (complex<f32>): expected a complex, got str
    show_error(module.mul_c64, "1j", 1j)
    # CHECK: TypeError: add_i64() takes 2 arguments, got 1 (its type is (i64, i64) -> i64)
    show_error(module.add_i64, 1)
    # CHECK: TypeError: add_i64() takes no keyword arguments
    show_error(lambda: module.add_i64(1, b=2))


run(testScalarTypes)


# CHECK-LABEL: TEST: testModuleApi
def testModuleApi():
    source = """
    func.func @twice(%a: i64) -> i64 {
      %r = arith.addi %a, %a : i64
      return %r : i64
    }
    func.func @engine(%a: i64) -> i64 { return %a : i64 }
    """
    with Context():
        module = Module.parse(source)
        typed = jit(module)
    # CHECK: 42 42
    print(typed.twice(21), typed["twice"](21))
    # A function named like a JitModule attribute is reached by subscript.
    # CHECK: 5 True
    print(typed["engine"](5), isinstance(typed.engine, ExecutionEngine))
    # CHECK: (i64) -> i64 True
    print(typed.signature("twice"), isinstance(typed.signature("twice"), FunctionType))
    # A builtin function (the quickest call into C there is) over its
    # JitFunction.
    # CHECK: twice: jitted function twice(i64) -> i64; <jitted function twice(i64) -> i64>
    print(f"{typed.twice.__name__}: {typed.twice.__doc__}; {typed.twice.__self__!r}")
    # CHECK: KeyError: "the module defines no function 'thrice'; it defines: twice, engine"
    show_error(lambda: typed["thrice"])
    # CHECK: KeyError: "the module has no func.func 'thrice'"
    show_error(typed.signature, "thrice")
    # CHECK: TypeError: jit() takes MLIR text or an mlir.ir.Module, got int
    show_error(jit, 42)

    # A function with types typed calls do not support fails when called.
    mixed = jit(
        """
        func.func @odd(%v: i3) -> i3 { return %v : i3 }
        func.func @one() -> i32 {
          %c = arith.constant 1 : i32
          return %c : i32
        }
        """
    )
    # CHECK: 1
    print(mixed.one())
    # CHECK: TypeError: cannot call 'odd': argument 0 of 'odd' (i3): type i3 is not supported; typed calls support i1, i8, i16, i32, i64, index, f16, bf16, f32, f64, complex<f32>, complex<f64>, memrefs (ranked or unranked) and ranked tensors of those (or of f8 types), and vectors of those but i1
    show_error(lambda: mixed["odd"])

    # The function object keeps its engine alive.
    twice = jit(source).twice
    gc.collect()
    # CHECK: 8
    print(twice(4))


run(testModuleApi)


# CHECK-LABEL: TEST: testMemRefArguments
def testMemRefArguments():
    module = jit(
        """
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
        func.func @sum2d(%x: memref<?x?xf64, strided<[?, ?], offset: ?>>) -> f64 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %n = memref.dim %x, %c0 : memref<?x?xf64, strided<[?, ?], offset: ?>>
          %m = memref.dim %x, %c1 : memref<?x?xf64, strided<[?, ?], offset: ?>>
          %zero = arith.constant 0.0 : f64
          %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> f64 {
            %t = scf.for %j = %c0 to %m step %c1 iter_args(%b = %a) -> f64 {
              %v = memref.load %x[%i, %j] : memref<?x?xf64, strided<[?, ?], offset: ?>>
              %w = arith.addf %b, %v : f64
              scf.yield %w : f64
            }
            scf.yield %t : f64
          }
          return %s : f64
        }
        func.func @corner(%x: memref<3x4xi32>) -> i32 {
          %c2 = arith.constant 2 : index
          %c3 = arith.constant 3 : index
          %v = memref.load %x[%c2, %c3] : memref<3x4xi32>
          return %v : i32
        }
        func.func @at_offset(%x: memref<2xi64, strided<[1], offset: 3>>) -> i64 {
          %c1 = arith.constant 1 : index
          %v = memref.load %x[%c1] : memref<2xi64, strided<[1], offset: 3>>
          return %v : i64
        }
        func.func @first_bf16(%x: memref<?xbf16>) -> bf16 {
          %c0 = arith.constant 0 : index
          %v = memref.load %x[%c0] : memref<?xbf16>
          return %v : bf16
        }
        """
    )
    array = np.arange(6, dtype=np.float32)
    module.scale(array, 2.0)
    # CHECK: [ 0.  2.  4.  6.  8. 10.]
    print(array)
    # A strided view of a strided layout is passed without copying.
    matrix = np.arange(20, dtype=np.float64).reshape(4, 5)
    view = matrix[1:, ::2]
    # CHECK: 108.0 108.0
    print(module.sum2d(view), view.sum())
    # CHECK: 34.0 34.0
    print(module.sum2d(matrix.T[1:2]), matrix.T[1:2].sum())
    # CHECK: 11
    print(module.corner(np.arange(12, dtype=np.int32).reshape(3, 4)))
    # A static offset: the array is the memref's data from that offset on.
    # CHECK: 8
    print(module.at_offset(np.array([7, 8], dtype=np.int64)))
    # CHECK: 2.5
    print(module.first_bf16(np.array([2.5, 1.0], dtype=ml_dtypes.bfloat16)))

    # CHECK: TypeError: argument 0 of 'scale' (memref<?xf32>): expected a numpy array, got list
    show_error(module.scale, [1.0, 2.0], 1.0)
    # CHECK: TypeError: argument 0 of 'scale' (memref<?xf32>): expected an array of dtype float32, got dtype float64
    show_error(module.scale, np.zeros(3), 1.0)
    # CHECK: ValueError: argument 0 of 'scale' (memref<?xf32>): expected an array of rank 1, got shape (2, 2)
    show_error(module.scale, np.zeros((2, 2), np.float32), 1.0)
    # CHECK: ValueError: argument 0 of 'corner' (memref<3x4xi32>): dimension 1 must be 4, got shape (3, 5)
    show_error(module.corner, np.zeros((3, 5), np.int32))
    # CHECK: ValueError: argument 0 of 'scale' (memref<?xf32>): the memref type fixes the stride of dimension 0 to 1 elements, the array's is 2; pass np.ascontiguousarray(array) or give the parameter a strided layout with dynamic strides
    show_error(module.scale, np.zeros(6, np.float32)[::2], 1.0)


run(testMemRefArguments)


# CHECK-LABEL: TEST: testMemRefResults
def testMemRefResults():
    module = jit(
        """
        func.func @iota(%n: index) -> memref<?xf64> {
          %m = memref.alloc(%n) : memref<?xf64>
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          scf.for %i = %c0 to %n step %c1 {
            %k = arith.index_cast %i : index to i64
            %f = arith.sitofp %k : i64 to f64
            memref.store %f, %m[%i] : memref<?xf64>
          }
          return %m : memref<?xf64>
        }
        func.func @same(%x: memref<?xi32>) -> memref<?xi32> { return %x : memref<?xi32> }
        memref.global "private" constant @table : memref<3xi32> = dense<[7, 8, 9]>
        func.func @get_table() -> memref<3xi32> {
          %t = memref.get_global @table : memref<3xi32>
          return %t : memref<3xi32>
        }
        """
    )
    # CHECK: [0. 1. 2. 3. 4.] True
    result = module.iota(5)
    print(result, result.flags.writeable)
    # Returning an argument gives a view of it.
    array = np.arange(3, dtype=np.int32)
    same = module.same(array)
    same[0] = 42
    # CHECK: [42  1  2]
    print(array)
    # A global is the module's memory: the array keeps the module alive.
    table = module.get_table()
    del module
    gc.collect()
    # CHECK: [7 8 9]
    print(table)

    # Several results; one allocation returned twice is freed once.
    module = jit(
        """
        func.func @pair(%n: index) -> (memref<?xf64>, i64, memref<?xf64>) {
          %m = memref.alloc(%n) : memref<?xf64>
          %k = arith.constant 3 : i64
          return %m, %k, %m : memref<?xf64>, i64, memref<?xf64>
        }
        func.func @big(%n: index) -> memref<?xf64> {
          %m = memref.alloc(%n) : memref<?xf64>
          return %m : memref<?xf64>
        }
        """
    )
    a, k, b = module.pair(4)
    # CHECK: 4 3 True
    print(len(a), k, np.shares_memory(a, b))
    del a, b

    # Returned memory is freed with the array: the heap does not grow over
    # 10,000 calls of 64 KiB each (640 MiB if it leaked), counted by malloc.
    for _ in range(100):
        module.big(8192)
    gc.collect()
    before = heap_bytes_in_use()
    for _ in range(10_000):
        module.big(8192)
    gc.collect()
    growth = heap_bytes_in_use() - before
    # CHECK: heap growth under 4 MiB: True
    print("heap growth under 4 MiB:", growth < 4 * 2**20, "" if growth < 4 * 2**20 else growth)
    # Kept alive, the arrays are counted: the measure sees what it should.
    before = heap_bytes_in_use()
    kept = [module.big(8192) for _ in range(100)]
    # CHECK: 100 arrays of 64 KiB counted: True
    print("100 arrays of 64 KiB counted:", heap_bytes_in_use() - before >= 100 * 65536)
    del kept


run(testMemRefResults)


# CHECK-LABEL: TEST: testMultipleResults
def testMultipleResults():
    module = jit(
        """
        func.func @divmod(%a: i64, %b: i64) -> (i64, i64, f64) {
          %q = arith.divsi %a, %b : i64
          %r = arith.remsi %a, %b : i64
          %fa = arith.sitofp %a : i64 to f64
          %fb = arith.sitofp %b : i64 to f64
          %f = arith.divf %fa, %fb : f64
          return %q, %r, %f : i64, i64, f64
        }
        func.func @nothing() { return }
        """
    )
    # CHECK: (3, 2, 3.5) None
    print(module.divmod(14, 4), module.nothing())


run(testMultipleResults)


# Jitted code that rounds to bf16 runs on any CPU: where the CPU has no bf16
# conversion, LLVM calls __truncsfbf2/__truncdfbf2, which the engine provides
# when the process lacks them. Rounding is IEEE's: once, to nearest even,
# subnormals kept (where the CPU has AVX512-BF16, whose conversion flushes
# them to zero, DEFAULT_PIPELINE rounds with integer code instead).
# CHECK-LABEL: TEST: testBF16Rounding
def testBF16Rounding():
    source = """
        func.func @from_{t}(%x: memref<?x{t}>, %y: memref<?xbf16>) {{
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %n = memref.dim %x, %c0 : memref<?x{t}>
          scf.for %i = %c0 to %n step %c1 {{
            %v = memref.load %x[%i] : memref<?x{t}>
            %t = arith.truncf %v : {t} to bf16
            memref.store %t, %y[%i] : memref<?xbf16>
          }}
          return
        }}
        """
    module = jit(source.format(t="f32") + source.format(t="f64"))
    # Ties to even (1 + 2**-8 and 1 + 3 * 2**-8), just above a tie (where
    # rounding through f32 first would land on the tie and round wrongly),
    # overflow to infinity, subnormals, signed zeros, infinities and NaN.
    values = [
        1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-40, -(1 + 2**-8 + 2**-40),
        3.4e38, 3.3961e38, 1e-40, -1e-45, -0.0, np.inf, -np.inf, np.nan,
        0.1, 2.5, 1e10, -7.0,
    ]  # fmt: skip
    for name, dtype in [("from_f32", np.float32), ("from_f64", np.float64)]:
        x = np.array(values, dtype=dtype)
        y = np.zeros(len(values), dtype=ml_dtypes.bfloat16)
        module[name](x, y)
        expected = x.astype(ml_dtypes.bfloat16)
        if dtype == np.float64:
            # ml_dtypes rounds f64 through f32, twice: above the tie, IEEE
            # rounds up.
            expected[2:4] = [1 + 2**-7, -(1 + 2**-7)]
        same = (y.view(np.uint16) == expected.view(np.uint16)) | (
            np.isnan(y.astype(np.float32)) & np.isnan(expected.astype(np.float32))
        )
        print(name, "matches numpy:", bool(same.all()), y[~same], expected[~same])


# CHECK: from_f32 matches numpy: True [] []
# CHECK: from_f64 matches numpy: True [] []
run(testBF16Rounding)


# From x86's 80-bit and from 128-bit floats too (__truncxfbf2,
# __trunctfbf2, which gcc 12's libgcc lacks), rounding once: just above and
# below a tie, 2**-60 away, where rounding through f64 first would land on
# the tie. Bits are passed as they are (ctypes' c_longdouble takes a float).
# CHECK-LABEL: TEST: testBF16RoundingFromWideFloats
def testBF16RoundingFromWideFloats():
    module = Module.parse(
        """
        llvm.func @from_f80(%a: f80) -> i16 {
          %r = llvm.fptrunc %a : f80 to bf16
          %b = llvm.bitcast %r : bf16 to i16
          llvm.return %b : i16
        }
        llvm.func @from_f128(%a: f128) -> i16 {
          %r = llvm.fptrunc %a : f128 to bf16
          %b = llvm.bitcast %r : bf16 to i16
          llvm.return %b : i16
        }""",
        Context(),
    )
    engine = ExecutionEngine(module)

    def call(name, operand_address):
        """`name`'s packed wrapper: pointers to the operand and the result."""
        packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup(name))
        result = ctypes.c_uint16()
        packed((ctypes.c_void_p * 2)(operand_address, ctypes.addressof(result)))
        return hex(result.value)

    one, tie, tiny = np.longdouble(1), np.longdouble(2) ** -8, np.longdouble(2) ** -60
    values = [one + tie, one + tie + tiny, one + tie - tiny, -(one + tie + tiny), -2.5]
    operands = [np.array([value], dtype=np.longdouble) for value in values]
    print("from_f80:", [call("from_f80", operand.ctypes.data) for operand in operands])
    # An f128 with bits below f64's: 1 + 2**-8 + 2**-100, just above the tie.
    wide = (ctypes.c_uint64 * 2)(1 << 12, 0x3FFF << 48 | 1 << 40)
    print("from_f128:", call("from_f128", ctypes.addressof(wide)))


# CHECK: from_f80: ['0x3f80', '0x3f81', '0x3f80', '0xbf81', '0xc020']
# CHECK: from_f128: 0x3f81
run(testBF16RoundingFromWideFloats)


# Wrong arguments raise before any native code runs: the jitted code would
# call the callback and write its first argument.
# CHECK-LABEL: TEST: testErrorsBeforeNativeCode
def testErrorsBeforeNativeCode():
    module = jit(
        """
        func.func private @note(f64) -> f64
        func.func @fill(%out: memref<?xf64>, %v: f64, %n: i32) {
          %c0 = arith.constant 0 : index
          %r = func.call @note(%v) : (f64) -> f64
          memref.store %r, %out[%c0] : memref<?xf64>
          return
        }
        """
    )
    calls = []
    module.register("note", lambda v: calls.append(v) or v)
    out = np.full(2, -1.0)
    # CHECK: TypeError: argument 2 of 'fill' (i32): expected an int, got str
    show_error(module.fill, out, 5.0, "3")
    # CHECK: ValueError: argument 2 of 'fill' (i32): 4294967296 is out of range
    show_error(module.fill, out, 5.0, 2**32)
    # CHECK: TypeError: fill() takes 3 arguments, got 4
    show_error(module.fill, out, 5.0, 3, 4)
    # CHECK: callback calls: [], out: [-1. -1.]
    print(f"callback calls: {calls}, out: {out}")
    module.fill(out, 5.0, 3)
    # CHECK: callback calls: [5.0], out: [ 5. -1.]
    print(f"callback calls: {calls}, out: {out}")


run(testErrorsBeforeNativeCode)


# jit()'s options: pipeline, shared_libs (above), context.
# CHECK-LABEL: TEST: testJitOptions
def testJitOptions():
    loop = """
        func.func @count(%n: index) -> index {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
            %t = arith.addi %a, %c1 : index
            scf.yield %t : index
          }
          return %r : index
        }
        """
    # A pipeline of one's own is the one run: one that does not lower scf
    # leaves the module untranslatable.
    pipeline = (
        "builtin.module(convert-scf-to-cf,convert-func-to-llvm,convert-arith-to-llvm,"
        "convert-cf-to-llvm,reconcile-unrealized-casts)"
    )
    # CHECK: own pipeline: 5
    print("own pipeline:", jit(loop, pipeline=pipeline).count(5))
    no_scf = "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)"
    print("pipeline without scf: ", end="")
    # CHECK: pipeline without scf: RuntimeError: Failure while creating the ExecutionEngine. could not convert to LLVM IR
    show_error(lambda: jit(loop, pipeline=no_scf).count(5))

    # context: the module is parsed in it, and its types belong to it.
    context = Context()
    module = jit(loop, context=context)
    # CHECK: in the given context: True 3
    print("in the given context:", module.signature("count").context is context, module.count(3))
    with Context():
        other = Module.parse(loop)
    # CHECK: ValueError: the module belongs to another Context than `context`
    show_error(jit, other, context=context)


run(testJitOptions)


# Memrefs of f8 types in typed calls: ml_dtypes arrays, passed without
# copying, in and out of jitted code and to callbacks as numpy views. (LLVM
# has no f8 arithmetic: the code moves the values.)
# CHECK-LABEL: TEST: testF8MemRefs
def testF8MemRefs():
    source = """
        func.func private @see_{t}(memref<?x{t}>)
        func.func @reverse_{t}(%x: memref<?x{t}>, %y: memref<?x{t}>) {{
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %n = memref.dim %x, %c0 : memref<?x{t}>
          %last = arith.subi %n, %c1 : index
          scf.for %i = %c0 to %n step %c1 {{
            %v = memref.load %x[%i] : memref<?x{t}>
            %j = arith.subi %last, %i : index
            memref.store %v, %y[%j] : memref<?x{t}>
          }}
          func.call @see_{t}(%y) : (memref<?x{t}>) -> ()
          return
        }}
        """
    types = {"f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FN": ml_dtypes.float8_e4m3fn}
    module = jit("".join(source.format(t=t) for t in types))
    seen = []
    for t in types:
        module.register("see_" + t, lambda view: seen.append((view.dtype.name, view.tolist())))
    for t, dtype in types.items():
        x = np.array([1.5, -2.0, 0.25, 448.0], dtype=dtype)
        y = np.zeros(len(x), dtype)
        module["reverse_" + t](x, y)
        print(t, [float(v) for v in y], seen[-1][0], [float(v) for v in seen[-1][1]])
    # CHECK: f8E5M2 [448.0, 0.25, -2.0, 1.5] float8_e5m2 [448.0, 0.25, -2.0, 1.5]
    # CHECK: f8E4M3FN [448.0, 0.25, -2.0, 1.5] float8_e4m3fn [448.0, 0.25, -2.0, 1.5]
    # CHECK: TypeError: argument 0 of 'reverse_f8E5M2' (memref<?xf8E5M2>): expected an array of dtype float8_e5m2, got dtype float8_e4m3fn
    show_error(
        module.reverse_f8E5M2,
        np.zeros(1, ml_dtypes.float8_e4m3fn),
        np.zeros(1, ml_dtypes.float8_e5m2),
    )


run(testF8MemRefs)
