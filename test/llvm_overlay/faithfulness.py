# Our prebuilt @llvm-project is a faithful mirror of upstream's overlay for
# every name this component uses, and the component uses no other name.
#
# "Upstream's" is the release's own overlay (utils/bazel/llvm-project-overlay
# of the tarball the build fetches, its BUILD files as OVERLAY_RELEASE_*): a
# build with that overlay must find every name. The facts of each name (rule,
# headers, alwayslink) are in the hand-written table upstream_overlay.py.
#
# RUN: %PYTHON %s | FileCheck %s
# CHECK: 97 targets as upstream defines them
# CHECK: every @llvm-project label of ours is in the release's overlay
#
# A BUILD file naming a target upstream does not have fails the test.
# RUN: echo 'deps = ["@llvm-project//mlir:MLIRCAPIIR"]' > %t.BUILD
# RUN: not %PYTHON %s --scan %t.BUILD | FileCheck --check-prefix=UNKNOWN %s
# UNKNOWN: @llvm-project//mlir:MLIRCAPIIR, in {{.*}}.BUILD, is not in the release's overlay
#
# So does one the hand-written table has and the release does not (22.1.8
# builds lib/CAPI/Target/ExportSMTLIB.cpp inside CAPISMT).
# RUN: echo 'deps = ["@llvm-project//mlir:CAPIExportSMTLIBObjects"]' > %t.BUILD
# RUN: not %PYTHON %s --scan %t.BUILD | FileCheck --check-prefix=SMTLIB %s
# SMTLIB: @llvm-project//mlir:CAPIExportSMTLIBObjects, in {{.*}}.BUILD, is not in the release's overlay
#
# And a macro the release's tblgen.bzl does not define.
# RUN: echo 'load("@llvm-project//mlir:tblgen.bzl", "gentbl_cc_library", "gentbl_library")' > %t.bzl
# RUN: not %PYTHON %s --scan %t.bzl | FileCheck --check-prefix=MACRO %s
# MACRO-NOT: gentbl_cc_library
# MACRO: gentbl_library of @llvm-project//mlir:tblgen.bzl, in {{.*}}.bzl, is not in the release's overlay

import os
import re
import sys

from upstream_overlay import UPSTREAM


def release_file(path):
    """The release overlay's file `path`, from the build's copy."""
    return os.environ["OVERLAY_RELEASE_" + re.sub(r"[/.]", "_", path.upper())]


def release_targets():
    """package:name of every target the release's overlay defines: each
    `name = "..."` of its BUILD files, and a mlir_c_api_cc_library's Headers
    and Objects targets (mlir/build_defs.bzl)."""
    targets = set()
    for package in ["llvm", "mlir", "mlir/python"]:
        with open(release_file(package + "/BUILD.bazel")) as f:
            build = f.read()
        for name in re.findall(r'\bname = "([^"]+)"', build):
            targets.add("%s:%s" % (package, name))
        for name in re.findall(r'mlir_c_api_cc_library\(\s*name = "([^"]+)"', build):
            targets.update("%s:%s%s" % (package, name, suffix) for suffix in ["Headers", "Objects"])
    # The .bzl files the component loads, and the macros and rules they define.
    with open(release_file("mlir/tblgen.bzl")) as f:
        tblgen = f.read()
    for name in re.findall(r"^def (\w+)\(|^(\w+) = rule\(", tblgen, re.MULTILINE):
        targets.add("mlir:tblgen.bzl%" + "".join(name))
    targets.add("mlir:tblgen.bzl")
    return targets


RELEASE = release_targets()


def our_targets():
    """package:name -> facts, from evaluating the generated overlay BUILD files."""
    targets = {}
    for package in ["llvm", "mlir"]:

        def rule(kind):
            def record(name, **attrs):
                targets["%s:%s" % (package, name)] = dict(attrs, kind=kind)

            return record

        scope = {
            "load": lambda *args: None,
            "package": lambda **kwargs: None,
            "exports_files": lambda *args, **kwargs: None,
            "glob": lambda patterns, exclude=(): list(patterns),
            "cc_library": rule("cc_library"),
            "cc_import": rule("cc_import"),
            "filegroup": rule("filegroup"),
            "td_library": rule("td_library"),
            "True": True,
        }
        with open(os.environ["OVERLAY_" + package.upper()]) as f:
            exec(f.read(), scope)
    # Names starting with "_" are the mirror's own plumbing.
    return {k: v for k, v in targets.items() if not k.split(":")[1].startswith("_")}


def facts(target):
    """What a user of the name depends on, in upstream's terms."""
    if target["kind"] == "filegroup":
        (src,) = target["srcs"]
        shared = src.startswith("lib/")
        return {
            "rule": "cc_binary",
            "linkshared": shared,
            "alwayslink": False,
            "testonly": bool(target.get("testonly")),
            "hdrs": [],
            "textual_hdrs": [],
        }
    return {
        "rule": target["kind"],
        "alwayslink": bool(target.get("alwayslink")),
        "testonly": bool(target.get("testonly")),
        "hdrs": target.get("hdrs", []),
        "textual_hdrs": target.get("textual_hdrs", []),
    }


def compare():
    errors = []
    ours = our_targets()
    for name in sorted(set(ours) | set(UPSTREAM)):
        if name not in ours:
            errors.append("%s: in upstream's table, missing from our overlay" % name)
        elif name not in UPSTREAM:
            errors.append("%s: in our overlay, not in upstream's table" % name)
        elif name not in RELEASE:
            errors.append("%s: in upstream's table, not in the release's overlay" % name)
        else:
            mine, theirs = facts(ours[name]), dict(UPSTREAM[name])
            theirs.setdefault("linkshared", False)
            if mine["rule"] != "cc_binary":
                theirs.pop("linkshared")
            for key in theirs:
                a, b = mine[key], theirs[key]
                if isinstance(a, list):
                    a, b = sorted(a), sorted(b)
                if a != b:
                    errors.append("%s: %s is %r, upstream's is %r" % (name, key, a, b))
    return len(ours), errors


def our_build_files():
    """Every BUILD, WORKSPACE and .bzl file of this source tree."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".")]
        for f in files:
            if f in ("BUILD", "BUILD.bazel", "WORKSPACE") or f.endswith((".bzl", ".BUILD")):
                yield os.path.join(directory, f)


def unknown_labels(paths):
    errors = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        # What a load of the overlay's .bzl files takes from it.
        for package, name, symbols in re.findall(
            r'load\(\s*"@llvm-project//([\w/-]+):([\w.]+\.bzl)"((?:\s*,\s*"\w+")*)', text
        ):
            for symbol in re.findall(r'"(\w+)"', symbols):
                if "%s:%s%%%s" % (package, name, symbol) not in RELEASE:
                    errors.append(
                        "%s of @llvm-project//%s:%s, in %s, is not in the release's overlay"
                        % (symbol, package, name, path)
                    )
        for package, name in re.findall(r"@llvm-project//([\w/-]+):([\w.+/%-]+)", text):
            # The prebuilt overlay's BUILD files, which this test reads.
            if name == "BUILD" and path.endswith("llvm_overlay/BUILD"):
                continue
            # The release's files: the binding sources upstream's overlay
            # exports, and its tests.
            if (
                package == "mlir" and name.startswith("lib/Bindings/Python/")
            ) or package.startswith("mlir/test/"):
                continue
            if "%s:%s" % (package, name) not in RELEASE:
                errors.append(
                    "@llvm-project//%s:%s, in %s, is not in the release's overlay"
                    % (package, name, path)
                )
    return errors


def main():
    if sys.argv[1:2] == ["--scan"]:
        errors = unknown_labels(sys.argv[2:])
    else:
        count, errors = compare()
        if not errors:
            print("%d targets as upstream defines them" % count)
        label_errors = unknown_labels(our_build_files())
        if not label_errors:
            print("every @llvm-project label of ours is in the release's overlay")
        errors += label_errors
    for error in errors:
        print(error)
    sys.exit(1 if errors else 0)


main()
