"""A Python package assembled in bazel-bin: the package's sources and the
shared libraries it loads, side by side, so that the output directory is
importable as it is (`PYTHONPATH=bazel-bin/python`) and tests import the same
tree through runfiles.
"""

def _python_package_impl(ctx):
    package_dir = ctx.label.package
    outputs = []
    for src in ctx.files.srcs:
        # Keep the path below this BUILD file's package.
        relative = src.short_path[len(package_dir) + 1:]
        out = ctx.actions.declare_file(relative)
        ctx.actions.symlink(output = out, target_file = src)
        outputs.append(out)
    for lib in ctx.files.shared_libraries:
        out = ctx.actions.declare_file(ctx.attr.shared_libraries_dir + "/" + lib.basename)
        ctx.actions.symlink(output = out, target_file = lib)
        outputs.append(out)
    files = depset(outputs)
    import_path = ctx.workspace_name + "/" + package_dir
    return [
        DefaultInfo(files = files, runfiles = ctx.runfiles(files = outputs)),
        PyInfo(transitive_sources = depset([f for f in outputs if f.extension == "py"]), imports = depset([import_path])),
    ]

python_package = rule(
    implementation = _python_package_impl,
    attrs = {
        "shared_libraries": attr.label_list(allow_files = [".so"]),
        "shared_libraries_dir": attr.string(mandatory = True),
        "srcs": attr.label_list(allow_files = [".py"]),
    },
)
