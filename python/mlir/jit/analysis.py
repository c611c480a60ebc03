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
from .._mlir_libs import _mlirExecutionEngine as _native
from .ir_walk import _contains, _walk

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


def _call_flags(function: ir.Operation, state: _JitState) -> list[bool]:
    """Whether a call of `function` releases the GIL, and whether it needs a
    thread state. It keeps the GIL for straight-line code (cheap) and for
    code whose every loop and branch calls a Python callback (each would
    take the GIL back; while kept, other threads get a turn every few
    callbacks); anything else may run long without Python. It needs a
    thread state when a callback may run (the module has callbacks, and the
    function calls something, or a shared library's code, which may call
    back from threads of its own, is linked in) or when it may allocate (a
    failed allocation stops the call, as a raising callback does)."""
    runs_without_callbacks, calls, allocates = _native._call_properties(function, list(state.slots))
    may_call_back = bool(state.slots) and (bool(state.shared_libs) or calls)
    return [runs_without_callbacks, may_call_back or allocates]


def _stoppable(module: ir.Module, state: _JitState, custom_pipeline: bool) -> bool:
    """Whether a raising callback may stop its module's calls by jumping
    back to the call over the frames between, which must then all be the
    module's own code (no unwinding needed): no shared library, no pipeline
    of the user's (it may bring runtimes, such as OpenMP's, that call the
    module back), and only ops that lower to the module's own code, calling
    only its own functions (an external `llvm.func`, such as libc's `qsort`,
    may call the module back). (FAST_PIPELINE's parallel loops call
    nothing: a callback never runs inside one.)"""
    if state.shared_libs or custom_pipeline:
        return False
    return _native._calls_only_own_code(module)
