"""MLIR pass manager."""

from ._mlir_libs._mlir.passmanager import *  # noqa: F401,F403
