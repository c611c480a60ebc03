"""Finishes the wheel auditwheel repaired (see wheel.bzl).

Usage: wheel_finish.py REPAIRED_DIR OUTPUT_DIR (patchelf and dpkg-query on PATH)

- rpath entries that lead outside the wheel (Bazel's `$ORIGIN/../../_solib_k8/...`,
  which auditwheel keeps) are dropped: the installed libraries look for others
  only inside the wheel;
- the license notice of every library auditwheel bundled goes into the
  wheel's `licenses/bundled/`: the copyright file of the Debian package whose
  file it is (same name, same hash), the common licenses that refers to, and
  LIBRARIES.txt saying which package and version each library is. A library
  no single package installed stops the build. So do MLIR's runtime libraries
  in mlir/_mlir_libs (libmlir_*.so, copies renamed by
  //bazel:runtime_libraries.sh): their notices are their package's.
"""

import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

from wheel import is_shared_library, write_wheel

COMMON_LICENSES = "/usr/share/common-licenses/"


def main(repaired_dir, output_dir):
    wheels = glob.glob(os.path.join(repaired_dir, "*.whl"))
    if len(wheels) != 1:
        fail(f"auditwheel wrote {len(wheels)} wheels, expected one: {wheels}")
    (repaired,) = wheels
    with zipfile.ZipFile(repaired) as whl, tempfile.TemporaryDirectory() as tmp:
        whl.extractall(tmp)
        entries = [n for n in whl.namelist() if not n.endswith("/")]
        (dist_info,) = {n.split("/")[0] for n in entries if n.split("/")[0].endswith(".dist-info")}
        for name in entries:
            if is_shared_library(name):
                keep_rpath_inside(tmp, name)
        contents = {}
        for name in entries:
            with open(os.path.join(tmp, name), "rb") as f:
                contents[name] = f.read()
    libs = sorted(
        n
        for n in entries
        if n.split("/")[0].endswith(".libs") or re.fullmatch(r"mlir/_mlir_libs/libmlir_\w+\.so", n)
    )
    if libs:
        notices = bundled_notices(libs)
        for path, text in notices.items():
            contents[f"{dist_info}/licenses/{path}"] = text
        metadata = f"{dist_info}/METADATA"
        headers, _, description = contents[metadata].decode().partition("\n\n")
        headers = headers.rstrip("\n") + "".join(
            f"\nLicense-File: {path}" for path in sorted(notices)
        )
        contents[metadata] = f"{headers}\n\n{description}".encode()
    contents.pop(f"{dist_info}/RECORD")
    write_wheel(os.path.join(output_dir, os.path.basename(repaired)), dist_info, contents)


def keep_rpath_inside(root, name):
    """Drops the rpath entries of `name` (below `root`) that are not `$ORIGIN`
    directories inside the wheel."""
    library = os.path.join(root, name)
    rpath = run("patchelf", "--print-rpath", library)
    entries = [e for e in rpath.split(":") if e]
    inside = [e for e in entries if resolves_inside(root, name, e)]
    if inside != entries:
        # An RPATH, as auditwheel writes them: searched before LD_LIBRARY_PATH.
        run("patchelf", "--force-rpath", "--set-rpath", ":".join(inside), library)


def resolves_inside(root, name, entry):
    entry = entry.replace("${ORIGIN}", "$ORIGIN")
    if not entry.startswith("$ORIGIN"):
        return False
    directory = os.path.normpath(
        os.path.join(os.path.dirname(name), entry[len("$ORIGIN") :].lstrip("/"))
    )
    return not directory.startswith("..") and os.path.isdir(os.path.join(root, directory))


def bundled_notices(libs):
    """{path below licenses/: text} for the bundled libraries `libs`."""
    notices = {}
    listing = []
    for lib in libs:
        original, package, version = bundled_from(lib)
        name = package.split(":")[0]
        copyright_path = f"/usr/share/doc/{name}/copyright"
        if not os.path.isfile(copyright_path):
            fail(
                f"Debian's {package} installed {original}, bundled as {lib}, but not {copyright_path}"
            )
        with open(copyright_path, "rb") as f:
            copyright_text = f.read()
        notices[f"bundled/{name}/copyright"] = copyright_text
        for common in common_licenses(copyright_text.decode("utf-8", "replace")):
            with open(COMMON_LICENSES + common, "rb") as f:
                notices[f"bundled/common-licenses/{common}"] = f.read()
        listing.append(
            f"{lib}: {original} of Debian's {name} {version}, bundled/{name}/copyright\n"
        )
    notices["bundled/LIBRARIES.txt"] = (
        "The shared libraries bundled in this wheel, the Debian packages they come from and\n"
        "their license notices (the common licenses these refer to are in bundled/common-licenses/):\n\n"
        + "".join(listing)
    ).encode()
    return notices


def bundled_from(lib):
    """(original file name, Debian package with its architecture, version) of
    the bundled library `lib`. auditwheel names a copy by inserting the first
    8 hex digits of the original's sha256 before the first dot:
    libLLVM.so.22.1 -> libLLVM-1bdef530.so.22.1. An MLIR runtime library
    libmlir_X.so is a patched copy of libmlir_X.so.<version>: found by name."""
    base, _, extension = os.path.basename(lib).partition(".")
    if lib.startswith("mlir/_mlir_libs/"):
        pattern, digest = f"*/{base}.so.*", None
    else:
        match = re.fullmatch(r"(.+)-([0-9a-f]{8})", base)
        if not match:
            fail(f"{lib} is not named as auditwheel names the libraries it bundles")
        pattern, digest = f"*/{match.group(1)}.{extension}", match.group(2)
    result = subprocess.run(["dpkg-query", "--search", pattern], capture_output=True, text=True)
    owners = set()
    for line in result.stdout.splitlines():
        packages, _, path = line.partition(": ")
        if line.startswith("diversion by") or not os.path.isfile(path) or os.path.islink(path):
            continue
        if digest:
            with open(path, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest()[:8] != digest:
                    continue
        original = os.path.basename(path)
        owners.update(p.strip() for p in packages.split(","))
    if len(owners) != 1:
        fail(
            f"the wheel bundles {lib}, whose original ({pattern[2:]}) is not the file of exactly one "
            f"Debian package (owners: {sorted(owners) or 'none'}), so its license notice is unknown. "
            "Build the wheel against LLVM/MLIR and libraries installed from Debian's packages."
        )
    (package,) = owners
    return original, package, run("dpkg-query", "--show", "--showformat=${Version}", package)


def common_licenses(copyright_text):
    """The files of /usr/share/common-licenses a Debian copyright file refers to
    (`.../GPL-2.` at a sentence's end, `.../{MPL-1.1,GPL-2}`)."""
    names = set()
    for braced, single in re.findall(
        r"/usr/share/common-licenses/(?:\{([^}]*)\}|([\w.+-]*))", copyright_text
    ):
        for name in braced.split(",") if braced else [single.rstrip(".")]:
            name = name.strip()
            if name and not os.path.isfile(COMMON_LICENSES + name):
                fail(
                    f"a Debian copyright file refers to {COMMON_LICENSES}{name}, which is not there"
                )
            if name:
                names.add(name)
    return sorted(names)


def run(*cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(cmd)} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def fail(message):
    sys.exit(f"wheel_finish.py: {message}; the wheel is not written.")


if __name__ == "__main__":
    main(*sys.argv[1:])
