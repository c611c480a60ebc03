"""Writes a wheel (PEP 427) from files given as ARCHIVE_PATH=FILE (see wheel.bzl).

Files are stored with their content (symlinks followed), in sorted order with a
fixed timestamp, so that the same inputs give the same wheel.
"""

import argparse
import base64
import hashlib
import os
import re
import zipfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--distribution", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--summary", default="")
    parser.add_argument("--requires-python", default="")
    parser.add_argument("--license", default="", help="an SPDX license expression")
    parser.add_argument("--license-file", required=True)
    parser.add_argument("--classifier", action="append", default=[])
    parser.add_argument("--note", default="")
    parser.add_argument("--readme", required=True)
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()

    dist_info = f"{args.distribution}-{args.version}.dist-info"
    # Core metadata 2.4 (PEP 639's license fields): headers, then the
    # description as the message body.
    license_file = os.path.basename(args.license_file)
    metadata = [
        "Metadata-Version: 2.4",
        f"Name: {args.distribution}",
        f"Version: {args.version}",
        f"Summary: {args.summary}",
        f"License-Expression: {args.license}",
        f"License-File: {license_file}",
        "Description-Content-Type: text/markdown",
    ]
    metadata += [f"Classifier: {c}" for c in args.classifier]
    if args.requires_python:
        metadata.append(f"Requires-Python: {args.requires_python}")
    metadata += [f"Requires-Dist: {r}" for r in args.requires]
    with open(args.readme, encoding="utf-8") as f:
        description = f.read()
    if args.note:
        description = f"> {args.note}\n\n{description}"
    wheel = [
        "Wheel-Version: 1.0",
        "Generator: bazel/wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {args.tag}",
    ]
    entries = {}
    for spec in args.files:
        path, _, file = spec.partition("=")
        with open(file, "rb") as f:
            entries[path] = f.read()
    with open(args.license_file, "rb") as f:
        entries[f"{dist_info}/licenses/{license_file}"] = f.read()
    entries[f"{dist_info}/METADATA"] = ("\n".join(metadata) + "\n\n" + description).encode()
    entries[f"{dist_info}/WHEEL"] = ("\n".join(wheel) + "\n").encode()
    write_wheel(args.output, dist_info, entries)


def write_wheel(output, dist_info, entries):
    """Writes `entries` (archive path: bytes) and their RECORD to `output`."""
    record = []
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as whl:
        for path in sorted(entries):
            write(whl, path, entries[path])
            digest = base64.urlsafe_b64encode(hashlib.sha256(entries[path]).digest())
            record.append(f"{path},sha256={digest.rstrip(b'=').decode()},{len(entries[path])}")
        record.append(f"{dist_info}/RECORD,,")
        write(whl, f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode())


def is_shared_library(path):
    """Whether `path` names a shared library: libX.so, libX.so.22.1."""
    return re.search(r"\.so(\.|$)", path) is not None


def write(whl, path, data):
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    # Shared libraries (libX.so, libX.so.22.1) keep their executable bit when
    # pip unpacks them.
    mode = 0o755 if is_shared_library(path) else 0o644
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    whl.writestr(info, data)


if __name__ == "__main__":
    main()
