"""Writes a wheel (PEP 427) from files given as ARCHIVE_PATH=FILE (see wheel.bzl).

Files are stored with their content (symlinks followed), in sorted order with a
fixed timestamp, so that the same inputs give the same wheel.
"""

import argparse
import base64
import hashlib
import re
import zipfile


def pinned(lock, names):
    """'name==version' for each name, from a pip lock file."""
    versions = {}
    for line in open(lock):
        m = re.match(r"([A-Za-z0-9_.-]+)==([^\s;\\]+)", line)
        if m:
            versions[normalize(m.group(1))] = m.group(2)
    missing = [n for n in names if normalize(n) not in versions]
    if missing:
        raise SystemExit(f"wheel.py: {', '.join(missing)} not pinned in {lock}")
    return [f"{n}=={versions[normalize(n)]}" for n in names]


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--distribution", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--summary", default="")
    parser.add_argument("--lock", required=True)
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()

    dist_info = f"{args.distribution}-{args.version}.dist-info"
    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {args.distribution}",
        f"Version: {args.version}",
        f"Summary: {args.summary}",
    ] + [f"Requires-Dist: {r}" for r in pinned(args.lock, args.requires)]
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
    entries[f"{dist_info}/METADATA"] = ("\n".join(metadata) + "\n").encode()
    entries[f"{dist_info}/WHEEL"] = ("\n".join(wheel) + "\n").encode()

    record = []
    with zipfile.ZipFile(args.output, "w", zipfile.ZIP_DEFLATED) as whl:
        for path in sorted(entries):
            write(whl, path, entries[path])
            digest = base64.urlsafe_b64encode(hashlib.sha256(entries[path]).digest())
            record.append(f"{path},sha256={digest.rstrip(b'=').decode()},{len(entries[path])}")
        record.append(f"{dist_info}/RECORD,,")
        write(whl, f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode())


def write(whl, path, data):
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    # Shared libraries keep their executable bit when pip unpacks them.
    mode = 0o755 if path.endswith(".so") else 0o644
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    whl.writestr(info, data)


if __name__ == "__main__":
    main()
