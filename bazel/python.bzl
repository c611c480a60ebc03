"""Repository rules for a hermetic Python: @local_python, a venv made from the
host's python3 that sees none of the host's site-packages, with that
interpreter's headers; and @pip, the packages of the hash-pinned lock file,
one py_library a distribution; pip_download, the wheels of lock files for
tests that install them offline.

All start from the `python3` on PATH (PYTHON_BIN_PATH overrides it), so
extension modules are built against the interpreter that runs the tests, and
every import a target makes comes from its declared deps.
"""

def _host_python(rctx):
    python = rctx.os.environ.get("PYTHON_BIN_PATH", "") or rctx.which("python3")
    if not python:
        fail("python3 not found on PATH; install Python 3 (./bazelw does) or set PYTHON_BIN_PATH")
    return str(python)

def _run(rctx, what, command, **kwargs):
    result = rctx.execute(command, **kwargs)
    if result.return_code != 0:
        fail("%s failed (%s):\n%s%s" % (what, " ".join([str(c) for c in command]), result.stdout, result.stderr))
    return result.stdout

def _make_venv(rctx, directory, with_pip):
    """A venv from the host python3 without its site-packages; returns its python."""
    python = _host_python(rctx)
    _run(
        rctx,
        "creating a venv from %s (on Debian it needs python3-venv; ./bazelw installs it)" % python,
        [python, "-m", "venv", "--clear"] + ([] if with_pip else ["--without-pip"]) + [directory],
    )
    return rctx.path(directory + "/bin/python3")

# The venv's headers (its base interpreter's) and the wheel tag of extension
# modules built for it (python-abi-platform, e.g. cp311-cp311-linux_x86_64).
# It fails if the host's site-packages are visible.
_QUERY = """
import site, sys, sysconfig
assert sys.prefix != sys.base_prefix, "not a venv"
assert not any(p.startswith(sys.base_prefix) for p in site.getsitepackages()), "sees the host's site-packages"
print(sysconfig.get_paths()["include"])
python = "cp%d%d" % sys.version_info[:2]
platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
print("%s-%s%s-%s" % (python, python, sys.abiflags, platform))
"""

def _local_python_impl(rctx):
    python = _make_venv(rctx, "venv", with_pip = False)

    # pyvenv.cfg is in the runfiles of every Python target: drop the line that
    # records the command that made it, which names this output base.
    config = rctx.read("venv/pyvenv.cfg").splitlines()
    rctx.file("venv/pyvenv.cfg", "\n".join([line for line in config if not line.startswith("command")]) + "\n")
    include, wheel_tag = _run(rctx, "querying the venv's python", [python, "-c", _QUERY]).strip().split("\n")
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

# The venv's python by label, not by absolute path: the path would put this
# output base into the stub of every py_binary and py_test, and so into the
# keys of their actions, which could then never hit a remote cache from
# another clone. pyvenv.cfg beside it in the runfiles keeps it a venv.
py_runtime(
    name = "py3_runtime",
    files = ["venv/pyvenv.cfg"],
    interpreter = "venv/bin/python3",
    python_version = "PY3",
    # Bazel's default wants `python`, which Debian 12 does not have; the stub
    # only finds the runfiles and then runs interpreter_path.
    stub_shebang = "#!/usr/bin/env python3",
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
""")
    rctx.symlink(python, "python3")

local_python = repository_rule(
    implementation = _local_python_impl,
    environ = ["PATH", "PYTHON_BIN_PATH"],
    local = True,
)

def _pip(rctx, pip_python, verb, lock, directory):
    """`pip install` (into `directory`, as a site-packages) or `pip download`
    (the wheels, into `directory`) of a hash-pinned lock file, without
    dependencies beyond those it lists."""
    rctx.report_progress("pip %s -r %s" % (verb, lock))
    _run(rctx, "pip %s -r %s" % (verb, lock), [
        pip_python,
        "-m",
        "pip",
        verb,
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        ("--target=" if verb == "install" else "--dest=") + directory,
        "-r",
        lock,
    ], timeout = 900)

def _pip_install_impl(rctx):
    # pip runs from a venv of its own: the host python3 may have no pip, or an
    # externally managed one.
    pip_python = _make_venv(rctx, "pip_venv", with_pip = True)
    _pip(rctx, pip_python, "install", rctx.path(rctx.attr.requirements), "site-packages")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    libraries = _run(rctx, "listing the installed distributions", [
        pip_python,
        rctx.path(rctx.attr._generator),
        "site-packages",
    ])
    rctx.file("BUILD", rctx.read(rctx.attr.build_file) + libraries)
    rctx.delete("pip_venv")

pip_install = repository_rule(
    implementation = _pip_install_impl,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "requirements": attr.label(mandatory = True, allow_single_file = True),
        "_generator": attr.label(default = Label("//bazel:pip_libraries.py"), allow_single_file = True),
    },
    environ = ["PATH", "PYTHON_BIN_PATH"],
)

def _pip_download_impl(rctx):
    # The wheels of hash-pinned lock files, not installed: for tests that
    # pip-install them offline (`--no-index --find-links`). Each lock's wheels
    # go to the directory its dict value names, next to a copy of the lock.
    pip_python = _make_venv(rctx, "pip_venv", with_pip = True)
    build = ['package(default_visibility = ["//visibility:public"])\n']
    for label, directory in rctx.attr.requirements.items():
        lock = rctx.path(label)
        _pip(rctx, pip_python, "download", lock, directory)
        rctx.symlink(lock, directory + "/requirements.txt")
        build.append('filegroup(\n    name = "%s",\n    srcs = glob(["%s/*"]),\n)\n' % (directory, directory))
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD", "\n".join(build))
    rctx.delete("pip_venv")

pip_download = repository_rule(
    implementation = _pip_download_impl,
    attrs = {
        "requirements": attr.label_keyed_string_dict(mandatory = True, allow_files = True),
    },
    # pip picks the wheels of the python3 the build uses.
    environ = ["PATH", "PYTHON_BIN_PATH"],
)

def _pip_tools_impl(rctx):
    # Command-line tools shipped as wheels (ruff, clang-format): the lock's
    # packages installed with their scripts (bin/), which @pip drops; BUILD is
    # build_file as it is.
    pip_python = _make_venv(rctx, "pip_venv", with_pip = True)
    _pip(rctx, pip_python, "install", rctx.path(rctx.attr.requirements), "site-packages")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.symlink(rctx.attr.build_file, "BUILD")
    rctx.delete("pip_venv")

pip_tools = repository_rule(
    implementation = _pip_tools_impl,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "requirements": attr.label(mandatory = True, allow_single_file = True),
    },
    environ = ["PATH", "PYTHON_BIN_PATH"],
)
