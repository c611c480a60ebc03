"""Runs lit on the test file given on the command line (see //bazel:lit.bzl)."""

import sys

from lit.main import main

main()
