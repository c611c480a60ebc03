"""jit()'s pipelines: lowering to the LLVM dialect, bufferization, and
FAST_PIPELINE's schedule; and running them on a module."""

from __future__ import annotations

import os
import weakref

from .. import ir
from .._mlir_libs import _mlirExecutionEngine as _native
from .ir_walk import _walk

# Lowers func, arith, math, scf, cf, memref, complex, index, linalg (to
# loops), affine and vector (for the host's CPU) to the LLVM dialect. The
# code calls memrefCopy and the allocation functions _mlir_memref_to_llvm_*,
# which jit() registers on its engine.
_LOWERING = (
    # Aggregate linalg ops (linalg.softmax) as the linalg ops they stand
    # for; on memrefs, an error naming the op (they decompose on tensors).
    "jit-decompose-aggregates,"
    "convert-bufferization-to-memref,"
    "convert-linalg-to-loops,"
    # memref.realloc as alloc, copy and dealloc (in an scf.if).
    "expand-realloc,"
    # math functions as polynomials that LLVM vectorizes, not libm calls.
    "jit-approximate-math,"
    "convert-vector-to-scf,"
    "func.func(convert-complex-to-standard),"
    "lower-affine,"
    # Loops free their stack allocations each iteration (convert-scf-to-cf
    # would not: convert-vector-to-scf's temporaries in a loop grew the
    # stack every iteration at opt_level=0).
    "jit-hoist-allocas,"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    # arith-expand{include-bf16} (bf16 rounding as integer code: LLVM would
    # use AVX512-BF16's vcvtneps2bf16 where the CPU has it, which flushes
    # subnormals to zero) but for float min/max, left to LLVM's intrinsics
    # (on bf16 and f16 through f32), whose reductions it vectorizes.
    "jit-expand-arith,"
    "convert-vector-to-llvm,"
    "convert-ub-to-llvm,"
    # Allocates through functions jit() provides (huge pages for large
    # buffers, which numpy uses too).
    "finalize-memref-to-llvm{use-generic-functions},"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-complex-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts"
)
DEFAULT_PIPELINE = f"builtin.module({_LOWERING})"

# FAST_PIPELINE's lowering: that of DEFAULT_PIPELINE, but parallel loops
# (the schedule's blocks, and scf.forall and scf.parallel) run on the threads
# of LLVM's OpenMP runtime, OMP_NUM_THREADS of them (by default one a core).
# Memrefs are lowered before the control flow: the memref.alloca_scope
# convert-scf-to-openmp makes cannot be lowered once its region is blocks.
# jit-hoist-allocas runs once the parallel loops are OpenMP's: a static
# alloca of a parallel iteration then moves to the start of that
# iteration's alloca_scope, each thread's own, and one of a loop that runs
# sequentially (jit-sequential-loops) out of it.
_PARALLEL_LOWERING = (
    _LOWERING.replace(
        "convert-linalg-to-loops,",
        "convert-linalg-to-parallel-loops,jit-register-accumulators,",
    )
    .replace(
        "jit-hoist-allocas,convert-scf-to-cf,",
        "scf-forall-to-parallel,jit-sequential-loops,convert-scf-to-openmp,jit-parallel-if,"
        "jit-hoist-allocas,expand-strided-metadata,lower-affine,"
        "finalize-memref-to-llvm{use-generic-functions},convert-scf-to-cf,",
    )
    .replace("reconcile-unrealized-casts", "convert-openmp-to-llvm,reconcile-unrealized-casts")
)

# Aggregate linalg ops decomposed on tensors, then one-shot bufferization,
# function boundaries included, where a tensor
# becomes a memref of any strides (so any view of an array is passed
# uncopied), and deallocation of the buffers it allocates. Tensor arguments
# are values: jit() declares them `bufferization.writable = false` unless
# they say otherwise, so bufferization copies one before writing to it.
# The deallocation pass makes every result the caller's own, cloning a
# returned argument: jit-unclone-returned-arguments returns the argument
# itself instead, which the caller gets as a view of its array.
_BUFFERIZATION = (
    "jit-decompose-aggregates,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=fully-dynamic-layout-map},"
    "buffer-deallocation-pipeline,jit-unclone-returned-arguments"
)
# Runs first on a module that uses tensors, unless its pipeline bufferizes
# (as FAST_PIPELINE does).
BUFFERIZATION_PIPELINE = f"builtin.module({_BUFFERIZATION})"

# The schedule of schedules/fast.mlir (tiling, packing and vectorizing
# linalg.matmul on tensors for the host's CPU, its blocks in parallel), then
# bufferization and the parallel lowering.
_FAST_SCHEDULE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schedules", "fast.mlir"
)
# Before it, aggregate linalg ops are decomposed (a linalg.softmax into the
# chain jit-parallel-fusion takes), and consecutive elementwise linalg ops on
# tensors are fused, each producer used once into its consumer: one loop, no
# temporary between them; each 2-D convolution (NHWC, HWCF) becomes a matmul
# of its input's windows; and each batch_matmul becomes its batches'
# matmuls, in parallel, which the schedule takes.
# After it, whole reductions (a sum, a maximum) whose order does not matter
# are split into chunks reduced in parallel (jit-parallel-reductions), and
# chains of linalg ops that end in a linalg.generic (a softmax's four) are
# computed in parallel tiles of rows, each tile computing its part of every
# op of the chain (jit-parallel-fusion).
_FAST_PASSES = (
    "jit-decompose-aggregates,linalg-fuse-elementwise-ops,jit-convolutions-as-matmuls,jit-unbatch-matmuls,transform-interpreter,jit-parallel-reductions,jit-parallel-fusion,"
    f"{_BUFFERIZATION},{_PARALLEL_LOWERING}"
)
FAST_PIPELINE = (
    "builtin.module("
    f'transform-preload-library{{transform-library-paths={{"{_FAST_SCHEDULE}"}}}},'
    f"{_FAST_PASSES})"
)
# FAST_PIPELINE in a context that has loaded the schedule already.
_FAST_PRELOADED = f"builtin.module({_FAST_PASSES})"
# What FAST_PIPELINE runs on a module whose matmuls the schedule cannot take.
_FAST_UNSCHEDULED = "builtin.module({})".format(_FAST_PASSES.replace("transform-interpreter,", ""))
# The element types the schedule vectorizes correctly: LLVM 22's
# transform interpreter crashes on complex matmuls, and vectorized i1 loads
# treat bytes as packed bits.
_FAST_ELEMENT_TYPES = {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64"}


def _extends(element: str, output: str) -> bool:
    """Whether `element` converts to `output` by an extension (sign or
    float), as the schedule's vectorized matmul converts its inputs."""
    same_kind = element.startswith("i") == output.startswith("i")
    return same_kind and int(element.lstrip("bfi")) < int(output.lstrip("bfi"))


def _schedules(op: ir.Operation) -> bool:
    """Whether the schedule computes the linalg.(batch_)matmul or matvec
    `op` (or the matmul a conv_2d_nhwc_hwcf becomes) right: inputs of the output's element type or extended to it
    (vectorized, a narrowing or an int-float conversion does not verify),
    signed (the schedule ignores cast_unsigned). The element types are its
    operands' (its printed form may show other types first, in attributes)."""
    *inputs, output = (str(ir.ShapedType(value.type).element_type) for value in op.operands)
    cast = op.attributes["cast"] if "cast" in op.attributes else None
    return (
        "cast_unsigned" not in str(cast)
        and {*inputs, output} <= _FAST_ELEMENT_TYPES
        and all(element == output or _extends(element, output) for element in inputs)
    )


def _check_thread_count() -> None:
    """Refuses (ValueError) an OMP_NUM_THREADS that LLVM's OpenMP runtime,
    which runs FAST_PIPELINE's parallel loops, would abort the process on,
    unless the runtime has read the variable already in this process. The
    first parallel call checks it again, then has the runtime read it."""
    _native._check_openmp_threads(False)


# The contexts the schedule is loaded into: loading it into one again fails
# ("doubly defined symbol"), so a second FAST_PIPELINE there skips it.
_SCHEDULE_LOADED: weakref.WeakSet[ir.Context] = weakref.WeakSet()


# The ops the schedule computes, or computes once rewritten as matmuls.
_SCHEDULED = ("linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.conv_2d_nhwc_hwcf")


def _fast_pipeline(module: ir.Module) -> str:
    """What FAST_PIPELINE runs on `module`: without the schedule when one of
    its ops of _SCHEDULED is one the schedule does not take, and without
    loading it when its context has it."""
    if not all(_schedules(op) for op in _walk(module.operation) if op.name in _SCHEDULED):
        return _FAST_UNSCHEDULED
    if module.context in _SCHEDULE_LOADED:
        return _FAST_PRELOADED
    _SCHEDULE_LOADED.add(module.context)
    return FAST_PIPELINE


def _bufferizes(pipeline: str | None) -> bool:
    """Whether the user's `pipeline` bufferizes tensors itself; it must then
    make function boundaries memrefs of any strides, as typed calls pass
    them."""
    if pipeline is None or "one-shot-bufferize" not in pipeline:
        return False
    if "function-boundary-type-conversion=fully-dynamic-layout-map" not in pipeline:
        raise ValueError(
            "the pipeline bufferizes tensors, but not to memrefs of any strides, as "
            "typed calls pass them: give one-shot-bufferize "
            "function-boundary-type-conversion=fully-dynamic-layout-map, or leave "
            "bufferization to jit() (BUFFERIZATION_PIPELINE)"
        )
    return True


def _run_pipeline(module: ir.Module, pipeline: str, failure: str) -> None:
    """Runs `pipeline` on `module` on a stack sized for its nesting (deep IR
    overflows the caller's); a failure is an MLIRError saying `failure`,
    with MLIR's errors."""
    errors = _native._run_pipeline(module, pipeline)
    if errors is not None:
        raise ir.MLIRError(failure + ":" + errors, [])
