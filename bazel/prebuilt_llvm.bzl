"""Creates @llvm-project from an installed LLVM/MLIR (Debian's llvm-22-dev,
libmlir-22-dev, mlir-22-tools) with upstream's Bazel overlay target names.

The install is found through `llvm-config-22` on PATH; LLVM_INSTALL_PREFIX
overrides it. A build that compiles llvm-project from source brings upstream's
own @llvm-project instead and this rule is not used.
"""

_LLVM_MAJOR = "22"

def _fail_if(rctx, cond, msg):
    if cond:
        fail("prebuilt_llvm_project: " + msg)

def _prefix(rctx):
    prefix = rctx.os.environ.get("LLVM_INSTALL_PREFIX", "")
    if prefix:
        return prefix
    llvm_config = rctx.which("llvm-config-" + _LLVM_MAJOR)
    _fail_if(rctx, llvm_config == None, "llvm-config-%s not found on PATH; run ./bazelw, which installs LLVM %s, or set LLVM_INSTALL_PREFIX" % (_LLVM_MAJOR, _LLVM_MAJOR))
    result = rctx.execute([llvm_config, "--prefix"])
    _fail_if(rctx, result.return_code != 0, "llvm-config --prefix failed: " + result.stderr)
    return result.stdout.strip()

def _impl(rctx):
    prefix = _prefix(rctx)
    version = rctx.execute([prefix + "/bin/llvm-config", "--version"]).stdout.strip()
    _fail_if(rctx, not version.startswith(_LLVM_MAJOR + "."), "LLVM at %s is version '%s', need %s.x" % (prefix, version, _LLVM_MAJOR))
    so_version = ".".join(version.split(".")[:2])
    for project, header_dirs in [("llvm", ["llvm", "llvm-c"]), ("mlir", ["mlir", "mlir-c"])]:
        for d in header_dirs:
            rctx.symlink(prefix + "/include/" + d, project + "/include/" + d)
        rctx.symlink(prefix + "/lib", project + "/lib")
        rctx.symlink(prefix + "/bin", project + "/bin")
        rctx.template(project + "/BUILD", Label("//bazel/llvm_overlay:%s.BUILD" % project), {
            "{LIBDIR}": prefix + "/lib",
            "{SO_VERSION}": so_version,
        })
    rctx.file("BUILD", "")
    rctx.file("WORKSPACE", 'workspace(name = "llvm-project")\n')

prebuilt_llvm_project = repository_rule(
    implementation = _impl,
    environ = ["LLVM_INSTALL_PREFIX", "PATH"],
    local = True,
)
