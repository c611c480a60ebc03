"""The JIT execution engine, as upstream's `mlir.execution_engine`, and the
typed layer beyond upstream (`jit`, `JitModule`)."""

from ._engine import ExecutionEngine
from ._jit import JitModule, jit

__all__ = ["ExecutionEngine", "JitModule", "jit"]
