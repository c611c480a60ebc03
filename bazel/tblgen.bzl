"""@llvm-project//mlir:tblgen.bzl over a prebuilt MLIR: upstream's overlay
macros `td_library` and `gentbl_cc_library` with the attributes this
component uses, so that its BUILD files generate code from .td files as a
source build of llvm-project does (//bazel:prebuilt_llvm.bzl links this file
there).
"""

TdInfo = provider(
    doc = "The .td files a td_library and its deps hold, and their include directories.",
    fields = ["transitive_sources", "transitive_includes"],
)

def _include_path(ctx, include):
    """`include`, a directory of the target's package, from the execroot."""
    parts = [p for p in [ctx.label.workspace_root, ctx.label.package, include] if p]
    return "/".join(parts) or "."

def _td_info(ctx, srcs, includes):
    return TdInfo(
        transitive_sources = depset(srcs, transitive = [d[TdInfo].transitive_sources for d in ctx.attr.deps]),
        transitive_includes = depset(
            [_include_path(ctx, i) for i in includes],
            transitive = [d[TdInfo].transitive_includes for d in ctx.attr.deps],
        ),
    )

def _td_library_impl(ctx):
    return [DefaultInfo(files = depset(ctx.files.srcs)), _td_info(ctx, ctx.files.srcs, ctx.attr.includes)]

td_library = rule(
    implementation = _td_library_impl,
    doc = "A set of .td files and the directories they are included from.",
    attrs = {
        "deps": attr.label_list(providers = [TdInfo]),
        "includes": attr.string_list(),
        "srcs": attr.label_list(allow_files = True),
    },
)

def _gentbl_rule_impl(ctx):
    info = _td_info(ctx, [ctx.file.td_file], ctx.attr.includes)
    args = ctx.actions.args()
    args.add_all(ctx.attr.opts)
    args.add_all(info.transitive_includes, before_each = "-I")
    args.add("-I", ctx.file.td_file.dirname)
    args.add(ctx.file.td_file)
    args.add("-o", ctx.outputs.out)
    ctx.actions.run(
        executable = ctx.executable.tblgen,
        arguments = [args],
        inputs = info.transitive_sources,
        outputs = [ctx.outputs.out],
        mnemonic = "TdGenerate",
        progress_message = "Generating %s" % ctx.outputs.out.short_path,
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

_gentbl_rule = rule(
    implementation = _gentbl_rule_impl,
    attrs = {
        "deps": attr.label_list(providers = [TdInfo]),
        "includes": attr.string_list(),
        "opts": attr.string_list(),
        "out": attr.output(mandatory = True),
        "tblgen": attr.label(executable = True, cfg = "exec", allow_files = True, mandatory = True),
        "td_file": attr.label(allow_single_file = True, mandatory = True),
    },
)

def gentbl_cc_library(name, tbl_outs, tblgen, td_file, deps = [], includes = [], strip_include_prefix = None, **kwargs):
    """A cc_library of the files mlir-tblgen generates from `td_file`:
    `tbl_outs` maps each output (a path in this package) to its options.
    With `strip_include_prefix` they are its hdrs (Bazel does not strip
    textual_hdrs), else its textual_hdrs, as upstream's macro does."""
    outs = []
    for out, opts in tbl_outs.items():
        rule_name = "%s_%s_gen" % (name, out.replace("/", "_").replace(".", "_"))
        _gentbl_rule(
            name = rule_name,
            deps = deps,
            includes = includes,
            opts = opts,
            out = out,
            tblgen = tblgen,
            td_file = td_file,
        )
        outs.append(out)
    if strip_include_prefix:
        native.cc_library(name = name, hdrs = outs, strip_include_prefix = strip_include_prefix, **kwargs)
    else:
        native.cc_library(name = name, textual_hdrs = outs, **kwargs)
