# RUN: %PYTHON %s | FileCheck %s
#
# Typed calls (mlir.execution_engine.jit) under adversarial use. Promised:
# - A non-writeable array never reaches a memref parameter the function may
#   write: refused with ValueError unless the parameter is {llvm.readonly}.
#   Results over constant globals come back read-only.
# - No conversion aborts the process: a value whose repr cannot be encoded
#   still gives a ValueError.
# - f16 and bf16 values are rounded once, to nearest even (as arith.truncf).
# - Empty arrays, numpy bools and too-large ints get an answer or a clear
#   error; user names never collide with generated ones.
# - A 0-d array passed for a scalar is the scalar it holds, by the rules of
#   numpy scalars.

import copy

import numpy as np

from mlir.execution_engine import jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager


def show(name, fn):
    print(f"CASE: {name}")
    try:
        print(f"  -> {fn()!r}")
    except Exception as error:
        print(f"  {type(error).__name__}: {error}")


WRITES = jit("""
func.func @fill(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%c0] : memref<?xf32>
  return
}
func.func @first(%x: memref<?xf32> {llvm.readonly}) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xf32>
  return %v : f32
}
memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
func.func @constant_table() -> memref<2xf32> {
  %t = memref.get_global @table : memref<2xf32>
  return %t : memref<2xf32>
}
func.func @rows(%x: memref<?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  return %n : index
}
""")

# CHECK-LABEL: CASE: read-only array to a parameter written
# CHECK: ValueError: argument 0 of 'fill' (memref<?xf32>): the array is read-only and the function may write to it; pass a writeable copy (array.copy()), or declare the argument {llvm.readonly} if the function only reads it
frozen = np.zeros(4, np.float32)
frozen.flags.writeable = False
show("read-only array to a parameter written", lambda: WRITES.fill(frozen))

# CHECK-LABEL: CASE: immutable bytes
# CHECK: ValueError: argument 0 of 'fill'{{.*}}read-only
# CHECK: bytes unchanged: True
data = bytes(16)
show("immutable bytes", lambda: WRITES.fill(np.frombuffer(data, np.float32)))
print("bytes unchanged:", data == bytes(16))

# CHECK-LABEL: CASE: read-only broadcast view
# CHECK: ValueError: argument 0 of 'fill'{{.*}}read-only
show("read-only broadcast view", lambda: WRITES.fill(np.broadcast_to(np.float32(2), (4,))))

# CHECK-LABEL: CASE: read-only memmap
# CHECK: ValueError: argument 0 of 'fill'{{.*}}read-only
import os
import tempfile

with tempfile.TemporaryDirectory() as directory:
    path = os.path.join(directory, "data")
    np.zeros(4, np.float32).tofile(path)
    mapped = np.memmap(path, np.float32, mode="r")
    show("read-only memmap", lambda: WRITES.fill(mapped))
    del mapped

# CHECK-LABEL: CASE: read-only array to a readonly parameter
# CHECK: -> 3.0
three = np.full(4, 3, np.float32)
three.flags.writeable = False
show("read-only array to a readonly parameter", lambda: WRITES.first(three))

# CHECK-LABEL: CASE: result over a constant global
# CHECK: -> (array([1., 2.], dtype=float32), False)
# CHECK: ValueError: assignment destination is read-only
table = WRITES.constant_table()
show("result over a constant global", lambda: (table, table.flags.writeable))


def write_table():
    table[0] = 5


show("writing it", write_table)

# CHECK-LABEL: CASE: empty array, numpy 2's zero strides
# CHECK: -> 0
show("empty array, numpy 2's zero strides", lambda: WRITES.rows(np.empty((0, 5), np.float32)))

SCALARS = jit("""
func.func @neg(%b: i1) -> i1 {
  %t = arith.constant true
  %r = arith.xori %b, %t : i1
  return %r : i1
}
func.func @add(%a: i64, %b: i64) -> i64 {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
func.func @id_f64(%x: f64) -> f64 {
  return %x : f64
}
func.func @id_f16(%x: f16) -> f16 {
  return %x : f16
}
func.func @id_bf16(%x: bf16) -> bf16 {
  return %x : bf16
}
func.func @call_f16() -> f16 {
  %r = func.call @make_f16() : () -> f16
  return %r : f16
}
func.func @call_i1() -> i1 {
  %r = func.call @make_i1() : () -> i1
  return %r : i1
}
func.func @call_i64() -> i64 {
  %r = func.call @make_i64() : () -> i64
  return %r : i64
}
func.func private @make_f16() -> f16
func.func private @make_i1() -> i1
func.func private @make_i64() -> i64
""")


class Unprintable(int):
    def __repr__(self):
        return "\ud800"


results = {"make_f16": 1 + 2**-11 + 2**-40, "make_i1": np.True_, "make_i64": Unprintable(2**70)}
for name in results:
    SCALARS.register(name, lambda name=name: results[name])

# CHECK-LABEL: CASE: numpy bool to i1
# CHECK: -> False
show("numpy bool to i1", lambda: SCALARS.neg(np.True_))

# CHECK-LABEL: CASE: numpy bool from a callback
# CHECK: -> True
show("numpy bool from a callback", SCALARS.call_i1)

# CHECK-LABEL: CASE: unprintable int out of range
# CHECK: ValueError: argument 0 of 'add' (i64): \ud800 is out of range [-9223372036854775808, 9223372036854775807]
show("unprintable int out of range", lambda: SCALARS.add(Unprintable(2**70), 1))

# CHECK-LABEL: CASE: unprintable int from a callback
# CHECK: ValueError: result 0 of 'make_i64' (i64): \ud800 is out of range
show("unprintable int from a callback", SCALARS.call_i64)

# CHECK-LABEL: CASE: int too large for f64
# CHECK: ValueError: argument 0 of 'id_f64' (f64): the value is too large for a float
show("int too large for f64", lambda: SCALARS.id_f64(10**400))

# Rounded once: through float first, 2**-40 is lost and the tie goes to even.
# CHECK-LABEL: CASE: f16 rounds once
# CHECK: -> 1.0009765625
show("f16 rounds once", lambda: SCALARS.id_f16(1 + 2**-11 + 2**-40))
# CHECK-LABEL: CASE: bf16 rounds once
# CHECK: -> 1.0078125
show("bf16 rounds once", lambda: SCALARS.id_bf16(1 + 2**-8 + 2**-40))
# CHECK-LABEL: CASE: f16 callback result rounds once
# CHECK: -> 1.0009765625
show("f16 callback result rounds once", SCALARS.call_f16)

# A 0-d array is the scalar it holds, as numpy and ctypes take it
# (float(np.array(2.5))), by the rules of numpy scalars: of the parameter's
# dtype or one that converts to it (an int to a float, a float to a
# complex; ranges checked, floats rounded once), never a float to an int or
# a complex to a float. Other arrays, and 0-d arrays of objects, strings or
# records, are refused.
ZERO_D = jit("""
func.func @f64(%x: f64) -> f64 { return %x : f64 }
func.func @f32(%x: f32) -> f32 { return %x : f32 }
func.func @i64(%x: i64) -> i64 { return %x : i64 }
func.func @i8(%x: i8) -> i8 { return %x : i8 }
func.func @i1(%x: i1) -> i1 { return %x : i1 }
func.func @c64(%x: complex<f32>) -> complex<f32> { return %x : complex<f32> }
func.func private @make() -> f64
func.func @call() -> f64 {
  %r = func.call @make() : () -> f64
  return %r : f64
}
""")
ZERO_D.register("make", lambda: np.array(0.25))
# CHECK-LABEL: CASE: 0-d arrays for scalars
# CHECK-NEXT: f64 array(2.5) -> 2.5
# CHECK-NEXT: f64 array(2.5, dtype=float32) -> 2.5
# CHECK-NEXT: f64 array(3, dtype=int32) -> 3.0
# CHECK-NEXT: f32 array(0.1) -> 0.10000000149011612
# CHECK-NEXT: i64 array(-5) -> -5
# CHECK-NEXT: i8 array(-3, dtype=int8) -> -3
# CHECK-NEXT: i64 array(True) -> 1
# CHECK-NEXT: i1 array(True) -> True
# CHECK-NEXT: c64 array(1.+2.j, dtype=complex64) -> (1+2j)
# CHECK-NEXT: c64 array(2.) -> (2+0j)
# CHECK-NEXT: f64 array(1.+2.j) -> TypeError: argument 0 of 'f64' (f64): expected a float, got a 0-d array of complex128
# CHECK-NEXT: i64 array(5.) -> TypeError: argument 0 of 'i64' (i64): expected an int, got a 0-d array of float64
# CHECK-NEXT: i8 array(300) -> ValueError: argument 0 of 'i8' (i8): array(300) is out of range [-128, 127]
# CHECK-NEXT: i64 array(18446744073709551615, dtype=uint64) -> ValueError: argument 0 of 'i64' (i64): array(18446744073709551615, dtype=uint64) is out of range
# CHECK-NEXT: f64 array([2.5]) -> TypeError: argument 0 of 'f64' (f64): expected a float, got numpy.ndarray
# CHECK-NEXT: f64 array(2.5, dtype=object) -> TypeError: argument 0 of 'f64' (f64): expected a float, got a 0-d array of object
# CHECK-NEXT: f64 array('2.5', dtype='<U3') -> TypeError: argument 0 of 'f64' (f64): expected a float, got a 0-d array of <U3
# CHECK-NEXT: c64 array(b'\x00\x00\x00\x00', dtype='|V4') -> TypeError: argument 0 of 'c64' (complex<f32>): expected a complex, got a 0-d array of |V4
# CHECK-NEXT: a callback's 0-d array result -> 0.25
print("CASE: 0-d arrays for scalars")
for name, value in [
    ("f64", np.array(2.5)),
    ("f64", np.array(2.5, np.float32)),
    ("f64", np.array(3, np.int32)),
    ("f32", np.array(0.1)),
    ("i64", np.array(-5)),
    ("i8", np.array(-3, np.int8)),
    ("i64", np.array(True)),
    ("i1", np.array(True)),
    ("c64", np.array(1 + 2j, np.complex64)),
    ("c64", np.array(2.0)),
    ("f64", np.array(1 + 2j)),
    ("i64", np.array(5.0)),
    ("i8", np.array(300)),
    ("i64", np.array(2**64 - 1, np.uint64)),
    ("f64", np.array([2.5])),
    ("f64", np.array(2.5, dtype=object)),
    ("f64", np.array("2.5")),
    ("c64", np.zeros((), "V4")),
]:
    try:
        print(f"{name} {value!r} -> {ZERO_D[name](value)!r}")
    except Exception as error:
        print(f"{name} {value!r} -> {type(error).__name__}: {error}")
print("a callback's 0-d array result ->", ZERO_D.call())

# CHECK-LABEL: CASE: functions named like internals
# CHECK: -> (3, 4, 5)
NAMES = jit("""
func.func @_state(%a: i64) -> i64 {
  return %a : i64
}
func.func @_functions(%a: i64) -> i64 {
  return %a : i64
}
func.func @register(%a: i64) -> i64 {
  return %a : i64
}
""")
show(
    "functions named like internals",
    lambda: (NAMES["_state"](3), NAMES["_functions"](4), NAMES["register"](5)),
)

# Functions named like Python's protocols are no protocol methods: a deep
# copy and numpy see a module, not a function to call.
# CHECK-LABEL: CASE: functions named like protocols
# CHECK: -> (7, True, 'object')
PROTOCOLS = jit("""
func.func @__deepcopy__(%a: i64) -> i64 {
  return %a : i64
}
func.func @__array__(%a: i64) -> i64 {
  return %a : i64
}
""")
show(
    "functions named like protocols",
    lambda: (
        PROTOCOLS["__deepcopy__"](7),
        copy.deepcopy(PROTOCOLS)["__array__"](1) == 1,
        str(np.asarray(PROTOCOLS, dtype=object).dtype),
    ),
)

# CHECK-LABEL: CASE: a quoted callback name
# CHECK: -> 42
QUOTED = jit("""
func.func @call() -> i64 {
  %r = func.call @"my-cb"() : () -> i64
  return %r : i64
}
func.func private @"my-cb"() -> i64
""")
QUOTED.register("my-cb", lambda: 42)
show("a quoted callback name", QUOTED.call)

# CHECK-LABEL: CASE: a function named like the dispatcher
# CHECK: ValueError: the module defines '_jit_callback_dispatch', a name the callbacks' generated code uses; rename it
show(
    "a function named like the dispatcher",
    lambda: jit("""
func.func @_jit_callback_dispatch() {
  return
}
func.func private @hook()
"""),
)

# CHECK-LABEL: CASE: shared_libs as one string
# CHECK: TypeError: shared_libs must be a sequence of paths, such as a list, got str
show("shared_libs as one string", lambda: jit("func.func @f() { return }", shared_libs="/x/lib.so"))

# CHECK-LABEL: CASE: an already-lowered module
# CHECK: ValueError: the module defines no func.func: jit() takes a module before it is lowered to the LLVM dialect
with Context():
    lowered = Module.parse("func.func @f() { return }")
    PassManager.parse("builtin.module(convert-func-to-llvm)").run(lowered.operation)
    show("an already-lowered module", lambda: jit(lowered))
