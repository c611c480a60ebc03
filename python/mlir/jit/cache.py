"""jit()'s side of the object cache: the key of a module (the engine adds
the host, LLVM, opt level and libraries) and the load that starts while the
source is parsed."""

from __future__ import annotations

import hashlib
import os
import re
import stat

from .._mlir_libs import _mlirExecutionEngine as _native

# Bump when what jit() makes of a source changes other than through the
# pipeline's text: the passes it runs itself, what this project's passes
# (jit-approximate-math, jit-expand-arith) generate, the trampolines, the
# markings. 2: jit-expand-arith leaves float min/max to LLVM. 3:
# jit-approximate-math's own f32 exp. 4: its own f32 tanh and erf. 5:
# jit-parallel-fusion tiles reductions over outer loops by columns.
_CACHE_FORMAT = "mlir_execution_engine.jit 5"


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


# jit()'s cache_dir when not given: mlir.jit_cache.default_cache_dir().
DEFAULT = _Default()


# The transform libraries a pipeline loads (FAST_PIPELINE's schedule, or a
# user's): files or directories of them.
_TRANSFORM_LIBRARIES = re.compile(r"transform-library-paths\s*=\s*\{([^}]*)\}")


def _cache_key(source: str, pipeline: str) -> str:
    """What the cache key says of a jit() module (the engine adds the host,
    LLVM, opt level and libraries): the source and how it is lowered,
    including the contents of the transform libraries the pipeline loads."""
    parts = [_CACHE_FORMAT, pipeline]
    for paths in _TRANSFORM_LIBRARIES.findall(pipeline):
        for path in (p.strip().strip("'\"") for p in paths.split(",")):
            files = (
                sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
                if os.path.isdir(path)
                else [path]
            )
            for file in files:
                try:
                    # Only regular files: a FIFO or a device would block or
                    # never end (the pipeline says what it makes of them).
                    if not stat.S_ISREG(os.stat(file).st_mode):
                        parts.append(f"{file} not a regular file")
                        continue
                    with open(file, "rb") as library:
                        parts.append(f"{file} {hashlib.sha256(library.read()).hexdigest()}")
                except OSError as error:
                    parts.append(f"{file} {error}")  # the pipeline will say
    return "\n".join(parts) + "\n" + source


def _load_from_cache(
    cache_dir: str, key: str, opt_level: int, shared_libs: list[str]
) -> _native._CacheLoad:
    """Starts loading, on a thread of its own, the engine cached under `key`
    (with ExecutionEngine's listeners: GDB's, not perf's)."""
    return _native._load_from_cache(cache_dir, key, opt_level, shared_libs, True, False)
