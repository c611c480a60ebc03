"""lit configuration for this project's tests, run by //bazel:lit.bzl."""

import os
import sys

import lit.formats

config.name = "mlir_execution_engine"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("TEST_TMPDIR", config.test_source_root)

# The RUN lines' tools (FileCheck, C test programs) are found on PATH.
tool_dirs = [
    os.path.dirname(os.path.abspath(tool))
    for tool in lit_config.params.get("tools", "").split(":")
    if tool
]
config.environment["PATH"] = os.pathsep.join(tool_dirs + [os.environ["PATH"]])

# Files named by the test target (`env` of lit_test), by absolute path.
for param, value in lit_config.params.items():
    if param.startswith("env."):
        config.environment[param[len("env."):]] = os.path.realpath(value)

# Python tests import the `mlir` package and numpy from Bazel's PYTHONPATH.
config.substitutions.append(("%PYTHON", sys.executable))
for name in ["PYTHONPATH", "TEST_TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LD_PRELOAD"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]
