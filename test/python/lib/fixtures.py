"""What several lit tests of test/python share: the `add` and callback
modules, the lowering pipeline, and small helpers (printing an exception,
running code in a fresh interpreter, printing what FAST_PIPELINE's schedule
makes of a source).

Each test still says what it does: it names what it imports from here, and
the sources below are short enough to read where they are used.
"""

import ctypes
import os
import struct
import subprocess
import sys
import textwrap

from mlir.ir import Module
from mlir.passmanager import PassManager

# Lowers func, arith, scf, cf and memref to the LLVM dialect.
LOWERING = (
    "builtin.module(convert-scf-to-cf,finalize-memref-to-llvm,convert-func-to-llvm,"
    "convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)"
)

# add(a, b) = a + b, with a C interface for the upstream-style invoke().
ADD = """
func.func @add(%a: i64, %b: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = arith.addi %a, %b : i64
  return %r : i64
}
"""

# call(a) = hook(a), hook being a symbol the module declares but does not
# define (registered with register_runtime).
CALLBACK = """
func.func @call(%a: i64) -> i64 attributes { llvm.emit_c_interface } {
  %r = func.call @hook(%a) : (i64) -> i64
  return %r : i64
}
func.func private @hook(i64) -> i64 attributes { llvm.emit_c_interface }
"""

# store(x): x[i] = i in an scf.parallel loop that neither calls nor reduces,
# which FAST_PIPELINE runs on OpenMP's threads.
STORE = """
func.func @store(%x: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = arith.index_cast %i : index to i64
    %f = arith.sitofp %v : i64 to f64
    memref.store %f, %x[%i] : memref<?xf64>
    scf.reduce
  }
  return
}
"""

# ADD and CALLBACK, and a nop, a fused multiply-add and a memref sum.
# A temporary of n floats, written whole and freed before it returns
# (jit_buffer_reuse.py, jit_fork_amid_allocations.py: of 4 MiB and more,
# its buffer is kept for the next call).
TEMPORARY = """
func.func @through_temporary(%n: index, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%v : f32) outs(%t : memref<?xf32>)
  %r = memref.load %t[%c0] : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return %r : f32
}
"""
FUNCTIONS = (
    ADD
    + CALLBACK
    + """
func.func @nop() attributes { llvm.emit_c_interface } {
  return
}
func.func @fma(%a: f64, %b: f64, %c: f64) -> f64 attributes { llvm.emit_c_interface } {
  %m = arith.mulf %a, %b : f64
  %r = arith.addf %m, %c : f64
  return %r : f64
}
func.func @sum(%x: memref<?xf64>) -> f64 attributes { llvm.emit_c_interface } {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %t = arith.addf %acc, %v : f64
    scf.yield %t : f64
  }
  return %s : f64
}
"""
)


def print_scheduled(source):
    """Prints `source` after FAST_PIPELINE up to its schedule (the preloaded
    library, then the interpreter): what the schedule made of it."""
    from mlir.execution_engine import FAST_PIPELINE
    from mlir.ir import Context

    schedule = FAST_PIPELINE[: FAST_PIPELINE.index("linalg-fuse-elementwise-ops")]
    with Context():
        module = Module.parse(source)
        PassManager.parse(schedule + "transform-interpreter)").run(module.operation)
        print(module)


def lowered(source, context=None):
    """`source` parsed (in `context`, or the current one) and lowered with
    LOWERING."""
    module = Module.parse(source, context=context)
    PassManager.parse(LOWERING, context=module.context).run(module.operation)
    return module


def expect_error(name, fn):
    """Prints `CASE: name`, then runs fn, printing the exception it raises (or that it raised none)."""
    print(f"CASE: {name}")
    try:
        fn()
    except Exception as error:
        print(f"  {type(error).__name__}: {error}")
    else:
        print("  no exception")


def show_error(fn, *args, **kwargs):
    """Calls fn; prints `Type: message` of what it raised, or `no exception`."""
    try:
        fn(*args, **kwargs)
    except Exception as error:
        print(f"{type(error).__name__}: {error}")
    else:
        print("no exception")


def run_python(code, *args, env=None, timeout=600):
    """Runs `code` (dedented) in a new interpreter with this one's
    environment (and `env` added); returns the CompletedProcess, with
    stdout and stderr as text."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, **(env or {})),
        timeout=timeout,
    )


def runner_utils():
    """The paths of libmlir_c_runner_utils.so and libmlir_runner_utils.so
    (the lit test's MLIR_C_RUNNER_UTILS and MLIR_RUNNER_UTILS)."""
    return os.environ["MLIR_C_RUNNER_UTILS"], os.environ["MLIR_RUNNER_UTILS"]


class MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in [
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        ]
    ]


def heap_bytes_in_use():
    """Bytes malloc has handed out and not taken back: AddressSanitizer's
    count when it is the allocator (--config=asan), else glibc's mallinfo2
    (in use in the arena plus mmapped blocks). Not RSS, which freed memory
    kept by malloc inflates."""
    process = ctypes.CDLL(None)
    if hasattr(process, "__sanitizer_get_current_allocated_bytes"):
        process.__sanitizer_get_current_allocated_bytes.restype = ctypes.c_size_t
        return process.__sanitizer_get_current_allocated_bytes()
    process.mallinfo2.restype = MallInfo2
    info = process.mallinfo2()
    return info.uordblks + info.hblkhd


# The object cache's entry header: magic, format, sizes of key, metadata and
# object, checksum of the rest.
CACHE_ENTRY_HEADER = struct.Struct("<8sIIQQQ")


def llvm_xxh3():
    """LLVM's xxh3_64bits(data, size), the cache's checksum, called through
    its C++ symbol (an ArrayRef travels as pointer and size)."""
    import mlir.execution_engine  # noqa: F401 (loads libLLVM)

    with open("/proc/self/maps") as maps:
        library = next(line.split()[-1] for line in maps if "libLLVM" in line)
    xxh3 = ctypes.CDLL(library)["_ZN4llvm11xxh3_64bitsENS_8ArrayRefIhEE"]
    xxh3.restype, xxh3.argtypes = ctypes.c_uint64, [ctypes.c_char_p, ctypes.c_size_t]
    return xxh3
