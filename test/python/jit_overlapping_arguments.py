# RUN: %PYTHON %s | FileCheck %s
#
# Arguments that share memory: where a function may write an array
# argument that overlaps another argument it does not write, the call reads
# a copy of the other, so that every input is read before any output is
# written (numpy's rule for np.add(buf[:-1], 1, out=buf[1:])), the same under
# every pipeline, sequential or parallel. Which arguments a function may
# write is decided on its IR (mlirJitFunctionMayWriteArgument).

import numpy as np

from mlir.execution_engine import FAST_PIPELINE, jit

STRIDED = "memref<?xf32, strided<[?], offset: ?>>"
STRIDED_2D = "memref<?x?xf32, strided<[?, ?], offset: ?>>"
# b = a + 1, elementwise.
ADD_ONE = f"""
#map = affine_map<(d0) -> (d0)>
func.func @add_one(%a: {STRIDED}, %b: {STRIDED}) {{
  %one = arith.constant 1.0 : f32
  linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel"]}}
      ins(%a : {STRIDED}) outs(%b : {STRIDED}) {{
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  }}
  return
}}
"""
SOURCE = (
    ADD_ONE
    + f"""
func.func @copy_2d(%a: {STRIDED_2D}, %b: {STRIDED_2D}) {{
  linalg.copy ins(%a : {STRIDED_2D}) outs(%b : {STRIDED_2D})
  return
}}
func.func @scaled_sum(%a: {STRIDED}, %b: {STRIDED}) -> f32 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : {STRIDED}
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {{
    %v = memref.load %a[%i] : {STRIDED}
    %w = arith.mulf %v, %two : f32
    memref.store %w, %b[%i] : {STRIDED}
    %x = memref.load %a[%i] : {STRIDED}
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }}
  return %sum : f32
}}
"""
)


RANDOM = np.random.default_rng(7)


def numpy_add_one(buf, source, target):
    np.add(buf[source], 1, out=buf[target])


# CHECK: default: shifted right True, shifted left True, in place True, 100003 elements True
# CHECK: fast: shifted right True, shifted left True, in place True, 100003 elements True
for name, pipeline in [("default", None), ("fast", FAST_PIPELINE)]:
    module = jit(SOURCE, pipeline=pipeline)
    seen = []
    for label, n, source, target in [
        ("shifted right", 16, slice(None, -1), slice(1, None)),
        ("shifted left", 16, slice(1, None), slice(None, -1)),
        ("in place", 16, slice(None), slice(None)),
        ("100003 elements", 100003, slice(None, -2), slice(2, None)),
    ]:
        # Random values: on arange, a running prefix looks like numpy's answer.
        buf = RANDOM.random(n, dtype=np.float32)
        expected = buf.copy()
        numpy_add_one(expected, source, target)
        module.add_one(buf[source], buf[target])
        seen.append(f"{label} {np.array_equal(buf, expected)}")
    print(f"{name}:", ", ".join(seen))

module = jit(SOURCE)

# A 2-D copy into its own transpose: numpy's answer, not a half-written one.
# CHECK: transpose into itself: True
square = np.arange(64, dtype=np.float32).reshape(8, 8)
expected = square.T.copy()
module.copy_2d(square.T, square)
print("transpose into itself:", np.array_equal(square, expected))

# Loads after the function's own stores read the copy too: the function
# sees its input as it was when called.
# CHECK: scaled_sum: 28.0 [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
buf = np.arange(8, dtype=np.float32)
print("scaled_sum:", module.scaled_sum(buf, buf), buf.tolist())

# Arrays that do not overlap are passed as they are (the function writes
# the caller's array), and the caller's input is never written.
# CHECK: disjoint: [1.0, 2.0, 3.0] [0.0, 1.0, 2.0]
a, b = np.arange(3, dtype=np.float32), np.zeros(3, dtype=np.float32)
module.add_one(a, b)
print("disjoint:", b.tolist(), a.tolist())

# Interleaved halves of one array do not share an element, but their
# bounds overlap: the input is copied, and the answer is the same.
# CHECK: interleaved: True
buf = RANDOM.random(10, dtype=np.float32)
expected = buf.copy()
numpy_add_one(expected, slice(0, None, 2), slice(1, None, 2))
module.add_one(buf[0::2], buf[1::2])
print("interleaved:", np.array_equal(buf, expected))

# A function that only reads both arguments: two views of one array.
READER = jit(
    f"""
    func.func @dot(%a: {STRIDED}, %b: {STRIDED}) -> f32 {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %a, %c0 : {STRIDED}
      %zero = arith.constant 0.0 : f32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {{
        %x = memref.load %a[%i] : {STRIDED}
        %y = memref.load %b[%i] : {STRIDED}
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }}
      return %r : f32
    }}
    """
)
# CHECK: dot: 40.0
buf = np.arange(6, dtype=np.float32)
print("dot:", READER.dot(buf[:-1], buf[1:]))

# Writes the analysis follows: through a branch's block argument, through
# a function of the module (which writes only its second argument), and
# a read-only input's copy stays read-only for a callback.
FOLLOWED = jit(
    ADD_ONE
    + f"""
    func.func @through_call(%a: {STRIDED}, %b: {STRIDED}) {{
      func.call @add_one(%a, %b) : ({STRIDED}, {STRIDED}) -> ()
      return
    }}
    func.func @through_branch(%a: {STRIDED}, %b: {STRIDED}) {{
      cf.br ^bb1(%b : {STRIDED})
    ^bb1(%out: {STRIDED}):
      func.call @add_one(%a, %out) : ({STRIDED}, {STRIDED}) -> ()
      return
    }}
    func.func private @look(%a: {STRIDED}) -> ()
    func.func @read_only(%a: {STRIDED} {{llvm.readonly}}, %b: {STRIDED}) {{
      func.call @look(%a) : ({STRIDED}) -> ()
      func.call @add_one(%a, %b) : ({STRIDED}, {STRIDED}) -> ()
      return
    }}
    """
)
seen = []


@FOLLOWED.callback("look")
def look(a):
    seen.append(a.flags.writeable)


# CHECK: through_call True, through_branch True, read_only True, the copy read-only: [False]
results = []
for name in ["through_call", "through_branch", "read_only"]:
    buf = RANDOM.random(12, dtype=np.float32)
    expected = buf.copy()
    numpy_add_one(expected, slice(None, -1), slice(1, None))
    source = buf[:-1]
    if name == "read_only":
        source = source.view()
        source.flags.writeable = False
    getattr(FOLLOWED, name)(source, buf[1:])
    results.append(f"{name} {np.array_equal(buf, expected)}")
print(", ".join(results) + ", the copy read-only:", seen)
