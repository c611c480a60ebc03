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

def _python_package_impl(ctx):
    package_dir = ctx.label.package
    outputs = []
    for src in ctx.files.srcs:
        # Keep the path below this BUILD file's package.
        relative = package_relative_path(ctx.label, src)
        out = ctx.actions.declare_file(relative)
        ctx.actions.symlink(output = out, target_file = src)
        outputs.append(out)
    for lib in ctx.files.shared_libraries:
        out = ctx.actions.declare_file(ctx.attr.shared_libraries_dir + "/" + lib.basename)
        ctx.actions.symlink(output = out, target_file = lib)
        outputs.append(out)
    files = depset(outputs)

    # Runfiles-root-relative; an external repository's files are below its name.
    import_path = (ctx.label.workspace_name or ctx.workspace_name) + "/" + package_dir
    runfiles = ctx.runfiles(files = outputs)
    for dep in ctx.attr.deps:
        runfiles = runfiles.merge(dep[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(files = files, runfiles = runfiles),
        PyInfo(
            transitive_sources = depset(
                [f for f in outputs if f.extension == "py"],
                transitive = [dep[PyInfo].transitive_sources for dep in ctx.attr.deps],
            ),
            imports = depset([import_path], transitive = [dep[PyInfo].imports for dep in ctx.attr.deps]),
        ),
    ]

python_package = rule(
    implementation = _python_package_impl,
    attrs = {
        # Python libraries the package imports.
        "deps": attr.label_list(providers = [PyInfo]),
        "shared_libraries": attr.label_list(allow_files = [".so"]),
        "shared_libraries_dir": attr.string(mandatory = True),
        # Sources, type stubs, the PEP 561 marker `py.typed` and data (.mlir).
        "srcs": attr.label_list(allow_files = [".py", ".pyi", ".mlir", "py.typed"]),
    },
)

def _upstream_python_package_impl(ctx):
    # Each file keeps its path below upstream's mlir/python (a source of the
    # release or a file generated in @llvm-project//mlir/python), under this
    # target's package: <package>/mlir/...
    outputs = []
    for src in ctx.files.srcs:
        marker = "mlir/python/"
        index = src.short_path.find(marker)
        if index < 0:
            fail("%s is not below mlir/python" % src.short_path)
        out = ctx.actions.declare_file(src.short_path[index + len(marker):])
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

# Upstream's `mlir` package assembled from @llvm-project//mlir/python's files
# and the extension modules and libraries (all in mlir/_mlir_libs), importable
# from this target's package directory.
upstream_python_package = rule(
    implementation = _upstream_python_package_impl,
    attrs = {
        # C API libraries whose mlir-c headers the package carries.
        "c_api": attr.label_list(providers = [CcInfo]),
        "deps": attr.label_list(providers = [PyInfo]),
        "shared_libraries": attr.label_list(allow_files = [".so"]),
        "srcs": attr.label_list(allow_files = True),
    },
)
