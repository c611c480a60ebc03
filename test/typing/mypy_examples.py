"""Type checks: `mypy --strict` on examples/ and on this project's modules of
the `mlir` package, and mypy's stubtest of the project's `.pyi` stubs against
its extension module (upstream's modules' stubs are generated from them).

The package is the `//python:mlir` tree in runfiles, on sys.path (PYTHONPATH,
set by Bazel) like an installed package: mypy finds it through its `py.typed`
marker and reads the extension modules' types from their stubs.
"""

import glob
import os
import subprocess
import sys
import textwrap
import unittest
import zipfile

# This repository's root in runfiles (also when it is an external repository).
RUNFILES = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TMP = os.environ["TEST_TMPDIR"]

# The stubs and marker that the package and the wheel ship.
TYPING_FILES = [
    "mlir/py.typed",
    "mlir/_mlir_libs/_mlir/__init__.pyi",
    "mlir/_mlir_libs/_mlir/ir.pyi",
    "mlir/_mlir_libs/_mlir/passmanager.pyi",
    "mlir/_mlir_libs/_mlir/rewrite.pyi",
    "mlir/_mlir_libs/_mlirExecutionEngine.pyi",
]

# stubtest findings that are pybind11's, not the stubs': every pybind11 class
# has the metaclass pybind11_builtins.pybind11_type, which has no stub.
PYBIND11_NOISE = ("is inconsistent, metaclass differs",)


def mypy_config():
    """A config file of our own (so that none is picked up from the
    environment), with mypy's cache in TEST_TMPDIR."""
    path = os.path.join(TMP, "mypy.ini")
    with open(path, "w") as f:
        f.write("[mypy]\ncache_dir = %s\n" % os.path.join(TMP, "mypy_cache"))
    return path


def run(*args):
    """Runs `python -m <args>` in TEST_TMPDIR; returns (exit code, output)."""
    env = dict(os.environ, MYPY_CACHE_DIR=os.path.join(TMP, "mypy_cache"))
    result = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=TMP,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return result.returncode, result.stdout


def mypy_strict(*targets):
    return run("mypy", "--config-file", mypy_config(), "--strict", *targets)


class TypingTest(unittest.TestCase):
    def test_examples_pass_mypy_strict(self):
        examples = sorted(glob.glob(os.path.join(RUNFILES, "examples", "*.py")))
        self.assertTrue(examples, "no examples in runfiles")
        code, output = mypy_strict(*examples)
        print(output)
        self.assertEqual(code, 0, "mypy --strict on examples/:\n" + output)

    def test_package_passes_mypy_strict(self):
        # This project's modules (upstream's are not written for --strict).
        modules = ["mlir", "mlir.execution_engine", "mlir._engine", "mlir.jit_cache"]
        code, output = mypy_strict(
            *[a for m in modules for a in ("-m", m)], "-p", "mlir.runtime", "-p", "mlir.jit"
        )
        print(output)
        self.assertEqual(code, 0, "mypy --strict on the project's modules:\n" + output)

    def test_stubs_are_used(self):
        # Errors only the stubs can find: the package is typed, not Any.
        path = os.path.join(TMP, "misuse.py")
        with open(path, "w") as f:
            f.write(
                textwrap.dedent("""\
                from mlir.execution_engine import ExecutionEngine
                from mlir.ir import *
                from mlir.passmanager import PassManager
                with Context():
                    IntegerType.get_signless("32")
                    Module.parse(42)
                    ExecutionEngine(Module.create(), opt_level="3")
                    PassManager.parse(3)
                    severity: int = DiagnosticSeverity.ERROR
            """)
            )
        code, output = mypy_strict(path)
        print(output)
        self.assertEqual(code, 1, output)
        for line in (5, 6, 7, 8, 9):
            self.assertIn("misuse.py:%d: error:" % line, output)
        self.assertIn("Found 5 errors", output)

    def test_stubtest(self):
        code, output = run(
            "mypy.stubtest",
            "--mypy-config-file",
            mypy_config(),
            "--concise",
            "mlir._mlir_libs._mlirExecutionEngine",
        )
        print(output)
        findings = [
            line
            for line in output.splitlines()
            if line.strip() and not line.endswith(PYBIND11_NOISE)
        ]
        self.assertEqual(findings, [], "stubtest:\n" + output)
        self.assertIn(code, (0, 1), output)  # 1: only the noise above

    def test_package_ships_stubs(self):
        for name in TYPING_FILES:
            self.assertTrue(os.path.exists(os.path.join(RUNFILES, "python", name)), name)

    def test_wheel_ships_stubs(self):
        (wheel,) = glob.glob(
            os.path.join(os.environ["TEST_SRCDIR"], "*", "wheel", "mlir_execution_engine-*.whl")
        )
        with zipfile.ZipFile(wheel) as whl:
            names = set(whl.namelist())
        for name in TYPING_FILES:
            self.assertIn(name, names)


if __name__ == "__main__":
    unittest.main()
