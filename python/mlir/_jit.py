"""Typed calls and callbacks derived from MLIR function signatures.

`jit(source)` binds each `func.func` to a native callable (a builtin
function over a `_mlirExecutionEngine.JitFunction`), gives every function a C interface and
lowers the module to LLVM; the first call creates the ExecutionEngine. A
declared `func.func private @name` becomes a Python callback: the native
side generates its trampoline and binds it to the engine. This module only
says what to bind; the value ABI lives in the native module.
"""

from __future__ import annotations

import ctypes
import hashlib
import inspect
import json
import os
import pickle
import re
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import ir, jit_cache
from ._engine import ExecutionEngine
from ._mlir_libs import _mlirExecutionEngine as _native
from .runtime.np_to_memref import _mlir_element_dtype

if TYPE_CHECKING:
    from typing import TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["JitModule", "jit", "DEFAULT_PIPELINE", "BUFFERIZATION_PIPELINE", "FAST_PIPELINE"]

# Lowers func, arith, math, scf, cf, memref, complex, index, linalg (to
# loops), affine and vector (for the host's CPU) to the LLVM dialect. The
# code calls memrefCopy and the allocation functions _mlir_memref_to_llvm_*,
# which jit() registers on its engine.
_LOWERING = (
    "convert-bufferization-to-memref,"
    "convert-linalg-to-loops,"
    # memref.realloc as alloc, copy and dealloc (in an scf.if).
    "expand-realloc,"
    # math functions as polynomials that LLVM vectorizes, not libm calls.
    "jit-approximate-math,"
    "convert-vector-to-scf,"
    "func.func(convert-complex-to-standard),"
    "lower-affine,"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    # bf16 rounding as integer code: LLVM would use AVX512-BF16's
    # vcvtneps2bf16 where the CPU has it, which flushes subnormals to zero.
    "arith-expand{include-bf16},"
    "convert-vector-to-llvm,"
    "convert-ub-to-llvm,"
    # Allocates through functions jit() provides (huge pages for large
    # buffers, which numpy uses too).
    "finalize-memref-to-llvm{use-generic-functions},"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-complex-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts"
)
DEFAULT_PIPELINE = f"builtin.module({_LOWERING})"

# One-shot bufferization, function boundaries included, where a tensor
# becomes a memref of any strides (so any view of an array is passed
# uncopied), and deallocation of the buffers it allocates. Tensor arguments
# are values: jit() declares them `bufferization.writable = false` unless
# they say otherwise, so bufferization copies one before writing to it.
_BUFFERIZATION = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=fully-dynamic-layout-map},"
    "buffer-deallocation-pipeline"
)
# Runs first on a module that uses tensors, unless its pipeline bufferizes
# (as FAST_PIPELINE does). The deallocation pass makes every result the
# caller's own, cloning a returned argument: jit() then returns the
# argument itself instead, which the caller gets as a view of its array.
BUFFERIZATION_PIPELINE = f"builtin.module({_BUFFERIZATION})"

# The schedule of schedules/fast.mlir (tiling, packing and vectorizing
# linalg.matmul on tensors for the host's CPU), then bufferization and
# DEFAULT_PIPELINE's lowering.
_FAST_SCHEDULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schedules", "fast.mlir")
FAST_PIPELINE = (
    "builtin.module("
    f'transform-preload-library{{transform-library-paths={{"{_FAST_SCHEDULE}"}}}},'
    f"transform-interpreter,{_BUFFERIZATION},{_LOWERING})"
)
# What FAST_PIPELINE runs on a module whose matmuls the schedule cannot take.
_FAST_UNSCHEDULED = f"builtin.module({_BUFFERIZATION},{_LOWERING})"
# The element types the schedule vectorizes correctly: LLVM 22's
# transform interpreter crashes on complex matmuls, and vectorized i1 loads
# treat bytes as packed bits.
_FAST_ELEMENT_TYPES = {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64"}
_SHAPED_ELEMENT = re.compile(r"\b(?:tensor|memref)<(?:(?:\?|\d+)x)*(\w+(?:<[^>]*>)?)")


def _fast_schedule_applies(module: ir.Module) -> bool:
    """Whether every linalg.matmul of `module` has element types the
    FAST_PIPELINE schedule takes."""
    return all(
        set(_SHAPED_ELEMENT.findall(_native._print_operation(op))) <= _FAST_ELEMENT_TYPES
        for op in _walk(module.operation)
        if op.name == "linalg.matmul"
    )


def _dtypes(function_type: ir.FunctionType) -> list[np.dtype[Any] | None]:
    """For each argument, then each result: the numpy dtype of a memref's
    (ranked or not), tensor's or vector's elements, or None."""
    dtypes: list[np.dtype[Any] | None] = []
    for t in [*function_type.inputs, *function_type.results]:
        shaped = (ir.MemRefType, ir.UnrankedMemRefType, ir.RankedTensorType, ir.VectorType)
        dtypes.append(_mlir_element_dtype(str(t.element_type)) if isinstance(t, shaped) else None)
    return dtypes


def _bufferizes(pipeline: str | None) -> bool:
    """Whether the user's `pipeline` bufferizes tensors itself; it must then
    make function boundaries memrefs of any strides, as typed calls pass
    them."""
    if pipeline is None or "one-shot-bufferize" not in pipeline:
        return False
    if "function-boundary-type-conversion=fully-dynamic-layout-map" not in pipeline:
        raise ValueError(
            "the pipeline bufferizes tensors, but not to memrefs of any strides, as "
            "typed calls pass them: give one-shot-bufferize "
            "function-boundary-type-conversion=fully-dynamic-layout-map, or leave "
            "bufferization to jit() (BUFFERIZATION_PIPELINE)"
        )
    return True


def _refuse_crashing_ops(module: ir.Module) -> None:
    """Refuses what crashes LLVM 22's lowering rather than lowering it: an
    expand_shape (tensor or memref) with two dynamic sizes in one group of
    dimensions makes expand-strided-metadata segfault."""
    dynamic = str(-(2**63))
    for op in _walk(module.operation):
        if op.name not in ("tensor.expand_shape", "memref.expand_shape"):
            continue
        sizes = str(op.attributes["static_output_shape"]).split(":", 1)[-1]
        is_dynamic = [size.strip(" >") == dynamic for size in sizes.split(",")]
        groups = json.loads(str(op.attributes["reassociation"]))
        if any(sum(is_dynamic[d] for d in group) > 1 for group in groups):
            raise ValueError(
                f"{op.name} with two dynamic sizes in one group of dimensions "
                "(here " + str(op.attributes["reassociation"]) + ") crashes LLVM 22's "
                "expand-strided-metadata pass; give all but one size of each group "
                "statically, or reshape with tensor.reshape/memref.reshape"
            )


def _uses_tensors(module: ir.Module, signatures: Iterable[ir.FunctionType]) -> bool:
    """Whether the module needs bufferizing: a function (of `signatures`, the
    types of its func.funcs) takes or returns a tensor, an op of the tensor or
    bufferization dialect makes one, or a constant is one."""
    tensor_types = (ir.RankedTensorType, ir.UnrankedTensorType)
    for signature in signatures:
        if any(isinstance(t, tensor_types) for t in [*signature.inputs, *signature.results]):
            return True

    def makes_tensor(op: ir.Operation) -> bool:
        if op.name == "arith.constant":
            return isinstance(op.attributes["value"].type, tensor_types)
        return op.name.split(".")[0] in ("tensor", "bufferization")

    return _contains(module.operation, makes_tensor)


def _releases_gil(function: ir.Operation, callbacks: set[str]) -> bool:
    """Whether a call releases the GIL while `function` runs. It keeps it
    for straight-line code (cheap) and for code that calls only Python
    callbacks, each loop or branch among them calling one (each callback
    would take the GIL back; while kept, other threads get a turn every few
    callbacks). Anything else may run long without Python: it releases it."""
    body = list(function.regions[0])
    if len(body) > 1:
        return True
    # Post-order, with an explicit stack (IR may nest deeper than Python
    # recurses): a frame is [op, its ops still to visit, whether an op below
    # it calls a callback]. Any op that releases makes the function release.
    stack: list[list[Any]] = [[None, [op.operation for op in body[0]], False]]
    while stack:
        frame = stack[-1]
        if frame[1]:
            op = frame[1].pop()
            if "call" in op.name:
                # Any call but a callback's (func.call_indirect, llvm.call,
                # ...) may run long, or wait for a thread that calls back
                # into Python.
                if not (op.name == "func.call" and _callee(op) in callbacks):
                    return True
                frame[2] = True
            elif op.regions:
                if any(len(list(region)) > 1 for region in op.regions):
                    return True
                stack.append([op, _children(op), False])
            continue
        stack.pop()
        if frame[0] is not None:
            if not frame[2]:
                return True  # a loop or branch that calls no callback
            stack[-1][2] = True
    return False


def _may_call_back(function: ir.Operation, state: _JitState) -> bool:
    """Whether a Python callback may run while `function` runs: its module
    declares callbacks, and it calls something (directly or through a
    pointer: only calls can reach a callback), or a shared library's code,
    which may call back from threads of its own, is linked in. Calls of
    other functions need no thread state for callbacks."""
    if not state.slots:
        return False
    return bool(state.shared_libs) or _contains(function, _is_call)


def _may_allocate(function: ir.Operation) -> bool:
    """Whether `function` may allocate memory (an allocation that fails
    stops the call, as a raising callback does): it allocates memrefs,
    copies them (a copy of different shapes stops it too), uses tensors,
    which bufferization allocates, or calls something."""
    return _contains(
        function,
        lambda op: (
            op.name in ("memref.alloc", "memref.realloc", "memref.copy")
            or op.name.split(".")[0] in ("tensor", "bufferization", "linalg")
            or _is_call(op)
        ),
    )


# Dialects whose ops the default pipeline lowers to the module's own code
# and to calls of C library functions that never call back (malloc,
# memrefCopy, libm).
_OWN_CODE_DIALECTS = {
    "builtin",
    "func",
    "arith",
    "math",
    "scf",
    "cf",
    "memref",
    "complex",
    "index",
    "ub",
    "affine",
    "vector",
    "linalg",
    "tensor",
    "bufferization",
}


def _stoppable(module: ir.Module, state: _JitState, custom_pipeline: bool) -> bool:
    """Whether a raising callback may stop its module's calls by jumping
    back to the call over the frames between, which must then all be the
    module's own code (no unwinding needed): no shared library, no pipeline
    of the user's (it may bring runtimes, such as OpenMP's, that call the
    module back), no op of another dialect (an external `llvm.func`, such as
    libc's `qsort`, may call the module back), and no call but of the
    module's own functions."""
    if state.shared_libs or custom_pipeline:
        return False
    own = {
        ir.StringAttr(op.attributes["sym_name"]).value
        for op in _children(module.operation)
        if op.name == "func.func"
    }
    for op in _walk(module.operation):
        if op.name.split(".")[0] not in _OWN_CODE_DIALECTS:
            return False
        if _is_call(op) and not (op.name == "func.call" and _callee(op) in own):
            return False
    return True


def _is_call(op: ir.Operation) -> bool:
    """Whether `op` calls something (func.call, call_indirect, llvm.call,
    llvm.invoke, ...)."""
    return "call" in op.name or "invoke" in op.name


def _callee(call: ir.Operation) -> str:
    # `@name` or `@"name"`.
    return str(call.attributes["callee"])[1:].strip('"')


def _children(op: ir.Operation) -> list[ir.Operation]:
    # Operations, not OpViews: a func.FuncOp's `name` is its symbol.
    return [inner.operation for region in op.regions for block in region for inner in block]


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """`op` and every op nested in it (an explicit stack: IR may nest deeper
    than Python recurses)."""
    pending = [op]
    while pending:
        op = pending.pop()
        yield op
        pending.extend(_children(op))


def _contains(op: ir.Operation, predicate: Callable[[ir.Operation], bool]) -> bool:
    return any(predicate(inner) for inner in _walk(op))


def _module_of(capsule: object) -> ir.Module:
    """The ir.Module owning the module in `capsule` (upstream's stubs omit
    Module._CAPICreate)."""
    create: Callable[[object], ir.Module] = getattr(ir.Module, "_CAPICreate")
    return create(capsule)


def _run_pipeline(module: ir.Module, pipeline: str, failure: str) -> None:
    """Runs `pipeline` on `module` on a stack sized for its nesting (deep IR
    overflows the caller's); a failure is an MLIRError saying `failure`,
    with MLIR's errors."""
    errors = _native._run_pipeline(module, pipeline)
    if errors is not None:
        raise ir.MLIRError(failure + ":" + errors, [])


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


# Bump when what jit() makes of a source changes other than through the
# pipeline's text: the passes it runs itself, the trampolines, the markings.
_CACHE_FORMAT = "mlir_execution_engine.jit 1"


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


def _pickled_callback(name: str, fn: Callable[..., Any]) -> bytes:
    """`fn` pickled, or a PicklingError naming the callback. With cloudpickle
    installed, a function of `__main__` goes by value (the receiving process,
    such as a Dask worker, may have another `__main__`), and what pickle
    cannot take is tried with cloudpickle."""
    try:
        import cloudpickle  # type: ignore[import-not-found]
    except ImportError:
        cloudpickle = None
    picklers = [pickle.dumps]
    if cloudpickle is not None:
        by_value = getattr(fn, "__module__", None) == "__main__"
        picklers = [cloudpickle.dumps] if by_value else [pickle.dumps, cloudpickle.dumps]
    errors = []
    for dumps in picklers:
        try:
            return bytes(dumps(fn))
        except Exception as error:
            errors.append(error)
    raise pickle.PicklingError(
        f"cannot pickle the JitModule: its callback '{name}' ({fn!r}) cannot be "
        f"pickled ({errors[0]}); register a function defined at a module's top "
        "level, or install cloudpickle"
    )


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
            raise RuntimeError(
                "callbacks declared in the module are not registered: "
                + ", ".join(missing)
                + "; register them with JitModule.register(name, fn) or "
                "@JitModule.callback(name) before the first call"
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
        if isinstance(shared_libs, (str, bytes)) or not isinstance(shared_libs, Sequence):
            raise TypeError(
                "shared_libs must be a sequence of paths, such as a list, got "
                + type(shared_libs).__name__
            )
        if not isinstance(opt_level, int) or not 0 <= opt_level <= 3:
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
        if cache_dir is DEFAULT:
            cache_dir = jit_cache.default_cache_dir()
        elif cache_dir is not None:
            cache_dir = os.fsdecode(cache_dir)  # type: ignore[arg-type]
            if not cache_dir:
                raise ValueError("cache_dir is empty: give a directory, or None for no cache")
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
        libraries = []
        for path in state.shared_libs:
            if "\0" in path:
                continue  # the engine refuses it, saying so
            try:
                libraries.append(ctypes.CDLL(path))
            except OSError as error:
                raise ValueError(f"cannot load shared library {path!r}: {error}") from None
        self._state = state
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
            else:
                state.declarations[name] = function_type
                slot = _native._CallbackSlot(name, op, _dtypes(function_type))
                slot.errors = state.errors
                state.slots[name] = slot
            interfaced.append(op)
        # What the analyses below find (kept with the cache entry, and taken
        # from it when the module was compiled before).
        analysis = None
        if cache_dir is not None:
            state.cache_dir = cache_dir
            state.cache_key = key or _cache_key(self._source, pipeline or DEFAULT_PIPELINE)
            if load is None:
                load = _load_from_cache(cache_dir, state.cache_key, opt_level, library_paths)
            analysis = state.load_cached(load, [name for name, _ in definitions])
        tensors = False
        if analysis is None:
            _refuse_crashing_ops(module)
            tensors = _uses_tensors(module, self._signatures.values())
            if tensors:
                _bufferizes(pipeline)  # refuses a pipeline that bufferizes wrongly
            # This package's pipelines lower to the module's own code.
            custom_pipeline = pipeline not in (None, DEFAULT_PIPELINE, FAST_PIPELINE)
            analysis = {
                "stoppable": _stoppable(module, state, custom_pipeline),
                # Whether each releases the GIL, and needs a thread state.
                "functions": {
                    name: [
                        _releases_gil(op, set(state.slots)),
                        _may_call_back(op, state) or _may_allocate(op),
                    ]
                    for name, op in definitions
                },
            }
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
        if state.cached_engine is not None:
            return  # compiled before: nothing to lower
        state.cache_annotation = json.dumps(analysis)

        if pipeline == FAST_PIPELINE and not _fast_schedule_applies(module):
            pipeline = _FAST_UNSCHEDULED
        unit = ir.UnitAttr.get(module.context)
        for op in interfaced:
            op.attributes["llvm.emit_c_interface"] = unit
        if tensors:
            for _, op in definitions:
                _native._mark_tensor_arguments_immutable(op)
        if tensors and not _bufferizes(pipeline):
            _run_pipeline(
                module,
                BUFFERIZATION_PIPELINE,
                "cannot bufferize the module's tensors (BUFFERIZATION_PIPELINE; "
                "a module that uses tensors leaves freeing memory to it, so "
                "it may not memref.dealloc)",
            )
            _native._unclone_returned_arguments(module)
        _run_pipeline(module, pipeline or DEFAULT_PIPELINE, "Failure while executing pass pipeline")
        if state.slots:
            _native._add_callback_trampolines(module, list(state.slots.values()))

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
            raise KeyError(
                f"'{name}' is a callback the module declares, not a function it "
                "defines: call a function that calls it"
            )
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
        if name in functions or name in self.__dict__.get("_unsupported", {}):
            return self[name]
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


def _rebuild(
    source: str,
    pipeline: str | None,
    opt_level: int,
    shared_libs: list[str],
    cache_dir: str | None,
    callbacks: dict[str, bytes],
) -> JitModule:
    """A pickled JitModule, in a Context of its own."""
    module = JitModule(
        source,
        pipeline=pipeline,
        opt_level=opt_level,
        shared_libs=shared_libs,
        context=ir.Context(),
        cache_dir=cache_dir,
    )
    for name, fn in callbacks.items():
        module.register(name, pickle.loads(fn))
    return module


# `jit(source, ...)` reads as a verb where `JitModule(source, ...)` reads as a
# constructor: one class, two names.
jit = JitModule
