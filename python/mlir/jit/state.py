"""A JitModule's run-time state: the module, its engine (from the cache,
or compiled by the first call) and its callbacks."""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from collections.abc import Callable
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
        # The thread compiling the module (its first call), or None.
        self.compiling: int | None = None
        # Whether `module` is lowered (jit() skips lowering a module the
        # cache has), and what lowers it if the cache's engine is lost
        # before it is bound (given this state: it refers to none).
        self.lowered = True
        self.lower: Callable[[_JitState], None] | None = None
        _STATES.add(self)

    def after_fork_in_child(self) -> None:
        """In a forked child, whose one thread is the one that called fork:
        re-arms the lock, which a thread the child does not have may hold
        (it would be held forever), and forgets a compilation such a thread
        had under way, whose engine is then made anew. The module's IR is
        whole: threads switch between bytecodes, where native code is done."""
        if self.compiling == threading.get_ident():
            return  # this thread's own (a __del__ or signal handler forked)
        self.lock = threading.RLock()
        if self.compiling is not None:
            self.compiling = None
            # That thread may have begun binding it (registering symbols):
            # the engine it had from the cache is its own, now leaked.
            self.cached_engine = None

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
                if self.compiling is not None:
                    raise RuntimeError(
                        "the JitModule is being compiled by this thread (its "
                        "first call); a call from code that runs meanwhile, "
                        "such as a __del__ method or a signal handler, cannot "
                        "wait for it"
                    )
                self.compiling = threading.get_ident()
                try:
                    self.engine = self._create_engine()
                finally:
                    self.compiling = None
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
        if self.cached_engine is None and not self.lowered:
            # Loaded from the cache, whose engine was lost before it was
            # bound (by a compilation of a thread a forked child does not
            # have, or one that failed): lowered now, compiled anew.
            assert self.lower is not None
            self.lower(self)
            self.lowered = True
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


# Every module's state, for a forked child to re-arm (os.register_at_fork):
# a fork-start process pool forks while other threads may be compiling.
_STATES: weakref.WeakSet[_JitState] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for state in list(_STATES):
        state.after_fork_in_child()


os.register_at_fork(after_in_child=_after_fork_in_child)
