"""Walking upstream's IR: operations (not OpViews), with explicit stacks,
as IR may nest deeper than Python recurses."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import ir


def _children(op: ir.Operation) -> list[ir.Operation]:
    # Operations, not OpViews: a func.FuncOp's `name` is its symbol.
    return [inner.operation for region in op.regions for block in region for inner in block]


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """`op` and every op nested in it (an explicit stack: IR may nest deeper
    than Python recurses)."""
    pending = [op]
    while pending:
        op = pending.pop()
        yield op
        pending.extend(_children(op))


def _contains(op: ir.Operation, predicate: Callable[[ir.Operation], bool]) -> bool:
    return any(predicate(inner) for inner in _walk(op))


def _module_of(capsule: object) -> ir.Module:
    """The ir.Module owning the module in `capsule` (upstream's stubs omit
    Module._CAPICreate)."""
    create: Callable[[object], ir.Module] = getattr(ir.Module, "_CAPICreate")
    return create(capsule)
