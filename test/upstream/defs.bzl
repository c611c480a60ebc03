"""upstream_lit_test: one of upstream MLIR's Python tests, from the release's
sources, as a lit test on the `mlir` package (//python:mlir with upstream's test-only
python_test dialect: //test/upstream:mlir)."""

load("@rules_python//python:defs.bzl", "py_test")

_TESTS = "@llvm-project//mlir/test/python"

def upstream_lit_test(name, src, xfail = None, env = {}, tools = [], tests = _TESTS, tags = [], **kwargs):
    """A py_test running lit on `src`, a path below mlir/test/python.

    Args:
      name: the test's name.
      src: the test's path below upstream's mlir/test/python.
      xfail: why the test is expected to fail, or None; an expected failure
        that passes fails (lit's XPASS).
      env: environment variables for the RUN lines, each naming a file target
        whose absolute path becomes the value.
      tools: executables the RUN lines name; their directories are put on PATH.
      tests: the package of the release's tests `src` is in.
      tags: the test's tags.
      **kwargs: passed to py_test.
    """
    filecheck = "@llvm-project//llvm:FileCheck"
    py_test(
        name = name,
        srcs = ["//test/upstream:lit_upstream.py"],
        main = "//test/upstream:lit_upstream.py",
        args = [
            "$(rootpath %s:lit.local.cfg)" % tests,
            src,
            "--param",
            "tools=" + ":".join(["$(rootpath %s)" % t for t in tools + [filecheck]]),
        ] + [
            "--param=env.%s=$(rootpath %s)" % (var, target)
            for var, target in env.items()
        ] + (["--xfail=%s/%s" % (tests.split("/")[-1], src)] if xfail else []) + ["-v"],
        data = [
            tests + ":files",
            tests + ":lit.local.cfg",
            "//test:lit.cfg.py",
            "//test:lsan_suppressions.txt",
            filecheck,
        ] + tools + env.values(),
        python_version = "PY3",
        tags = tags + ["upstream"],
        deps = [
            "//test/upstream:mlir",
            "@pip//:lit",
            "@pip//:ml_dtypes",
            "@pip//:numpy",
            # linalg's opdsl (dialects/linalg/opdsl/*).
            "@pip//:pyyaml",
        ],
        **kwargs
    )
