"""A pip-installable wheel of a python_package (see bazel/wheel.py)."""

load("@local_python//:defs.bzl", "WHEEL_TAG")
load(":python_package.bzl", "package_relative_path")

def _wheel_impl(ctx):
    # The file name pip checks against the interpreter: the tag is that of the
    # python3 the extension modules were built for.
    wheel = ctx.actions.declare_file("%s-%s-%s.whl" % (
        ctx.attr.distribution,
        ctx.attr.version,
        WHEEL_TAG,
    ))
    args = ctx.actions.args()
    args.add("--output", wheel)
    args.add("--distribution", ctx.attr.distribution)
    args.add("--version", ctx.attr.version)
    args.add("--tag", WHEEL_TAG)
    args.add("--summary", ctx.attr.summary)
    args.add("--requires-python", ctx.attr.requires_python)
    args.add("--license", ctx.attr.license)
    args.add_all(ctx.attr.classifiers, before_each = "--classifier")
    args.add("--note", ctx.attr.note)
    args.add("--readme", ctx.file.readme)
    args.add_all(ctx.attr.requires, before_each = "--requires")
    package = ctx.attr.package
    for f in package.files.to_list():
        # "mlir/ir.py=<path>": the archive path is the path below the package.
        args.add("%s=%s" % (package_relative_path(package.label, f), f.path))
    ctx.actions.run(
        executable = ctx.file._python,
        arguments = [ctx.file._script.path, args],
        inputs = package.files.to_list() + [ctx.file._script, ctx.file.readme],
        outputs = [wheel],
        mnemonic = "PyWheel",
        progress_message = "Writing wheel %s" % wheel.short_path,
    )
    return [DefaultInfo(files = depset([wheel]), runfiles = ctx.runfiles(files = [wheel]))]

wheel = rule(
    implementation = _wheel_impl,
    attrs = {
        "distribution": attr.string(mandatory = True),
        "package": attr.label(mandatory = True, doc = "a python_package"),
        "classifiers": attr.string_list(),
        "license": attr.string(doc = "an SPDX license expression"),
        "note": attr.string(doc = "a paragraph put before the README in the description"),
        "readme": attr.label(mandatory = True, allow_single_file = [".md"], doc = "the description (Markdown)"),
        "requires": attr.string_list(doc = "requirements with the version ranges the package supports"),
        "requires_python": attr.string(),
        "summary": attr.string(),
        "version": attr.string(mandatory = True),
        "_python": attr.label(default = Label("@local_python//:python3"), allow_single_file = True),
        "_script": attr.label(default = Label("//bazel:wheel.py"), allow_single_file = True),
    },
)
