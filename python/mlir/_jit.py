"""Typed calls and callbacks derived from MLIR function signatures.

`jit(source)` records each `func.func`'s type, gives every function a C
interface, lowers the module to LLVM and, on the first call, creates the
ExecutionEngine. Calls convert Python values and numpy arrays in C++
(`_mlirExecutionEngine.JitFunction`); a declared `func.func private @name`
becomes a Python callback through a generated trampoline that hands its
arguments to `_mlirExecutionEngine`'s dispatcher.
"""

from __future__ import annotations

import ctypes
import inspect
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import ir
from ._mlir_libs import _mlirExecutionEngine as _native
from .passmanager import PassManager

if TYPE_CHECKING:
    from typing import TypeVar

    from .execution_engine import ExecutionEngine

    # (kind, label, dtype, shape, strides, offset): see JitCalls.cpp.
    _ValueSpec = tuple[
        int,
        str,
        np.dtype[Any] | None,
        tuple[int, ...] | None,
        tuple[int | None, ...] | None,
        int | None,
    ]
    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["JitModule", "jit", "DEFAULT_PIPELINE"]

# Lowers func, arith, math, scf, cf, memref and complex to the LLVM dialect.
DEFAULT_PIPELINE = (
    "builtin.module("
    "func.func(convert-complex-to-standard),"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "arith-expand,"
    "finalize-memref-to-llvm,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "convert-complex-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts)"
)

_KINDS = _native._value_kinds

# LLVM dialect types of the C interface, by kind.
_LLVM_TYPES = {
    _KINDS["i1"]: "i1",
    _KINDS["i8"]: "i8",
    _KINDS["i16"]: "i16",
    _KINDS["i32"]: "i32",
    _KINDS["i64"]: "i64",
    _KINDS["index"]: "i64",
    _KINDS["f16"]: "f16",
    _KINDS["bf16"]: "bf16",
    _KINDS["f32"]: "f32",
    _KINDS["f64"]: "f64",
    _KINDS["complex64"]: "!llvm.struct<(f32, f32)>",
    _KINDS["complex128"]: "!llvm.struct<(f64, f64)>",
    _KINDS["memref"]: "!llvm.ptr",
}

_SUPPORTED = (
    "i1, i8, i16, i32, i64, index, f16, bf16, f32, f64, complex<f32>, "
    "complex<f64> and ranked memrefs of those (or of f8 types)"
)


def _ml_dtype(name: str) -> np.dtype[Any]:
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))  # type: ignore[no-any-return]


# numpy dtypes of memref elements, by the element type's text.
_ELEMENT_DTYPES: dict[str, Callable[[], np.dtype[Any]]] = {
    "i1": lambda: np.dtype(np.bool_),
    "i8": lambda: np.dtype(np.int8),
    "i16": lambda: np.dtype(np.int16),
    "i32": lambda: np.dtype(np.int32),
    "i64": lambda: np.dtype(np.int64),
    "index": lambda: np.dtype(np.int64),
    "f16": lambda: np.dtype(np.float16),
    "bf16": lambda: _ml_dtype("bfloat16"),
    "f32": lambda: np.dtype(np.float32),
    "f64": lambda: np.dtype(np.float64),
    "complex<f32>": lambda: np.dtype(np.complex64),
    "complex<f64>": lambda: np.dtype(np.complex128),
    "f8E5M2": lambda: _ml_dtype("float8_e5m2"),
    "f8E4M3FN": lambda: _ml_dtype("float8_e4m3fn"),
    "f8E5M2FNUZ": lambda: _ml_dtype("float8_e5m2fnuz"),
    "f8E4M3FNUZ": lambda: _ml_dtype("float8_e4m3fnuz"),
    "f8E4M3B11FNUZ": lambda: _ml_dtype("float8_e4m3b11fnuz"),
}


def _scalar_kind(type_: ir.Type) -> int | None:
    if ir.IntegerType.isinstance(type_):
        integer = ir.IntegerType(type_)
        if integer.is_signless and integer.width in (1, 8, 16, 32, 64):
            return _KINDS[f"i{integer.width}"]
        return None
    if ir.ComplexType.isinstance(type_):
        return {"f32": _KINDS["complex64"], "f64": _KINDS["complex128"]}.get(
            str(ir.ComplexType(type_).element_type)
        )
    return _KINDS.get(str(type_)) if str(type_) in ("index", "f16", "bf16", "f32", "f64") else None


def _value_spec(type_: ir.Type, label: str) -> _ValueSpec:
    """The spec tuple `_mlirExecutionEngine` converts values with."""
    kind = _scalar_kind(type_)
    if kind is not None:
        return (kind, label, None, None, None, None)
    if ir.MemRefType.isinstance(type_):
        memref = ir.MemRefType(type_)
        dtype = _ELEMENT_DTYPES.get(str(memref.element_type))
        if dtype is not None:
            dynamic_size = ir.MemRefType.get_dynamic_size()
            dynamic = ir.MemRefType.get_dynamic_stride_or_offset()
            try:
                strides, offset = memref.get_strides_and_offset()
            except ValueError as error:
                raise TypeError(f"{label}: {error}") from None
            return (
                _KINDS["memref"],
                label,
                dtype(),
                tuple(-1 if d == dynamic_size else d for d in memref.shape),
                tuple(None if s == dynamic else s for s in strides),
                None if offset == dynamic else offset,
            )
    raise TypeError(f"{label}: type {type_} is not supported; typed calls support {_SUPPORTED}")


def _specs(
    function_type: ir.FunctionType, name: str
) -> tuple[list[_ValueSpec], list[_ValueSpec]]:
    args = [
        _value_spec(t, f"argument {i} of '{name}' ({t})")
        for i, t in enumerate(function_type.inputs)
    ]
    results = [
        _value_spec(t, f"result {i} of '{name}' ({t})")
        for i, t in enumerate(function_type.results)
    ]
    return args, results


def _may_run_long(operation: ir.Operation) -> bool:
    """Whether a function body loops, branches or calls: the GIL is then
    released while it runs. Straight-line code keeps it, to stay cheap."""
    for region in operation.regions:
        blocks = list(region)
        if len(blocks) > 1:
            return True
        for block in blocks:
            for op in block:
                if op.name in ("func.call", "func.call_indirect") or op.regions:
                    return True
    return False


def _trampoline(
    name: str, slot: _native._CallbackSlot, args: Sequence[_ValueSpec], results: Sequence[_ValueSpec]
) -> str:
    """An LLVM dialect definition of the C interface of callback `name` that
    passes its arguments, in 16-byte slots, to the native dispatcher."""
    arg_types = [_LLVM_TYPES[spec[0]] for spec in args]
    result_types = [_LLVM_TYPES[spec[0]] for spec in results]
    by_pointer = slot.results_by_pointer
    params = (["%result: !llvm.ptr"] if by_pointer else []) + [
        f"%a{i}: {t}" for i, t in enumerate(arg_types)
    ]
    returns = f" -> {result_types[0]}" if results and not by_pointer else ""
    arg_slots = f"!llvm.array<{max(len(args), 1)} x array<2 x i64>>"
    result_slots = f"!llvm.array<{max(len(results), 1)} x array<2 x i64>>"
    lines = [
        f"llvm.func @_mlir_ciface_{name}({', '.join(params)}){returns} {{",
        "  %one = llvm.mlir.constant(1 : i64) : i64",
        f"  %args = llvm.alloca %one x {arg_slots} : (i64) -> !llvm.ptr",
        f"  %results = llvm.alloca %one x {result_slots} : (i64) -> !llvm.ptr",
    ]
    for i, t in enumerate(arg_types):
        lines += [
            f"  %p{i} = llvm.getelementptr %args[0, {i}] : (!llvm.ptr) -> !llvm.ptr, {arg_slots}",
            f"  llvm.store %a{i}, %p{i} : {t}, !llvm.ptr",
        ]
    lines += [
        f"  %slot_address = llvm.mlir.constant({slot.address} : i64) : i64",
        "  %slot = llvm.inttoptr %slot_address : i64 to !llvm.ptr",
        "  llvm.call @mlirJitCallbackDispatch(%slot, %args, %results)"
        " : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()",
    ]
    for i, t in enumerate(result_types):
        lines += [
            f"  %q{i} = llvm.getelementptr %results[0, {i}] : (!llvm.ptr) -> !llvm.ptr, {result_slots}",
            f"  %r{i} = llvm.load %q{i} : !llvm.ptr -> {t}",
        ]
    if by_pointer and len(results) == 1:
        lines.append(f"  llvm.store %r0, %result : {result_types[0]}, !llvm.ptr")
    elif by_pointer:
        struct = f"!llvm.struct<({', '.join(result_types)})>"
        for i, t in enumerate(result_types):
            lines += [
                f"  %f{i} = llvm.getelementptr %result[0, {i}] : (!llvm.ptr) -> !llvm.ptr, {struct}",
                f"  llvm.store %r{i}, %f{i} : {t}, !llvm.ptr",
            ]
    if results and not by_pointer:
        lines.append(f"  llvm.return %r0 : {result_types[0]}")
    else:
        lines.append("  llvm.return")
    lines.append("}")
    return "\n".join(lines)


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


class _JitState:
    """What jitted functions need at run time: the module, the engine once
    created, and the callbacks. Functions refer to it; it refers to none of
    them, so a JitModule is freed by reference counting alone."""

    def __init__(
        self,
        module: ir.Module,
        declarations: dict[str, ir.FunctionType],
        opt_level: int,
        shared_libs: Iterable[str],
    ) -> None:
        from .execution_engine import ExecutionEngine

        self._engine_class = ExecutionEngine
        self.module = module
        self.declarations = declarations
        self.opt_level = opt_level
        self.shared_libs = list(shared_libs)
        self.slots: dict[str, _native._CallbackSlot] = {}
        self.callbacks: dict[str, Callable[..., Any]] = {}
        self.engine: ExecutionEngine | None = None
        self.lock = threading.Lock()

    def compile(self) -> ExecutionEngine:
        with self.lock:
            if self.engine is None:
                missing = [name for name in self.declarations if name not in self.callbacks]
                if missing:
                    raise RuntimeError(
                        "callbacks declared in the module are not registered: "
                        + ", ".join(missing)
                        + "; register them with JitModule.register(name, fn) or "
                        "@JitModule.callback(name) before the first call"
                    )
                engine = self._engine_class(
                    self.module, opt_level=self.opt_level, shared_libs=self.shared_libs
                )
                if self.slots:
                    engine.raw_register_runtime(
                        "mlirJitCallbackDispatch",
                        ctypes.c_void_p(_native._callback_dispatch_address),
                    )
                self.engine = engine
            return self.engine

    def _address_of(self, name: str) -> int:
        address = self.compile().raw_lookup("_mlir_ciface_" + name)
        if not address:  # raw_lookup's 0 must never be called
            raise RuntimeError(f"Unknown function {name}: the compiled module lacks its C interface")
        return address


class JitModule:
    """An MLIR module whose functions are called with Python values.

    `module.<name>(*args)` or `module[name](*args)` calls `func.func @name`;
    `register`/`callback` bind Python functions to the module's declarations
    `func.func private @name(...)`, before the first call.
    """

    if TYPE_CHECKING:
        # Functions are also attributes: `module.<name>(*args)`.
        def __getattr__(self, name: str) -> _native.JitFunction: ...

    def __init__(
        self,
        source: str | ir.Module,
        *,
        pipeline: str | None = None,
        opt_level: int = 2,
        shared_libs: Iterable[str] = (),
        context: ir.Context | None = None,
    ) -> None:
        module = self._parse(source, context)
        self._signatures: dict[str, ir.FunctionType] = {}
        declarations: dict[str, ir.FunctionType] = {}
        long_running: dict[str, bool] = {}
        for op in module.body:
            if op.name != "func.func":
                continue
            name = ir.StringAttr(op.attributes["sym_name"]).value
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            self._signatures[name] = function_type
            if list(op.regions[0]):
                long_running[name] = _may_run_long(op)
            else:
                declarations[name] = function_type

        # A function whose types typed calls do not support is an error only
        # when it is called; a callback needs its trampoline now.
        specs = {}
        self._unsupported: dict[str, str] = {}
        for name, function_type in self._signatures.items():
            try:
                specs[name] = _specs(function_type, name)
            except TypeError as error:
                if name in declarations:
                    raise
                self._unsupported[name] = str(error)
        for name in declarations:
            if any(spec[0] == _KINDS["memref"] for spec in specs[name][1]):
                raise TypeError(
                    f"callback '{name}': results of callbacks must be scalars "
                    f"({self._signatures[name]})"
                )

        unit = ir.UnitAttr.get(module.context)
        for op in module.body:
            if op.name == "func.func":
                op.attributes["llvm.emit_c_interface"] = unit
        PassManager.parse(pipeline or DEFAULT_PIPELINE, context=module.context).run(module)

        self._state = _JitState(module, declarations, opt_level, shared_libs)
        if declarations:
            texts = ["llvm.func @mlirJitCallbackDispatch(!llvm.ptr, !llvm.ptr, !llvm.ptr)"]
            for name in declarations:
                args, results = specs[name]
                slot = _native._CallbackSlot(name, args, results)
                self._state.slots[name] = slot
                texts.append(_trampoline(name, slot, args, results))
            _native._define_symbols(
                module, ir.Module.parse("\n".join(texts), context=module.context)
            )

        self._functions: dict[str, _native.JitFunction] = {}
        for name, is_long in long_running.items():
            if name in self._unsupported:
                continue
            args, results = specs[name]
            function = _native._make_jit_function(
                name, str(self._signatures[name]), args, results, is_long, self._state
            )
            self._functions[name] = function
            if name.isidentifier() and not hasattr(JitModule, name):
                setattr(self, name, function)

    @staticmethod
    def _parse(source: str | ir.Module, context: ir.Context | None) -> ir.Module:
        if isinstance(source, ir.Module):
            if context is not None and context is not source.context:
                raise ValueError("the module belongs to another Context than `context`")
            return source
        if not isinstance(source, str):
            raise TypeError(
                f"jit() takes MLIR text or an mlir.ir.Module, got {type(source).__name__}"
            )
        if context is None:
            context = ir.Context.current or ir.Context()
        return ir.Module.parse(source, context=context)

    def __getitem__(self, name: str) -> _native.JitFunction:
        if name in self._unsupported:
            raise TypeError(f"cannot call '{name}': {self._unsupported[name]}")
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(
                f"the module defines no function '{name}'; it defines: "
                + ", ".join(self._functions)
            ) from None

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
                f"func.func private @{name}; declared: "
                + (", ".join(state.declarations) or "none")
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
            if name in state.callbacks:
                raise RuntimeError(f"callback '{name}' is already registered")
            state.callbacks[name] = fn
            state.slots[name]._set_function(fn)

    def callback(self, name: str) -> Callable[[_F], _F]:
        """Decorator form of `register`: `@module.callback("name")`."""

        def decorate(fn: _F) -> _F:
            self.register(name, fn)
            return fn

        return decorate

    def __repr__(self) -> str:
        return f"<JitModule with functions {', '.join(self._functions)}>"


def jit(
    source: str | ir.Module,
    *,
    pipeline: str | None = None,
    opt_level: int = 2,
    shared_libs: Iterable[str] = (),
    context: ir.Context | None = None,
) -> JitModule:
    """Compile MLIR (text or an `ir.Module` not yet lowered) for typed calls.

    `pipeline` lowers the module to the LLVM dialect (default:
    DEFAULT_PIPELINE, for func, arith, math, scf, cf, memref and complex); an
    `ir.Module` is lowered in place. The engine is created on the first call.
    """
    return JitModule(
        source, pipeline=pipeline, opt_level=opt_level, shared_libs=shared_libs, context=context
    )
