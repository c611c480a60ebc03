"""What jit() finds in a module before lowering it: the dtypes of its
functions' shaped values, ops LLVM 22 crashes on, whether it uses tensors,
and for each function whether its calls release the GIL, need a thread
state, and may be stopped by a raising callback."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import ir
from ..runtime.np_to_memref import _mlir_element_dtype
from .ir_walk import _callee, _children, _contains, _is_call, _walk

if TYPE_CHECKING:
    from .state import _JitState


def _dtypes(function_type: ir.FunctionType) -> list[np.dtype[Any] | None]:
    """For each argument, then each result: the numpy dtype of a memref's
    (ranked or not), tensor's or vector's elements, or None."""
    dtypes: list[np.dtype[Any] | None] = []
    for t in [*function_type.inputs, *function_type.results]:
        shaped = (ir.MemRefType, ir.UnrankedMemRefType, ir.RankedTensorType, ir.VectorType)
        dtypes.append(_mlir_element_dtype(str(t.element_type)) if isinstance(t, shaped) else None)
    return dtypes


def _refuse_crashing_ops(module: ir.Module) -> None:
    """Refuses what crashes LLVM 22's lowering rather than lowering it: an
    expand_shape (tensor or memref) with two dynamic sizes in one group of
    dimensions makes expand-strided-metadata segfault."""
    dynamic = str(-(2**63))
    for op in _walk(module.operation):
        if op.name not in ("tensor.expand_shape", "memref.expand_shape"):
            continue
        sizes = str(op.attributes["static_output_shape"]).split(":", 1)[-1]
        is_dynamic = [size.strip(" >") == dynamic for size in sizes.split(",")]
        groups = json.loads(str(op.attributes["reassociation"]))
        if any(sum(is_dynamic[d] for d in group) > 1 for group in groups):
            raise ValueError(
                f"{op.name} with two dynamic sizes in one group of dimensions "
                "(here " + str(op.attributes["reassociation"]) + ") crashes LLVM 22's "
                "expand-strided-metadata pass; give all but one size of each group "
                "statically, or reshape with tensor.reshape/memref.reshape"
            )


def _uses_tensors(module: ir.Module, signatures: Iterable[ir.FunctionType]) -> bool:
    """Whether the module needs bufferizing: a function (of `signatures`, the
    types of its func.funcs) takes or returns a tensor, an op of the tensor or
    bufferization dialect makes one, or a constant is one."""
    tensor_types = (ir.RankedTensorType, ir.UnrankedTensorType)
    for signature in signatures:
        if any(isinstance(t, tensor_types) for t in [*signature.inputs, *signature.results]):
            return True

    def makes_tensor(op: ir.Operation) -> bool:
        if op.name == "arith.constant":
            return isinstance(op.attributes["value"].type, tensor_types)
        return op.name.split(".")[0] in ("tensor", "bufferization")

    return _contains(module.operation, makes_tensor)


def _releases_gil(function: ir.Operation, callbacks: set[str]) -> bool:
    """Whether a call releases the GIL while `function` runs. It keeps it
    for straight-line code (cheap) and for code that calls only Python
    callbacks, each loop or branch among them calling one (each callback
    would take the GIL back; while kept, other threads get a turn every few
    callbacks). Anything else may run long without Python: it releases it."""
    body = list(function.regions[0])
    if len(body) > 1:
        return True
    # Post-order, with an explicit stack (IR may nest deeper than Python
    # recurses): a frame is [op, its ops still to visit, whether an op below
    # it calls a callback]. Any op that releases makes the function release.
    stack: list[list[Any]] = [[None, [op.operation for op in body[0]], False]]
    while stack:
        frame = stack[-1]
        if frame[1]:
            op = frame[1].pop()
            if "call" in op.name:
                # Any call but a callback's (func.call_indirect, llvm.call,
                # ...) may run long, or wait for a thread that calls back
                # into Python.
                if not (op.name == "func.call" and _callee(op) in callbacks):
                    return True
                frame[2] = True
            elif op.regions:
                # The OpenMP dialect's regions may run on other threads,
                # where each callback takes the GIL.
                if op.name.startswith("omp.") or any(
                    len(list(region)) > 1 for region in op.regions
                ):
                    return True
                stack.append([op, _children(op), False])
            continue
        stack.pop()
        if frame[0] is not None:
            if not frame[2]:
                return True  # a loop or branch that calls no callback
            stack[-1][2] = True
    return False


def _may_call_back(function: ir.Operation, state: _JitState) -> bool:
    """Whether a Python callback may run while `function` runs: its module
    declares callbacks, and it calls something (directly or through a
    pointer: only calls can reach a callback), or a shared library's code,
    which may call back from threads of its own, is linked in. Calls of
    other functions need no thread state for callbacks."""
    if not state.slots:
        return False
    return bool(state.shared_libs) or _contains(function, _is_call)


def _may_allocate(function: ir.Operation) -> bool:
    """Whether `function` may allocate memory (an allocation that fails
    stops the call, as a raising callback does): it allocates memrefs,
    copies them (a copy of different shapes stops it too), uses tensors,
    which bufferization allocates, or calls something."""
    return _contains(
        function,
        lambda op: (
            op.name in ("memref.alloc", "memref.realloc", "memref.copy")
            or op.name.split(".")[0] in ("tensor", "bufferization", "linalg")
            or _is_call(op)
        ),
    )


# Dialects whose ops the default pipeline lowers to the module's own code
# and to calls of C library functions that never call back (malloc,
# memrefCopy, libm).
_OWN_CODE_DIALECTS = {
    "builtin",
    "func",
    "arith",
    "math",
    "scf",
    "cf",
    "memref",
    "complex",
    "index",
    "ub",
    "affine",
    "vector",
    "linalg",
    "tensor",
    "bufferization",
}


def _stoppable(module: ir.Module, state: _JitState, custom_pipeline: bool) -> bool:
    """Whether a raising callback may stop its module's calls by jumping
    back to the call over the frames between, which must then all be the
    module's own code (no unwinding needed): no shared library, no pipeline
    of the user's (it may bring runtimes, such as OpenMP's, that call the
    module back), no op of another dialect (an external `llvm.func`, such as
    libc's `qsort`, may call the module back), and no call but of the
    module's own functions. (FAST_PIPELINE's parallel loops call nothing:
    a callback never runs inside one.)"""
    if state.shared_libs or custom_pipeline:
        return False
    own = {
        ir.StringAttr(op.attributes["sym_name"]).value
        for op in _children(module.operation)
        if op.name == "func.func"
    }
    for op in _walk(module.operation):
        if op.name.split(".")[0] not in _OWN_CODE_DIALECTS:
            return False
        if _is_call(op) and not (op.name == "func.call" and _callee(op) in own):
            return False
    return True
