"""MLIR IR: contexts, modules, operations, types and attributes."""

from ._mlir_libs._mlir.ir import *  # noqa: F401,F403
from ._mlir_libs._mlir.ir import MLIRError  # noqa: F401
