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
        config.environment[param[len("env.") :]] = os.path.realpath(value)

# Tests that act as a second local user (a child with another uid) need root.
if os.geteuid() == 0:
    config.available_features.add("root")

# jit()'s persistent cache: a directory of the test's own, so that no test
# sees another's entries or the user's.
config.environment["MLIR_JIT_CACHE_DIR"] = os.path.join(config.test_exec_root, "jit_cache")

# Python tests import the `mlir` package and numpy from Bazel's PYTHONPATH.
# The settings of test/sanitized.sh (`--config=asan`) pass through.
config.substitutions.append(("%PYTHON", sys.executable))
for name in [
    "PYTHONPATH",
    "TEST_TMPDIR",
    "LD_PRELOAD",
    "ASAN_OPTIONS",
    "LSAN_OPTIONS",
    "UBSAN_OPTIONS",
    "PYTHONMALLOC",
    "MLIR_SANITIZERS",
    "MLIR_LEAK_CHECK",
    # Sizes of test/python/fuzz_*.py and stress.py.
    "FUZZ_SCALE",
    "STRESS_THREADS",
    "STRESS_SECONDS",
    # The shards and processes of test/python/jit_math_exhaustive.py.
    "MATH_SHARDS",
    "MATH_JOBS",
]:
    if name in os.environ:
        config.environment[name] = os.environ[name]

# LeakSanitizer, with --config=lsan (MLIR_LEAK_CHECK=1): in lit RUN lines,
# with suppressions for what CPython keeps until exit by design. Options given
# in the environment come last.
if os.environ.get("MLIR_LEAK_CHECK") == "1":
    suppressions = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan_suppressions.txt")
    config.environment["ASAN_OPTIONS"] = ":".join(
        filter(None, [os.environ.get("ASAN_OPTIONS"), "detect_leaks=1"])
    )
    config.environment["LSAN_OPTIONS"] = ":".join(
        filter(
            None,
            [
                "suppressions=" + suppressions,
                "print_suppressions=0",
                os.environ.get("LSAN_OPTIONS"),
            ],
        )
    )

# Upstream's Python tests (test/upstream): what their lit.local.cfg files read,
# and the runtime libraries execution_engine.py's RUN line names.
config.enable_bindings_python = True
config.mlir_include_integration_tests = True
config.available_features.add("host-supports-jit")
for name in ["MLIR_RUNNER_UTILS", "MLIR_C_RUNNER_UTILS"]:
    if name in config.environment:
        config.substitutions.append(("%" + name.lower(), config.environment[name]))
