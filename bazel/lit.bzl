"""lit tests as Bazel tests: one py_test a test file, running lit on it."""

load("@rules_python//python:defs.bzl", "py_test")

def lit_test(name, src, tools = [], env = {}, data = [], deps = [], **kwargs):
    """A py_test that runs lit, with //test:lit.cfg.py, on `src`.

    Args:
      name: the test's name.
      src: the test file, with `RUN:` and `CHECK:` lines.
      tools: executables the RUN lines name; their directories are put on PATH.
      env: environment variables for the RUN lines, each naming a file target
        whose absolute path becomes the value.
      data: other files the test reads.
      deps: Python libraries the RUN lines import.
      **kwargs: passed to py_test.
    """
    py_test(
        name = name,
        srcs = ["//bazel:lit_main.py"],
        main = "//bazel:lit_main.py",
        args = [
            "--param",
            "tools=" + ":".join(["$(rootpath %s)" % t for t in tools + ["@llvm-project//llvm:FileCheck"]]),
        ] + [
            "--param=env.%s=$(rootpath %s)" % (var, target)
            for var, target in env.items()
        ] + [
            "-v",
            "$(rootpath %s)" % src,
        ],
        data = [
            src,
            "//test:lit.cfg.py",
            "//test:lsan_suppressions.txt",
            "@llvm-project//llvm:FileCheck",
        ] + tools + env.values() + data,
        python_version = "PY3",
        deps = ["@pip//:lit"] + deps,
        **kwargs
    )
