"""A Python package assembled in bazel-bin: the package's sources and the
shared libraries it loads, side by side, so that the output directory is
importable as it is (`PYTHONPATH=bazel-bin/python`) and tests import the same
tree through runfiles.
"""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("@rules_python//python:py_info.bzl", "PyInfo")

def package_relative_path(label, file):
    """`file`'s path below `label`'s package, also in an external repository."""
    root_relative = file.path[len(file.root.path) + 1:] if file.root.path else file.path
    package_path = "/".join([p for p in [label.workspace_root, label.package] if p])
    return root_relative[len(package_path) + 1:]

def _package_path(ctx, src):
    """`src`'s path in the package: below this repository's python/, or below
    upstream's mlir/python (a source of the release or a file generated in
    @llvm-project//mlir/python)."""
    if src.owner.workspace_name == ctx.label.workspace_name:
        path = src.short_path
        if src.owner.workspace_name:
            path = path[len("../%s/" % src.owner.workspace_name):]
        if not path.startswith("python/mlir/"):
            fail("%s is not below python/mlir" % src.short_path)
        return path[len("python/"):]
    marker = "mlir/python/"
    index = src.short_path.find(marker)
    if index < 0:
        fail("%s is not below mlir/python" % src.short_path)
    return src.short_path[index + len(marker):]

def _python_package_impl(ctx):
    # Under this target's package: <package>/mlir/...
    outputs = []
    paths = {}
    for src in ctx.files.srcs:
        path = _package_path(ctx, src)
        if path in paths:
            fail("%s and %s are both mlir/%s" % (paths[path].short_path, src.short_path, path))
        paths[path] = src
        out = ctx.actions.declare_file(path)
        ctx.actions.symlink(output = out, target_file = src)
        outputs.append(out)
    for lib in ctx.files.shared_libraries:
        out = ctx.actions.declare_file("mlir/_mlir_libs/" + lib.basename)
        ctx.actions.symlink(output = out, target_file = lib)
        outputs.append(out)

    # The C API's headers, where upstream's package has them
    # (mlir._mlir_libs.get_include_dirs()).
    for dep in ctx.attr.c_api:
        for header in dep[CcInfo].compilation_context.headers.to_list():
            index = header.path.find("/include/mlir-c/")
            if index >= 0:
                out = ctx.actions.declare_file("mlir/_mlir_libs" + header.path[index:])
                ctx.actions.symlink(output = out, target_file = header)
                outputs.append(out)

    # Type stubs of extension modules that ship none (upstream's), made
    # from the assembled package as upstream's build makes them.
    if ctx.attr.stubs:
        stubs = [ctx.actions.declare_file(path) for path in ctx.attr.stubs]
        root = "/".join([p for p in [ctx.bin_dir.path, ctx.label.workspace_root, ctx.label.package] if p])
        ctx.actions.run(
            executable = ctx.executable.stubgen,
            arguments = [root, ctx.attr.stubs_module] + ctx.attr.stubs,
            inputs = outputs,
            outputs = stubs,
            mnemonic = "Stubgen",
            progress_message = "Generating type stubs of %s" % ctx.attr.stubs_module,
        )
        outputs = outputs + stubs
    import_path = (ctx.label.workspace_name or ctx.workspace_name) + "/" + ctx.label.package
    runfiles = ctx.runfiles(files = outputs)
    for dep in ctx.attr.deps:
        runfiles = runfiles.merge(dep[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(files = depset(outputs), runfiles = runfiles),
        PyInfo(
            transitive_sources = depset(
                [f for f in outputs if f.extension == "py"],
                transitive = [dep[PyInfo].transitive_sources for dep in ctx.attr.deps],
            ),
            imports = depset([import_path], transitive = [dep[PyInfo].imports for dep in ctx.attr.deps]),
        ),
    ]

# The `mlir` package assembled from upstream's files (@llvm-project//mlir/python)
# and this project's (//python), with the extension modules and libraries (all
# in mlir/_mlir_libs), importable from this target's package directory.
python_package = rule(
    implementation = _python_package_impl,
    attrs = {
        # C API libraries whose mlir-c headers the package carries.
        "c_api": attr.label_list(providers = [CcInfo]),
        "deps": attr.label_list(providers = [PyInfo]),
        "shared_libraries": attr.label_list(allow_files = [".so"]),
        # Sources, type stubs, the PEP 561 marker `py.typed` and data (.mlir).
        "srcs": attr.label_list(allow_files = True),
        # The stub files `stubgen` writes for the extension module
        # `stubs_module` and its submodules, as paths in the package.
        "stubgen": attr.label(executable = True, cfg = "exec"),
        "stubs": attr.string_list(),
        "stubs_module": attr.string(),
    },
)
