"""The JIT execution engine, as upstream's `mlir.execution_engine`."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from ._mlir_libs import _mlirExecutionEngine as _execution_engine

if TYPE_CHECKING:
    from _ctypes import CFuncPtr

__all__ = ["ExecutionEngine", "JitModule", "jit"]


class ExecutionEngine(_execution_engine.ExecutionEngine):
    def lookup(self, name: str) -> CFuncPtr:
        """Look up the C interface (`_mlir_ciface_<name>`) of function `name`.

        Returns a ctypes function taking a pointer to the array of pointers to
        the arguments and results (see `invoke`). Raises RuntimeError if the
        module has no such function.
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
        func = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        # The code lives in the engine: calling it after the engine is
        # collected would crash.
        func.execution_engine = self  # type: ignore[attr-defined]
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
                # frees at once: the jitted code would read freed memory.
                if isinstance(arg, str):
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


# The typed layer, beyond upstream (it uses ExecutionEngine above).
from ._jit import JitModule, jit  # noqa: E402
