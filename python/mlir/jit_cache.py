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
import sys
from typing import Any

from ._mlir_libs import _mlirExecutionEngine as _native

__all__ = ["default_cache_dir", "info", "clear", "statistics", "main"]

_SUFFIX = ".mlirjit"
_TEMPORARY = ".tmp-"
DEFAULT_MAX_BYTES = 1 << 30


def default_cache_dir() -> str:
    """Where the cache lives unless told otherwise."""
    explicit = os.environ.get("MLIR_JIT_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlir_execution_engine")


def _files(cache_dir: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(cache_dir) as entries:
            return [
                e
                for e in entries
                if e.is_file(follow_symlinks=False)
                and (e.name.endswith(_SUFFIX) or _TEMPORARY in e.name)
            ]
    except FileNotFoundError:
        return []


def info(cache_dir: str | None = None) -> dict[str, Any]:
    """The cache's directory, entry count, size in bytes and size bound."""
    cache_dir = cache_dir or default_cache_dir()
    entries = [e for e in _files(cache_dir) if e.name.endswith(_SUFFIX)]
    limit = os.environ.get("MLIR_JIT_CACHE_MAX_BYTES", "").strip()
    return {
        "directory": cache_dir,
        "entries": len(entries),
        "bytes": sum(e.stat(follow_symlinks=False).st_size for e in entries),
        "max_bytes": int(limit) if limit.isdigit() else DEFAULT_MAX_BYTES,
    }


def clear(cache_dir: str | None = None) -> int:
    """Removes every entry (and temporary file); returns how many entries."""
    removed = 0
    for entry in _files(cache_dir or default_cache_dir()):
        try:
            os.remove(entry.path)
        except FileNotFoundError:
            continue  # another process evicted it
        removed += entry.name.endswith(_SUFFIX)
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
    if args.command == "clear":
        print(f"removed {clear(args.dir)} entries from {args.dir}")
        return 0
    for key, value in info(args.dir).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
