"""The JIT execution engine class, as upstream's `mlir.execution_engine`
defines it; its home, so that both that module and `mlir._jit` import it."""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import TYPE_CHECKING, Any

from ._mlir_libs import _mlirExecutionEngine as _native

if TYPE_CHECKING:
    from _ctypes import CFuncPtr

__all__ = ["ExecutionEngine"]

# Exceptions raised by ctypes callbacks: ctypes reports them to
# sys.unraisablehook and returns garbage to the jitted code. While this
# thread runs jitted code, they are kept here and re-raised by the call. The
# hook is installed once, in front of the one in place then; a hook
# installed later that chains to the previous one keeps this working.
_calls = threading.local()
_next_unraisablehook: Any = None


def _keep_callback_errors(unraisable: Any) -> None:
    caught = getattr(_calls, "errors", None)
    if (
        caught is not None
        and unraisable.exc_value is not None
        and "ctypes callback" in (unraisable.err_msg or "")
    ):
        caught.append(unraisable.exc_value)
    else:
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
        outer = getattr(_calls, "errors", None)
        caught: list[BaseException] = []
        _calls.errors = caught
        try:
            result = super().__call__(*args)
        finally:
            _calls.errors = outer
        _native._raise_callback_error()  # a typed callback's (mlir._jit)
        if caught:
            raise caught[0]
        return result


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
            if self._num_packed_arguments(name) >= 0:
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
        expected = self._num_packed_arguments("_mlir_ciface_" + name)
        # A wrong count makes the jitted code read past the array: refuse it.
        if expected >= 0 and len(ctypes_args) != expected:
            raise TypeError(
                f"'{name}' takes {expected} pointer arguments (one for each "
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
            if not address:
                raise ValueError(f"argument {index} of '{name}' is a null pointer")
            packed_args[index] = address
        func(packed_args)

    def register_runtime(self, name: str, ctypes_callback: CFuncPtr) -> None:
        """Make `ctypes_callback` (a ctypes CFUNCTYPE function) available to
        the jitted code as the C interface function `name`
        (`func.func private @name(...) attributes {llvm.emit_c_interface}`).

        The engine keeps the callback alive; register before the first
        lookup or invocation.
        """
        callback = ctypes.cast(ctypes_callback, ctypes.c_void_p)
        self.raw_register_runtime("_mlir_ciface_" + name, callback)
