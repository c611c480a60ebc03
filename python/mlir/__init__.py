"""MLIR's Python bindings: IR, pass manager and the JIT execution engine."""
