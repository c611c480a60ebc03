"""The JIT execution engine class, as upstream's `mlir.execution_engine`
defines it; its home, so that both that module and `mlir.jit` import it."""

from __future__ import annotations

import ctypes
import sys
from typing import TYPE_CHECKING, Any, cast

from ._mlir_libs import _mlirExecutionEngine as _native

if TYPE_CHECKING:
    from _ctypes import CFuncPtr

__all__ = ["ExecutionEngine"]

# Exceptions raised by ctypes callbacks: ctypes reports them to
# sys.unraisablehook and returns garbage to the jitted code. While this
# thread runs jitted code through a _PackedFunction, they are kept with the
# typed callbacks' (_native._keep_callback_error) and raised by the call.
# The hook is installed once, in front of the one in place then; a hook
# installed later that chains to the previous one keeps this working.
_next_unraisablehook: Any = None


def _keep_callback_errors(unraisable: Any) -> None:
    if not (
        unraisable.exc_value is not None
        and "ctypes callback" in (unraisable.err_msg or "")
        and _native._keep_callback_error(unraisable.exc_value)
    ):
        _next_unraisablehook(unraisable)


_PackedFunctionBase: Any = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _PackedFunction(_PackedFunctionBase):  # type: ignore[misc]
    """A jitted function's packed wrapper `void(void **)`, as upstream's
    lookup returns it; a callback's exception is re-raised by the call."""

    _flags_ = _PackedFunctionBase._flags_
    _argtypes_ = _PackedFunctionBase._argtypes_
    _restype_ = _PackedFunctionBase._restype_

    def __call__(self, *args: Any) -> Any:
        global _next_unraisablehook
        if _next_unraisablehook is None:
            _next_unraisablehook = sys.unraisablehook
            sys.unraisablehook = _keep_callback_errors
        # The engine's typed callbacks' exceptions raised on threads Python
        # never created.
        engine = getattr(self, "execution_engine", None)
        foreign_errors = getattr(engine, "_callback_errors", None)
        return _native._call_packed(super().__call__, args, foreign_errors)


def _split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside <> and ()."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _parse_llvm_function_type(text: str) -> tuple[str, list[str]] | None:
    """`!llvm.func<f32 (f32, ptr)>` as ("f32", ["f32", "ptr"]); None for
    what it cannot read (such as a variadic function)."""
    if not (text.startswith("!llvm.func<") and text.endswith(")>")):
        return None
    inner = text[len("!llvm.func<") : -1]
    depth = 0
    for index, char in enumerate(inner):
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "(" and depth == 0:
            params = _split_top_level(inner[index + 1 : -1])
            if "..." in params:
                return None
            return inner[:index].strip(), params
    return None


def _llvm_type_of_ctype(ctype: Any) -> str | None:
    """The LLVM dialect type a ctypes type passes as in the C calling
    convention, or None if it has none."""
    if ctype is None:
        return "void"
    if not isinstance(ctype, type):
        return None
    if issubclass(ctype, (ctypes._Pointer, ctypes._CFuncPtr)):  # type: ignore[attr-defined]
        return "ptr"
    if issubclass(ctype, ctypes.Structure):
        fields = [_llvm_type_of_ctype(field[1]) for field in ctype._fields_]
        if None in fields or any(len(field) > 2 for field in ctype._fields_):
            return None
        return "struct<(" + ", ".join(fields) + ")>"  # type: ignore[arg-type]
    if issubclass(ctype, ctypes.Array):
        element = _llvm_type_of_ctype(ctype._type_)
        return None if element is None else f"array<{ctype._length_} x {element}>"
    code = getattr(ctype, "_type_", None)
    if not isinstance(code, str):
        return None
    if code in "PzZO":  # c_void_p, c_char_p, c_wchar_p, py_object
        return "ptr"
    if code == "?":
        return "i1"
    floats = {"f": "f32", "d": "f64", "g": "f80"}
    if code in floats:
        return floats[code]
    if code in "cbBhHiIlLqQu":
        return f"i{8 * ctypes.sizeof(cast(Any, ctype))}"
    return None


def _ctype_name(ctype: Any) -> str:
    return "None" if ctype is None else getattr(ctype, "__name__", repr(ctype))


_CTYPE_OF_LLVM = {
    "void": "None",
    "i1": "c_bool",
    "i8": "c_int8",
    "i16": "c_int16",
    "i32": "c_int32",
    "i64": "c_int64",
    "f32": "c_float",
    "f64": "c_double",
    "ptr": "c_void_p or a POINTER(...)",
}


def _check_callback_signature(name: str, symbol: str, declared: str, callback: Any) -> None:
    """Raises TypeError if the ctypes function `callback` does not have the
    signature of `symbol`, declared with the LLVM function type `declared`."""
    restype = getattr(callback, "restype", None)
    argtypes = getattr(callback, "argtypes", None)
    if argtypes is None:
        return  # a function pointer without a signature: nothing to compare
    parsed = _parse_llvm_function_type(declared)
    if parsed is None:
        return
    result, params = parsed
    have = [_llvm_type_of_ctype(restype), *(_llvm_type_of_ctype(t) for t in argtypes)]
    if have == [result, *params]:
        return
    signature = "CFUNCTYPE(" + ", ".join(_ctype_name(t) for t in [restype, *argtypes]) + ")"
    expected = "CFUNCTYPE(" + ", ".join(_CTYPE_OF_LLVM.get(t, t) for t in [result, *params]) + ")"
    raise TypeError(
        f"callback for '{name}' is {signature}, but the module declares "
        f"'{symbol}' as {declared}: the callback must be {expected}"
    )


class ExecutionEngine(_native.ExecutionEngine):
    def lookup(self, name: str) -> CFuncPtr:
        """Look up the C interface (`_mlir_ciface_<name>`) of function `name`.

        Returns a ctypes function taking a pointer to the array of pointers to
        the arguments and results (see `invoke`). Raises RuntimeError if the
        module has no such function. An exception a callback raises during a
        call is re-raised by the call.
        """
        if not isinstance(name, str):
            raise TypeError(f"the function name must be a str, got {type(name).__name__}")
        address = self.raw_lookup("_mlir_ciface_" + name)
        if not address:
            # Upstream's message first; then why, in the user's terms.
            if self._packed_arguments(name) is not None:
                reason = (
                    f"the module defines '{name}' but not its C interface "
                    f"'_mlir_ciface_{name}': give the function the "
                    "llvm.emit_c_interface attribute before lowering it"
                )
            else:
                reason = (
                    f"the module defines no function '{name}' (looked up as "
                    f"'_mlir_ciface_{name}'; a function called through "
                    "invoke/lookup needs the llvm.emit_c_interface attribute)"
                )
            raise RuntimeError(f"Unknown function {name}: {reason}")
        func = _PackedFunction(address)
        # The code lives in the engine: calling it after the engine is
        # collected would crash.
        func.execution_engine = self
        return func

    def invoke(self, name: str, *ctypes_args: Any) -> None:
        """Invoke function `name` with pointers to its arguments and results.

        Each argument is anything `ctypes.cast(arg, ctypes.c_void_p)` takes,
        as upstream: `ctypes.pointer(x)`, `ctypes.byref(x)`, a ctypes array
        or `c_void_p`, or an address as an int. Results come after the
        arguments, in order.
        """
        func = self.lookup(name)
        # (size of the target, whether it is the result) for each pointer.
        pointers = self._packed_arguments("_mlir_ciface_" + name)
        # A wrong count makes the jitted code read past the array: refuse it.
        if pointers is not None and len(ctypes_args) != len(pointers):
            raise TypeError(
                f"'{name}' takes {len(pointers)} pointer arguments (one for each "
                f"argument, then one for the result), got {len(ctypes_args)}"
            )
        packed_args = (ctypes.c_void_p * len(ctypes_args))()
        for index, arg in enumerate(ctypes_args):
            try:
                # ctypes.cast takes a str too, but points into a buffer it
                # frees at once: the jitted code would read freed memory;
                # bytes likewise: the jitted code would write into an
                # immutable (perhaps interned) bytes object.
                if isinstance(arg, (str, bytes)):
                    raise ctypes.ArgumentError
                address = ctypes.cast(arg, ctypes.c_void_p).value
            except ctypes.ArgumentError:
                raise TypeError(
                    f"argument {index} of '{name}' must be a pointer, such as "
                    f"ctypes.pointer(x) or ctypes.byref(x) for a ctypes value "
                    f"x, got {type(arg).__name__}"
                ) from None
            # ctypes.cast wraps an int modulo 2**64: 2**64 + 8 would be 8.
            if isinstance(arg, int) and not isinstance(arg, bool) and not 0 <= arg < 2**64:
                raise ValueError(
                    f"argument {index} of '{name}' is {arg}, which is not a valid "
                    "address (an address is an int from 1 to 2**64 - 1)"
                )
            if not address:
                raise ValueError(f"argument {index} of '{name}' is a null pointer")
            # An address is checked before the jitted code dereferences it.
            if pointers is not None:
                size, is_result = pointers[index]
                if not _native._is_accessible(address, size, is_result):
                    access = "writable (the result)" if is_result else "readable"
                    raise ValueError(
                        f"argument {index} of '{name}' is address {address:#x}, "
                        f"which is not {size} {access} bytes of this process; "
                        "pass ctypes.pointer(x) or ctypes.byref(x) for a "
                        "ctypes value x"
                    )
            packed_args[index] = address
        func(packed_args)

    def register_runtime(self, name: str, ctypes_callback: CFuncPtr) -> None:
        """Make `ctypes_callback` (a ctypes CFUNCTYPE function) available to
        the jitted code as the C interface function `name`
        (`func.func private @name(...) attributes {llvm.emit_c_interface}`).

        The engine keeps the callback alive; register before the first
        lookup or invocation. Where the module declares `name`'s C
        interface, the callback's ctypes signature must match the
        declaration (c_float for f32, c_double for f64, c_intN or c_uintN for
        iN, c_bool for i1, c_void_p or a POINTER for a pointer, None for no
        result), or this raises TypeError; a name the module does not
        declare is registered unchecked (a shared library may use it).
        """
        symbol = "_mlir_ciface_" + name
        declared = self._declared_function_type(symbol)
        if declared is not None:
            _check_callback_signature(name, symbol, declared, ctypes_callback)
        callback = ctypes.cast(ctypes_callback, ctypes.c_void_p)
        self.raw_register_runtime("_mlir_ciface_" + name, callback)
