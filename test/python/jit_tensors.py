# RUN: %PYTHON %s 2>%t.stderr | FileCheck %s
# Nothing on stderr but, under --config=asan, its warnings that allocations
# too large failed (as they must).
# RUN: sed '/AddressSanitizer failed to allocate/d' %t.stderr | FileCheck --allow-empty --check-prefix=STDERR %s
# STDERR-NOT: {{.}}
#
# The kernels people write, through jit(), on tensors at the boundary
# (bufferized by BUFFERIZATION_PIPELINE): elementwise ops, matmuls and
# reductions, the temporaries they free, callbacks taking tensors, misuse,
# and FAST_PIPELINE (memrefs and vectors are in jit_memrefs.py).

import gc

import numpy as np

from mlir.execution_engine import FAST_PIPELINE, jit
from mlir.ir import Context, Module

from fixtures import heap_bytes_in_use, show_error


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()


ELEMENTWISE = """
#map = affine_map<(d0) -> (d0)>
// a * x + y into a new tensor.
func.func @axpy(%a: f32, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    %s = arith.addf %m, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// y += x, written into y's tensor: bufferization copies y (a value).
func.func @accumulate(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %s = arith.addf %xi, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// The same, but y is declared writable: its array is updated in place.
func.func @accumulate_in_place(%x: tensor<?xf32>,
                               %y: tensor<?xf32> {bufferization.writable = true}) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %s = arith.addf %xi, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


# CHECK-LABEL: TEST: testResultsThatAreArguments
def testResultsThatAreArguments():
    # A result that is an argument, or a slice of one, is a view of the
    # argument's array (read-only if it is); a new tensor owns new memory.
    module = jit(
        """
        func.func @same(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
          %c0 = arith.constant 0 : index
          %n = tensor.dim %x, %c0 : tensor<?xf32>
          %e = tensor.empty(%n) : tensor<?xf32>
          return %x, %x, %e : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
        }
        func.func @tail(%x: tensor<?xf32>) -> tensor<?xf32> {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %n = tensor.dim %x, %c0 : tensor<?xf32>
          %m = arith.subi %n, %c1 : index
          %s = tensor.extract_slice %x[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
          return %s : tensor<?xf32>
        }
        """
    )
    x = np.arange(10, dtype=np.float32)[::2]
    a, b, new = module.same(x)
    # CHECK: True True False True
    print(
        np.shares_memory(a, x), np.shares_memory(b, x), np.shares_memory(new, x), a.flags.writeable
    )
    frozen = np.arange(4, dtype=np.float32)
    frozen.flags.writeable = False
    tail = module.tail(frozen)
    # CHECK: [1.0, 2.0, 3.0] True False
    print(tail.tolist(), np.shares_memory(tail, frozen), tail.flags.writeable)
    before = heap_bytes_in_use()
    for _ in range(1000):
        module.same(x)
        module.tail(frozen)
    # CHECK: no leak: True
    print("no leak:", heap_bytes_in_use() - before < 1 << 20)

    # A function the module calls keeps returning copies: its caller frees
    # what the call returns (a view of the caller's array was freed, an
    # abort in free()).
    calls = jit(
        """
        func.func @slice(%x: tensor<4xf32>) -> tensor<2xf32> {
          %s = tensor.extract_slice %x[1] [2] [1] : tensor<4xf32> to tensor<2xf32>
          return %s : tensor<2xf32>
        }
        func.func @second(%x: tensor<4xf32>) -> f32 {
          %c0 = arith.constant 0 : index
          %s = func.call @slice(%x) : (tensor<4xf32>) -> tensor<2xf32>
          %v = tensor.extract %s[%c0] : tensor<2xf32>
          return %v : f32
        }
        """
    )
    y = np.arange(8, dtype=np.float32)[2:6]
    # CHECK: called: 3.0 3.0 [2.0, 3.0, 4.0, 5.0]
    print("called:", calls.second(y), calls.second(y), y.tolist())
    # Called from Python too, it returns a copy there as well.
    # CHECK: copy: [3.0, 4.0] False
    print("copy:", calls.slice(y).tolist(), np.shares_memory(calls.slice(y), y))


# CHECK-LABEL: TEST: testReturnedArgumentsUnderEveryPipeline
def testReturnedArgumentsUnderEveryPipeline():
    # An argument returned through a tensor.cast (static to dynamic or back)
    # or a slice of constant sizes is a view of the caller's array under
    # every pipeline (the deallocation pass's clone changed the type, and
    # was removed whole: an invalid return).
    source = """
    func.func @to_dynamic(%a: tensor<4x4xf32>) -> tensor<?x?xf32> {
      %r = tensor.cast %a : tensor<4x4xf32> to tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }
    func.func @to_static(%a: tensor<?x?xf32>) -> tensor<4x4xf32> {
      %r = tensor.cast %a : tensor<?x?xf32> to tensor<4x4xf32>
      return %r : tensor<4x4xf32>
    }
    func.func @slice(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
      %r = tensor.extract_slice %a[1, 2] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
      return %r : tensor<4x4xf32>
    }
    func.func @slice_to_dynamic(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %s = tensor.extract_slice %a[1, 2] [4, 4] [1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
      %r = tensor.cast %s : tensor<4x4xf32> to tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }
    """
    square = np.arange(16, dtype=np.float32).reshape(4, 4)
    big = np.arange(64, dtype=np.float32).reshape(8, 8)
    calls = [
        ("to_dynamic", square),
        ("to_static", square),
        ("slice", big),
        ("slice_to_dynamic", big),
    ]
    # CHECK: default: to_dynamic view True, to_static view True, slice view True, slice_to_dynamic view True
    # CHECK: fast: to_dynamic view True, to_static view True, slice view True, slice_to_dynamic view True
    for name, pipeline in [("default", None), ("fast", FAST_PIPELINE)]:
        module = jit(source, pipeline=pipeline)
        seen = []
        for function, array in calls:
            result = getattr(module, function)(array)
            expected = array[1:5, 2:6] if array is big else array
            assert (result == expected).all(), (name, function, result)
            seen.append(f"{function} view {np.shares_memory(result, array)}")
        print(f"{name}:", ", ".join(seen))


# CHECK-LABEL: TEST: testElementwiseOnTensors
def testElementwiseOnTensors():
    module = jit(ELEMENTWISE)
    x = np.arange(6, dtype=np.float32)
    y = np.full(6, 10, np.float32)
    r = module.axpy(2.0, x, y)
    # The result owns new memory; the arguments are unchanged.
    # CHECK: [10. 12. 14. 16. 18. 20.] True True
    print(r, r.flags.writeable, not np.shares_memory(r, x) and not np.shares_memory(r, y))
    # CHECK: [0. 1. 2. 3. 4. 5.] [10. 10. 10. 10. 10. 10.]
    print(x, y)
    # Views with strides and offsets, in either direction.
    big = np.arange(24, dtype=np.float32)
    expected = 3 * big[1::4] + big[::-4]
    # CHECK: True
    print(np.array_equal(module.axpy(3.0, big[1::4], big[::-4]), expected))
    # A tensor is a value: read-only arrays may be passed.
    frozen = np.arange(6, dtype=np.float32)
    frozen.flags.writeable = False
    # CHECK: [ 0.  3.  6.  9. 12. 15.]
    print(module.axpy(2.0, frozen, frozen))
    # Writing into an argument's tensor copies it first.
    # CHECK: [10. 11. 12. 13. 14. 15.] [10. 10. 10. 10. 10. 10.]
    print(module.accumulate(x, y), y)
    # CHECK: [ 0.  2.  4.  6.  8. 10.]
    print(module.accumulate(frozen, frozen))
    # Unless the argument says it may be written: then its array is.
    r = module.accumulate_in_place(x, y)
    # CHECK: [10. 11. 12. 13. 14. 15.] [10. 11. 12. 13. 14. 15.]
    print(r, y)
    # CHECK: ValueError: argument 1 of 'accumulate_in_place' (tensor<?xf32>): the array is read-only and the function may write to it
    show_error(module.accumulate_in_place, x, frozen)
    # CHECK: TypeError: argument 2 of 'axpy' (tensor<?xf32>): expected a numpy array, got list
    show_error(module.axpy, 1.0, x, [1.0])


# CHECK-LABEL: TEST: testMatmulAndReductions
def testMatmulAndReductions():
    module = jit(
        """
        #id = affine_map<(d0, d1) -> (d0, d1)>
        #row = affine_map<(d0, d1) -> (d0)>
        func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %m = tensor.dim %a, %c0 : tensor<?x?xf32>
          %n = tensor.dim %b, %c1 : tensor<?x?xf32>
          %zero = arith.constant 0.0 : f32
          %e = tensor.empty(%m, %n) : tensor<?x?xf32>
          %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
          %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                             outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
          return %r : tensor<?x?xf32>
        }
        // Row sums and the total: two results, one of them a 0-d tensor.
        func.func @sums(%a: tensor<3x4xi64>) -> (tensor<3xi64>, tensor<i64>) {
          %zero = arith.constant 0 : i64
          %e = tensor.empty() : tensor<3xi64>
          %f = linalg.fill ins(%zero : i64) outs(%e : tensor<3xi64>) -> tensor<3xi64>
          %rows = linalg.generic {indexing_maps = [#id, #row],
                                  iterator_types = ["parallel", "reduction"]}
              ins(%a : tensor<3x4xi64>) outs(%f : tensor<3xi64>) {
          ^bb0(%ai: i64, %acc: i64):
            %s = arith.addi %ai, %acc : i64
            linalg.yield %s : i64
          } -> tensor<3xi64>
          %e0 = tensor.empty() : tensor<i64>
          %f0 = linalg.fill ins(%zero : i64) outs(%e0 : tensor<i64>) -> tensor<i64>
          %total = linalg.reduce ins(%rows : tensor<3xi64>) outs(%f0 : tensor<i64>) dimensions = [0]
            (%in: i64, %acc: i64) {
              %s = arith.addi %in, %acc : i64
              linalg.yield %s : i64
            }
          return %rows, %total : tensor<3xi64>, tensor<i64>
        }
        """
    )
    rng = np.random.default_rng(0)
    # Small integers: float32 sums of their products are exact.
    a = rng.integers(-8, 8, (5, 7)).astype(np.float32)
    b = rng.integers(-8, 8, (7, 3)).astype(np.float32)
    # CHECK: True True True
    print(
        np.array_equal(module.matmul(a, b), a @ b),
        np.array_equal(module.matmul(np.asfortranarray(a), b), a @ b),
        np.array_equal(module.matmul(b.T, a.T), (a @ b).T),
    )
    # CHECK: (5, 0) (0, 3)
    print(
        module.matmul(np.ones((5, 0), np.float32), np.ones((0, 0), np.float32)).shape,
        module.matmul(np.ones((0, 4), np.float32), np.ones((4, 3), np.float32)).shape,
    )
    rows, total = module.sums(np.arange(12).reshape(3, 4))
    # CHECK: [ 6 22 38] 66 ()
    print(rows, total, total.shape)
    # CHECK: ValueError: argument 0 of 'sums' (tensor<3x4xi64>): dimension 0 must be 3, got shape (4, 3)
    show_error(module.sums, np.zeros((4, 3), np.int64))


# CHECK-LABEL: TEST: testTemporariesAreFreed
def testTemporariesAreFreed():
    # Each call allocates a temporary of 4 MB and a result: the deallocation
    # pass frees the temporary, and the result is freed with its array.
    module = jit(
        """
        #map = affine_map<(d0) -> (d0)>
        func.func @twice_squared(%x: tensor<?xf32>) -> f32 {
          %c0 = arith.constant 0 : index
          %n = tensor.dim %x, %c0 : tensor<?xf32>
          %e = tensor.empty(%n) : tensor<?xf32>
          %sq = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
              ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
          ^bb0(%xi: f32, %o: f32):
            %m = arith.mulf %xi, %xi : f32
            linalg.yield %m : f32
          } -> tensor<?xf32>
          %e2 = tensor.empty(%n) : tensor<?xf32>
          %tw = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
              ins(%sq : tensor<?xf32>) outs(%e2 : tensor<?xf32>) {
          ^bb0(%si: f32, %o: f32):
            %m = arith.addf %si, %si : f32
            linalg.yield %m : f32
          } -> tensor<?xf32>
          %r = tensor.extract %tw[%c0] : tensor<?xf32>
          return %r : f32
        }
        """
    )
    x = np.full(1 << 20, 3, np.float32)
    module.twice_squared(x)
    before = heap_bytes_in_use()
    for _ in range(100):
        value = module.twice_squared(x)
    grown = heap_bytes_in_use() - before
    # CHECK: 18.0 True
    print(value, grown < 4 << 20)


# CHECK-LABEL: TEST: testTensorCallbacks
def testTensorCallbacks():
    module = jit(
        """
        func.func private @observe(tensor<?xf32>) -> f32
        func.func @f(%x: tensor<?xf32>) -> f32 {
          %r = func.call @observe(%x) : (tensor<?xf32>) -> f32
          return %r : f32
        }
        """
    )
    seen = []

    @module.callback("observe")
    def observe(view):
        seen.append((view.tolist(), view.flags.writeable))
        return float(view.sum())

    # The callback sees the tensor as a read-only array.
    # CHECK: 6.0 [([1.0, 2.0, 3.0], False)]
    print(module.f(np.array([1, 2, 3], np.float32)), seen)


# CHECK-LABEL: TEST: testMisuse
def testMisuse():
    # A memref of the identity layout is contiguous rows: an array with gaps
    # between its rows is refused (copies would be wrong).
    flat = jit(
        """
        func.func @at5(%a: memref<?x?xf32>) -> f32 {
          %c = memref.collapse_shape %a [[0, 1]] : memref<?x?xf32> into memref<?xf32>
          %i = arith.constant 5 : index
          %v = memref.load %c[%i] : memref<?xf32>
          return %v : f32
        }
        """
    )
    rows = np.arange(32, dtype=np.float32).reshape(4, 8)
    # CHECK: 5.0
    print(flat.at5(rows))
    # CHECK: ValueError: argument 0 of 'at5' (memref<?x?xf32>): the memref type's identity layout means contiguous rows, which the array's are not
    show_error(flat.at5, rows[:, :4])
    # CHECK: ValueError: argument 0 of 'at5' (memref<?x?xf32>): the memref type's identity layout means contiguous rows
    show_error(flat.at5, rows[::2])

    # An argument both read-only and writable is refused.
    # CHECK: TypeError: cannot call 'w': argument 0 of 'w' (tensor<?xi8>): declared both llvm.readonly and bufferization.writable = true; declare one
    show_error(
        lambda: jit(
            """
            func.func @w(%x: tensor<?xi8> {llvm.readonly, bufferization.writable = true}) -> tensor<?xi8> {
              return %x : tensor<?xi8>
            }
            """
        )["w"]
    )

    # A tensor written in place must not share memory with another argument
    # (bufferization assumed so: the result would be wrong).
    in_place = jit(ELEMENTWISE)
    y = np.arange(4, dtype=np.float32)
    # CHECK: ValueError: argument 1 of 'accumulate_in_place' (tensor<?xf32>): shares memory with argument 0; the function writes it in place (bufferization.writable = true), assuming no other argument does: pass a copy
    show_error(in_place.accumulate_in_place, y[::-1], y)
    # CHECK: [3.0, 3.0, 3.0, 3.0]
    print(in_place.accumulate_in_place(y[::-1].copy(), y).tolist())

    # What crashes LLVM 22's lowering is refused first.
    # CHECK: ValueError: tensor.expand_shape with two dynamic sizes in one group of dimensions (here {{\[\[}}0, 1]]) crashes LLVM 22's expand-strided-metadata pass
    show_error(
        jit,
        """
        func.func @e(%x: tensor<?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
          %r = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b]
              : tensor<?xf32> into tensor<?x?xf32>
          return %r : tensor<?x?xf32>
        }
        """,
    )


# CHECK-LABEL: TEST: testFailedAllocations
def testFailedAllocations():
    # An allocation that fails stops the call with MemoryError (a size no
    # machine has, or the copy of a huge broadcast view bufferization makes).
    module = jit(
        """
        func.func @filled(%n: index) -> tensor<?xf32> {
          %e = tensor.empty(%n) : tensor<?xf32>
          %one = arith.constant 1.0 : f32
          %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
          return %f : tensor<?xf32>
        }
        func.func @set_first(%x: tensor<?xf32>, %v: f32) -> tensor<?xf32> {
          %c0 = arith.constant 0 : index
          %r = tensor.insert %v into %x[%c0] : tensor<?xf32>
          return %r : tensor<?xf32>
        }
        """
    )
    # CHECK: MemoryError: jitted code could not allocate 46116860184273879{{[0-9]+}} bytes (a memref.alloc or a buffer bufferization made)
    show_error(module.filled, 1 << 60)
    # CHECK: MemoryError: jitted code could not allocate 43980465111{{[0-9]+}} bytes
    show_error(module.set_first, np.broadcast_to(np.float32(1), (1 << 40,)), 2.0)
    # CHECK: [2.0, 1.0]
    print(module.set_first(np.ones(2, np.float32), 2.0).tolist())

    # A callback's array too large to copy says so.
    huge = jit(
        """
        func.func private @make() -> memref<?xf32>
        func.func @take() -> memref<?xf32> {
          %r = func.call @make() : () -> memref<?xf32>
          return %r : memref<?xf32>
        }
        """
    )
    huge.register("make", lambda: np.broadcast_to(np.float32(1), (1 << 60,)))
    # CHECK: MemoryError: result 0 of 'make' (memref<?xf32>): cannot allocate 4611686018427387904 bytes for a copy of the returned array
    show_error(huge.take)

    # A raising callback that stops a call leaves no buffer behind (its
    # memref result is never made).
    stopped = jit(
        """
        func.func private @chunk() -> memref<1048576xf32>
        func.func @first() -> f32 {
          %t = func.call @chunk() : () -> memref<1048576xf32>
          %c0 = arith.constant 0 : index
          %v = memref.load %t[%c0] : memref<1048576xf32>
          memref.dealloc %t : memref<1048576xf32>
          return %v : f32
        }
        """
    )

    @stopped.callback("chunk")
    def chunk():
        raise RuntimeError("no data")

    show_error(stopped.first)
    before = heap_bytes_in_use()
    for _ in range(50):
        try:
            stopped.first()
        except RuntimeError:
            pass
    # CHECK: leaked less than a buffer: True
    print("leaked less than a buffer:", heap_bytes_in_use() - before < 4 << 20)


MATMUL = """
func.func @matmul(%a: tensor<?x?xT>, %b: tensor<?x?xT>, %c: tensor<?x?xT>) -> tensor<?x?xT> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xT>, tensor<?x?xT>)
                     outs(%c : tensor<?x?xT>) -> tensor<?x?xT>
  return %r : tensor<?x?xT>
}
"""


# CHECK-LABEL: TEST: testFastPipeline
def testFastPipeline():
    # FAST_PIPELINE tiles, pads and vectorizes linalg.matmul on tensors: the
    # results are those of DEFAULT_PIPELINE's loops for every shape (tiles
    # cut by the edges, empty and 1x1 ones), every layout and element type.
    rng = np.random.default_rng(1)
    for element, dtype in [("f32", np.float32), ("f64", np.float64), ("i32", np.int32)]:
        fast = jit(MATMUL.replace("T", element), pipeline=FAST_PIPELINE)
        agree = True
        for m, n, k in [(1, 1, 1), (5, 7, 3), (0, 4, 4), (4, 0, 4), (4, 4, 0), (65, 129, 1025)]:
            # Small integers: every product and sum is exact in each type.
            a = rng.integers(-4, 4, (m, k)).astype(dtype)
            b = rng.integers(-4, 4, (k, n)).astype(dtype)
            c = rng.integers(-4, 4, (m, n)).astype(dtype)
            expected = a @ b + c
            agree &= np.array_equal(fast.matmul(a, b, c), expected)
            agree &= np.array_equal(
                fast.matmul(np.asfortranarray(a), b.T.copy().T, c[::-1][::-1]), expected
            )
        print(element, agree)
    # CHECK: f32 True
    # CHECK: f64 True
    # CHECK: i32 True

    # Chained static matmuls: the schedule's clean-up of the first left the
    # second dangling in the interpreter (a segfault).
    chained = jit(
        """
        func.func @twice(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
          %ab = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
          %r = linalg.matmul ins(%ab, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
          return %r : tensor<4x4xf32>
        }
        """,
        pipeline=FAST_PIPELINE,
    )
    a, b, c = (rng.integers(-4, 4, (4, 4)).astype(np.float32) for _ in range(3))
    # CHECK: chained: True
    print("chained:", np.array_equal(chained.twice(a, b, c), (a @ b + c) @ b + c))

    # Element types the schedule cannot take (complex crashed the
    # interpreter; i1 vectors read bytes as bits) get DEFAULT_PIPELINE's loops.
    for element, dtype in [("complex<f32>", np.complex64), ("i1", np.bool_)]:
        module = jit(MATMUL.replace("T", element), pipeline=FAST_PIPELINE)
        a = rng.integers(0, 2, (70, 3)).astype(dtype)
        b = rng.integers(0, 2, (3, 130)).astype(dtype)
        c = np.zeros((70, 130), dtype)
        expected = (a.astype(int) @ b.astype(int)).astype(dtype) if dtype is np.bool_ else a @ b
        print(element, np.array_equal(module.matmul(a, b, c), expected))
    # CHECK: complex<f32> True
    # CHECK: i1 True

    # Twice in one context, from text and from an ir.Module: the schedule is
    # loaded into the context once (again, it would be "doubly defined").
    # CHECK: one context: True True
    with Context():
        first = jit(MATMUL.replace("T", "f32"), pipeline=FAST_PIPELINE, cache_dir=None)
        second = jit(
            Module.parse(MATMUL.replace("T", "f32")), pipeline=FAST_PIPELINE, cache_dir=None
        )
    a, b, c = (rng.integers(-4, 4, (5, 5)).astype(np.float32) for _ in range(3))
    print(
        "one context:",
        np.array_equal(first.matmul(a, b, c), a @ b + c),
        np.array_equal(second.matmul(a, b, c), a @ b + c),
    )

    # On memrefs, the matmul is only tiled (padding needs tensors).
    memrefs = jit(
        """
        func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
          linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
          return
        }
        """,
        pipeline=FAST_PIPELINE,
    )
    a, b = np.ones((70, 3), np.float32), np.ones((3, 130), np.float32)
    c = np.zeros((70, 130), np.float32)
    memrefs.matmul(a, b, c)
    # CHECK: memrefs: True
    print("memrefs:", np.array_equal(c, a @ b))

    # A pipeline that bufferizes must pass tensors as memrefs of any strides.
    # CHECK: ValueError: the pipeline bufferizes tensors, but not to memrefs of any strides, as typed calls pass them
    show_error(
        jit,
        MATMUL.replace("T", "f32"),
        pipeline=FAST_PIPELINE.replace("fully-dynamic-layout-map", "identity-layout-map"),
    )


run(testResultsThatAreArguments)
run(testReturnedArgumentsUnderEveryPipeline)
run(testElementwiseOnTensors)
run(testMatmulAndReductions)
run(testTemporariesAreFreed)
run(testTensorCallbacks)
run(testMisuse)
run(testFailedAllocations)
run(testFastPipeline)
