"""A JitModule's run-time state: the module, its engine (from the cache,
or compiled by the first call) and its callbacks."""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any

from .. import _mlir_libs, ir
from .._engine import ExecutionEngine
from .._mlir_libs import _mlirExecutionEngine as _native

# Functions of MLIR's runtime libraries (libmlir_c_runner_utils.so,
# libmlir_runner_utils.so, libmlir_async_runtime.so) that lowered code and
# MLIR's examples call.
_MLIR_RUNTIME_FUNCTION = re.compile(
    r"(_mlir_ciface_)?(printMemref\w*|verifyMemRef\w*|stdSort\w+|rtclock|nanoTime|"
    r"print(F16|BF16|F32|F64|I64|U64|Newline|Comma|Open|Close|String|Flops)|mlirAsyncRuntime\w*)"
)


def _runtime_library(name: str) -> str:
    """The path of MLIR's runtime library `name` in the package."""
    return os.path.join(os.path.dirname(_mlir_libs.__file__), name)


class _JitState:
    """What jitted functions need at run time: the module, the engine once
    created, and the callbacks. Functions refer to it; it refers to none of
    them, so a JitModule is freed by reference counting alone."""

    def __init__(self, module: ir.Module, opt_level: int, shared_libs: list[str]) -> None:
        self.module = module
        self.opt_level = opt_level
        self.shared_libs = shared_libs
        # The cache directory and key, or None; and the engine the cache
        # gave, which needs no lowered module, until the first call binds it.
        self.cache_dir: str | None = None
        self.cache_key = ""
        self.cache_annotation = ""
        self.cached_engine: ExecutionEngine | None = None
        self.declarations: dict[str, ir.FunctionType] = {}
        self.slots: dict[str, _native._CallbackSlot] = {}
        # Exceptions callbacks raised on threads Python never created (a
        # shared library's), for the module's next or running call to raise.
        self.errors: list[BaseException] = []
        self.engine: ExecutionEngine | None = None
        self.lock = threading.RLock()
        self.compiling = False

    def load_cached(
        self, load: _native._CacheLoad, definitions: list[str]
    ) -> dict[str, Any] | None:
        """The analysis of the module kept with its cache entry, with the
        engine `load` made from the entry, or None if the cache has none (or
        one whose analysis does not fit the module's `definitions`, which it
        removes)."""
        try:
            engine = ExecutionEngine(None, _cache_load=load)
        except KeyError:
            return None
        try:
            analysis = json.loads(engine._cache_annotation)
            flags = analysis["functions"]
            fits = isinstance(analysis["stoppable"], bool) and all(
                [type(flag) for flag in flags[name]] == [bool, bool] for name in definitions
            )
        except (ValueError, TypeError, KeyError):
            fits = False
        if not fits:
            engine._remove_cache_entry()  # the next engine stores a new one
            return None
        self.cached_engine = engine
        return dict(analysis)

    def compile(self) -> ExecutionEngine:
        with self.lock:
            if self.engine is None:
                # Code that runs during compilation on this thread (a __del__,
                # a signal handler) and calls the module would wait for itself.
                if self.compiling:
                    raise RuntimeError(
                        "the JitModule is being compiled by this thread (its "
                        "first call); a call from code that runs meanwhile, "
                        "such as a __del__ method or a signal handler, cannot "
                        "wait for it"
                    )
                self.compiling = True
                try:
                    self.engine = self._create_engine()
                finally:
                    self.compiling = False
            return self.engine

    def _create_engine(self) -> ExecutionEngine:
        missing = [name for name, slot in self.slots.items() if slot.function is None]
        if missing:
            runtime = [name for name in missing if _MLIR_RUNTIME_FUNCTION.fullmatch(name)]
            raise RuntimeError(
                "callbacks declared in the module are not registered: "
                + ", ".join(missing)
                + "; register them with JitModule.register(name, fn) or "
                "@JitModule.callback(name) before the first call"
                + (
                    f" ({', '.join(runtime)}: MLIR's runtime libraries define "
                    "these, which the package carries in mlir/_mlir_libs: pass "
                    f"shared_libs=[{_runtime_library('libmlir_c_runner_utils.so')!r}, "
                    f"{_runtime_library('libmlir_runner_utils.so')!r}] "
                    "(libmlir_async_runtime.so for async))"
                    if runtime
                    else ""
                )
            )
        engine = self.cached_engine or ExecutionEngine(
            self.module,
            opt_level=self.opt_level,
            shared_libs=self.shared_libs,
            cache_dir=self.cache_dir,
            _cache_key=self.cache_key,
            _cache_annotation=self.cache_annotation,
        )
        self.cached_engine = None
        _native._bind_runtime_support(engine)
        if self.slots:
            _native._bind_callbacks(engine, list(self.slots.values()))
        return engine
