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

__all__ = ["default_cache_dir", "info", "clear", "max_bytes", "statistics", "main"]


def default_cache_dir() -> str:
    """Where the cache lives unless told otherwise."""
    explicit = os.environ.get("MLIR_JIT_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlir_execution_engine")


def max_bytes() -> int | None:
    """The bound `MLIR_JIT_CACHE_MAX_BYTES` sets (a decimal number of bytes;
    unset or blank for the default, 1 GiB), or None if it is invalid, which
    caches nothing."""
    return _native._cache_max_bytes()


def _path(cache_dir: str | os.PathLike[str] | None) -> bytes:
    """`cache_dir` (or the default) as the file system's bytes."""
    path = os.fsencode(cache_dir or default_cache_dir())
    if b"\0" in path:
        raise ValueError(f"the cache directory {cache_dir!r} contains a NUL character")
    return path


def info(cache_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The cache's directory, entry count, size in bytes and size bound
    (None if MLIR_JIT_CACHE_MAX_BYTES is invalid). OSError if the directory
    or an entry cannot be read."""
    cache_dir = cache_dir or default_cache_dir()
    entries, size = _native._cache_contents(_path(cache_dir))
    return {
        "directory": cache_dir,
        "entries": entries,
        "bytes": size,
        "max_bytes": max_bytes(),
    }


def clear(cache_dir: str | os.PathLike[str] | None = None) -> int:
    """Removes every entry, and temporary files writers left an hour ago or
    more (not those being written); returns how many entries. OSError if
    the directory cannot be read or a file cannot be removed."""
    return _native._cache_clear(_path(cache_dir))


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
