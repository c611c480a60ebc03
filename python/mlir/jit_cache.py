"""The persistent cache of compiled objects that `jit()` and
`ExecutionEngine(..., cache_dir=...)` share between processes.

    python -m mlir.jit_cache info [--dir DIR]   # where, how many, how large
    python -m mlir.jit_cache clear [--dir DIR]  # remove this user's entries

The directory is `$MLIR_JIT_CACHE_DIR`, else `$XDG_CACHE_HOME/mlir_execution_engine`
(`~/.cache/mlir_execution_engine`). It keeps at most `$MLIR_JIT_CACHE_MAX_BYTES`
(default 1 GiB), evicting the least recently used entries. Entries are
written atomically and checksummed: a damaged one is recompiled, never
loaded.
"""

from __future__ import annotations

import argparse
import errno
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
    """`cache_dir` (None for the default) as the file system's bytes."""
    path = os.fsencode(default_cache_dir() if cache_dir is None else cache_dir)
    if not path:
        # As jit(cache_dir=""): an empty path names no directory (not the
        # default, nor the current one).
        raise ValueError("the cache directory is empty: give a directory, or None for the default")
    if b"\0" in path:
        raise ValueError(f"the cache directory {cache_dir!r} contains a NUL character")
    return path


def info(cache_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The cache's directory, entry count, size in bytes and size bound
    (None if MLIR_JIT_CACHE_MAX_BYTES is invalid). OSError if the directory
    or an entry cannot be read."""
    path = _path(cache_dir)
    entries, size = _native._cache_contents(path)
    return {
        "directory": default_cache_dir() if cache_dir is None else cache_dir,
        "entries": entries,
        "bytes": size,
        "max_bytes": max_bytes(),
    }


def _clear(cache_dir: str | os.PathLike[str] | None, all_users: bool) -> tuple[int, int]:
    """clear(), with the number of other users' entries it left."""
    return _native._cache_clear(_path(cache_dir), all_users)


def clear(cache_dir: str | os.PathLike[str] | None = None, *, all_users: bool = False) -> int:
    """Removes this user's entries, and their temporary files writers left
    an hour ago or more (not those being written); returns how many
    entries. The trust model of jit()'s cache applies: a directory it does
    not use (another user's, or one others can write that is not sticky) is
    a PermissionError, and in a sticky directory shared with other users
    their entries stay. `all_users=True` removes every entry of any
    directory (as root, other users' too). OSError if the directory cannot
    be read or a file cannot be removed."""
    return _clear(cache_dir, all_users)[0]


def statistics() -> dict[str, int]:
    """What the cache did in this process: `hits`, `misses`, `stores`, and
    `compilations` (modules compiled to object code, cached or not)."""
    return dict(_native._cache_statistics())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mlir.jit_cache", description="Show or empty the JIT's object cache."
    )
    parser.add_argument("command", choices=["info", "clear"])
    parser.add_argument("--dir", help=f"the cache directory (default: {default_cache_dir()})")
    parser.add_argument(
        "--all-users",
        action="store_true",
        help="clear: remove every entry, also other users' and in a directory jit() "
        "does not use (another user's, or writable by others and not sticky)",
    )
    args = parser.parse_args(argv)
    if args.dir == "":
        parser.error("--dir is empty: give a directory, or leave --dir out for the default")
    directory = default_cache_dir() if args.dir is None else args.dir
    try:
        if args.command == "clear":
            removed, spared = _clear(directory, args.all_users)
            left = f" (left {spared} entries of other users)" if spared else ""
            print(f"removed {removed} entries from {directory}{left}")
            return 0
        for key, value in info(directory).items():
            print(f"{key}: {value}")
    except OSError as error:
        print(f"python -m mlir.jit_cache: {error}", file=sys.stderr)
        if error.errno == errno.EPERM and args.command == "clear" and not args.all_users:
            print(
                "python -m mlir.jit_cache: to remove them anyway, give --all-users",
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
