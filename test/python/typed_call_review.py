# RUN: %PYTHON %s | FileCheck %s
#
# Cases an adversarial review of the typed layer found (issue 19), each run
# in an interpreter of its own: the first three crashed the process, the rest
# lost errors, mutated immutable data, deadlocked or misreported. Each prints
# what happened and its exit code, which must be 0.

from fixtures import run_python


def case(name, code):
    print(f"CASE: {name}")
    prelude = "import ctypes, gc, sys, traceback\nimport numpy as np\nfrom mlir.execution_engine import jit\n"
    result = run_python(prelude + code, timeout=120)
    for line in (result.stdout + result.stderr).splitlines():
        print("  " + line)
    print(f"  exit code: {result.returncode}")


# A function that keeps the GIL calls a callback, which calls jitted code
# through ctypes (which lets the GIL go): the nested callback must take it.
# CHECK-LABEL: CASE: callback calling jitted code through invoke
# CHECK: 42 42
# CHECK: exit code: 0
case(
    "callback calling jitted code through invoke",
    """
m = jit('''
func.func private @cb(i64) -> i64
func.func @f(%x: i64) -> i64 {
  %r = func.call @cb(%x) : (i64) -> i64
  return %r : i64
}''')
def cb(x):
    if x == 0:
        return 42
    a, r = ctypes.c_int64(0), ctypes.c_int64()
    m.engine.invoke("f", ctypes.byref(a), ctypes.byref(r))
    return r.value
m.register("cb", cb)
print(m.f(0), m.f(1))
""",
)

# Two results over one allocation, the first of which cannot be viewed.
# CHECK-LABEL: CASE: a failed result sharing an allocation
# CHECK-COUNT-3: ValueError: result 0 of 'f' {{.*}}: cannot view the memref as an array
# CHECK: exit code: 0
case(
    "a failed result sharing an allocation",
    """
m = jit('''
func.func @f(%n: index) -> (memref<?x?xf64, strided<[0, 0]>>, memref<1xf64>) {
  %a = memref.alloc() : memref<1xf64>
  %v = memref.reinterpret_cast %a to offset: [0], sizes: [%n, %n], strides: [0, 0]
       : memref<1xf64> to memref<?x?xf64, strided<[0, 0]>>
  return %v, %a : memref<?x?xf64, strided<[0, 0]>>, memref<1xf64>
}''')
for i in range(3):
    try:
        m.f(2**62)
    except ValueError as e:
        print("ValueError:", e)
""",
)

# A callback's view of a constant global is read-only (it lives in read-only
# memory); views of read-only arguments too.
# CHECK-LABEL: CASE: read-only views in callbacks
# CHECK: global view writeable: False
# CHECK: read-only argument's view writeable: False
# CHECK: result aliasing a read-only argument writeable: False
# CHECK: exit code: 0
case(
    "read-only views in callbacks",
    """
m = jit('''
memref.global "private" constant @table : memref<4xf64> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @cb(memref<4xf64>)
func.func private @cb2(memref<?xi8>)
func.func @f() {
  %g = memref.get_global @table : memref<4xf64>
  func.call @cb(%g) : (memref<4xf64>) -> ()
  return
}
func.func @g(%a: memref<?xi8> {llvm.readonly}) -> memref<?xi8> {
  func.call @cb2(%a) : (memref<?xi8>) -> ()
  return %a : memref<?xi8>
}''')
m.register("cb", lambda v: print("global view writeable:", v.flags.writeable))
m.register("cb2", lambda v: print("read-only argument's view writeable:", v.flags.writeable))
m.f()
out = m.g(np.frombuffer(b"immutable bytes!", np.int8))
print("result aliasing a read-only argument writeable:", out.flags.writeable)
""",
)

# A view kept after the callback (a traceback's locals) reads no freed memory.
# CHECK-LABEL: CASE: a view kept by a traceback
# CHECK: kept view: shape (0,), writeable False
# CHECK: exit code: 0
case(
    "a view kept by a traceback",
    """
m = jit('''
func.func private @check(memref<?xf64>)
func.func @f(%n: index) {
  %a = memref.alloc(%n) : memref<?xf64>
  func.call @check(%a) : (memref<?xf64>) -> ()
  memref.dealloc %a : memref<?xf64>
  return
}''')
kept = []
@m.callback("check")
def check(values):
    kept.append(values)
    raise ValueError("too many values")
try:
    m.f(1 << 21)
except ValueError:
    traceback.TracebackException(*sys.exc_info(), capture_locals=True).format()
print(f"kept view: shape {kept[0].shape}, writeable {kept[0].flags.writeable}")
""",
)

# CHECK-LABEL: CASE: invoke with bytes as a result pointer
# CHECK: TypeError: argument 1 of 'g' must be a pointer
# CHECK: b'\x00' unchanged: True
# CHECK: exit code: 0
case(
    "invoke with bytes as a result pointer",
    """
m = jit('''func.func @g(%x: i8) -> i8 {
  %c = arith.constant 65 : i8
  %r = arith.addi %x, %c : i8
  return %r : i8
}''')
try:
    m.engine.invoke("g", ctypes.byref(ctypes.c_int8(1)), b"\\x00")
except TypeError as e:
    print("TypeError:", e)
print("b'\\\\x00' unchanged:", b"\\x00" == bytes([0]))
""",
)

# A finalizer that calls the module while its first call compiles it.
# CHECK-LABEL: CASE: a call during compilation
# CHECK: RuntimeError: the JitModule is being compiled by this thread
# CHECK: first call: 1
# CHECK: exit code: 0
case(
    "a call during compilation",
    """
m = jit('''func.func @f(%x: i64) -> i64 { return %x : i64 }
func.func @g(%x: i64) -> i64 { return %x : i64 }''')
seen = []
class Finalizer:
    def __init__(self):
        self.me = self
    def __del__(self):
        if m._state.compiling and not seen:
            try:
                m.g(5)
            except RuntimeError as e:
                seen.append(e)
                print("RuntimeError:", e)
        elif not seen:
            Finalizer()
Finalizer()
gc.set_threshold(1)
print("first call:", m.f(1))
gc.set_threshold(700)
""",
)

# CHECK-LABEL: CASE: names with a NUL
# CHECK: ValueError: the function name 'g\x00h' contains a NUL character
# CHECK: exit code: 0
case(
    "names with a NUL",
    """
try:
    jit('func.func @"g\\\\00h"(%x: i64) -> i64 { return %x : i64 }')
except ValueError as e:
    print("ValueError:", e)
""",
)

# A hook installed after ours that chains to the previous one: no recursion,
# and an unrelated error during a call is not taken for the call's.
# CHECK-LABEL: CASE: a chaining unraisablehook
# CHECK: reported: ZeroDivisionError
# CHECK: call result: 2
# CHECK: exit code: 0
case(
    "a chaining unraisablehook",
    """
m = jit('''func.func private @cb(i64) -> i64
func.func @g(%x: i64) -> i64 {
  %r = func.call @cb(%x) : (i64) -> i64
  return %r : i64
}''')
class Raises:
    def __del__(self):
        1 / 0
m.register("cb", lambda x: (Raises(), x + 1)[1])
eng = m.engine
a, r = ctypes.c_int64(1), ctypes.c_int64()
eng.invoke("g", ctypes.byref(a), ctypes.byref(r))
previous = sys.unraisablehook
def chained(unraisable):
    print("reported:", type(unraisable.exc_value).__name__)
    previous(unraisable)
sys.unraisablehook = chained
Raises()
eng.invoke("g", ctypes.byref(a), ctypes.byref(r))
print("call result:", r.value)
""",
)

# CHECK-LABEL: CASE: misreported values
# CHECK: TypeError: callback 'v' is declared () -> (), without results: it must return None, got int
# CHECK: KeyError: "'v' is a callback the module declares, not a function it defines: call a function that calls it"
# CHECK: AttributeError: 'v' is a callback the module declares, not a function it defines: call a function that calls it
# CHECK: ValueError: argument 0 of 'c' (complex<f32>): the value is too large for a float
# CHECK: TypeError: argument 0 of 'i' (i64): expected an int, got numpy.ndarray
# CHECK: exit code: 0
case(
    "misreported values",
    """
m = jit('''func.func private @v()
func.func @f() {
  func.call @v() : () -> ()
  return
}
func.func @c(%x: complex<f32>) -> complex<f32> { return %x : complex<f32> }
func.func @i(%x: i64) -> i64 { return %x : i64 }''')
m.register("v", lambda: 3)
for call in (m.f, lambda: m["v"], lambda: m.v, lambda: m.c(2**2000), lambda: m.i(np.array([5]))):
    try:
        call()
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
""",
)

# A callback that raises stops the typed call: code after it never sees the
# zeros it used to get, which divided by zero (SIGFPE) or polled forever.
# CHECK-LABEL: CASE: a raising callback's result as a divisor
# CHECK: ValueError: no divisor
# CHECK: 100 / 4 = 25
# CHECK: exit code: 0
case(
    "a raising callback's result as a divisor",
    """
m = jit('''
func.func private @divisor() -> i64
func.func @f() -> i64 {
  %d = func.call @divisor() : () -> i64
  %c = arith.constant 100 : i64
  %q = arith.divsi %c, %d : i64
  return %q : i64
}''')
state = {"fail": True}
def divisor():
    if state["fail"]:
        raise ValueError("no divisor")
    return 4
m.register("divisor", divisor)
try:
    m.f()
except ValueError as e:
    print("ValueError:", e)
state["fail"] = False
print("100 / 4 =", m.f())
""",
)

# CHECK-LABEL: CASE: a raising callback polled in a loop
# CHECK: RuntimeError: not ready, 3 polls
# CHECK: exit code: 0
case(
    "a raising callback polled in a loop",
    """
m = jit('''
func.func private @ready() -> i1
func.func @wait() {
  scf.while : () -> () {
    %r = func.call @ready() : () -> i1
    %false = arith.constant false
    %again = arith.cmpi eq, %r, %false : i1
    scf.condition(%again)
  } do {
    scf.yield
  }
  return
}''')
polls = []
def ready():
    polls.append(1)
    if len(polls) == 3:
        raise RuntimeError(f"not ready, {len(polls)} polls")
    return False
m.register("ready", ready)
try:
    m.wait()
except RuntimeError as e:
    print("RuntimeError:", e)
""",
)

# Stopped calls of every kind: one returning a memref (its result was never
# written: nothing reads it), one that lets the GIL go (it calls a function
# of its own too), a typed call stopped inside a callback of another (the
# outer call goes on), and a callback whose jitted code is reached through
# ctypes (`lookup`): its call cannot be stopped over Python's frames, so it
# goes on with zeros and `lookup` re-raises.
# CHECK-LABEL: CASE: stopped calls of every kind
# CHECK: memref result: ValueError: bad 0
# CHECK: GIL released: ValueError: bad 0
# CHECK: nested: outer got -1 from the inner failure: 4
# CHECK: through lookup: ValueError: bad 0, outer got 42
# CHECK: exit code: 0
case(
    "stopped calls of every kind",
    """
m = jit('''
func.func private @cb(i64) -> i64
func.func @twice(%x: i64) -> i64 {
  %c2 = arith.constant 2 : i64
  %r = arith.muli %x, %c2 : i64
  return %r : i64
}
func.func @alloc(%n: index) -> memref<?xi64> {
  %a = memref.alloc(%n) : memref<?xi64>
  %k = arith.index_cast %n : index to i64
  %v = func.call @cb(%k) : (i64) -> i64
  %c0 = arith.constant 0 : index
  memref.store %v, %a[%c0] : memref<?xi64>
  return %a : memref<?xi64>
}
func.func @released(%n: i64) -> i64 {
  %t = func.call @twice(%n) : (i64) -> i64
  %r = func.call @cb(%t) : (i64) -> i64
  return %r : i64
}
func.func @call(%x: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @cb(%x) : (i64) -> i64
  return %r : i64
}''')
def cb(x):
    if x == 0:
        raise ValueError("bad 0")
    if x == 1:  # a nested typed call that fails, caught here
        try:
            m.call(0)
        except ValueError:
            return -1
    if x == 2:  # the same through ctypes
        f = m.engine.lookup("call")
        a, r = ctypes.c_int64(0), ctypes.c_int64()
        try:
            f((ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(r)))
        except ValueError as e:
            print(f"through lookup: ValueError: {e}, ", end="")
        return 42
    return x
m.register("cb", cb)
for name, call in [("memref result", lambda: m.alloc(0)), ("GIL released", lambda: m.released(0))]:
    try:
        call()
    except ValueError as e:
        print(f"{name}: ValueError: {e}")
print("nested: outer got", m.call(1), "from the inner failure:", m.released(2))
print(f"outer got {m.call(2)}")
""",
)

# A libc function that calls the module back (dl_iterate_phdr holds the
# loader's lock meanwhile): a raising callback must not stop the call by
# jumping over libc's frames, or the lock stays taken and the next thread to
# take it waits forever. Only modules of their own code alone are stopped.
# CHECK-LABEL: CASE: a callback called from libc raises
# CHECK: raised: stop
# CHECK: another thread walked the loaded objects: True
# CHECK: exit code: 0
case(
    "a callback called from libc raises",
    """
import threading
m = jit('''
llvm.func @dl_iterate_phdr(!llvm.ptr, !llvm.ptr) -> i32
func.func private @cb(i64) -> i64
func.func @visit(%info: !llvm.ptr, %size: i64, %data: !llvm.ptr) -> i32 {
  %r = func.call @cb(%size) : (i64) -> i64
  %z = arith.constant 0 : i32
  return %z : i32
}
func.func @f() -> i32 {
  %fv = func.constant @visit : (!llvm.ptr, i64, !llvm.ptr) -> i32
  %fp = builtin.unrealized_conversion_cast %fv : (!llvm.ptr, i64, !llvm.ptr) -> i32 to !llvm.ptr
  %n = llvm.mlir.zero : !llvm.ptr
  %r = llvm.call @dl_iterate_phdr(%fp, %n) : (!llvm.ptr, !llvm.ptr) -> i32
  return %r : i32
}''')
def cb(x):
    raise ValueError("stop")
m.register("cb", cb)
try:
    m.f()
except ValueError as e:
    print("raised:", e, flush=True)
visit = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)(lambda *a: 0)
t = threading.Thread(target=lambda: ctypes.CDLL(None).dl_iterate_phdr(visit, None), daemon=True)
t.start()
t.join(20)
print("another thread walked the loaded objects:", not t.is_alive(), flush=True)
""",
)
