"""cc_without: the C++ libraries in `deps`, checked at analysis time not to
reach any target named in `forbidden`.

For code that replaces an upstream library: linking both would define the same
symbols twice, and in a shared library one copy would silently win.
"""

load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

_Labels = provider(fields = ["labels"])

def _labels_aspect_impl(target, ctx):
    deps = getattr(ctx.rule.attr, "deps", [])
    return [_Labels(labels = depset(
        [target.label],
        transitive = [d[_Labels].labels for d in deps if _Labels in d],
    ))]

_labels_aspect = aspect(
    implementation = _labels_aspect_impl,
    attr_aspects = ["deps"],
)

def _cc_without_impl(ctx):
    for dep in ctx.attr.deps:
        for label in dep[_Labels].labels.to_list():
            # By package and name, whatever the repository is called.
            key = "%s:%s" % (label.package, label.name)
            if key in ctx.attr.forbidden:
                fail("%s reaches %s, through %s: %s" % (ctx.label, label, dep.label, ctx.attr.forbidden[key]))
    return [cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])]

cc_without = rule(
    implementation = _cc_without_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], aspects = [_labels_aspect]),
        # "package:name" of each forbidden target, and why.
        "forbidden": attr.string_dict(mandatory = True),
    },
    provides = [CcInfo],
)
