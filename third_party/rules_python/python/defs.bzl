"""Offline stand-in for @rules_python: Bazel 4.2.3's native Python rules under rules_python's names.

A build with a real rules_python replaces this repository; BUILD files load from
@rules_python//python:defs.bzl either way.
"""

load("@bazel_tools//tools/python:toolchain.bzl", _py_runtime_pair = "py_runtime_pair")

py_runtime_pair = _py_runtime_pair

def py_binary(**kwargs):
    native.py_binary(**kwargs)

def py_library(**kwargs):
    native.py_library(**kwargs)

def py_runtime(**kwargs):
    native.py_runtime(**kwargs)

def py_test(**kwargs):
    native.py_test(**kwargs)
