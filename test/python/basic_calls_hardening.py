# RUN: %PYTHON %s | FileCheck %s
#
# Ordinary calls that crashed the process or broke a whole module (issue 26),
# each run in an interpreter of its own: the output and the exit code (which
# must be 0, never a signal) are checked.

from fixtures import run_python


def case(name, code, env=None):
    print(f"CASE: {name}")
    result = run_python(code, env=env, timeout=300)
    for line in (result.stdout + result.stderr).splitlines():
        print("  " + line)
    print(f"  exit code: {result.returncode}")


# A dozen small scalar functions, so that the cache's load thread and the
# parse overlap.
SCALARS = """
func.func @not1(%a: i1) -> i1 { %t = arith.constant true
  %r = arith.xori %a, %t : i1
  return %r : i1 }
func.func @add64(%a: i64, %b: i64) -> i64 { %r = arith.addi %a, %b : i64
  return %r : i64 }
func.func @sub64(%a: i64, %b: i64) -> i64 { %r = arith.subi %a, %b : i64
  return %r : i64 }
func.func @mul64(%a: i64, %b: i64) -> i64 { %r = arith.muli %a, %b : i64
  return %r : i64 }
func.func @addh(%a: f16, %b: f16) -> f16 { %r = arith.addf %a, %b : f16
  return %r : f16 }
func.func @mulh(%a: f16, %b: f16) -> f16 { %r = arith.mulf %a, %b : f16
  return %r : f16 }
func.func @addd(%a: f64, %b: f64) -> f64 { %r = arith.addf %a, %b : f64
  return %r : f64 }
func.func @subd(%a: f64, %b: f64) -> f64 { %r = arith.subf %a, %b : f64
  return %r : f64 }
func.func @muld(%a: f64, %b: f64) -> f64 { %r = arith.mulf %a, %b : f64
  return %r : f64 }
func.func @divd(%a: f64, %b: f64) -> f64 { %r = arith.divf %a, %b : f64
  return %r : f64 }
func.func @negd(%a: f64) -> f64 { %r = arith.negf %a : f64
  return %r : f64 }
func.func @maxd(%a: f64, %b: f64) -> f64 { %r = arith.maximumf %a, %b : f64
  return %r : f64 }
"""

# 1. jit() of an ir.Module inside a function, with a cold cache: the cache's
# load ran on a std::async thread, whose first use of libstdc++'s
# thread-locals (std::call_once) went through glibc's TLS descriptors
# (-mtls-dialect=gnu2), which on glibc 2.36 clobber registers the compiler
# kept live: SIGSEGV. Ten cold starts, each with an empty cache directory.
# CHECK-LABEL: CASE: jit of an ir.Module in a function, cold cache
# CHECK: 10 cold starts: 3 -1.0 True 6.5
# CHECK: exit code: 0
case(
    "jit of an ir.Module in a function, cold cache",
    f"""
import os, tempfile
from mlir.ir import Context, Module
from mlir.execution_engine import jit
SRC = '''{SCALARS}'''
def run():
    with Context() as ctx:
        mod = Module.parse(SRC)
        m = jit(mod)
        t = jit(SRC.replace("@", "@t_"), context=ctx)
        return m.add64(1, 2), m.negd(1.0), m.not1(False), float(t.t_addh(2.5, 4.0))
results = set()
for _ in range(10):
    os.environ["MLIR_JIT_CACHE_DIR"] = tempfile.mkdtemp()
    results.add(run())
print("10 cold starts:", *sorted(results)[0])
""",
)

# The cause, checked on every library of the package: no TLS descriptors.
# CHECK-LABEL: CASE: no library of the package uses TLS descriptors
# CHECK: _mlirExecutionEngine and libMLIRPythonCAPI checked: True
# CHECK: with TLS descriptors: []
# CHECK: exit code: 0
case(
    "no library of the package uses TLS descriptors",
    """
import glob, os, subprocess
import mlir
paths = glob.glob(os.path.join(os.path.dirname(mlir.__file__), "_mlir_libs", "*.so"))
names = [os.path.basename(path) for path in paths]
print("_mlirExecutionEngine and libMLIRPythonCAPI checked:",
      "_mlirExecutionEngine.so" in names and "libMLIRPythonCAPI.so" in names)
readelf = [subprocess.run(["readelf", "-rW", path], capture_output=True, text=True, check=True).stdout
           for path in paths]
print("with TLS descriptors:", [name for name, relocations in zip(names, readelf)
                                 if "R_X86_64_TLSDESC" in relocations])
""",
)

# 3. Operations fetched from an ir.Module before jit() stay valid: jit()
# lowers a copy, never the caller's module.
# CHECK-LABEL: CASE: operations held across jit()
# CHECK: before: func.func "add64"
# CHECK: after: func.func "add64" 2 ops
# CHECK: module still has func.func: True
# CHECK: 5
# CHECK: exit code: 0
case(
    "operations held across jit()",
    f"""
from mlir.ir import Context, Module
from mlir.execution_engine import jit
with Context():
    mod = Module.parse('''{SCALARS}''')
    ops = list(mod.body.operations)
    print("before:", ops[1].operation.name, ops[1].attributes["sym_name"])
    m = jit(mod, cache_dir=None)
    for i in range(200):
        Module.parse('''{SCALARS}''')  # other IR reuses freed memory
    body = list(ops[1].regions[0].blocks[0].operations)
    print("after:", ops[1].operation.name, ops[1].attributes["sym_name"], len(body), "ops")
    print("module still has func.func:", all(op.operation.name == "func.func" for op in mod.body.operations))
    print(m.add64(2, 3))
""",
)

# 4. A call stopped by a raising callback frees what the jitted code had
# allocated and not returned: retried failing calls leave the heap flat.
# CHECK-LABEL: CASE: stopped calls free their allocations
# CHECK: raised 300 times
# CHECK: growth under 64 MB: True
# CHECK: exit code: 0
case(
    "stopped calls free their allocations",
    """
import numpy as np
from mlir.execution_engine import jit
from fixtures import heap_bytes_in_use
m = jit('''
func.func private @fail(memref<?xf32>)
func.func @f(%n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) : memref<?xf32>
  func.call @fail(%a) : (memref<?xf32>) -> ()
  return %a : memref<?xf32>
}''', cache_dir=None)
@m.callback("fail")
def fail(a):
    raise ValueError("no")
def attempt():
    try:
        m.f(2 * 1024 * 1024)  # 8 MB
    except ValueError:
        return 1
    return 0
for _ in range(20):
    attempt()
before = heap_bytes_in_use()
raised = sum(attempt() for _ in range(300))
growth = heap_bytes_in_use() - before
print("raised", raised, "times")
print("growth under 64 MB:", growth < 64 << 20, growth)
""",
)

# For the invoke cases: an engine with add(i64, i64) -> i64, its argument
# values a, b, r, and read_only, the address of code (r-x).
ADD_ENGINE = """
from mlir.ir import Context, Module
from mlir.passmanager import PassManager
from mlir.execution_engine import ExecutionEngine
with Context():
    module = Module.parse('''
    func.func @add(%a: i64, %b: i64) -> i64 attributes { llvm.emit_c_interface } {
      %r = arith.addi %a, %b : i64
      return %r : i64
    }''')
    PassManager.parse("builtin.module(convert-to-llvm)").run(module.operation)
    engine = ExecutionEngine(module)
a, b, r = ctypes.c_int64(3), ctypes.c_int64(4), ctypes.c_int64()
read_only = ctypes.cast(ctypes.CDLL(None).strlen, ctypes.c_void_p).value
"""
# Invokes add with each of `cases`, printing the ValueErrors, then with
# valid pointers.
TRY_INVOKE = """
for args in cases:
    try:
        engine.invoke("add", *args)
    except ValueError as error:
        print("ValueError:", error)
engine.invoke("add", ctypes.addressof(a), ctypes.addressof(b), ctypes.addressof(r))
print("ok", r.value)
"""

# 5. invoke() with Python ints that are no addresses: a ValueError naming the
# argument, never a dereference.
# CHECK-LABEL: CASE: invoke with ints that are no addresses
# CHECK: ValueError: argument 0 of 'add' is address 0x1, which is not 8 readable bytes of this process; pass ctypes.pointer(x) or ctypes.byref(x) for a ctypes value x
# CHECK: ValueError: argument 2 of 'add' is address 0x{{[0-9a-f]+}}, which is not 8 writable (the result) bytes of this process
# CHECK: ValueError: argument 0 of 'add' is a null pointer
# CHECK: ValueError: argument 1 of 'add' is address 0x{{[0-9a-f]+}}, which is not 8 readable bytes
# CHECK: ok 7
# CHECK: exit code: 0
case(
    "invoke with ints that are no addresses",
    """
import ctypes
"""
    + ADD_ENGINE
    + """
# A page followed by one that cannot be read (PROT_NONE): 8 bytes from 4
# before its end cross into it.
import mmap
pages = mmap.mmap(-1, 2 * mmap.PAGESIZE)
edge = ctypes.addressof(ctypes.c_char.from_buffer(pages)) + mmap.PAGESIZE
assert ctypes.CDLL(None).mprotect(ctypes.c_void_p(edge), ctypes.c_size_t(mmap.PAGESIZE), 0) == 0
cases = [
    (1, 2, 3),
    (ctypes.addressof(a), ctypes.addressof(b), read_only),
    (0, 0, 0),
    (ctypes.addressof(a), edge - 4, ctypes.addressof(r)),
]
"""
    + TRY_INVOKE,
)

# The same check where a seccomp filter forbids process_vm_readv/writev (as
# containers' default profiles do): through a pipe, file pages beyond the
# end of their file included (which fault with SIGBUS when read).
# CHECK-LABEL: CASE: invoke's check under a seccomp filter
# CHECK: ValueError: argument 0 of 'add' is address 0x1, which is not 8 readable bytes
# CHECK: ValueError: argument 0 of 'add' is address 0x{{[0-9a-f]+}}, which is not 8 readable bytes
# CHECK: ValueError: argument 2 of 'add' is address 0x{{[0-9a-f]+}}, which is not 8 writable (the result) bytes
# CHECK: ok 7
# CHECK: exit code: 0
case(
    "invoke's check under a seccomp filter",
    """
import ctypes, mmap, os, struct, tempfile
"""
    + ADD_ENGINE
    + """
# A filter: process_vm_readv (310) and process_vm_writev (311) fail with EPERM.
op = lambda code, k, true=0, false=0: struct.pack("HBBI", code, true, false, k)
program = op(0x20, 0) + op(0x15, 310, 2) + op(0x15, 311, 1) + op(0x06, 0x7FFF0000) + op(0x06, 0x50001)
filters = ctypes.create_string_buffer(program)
fprog = struct.pack("HxxxxxxQ", 5, ctypes.addressof(filters))
libc = ctypes.CDLL(None)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.c_char_p(fprog), 0, 0) == 0  # PR_SET_SECCOMP, a filter
# A page of a file mapping beyond the file's end.
path = os.path.join(tempfile.mkdtemp(), "short")
fd = os.open(path, os.O_RDWR | os.O_CREAT)
os.write(fd, bytes(2 * mmap.PAGESIZE))
mapping = mmap.mmap(fd, 2 * mmap.PAGESIZE)
os.ftruncate(fd, mmap.PAGESIZE)
beyond = ctypes.addressof(ctypes.c_char.from_buffer(mapping)) + mmap.PAGESIZE
cases = [(1, 2, 3), (beyond, ctypes.addressof(b), ctypes.addressof(r)),
         (ctypes.addressof(a), ctypes.addressof(b), read_only)]
"""
    + TRY_INVOKE,
)

# What a callback saw stays readable after a stopped call, slices of its
# views included: the call frees only memory no callback was shown.
# CHECK-LABEL: CASE: views kept past a stopped call
# CHECK: kept slice sums to 7.0
# CHECK: exit code: 0
case(
    "views kept past a stopped call",
    """
import numpy as np
from mlir.execution_engine import jit
m = jit('''
func.func private @look(memref<?xf64>)
func.func @f(%n: index) {
  %a = memref.alloc(%n) : memref<?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %a[%i] : memref<?xf64>
  }
  func.call @look(%a) : (memref<?xf64>) -> ()
  memref.dealloc %a : memref<?xf64>
  return
}''', cache_dir=None)
kept = []
@m.callback("look")
def look(v):
    kept.append(v[1:])
    raise ValueError("stop")
try:
    m.f(8)
except ValueError:
    pass
for _ in range(100):
    np.ones(1 << 16)  # reuse of freed memory
print("kept slice sums to", kept[0].sum())
""",
)

# memref.realloc lowers (expand-realloc): its module stays callable.
# CHECK-LABEL: CASE: memref.realloc
# CHECK: grown: [5. 5. 5. 5. 0. 0.]
# CHECK: exit code: 0
case(
    "memref.realloc",
    """
import numpy as np
from mlir.execution_engine import jit
m = jit('''
func.func @grow(%x: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%m) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  %b = memref.realloc %a(%n) : memref<?xf32> to memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  scf.for %i = %m to %n step %c1 {
    memref.store %zero, %b[%i] : memref<?xf32>
  }
  return %b : memref<?xf32>
}''', cache_dir=None)
print("grown:", m.grow(np.full(4, 5, np.float32), 6))
""",
)
