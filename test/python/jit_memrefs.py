# RUN: %PYTHON %s 2>%t.stderr | FileCheck %s
# Nothing on stderr but, under --config=asan, its warnings that allocations
# too large failed (as they must).
# RUN: sed '/AddressSanitizer failed to allocate/d' %t.stderr | FileCheck --allow-empty --check-prefix=STDERR %s
# STDERR-NOT: {{.}}
#
# Memrefs and vectors through jit(): linalg, affine and vector code on memref
# arguments lowered by DEFAULT_PIPELINE, memref.copy of strided views
# (memrefCopy, which jit() provides), vectors passed by value, and callbacks
# that return memrefs (tensors are in jit_tensors.py).

import gc

import numpy as np

from mlir.execution_engine import DEFAULT_PIPELINE, jit
from mlir.ir import Context

from fixtures import show_error


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()


# CHECK-LABEL: TEST: testLinalgAffineVectorOnMemRefs
def testLinalgAffineVectorOnMemRefs():
    module = jit(
        """
        func.func @matmul(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
          linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>)
                        outs(%c : memref<?x?xf64>)
          return
        }
        func.func @double(%m: memref<8xi32>) {
          affine.for %i = 0 to 8 {
            %v = affine.load %m[%i] : memref<8xi32>
            %w = arith.addi %v, %v : i32
            affine.store %w, %m[%i] : memref<8xi32>
          }
          return
        }
        // A vector of 8 read at %i (padded with 0 past the end), summed.
        func.func @sum8(%m: memref<?xf32>, %i: index) -> f32 {
          %pad = arith.constant 0.0 : f32
          %v = vector.transfer_read %m[%i], %pad : memref<?xf32>, vector<8xf32>
          %d = arith.mulf %v, %v : vector<8xf32>
          %s = vector.reduction <add>, %d : vector<8xf32> into f32
          return %s : f32
        }
        // A module that frees its own memory is not bufferized (the
        // deallocation pass would refuse memref.dealloc).
        func.func @scratch(%n: index) -> index {
          %m = memref.alloc(%n) : memref<?xindex>
          %c0 = arith.constant 0 : index
          memref.store %n, %m[%c0] : memref<?xindex>
          %v = memref.load %m[%c0] : memref<?xindex>
          memref.dealloc %m : memref<?xindex>
          return %v : index
        }
        """
    )
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    b = np.arange(12, dtype=np.float64).reshape(3, 4)
    c = np.zeros((2, 4))
    module.matmul(a, b, c)
    # CHECK: True
    print(np.array_equal(c, a @ b))
    m = np.arange(8, dtype=np.int32)
    module.double(m)
    # CHECK: [ 0  2  4  6  8 10 12 14]
    print(m)
    # CHECK: 140.0 50.0
    print(
        module.sum8(np.arange(8, dtype=np.float32), 0),
        module.sum8(np.arange(6, dtype=np.float32), 3),
    )
    # CHECK: 7
    print(module.scratch(7))


# CHECK-LABEL: TEST: testStridedCopies
def testStridedCopies():
    # memref.copy between non-contiguous memrefs calls memrefCopy, which
    # jit() provides (no runtime library needed).
    module = jit(
        """
        func.func @copy2(%s: memref<?x?xi16, strided<[?, ?], offset: ?>>,
                         %d: memref<?x?xi16, strided<[?, ?], offset: ?>>) {
          memref.copy %s, %d : memref<?x?xi16, strided<[?, ?], offset: ?>>
                            to memref<?x?xi16, strided<[?, ?], offset: ?>>
          return
        }
        func.func @copy0(%s: memref<f64, strided<[], offset: ?>>, %d: memref<f64, strided<[], offset: ?>>) {
          memref.copy %s, %d : memref<f64, strided<[], offset: ?>> to memref<f64, strided<[], offset: ?>>
          return
        }
        """
    )
    source = np.arange(60, dtype=np.int16).reshape(6, 10)
    target = np.zeros((8, 12), np.int16)
    module.copy2(source[::2, 1::3], target[1:7:2, ::-4])
    expected = np.zeros((8, 12), np.int16)
    expected[1:7:2, ::-4] = source[::2, 1::3]
    # CHECK: True
    print(np.array_equal(target, expected))
    # Empty: nothing is copied.
    module.copy2(source[:0], target[:0, :10])
    # Different shapes stop the call (the copy is undefined).
    # CHECK: ValueError: memref.copy from shape (3, 4) to shape (2, 4): the shapes differ
    show_error(module.copy2, source[:3, :4], target[:2, :4])
    scalar = np.zeros((), np.float64)
    module.copy0(np.array(2.5), scalar)
    # CHECK: 2.5
    print(scalar)


# CHECK-LABEL: TEST: testCallbackMemRefResults
def testCallbackMemRefResults():
    # A callback's memref, unranked memref or tensor result is a contiguous
    # copy of the array it returns, in a buffer the jitted code owns: it may
    # return it (the caller's array then owns it) or free it.
    module = jit(
        """
        func.func private @make(index) -> memref<?x?xf32>
        func.func @take(%n: index) -> memref<?x?xf32> {
          %r = func.call @make(%n) : (index) -> memref<?x?xf32>
          return %r : memref<?x?xf32>
        }
        func.func @first_then_free(%n: index) -> f32 {
          %r = func.call @make(%n) : (index) -> memref<?x?xf32>
          %c0 = arith.constant 0 : index
          %v = memref.load %r[%c0, %c0] : memref<?x?xf32>
          memref.dealloc %r : memref<?x?xf32>
          return %v : f32
        }
        func.func private @several() -> (i32, memref<*xi64>, memref<3xf64>)
        func.func @take_several() -> (i32, memref<*xi64>, memref<3xf64>) {
          %a, %b, %c = func.call @several() : () -> (i32, memref<*xi64>, memref<3xf64>)
          return %a, %b, %c : i32, memref<*xi64>, memref<3xf64>
        }
        """
    )
    source = np.arange(12, dtype=np.float32).reshape(3, 4)
    module.register("make", lambda n: source[::-1, 1:][:n])
    returned = []

    @module.callback("several")
    def several():
        returned.append(np.linspace(0, 1, 5)[::2])
        return 7, np.arange(6).reshape(2, 3), returned[-1]

    r = module.take(2)
    # CHECK: {{\[\[}}9.0, 10.0, 11.0], [5.0, 6.0, 7.0]] False
    print(r.tolist(), np.shares_memory(r, source))
    # CHECK: 9.0
    print(module.first_then_free(3))
    number, unranked, ranked = module.take_several()
    # CHECK: 7 {{\[\[}}0, 1, 2], [3, 4, 5]] [0.0, 0.5, 1.0] False
    print(number, unranked.tolist(), ranked.tolist(), np.shares_memory(ranked, returned[0]))

    # Where a raising callback cannot stop the call (here, a pipeline of the
    # user's: the default one with a pass more), the code goes on with a
    # memref of zeros, each dynamic size 1, and the call re-raises.
    unstoppable = jit(
        """
        func.func private @make(index) -> memref<?x?xf32>
        func.func @first_then_free(%n: index) -> f32 {
          %r = func.call @make(%n) : (index) -> memref<?x?xf32>
          %c0 = arith.constant 0 : index
          %v = memref.load %r[%c0, %c0] : memref<?x?xf32>
          memref.dealloc %r : memref<?x?xf32>
          return %v : f32
        }
        """,
        pipeline=DEFAULT_PIPELINE.replace("builtin.module(", "builtin.module(canonicalize,"),
    )

    @unstoppable.callback("make")
    def make(n):
        raise KeyError("no data")

    # CHECK: KeyError: 'no data'
    show_error(unstoppable.first_then_free, 2)

    def refused(value, result_type):
        m = jit(
            f"""
            func.func private @make() -> {result_type}
            func.func @take() -> {result_type} {{
              %r = func.call @make() : () -> {result_type}
              return %r : {result_type}
            }}"""
        )
        m.register("make", lambda: value)
        show_error(m.take)

    # CHECK: ValueError: result 0 of 'make' (memref<4xf32>): dimension 0 must be 4, got shape (5,)
    refused(np.zeros(5, np.float32), "memref<4xf32>")
    # CHECK: TypeError: result 0 of 'make' (memref<4xf32>): expected a numpy array, got list
    refused([1.0, 2.0, 3.0, 4.0], "memref<4xf32>")
    # CHECK: TypeError: result 0 of 'make' (memref<4xf32>): expected an array of dtype float32, got dtype float64
    refused(np.zeros(4), "memref<4xf32>")
    # CHECK: ValueError: result 0 of 'make' (memref<4xf32, strided<[2]>>): a returned array is copied into a contiguous buffer, which this memref type's layout does not describe
    refused(np.zeros(8, np.float32)[::2], "memref<4xf32, strided<[2]>>")


# CHECK-LABEL: TEST: testVectors
def testVectors():
    # Vectors are passed by value: arrays of their shape and dtype in and
    # out (copied), also to and from callbacks.
    module = jit(
        """
        func.func @fma(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>) -> vector<8xf32> {
          %r = vector.fma %a, %b, %c : vector<8xf32>
          return %r : vector<8xf32>
        }
        func.func @rows(%m: vector<2x4xi32>) -> (vector<4xi32>, i32) {
          %r = vector.extract %m[1] : vector<4xi32> from vector<2x4xi32>
          %s = vector.reduction <add>, %r : vector<4xi32> into i32
          return %r, %s : vector<4xi32>, i32
        }
        func.func private @twice(vector<4xf64>) -> vector<4xf64>
        func.func @call_twice(%v: vector<4xf64>) -> vector<4xf64> {
          %r = func.call @twice(%v) : (vector<4xf64>) -> vector<4xf64>
          return %r : vector<4xf64>
        }
        """
    )
    module.register("twice", lambda v: v * 2)
    x = np.arange(8, dtype=np.float32)
    # CHECK: [1.0, 2.0, 5.0, 10.0, 17.0, 26.0, 37.0, 50.0]
    print(module.fma(x, x, np.ones(8, np.float32)).tolist())
    # CHECK: [4, 5, 6, 7] 22
    row, total = module.rows(np.arange(8, dtype=np.int32).reshape(2, 4)[:, ::-1][:, ::-1])
    print(row.tolist(), total)
    # CHECK: [0.0, 2.0, 4.0, 6.0]
    print(module.call_twice(np.arange(4.0)).tolist())
    # CHECK: ValueError: argument 0 of 'fma' (vector<8xf32>): dimension 0 must be 8, got shape (4,)
    show_error(module.fma, x[:4], x, x)
    # CHECK: TypeError: result 0 of 'twice' (vector<4xf64>): expected an array of dtype float64, got dtype float32
    module2 = jit(
        """
        func.func private @twice(vector<4xf64>) -> vector<4xf64>
        func.func @call_twice(%v: vector<4xf64>) -> vector<4xf64> {
          %r = func.call @twice(%v) : (vector<4xf64>) -> vector<4xf64>
          return %r : vector<4xf64>
        }
        """
    )
    module2.register("twice", lambda v: v.astype(np.float32))
    show_error(module2.call_twice, np.arange(4.0))
    # CHECK: TypeError: cannot call 'odd': argument 0 of 'odd' (vector<3xf32>): type vector<3xf32> is not supported: typed calls take vectors whose innermost dimension is a power of two bytes (LLVM pads the others)
    show_error(lambda: jit("func.func @odd(%v: vector<3xf32>) { return }")["odd"])

    # A tensor constant read into a vector: the module is bufferized though
    # no signature or tensor op shows a tensor.
    constant = jit(
        """
        func.func @window(%i: index) -> vector<4xf32> {
          %t = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
          %z = arith.constant 0.0 : f32
          %v = vector.transfer_read %t[%i], %z : tensor<8xf32>, vector<4xf32>
          return %v : vector<4xf32>
        }
        """
    )
    # CHECK: window: [3.0, 4.0, 5.0, 6.0]
    print("window:", constant.window(2).tolist())


run(testLinalgAffineVectorOnMemRefs)
run(testStridedCopies)
run(testCallbackMemRefResults)
run(testVectors)
