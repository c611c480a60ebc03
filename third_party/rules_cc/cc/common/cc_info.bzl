"""CcInfo under rules_cc's name: Bazel 4.2.3's built-in provider."""

load("//cc/private:builtins.bzl", "BUILTIN_CC_INFO")

CcInfo = BUILTIN_CC_INFO
