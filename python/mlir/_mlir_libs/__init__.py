"""The extension modules and the aggregate MLIR C API library they load."""
