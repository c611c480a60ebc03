"""JitModule (`jit`): an MLIR module whose functions are called with Python
values, and which calls back into Python."""

from __future__ import annotations

import ctypes
import functools
import inspect
import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import ir, jit_cache
from .._engine import ExecutionEngine
from .._mlir_libs import _mlirExecutionEngine as _native
from .analysis import _call_flags, _dtypes, _refuse_crashing_ops, _stoppable, _uses_tensors
from .cache import DEFAULT, _cache_key, _Default, _load_from_cache
from .ir_walk import _children, _module_of
from .pickling import _pickled_callback, _rebuild
from .pipelines import (
    BUFFERIZATION_PIPELINE,
    DEFAULT_PIPELINE,
    FAST_PIPELINE,
    _bufferizes,
    _check_thread_count,
    _fast_pipeline,
    _run_pipeline,
)
from .state import _JitState

if TYPE_CHECKING:
    from typing import TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])


def _accepts_arguments(fn: Callable[..., Any], count: int) -> bool:
    """Whether `fn` can be called with `count` positional arguments (True
    when its signature cannot be inspected)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(*range(count))
    except TypeError:
        return False
    return True


def _checked_options(
    shared_libs: Sequence[str], opt_level: int, cache_dir: str | os.PathLike[str] | None | _Default
) -> str | None:
    """Refuses options of the wrong kind; returns the cache directory (None
    for no cache)."""
    if isinstance(shared_libs, (str, bytes)) or not isinstance(shared_libs, Sequence):
        raise TypeError(
            "shared_libs must be a sequence of paths, such as a list, got "
            + type(shared_libs).__name__
        )
    if not isinstance(opt_level, int) or not 0 <= opt_level <= 3:
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if cache_dir is DEFAULT:
        return jit_cache.default_cache_dir()
    if cache_dir is None:
        return None
    cache_dir = os.fsdecode(cache_dir)  # type: ignore[arg-type]
    if not cache_dir:
        raise ValueError("cache_dir is empty: give a directory, or None for no cache")
    return cache_dir


def _analyse(
    module: ir.Module,
    state: _JitState,
    pipeline: str | None,
    signatures: dict[str, ir.FunctionType],
    definitions: list[tuple[str, ir.Operation]],
) -> tuple[bool, dict[str, Any]]:
    """Whether the module uses tensors, and what its calls may do: whether a
    raising callback may stop them, and for each function whether it
    releases the GIL and needs a thread state."""
    _refuse_crashing_ops(module)
    tensors = _uses_tensors(module, signatures.values())
    if tensors:
        _bufferizes(pipeline)  # refuses a pipeline that bufferizes wrongly
    # This package's pipelines lower to the module's own code.
    custom_pipeline = pipeline not in (None, DEFAULT_PIPELINE, FAST_PIPELINE)
    return tensors, {
        "stoppable": _stoppable(module, state, custom_pipeline),
        # Whether each releases the GIL, and needs a thread state.
        "functions": {name: _call_flags(op, state) for name, op in definitions},
    }


def _lower(
    module: ir.Module,
    state: _JitState,
    pipeline: str | None,
    interfaced: list[ir.Operation],
    definitions: list[ir.Operation],
    tensors: bool,
) -> None:
    """Gives the `interfaced` functions C interfaces, bufferizes a module
    that uses tensors, lowers it with `pipeline` and adds the callbacks'
    trampolines."""
    if pipeline == FAST_PIPELINE:
        pipeline = _fast_pipeline(module)
    unit = ir.UnitAttr.get(module.context)
    for op in interfaced:
        op.attributes["llvm.emit_c_interface"] = unit
    if tensors:
        for op in definitions:
            _native._mark_tensor_arguments_immutable(op)
    if tensors and not _bufferizes(pipeline):
        _run_pipeline(
            module,
            BUFFERIZATION_PIPELINE,
            "cannot bufferize the module's tensors (BUFFERIZATION_PIPELINE; "
            "a module that uses tensors leaves freeing memory to it, so "
            "it may not memref.dealloc)",
        )
    _run_pipeline(module, pipeline or DEFAULT_PIPELINE, "Failure while executing pass pipeline")
    if state.slots:
        _native._add_callback_trampolines(module, list(state.slots.values()))


def _lower_later(
    pipeline: str | None,
    interfaced: list[ir.Operation],
    definitions: list[ir.Operation],
    signatures: list[ir.FunctionType],
    state: _JitState,
) -> None:
    """_lower, for a module jit() found in the cache, when the engine the
    cache gave is lost before it is bound."""
    tensors = _uses_tensors(state.module, signatures)
    _lower(state.module, state, pipeline, interfaced, definitions, tensors)


def _declared_callback(name: str) -> str:
    """The error for `name`, a callback the module declares, asked for as a
    function."""
    return (
        f"'{name}' is a callback the module declares, not a function it "
        "defines: call a function that calls it"
    )


class JitModule:
    """An MLIR module whose functions are called with Python values.

    `module.<name>(*args)` or `module[name](*args)` calls `func.func @name`;
    `register`/`callback` bind Python functions to the module's declarations
    `func.func private @name(...)`, before the first call.

    `source` is MLIR text or an `ir.Module` not yet lowered; `pipeline`
    lowers it to the LLVM dialect (default: DEFAULT_PIPELINE, for func,
    arith, math, scf, cf, memref, complex, index, linalg, affine and
    vector), after BUFFERIZATION_PIPELINE if it uses tensors; an `ir.Module`
    is copied first, never changed. The engine is created on the first
    call.

    `cache_dir` is the persistent cache of compiled objects (see
    mlir.jit_cache): DEFAULT for `$MLIR_JIT_CACHE_DIR` or
    `~/.cache/mlir_execution_engine`, a path, or None for no cache. A module
    whose source, pipeline and options were compiled before, by any process,
    is loaded from it instead of being lowered and compiled. A JitModule
    pickles as its source, options and callbacks, and rebuilds from the
    cache.
    """

    def __init__(
        self,
        source: str | ir.Module,
        *,
        pipeline: str | None = None,
        opt_level: int = 2,
        shared_libs: Sequence[str] = (),
        context: ir.Context | None = None,
        cache_dir: str | os.PathLike[str] | None | _Default = DEFAULT,
    ) -> None:
        cache_dir = _checked_options(shared_libs, opt_level, cache_dir)
        if pipeline == FAST_PIPELINE:
            _check_thread_count()
        library_paths = list(shared_libs)
        # A text's module is looked for in the cache while the text is parsed
        # (its key is known before).
        key = load = None
        if (
            cache_dir is not None
            and isinstance(source, str)
            and all(isinstance(p, str) for p in library_paths)
        ):
            key = _cache_key(source, pipeline or DEFAULT_PIPELINE)
            load = _load_from_cache(cache_dir, key, opt_level, library_paths)
        module = self._parse(source, context)
        # What pickling sends, and the cache's key describes.
        self._source = (
            source if isinstance(source, str) else _native._print_operation(module.operation)
        )
        self._options = (pipeline, opt_level, library_paths, cache_dir)
        functions = [op for op in _children(module.operation) if op.name == "func.func"]
        if not functions:
            raise ValueError(
                "the module defines no func.func: jit() takes a module before "
                "it is lowered to the LLVM dialect"
            )
        state = _JitState(module, opt_level, library_paths)
        self._state = state
        definitions, interfaced = self._declare(functions)
        # What the analyses find (kept with the cache entry, and taken from
        # it when the module was compiled before).
        analysis = None
        if cache_dir is not None:
            state.cache_dir = cache_dir
            state.cache_key = key or _cache_key(self._source, pipeline or DEFAULT_PIPELINE)
            if load is None:
                load = _load_from_cache(cache_dir, state.cache_key, opt_level, library_paths)
            analysis = state.load_cached(load, [name for name, _ in definitions])
        tensors = False
        if analysis is None:
            tensors, analysis = _analyse(module, state, pipeline, self._signatures, definitions)
        self._bind(definitions, analysis)
        state.cache_annotation = json.dumps(analysis)
        if state.cached_engine is not None:
            # Compiled before: nothing to lower, unless the engine is lost.
            state.lowered = False
            state.lower = functools.partial(
                _lower_later,
                pipeline,
                interfaced,
                [op for _, op in definitions],
                list(self._signatures.values()),
            )
            return
        _lower(module, state, pipeline, interfaced, [op for _, op in definitions], tensors)

    def _declare(
        self, functions: list[ir.Operation]
    ) -> tuple[list[tuple[str, ir.Operation]], list[ir.Operation]]:
        """Reads the signature of each of the module's `functions`; a
        declaration no shared library defines gets a callback slot. Returns
        the definitions by name and the functions to give a C interface."""
        state = self._state
        libraries = []
        for path in state.shared_libs:
            if "\0" in path:
                continue  # the engine refuses it, saying so
            try:
                libraries.append(ctypes.CDLL(path))
            except OSError as error:
                raise ValueError(f"cannot load shared library {path!r}: {error}") from None
        self._signatures: dict[str, ir.FunctionType] = {}
        self._functions: dict[str, Callable[..., Any]] = {}
        # A function whose types typed calls do not support is an error only
        # when it is called; a callback needs its trampoline now.
        self._unsupported: dict[str, str] = {}
        definitions = []
        interfaced = []  # the functions given a C interface
        for op in functions:
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if "\0" in name:
                # LLVM's symbol tables take C strings: the name would be cut.
                raise ValueError(f"the function name {name!r} contains a NUL character")
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            self._signatures[name] = function_type
            if list(op.regions[0]):
                definitions.append((name, op))
            elif any(hasattr(library, name) for library in libraries):
                continue  # a shared library defines it: linked, no callback
            elif any(hasattr(library, "_mlir_ciface_" + name) for library in libraries):
                # One defines only its C interface (nanoTime, printMemrefF16).
                interfaced.append(op)
                continue
            else:
                state.declarations[name] = function_type
                slot = _native._CallbackSlot(name, op, _dtypes(function_type))
                slot.errors = state.errors
                state.slots[name] = slot
            interfaced.append(op)
        return definitions, interfaced

    def _bind(self, definitions: list[tuple[str, ir.Operation]], analysis: dict[str, Any]) -> None:
        """A native callable for each definition, with what `analysis` says
        of its calls."""
        state = self._state
        for name, op in definitions:
            releases_gil, needs_thread_state = analysis["functions"][name]
            try:
                self._functions[name] = _native._make_jit_function(
                    name,
                    op,
                    _dtypes(self._signatures[name]),
                    releases_gil,
                    needs_thread_state,
                    analysis["stoppable"],
                    state.compile,
                    state.errors if state.slots else None,
                )
            except TypeError as error:
                self._unsupported[name] = str(error)

    @staticmethod
    def _parse(source: str | ir.Module, context: ir.Context | None) -> ir.Module:
        if isinstance(source, ir.Module):
            if context is not None and context is not source.context:
                raise ValueError("the module belongs to another Context than `context`")
            # Lowering replaces operations: the caller's stay as they were.
            return _module_of(_native._copy_module(source))
        if not isinstance(source, str):
            raise TypeError(
                f"jit() takes MLIR text or an mlir.ir.Module, got {type(source).__name__}"
            )
        if context is None:
            context = ir.Context.current or ir.Context()
        capsule, errors = _native._parse_module(context, source)
        if capsule is None:
            raise ir.MLIRError("Unable to parse module assembly:" + errors, [])
        return _module_of(capsule)

    def __getitem__(self, name: str) -> Callable[..., Any]:
        if name in self._unsupported:
            raise TypeError(f"cannot call '{name}': {self._unsupported[name]}")
        if name in self._state.declarations:
            raise KeyError(_declared_callback(name))
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(
                f"the module defines no function '{name}'; it defines: "
                + ", ".join(self._functions)
            ) from None

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # Only for names that are no attribute of the JitModule itself, so
        # that a function named like one (`register`, `_state`) is reached
        # through module[name] and breaks nothing.
        functions = self.__dict__.get("_functions", {})
        # Python's protocols look names like __deepcopy__ and __array__ up on
        # the object: a function named so is reached through module[name],
        # not taken for the protocol's method (copy.deepcopy called it).
        is_protocol = name.startswith("__") and name.endswith("__")
        if not is_protocol and (name in functions or name in self.__dict__.get("_unsupported", {})):
            function = self[name]
            # Kept as an attribute: `m.f(...)` then finds it without this
            # call, which cost 0.7 us a call more than a prefetched `f`.
            self.__dict__[name] = function
            return function
        state = self.__dict__.get("_state")
        if state is not None and name in state.declarations:
            raise AttributeError(_declared_callback(name))
        raise AttributeError(
            f"the module defines no function '{name}'; it defines: " + ", ".join(functions)
        )

    def signature(self, name: str) -> ir.FunctionType:
        """The FunctionType of `func.func @name` (a definition or a callback
        declaration)."""
        try:
            return self._signatures[name]
        except KeyError:
            raise KeyError(f"the module has no func.func '{name}'") from None

    @property
    def engine(self) -> ExecutionEngine:
        """The ExecutionEngine (created now if no function was called yet)."""
        return self._state.compile()

    def register(self, name: str, fn: Callable[..., Any]) -> None:
        """Call `fn` for `func.func private @name(...)`: its arguments arrive
        as Python scalars or numpy views valid during the call; it returns
        the declared results (a tuple for several). An exception it raises
        is re-raised by the call that ran the jitted code."""
        state = self._state
        if name not in state.declarations:
            raise ValueError(
                f"cannot register callback '{name}': the module declares no "
                f"func.func private @{name}; declared: " + (", ".join(state.declarations) or "none")
            )
        if not callable(fn):
            raise TypeError(f"callback '{name}' must be callable, got {type(fn).__name__}")
        function_type = state.declarations[name]
        arity = len(function_type.inputs)
        if not _accepts_arguments(fn, arity):
            raise TypeError(
                f"callback '{name}' is declared {function_type}: it must accept "
                f"{arity} positional arguments, {fn!r} does not"
            )
        with state.lock:
            if state.engine is not None:
                raise RuntimeError(
                    f"cannot register callback '{name}': the module was compiled "
                    "by its first call; register callbacks before calling"
                )
            if state.slots[name].function is not None:
                raise RuntimeError(f"callback '{name}' is already registered")
            state.slots[name].function = fn

    def callback(self, name: str) -> Callable[[_F], _F]:
        """Decorator form of `register`: `@module.callback("name")`."""

        def decorate(fn: _F) -> _F:
            self.register(name, fn)
            return fn

        return decorate

    def __repr__(self) -> str:
        return f"<JitModule with functions {', '.join(self._functions)}>"

    def __reduce__(self) -> tuple[Any, ...]:
        callbacks = {
            name: _pickled_callback(name, slot.function)
            for name, slot in self._state.slots.items()
            if slot.function is not None
        }
        return (_rebuild, (self._source, *self._options, callbacks))


# `jit(source, ...)` reads as a verb where `JitModule(source, ...)` reads as a
# constructor: one class, two names.
jit = JitModule
