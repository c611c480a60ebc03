"""Typed calls and callbacks derived from MLIR function signatures.

`jit(source)` binds each `func.func` to a native callable (a builtin
function over a `_mlirExecutionEngine.JitFunction`), gives every function a C interface and
lowers the module to LLVM; the first call creates the ExecutionEngine. A
declared `func.func private @name` becomes a Python callback: the native
side generates its trampoline and binds it to the engine. This module only
says what to bind; the value ABI lives in the native module.
"""

from .module import JitModule, jit
from .pipelines import BUFFERIZATION_PIPELINE, DEFAULT_PIPELINE, FAST_PIPELINE

__all__ = ["JitModule", "jit", "DEFAULT_PIPELINE", "BUFFERIZATION_PIPELINE", "FAST_PIPELINE"]
