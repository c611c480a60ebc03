# RUN: %PYTHON %s | FileCheck %s
#
# Typed calls and callbacks: mlir.execution_engine.jit.

import gc
import threading

import ml_dtypes
import numpy as np

from mlir.execution_engine import ExecutionEngine, JitModule, jit
from mlir.ir import Context, FunctionType, Module


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()


def show_error(fn, *args):
    try:
        fn(*args)
    except Exception as error:
        print(f"{type(error).__name__}: {error}")
    else:
        print("no exception")


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


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
    print(module.add_i32(2**31 - 1, -(2**31)), module.add_i64(2**62, 2**62 - 1), module.add_index(40, 2))
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
    # CHECK: <jitted function twice(i64) -> i64>
    print(repr(typed.twice))
    # CHECK: KeyError: "the module defines no function 'thrice'; it defines: twice, engine"
    show_error(lambda: typed["thrice"])
    # CHECK: KeyError: "the module has no func.func 'thrice'"
    show_error(typed.signature, "thrice")
    # CHECK: TypeError: jit() takes MLIR text or an mlir.ir.Module, got int
    show_error(jit, 42)

    # A function with types typed calls do not support fails when called.
    mixed = jit(
        """
        func.func @vec(%v: vector<4xf32>) -> vector<4xf32> { return %v : vector<4xf32> }
        func.func @one() -> i32 {
          %c = arith.constant 1 : i32
          return %c : i32
        }
        """
    )
    # CHECK: 1
    print(mixed.one())
    # CHECK: TypeError: cannot call 'vec': argument 0 of 'vec' (vector<4xf32>): type vector<4xf32> is not supported; typed calls support i1, i8, i16, i32, i64, index, f16, bf16, f32, f64, complex<f32>, complex<f64> and ranked memrefs of those (or of f8 types)
    show_error(lambda: mixed["vec"])

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

    # Returned memory is freed with the array: no growth over 10,000 calls of
    # 64 KiB each (640 MB if it leaked).
    for _ in range(100):
        module.big(8192)
    before = rss_bytes()
    for _ in range(10_000):
        module.big(8192)
    growth = rss_bytes() - before
    # CHECK: growth under 32 MiB: True
    print("growth under 32 MiB:", growth < 32 * 2**20)


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


CALLBACKS = """
func.func @call_scalar(%a: f32, %b: i32) -> f32 {
  %r = func.call @add_cb(%a, %b) : (f32, i32) -> f32
  return %r : f32
}
func.func private @add_cb(f32, i32) -> f32
func.func @call_array(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> f64 {
  %r = func.call @sum_cb(%x) : (memref<?x?xf32, strided<[?, ?], offset: ?>>) -> f64
  return %r : f64
}
func.func private @sum_cb(memref<?x?xf32, strided<[?, ?], offset: ?>>) -> f64
func.func @call_multi(%a: i64) -> i64 {
  %r:2 = func.call @split_cb(%a) : (i64) -> (i64, complex<f64>)
  %c = complex.re %r#1 : complex<f64>
  %ci = arith.fptosi %c : f64 to i64
  %s = arith.addi %r#0, %ci : i64
  return %s : i64
}
func.func private @split_cb(i64) -> (i64, complex<f64>)
"""


# CHECK-LABEL: TEST: testCallbacks
def testCallbacks():
    module = jit(CALLBACKS)

    @module.callback("add_cb")
    def add_cb(a, b):
        return a + b

    seen = []

    def sum_cb(x):
        seen.append((x.shape, x.strides, x.dtype))
        return float(x.sum())

    module.register("sum_cb", sum_cb)
    module.register("split_cb", lambda a: (a * 10, complex(a, 1)))
    # CHECK: 44.0
    print(module.call_scalar(42.0, 2))
    # The callback sees the caller's view (strides included).
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4)
    # CHECK: 30.0 [((3, 2), (16, 8), dtype('float32'))]
    print(module.call_array(matrix[:, ::2]), seen)
    # CHECK: 77
    print(module.call_multi(7))


run(testCallbacks)


# CHECK-LABEL: TEST: testCallbackErrors
def testCallbackErrors():
    module = jit(CALLBACKS)
    # CHECK: RuntimeError: callbacks declared in the module are not registered: add_cb, sum_cb, split_cb; register them with JitModule.register(name, fn) or @JitModule.callback(name) before the first call
    show_error(module.call_scalar, 1.0, 2)
    # CHECK: ValueError: cannot register callback 'nope': the module declares no func.func private @nope; declared: add_cb, sum_cb, split_cb
    show_error(module.register, "nope", print)
    # CHECK: TypeError: callback 'add_cb' is declared (f32, i32) -> f32: it must accept 2 positional arguments
    show_error(module.register, "add_cb", lambda a: a)
    # CHECK: TypeError: callback 'add_cb' must be callable, got int
    show_error(module.register, "add_cb", 3)
    module.register("add_cb", lambda a, b: a + b)
    # CHECK: RuntimeError: callback 'add_cb' is already registered
    show_error(module.register, "add_cb", lambda a, b: a - b)
    module.register("sum_cb", lambda x: 0.0)
    module.register("split_cb", lambda a: (a, 0j))
    # CHECK: 3.0
    print(module.call_scalar(1.0, 2))
    # CHECK: RuntimeError: cannot register callback 'add_cb': the module was compiled by its first call; register callbacks before calling
    show_error(module.register, "add_cb", lambda a, b: a)

    # A callback with memref results cannot be declared.
    # CHECK: TypeError: callback 'make': results of callbacks must be scalars (() -> memref<2xf32>)
    show_error(jit, "func.func private @make() -> memref<2xf32>")


run(testCallbackErrors)


# CHECK-LABEL: TEST: testCallbackExceptions
def testCallbackExceptions():
    module = jit(CALLBACKS)
    error = KeyError("raised in the callback")
    calls = []

    def add_cb(a, b):
        calls.append(b)
        if b == 13:
            raise error
        return a + b

    module.register("add_cb", add_cb)
    module.register("sum_cb", lambda x: "not a float")
    module.register("split_cb", lambda a: (a, 0j, "one too many"))
    # The same exception object comes out of the call, with its traceback.
    try:
        module.call_scalar(1.0, 13)
    except KeyError as raised:
        # CHECK: same object: True, traceback names the callback: True
        frames = []
        tb = raised.__traceback__
        while tb:
            frames.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        print(f"same object: {raised is error}, traceback names the callback: {'add_cb' in frames}")
    # The module still works afterwards.
    # CHECK: 3.0 [13, 2]
    print(module.call_scalar(1.0, 2), calls)
    # CHECK: TypeError: result 0 of 'sum_cb' (f64): expected a float, got str
    show_error(module.call_array, np.zeros((1, 1), np.float32))
    # CHECK: TypeError: callback 'split_cb' must return a tuple of 2 values, got tuple
    show_error(module.call_multi, 1)


run(testCallbackExceptions)


# CHECK-LABEL: TEST: testThreads
def testThreads():
    module = jit(
        """
        func.func @total(%n: index) -> i64 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %zero = arith.constant 0 : i64
          %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> i64 {
            %k = arith.index_cast %i : index to i64
            %v = func.call @square(%k) : (i64) -> i64
            %t = arith.addi %a, %v : i64
            scf.yield %t : i64
          }
          return %s : i64
        }
        func.func private @square(i64) -> i64
        func.func @scale(%x: memref<?xf64>, %s: f64) -> memref<?xf64> {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %n = memref.dim %x, %c0 : memref<?xf64>
          %r = memref.alloc(%n) : memref<?xf64>
          scf.for %i = %c0 to %n step %c1 {
            %v = memref.load %x[%i] : memref<?xf64>
            %w = arith.mulf %v, %s : f64
            memref.store %w, %r[%i] : memref<?xf64>
          }
          return %r : memref<?xf64>
        }
        """
    )
    module.register("square", lambda k: k * k)
    failures = []

    def work(seed):
        data = np.arange(seed, seed + 50, dtype=np.float64)
        for n in range(200):
            if module.total(n) != sum(k * k for k in range(n)):
                failures.append(("total", seed, n))
            if not np.array_equal(module.scale(data, float(seed)), data * seed):
                failures.append(("scale", seed, n))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    # CHECK: alive: 0, failures: []
    print(f"alive: {sum(t.is_alive() for t in threads)}, failures: {failures}")


run(testThreads)


# Jitted code that rounds to bf16 runs on any CPU: where the CPU has no bf16
# conversion, LLVM calls __truncsfbf2/__truncdfbf2, which the engine provides
# when the process lacks them. Rounding is IEEE's: once, to nearest even.
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
