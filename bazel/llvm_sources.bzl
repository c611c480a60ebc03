"""The sources of upstream MLIR's Python bindings and their tests, from Debian's
orig tarball of exactly the installed LLVM (llvm-toolchain-22 22.1.8), pinned
by the sha256 the installed revision's .dsc names.

Only three subtrees (and the C API tests) are extracted: mlir/lib/Bindings/Python,
mlir/python and mlir/test/python. //bazel:prebuilt_llvm.bzl links them into
@llvm-project at upstream's paths, so that the binding targets carry upstream's
overlay names. The patches of //bazel/upstream_patches are applied to them
(docs/upstream_api.md says why each is needed).

The release's own Bazel overlay (utils/bazel/llvm-project-overlay) is
extracted too, the files of it the component names, as overlay/<path>.txt:
//test/llvm_overlay checks every @llvm-project label of the component against
it, so that a build with upstream's overlay finds each one.

The tarball (196 MB) is fetched once a machine: it is kept in
$XDG_CACHE_HOME/mlir_execution_engine (default ~/.cache/mlir_execution_engine),
or LLVM_SOURCE_CACHE. A team's own copy: LLVM_SOURCE_TARBALL names the file, or
a directory holding llvm-toolchain-22_22.1.8.orig.tar.xz; it is read first.
Otherwise it is downloaded with python3's urllib (which honours http_proxy and
https_proxy) from the Debian mirror of the machine's apt sources. Where none
serves a file with the pinned sha256 (Debian's unstable pool drops it when
unstable moves past 22.1.8), the fetch fails and says where to put a copy.
"""

_TARBALL = "llvm-toolchain-22_22.1.8.orig.tar.xz"
_SHA256 = "b49b9277aef97616320b2da259e1f8174c65b0ce2fbe2e8629644a97693402fe"
SUBTREES = [
    "mlir/lib/Bindings/Python",
    "mlir/python",
    "mlir/test/python",
    "mlir/test/CAPI",
]

# The overlay's files the component's labels name (the BUILD files of its
# packages, the .bzl files it loads), renamed so that they are data here.
_OVERLAY = "utils/bazel/llvm-project-overlay"
_OVERLAY_FILES = ["llvm/BUILD.bazel", "mlir/BUILD.bazel", "mlir/python/BUILD.bazel", "mlir/tblgen.bzl"]

# Patches to the release's sources, in the order they apply (-p1, from the
# tarball's root).
_PATCHES = [
    "//bazel/upstream_patches:thread_context_stack_at_exit.patch",
]

def _cache_dir(rctx):
    env = rctx.os.environ
    if env.get("LLVM_SOURCE_CACHE"):
        return env["LLVM_SOURCE_CACHE"]
    base = env.get("XDG_CACHE_HOME") or (env.get("HOME", "/tmp") + "/.cache")
    return base + "/mlir_execution_engine"

def _impl(rctx):
    python = rctx.which("python3")
    if not python:
        fail("llvm_python_sources: python3 not found on PATH (./bazelw installs it)")
    rctx.report_progress("finding %s (sha256 %s)" % (_TARBALL, _SHA256[:12]))
    result = rctx.execute(
        [python, rctx.path(rctx.attr._fetch), _TARBALL, _SHA256, _cache_dir(rctx), "."] + SUBTREES +
        ["%s/%s" % (_OVERLAY, path) for path in _OVERLAY_FILES],
        timeout = 3600,
        quiet = False,
    )
    if result.return_code != 0:
        fail("llvm_python_sources: %s%s" % (result.stdout, result.stderr))
    for patch in _PATCHES:
        rctx.patch(Label(patch), strip = 1)
    for path in _OVERLAY_FILES:
        rctx.file("overlay/%s.txt" % path, rctx.read("%s/%s" % (_OVERLAY, path)), executable = False)
    rctx.delete("utils")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD", """# upstream's binding sources (%s, sha256 %s),
# linked into @llvm-project by //bazel:prebuilt_llvm.bzl; use them from there.
package(default_visibility = ["//visibility:public"])

exports_files(glob(["mlir/**", "overlay/**"]))
""" % (_TARBALL, _SHA256))

llvm_python_sources = repository_rule(
    implementation = _impl,
    attrs = {
        "_fetch": attr.label(default = Label("//bazel:fetch_llvm_sources.py"), allow_single_file = True),
        "_patches": attr.label_list(default = [Label(patch) for patch in _PATCHES], allow_files = True),
    },
    environ = ["LLVM_SOURCE_TARBALL", "LLVM_SOURCE_CACHE", "XDG_CACHE_HOME", "HOME"],
)
