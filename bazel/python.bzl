"""Repository rules for the host Python: its interpreter and headers
(@local_python) and the packages of the hash-pinned lock file (@pip).

Both use the `python3` on PATH (PYTHON_BIN_PATH overrides it), so extension
modules are built against the same interpreter that runs the tests.
"""

def _python(rctx):
    python = rctx.os.environ.get("PYTHON_BIN_PATH", "") or rctx.which("python3")
    if not python:
        fail("python3 not found on PATH; install Python 3 or set PYTHON_BIN_PATH")
    result = rctx.execute([python, "-c", _QUERY])
    if result.return_code != 0:
        fail("could not query %s: %s" % (python, result.stderr))
    executable, include, wheel_tag = result.stdout.strip().split("\n")
    return executable, include, wheel_tag

# The interpreter, its headers, and the wheel tag of extension modules built
# for it (python-abi-platform, e.g. cp311-cp311-linux_x86_64).
_QUERY = """
import sys, sysconfig
print(sys.executable)
print(sysconfig.get_paths()["include"])
python = "cp%d%d" % sys.version_info[:2]
platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
print("%s-%s%s-%s" % (python, python, sys.abiflags, platform))
"""

def _local_python_impl(rctx):
    executable, include, wheel_tag = _python(rctx)
    rctx.symlink(include, "include")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("defs.bzl", 'WHEEL_TAG = "%s"\n' % wheel_tag)
    rctx.file("BUILD", """load("@rules_cc//cc:defs.bzl", "cc_library")
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
)

py_runtime(
    name = "py3_runtime",
    interpreter_path = "{executable}",
    python_version = "PY3",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

exports_files(["python3"])
""".replace("{executable}", executable))
    rctx.symlink(executable, "python3")

local_python = repository_rule(
    implementation = _local_python_impl,
    environ = ["PATH", "PYTHON_BIN_PATH"],
    local = True,
)

def _pip_install_impl(rctx):
    executable, _, _ = _python(rctx)
    lock = rctx.path(rctx.attr.requirements)
    rctx.report_progress("pip install -r " + str(lock))
    result = rctx.execute([
        executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--target=site-packages",
        "-r",
        lock,
    ], timeout = 900, quiet = False)
    if result.return_code != 0:
        fail("pip could not install %s:\n%s" % (lock, result.stderr))
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.template("BUILD", rctx.attr.build_file)

pip_install = repository_rule(
    implementation = _pip_install_impl,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "requirements": attr.label(mandatory = True, allow_single_file = True),
    },
    environ = ["PATH", "PYTHON_BIN_PATH"],
)
