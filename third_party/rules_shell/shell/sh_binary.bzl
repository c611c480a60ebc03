"""Offline stand-in for @rules_shell: Bazel 4.2.3's native sh_binary under
rules_shell's name.

A build with a real rules_shell (Bazel 7 and later, where the native rule is
gone) replaces this repository; BUILD files load from
@rules_shell//shell:sh_binary.bzl either way.
"""

def sh_binary(**kwargs):
    native.sh_binary(**kwargs)
