"""npm_package: one package of the npm registry at a pinned version, fetched
with the `npm` client (`npm pack`; Bazel itself downloads nothing here) and
checked against the tarball's pinned sha256 before it is unpacked."""

def _npm_package_impl(rctx):
    npm = rctx.which("npm")
    if not npm:
        fail("npm not found on PATH; `./bazelw run //tools:format` installs Debian's npm, or install it yourself")
    spec = "%s@%s" % (rctx.attr.package, rctx.attr.version)
    rctx.report_progress("npm pack " + spec)
    result = rctx.execute([npm, "pack", "--silent", spec], timeout = 600)
    if result.return_code != 0:
        fail("npm pack %s failed:\n%s%s" % (spec, result.stdout, result.stderr))
    tarball = rctx.path(result.stdout.strip().splitlines()[-1])

    # Bazel checks the sha256 of a file:// "download"; nothing leaves the machine.
    rctx.download_and_extract(
        url = "file://%s" % tarball,
        sha256 = rctx.attr.sha256,
        type = "tar.gz",
        stripPrefix = "package",
    )
    rctx.delete(tarball)
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.symlink(rctx.attr.build_file, "BUILD")

npm_package = repository_rule(
    implementation = _npm_package_impl,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "package": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
    },
    environ = ["PATH"],
)
