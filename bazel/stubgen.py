"""Writes nanobind's type stubs of an extension module of a Python package,
as upstream MLIR's build does for its own modules:
`stubgen.py PACKAGE_ROOT MODULE STUB...` imports MODULE (such as
mlir._mlir_libs._mlir) from PACKAGE_ROOT and writes each STUB (a path below
PACKAGE_ROOT, such as mlir/_mlir_libs/_mlir/ir.pyi) that stubgen makes for
it or its submodules. Stubgen writes into a directory of its own: the
package's files are symlinks to sources, never to be written through."""

import os
import shutil
import sys
import tempfile

from nanobind import stubgen

root, module, *stubs = sys.argv[1:]
sys.path.insert(0, os.path.abspath(root))
parent = os.path.join(*module.split(".")[:-1])
with tempfile.TemporaryDirectory() as out:
    stubgen.main(["-q", "-m", module, "-r", "-O", out])
    for stub in stubs:
        shutil.copyfile(os.path.join(out, os.path.relpath(stub, parent)), os.path.join(root, stub))
