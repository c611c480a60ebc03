"""Prints one py_library a distribution installed in the site-packages
directory given on the command line, for @pip's BUILD (//bazel:python.bzl).

Each library holds exactly the files its distribution's RECORD lists (its
packages, its top-level modules, its compiled libraries and its metadata; not
its console scripts, which are removed), and
depends on the distributions its metadata requires here. Runs with the
python3 of pip's venv, whose pip carries the `packaging` library.
"""

import csv
import email.parser
import json
import os
import re
import shutil
import sys

from pip._vendor.packaging.requirements import Requirement


def normalize(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def distributions(site_packages):
    """Yields (name, files, required names) of each installed distribution."""
    for entry in sorted(os.listdir(site_packages)):
        if entry.endswith(".dist-info"):
            try:
                yield distribution(site_packages, os.path.join(site_packages, entry))
            except (OSError, ValueError) as error:
                sys.exit("cannot read the distribution %s: %s" % (entry, error))


def distribution(site_packages, info):
    """(name, files, required names) of the distribution at `info`."""
    with open(os.path.join(info, "METADATA"), encoding="utf-8") as f:
        metadata = email.parser.Parser().parse(f, headersonly=True)
    with open(os.path.join(info, "RECORD"), encoding="utf-8", newline="") as f:
        recorded = [row[0] for row in csv.reader(f) if row]
    # Files inside site-packages; Bazel's runfiles cannot hold a name
    # with a space (such as setuptools' templates), which no import needs.
    files = sorted(
        {
            path
            for path in map(os.path.normpath, recorded)
            if not path.startswith(("..", "/"))
            and "__pycache__" not in path
            and " " not in path
            and os.path.isfile(os.path.join(site_packages, path))
        }
    )
    requires = sorted(
        {
            normalize(requirement.name)
            for requirement in map(Requirement, metadata.get_all("Requires-Dist") or [])
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""})
        }
    )
    return normalize(metadata["Name"]), files, requires


def drop_scripts(site_packages):
    """Removes the console scripts pip wrote, and their lines in RECORD.

    No import needs them, and their shebangs name pip's venv in this output
    base: through RECORD's hashes they would make every library differ
    between output bases, and so miss a remote cache.
    """
    shutil.rmtree(os.path.join(site_packages, "bin"), ignore_errors=True)
    for entry in os.listdir(site_packages):
        record = os.path.join(site_packages, entry, "RECORD")
        if entry.endswith(".dist-info") and os.path.exists(record):
            with open(record, encoding="utf-8", newline="") as f:
                lines = f.read().splitlines(keepends=True)
            with open(record, "w", encoding="utf-8", newline="") as f:
                f.writelines(line for line in lines if not line.startswith("../"))


def main(site_packages):
    drop_scripts(site_packages)
    found = list(distributions(site_packages))
    names = {name for name, _, _ in found}
    print("\n# One py_library a distribution, generated from its RECORD and METADATA.")
    for name, files, requires in found:
        missing = [r for r in requires if r not in names]
        if missing:
            sys.exit("%s requires %s, which the lock file lacks" % (name, ", ".join(missing)))
        paths = lambda selected: "".join(
            "        %s,\n" % json.dumps("site-packages/" + path) for path in selected
        )
        print(
            "py_library(\n"
            '    name = "%s",\n'
            % name
            + "    srcs = [\n%s    ],\n" % paths(p for p in files if p.endswith(".py"))
            + "    data = [\n%s    ],\n" % paths(p for p in files if not p.endswith(".py"))
            + '    imports = ["site-packages"],\n'
            + "    deps = [%s],\n" % ", ".join('":%s"' % r for r in requires)
            + ")\n"
        )


if __name__ == "__main__":
    main(sys.argv[1])
