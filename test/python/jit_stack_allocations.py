# RUN: %PYTHON %s | FileCheck %s
#
# A loop is an automatic allocation scope: its memref.allocas are freed at
# the end of each iteration. convert-scf-to-cf lowers it to blocks that do
# not free them, and LLVM keeps only the allocas of a function's entry block
# in its frame: an alloca in a loop grew the stack every iteration. The
# schedule's vectorized matmul has such temporaries (convert-vector-to-scf's
# buffers for 2-d vectors, in the k loop): at opt_level=0, where LLVM leaves
# them in memory, 130x1030x70 overflowed the stack (SIGSEGV).
# jit-hoist-allocas moves a static alloca out of its loops, to the function's
# entry or to its parallel iteration's alloca_scope, and frees the others at
# the end of each iteration. Each case runs in a process of its own, with
# an 8 MB stack, so that a crash is a failed CHECK.

from fixtures import run_python
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE
from mlir.ir import Context, Module
from mlir.passmanager import PassManager

PRELUDE = """
import resource, sys
import numpy as np
from mlir.execution_engine import DEFAULT_PIPELINE, FAST_PIPELINE, jit
# The calling thread's stack as on a default Linux: 8 MB (or less).
hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
soft = 8 << 20 if hard == resource.RLIM_INFINITY else min(8 << 20, hard)
resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))
"""


def run(name, code):
    """Runs `code` after PRELUDE in a new process; prints its output, or how
    it died."""
    result = run_python(PRELUDE + code)
    print(f"{name}: {result.stdout.strip()}")
    if result.returncode != 0:
        print(f"{name}: exit code {result.returncode} {result.stderr.strip()[-300:]}")


# The schedule's matmul at every opt level, f32, i32, f64, and i8 into i32,
# at the reported sizes and larger ones (K of 4100: four blocks of 1024).
# CHECK: matmul: O0 f32 130x1030x70 True
# CHECK-NEXT: O0 f32 300x4100x130 True
# CHECK-NEXT: O0 i32 130x1030x70 True
# CHECK-NEXT: O0 i32 300x4100x130 True
# CHECK-NEXT: O0 f64 130x1030x70 True
# CHECK-NEXT: O0 i8->i32 130x1030x70 True
# CHECK-NEXT: O1 f32 130x1030x70 True
# CHECK-NEXT: O2 f32 130x1030x70 True
# CHECK-NEXT: O3 f32 130x1030x70 True
# CHECK-NOT: exit code
run(
    "matmul",
    """
def matmul(inputs, output):
    return f'''
func.func @matmul(%a: tensor<?x?x{inputs}>, %b: tensor<?x?x{inputs}>, %c: tensor<?x?x{output}>) -> tensor<?x?x{output}> {{
  %r = linalg.matmul ins(%a, %b : tensor<?x?x{inputs}>, tensor<?x?x{inputs}>)
                     outs(%c : tensor<?x?x{output}>) -> tensor<?x?x{output}>
  return %r : tensor<?x?x{output}>
}}'''
rng = np.random.default_rng(46)
for opt, inputs, output, sizes in [
    (0, "f32", "f32", (130, 1030, 70)),
    (0, "f32", "f32", (300, 4100, 130)),
    (0, "i32", "i32", (130, 1030, 70)),
    (0, "i32", "i32", (300, 4100, 130)),
    (0, "f64", "f64", (130, 1030, 70)),
    (0, "i8", "i32", (130, 1030, 70)),
    (1, "f32", "f32", (130, 1030, 70)),
    (2, "f32", "f32", (130, 1030, 70)),
    (3, "f32", "f32", (130, 1030, 70)),
]:
    m, k, n = sizes
    dtypes = [np.dtype(t.replace("i", "int").replace("f", "float")) for t in (inputs, output)]
    a = rng.integers(-4, 4, (m, k)).astype(dtypes[0])
    b = rng.integers(-4, 4, (k, n)).astype(dtypes[0])
    c = rng.integers(-4, 4, (m, n)).astype(dtypes[1])
    module = jit(matmul(inputs, output), pipeline=FAST_PIPELINE, opt_level=opt, cache_dir=None)
    expected = a.astype(dtypes[1]) @ b.astype(dtypes[1]) + c
    kind = inputs if inputs == output else f"{inputs}->{output}"
    print(f"O{opt} {kind} {m}x{k}x{n}", np.array_equal(module.matmul(a, b, c), expected), flush=True)
""",
)

# The same temporaries from a module's own 2-d vectors in a loop, under
# both pipelines.
# CHECK: vectors in a loop: DEFAULT_PIPELINE True
# CHECK-NEXT: FAST_PIPELINE True
# CHECK-NOT: exit code
run(
    "vectors in a loop",
    """
SOURCE = '''
func.func @sum(%x: memref<?x8x32xf32>, %out: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x8x32xf32>
  %init = vector.transfer_read %out[%c0, %c0], %zero {in_bounds = [true, true]}
      : memref<8x32xf32>, vector<8x32xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> vector<8x32xf32> {
    %v = vector.transfer_read %x[%i, %c0, %c0], %zero {in_bounds = [true, true]}
        : memref<?x8x32xf32>, vector<8x32xf32>
    %s = arith.addf %acc, %v : vector<8x32xf32>
    scf.yield %s : vector<8x32xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  return
}'''
x = np.random.default_rng(1).integers(0, 4, (200000, 8, 32)).astype(np.float32)
for name in ("DEFAULT_PIPELINE", "FAST_PIPELINE"):
    module = jit(SOURCE, pipeline=globals()[name], opt_level=0, cache_dir=None)
    out = np.zeros((8, 32), np.float32)
    module.sum(x, out)
    print(name, np.array_equal(out, x.sum(axis=0)), flush=True)
""",
)

# A module's own allocas in a loop, of a static and of a dynamic size (the
# latter freed at the end of each iteration), at opt levels 0 and 2.
# CHECK: allocas in a loop: DEFAULT_PIPELINE O0 400000.0
# CHECK-NEXT: DEFAULT_PIPELINE O2 400000.0
# CHECK-NEXT: FAST_PIPELINE O0 400000.0
# CHECK-NEXT: FAST_PIPELINE O2 400000.0
# CHECK-NOT: exit code
run(
    "allocas in a loop",
    """
SOURCE = '''
func.func @f(%n: index, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %dynamic = memref.alloca(%k) : memref<?xf32>
    %static = memref.alloca() : memref<64xf32>
    memref.store %one, %dynamic[%c0] : memref<?xf32>
    memref.store %one, %static[%c0] : memref<64xf32>
    %v = memref.load %dynamic[%c0] : memref<?xf32>
    %w = memref.load %static[%c0] : memref<64xf32>
    %s = arith.addf %acc, %v : f32
    %t = arith.addf %s, %w : f32
    scf.yield %t : f32
  }
  return %r : f32
}'''
for name in ("DEFAULT_PIPELINE", "FAST_PIPELINE"):
    for opt in (0, 2):
        module = jit(SOURCE, pipeline=globals()[name], opt_level=opt, cache_dir=None)
        print(name, f"O{opt}", module.f(200000, 256), flush=True)
""",
)


def loop_allocas(pipeline, source):
    """The memref.allocas whose automatic allocation scope is a loop after
    `pipeline`'s passes up to jit-hoist-allocas, and where the others are."""
    end = pipeline.index(",", pipeline.index("jit-hoist-allocas"))
    in_loops, scopes = 0, set()
    with Context():
        module = Module.parse(source)
        PassManager.parse(pipeline[:end] + ")").run(module.operation)

        def walk(op):
            nonlocal in_loops
            for region in op.regions:
                for block in region.blocks:
                    for nested in block.operations:
                        if nested.operation.name == "memref.alloca":
                            scope = nested.operation.parent
                            while scope.name in ("scf.if", "scf.execute_region", "scf.while"):
                                scope = scope.parent
                            if scope.name in ("scf.for", "scf.parallel", "scf.forall"):
                                in_loops += 1
                            scopes.add(scope.name)
                        walk(nested.operation)

        walk(module.operation)
    return in_loops, sorted(scopes)


MATMUL = """
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""
# The matmul's temporaries at the start of each panel's alloca_scope, one a
# thread.
# CHECK: matmul's allocas in loops: 0, in ['memref.alloca_scope']
print("matmul's allocas in loops: {}, in {}".format(*loop_allocas(FAST_PIPELINE, MATMUL)))

# The bodies of sequential loops, which DEFAULT_PIPELINE runs scf.parallel
# as, move to the function.
PARALLEL = """
func.func @f(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      %t = memref.alloca() : memref<4xf32>
      memref.store %one, %t[%c0] : memref<4xf32>
      %v = memref.load %t[%c0] : memref<4xf32>
      memref.store %v, %out[%i] : memref<?xf32>
    }
  }
  return
}
"""
# CHECK: DEFAULT_PIPELINE: 0, in ['func.func']
# CHECK: FAST_PIPELINE: 0, in ['memref.alloca_scope']
for name, pipeline in [("DEFAULT_PIPELINE", DEFAULT_PIPELINE), ("FAST_PIPELINE", FAST_PIPELINE)]:
    print(f"{name}: {{}}, in {{}}".format(*loop_allocas(pipeline, PARALLEL)))

# A loop's static alloca is allocated where the loop is entered, never where
# it is not: 16 MB in a loop inside a branch not taken costs nothing (at the
# function's entry it overflowed an 8 MB stack at O0). And scf.while, a loop
# that is no allocation scope, frees its body's allocas each iteration.
# CHECK: allocas where loops run: O0 not entered 0.0
# CHECK-NEXT: allocas where loops run: O0 scf.while 300000.0
# CHECK-NOT: exit code
run(
    "allocas where loops run",
    """
NOT_ENTERED = '''
func.func @f(%n: index, %flag: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.if %flag -> f32 {
    %q = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %s = memref.alloca() : memref<4000000xf32>
      memref.store %acc, %s[%i] : memref<4000000xf32>
      %b = memref.load %s[%i] : memref<4000000xf32>
      scf.yield %b : f32
    }
    scf.yield %q : f32
  } else {
    scf.yield %zero : f32
  }
  return %r : f32
}'''
WHILE = '''
func.func @f(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r:2 = scf.while (%i = %c0, %acc = %zero) : (index, f32) -> (index, f32) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %acc : index, f32
  } do {
  ^bb0(%i: index, %acc: f32):
    %s = memref.alloca() : memref<256xf32>
    memref.store %one, %s[%c0] : memref<256xf32>
    %b = memref.load %s[%c0] : memref<256xf32>
    %t = arith.addf %acc, %b : f32
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %t : index, f32
  }
  return %r#1 : f32
}'''
print("O0 not entered", jit(NOT_ENTERED, opt_level=0).f(0, False), flush=True)
print("allocas where loops run: O0 scf.while", jit(WHILE, opt_level=0).f(300000), flush=True)
""",
)
