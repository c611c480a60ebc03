"""pip-installs the wheel into fresh venvs next to the oldest and the newest
numpy it declares and runs scenario.py in each.

Usage (from BUILD): wheel_test.py --requires-python=SPEC --requires=REQ...
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = None  # the expected metadata, from BUILD


def runfile(pattern):
    (path,) = glob.glob(os.path.join(os.environ["TEST_SRCDIR"], pattern))
    return path


# Run with a venv's python: the installed distributions' versions and the
# wheel's metadata, checked against each other with pip's `packaging`.
QUERY = """
import json
from importlib import metadata
from pip._vendor.packaging.requirements import Requirement
versions = {n: metadata.version(n) for n in ("numpy", "ml_dtypes")}
try:
    dist = metadata.distribution("mlir_execution_engine")
except metadata.PackageNotFoundError:  # not installed yet
    print(json.dumps({"versions": versions}))
    raise SystemExit
requires = dist.requires or []
in_range = all(Requirement(r).specifier.contains(versions[Requirement(r).name], prereleases=True) for r in requires)
licenses = {f: dist.read_text(f"licenses/{f}") for f in dist.metadata.get_all("License-File")}
print(json.dumps({"requires": requires, "requires_python": dist.metadata["Requires-Python"],
                  "license": dist.metadata["License-Expression"], "licenses": licenses,
                  "versions": versions, "in_range": in_range}))
"""


class WheelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = os.environ["TEST_TMPDIR"]
        self.wheel = runfile("*/wheel/mlir_execution_engine-*.whl")
        # Nothing of Bazel's Python environment reaches the venvs' python.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RUNFILES"))}

    def run_ok(self, *cmd):
        result = subprocess.run(cmd, env=self.env, cwd=self.tmp, capture_output=True, text=True)
        if result.returncode != 0:
            self.fail("%s failed:\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
        return result.stdout

    def venv_with(self, which):
        """A fresh venv holding numpy and ml_dtypes from @pip_wheel_test//:WHICH, then the wheel."""
        wheels = os.path.dirname(runfile(f"pip_wheel_test/{which}/requirements.txt"))
        venv = os.path.join(self.tmp, which)
        self.run_ok(sys.executable, "-m", "venv", venv)
        python = os.path.join(venv, "bin", "python")
        pip = [
            python,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "--no-cache-dir",
            "install",
            "--quiet",
            "--no-index",
        ]
        self.run_ok(
            *pip,
            "--find-links",
            wheels,
            "--require-hashes",
            "-r",
            os.path.join(wheels, "requirements.txt"),
        )
        before = self.query(python)["versions"]
        # The wheel's dependencies are met by what is there: pip changes nothing.
        self.run_ok(*pip, self.wheel)
        info = self.query(python)
        self.assertEqual(
            info["versions"], before, "installing the wheel changed numpy or ml_dtypes"
        )
        self.run_ok(python, "-m", "pip", "check")
        return venv, python, info

    def query(self, python):
        return json.loads(self.run_ok(python, "-c", QUERY))

    def check_venv(self, which):
        venv, python, info = self.venv_with(which)
        print(which, info["versions"])
        self.assertEqual(sorted(info["requires"]), sorted(ARGS.requires))
        self.assertEqual(info["requires_python"], ARGS.requires_python)
        self.assertEqual(info["license"], "Apache-2.0 WITH LLVM-exception")
        self.assertIn("LLVM Exceptions to the Apache 2.0 License", info["licenses"]["LICENSE.txt"])
        self.assertTrue(info["in_range"], info)
        # auditwheel's tag: the oldest glibc the bundled code needs.
        self.assertRegex(os.path.basename(self.wheel), r"-manylinux_2_\d+_x86_64\.whl$")
        # A copy, so that the script's directory on sys.path is not in runfiles.
        scenario = shutil.copy(os.path.join(HERE, "scenario.py"), self.tmp)
        output = self.run_ok(python, scenario, venv)
        print(output)
        self.assertIn("callback_test(42.0, 2) = 44.0", output)
        self.assertIn("wheel scenario: OK", output)
        # A client of upstream's bindings: MLIR's runtime libraries from
        # mlir/_mlir_libs, a Context left entered at exit; its CHECK lines.
        client = shutil.copy(runfile("*/test/python/client_runtime_libraries.py"), self.tmp)
        output = self.run_ok(python, client)
        filecheck = subprocess.run(
            [runfile("llvm-project/llvm/bin/FileCheck"), client],
            input=output,
            capture_output=True,
            text=True,
        )
        self.assertEqual(filecheck.returncode, 0, output + filecheck.stderr)
        return venv, python, info

    def test_oldest(self):
        venv, python, info = self.check_venv("oldest")
        # The oldest numpy is each range's floor where it has wheels for this
        # Python (numpy 2.0 has none for 3.13).
        floors = {"numpy": "2.0.0" if sys.version_info < (3, 13) else "2.1.0", "ml_dtypes": "0.5.0"}
        self.assertEqual(info["versions"], floors)
        self.check_self_contained(venv, python)

    def test_newest(self):
        self.check_venv("newest")

    def check_self_contained(self, venv, python):
        """No library of the installed wheel looks for others outside it; the
        bundled libraries' license notices are there; a wheel whose bundled
        libraries are gone says to reinstall it; another LLVM already global
        is refused; an older libstdc++ is explained."""
        (site,) = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))
        libraries = glob.glob(os.path.join(site, "mlir", "_mlir_libs", "*.so"))
        bundled = glob.glob(os.path.join(site, "mlir_execution_engine.libs", "*.so*"))
        self.assertTrue(any("libLLVM" in b for b in bundled), bundled)
        self.assertTrue(any("libMLIR" in b for b in bundled), bundled)
        rpaths = self.run_ok(
            python,
            "-c",
            "import json, sys; from mlir import _rpath; print(json.dumps({f: _rpath(f) for f in sys.argv[1:]}))",
            *libraries + bundled,
        )
        package_dirs = {os.path.dirname(libraries[0]), os.path.dirname(bundled[0])}
        for library, rpath in json.loads(rpaths).items():
            for entry in filter(None, rpath.split(":")):
                directory = os.path.normpath(entry.replace("$ORIGIN", os.path.dirname(library)))
                self.assertIn(directory, package_dirs, f"{library}: rpath {rpath}")

        # Each bundled library's license notice, from the Debian package it came from.
        licenses = self.query(python)["licenses"]
        listing = licenses["bundled/LIBRARIES.txt"]
        runtime = glob.glob(os.path.join(site, "mlir", "_mlir_libs", "libmlir_*.so"))
        self.assertEqual(len(runtime), 5, runtime)
        for library in bundled + runtime:
            line = re.search(
                rf"^{re.escape(os.path.relpath(library, site))}: .*, (\S+)$",
                listing,
                re.MULTILINE,
            )
            self.assertIsNotNone(line, f"{library} is not in LIBRARIES.txt:\n{listing}")
            self.assertIn("Copyright", licenses[line.group(1)])
        icu = re.search(r"/libicuuc\S*: .*, (\S+)$", listing, re.MULTILINE).group(1)
        self.assertIn("Unicode, Inc.", licenses[icu])
        self.assertIn("Apache License", licenses["bundled/common-licenses/Apache-2.0"])

        broken = os.path.join(self.tmp, "broken")
        shutil.copytree(site, broken, symlinks=True, ignore=shutil.ignore_patterns("numpy*"))
        (llvm,) = glob.glob(os.path.join(broken, "mlir_execution_engine.libs", "libLLVM*"))
        os.remove(llvm)
        result = self.import_mlir(
            python, "import sys; sys.path.insert(0, sys.argv[1]); import mlir.ir", broken
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: mlir cannot load its MLIR C API library", result.stderr)
        self.assertIn(os.path.basename(llvm), result.stderr)
        self.assertIn("pip install --force-reinstall mlir_execution_engine", result.stderr)

        # Another LLVM in the global symbol namespace: refused, never shared
        # (its globals would be constructed and destroyed twice).
        other = shutil.copytree(
            os.path.join(site, "mlir_execution_engine.libs"), os.path.join(self.tmp, "other")
        )
        (other_llvm,) = glob.glob(os.path.join(other, "libLLVM*"))
        result = self.import_mlir(
            python,
            "import ctypes, sys; ctypes.CDLL(sys.argv[1], ctypes.RTLD_GLOBAL); import mlir",
            other_llvm,
        )
        self.assertNotEqual(result.returncode, 0)
        self.assertIn(f"mlir cannot load its LLVM: another LLVM ({other_llvm})", result.stderr)
        self.assertIn("load it with RTLD_LOCAL", result.stderr)

        # A libstdc++ older than the build's first on LD_LIBRARY_PATH: libgcc_s
        # stands in for one, defining no GLIBCXX version at all.
        old = os.path.join(self.tmp, "old_libstdcxx")
        os.mkdir(old)
        libgcc = self.run_ok(
            python,
            "-c",
            "import ctypes; ctypes.CDLL('libgcc_s.so.1');"
            "print([l.split()[-1] for l in open('/proc/self/maps') if 'libgcc_s' in l][0])",
        ).strip()
        shutil.copy(libgcc, os.path.join(old, "libstdc++.so.6"))
        result = self.import_mlir(python, "import mlir", env={"LD_LIBRARY_PATH": old})
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("version `", result.stderr)
        self.assertIn("is older than the one the wheel was built with", result.stderr)

    def import_mlir(self, python, code, *args, env=None):
        return subprocess.run(
            [python, "-I", "-c", code, *args],
            env=dict(self.env, **(env or {})),
            cwd=self.tmp,
            capture_output=True,
            text=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--requires-python", required=True)
    parser.add_argument("--requires", action="append", default=[])
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
