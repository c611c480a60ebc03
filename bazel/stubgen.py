"""Writes nanobind's type stubs of an extension module of a Python package,
as upstream MLIR's build does for its own modules:
`stubgen.py PACKAGE_ROOT MODULE STUB...` imports MODULE (such as
mlir._mlir_libs._mlir) from PACKAGE_ROOT and writes each STUB (a path below
PACKAGE_ROOT, such as mlir/_mlir_libs/_mlir/ir.pyi) that stubgen makes for
it or its submodules. Stubgen writes into a directory of its own: the
package's files are symlinks to sources, never to be written through."""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def sanitizer_runtimes(root):
    """The sanitizer runtimes the package's libraries link (built with
    --config=asan), which an uninstrumented Python must preload, ASan's
    first, as test/sanitized.sh does for tests."""
    runtimes = {}
    for library in glob.glob(os.path.join(root, "mlir", "_mlir_libs", "*.so")):
        ldd = subprocess.run(["/usr/bin/ldd", library], capture_output=True, text=True).stdout
        for name, path in re.findall(r"\b(lib(?:asan|ubsan)\.so[.\d]*) => (\S+)", ldd):
            runtimes[name] = path
    return sorted(runtimes.values(), key=lambda path: "asan" not in path)


root, module, *stubs = sys.argv[1:]
runtimes = sanitizer_runtimes(root)
if runtimes and "STUBGEN_PRELOADED" not in os.environ:
    env = dict(os.environ, LD_PRELOAD=":".join(runtimes), STUBGEN_PRELOADED="1")
    env["ASAN_OPTIONS"] = "detect_leaks=0"
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

from nanobind import stubgen  # noqa: E402

sys.path.insert(0, os.path.abspath(root))
parent = os.path.join(*module.split(".")[:-1])
with tempfile.TemporaryDirectory() as out:
    stubgen.main(["-q", "-m", module, "-r", "-O", out])
    for stub in stubs:
        shutil.copyfile(os.path.join(out, os.path.relpath(stub, parent)), os.path.join(root, stub))
