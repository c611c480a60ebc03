# RUN: env OMP_NUM_THREADS=2 %PYTHON %s | FileCheck %s
#
# FAST_PIPELINE runs the matmul schedule's blocks, and the module's own
# scf.parallel, scf.forall and affine.parallel loops that neither call nor
# reduce, on the threads of LLVM's OpenMP runtime, OMP_NUM_THREADS of them
# (two here, whatever the machine), forking only for two iterations or more
# (jit-parallel-if). Loops that call (a Python callback, or a function that
# may call one) or reduce run on the calling thread (jit-sequential-loops),
# as DEFAULT_PIPELINE runs them all: a callback's exception is re-raised
# when the call returns, and the module's next call runs anew.

import ctypes
import json
import os
import subprocess
import sys
import threading

import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

from fixtures import STORE

MATMUL = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

LOOPS = """
func.func private @visit(i64)

func.func @parallel(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = arith.index_cast %i : index to i64
    func.call @visit(%v) : (i64) -> ()
    scf.reduce
  }
  return
}

func.func @forall(%n: index) {
  scf.forall (%i) in (%n) {
    %v = arith.index_cast %i : index to i64
    func.call @visit(%v) : (i64) -> ()
  }
  return
}

func.func @sum_of_squares(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f64 {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.mulf %v, %v : f64
    scf.reduce(%s : f64) {
    ^bb0(%l: f64, %r: f64):
      %t = arith.addf %l, %r : f64
      scf.reduce.return %t : f64
    }
  }
  return %sum : f64
}
"""


def check_matmul():
    module = jit(MATMUL, pipeline=FAST_PIPELINE, opt_level=3, cache_dir=None)
    rng = np.random.default_rng(0)
    # One block, blocks and remainders in every dimension, more blocks than
    # threads.
    sizes = [(1, 1, 1), (63, 65, 7), (64, 64, 1024), (65, 129, 1025), (300, 260, 2100)]
    for m, n, k in sizes:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        c = rng.standard_normal((m, n), dtype=np.float32)
        expected = c + a @ b
        result = module.mm(a, b, c)
        close = np.allclose(result, expected, rtol=1e-4, atol=1e-4 * np.sqrt(k))
        print(f"matmul {m}x{n}x{k}: {'right' if close else 'WRONG'}")


# CHECK: matmul 1x1x1: right
# CHECK: matmul 63x65x7: right
# CHECK: matmul 64x64x1024: right
# CHECK: matmul 65x129x1025: right
# CHECK: matmul 300x260x2100: right
check_matmul()


def check_loops(pipeline, name):
    module = jit(LOOPS, pipeline=pipeline, cache_dir=None)
    visits = []

    @module.callback("visit")
    def visit(i):
        visits.append((i, threading.get_ident()))

    for loop in ("parallel", "forall"):
        visits.clear()
        module[loop](1000)
        iterations = sorted(i for i, _ in visits)
        threads = {thread for _, thread in visits}
        print(
            f"{name} {loop}: every iteration once: {iterations == list(range(1000))}, "
            f"threads: {len(threads)}, the caller's among them: "
            f"{threading.get_ident() in threads}"
        )

    x = np.arange(100001, dtype=np.float64) / 1000
    print(f"{name} reduction: {np.isclose(module.sum_of_squares(x), np.dot(x, x), rtol=1e-12)}")

    def fail_at_500(i):
        visits.append((i, threading.get_ident()))
        if i == 500:
            raise KeyError("iteration 500")

    module = jit(LOOPS, pipeline=pipeline, cache_dir=None)
    module.register("visit", fail_at_500)
    visits.clear()
    try:
        module.parallel(1000)
        print(f"{name}: no exception")
    except KeyError as error:
        print(f"{name}: raised after the call: {error!r}")
    visits.clear()
    module.parallel(400)
    print(f"{name}: next call: {sorted(i for i, _ in visits) == list(range(400))}")


# CHECK: fast parallel: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: fast forall: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: fast reduction: True
# CHECK: fast: raised after the call: KeyError('iteration 500')
# CHECK: fast: next call: True
check_loops(FAST_PIPELINE, "fast")


# CHECK: default parallel: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: default forall: every iteration once: True, threads: 1, the caller's among them: True
# CHECK: default reduction: True
# CHECK: default: raised after the call: KeyError('iteration 500')
# CHECK: default: next call: True
check_loops(DEFAULT_PIPELINE, "default")


def lowered(source, pipeline):
    with Context():
        module = Module.parse(source)
        PassManager.parse(pipeline).run(module.operation)
        return str(module)


# What FAST_PIPELINE makes of each function (alone in a module): OpenMP's
# parallel regions for the matmul and a loop that neither calls nor reduces,
# none for loops that call or reduce.
# CHECK: matmul: parallel regions: 1
# CHECK: store: parallel regions: 1
# CHECK: parallel: parallel regions: 0
# CHECK: sum_of_squares: parallel regions: 0
for name, source in [
    ("matmul", MATMUL),
    ("store", STORE),
    ("parallel", LOOPS),
    ("sum_of_squares", LOOPS),
]:
    if source is LOOPS:
        start = source.index(f"func.func @{name}(")
        end = source.index("\n}\n", start) + 3
        source = "func.func private @visit(i64)\n" + source[start:end]
    print(f"{name}: parallel regions: {lowered(source, FAST_PIPELINE).count('omp.parallel')}")

# A loop that stores runs right, in parallel.
module = jit(STORE, pipeline=FAST_PIPELINE, cache_dir=None)
x = np.zeros(100003)
module.store(x)
# CHECK: stored in parallel: True
print(f"stored in parallel: {np.array_equal(x, np.arange(100003, dtype=np.float64))}")

# LLVM's OpenMP runtime stays private to the package: its functions are not
# in the process's global namespace, where a library loaded later that wants
# GCC's libgomp could bind to its GOMP_ functions.
# CHECK: OpenMP runtime global: False
print(f"OpenMP runtime global: {hasattr(ctypes.CDLL(None), '__kmpc_fork_call')}")

# jit-parallel-if: a parallel region forks for two iterations or more, and
# when it can count its ops before it runs, for 2^17 ops or more.
# CHECK-LABEL: func.func @fork
# CHECK: %[[SPAN:.*]] = arith.maxsi
# CHECK: %[[COUNT:.*]] = arith.ceildivsi %[[SPAN]]
# CHECK: %[[TWO:.*]] = arith.cmpi sge, %[[COUNT]], %c2
# CHECK: %[[OPS:.*]] = arith.muli %[[COUNT]], %{{.*}} : index
# CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[OPS]], %c131072
# CHECK: %[[FORK:.*]] = arith.andi %[[TWO]], %[[ENOUGH]] : i1
# CHECK: omp.parallel if(%[[FORK]])
print(
    lowered(
        STORE.replace("@store", "@fork"),
        "builtin.module(convert-scf-to-openmp,jit-parallel-if)",
    )
)

# jit-sequential-loops: a loop that reduces, as scf.for loops whose
# iteration argument the reduction's region combines.
# CHECK-LABEL: func.func @sum_of_squares
# CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64)
# CHECK: %[[SQUARE:.*]] = arith.mulf
# CHECK: %[[NEW:.*]] = arith.addf %[[ACC]], %[[SQUARE]] : f64
# CHECK: scf.yield %[[NEW]] : f64
# CHECK-NOT: scf.parallel
print(lowered(LOOPS, "builtin.module(jit-sequential-loops)"))

# OMP_NUM_THREADS is checked against what LLVM's OpenMP runtime reads when
# it reads it: at the first parallel call of the process, which then has
# the runtime read it (and by jit(FAST_PIPELINE) before that). A value it
# would abort the process on (or read garbage from), set before or after
# jit(), is a ValueError at that call, which runs once the value is fixed;
# a value set later is not read (the runtime ignores it), not even by a
# forked child's runtime, which starts again in fork() with the parent's
# value unless the new one is one it reads. Each case in a process of its
# own; what the runtime reads: lib/ExecutionEngine/OpenMPThreads.cpp.
THREADS = r"""
import ctypes, json, os, sys
import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
store, steps = sys.argv[1], json.loads(sys.argv[2])
x = np.zeros(1 << 18)
module = None
said = []

def threads():
    # The runtime's count, once it has read the variable.
    return ctypes.CDLL("libomp.so.5").omp_get_max_threads()

for step, *value in steps:
    try:
        if step == "set":
            os.environ["OMP_NUM_THREADS"] = value[0]
        elif step == "jit":
            module = jit(store, pipeline=FAST_PIPELINE, cache_dir=None)
            said.append("jit")
        elif step == "call":
            module.store(x)
            said.append(f"ran on {threads()}")
        elif step == "fork":
            child = os.fork()
            if child == 0:
                try:
                    module.store(x)
                    print(f"child ran on {threads()}", flush=True)
                except ValueError as error:
                    print("child ValueError:", error, flush=True)
                os._exit(0)
            status = os.waitpid(child, 0)[1]
            said.append(f"fork {status} env {os.environ['OMP_NUM_THREADS']!r}")
        elif step == "default":
            jit(store, pipeline=DEFAULT_PIPELINE, cache_dir=None).store(x)
            said.append("default ran")
    except ValueError as error:
        said.append(f"ValueError: {error}")
print(" | ".join(said))
"""


def threads_case(name, steps, initial=None, **variables):
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if initial is not None:
        env["OMP_NUM_THREADS"] = initial
    env.update(variables)
    out = subprocess.run(
        [sys.executable, "-c", THREADS, STORE, json.dumps(steps)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = out.stdout.strip().splitlines()
    warnings = [line for line in out.stderr.splitlines() if line.startswith("OMP:")]
    print(f"{name}: exit {out.returncode}:", " || ".join(lines), "| stderr:", warnings)


# Set after jit(), before the first parallel call: refused by the call, which
# runs once it is fixed; ignored once the runtime has read it.
REFUSED = ["", " \t", "abc", "-3", "+3", "1.5", "2\n", "2 3", "all,2", "5000000"]
threads_case(
    "after jit()",
    [["jit"], *[step for v in REFUSED for step in (["set", v], ["call"])]]
    + [["set", "3"], ["call"], ["set", "abc"], ["call"], ["jit"], ["call"]],
)
# CHECK: after jit(): exit 0: jit | ValueError: OMP_NUM_THREADS='' is not a thread count LLVM's OpenMP runtime reads (it is empty): it would abort the process when it reads it, at the first parallel loop (FAST_PIPELINE's, or the omp dialect's); set it to a number of threads, such as 2, or unset it for one a core
# CHECK-SAME: | ValueError: OMP_NUM_THREADS=' \t' is not a thread count LLVM's OpenMP runtime reads (it holds only spaces or tabs)
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='abc' is not a thread count LLVM's OpenMP runtime reads ('a' is neither a digit, a comma, a space nor a tab)
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='-3' is not a thread count LLVM's OpenMP runtime reads ('-' is neither
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='+3' is not a thread count LLVM's OpenMP runtime reads ('+' is neither
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='1.5' is not a thread count LLVM's OpenMP runtime reads ('.' is neither
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='2\n' is not a thread count LLVM's OpenMP runtime reads ('\n' is neither
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='2 3' is not a thread count LLVM's OpenMP runtime reads (two numbers are apart without a comma)
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='all,2' is not a thread count LLVM's OpenMP runtime reads ('a' is neither
# CHECK-SAME: | ValueError: OMP_NUM_THREADS='5000000' asks for 5000000 threads, more than this system runs (at most {{[0-9]+}}: /proc/sys/kernel/{{pid_max|threads-max}}): LLVM's OpenMP runtime would abort the process when it failed to start them, at the first parallel loop; set it to fewer threads, or unset it for one a core
# CHECK-SAME: | ran on 3 | ran on 3 | jit | ran on 3 | stderr: []

# What the runtime reads, as it reads it: 0 is 1 (with its warning), a
# list is a count a nesting level, "all" and a leading comma one a core.
for value in ["0", "0002", " 2 , 1 ", "2,,3", "all", "ALL", ",2"]:
    threads_case(f"{value!r}", [["jit"], ["call"]], initial=value)
# CHECK: '0': exit 0: jit | ran on 1 | stderr: ['OMP: Warning #80: OMP_NUM_THREADS="0": value too small.', 'OMP: Info #104: OMP_NUM_THREADS value "1" will be used.']
# CHECK: '0002': exit 0: jit | ran on 2 | stderr: []
# CHECK: ' 2 , 1 ': exit 0: jit | ran on 2 | stderr: []
# CHECK: '2,,3': exit 0: jit | ran on 2 | stderr: []
# CHECK: 'all': exit 0: jit | ran on [[CORES:[0-9]+]] | stderr: []
# CHECK: 'ALL': exit 0: jit | ran on [[CORES]] | stderr: []
# CHECK: ',2': exit 0: jit | ran on [[CORES]] | stderr: []

# jit(FAST_PIPELINE) refuses what the first call would, until the runtime
# has read the variable; more threads than cores are taken (the system can
# start them); DEFAULT_PIPELINE's modules never call the runtime.
threads_case("at jit()", [["jit"], ["default"]], initial="abc")
threads_case("10000 at jit()", [["jit"]], initial="10000")
threads_case("more than cores", [["jit"], ["call"]], initial="37")
# CHECK: at jit(): exit 0: ValueError: OMP_NUM_THREADS='abc' is not a thread count LLVM's OpenMP runtime reads ('a' is neither a digit, a comma, a space nor a tab): {{.*}} | default ran | stderr: []
# CHECK: 10000 at jit(): exit 0: jit | stderr: []
# CHECK: more than cores: exit 0: jit | ran on 37 | stderr: []

# Threads with stacks the system cannot give (the runtime's KMP_STACKSIZE or
# OMP_STACKSIZE), even as many as cores: refused, where the runtime aborted.
threads_case("stacks of 1 TB", [["jit"]], initial="2", KMP_STACKSIZE="1T")
threads_case("stacks of 100 GB", [["jit"]], initial="2", OMP_STACKSIZE="100g")
threads_case("stacks of 8 MB", [["jit"], ["call"]], initial="2", OMP_STACKSIZE="8192")
# CHECK: stacks of 1 TB: exit 0: ValueError: OMP_NUM_THREADS='2' asks for 2 threads, and this process can start only 0 more now, each with the runtime's stack of 1099511627776 bytes (KMP_STACKSIZE=1T): the system's limits on threads, processes or memory: {{.*}} | stderr: []
# CHECK: stacks of 100 GB: exit 0: ValueError: {{.*}} each with the runtime's stack of 107374182400 bytes (OMP_STACKSIZE=100g){{.*}} | stderr: []
# CHECK: stacks of 8 MB: exit 0: jit | ran on 2 | stderr: []

# A child forked once the runtime has read the variable: its runtime starts
# again in fork(), with the value set since if it reads it, else with the
# parent's (the variable is restored right after, in both).
threads_case(
    "forks",
    [["set", "3"], ["jit"], ["call"], ["set", ""], ["fork"], ["set", "2 3"], ["fork"]]
    + [["set", "1"], ["fork"], ["call"]],
)
# CHECK: forks: exit 0: child ran on 3
# CHECK-SAME: || child ran on 3 || child ran on 1 || jit | ran on 3 | fork 0 env '' | fork 0 env '2 3' | fork 0 env '1' | ran on 3 | stderr: []
# A child forked before the runtime read it: its first parallel call checks.
threads_case("fork first", [["jit"], ["set", "abc"], ["fork"], ["set", "2"], ["fork"]])
# CHECK: fork first: exit 0: child ValueError: OMP_NUM_THREADS='abc' is not a thread count {{.*}} || child ran on 2 || jit | fork 0 env 'abc' | fork 0 env '2' | stderr: []

# ExecutionEngine's lookup and invoke of code that calls the runtime check
# it too (the engine's C API, mlirExecutionEngineLookupChecked, does).
ENGINE = r"""
import ctypes, os, sys
import numpy as np
from mlir.execution_engine import ExecutionEngine
from mlir.ir import Context, Module
from mlir.passmanager import PassManager
from mlir.runtime import get_ranked_memref_descriptor
with Context():
    module = Module.parse(sys.argv[1].replace("@store(%x: memref<?xf64>)",
        "@store(%x: memref<?xf64>) attributes {llvm.emit_c_interface}"))
    PassManager.parse(sys.argv[2]).run(module.operation)
    engine = ExecutionEngine(module)
x = np.zeros(1 << 18)
arg = ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(x)))
for value in ["abc", "2"]:
    os.environ["OMP_NUM_THREADS"] = value
    for name, run in [("invoke", lambda: engine.invoke("store", arg)),
                      ("raw_lookup", lambda: engine.raw_lookup("store"))]:
        try:
            run()
            print(name, value, "ran", x[-1] == x.size - 1)
        except ValueError as error:
            print(name, value, "ValueError:", str(error)[:43])
"""
OPENMP_LOWERING = (
    "builtin.module(convert-scf-to-openmp,convert-scf-to-cf,finalize-memref-to-llvm,"
    "convert-arith-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,convert-cf-to-llvm,"
    "reconcile-unrealized-casts)"
)
engine_out = subprocess.run(
    [sys.executable, "-c", ENGINE, STORE, OPENMP_LOWERING], capture_output=True, text=True
)
print("engine:", " | ".join(engine_out.stdout.splitlines()), engine_out.returncode)
# CHECK: engine: invoke abc ValueError: OMP_NUM_THREADS='abc' is not a thread count | raw_lookup abc ValueError: OMP_NUM_THREADS='abc' is not a thread count | invoke 2 ran True | raw_lookup 2 ran True 0

# linalg's ops run on the threads too (convert-linalg-to-parallel-loops): a
# generic's parallel dimensions but its innermost, which stays a loop LLVM
# vectorizes; a reduction's accumulator kept in a register. Results are
# DEFAULT_PIPELINE's, exactly, whatever the shape and strides.
KERNELS = """
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %max = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%xi: f32, %acc: f32):
    %r = arith.maximumf %xi, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %max : tensor<?xf32>
}
func.func @scale(%x: tensor<?x?xf32>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%xi: f32, %si: f32, %o: f32):
    %q = arith.mulf %xi, %si : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""
fast = jit(KERNELS, pipeline=FAST_PIPELINE, cache_dir=None)
default = jit(KERNELS, pipeline=DEFAULT_PIPELINE, cache_dir=None)
rng = np.random.default_rng(1)
# CHECK: kernels (0, 5): same
# CHECK: kernels (5, 0): same
# CHECK: kernels (1, 1): same
# CHECK: kernels (3, 70001): same
# CHECK: kernels (2048, 64): same
# CHECK: kernels (100003, 1): same
# CHECK: kernels (300, 200) transposed: same
for shape in [(0, 5), (5, 0), (1, 1), (3, 70001), (2048, 64), (100003, 1), (200, 300)]:
    x = rng.standard_normal(shape, dtype=np.float32)
    name = str(shape)
    if shape == (200, 300):
        x, name = x.T, "(300, 200) transposed"
    init = rng.standard_normal(x.shape[0], dtype=np.float32)
    s = rng.standard_normal(x.shape[0], dtype=np.float32)
    same = all(
        np.array_equal(fast[f](x, v), default[f](x, v)) and np.array_equal(fast[f](x, v), expected)
        for f, v, expected in [
            ("row_max", init, np.maximum(init, x.max(axis=1, initial=-np.inf))),
            ("scale", s, x * s[:, None]),
        ]
    )
    print(f"kernels {name}: {'same' if same else 'DIFFERENT'}")

# CHECK: row_max: parallel regions: 1
# CHECK: scale: parallel regions: 1
for name in ["row_max", "scale"]:
    start = KERNELS.index(f"func.func @{name}(")
    source = (
        KERNELS[: KERNELS.index("func.func")] + KERNELS[start : KERNELS.index("\n}\n", start) + 3]
    )
    print(f"{name}: parallel regions: {lowered(source, FAST_PIPELINE).count('omp.parallel')}")

# jit-sequential-loops: a loop of straight-line code in parallel over its
# outer dimensions, its innermost a loop of its own.
# CHECK-LABEL: func.func @grid
# CHECK: scf.parallel (%[[I:.*]]) =
# CHECK: scf.for %[[J:.*]] =
# CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
print(
    lowered(
        """
func.func @grid(%x: memref<?x?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}
""",
        "builtin.module(jit-sequential-loops)",
    )
)

# jit-register-accumulators: an element of an allocation that a loop loads
# and stores, nothing else in the loop touching it, becomes an iteration
# argument, loaded before (if the loop runs) and stored after; an argument's
# element (which another argument may overlap) or one that the loop also
# reads through a view stays in memory.
ACCUMULATE = """
func.func @{name}(%x: memref<?x?xf32>, %out: memref<?xf32>) -> memref<?xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %alloc = memref.alloc(%m) : memref<?xf32>
  %view = memref.subview %alloc[0] [%m] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  scf.for %i = %c0 to %m step %c1 {{
    scf.for %j = %c0 to %n step %c1 {{
      %v = memref.load {read}[%i, %j] : memref<?x?xf32>
      %a = memref.load {acc}[%i] : memref<?xf32>
      %s = arith.addf %v, %a : f32
      memref.store %s, {acc}[%i] : memref<?xf32>
    }}
  }}
  return %alloc : memref<?xf32>
}}
"""
# CHECK-LABEL: func.func @in_register
# CHECK: %[[RUNS:.*]] = arith.cmpi slt
# CHECK: scf.if %[[RUNS]] {
# CHECK: %[[INIT:.*]] = memref.load %[[ACC:.*]][%[[ROW:.*]]] : memref<?xf32>
# CHECK: %[[SUM:.*]] = scf.for %{{.*}} iter_args(%[[PARTIAL:.*]] = %[[INIT]]) -> (f32) {
# CHECK: %[[NEXT:.*]] = arith.addf %{{.*}}, %[[PARTIAL]] : f32
# CHECK: scf.yield %[[NEXT]] : f32
# CHECK: memref.store %[[SUM]], %[[ACC]][%[[ROW]]] : memref<?xf32>
# CHECK-LABEL: func.func @argument
# CHECK-NOT: iter_args
# CHECK-LABEL: func.func @through_view
# CHECK-NOT: iter_args
# CHECK-LABEL: func.func @end
print(
    lowered(
        ACCUMULATE.format(name="in_register", read="%x", acc="%alloc")
        + ACCUMULATE.format(name="argument", read="%x", acc="%out")
        + ACCUMULATE.format(name="through_view", read="%x", acc="%alloc").replace(
            "%v = memref.load %x[%i, %j] : memref<?x?xf32>",
            "%v = memref.load %view[%j] : memref<?xf32, strided<[1]>>",
        )
        + "func.func @end() {\n  return\n}\n",
        "builtin.module(jit-register-accumulators)",
    )
)

# jit-parallel-if counts the ops of a loop that does not run (a step of 0,
# behind an scf.if) without dividing by zero.
STEP_ZERO = """
func.func @step_zero(%y: memref<?xf32>, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %y, %c0 : memref<?xf32>
  %pos = arith.cmpi sgt, %s, %c0 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.if %pos {
      scf.for %j = %c0 to %n step %s {
        %v = memref.load %y[%j] : memref<?xf32>
        memref.store %v, %y[%i] : memref<?xf32>
      }
    }
    scf.reduce
  }
  return
}
"""
y = np.arange(1000, dtype=np.float32)
jit(STEP_ZERO, pipeline=FAST_PIPELINE, cache_dir=None).step_zero(y, 0)
# CHECK: a step of 0: True
print(f"a step of 0: {np.array_equal(y, np.arange(1000, dtype=np.float32))}")
