# RUN: %PYTHON %s | FileCheck %s
#
# The persistent object cache (issue 13), seen through each process's
# counters (mlir.jit_cache.statistics()) and the directory, never through
# timing. Every case runs its jit() calls in new processes, as users do:
#
# 1. A second process loads what the first compiled: a hit, no compilation,
#    the same results; callbacks too, though their addresses differ.
#    ExecutionEngine(module, cache_dir=...) likewise, with a ctypes runtime.
# 2. The key: changing the pipeline, the opt level, a shared library or the
#    format version misses; so does another CPU (injected through
#    MLIR_JIT_CACHE_TEST_KEY). cache_dir=None writes nothing.
# 3. A truncated, corrupted or foreign entry is detected, recompiled and
#    replaced, never loaded; also one cut while a process reads it.
# 4. Eight processes compiling the same and different modules at once leave
#    whole entries only.
# 5. A directory that cannot be created, or a disk that is full, gives one
#    RuntimeWarning and a working module.
# 6. MLIR_JIT_CACHE_MAX_BYTES bounds the directory, evicting the least
#    recently used entry first.
# 7. `python -m mlir.jit_cache info|clear`, which touch the cache's files
#    only (not others' in a shared directory, nor a writer's fresh temporary
#    file).
# 8. A whole entry (checksum right) whose content this version cannot use:
#    an object LLVM refuses, or jit()'s analysis unusable, is removed and
#    recompiled. A pipeline's transform library is part of the key: changing
#    the file misses. Names the engine reserves, and an empty cache_dir,
#    are refused.

import json
import os
import subprocess
import sys
import tempfile
import time

from fixtures import CACHE_ENTRY_HEADER, llvm_xxh3

ROOT = tempfile.mkdtemp(prefix="jit_cache_test_", dir=os.environ.get("TEST_TMPDIR"))

ADD = """
func.func @add(%a: f64, %b: f64) -> f64 {
  %c = arith.addf %a, %b : f64
  return %c : f64
}
"""

CALLBACK = """
func.func private @twice(f64) -> f64
func.func @apply(%x: f64) -> f64 {
  %y = func.call @twice(%x) : (f64) -> f64
  %z = arith.addf %y, %x : f64
  return %z : f64
}
"""

# Runs in a new process: jit() SOURCE with KWARGS, calls FUNCTION(*ARGS),
# prints the result, the counters and the warnings as JSON.
CHILD = r"""
import json, os, sys, warnings
spec = json.loads(sys.argv[1])
if spec.get("file_size_limit"):
    import resource, signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (spec["file_size_limit"],) * 2)
from mlir import jit_cache
from mlir.execution_engine import jit
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = []
    for _ in range(spec.get("repeat", 1)):
        module = jit(spec["source"], **spec["kwargs"])
        if "twice" in spec["source"]:
            module.register("twice", lambda x: 2 * x)
        results.append(module[spec["function"]](*spec["args"]))
print(json.dumps({"results": results, "stats": jit_cache.statistics(),
                  "warnings": [str(w.message) for w in caught]}))
"""


def run(
    source=ADD, function="add", args=(1.0, 2.0), env=None, repeat=1, file_size_limit=None, **kwargs
):
    """jit(source, **kwargs)[function](*args), `repeat` times, in a new
    process whose files can grow to `file_size_limit` bytes."""
    spec = {
        "source": source,
        "function": function,
        "args": list(args),
        "kwargs": kwargs,
        "repeat": repeat,
        "file_size_limit": file_size_limit,
    }
    process = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(spec)],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if process.returncode:
        print(process.stdout, process.stderr)
        raise SystemExit("a child failed")
    if process.stderr:
        print("stderr:", process.stderr)
    return json.loads(process.stdout)


def entries(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".mlirjit"))


def summary(outcome):
    stats = outcome["stats"]
    return f"hits {stats['hits']} compilations {stats['compilations']}"


def new_dir(name):
    path = os.path.join(ROOT, name)
    os.makedirs(path)
    return path


# 1. Reuse across processes.
cache = new_dir("reuse")
first, second = run(cache_dir=cache), run(cache_dir=cache)
print("first:", summary(first), "stores", first["stats"]["stores"], first["results"])
print("second:", summary(second), second["results"])
# CHECK: first: hits 0 compilations 1 stores 1 [3.0]
# CHECK: second: hits 1 compilations 0 [3.0]

first = run(CALLBACK, "apply", [5.0], cache_dir=cache)
second = run(CALLBACK, "apply", [5.0], cache_dir=cache)
print("callback first:", summary(first), first["results"])
print("callback second:", summary(second), second["results"])
# CHECK: callback first: hits 0 compilations 1 [15.0]
# CHECK: callback second: hits 1 compilations 0 [15.0]

# The default directory is $MLIR_JIT_CACHE_DIR.
default = new_dir("default")
run(env={"MLIR_JIT_CACHE_DIR": default})
print("default directory entries:", len(entries(default)))
# CHECK: default directory entries: 1

ENGINE_CHILD = r"""
import ctypes, json, sys
from mlir import ir, jit_cache
from mlir.execution_engine import ExecutionEngine
from mlir.passmanager import PassManager
with ir.Context():
    module = ir.Module.parse('''
func.func private @offset() -> i64 attributes {llvm.emit_c_interface}
func.func @shifted(%x: i64) -> i64 attributes {llvm.emit_c_interface} {
  %o = func.call @offset() : () -> i64
  %r = arith.addi %x, %o : i64
  return %r : i64
}''')
    PassManager.parse("builtin.module(convert-func-to-llvm,convert-arith-to-llvm,"
                      "reconcile-unrealized-casts)").run(module.operation)
    engine = ExecutionEngine(module, cache_dir=sys.argv[1])
OFFSET = ctypes.CFUNCTYPE(ctypes.c_int64)(lambda: int(sys.argv[2]))
engine.register_runtime("offset", OFFSET)
x, result = ctypes.c_int64(10), ctypes.c_int64()
engine.invoke("shifted", ctypes.pointer(x), ctypes.pointer(result))
print(json.dumps([result.value, jit_cache.statistics()]))
"""


def engine_run(directory, offset):
    out = subprocess.run(
        [sys.executable, "-c", ENGINE_CHILD, directory, str(offset)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    value, stats = json.loads(out)
    return f"{value} hits {stats['hits']} compilations {stats['compilations']}"


engines = new_dir("engine")
print("engine first:", engine_run(engines, 7))
print("engine second:", engine_run(engines, 100))
# CHECK: engine first: 17 hits 0 compilations 1
# CHECK: engine second: 110 hits 1 compilations 0

# 2. The key.
keys = new_dir("keys")
run(cache_dir=keys)
print("same:", summary(run(cache_dir=keys)))
# CHECK: same: hits 1 compilations 0
print("opt level:", summary(run(cache_dir=keys, opt_level=1)))
# CHECK: opt level: hits 0 compilations 1
pipeline = "builtin.module(convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)"
print("pipeline:", summary(run(cache_dir=keys, pipeline=pipeline)))
# CHECK: pipeline: hits 0 compilations 1
print("pipeline again:", summary(run(cache_dir=keys, pipeline=pipeline)))
# CHECK: pipeline again: hits 1 compilations 0
for field in ("format 999", "cpu another-cpu", "features +another-feature", "llvm 1.0"):
    outcome = run(cache_dir=keys, env={"MLIR_JIT_CACHE_TEST_KEY": field})
    print(f"{field.split()[0]}:", summary(outcome), outcome["results"])
# CHECK: format: hits 0 compilations 1 [3.0]
# CHECK: cpu: hits 0 compilations 1 [3.0]
# CHECK: features: hits 0 compilations 1 [3.0]
# CHECK: llvm: hits 0 compilations 1 [3.0]

library = os.environ["JIT_TEST_HELPER"]
copy = os.path.join(ROOT, "libhelper_copy.so")
with open(library, "rb") as src, open(copy, "wb") as dst:
    dst.write(src.read())
print("library:", summary(run(cache_dir=keys, shared_libs=[copy])))
print("library again:", summary(run(cache_dir=keys, shared_libs=[copy])))
os.utime(copy, (1_000_000_000, 1_000_000_000))  # a rebuilt library
print("library changed:", summary(run(cache_dir=keys, shared_libs=[copy])))
# CHECK: library: hits 0 compilations 1
# CHECK: library again: hits 1 compilations 0
# CHECK: library changed: hits 0 compilations 1

untouched = new_dir("none")
outcome = run(cache_dir=None, env={"MLIR_JIT_CACHE_DIR": untouched})
print("cache_dir=None:", summary(outcome), "entries", len(entries(untouched)))
# CHECK: cache_dir=None: hits 0 compilations 1 entries 0

# 3. Damaged entries. Each damage, on a whole entry: the next process
# compiles, gets the right result and writes a whole entry again, which the
# one after loads.
damaged = new_dir("damaged")
run(cache_dir=damaged)
(name,) = entries(damaged)
path = os.path.join(damaged, name)
with open(path, "rb") as f:
    whole = f.read()


def flip(data, offset):
    return data[:offset] + bytes([data[offset] ^ 0x40]) + data[offset + 1 :]


damages = {
    "empty": b"",
    "truncated header": whole[:20],
    "truncated object": whole[:-100],
    "magic": flip(whole, 0),
    "format": flip(whole, 8),
    "size": flip(whole, 20),
    "checksum": flip(whole, 33),
    "key": flip(whole, 45),
    "metadata": flip(whole, 120),
    "object": flip(whole, len(whole) - 50),
    "foreign": os.urandom(len(whole)),
    "longer": whole + b"trailing",
}
for damage, data in damages.items():
    with open(path, "wb") as f:
        f.write(data)
    recompiled = run(cache_dir=damaged)
    with open(path, "rb") as f:
        restored = f.read() == whole
    reloaded = run(cache_dir=damaged)
    print(
        f"{damage}:",
        summary(recompiled),
        recompiled["results"],
        "restored",
        restored,
        "then",
        summary(reloaded),
    )
# CHECK: empty: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: truncated header: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: truncated object: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: magic: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: format: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: size: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: checksum: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: key: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: metadata: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: object: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: foreign: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0
# CHECK: longer: hits 0 compilations 1 [3.0] restored True then hits 1 compilations 0

# An entry truncated in place (same file) while a process reads it, again
# and again: read, never mapped, it is short, fails its checksum and is
# compiled again; through a mapping, the loader died of SIGBUS. An 8 MiB
# entry (its table a constant) keeps each read long enough to be cut.
TABLE = """
memref.global "private" constant @table : memref<2097152xf32> = dense<1.5>
func.func @at(%i: index) -> f32 {
  %t = memref.get_global @table : memref<2097152xf32>
  %v = memref.load %t[%i] : memref<2097152xf32>
  return %v : f32
}
"""
LOADER = r"""
import sys
from mlir import jit_cache
from mlir.execution_engine import jit
right = sum(jit(sys.argv[1], cache_dir=sys.argv[2]).at(i) == 1.5 for i in range(100))
stats = jit_cache.statistics()
print(right, stats["hits"] + stats["compilations"] >= 100)
"""
truncated = new_dir("truncated")
run(TABLE, "at", [7], cache_dir=truncated)
(name,) = entries(truncated)
path = os.path.join(truncated, name)
with open(path, "rb") as f:
    whole = f.read()
loader = subprocess.Popen(
    [sys.executable, "-c", LOADER, TABLE, truncated], stdout=subprocess.PIPE, text=True
)
cuts = 0
while loader.poll() is None:
    try:
        fd = os.open(path, os.O_WRONLY)  # the entry there now, in place
    except FileNotFoundError:
        continue  # refused and removed: being compiled again
    try:
        os.ftruncate(fd, 4096)
        time.sleep(0.001)
        os.pwrite(fd, whole, 0)
        cuts += 1
    finally:
        os.close(fd)
    time.sleep(0.002)
print("loaded while cut:", loader.returncode, loader.stdout.read().strip(), cuts > 10)
# CHECK: loaded while cut: 0 100 True True

# 4. Concurrent writers: 8 processes, two of each of 4 modules, at once.
concurrent = new_dir("concurrent")
SCALED = """
func.func @f(%x: f64) -> f64 {{
  %c = arith.constant {0}.0 : f64
  %y = arith.mulf %x, %c : f64
  return %y : f64
}}
"""
processes = []
for i in range(8):
    spec = {
        "source": SCALED.format(i % 4),
        "function": "f",
        "args": [2.0],
        "kwargs": {"cache_dir": concurrent},
    }
    processes.append(
        subprocess.Popen(
            [sys.executable, "-c", CHILD, json.dumps(spec)], stdout=subprocess.PIPE, text=True
        )
    )
outputs = [json.loads(p.communicate(timeout=300)[0]) for p in processes]
print("concurrent results:", [o["results"][0] for o in outputs])
# CHECK: concurrent results: [0.0, 2.0, 4.0, 6.0, 0.0, 2.0, 4.0, 6.0]
print(
    "concurrent entries:",
    len(entries(concurrent)),
    "other files:",
    sorted(set(os.listdir(concurrent)) - set(entries(concurrent))),
)
# CHECK: concurrent entries: 4 other files: []
reloaded = [run(SCALED.format(i), "f", [2.0], cache_dir=concurrent) for i in range(4)]
print("concurrent reloaded:", [summary(o) for o in reloaded])
# CHECK: concurrent reloaded: ['hits 1 compilations 0', 'hits 1 compilations 0', 'hits 1 compilations 0', 'hits 1 compilations 0']

# 5. A directory that cannot be created (a file is in the way), a full disk.
blocker = os.path.join(ROOT, "blocker")
open(blocker, "w").close()
outcome = run(cache_dir=os.path.join(blocker, "cache"), repeat=2)
print("uncreatable:", outcome["results"], len(outcome["warnings"]), outcome["warnings"][0])
# CHECK: uncreatable: [3.0, 3.0] 1 the JIT cache is not used: cannot create the cache directory '{{.*}}blocker/cache': Not a directory
full = new_dir("full")
outcome = run(cache_dir=full, repeat=2, file_size_limit=64)
print(
    "full:",
    outcome["results"],
    len(outcome["warnings"]),
    outcome["warnings"][0],
    "files left:",
    os.listdir(full),
)
# CHECK: full: [3.0, 3.0] 1 the JIT cache is not used: cannot write to the cache directory '{{.*}}full': File too large files left: []
outcome = run(cache_dir=new_dir("bad_limit"), env={"MLIR_JIT_CACHE_MAX_BYTES": "lots"})
print("bad limit:", outcome["results"], *outcome["warnings"])
# CHECK: bad limit: [3.0] the JIT cache is not used: MLIR_JIT_CACHE_MAX_BYTES is 'lots', not a number of bytes: nothing is cached until it is one

# 6. Eviction: room for two entries. A, B, then A again (a hit makes it the
# most recently used), then C: B goes.
bounded = new_dir("bounded")
# The largest entry (a 0.0 constant makes smaller code than others).
size = max(os.path.getsize(os.path.join(concurrent, name)) for name in entries(concurrent))
limit = {"MLIR_JIT_CACHE_MAX_BYTES": str(2 * size + size // 2)}
sources = {name: SCALED.format(i + 10) for i, name in enumerate("ABC")}


def use(name):
    return summary(run(sources[name], "f", [1.0], env=limit, cache_dir=bounded))


for name in "ABAC":
    use(name)
    time.sleep(0.05)  # modification times apart
print("bounded entries:", len(entries(bounded)))
# CHECK: bounded entries: 2
print("A:", use("A"), "| C:", use("C"), "| B:", use("B"))
# CHECK: A: hits 1 compilations 0 | C: hits 1 compilations 0 | B: hits 0 compilations 1

# 7. The command line.
for command in ("info", "clear", "info"):
    out = subprocess.run(
        [sys.executable, "-m", "mlir.jit_cache", command, "--dir", keys],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(f"cli {command}:", " ".join(out.split()))
# CHECK: cli info: directory: {{.*}}keys entries: [[N:[0-9]+]] bytes: {{[0-9]+}} max_bytes: 1073741824
# CHECK: cli clear: removed [[N]] entries from {{.*}}keys
# CHECK: cli info: directory: {{.*}}keys entries: 0 bytes: 0 max_bytes: 1073741824
temporary = os.path.join(keys, "0" * 64 + ".mlirjit.tmp-0123456789ab")
for name in ("report.tmp-draft", "notes.mlirjit", "A" * 64 + ".mlirjit"):
    open(os.path.join(keys, name), "w").close()
open(temporary, "w").close()
run(cache_dir=keys)
subprocess.run(
    [sys.executable, "-m", "mlir.jit_cache", "clear", "--dir", keys],
    check=True,
    capture_output=True,
)
print("after clear:", sorted(os.listdir(keys)))
# CHECK: after clear: ['0000000000000000000000000000000000000000000000000000000000000000.mlirjit.tmp-0123456789ab', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.mlirjit', 'notes.mlirjit', 'report.tmp-draft']
# A temporary file left two hours ago by a writer that died goes too; an
# invalid bound shows as None (the engine then caches nothing).
os.utime(temporary, (time.time() - 7200, time.time() - 7200))
cleared = subprocess.run(
    [sys.executable, "-m", "mlir.jit_cache", "clear", "--dir", keys],
    check=True,
    capture_output=True,
    text=True,
).stdout
invalid = subprocess.run(
    [sys.executable, "-m", "mlir.jit_cache", "info", "--dir", keys],
    env=dict(os.environ, MLIR_JIT_CACHE_MAX_BYTES="12kb"),
    check=True,
    capture_output=True,
    text=True,
).stdout
print("stale:", cleared.strip(), sorted(os.listdir(keys)), invalid.split()[-1])
# CHECK: stale: removed 0 entries from {{.*}}keys ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.mlirjit', 'notes.mlirjit', 'report.tmp-draft'] None
not_a_directory = subprocess.run(
    [sys.executable, "-m", "mlir.jit_cache", "info", "--dir", blocker],
    capture_output=True,
    text=True,
)
print("info of a file:", not_a_directory.returncode, not_a_directory.stderr.strip())
# CHECK: info of a file: 1 python -m mlir.jit_cache: [Errno 20] cannot read the cache directory '{{.*}}blocker': Not a directory
# A pathlib.Path is a directory too; a file is none (NotADirectoryError, as
# os.scandir raises).
classes = subprocess.run(
    [
        sys.executable,
        "-c",
        "import pathlib, sys; from mlir import jit_cache\n"
        "print(jit_cache.info(pathlib.Path(sys.argv[1]))['entries'])\n"
        "try:\n    jit_cache.clear(sys.argv[2])\n"
        "except NotADirectoryError as error:\n    print(type(error).__name__, error.errno)",
        keys,
        blocker,
    ],
    capture_output=True,
    text=True,
    check=True,
).stdout
print("Path and file:", " ".join(classes.split()))
# CHECK: Path and file: 0 NotADirectoryError 20
# A NUL in the path names no directory (the file system would stop at it,
# at another directory).
with_nul = subprocess.run(
    [
        sys.executable,
        "-c",
        "import sys; from mlir import jit_cache; jit_cache.clear(sys.argv[1] + '\\0/other')",
        keys,
    ],
    capture_output=True,
    text=True,
)
print("NUL:", with_nul.stderr.strip().splitlines()[-1])
# CHECK: NUL: ValueError: the cache directory '{{.*}}\x00/other' contains a NUL character
# An empty directory is none, as jit(cache_dir="") refuses it: not the
# default cache (nor the current directory).
run(cache_dir=keys)
kept = entries(keys)
empty_dir = subprocess.run(
    [sys.executable, "-m", "mlir.jit_cache", "clear", "--dir", ""],
    capture_output=True,
    text=True,
    env=dict(os.environ, MLIR_JIT_CACHE_DIR=keys),
)
print("empty --dir:", empty_dir.returncode, empty_dir.stderr.strip().splitlines()[-1])
# CHECK: empty --dir: 2 python -m mlir.jit_cache: error: --dir is empty: give a directory, or leave --dir out for the default
empty_api = subprocess.run(
    [
        sys.executable,
        "-c",
        "from mlir import jit_cache\n"
        "for call in (jit_cache.clear, jit_cache.info):\n"
        "    try:\n        call('')\n"
        "    except ValueError as error:\n        print(error)",
    ],
    capture_output=True,
    text=True,
    env=dict(os.environ, MLIR_JIT_CACHE_DIR=keys),
).stdout
print("empty directory:", " | ".join(empty_api.splitlines()), "| kept:", entries(keys) == kept)
# CHECK: empty directory: the cache directory is empty: give a directory, or None for the default | the cache directory is empty: give a directory, or None for the default | kept: True


# 8. Entries whose checksum holds (LLVM's xxh3_64bits). Such an entry is read
# (a hit), refused, removed and compiled again.
xxh3 = llvm_xxh3()
HEADER = CACHE_ENTRY_HEADER


def rewrite(path, metadata=None, obj=None):
    """Rewrites the entry at `path` with another metadata or object, its
    header and checksum right."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, key_size, metadata_size, object_size, _ = HEADER.unpack_from(data)
    rest = data[HEADER.size :]
    key = rest[:key_size]
    metadata = rest[key_size : key_size + metadata_size] if metadata is None else metadata
    obj = rest[key_size + metadata_size :] if obj is None else obj
    rest = key + metadata + obj
    header = HEADER.pack(magic, version, len(key), len(metadata), len(obj), xxh3(rest, len(rest)))
    with open(path, "wb") as f:
        f.write(header + rest)
    return metadata


def with_annotation(metadata, annotation):
    """`metadata` with jit()'s annotation (the last record, "N") replaced."""
    start = metadata.rindex(b"1:N")
    return metadata[:start] + b"1:N" + b"%d:" % len(annotation) + annotation


crafted = new_dir("crafted")
run(cache_dir=crafted)
(name,) = entries(crafted)
path = os.path.join(crafted, name)
metadata = rewrite(path)
cases = {
    "object LLVM refuses": dict(obj=b"\x7fELF not really" * 8),
    "analysis not JSON": dict(metadata=with_annotation(metadata, b"{")),
    "analysis without the function": dict(
        metadata=with_annotation(metadata, b'{"stoppable": true, "functions": {}}')
    ),
    "analysis of another shape": dict(metadata=with_annotation(metadata, b"[1]")),
    "no metadata": dict(metadata=b""),
}
for case, parts in cases.items():
    rewrite(path, **parts)
    first, then = run(cache_dir=crafted), run(cache_dir=crafted)
    print(f"{case}:", summary(first), first["results"], "then", summary(then))
# CHECK: object LLVM refuses: hits 1 compilations 1 [3.0] then hits 1 compilations 0
# CHECK: analysis not JSON: hits 1 compilations 1 [3.0] then hits 1 compilations 0
# CHECK: analysis without the function: hits 1 compilations 1 [3.0] then hits 1 compilations 0
# CHECK: analysis of another shape: hits 1 compilations 1 [3.0] then hits 1 compilations 0
# CHECK: no metadata: hits 1 compilations 1 [3.0] then hits 1 compilations 0

library_dir = new_dir("transform")
schedule = os.path.join(library_dir, "schedule.mlir")
SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %c "VERSION" : !transform.any_op
    transform.yield
  }
}"""
scheduled = (
    'builtin.module(transform-preload-library{transform-library-paths={"%s"}},'
    "transform-interpreter,convert-arith-to-llvm,convert-func-to-llvm,"
    "reconcile-unrealized-casts)" % schedule
)
for version in ("first", "first", "second"):
    with open(schedule, "w") as f:
        f.write(SCHEDULE.replace("VERSION", version))
    print(f"schedule {version}:", summary(run(cache_dir=library_dir, pipeline=scheduled)))
# CHECK: schedule first: hits 0 compilations 1
# CHECK: schedule first: hits 1 compilations 0
# CHECK: schedule second: hits 0 compilations 1

RESERVED = (
    """
func.func @__mlir_jit_run_ctors() {
  return
}
"""
    + ADD
)
REFUSALS = r"""
import sys
from mlir.execution_engine import jit
for source, kwargs in [(sys.argv[1], {"cache_dir": None}), (sys.argv[2], {"cache_dir": ""})]:
    try:
        jit(source, **kwargs).add(1.0, 2.0)
    except (RuntimeError, ValueError) as error:
        print(type(error).__name__, error)
"""
print(
    subprocess.run(
        [sys.executable, "-c", REFUSALS, RESERVED, ADD], capture_output=True, text=True
    ).stdout.strip()
)
# CHECK: RuntimeError Failure while creating the ExecutionEngine. the symbol '__mlir_jit_run_ctors' is reserved: the engine defines it to run the module's global constructors or destructors; rename it
# CHECK-NEXT: ValueError cache_dir is empty: give a directory, or None for no cache
