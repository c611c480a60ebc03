"""Bazel's built-in C++ provider and module, under names cc/common can re-export."""

BUILTIN_CC_INFO = CcInfo
BUILTIN_CC_COMMON = cc_common
