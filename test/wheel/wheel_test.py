"""pip-installs the wheel into a fresh venv and runs scenario.py there."""

import glob
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def runfile(pattern):
    (path,) = glob.glob(os.path.join(os.environ["TEST_SRCDIR"], pattern))
    return path


class WheelTest(unittest.TestCase):
    def test_wheel_in_venv(self):
        tmp = os.environ["TEST_TMPDIR"]
        wheel = runfile("*/mlir_execution_engine-*.whl")
        # @pip's real site-packages directory, outside the runfiles tree.
        numpy = os.path.realpath(runfile("pip/site-packages/numpy/__init__.py"))
        site_packages = os.path.dirname(os.path.dirname(numpy))
        # Nothing of Bazel's Python environment reaches the venv's python.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RUNFILES"))}

        def run(*cmd):
            result = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
            if result.returncode != 0:
                self.fail("%s failed:\n%s%s" % (" ".join(cmd), result.stdout, result.stderr))
            return result.stdout

        venv = os.path.join(tmp, "venv")
        run(sys.executable, "-m", "venv", venv)
        python = os.path.join(venv, "bin", "python")
        pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]
        run(*pip, "install", "--quiet", "--no-index", "--no-deps", wheel)
        purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
        with open(os.path.join(purelib.strip(), "bazel_pip.pth"), "w") as f:
            f.write(site_packages + "\n")
        # The wheel's Requires-Dist are met by the lock's numpy and ml_dtypes.
        run(*pip, "check")

        # A copy, so that the script's directory on sys.path is not in runfiles.
        scenario = shutil.copy(os.path.join(HERE, "scenario.py"), tmp)
        output = run(python, scenario, venv)
        print(output)
        self.assertIn("callback_test(42.0, 2) = 44.0", output)


if __name__ == "__main__":
    unittest.main()
