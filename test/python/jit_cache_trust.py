# REQUIRES: root
# RUN: %PYTHON %s | FileCheck %s
#
# The object cache's trust model: an entry is code the process runs, so it
# is read only if this user wrote it and no one else can have changed it.
# The directory is this user's, writable by no one else or sticky, or
# root's and sticky (as /tmp); each entry must be this user's own regular
# file, writable by no one else. Another local user (a child process with uid 65534, as
# `nobody`) plants entries, links and directories; none of their code runs.

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

from fixtures import CACHE_ENTRY_HEADER, llvm_xxh3

ADD = "func.func @add(%a: f64, %b: f64) -> f64 {\n  %c = arith.addf %a, %b : f64\n  return %c : f64\n}"
# The code another user would have run instead: add(1, 2) = 1003.
EVIL = ADD.replace(
    "return %c", "%k = arith.constant 1000.0 : f64\n  %e = arith.addf %c, %k : f64\n  return %e"
)

CHILD = r"""
import json, sys, warnings
from mlir import jit_cache
from mlir.execution_engine import jit
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    result = jit(sys.argv[1], cache_dir=sys.argv[2]).add(1.0, 2.0)
print(json.dumps({"result": result, "hits": jit_cache.statistics()["hits"],
                  "warnings": [str(w.message) for w in caught]}))
"""

NOBODY = 65534
# Where the other user can make files too, as /tmp (the test's own temporary
# directory is in root's home, which they cannot enter).
ROOT = tempfile.mkdtemp(prefix="jit_cache_trust_", dir="/tmp")
os.chmod(ROOT, 0o1777)


def run(directory, source=ADD):
    out = subprocess.run(
        [sys.executable, "-c", CHILD, source, directory],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout)


def show(name, outcome):
    warnings = "; ".join(outcome["warnings"]) or "none"
    print(f"{name}: result {outcome['result']} hits {outcome['hits']} warnings: {warnings}")


def as_nobody(*command, data=None):
    subprocess.run(
        list(command), input=data, check=True, user=NOBODY, group=NOBODY, extra_groups=[]
    )


def directory(name, mode):
    path = os.path.join(ROOT, name)
    os.mkdir(path)
    os.chmod(path, mode)
    return path


def only_entry(path):
    (name,) = [n for n in os.listdir(path) if n.endswith(".mlirjit")]
    return os.path.join(path, name)


# An entry under ADD's key holding EVIL's code, its checksum right: what
# another user would plant.
xxh3 = llvm_xxh3()
HEADER = CACHE_ENTRY_HEADER


def parts(path):
    """The header fields and the key, metadata and object of an entry."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, key_size, metadata_size, _, _ = HEADER.unpack_from(data)
    rest = data[HEADER.size :]
    return (
        magic,
        version,
        rest[:key_size],
        rest[key_size : key_size + metadata_size],
        rest[key_size + metadata_size :],
    )


def compiled(name, source):
    """The entry jit() stores for `source` in a new directory."""
    path = directory(name, 0o700)
    run(path, source)
    return only_entry(path)


try:
    add_entry = compiled("add", ADD)
    magic, version, key, _, _ = parts(add_entry)
    _, _, _, metadata, code = parts(compiled("evil", EVIL))
    rest = key + metadata + code
    planted = (
        HEADER.pack(magic, version, len(key), len(metadata), len(code), xxh3(rest, len(rest)))
        + rest
    )
    entry_name = os.path.basename(add_entry)

    # The planted entry is whole: this user's own copy of it is loaded.
    own = directory("own", 0o700)
    with open(os.path.join(own, entry_name), "wb") as f:
        f.write(planted)
    os.chmod(os.path.join(own, entry_name), 0o600)
    show("this user's crafted entry", run(own))
    # CHECK: this user's crafted entry: result 1003.0 hits 1

    # A directory this process makes is this user's alone, as its entries.
    made = os.path.join(ROOT, "made", "cache")
    run(made)
    print(
        "made:",
        oct(stat.S_IMODE(os.stat(made).st_mode)),
        oct(stat.S_IMODE(os.stat(only_entry(made)).st_mode)),
    )
    # CHECK: made: 0o700 0o600

    # A sticky directory every user can write: this user's entries are used,
    # the other user's are not.
    shared = directory("shared", 0o1777)
    run(shared)
    show("sticky, own entry", run(shared))
    # CHECK: sticky, own entry: result 3.0 hits 1 warnings: none
    planted_shared = directory("planted", 0o1777)
    as_nobody(
        "/bin/sh", "-c", 'cat > "$1"', "sh", os.path.join(planted_shared, entry_name), data=planted
    )
    show("sticky, the other user's entry", run(planted_shared))
    # CHECK: sticky, the other user's entry: result 3.0 hits 0

    # Their symbolic link to this user's entry: not followed.
    linked = directory("linked", 0o1777)
    as_nobody("ln", "-s", os.path.join(own, entry_name), os.path.join(linked, entry_name))
    show("sticky, the other user's link", run(linked))
    # CHECK: sticky, the other user's link: result 3.0 hits 0

    # A directory others can write, not sticky: not used at all, even for
    # this user's own entries (anyone could have replaced them).
    open_dir = directory("open", 0o777)
    shutil.copy(add_entry, open_dir)
    show("writable by others", run(open_dir))
    # CHECK: writable by others: result 3.0 hits 0 warnings: the JIT cache is not used: the cache directory '{{.*}}open' is writable by other users, who could put code in it that this process would run; remove their write permission (chmod go-w) or make it sticky (chmod +t)

    # A directory of the other user's (who made it first, as in /tmp).
    theirs = os.path.join(ROOT, "theirs")
    as_nobody("mkdir", "-m", "755", theirs)
    as_nobody("/bin/sh", "-c", 'cat > "$1"', "sh", os.path.join(theirs, entry_name), data=planted)
    show("the other user's directory", run(theirs))
    # CHECK: the other user's directory: result 3.0 hits 0 warnings: the JIT cache is not used: the cache directory '{{.*}}theirs' belongs to another user (uid 65534), who could put code in it that this process would run; use a directory of your own

    # A sticky directory of theirs: its owner can rename or remove this
    # user's entries in it.
    their_sticky = os.path.join(ROOT, "their_sticky")
    as_nobody("mkdir", "-m", "1777", their_sticky)
    show("the other user's sticky directory", run(their_sticky))
    # CHECK: the other user's sticky directory: result 3.0 hits 0 warnings: the JIT cache is not used: the cache directory '{{.*}}their_sticky' belongs to another user (uid 65534)

    # This user's entry, made writable by others: refused, then replaced.
    loose = directory("loose", 0o700)
    shutil.copy(add_entry, loose)
    os.chmod(only_entry(loose), 0o666)
    show("own entry writable by others", run(loose))
    show("after the store replaced it", run(loose))
    # CHECK: own entry writable by others: result 3.0 hits 0 warnings: none
    # CHECK: after the store replaced it: result 3.0 hits 1 warnings: none

    # `python -m mlir.jit_cache clear` applies the same model: a directory
    # jit() does not use is not this user's to clear, even as root (who
    # could), unless asked with --all-users; in a shared sticky directory,
    # the other user's entries stay.
    def clear(path, *flags):
        out = subprocess.run(
            [sys.executable, "-m", "mlir.jit_cache", "clear", "--dir", path, *flags],
            capture_output=True,
            text=True,
        )
        said = " ".join((out.stdout + out.stderr).split())
        left = sorted(n for n in os.listdir(path) if n.endswith(".mlirjit"))
        return f"{out.returncode} {said} | left {len(left)}"

    print("clear the other user's directory:", clear(theirs))
    # CHECK: clear the other user's directory: 1 python -m mlir.jit_cache: [Errno 1] the cache directory '{{.*}}theirs' belongs to another user (uid 65534): no cache uses it (they could put code in it), so its entries are not this user's to clear python -m mlir.jit_cache: to remove them anyway, give --all-users | left 1
    print("clear a directory writable by others:", clear(open_dir))
    # CHECK: clear a directory writable by others: 1 python -m mlir.jit_cache: [Errno 1] the cache directory '{{.*}}open' is writable by other users and not sticky: no cache uses it (they could put code in it), so its entries are not this user's to clear python -m mlir.jit_cache: to remove them anyway, give --all-users | left 1
    mixed = directory("mixed", 0o1777)
    run(mixed)  # this user's entry, beside the other user's
    as_nobody(
        "/bin/sh",
        "-c",
        'cat > "$1"',
        "sh",
        os.path.join(mixed, "1" * 64 + ".mlirjit"),
        data=planted,
    )
    print("clear a shared sticky directory:", clear(mixed))
    # CHECK: clear a shared sticky directory: 0 removed 1 entries from {{.*}}mixed (left 1 entries of other users) | left 1
    print("asked explicitly:", clear(theirs, "--all-users"), "|", clear(mixed, "--all-users"))
    # CHECK: asked explicitly: 0 removed 1 entries from {{.*}}theirs | left 0 | 0 removed 1 entries from {{.*}}mixed | left 0
    refused = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from mlir import jit_cache\n"
            "try:\n    jit_cache.clear(sys.argv[1])\n"
            "except PermissionError as error:\n    print(type(error).__name__, error.errno)\n"
            "print(jit_cache.clear(sys.argv[1], all_users=True))",
            open_dir,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print("jit_cache.clear:", " ".join(refused.split()))
    # CHECK: jit_cache.clear: PermissionError 1 1
finally:
    shutil.rmtree(ROOT)
