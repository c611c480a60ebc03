"""Finishes the wheel auditwheel repaired (see wheel.bzl).

Usage: wheel_finish.py REPAIRED_DIR OUTPUT_DIR (patchelf and dpkg-query on PATH)

- rpath entries that lead outside the wheel (Bazel's `$ORIGIN/../../_solib_k8/...`,
  which auditwheel keeps) are dropped: the installed libraries look for others
  only inside the wheel;
- the license notice of every library auditwheel bundled goes into the
  wheel's `licenses/bundled/`: the copyright file of the Debian package the
  library came from, the common licenses it refers to, and LIBRARIES.txt
  saying which package and version each library is.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile
import zipfile

from wheel import write_wheel

COMMON_LICENSES = "/usr/share/common-licenses/"


def main(repaired_dir, output_dir):
    (repaired,) = glob.glob(os.path.join(repaired_dir, "*.whl"))
    with zipfile.ZipFile(repaired) as whl, tempfile.TemporaryDirectory() as tmp:
        whl.extractall(tmp)
        entries = [n for n in whl.namelist() if not n.endswith("/")]
        (dist_info,) = {n.split("/")[0] for n in entries if n.split("/")[0].endswith(".dist-info")}
        for name in entries:
            if re.search(r"\.so(\.|$)", name):
                keep_rpath_inside(tmp, name)
        contents = {}
        for name in entries:
            with open(os.path.join(tmp, name), "rb") as f:
                contents[name] = f.read()
    libs = sorted(n for n in entries if n.split("/")[0].endswith(".libs"))
    notices = bundled_notices(libs)
    for path, text in notices.items():
        contents[f"{dist_info}/licenses/{path}"] = text
    metadata = f"{dist_info}/METADATA"
    headers, _, description = contents[metadata].decode().partition("\n\n")
    headers += "".join(f"\nLicense-File: {path}" for path in sorted(notices))
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
        # auditwheel inserts a hash of the content: libLLVM-1bdef530.so.22.1.
        original = re.sub(r"-[0-9a-f]{8}(\.so)", r"\1", os.path.basename(lib))
        package = owning_package(original)
        version = run("dpkg-query", "--show", "--showformat=${Version}", package)
        with open(f"/usr/share/doc/{package}/copyright", "rb") as f:
            copyright_text = f.read()
        notices[f"bundled/{package}/copyright"] = copyright_text
        for common in sorted(
            set(re.findall(rb"/usr/share/common-licenses/([\w.+-]+)", copyright_text))
        ):
            path = COMMON_LICENSES + common.decode()
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    notices[f"bundled/common-licenses/{common.decode()}"] = f.read()
        listing.append(
            f"{lib}: {original} of Debian's {package} {version}, bundled/{package}/copyright\n"
        )
    notices["bundled/LIBRARIES.txt"] = (
        "The shared libraries bundled in this wheel, the Debian packages they come from and\n"
        "their license notices (the common licenses these refer to are in bundled/common-licenses/):\n\n"
        + "".join(listing)
    ).encode()
    return notices


def owning_package(library):
    """The Debian package installing `library` as a file (not a symlink)."""
    result = subprocess.run(
        ["dpkg-query", "--search", f"*/{library}"], capture_output=True, text=True
    )
    owners = set()
    for line in result.stdout.splitlines():
        packages, _, path = line.partition(": ")
        if os.path.isfile(path) and not os.path.islink(path):
            owners.update(p.strip().split(":")[0] for p in packages.split(","))
    if len(owners) != 1:
        sys.exit(
            f"wheel_finish.py: auditwheel bundled {library}, which is not the file of exactly one "
            f"Debian package (owners: {sorted(owners) or 'none'}), so its license notice is unknown. "
            "Build the wheel against LLVM/MLIR and libraries installed from Debian's packages."
        )
    return owners.pop()


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main(*sys.argv[1:])
