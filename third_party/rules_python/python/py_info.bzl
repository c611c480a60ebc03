"""PyInfo under rules_python's name: Bazel 4.2.3's built-in provider."""

load("//python/private:builtins.bzl", "BUILTIN_PY_INFO")

PyInfo = BUILTIN_PY_INFO
