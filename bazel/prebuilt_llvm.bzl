"""Creates @llvm-project from an installed LLVM/MLIR (Debian's llvm-22-dev,
libmlir-22-dev, mlir-22-tools) with upstream's Bazel overlay target names.

The install is found through `llvm-config-22` on PATH; LLVM_INSTALL_PREFIX
overrides it. A build that compiles llvm-project from source brings upstream's
own @llvm-project instead and this rule is not used.

The BUILD files are generated from //bazel:llvm_targets.bzl, so that each name
has upstream's semantics: its kind, alwayslink, testonly and exported headers.

Upstream's Python bindings are built from the release's own sources, which the
prebuilt install lacks: //bazel:llvm_sources.bzl fetches them into a repository
of their own (`python_sources`, by default @llvm_project_python_sources), and
they appear here at upstream's paths (mlir/lib/Bindings/Python, mlir/python,
mlir/test/python, mlir/test/CAPI) with upstream's target names
(MLIRBindingsPythonCoreNoCAPI, MLIRBindingsPythonCAPIObjects,
//mlir/python:...PyFiles and ...PyGen).
"""

load(":llvm_python_targets.bzl", "PY_FILES", "PY_GEN")
load(":llvm_sources.bzl", "SUBTREES")
load(":llvm_targets.bzl", "LLVM_PROJECT_TARGETS")

_LLVM_MAJOR = "22"

# Flags from `llvm-config --cxxflags`, minus -fno-exceptions: our bindings
# need exceptions and the prebuilt libraries do not care.
_LLVM_DEFINES = [
    "_GNU_SOURCE",
    "__STDC_CONSTANT_MACROS",
    "__STDC_FORMAT_MACROS",
    "__STDC_LIMIT_MACROS",
]

# The shared libraries holding the C++ code, by the package that imports them.
_SHARED_LIBRARIES = {
    "libLLVM": "llvm",
    "libMLIR": "mlir",
    "libMLIRExecutionEngineShared": "mlir",
}

def _fail_if(rctx, cond, msg):
    if cond:
        fail("prebuilt_llvm_project: " + msg)

def _prefix(rctx):
    prefix = rctx.os.environ.get("LLVM_INSTALL_PREFIX", "")
    if prefix:
        return prefix
    llvm_config = rctx.which("llvm-config-" + _LLVM_MAJOR)
    _fail_if(rctx, llvm_config == None, "llvm-config-%s not found on PATH; run ./bazelw, which installs LLVM %s, or set LLVM_INSTALL_PREFIX" % (_LLVM_MAJOR, _LLVM_MAJOR))
    result = rctx.execute([llvm_config, "--prefix"])
    _fail_if(rctx, result.return_code != 0, "llvm-config --prefix failed: " + result.stderr)
    return result.stdout.strip()

def _label(package, key):
    pkg, name = key.split(":")
    return ":" + name if pkg == package else "//%s:%s" % (pkg, name)

def _rule(kind, name, **attrs):
    """One rule call in BUILD syntax; attributes that are empty are left out."""
    lines = [kind + "(", '    name = "%s",' % name]
    for key in sorted(attrs):
        value = attrs[key]
        if value:
            lines.append("    %s = %s," % (key, value))
    return "\n".join(lines + [")", ""])

def _glob(patterns, exclude = []):
    if not patterns:
        return None
    if exclude:
        return "glob(%r, exclude = %r)" % (patterns, exclude)
    return "glob(%r)" % patterns

def _lib_deps(package, entry, whole):
    """The targets that import `entry`'s prebuilt code."""
    lib = entry.get("lib", "")
    if lib in _SHARED_LIBRARIES:
        return [_label(package, _SHARED_LIBRARIES[lib] + ":_" + lib)]
    if lib.startswith("capi:"):
        return [":_CAPI%s_archive%s" % (a, "_whole" if whole else "") for a in lib[len("capi:"):].split(",")]
    return []

def _entry_rules(package, name, entry, so_version):
    """The rules that stand for one table entry, as upstream defines it."""
    deps = [_label(package, d) for d in entry.get("deps", [])] + [":_headers"]
    hdrs = _glob(entry.get("hdrs", []))
    textual_hdrs = _glob(entry.get("textual_hdrs", []))
    testonly = "True" if entry.get("testonly") else None
    kind = entry["kind"]
    if kind == "cc_library":
        return [_rule("cc_library", name, hdrs = hdrs, textual_hdrs = textual_hdrs, testonly = testonly, deps = repr(deps + _lib_deps(package, entry, False)))]
    if kind == "capi":
        # upstream's mlir_c_api_cc_library: X, XHeaders and XObjects.
        capi_deps = [_label(package, d) for d in entry.get("capi_deps", [])]
        archives = []
        for archive in entry["lib"][len("capi:"):].split(","):
            archives += [
                _rule("cc_import", "_CAPI%s_archive" % archive, static_library = '"lib/libMLIRCAPI%s.a"' % archive, visibility = '["//visibility:private"]'),
                _rule("cc_import", "_CAPI%s_archive_whole" % archive, alwayslink = "True", static_library = '"lib/libMLIRCAPI%s.a"' % archive, visibility = '["//visibility:private"]'),
            ]
        return archives + [
            _rule("cc_library", name, hdrs = hdrs, deps = repr(deps + capi_deps + _lib_deps(package, entry, False))),
            _rule("cc_library", name + "Headers", hdrs = hdrs, deps = repr(deps + [d + "Headers" for d in capi_deps])),
            _rule("cc_library", name + "Objects", alwayslink = "True", hdrs = hdrs, deps = repr(deps + [d + "Headers" for d in capi_deps] + [d + "Objects" for d in capi_deps] + _lib_deps(package, entry, True))),
        ]
    if kind == "shared_library":
        return [_rule("filegroup", name, srcs = repr(["lib/%s.%s" % (entry["lib"][len("lib:"):], so_version)]))]
    if kind == "binary":
        return [_rule("filegroup", name, srcs = repr(["bin/" + entry["lib"][len("bin:"):]]), testonly = testonly)]
    if kind == "td_library":
        return [_rule("td_library", name, srcs = _glob(entry["srcs"]), includes = '["include"]')]
    fail("unknown kind " + kind)

def _package_build(package, header_dirs, so_version, libdir):
    entries = {k.split(":")[1]: v for k, v in LLVM_PROJECT_TARGETS.items() if k.startswith(package + ":")}
    owned = []
    for entry in entries.values():
        owned += entry.get("hdrs", []) + entry.get("textual_hdrs", [])
    rules = [
        "# @llvm-project//%s over a prebuilt LLVM/MLIR (%s), generated by" % (package, libdir),
        "# //bazel:prebuilt_llvm.bzl from //bazel:llvm_targets.bzl: upstream's overlay",
        "# names with upstream's semantics. Do not edit.",
        'load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library")',
    ] + (['load(":tblgen.bzl", "td_library")'] if package == "mlir" else []) + [
        "",
        'package(default_visibility = ["//visibility:public"])',
        "",
        "# Read by //test/llvm_overlay, which compares it with upstream's overlay.",
        'exports_files(["BUILD"])',
        "",
        "# The headers no listed target exports: upstream makes them visible through",
        "# its targets' transitive deps, under names this component does not use.",
        _rule(
            "cc_library",
            "_headers",
            hdrs = _glob(["include/%s/**" % d for d in header_dirs], exclude = owned),
            includes = '["include"]',
            defines = repr(_LLVM_DEFINES) if package == "llvm" else None,
            # The prebuilt shared libraries are found at run time through this rpath.
            linkopts = repr(["-Wl,-rpath," + libdir]) if package == "llvm" else None,
            deps = '["//llvm:_headers"]' if package == "mlir" else None,
            visibility = '["//:__subpackages__"]',
        ),
    ]
    for lib, pkg in _SHARED_LIBRARIES.items():
        if pkg == package:
            rules.append(_rule("cc_import", "_" + lib, shared_library = '"lib/%s.so.%s"' % (lib, so_version), visibility = '["//:__subpackages__"]'))
    for name in sorted(entries):
        rules += _entry_rules(package, name, entries[name], so_version)
    return "\n".join(rules)

# Upstream's binding targets in @llvm-project//mlir, over the release's
# sources (mlir/lib/Bindings/Python). Built as upstream's CMake builds them
# (UPSTREAM_BINDINGS.md): nanobind in the "mlir" domain, the capsule prefix
# "mlir.", RTTI and exceptions.
_MLIR_BINDINGS = """
# The binding sources of the release, for the extension modules' srcs, as
# upstream's overlay exports them.
exports_files(glob(["lib/Bindings/Python/*.cpp"]))

# The .td files mlir-tblgen reads (//mlir/python's ...PyGen).
filegroup(
    name = "_td_files",
    srcs = glob(["include/mlir/**/*.td"]),
    visibility = ["//:__subpackages__"],
)

# nanobind's headers with the definitions every translation unit of the
# bindings must agree on (nanobind's domain, the bindings' C++ namespace and
# capsule prefix), and the bindings' private headers (Pass.h, Rewrite.h).
cc_library(
    name = "MLIRBindingsPythonNanobindHeaders",
    textual_hdrs = glob(["lib/Bindings/Python/*.h"]),
    includes = ["lib/Bindings/Python"],
    defines = [
        "NB_SHARED",
        "NB_DOMAIN=mlir",
        "MLIR_BINDINGS_PYTHON_DOMAIN=mlir",
        "MLIR_PYTHON_PACKAGE_PREFIX=mlir.",
    ],
    deps = [
        ":MLIRBindingsPythonHeaders",
        "@local_python//:python_headers",
        "@pip//:nanobind_headers",
    ],
)

# The bindings' core classes (Py* and PyGlobals, upstream's private support
# library), without any C API code: link it into exactly one shared library
# per process (upstream's libMLIRPythonSupport-<domain>.so).
cc_library(
    name = "MLIRBindingsPythonCoreNoCAPI",
    srcs = [
        "lib/Bindings/Python/Globals.cpp",
        "lib/Bindings/Python/IRAttributes.cpp",
        "lib/Bindings/Python/IRCore.cpp",
        "lib/Bindings/Python/IRTypes.cpp",
    ],
    copts = [
        "-fexceptions",
        "-frtti",
        "-fvisibility-inlines-hidden",
        "-w",
    ],
    local_defines = ["MLIR_CAPI_BUILDING_LIBRARY=1"],
    deps = [
        ":CAPIDebugHeaders",
        ":CAPIIRHeaders",
        ":CAPIInterfacesHeaders",
        ":CAPITransformsHeaders",
        ":MLIRBindingsPythonNanobindHeaders",
        "//llvm:Support",
    ],
    alwayslink = True,
)

# The C APIs the core bindings use, to aggregate into one shared library.
cc_library(
    name = "MLIRBindingsPythonCAPIObjects",
    deps = [
        ":CAPIDebugObjects",
        ":CAPIIRObjects",
        ":CAPIInterfacesObjects",
        ":CAPITransformsObjects",
    ],
)
"""

def _python_build(repo):
    """@llvm-project//mlir/python: upstream's ...PyGen and ...PyFiles."""
    include = "external/%s/mlir/include" % repo
    rules = [
        "# @llvm-project//mlir/python over the release's mlir/python, generated by",
        "# //bazel:prebuilt_llvm.bzl from //bazel:llvm_python_targets.bzl. Do not edit.",
        'package(default_visibility = ["//visibility:public"])',
        "",
        'exports_files(glob(["mlir/**"]))',
        "",
    ]
    for name in sorted(PY_GEN):
        td, outs = PY_GEN[name]
        cmds = [
            "$(location //mlir:mlir-tblgen) %s -I %s -I $$(dirname $(location %s)) $(location %s) -o $(location %s)" % (" ".join(flags), include, td, td, out)
            for out, flags in sorted(outs.items())
        ]
        rules.append(_rule(
            "genrule",
            name,
            srcs = repr([td, "//mlir:_td_files"]),
            outs = repr(sorted(outs)),
            cmd = repr(" && ".join(cmds)),
            tools = repr(["//mlir:mlir-tblgen"]),
        ))
    for name in sorted(PY_FILES):
        srcs = PY_FILES[name]
        rules.append(_rule("filegroup", name, srcs = srcs if type(srcs) == "string" else repr(srcs)))
    return "\n".join(rules)

_TESTS_BUILD = """# @llvm-project//%s: the release's tests, as files. Generated by
# //bazel:prebuilt_llvm.bzl. Do not edit.
package(default_visibility = ["//visibility:public"])

exports_files(glob(["**"]))

filegroup(
    name = "files",
    srcs = glob(["**"], exclude = ["BUILD"]),
)
"""

# Upstream's test-only python_test dialect (mlir/test/python/lib), as
# upstream's CMake builds it with MLIR_INCLUDE_TESTS: its C++ and C API, to
# link into a shared library of its own, never into the product's aggregate.
_PYTHON_TEST_BUILD = """
_INC = {
    "Attributes": "attrdef",
    "Dialect": "dialect",
    "Ops": "op",
    "Types": "typedef",
}

genrule(
    name = "PythonTestIncGen",
    srcs = [
        "python_test_ops.td",
        "//mlir:_td_files",
    ],
    outs = ["lib/PythonTest%s.%s.inc" % (kind, ext) for kind in _INC for ext in ["h", "cpp"]],
    cmd = " && ".join([
        "$(location //mlir:mlir-tblgen) -gen-%s-%s -I external/%s/mlir/include $(location python_test_ops.td) -o $(@D)/lib/PythonTest%s.%s.inc" % (gen, "decls" if ext == "h" else "defs", "REPO", kind, ext)
        for kind, gen in _INC.items()
        for ext in ["h", "cpp"]
    ]),
    tools = ["//mlir:mlir-tblgen"],
)

cc_library(
    name = "PythonTestCAPIHeaders",
    hdrs = ["lib/PythonTestCAPI.h"],
    includes = ["lib"],
    deps = ["//mlir:CAPIIRHeaders"],
)

cc_library(
    name = "PythonTestCAPI",
    srcs = [
        "lib/PythonTestCAPI.cpp",
        "lib/PythonTestDialect.cpp",
    ],
    hdrs = [
        "lib/PythonTestDialect.h",
        ":PythonTestIncGen",
    ],
    copts = ["-w"],
    includes = ["lib"],
    deps = [
        ":PythonTestCAPIHeaders",
        "//mlir:CAPIIRHeaders",
        "//mlir:IR",
    ],
    alwayslink = True,
)
"""

def _impl(rctx):
    prefix = _prefix(rctx)
    version = rctx.execute([prefix + "/bin/llvm-config", "--version"]).stdout.strip()
    _fail_if(rctx, not version.startswith(_LLVM_MAJOR + "."), "LLVM at %s is version '%s', need %s.x" % (prefix, version, _LLVM_MAJOR))
    so_version = ".".join(version.split(".")[:2])
    for project, header_dirs in [("llvm", ["llvm", "llvm-c"]), ("mlir", ["mlir", "mlir-c"])]:
        for d in header_dirs:
            rctx.symlink(prefix + "/include/" + d, project + "/include/" + d)
        rctx.symlink(prefix + "/bin", project + "/bin")
    rctx.symlink(prefix + "/lib", "llvm/lib")

    # mlir/lib holds the install's files and, from the release's sources,
    # lib/Bindings/Python: a directory of links, never a link to the install.
    for entry in rctx.path(prefix + "/lib").readdir():
        if entry.basename != "cmake":
            rctx.symlink(entry, "mlir/lib/" + entry.basename)

    # The release's subtrees: directories of links, so that the BUILD files
    # written below stay in this repository.
    sources = rctx.path(rctx.attr.python_sources).dirname
    for subtree in SUBTREES:
        for entry in rctx.path(str(sources) + "/" + subtree).readdir():
            rctx.symlink(entry, subtree + "/" + entry.basename)
    rctx.file("llvm/BUILD", _package_build("llvm", ["llvm", "llvm-c"], so_version, prefix + "/lib"))
    rctx.file("mlir/BUILD", _package_build("mlir", ["mlir", "mlir-c"], so_version, prefix + "/lib") + _MLIR_BINDINGS)
    rctx.symlink(rctx.attr.tblgen_bzl, "mlir/tblgen.bzl")
    rctx.file("mlir/python/BUILD", _python_build(rctx.name))
    rctx.file("mlir/test/python/BUILD", (_TESTS_BUILD % "mlir/test/python").replace(
        "package(",
        'load("@rules_cc//cc:defs.bzl", "cc_library")\n\npackage(',
    ) + _PYTHON_TEST_BUILD.replace("REPO", rctx.name))
    rctx.file("mlir/test/CAPI/BUILD", _TESTS_BUILD % "mlir/test/CAPI")
    rctx.file("BUILD", "")
    rctx.file("WORKSPACE", 'workspace(name = "llvm-project")\n')

prebuilt_llvm_project = repository_rule(
    implementation = _impl,
    attrs = {
        # Any file at the root of the repository of the release's binding
        # sources (//bazel:llvm_sources.bzl).
        "python_sources": attr.label(default = Label("@llvm_project_python_sources//:BUILD")),
        # Upstream's mlir/tblgen.bzl, for a prebuilt MLIR.
        "tblgen_bzl": attr.label(default = Label("//bazel:tblgen.bzl")),
    },
    environ = ["LLVM_INSTALL_PREFIX", "PATH"],
    local = True,
)
