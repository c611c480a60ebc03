"""A Python package assembled in bazel-bin: the package's sources and the
shared libraries it loads, side by side, so that the output directory is
importable as it is (`PYTHONPATH=bazel-bin/python`) and tests import the same
tree through runfiles.
"""

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
