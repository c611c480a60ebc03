"""cc_common under rules_cc's name: Bazel 4.2.3's built-in module."""

load("//cc/private:builtins.bzl", "BUILTIN_CC_COMMON")

cc_common = BUILTIN_CC_COMMON
