"""The persistent cache of compiled objects that `jit()` and
`ExecutionEngine(..., cache_dir=...)` share between processes.

    python -m mlir.jit_cache info [--dir DIR]   # where, how many, how large
    python -m mlir.jit_cache clear [--dir DIR]  # remove every entry

The directory is `$MLIR_JIT_CACHE_DIR`, else `$XDG_CACHE_HOME/mlir_execution_engine`
(`~/.cache/mlir_execution_engine`). It keeps at most `$MLIR_JIT_CACHE_MAX_BYTES`
(default 1 GiB), evicting the least recently used entries. Entries are
written atomically and checksummed: a damaged one is recompiled, never
loaded.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import Any

from ._mlir_libs import _mlirExecutionEngine as _native

__all__ = ["default_cache_dir", "info", "clear", "max_bytes", "statistics", "main"]

# An entry, and a writer's temporary file for one: the only files the cache
# touches, in a directory that may hold others.
_ENTRY = re.compile(r"[0-9a-f]{64}\.mlirjit")
_TEMPORARY = re.compile(r"[0-9a-f]{64}\.mlirjit\.tmp-[0-9A-Za-z]{12}")
# A temporary file older than this was left by a writer that died.
_STALE_TEMPORARY = 3600
DEFAULT_MAX_BYTES = 1 << 30


def default_cache_dir() -> str:
    """Where the cache lives unless told otherwise."""
    explicit = os.environ.get("MLIR_JIT_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlir_execution_engine")


def _files(cache_dir: str, pattern: re.Pattern[str]) -> list[os.DirEntry[str]]:
    """The regular files of `cache_dir` whose names match `pattern` (none if
    it does not exist; NotADirectoryError if it is no directory)."""
    try:
        with os.scandir(cache_dir) as entries:
            return [
                e for e in entries if pattern.fullmatch(e.name) and e.is_file(follow_symlinks=False)
            ]
    except FileNotFoundError:
        return []


def max_bytes() -> int | None:
    """The bound `MLIR_JIT_CACHE_MAX_BYTES` sets, as the engine reads it (a
    decimal number of bytes; unset or blank for the default), or None if it
    is invalid, which caches nothing."""
    text = os.environ.get("MLIR_JIT_CACHE_MAX_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    if text.isascii() and text.isdigit() and int(text) < 2**64:
        return int(text)
    return None


def info(cache_dir: str | None = None) -> dict[str, Any]:
    """The cache's directory, entry count, size in bytes and size bound
    (None if MLIR_JIT_CACHE_MAX_BYTES is invalid)."""
    cache_dir = cache_dir or default_cache_dir()
    entries = _files(cache_dir, _ENTRY)
    return {
        "directory": cache_dir,
        "entries": len(entries),
        "bytes": sum(e.stat(follow_symlinks=False).st_size for e in entries),
        "max_bytes": max_bytes(),
    }


def clear(cache_dir: str | None = None) -> int:
    """Removes every entry, and temporary files writers left an hour ago or
    more (not those being written); returns how many entries."""
    cache_dir = cache_dir or default_cache_dir()
    stale = time.time() - _STALE_TEMPORARY
    files = _files(cache_dir, _ENTRY) + [
        e for e in _files(cache_dir, _TEMPORARY) if e.stat().st_mtime < stale
    ]
    removed = 0
    for entry in files:
        try:
            os.remove(entry.path)
        except FileNotFoundError:
            continue  # another process evicted it
        removed += bool(_ENTRY.fullmatch(entry.name))
    return removed


def statistics() -> dict[str, int]:
    """What the cache did in this process: `hits`, `misses`, `stores`, and
    `compilations` (modules compiled to object code, cached or not)."""
    return dict(_native._cache_statistics())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mlir.jit_cache", description="Show or empty the JIT's object cache."
    )
    parser.add_argument("command", choices=["info", "clear"])
    parser.add_argument("--dir", help="the cache directory (default: %(default)s)")
    parser.set_defaults(dir=default_cache_dir())
    args = parser.parse_args(argv)
    try:
        if args.command == "clear":
            print(f"removed {clear(args.dir)} entries from {args.dir}")
            return 0
        for key, value in info(args.dir).items():
            print(f"{key}: {value}")
    except OSError as error:
        print(f"python -m mlir.jit_cache: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
