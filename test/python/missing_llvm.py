# RUN: %PYTHON %s | FileCheck %s
#
# The package ./bazelw builds loads LLVM/MLIR 22 from the directory it was
# built against (its C API library's rpath). Where they are not there,
# `import mlir` is an ImportError naming the library, that directory and the
# apt-get command that installs them. (The wheel carries its own copies:
# //test/wheel checks its message.)

import os
import shutil
import subprocess
import sys
import tempfile

import mlir

with tempfile.TemporaryDirectory() as tmp:
    # A copy of the package (files, not runfiles' symlinks) whose rpath names
    # an LLVM lib directory that does not exist: same length, so the ELF's
    # offsets stay valid.
    shutil.copytree(os.path.dirname(mlir.__file__), os.path.join(tmp, "mlir"))
    capi = os.path.join(tmp, "mlir", "_mlir_libs", "libMLIRPythonCAPI.so")
    with open(capi, "rb") as f:
        data = f.read()
    assert b"/llvm-22/lib" in data, "the C API library has no rpath to the LLVM lib dir"
    with open(capi, "wb") as f:
        f.write(data.replace(b"/llvm-22/lib", b"/llvm-XX/lib"))
    result = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import mlir.ir", tmp],
        env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"},
        capture_output=True,
        text=True,
    )
    print("exit", result.returncode)
    print(result.stderr)

# CHECK: exit 1
# CHECK: ImportError: mlir cannot load its MLIR C API library: libMLIR.so.22.1: cannot open shared object file
# CHECK-NEXT: It needs the LLVM/MLIR 22 shared libraries
# CHECK-SAME: in the directory it was built against: {{.*}}/llvm-XX/lib, and LLVM's OpenMP runtime (libomp.so.5).
# CHECK-NEXT: On Debian 12 install them with:
# CHECK-NEXT:   apt-get install libmlir-22-dev llvm-22-dev mlir-22-tools libomp-22-dev
