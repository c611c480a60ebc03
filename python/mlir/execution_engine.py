"""The JIT execution engine, as upstream's `mlir.execution_engine`, and the
typed layer beyond upstream (`jit`, `JitModule`)."""

from ._engine import ExecutionEngine
from .jit import BUFFERIZATION_PIPELINE, DEFAULT_PIPELINE, FAST_PIPELINE, JitModule, jit

__all__ = [
    "ExecutionEngine",
    "JitModule",
    "jit",
    "DEFAULT_PIPELINE",
    "BUFFERIZATION_PIPELINE",
    "FAST_PIPELINE",
]
