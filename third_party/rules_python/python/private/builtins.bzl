"""Bazel's built-in Python provider, under a name py_info.bzl can re-export."""

BUILTIN_PY_INFO = PyInfo
