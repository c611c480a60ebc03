"""Offline stand-in for @rules_cc: Bazel 4.2.3's native C++ rules under rules_cc's names.

A build with a real rules_cc replaces this repository; BUILD files load from
@rules_cc//cc:defs.bzl either way.
"""

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

# Bazel's own @bazel_tools//tools/cpp loads these.
def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
