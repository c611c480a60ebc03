# Type stubs for the `_mlirExecutionEngine` extension module
# (lib/Bindings/Python/ExecutionEngineModule.cpp and the Jit*.cpp files).

from collections.abc import Callable, Sequence
from typing import Any, Never, Protocol, final, type_check_only

import numpy as np

from ._mlir.ir import Context, Module, Operation

@type_check_only
class _Address(Protocol):
    """A ctypes object whose `.value` is an address, such as
    `ctypes.cast(a_CFUNCTYPE_function, ctypes.c_void_p)`."""

    @property
    def value(self) -> int | None: ...

@type_check_only
class _ModuleCapsuleCarrier(Protocol):
    """An object with an `mlir.ir.Module._CAPIPtr` capsule, such as a Module
    of another binding of the same MLIR library. A bare capsule serves too."""

    @property
    def _CAPIPtr(self) -> object: ...

class ExecutionEngine:
    def __init__(
        self,
        module: Module | _ModuleCapsuleCarrier | None,
        opt_level: int = 2,
        shared_libs: Sequence[str] = [],
        enable_object_dump: bool = True,
        enable_pic: bool = False,
        *,
        enable_gdb_listener: bool = True,
        enable_perf_listener: bool = False,
        cache_dir: str | None = None,
        _cache_key: str = "",
        _cache_annotation: str = "",
        _cache_load: _CacheLoad | None = None,
    ) -> None:
        """Raises RuntimeError if the module cannot be translated to LLVM IR
        or a shared library cannot be loaded. With `cache_dir`, loads the
        compiled object from the persistent cache or stores it there; with
        `module` None, takes `_cache_load`'s engine, or raises KeyError if the
        cache had no entry."""

    def raw_lookup(self, func_name: str) -> int:
        """The address of the packed wrapper `void(void **)` of `func_name`,
        or 0 if the module defines no such function; raises RuntimeError if
        it uses symbols neither defined nor registered."""

    @property
    def _cache_annotation(self) -> str: ...
    def _remove_cache_entry(self) -> bool: ...
    def _packed_arguments(self, func_name: str) -> list[tuple[int, bool]] | None: ...
    def _declared_function_type(self, name: str) -> str | None: ...
    def raw_register_runtime(self, name: str, callback: _Address) -> None:
        """The engine keeps `callback` referenced for its whole lifetime."""

    def initialize(self) -> None: ...
    def dump_to_object_file(self, file_name: str) -> None: ...
    @property
    def _CAPIPtr(self) -> object: ...
    @staticmethod
    def _CAPICreate(capsule: object) -> ExecutionEngine: ...
    def _testing_release(self) -> None: ...

# The typed call layer, used by mlir._jit: calls (JitFunction.cpp) and
# callbacks (JitCallbacks.cpp); the value ABI is JitValues.h's.

@final
class JitFunction:
    """A function of a JitModule: the `__self__` of the builtin function
    that calls it (returning None, one value, or a tuple of the declared
    results). Not constructible from Python: made by _make_jit_function."""

class _CallbackSlot:
    def __init__(
        self, name: str, declaration: Operation, dtypes: Sequence[np.dtype[Any] | None]
    ) -> None: ...
    function: Callable[..., Any] | None
    errors: list[BaseException] | None

def _make_jit_function(
    name: str,
    function: Operation,
    dtypes: Sequence[np.dtype[Any] | None],
    release_gil: bool,
    may_stop: bool,
    stoppable: bool,
    compile: Callable[[], ExecutionEngine],
    errors: list[BaseException] | None = None,
) -> Callable[..., Any]: ...
def _call_packed(
    function: Callable[..., Any], arguments: tuple[Any, ...], foreign_errors: list[BaseException] | None
) -> Any: ...
def _keep_callback_error(error: BaseException) -> bool: ...
def _bind_runtime_support(engine: ExecutionEngine) -> None: ...
def _mark_tensor_arguments_immutable(function: Operation) -> None: ...
def _copy_module(module: Module) -> object: ...
def _parse_module(context: Context, text: str) -> tuple[object | None, str]: ...
def _run_pipeline(module: Module, pipeline: str) -> str | None: ...
def _print_operation(operation: Operation) -> str: ...
def _call_properties(function: Operation, callbacks: list[str]) -> tuple[bool, bool, bool]: ...
def _calls_only_own_code(module: Module) -> bool: ...
def _add_callback_trampolines(module: Module, slots: Sequence[_CallbackSlot]) -> None: ...
def _bind_callbacks(engine: ExecutionEngine, slots: Sequence[_CallbackSlot]) -> None: ...

@final
class _CacheLoad:
    """A load from the JIT cache on a thread of its own (made by
    _load_from_cache; ExecutionEngine(None, _cache_load=...) takes it)."""

    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""


def _load_from_cache(
    cache_dir: str,
    cache_key: str,
    opt_level: int,
    shared_libs: list[str],
    enable_gdb_listener: bool,
    enable_perf_listener: bool,
) -> _CacheLoad: ...
def _check_openmp_threads(read: bool) -> None: ...
def _cache_statistics() -> dict[str, int]: ...
def _cache_max_bytes() -> int | None: ...
def _cache_contents(directory: bytes) -> tuple[int, int]: ...
def _cache_clear(directory: bytes, all_users: bool) -> tuple[int, int]: ...
def _is_accessible(address: int, size: int, writable: bool) -> bool: ...
