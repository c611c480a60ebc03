"""Finds Debian's orig tarball of the installed LLVM, checks its sha256 and
extracts the subtrees upstream's Python bindings and their tests need, for
//bazel:llvm_sources.bzl. Runs with the host's python3 (a fresh Debian 12 has
no curl): urllib, which honours http_proxy/https_proxy/no_proxy.

    fetch_llvm_sources.py NAME SHA256 CACHE_DIR OUT_DIR SUBTREE...

The subtrees are extracted once into CACHE_DIR and copied from there.
Where the tarball is taken from, first to last:
  1. $LLVM_SOURCE_TARBALL: the tarball itself, or a directory holding NAME;
  2. CACHE_DIR/NAME (a download from an earlier fetch on this machine);
  3. pool/main/l/llvm-toolchain-22/NAME on each Debian mirror of the apt
     sources (not the security archive, which serves no orig tarballs),
     downloaded into CACHE_DIR.
A file whose sha256 differs is never used.
"""

import fnmatch
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

POOL = "pool/main/l/llvm-toolchain-22/"


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def mirrors():
    """The Debian mirrors of the apt sources, in their order, without security
    (deb.debian.org if there are none)."""
    found = []
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*")):
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split("#")[0].split()
            if path.endswith(".sources") and words[:1] == ["URIs:"]:
                uris = words[1:]
            elif words[:1] == ["deb"] or words[:1] == ["deb-src"]:
                uris = [w for w in words[1:] if "://" in w][:1]
            else:
                continue
            for uri in uris:
                # Debian's own mirrors: the security archive serves no orig
                # tarballs, other vendors' repositories no Debian sources.
                if "debian" in uri and "security" not in uri and uri.rstrip("/") not in found:
                    found.append(uri.rstrip("/"))
    return found or ["http://deb.debian.org/debian"]


def download(url, directory, name):
    """Downloads url to directory/name (atomically); returns the path or None."""
    os.makedirs(directory, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=directory, prefix=name + ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=120) as response:
            while True:
                block = response.read(1 << 20)
                if not block:
                    break
                out.write(block)
        target = os.path.join(directory, name)
        os.replace(part, target)
        return target
    except OSError as error:
        print("fetch_llvm_sources: %s: %s" % (url, error), file=sys.stderr)
        if os.path.exists(part):
            os.remove(part)
        return None


def find_tarball(name, expected, cache_dir):
    tried = []
    own = os.environ.get("LLVM_SOURCE_TARBALL", "")
    candidates = []
    if own:
        candidates.append(os.path.join(own, name) if os.path.isdir(own) else own)
    candidates.append(os.path.join(cache_dir, name))
    for path in candidates:
        if os.path.isfile(path):
            if sha256(path) == expected:
                return path, tried
            tried.append("%s (sha256 differs)" % path)
        else:
            tried.append("%s (no such file)" % path)
    for mirror in mirrors():
        url = "%s/%s%s" % (mirror, POOL, name)
        path = download(url, cache_dir, name)
        if path is None:
            tried.append("%s (download failed)" % url)
        elif sha256(path) != expected:
            os.remove(path)
            tried.append("%s (sha256 differs)" % url)
        else:
            return path, tried
    return None, tried


def extract(path, top, out_dir, subtrees):
    """Extracts the subtrees (directories, or single files: a name with a
    dot) below the directory `top` of the tarball at path into out_dir."""
    # Anchored: "*" matches "/" too, and "*/mlir/python/*" would also take
    # the overlay's utils/bazel/llvm-project-overlay/mlir/python.
    patterns = [
        "%s/%s" % (top, s) if "." in s.rsplit("/", 1)[-1] else "%s/%s/*" % (top, s)
        for s in subtrees
    ]
    if shutil.which("tar") and shutil.which("xz"):
        subprocess.run(
            ["tar", "-xf", path, "-C", out_dir, "--strip-components=1", "--wildcards"] + patterns,
            check=True,
        )
        return
    # No xz program (a minimal Debian has liblzma but not always xz-utils):
    # the same extraction with Python's tarfile.
    with tarfile.open(path, "r:xz") as archive:
        for member in archive:
            if not (member.isfile() or member.isdir()):
                continue
            if not any(fnmatch.fnmatchcase(member.name, p) for p in patterns):
                continue
            member.name = member.name.split("/", 1)[1]
            archive.extract(member, out_dir, set_attrs=False)


def main(name, expected, cache_dir, out_dir, *subtrees):
    # The subtrees, extracted once a machine next to the tarball: a new output
    # base copies them (a second) instead of decompressing 196 MB (30 s).
    key = hashlib.sha256(" ".join([expected] + sorted(subtrees)).encode()).hexdigest()[:16]
    extracted = os.path.join(cache_dir, "%s.%s" % (name.replace(".orig.tar.xz", ""), key))
    if not os.path.isdir(extracted):
        path, tried = find_tarball(name, expected, cache_dir)
        if path is None:
            sys.exit(
                "no copy of %s with sha256 %s was found; tried:\n  %s\n"
                "Put a copy (e.g. from snapshot.debian.org, or a colleague's) in %s,\n"
                "or point LLVM_SOURCE_TARBALL at the file or at a directory holding it."
                % (name, expected, "\n  ".join(tried), cache_dir)
            )
        print(path)
        os.makedirs(cache_dir, exist_ok=True)
        scratch = tempfile.mkdtemp(dir=cache_dir, prefix=os.path.basename(extracted) + ".")
        try:
            extract(path, name.replace(".orig.tar.xz", ""), scratch, subtrees)
            os.rename(scratch, extracted)
        except OSError:
            # Another fetch finished first.
            shutil.rmtree(scratch, ignore_errors=True)
            if not os.path.isdir(extracted):
                raise
    shutil.copytree(extracted, out_dir, symlinks=True, dirs_exist_ok=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
