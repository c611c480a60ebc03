# Type stubs for `_mlir.ir` (lib/Bindings/Python/IRCore.cpp, IRTypes.cpp,
# IRAttributes.cpp; MLIRError is _mlir_libs/_mlir_error.py): the names,
# argument names and defaults the C++ binds. Factories that take
# `context=None` (or `loc=None`) use the current one, entered with `with`, and
# raise ValueError when there is none.

from collections.abc import Iterator, Sequence
from typing import ClassVar, Literal, Never, Protocol, Self, overload, type_check_only

@type_check_only
class _BinaryWriter(Protocol):
    """A binary file object, such as io.BytesIO or open(path, "wb")."""

    def write(self, data: bytes, /) -> object: ...

class DiagnosticSeverity:
    """A pybind11 enum (not an enum.Enum)."""

    ERROR: ClassVar[DiagnosticSeverity]
    WARNING: ClassVar[DiagnosticSeverity]
    NOTE: ClassVar[DiagnosticSeverity]
    REMARK: ClassVar[DiagnosticSeverity]
    __members__: ClassVar[dict[str, DiagnosticSeverity]]
    def __init__(self, value: int) -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __int__(self) -> int: ...
    def __getstate__(self) -> int: ...
    def __setstate__(self, state: int) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class Context:
    # A read-only static property: None outside `with Context():`.
    current: ClassVar[Context | None]
    def __init__(self) -> None: ...
    @staticmethod
    def _get_live_count() -> int: ...
    def _get_live_module_count(self) -> int:
        """How many Module objects of this Context are alive."""

    def enable_multithreading(self, enable: bool) -> None:
        """Module-scope IR printing (PassManager.enable_ir_printing) needs it off."""

    def __enter__(self) -> Self: ...
    def __exit__(self, *args: object) -> None: ...
    @property
    def allow_unregistered_dialects(self) -> bool: ...
    @allow_unregistered_dialects.setter
    def allow_unregistered_dialects(self, value: bool) -> None: ...
    @property
    def _CAPIPtr(self) -> object: ...
    @staticmethod
    def _CAPICreate(capsule: object) -> Context: ...

class Location:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    # A read-only static property: None outside `with <Location>:`.
    current: ClassVar[Location | None]
    @staticmethod
    def unknown(context: Context | None = None) -> Location: ...
    @staticmethod
    def file(filename: str, line: int, col: int, context: Context | None = None) -> Location: ...
    def __enter__(self) -> Self:
        """Also makes the location's context current."""

    def __exit__(self, *args: object) -> None: ...
    @property
    def context(self) -> Context: ...
    def __str__(self) -> str: ...

class DiagnosticInfo:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @property
    def severity(self) -> DiagnosticSeverity: ...
    @property
    def location(self) -> Location: ...
    @property
    def message(self) -> str: ...
    @property
    def notes(self) -> list[DiagnosticInfo]: ...
    def __str__(self) -> str: ...

class MLIRError(Exception):
    """An MLIR failure, with the error diagnostics that explain it."""

    message: str
    error_diagnostics: list[DiagnosticInfo]
    def __init__(self, message: str, error_diagnostics: list[DiagnosticInfo]) -> None: ...

class Type:
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def parse(asm: str, context: Context | None = None) -> Type:
        """Returns the most specific Type subclass; raises MLIRError."""

    @property
    def context(self) -> Context: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def maybe_downcast(self) -> Type: ...
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    @property
    def _CAPIPtr(self) -> object: ...

class IntegerType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get_signless(width: int, context: Context | None = None) -> IntegerType: ...
    @staticmethod
    def get_signed(width: int, context: Context | None = None) -> IntegerType: ...
    @staticmethod
    def get_unsigned(width: int, context: Context | None = None) -> IntegerType: ...
    @property
    def width(self) -> int: ...
    @property
    def is_signless(self) -> bool: ...
    @property
    def is_signed(self) -> bool: ...
    @property
    def is_unsigned(self) -> bool: ...

class IndexType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(context: Context | None = None) -> IndexType: ...

class F16Type(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(context: Context | None = None) -> F16Type: ...

class BF16Type(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(context: Context | None = None) -> BF16Type: ...

class F32Type(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(context: Context | None = None) -> F32Type: ...

class F64Type(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(context: Context | None = None) -> F64Type: ...

class ComplexType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(element_type: Type) -> ComplexType:
        """Raises ValueError unless `element_type` is an integer or float type."""

    @property
    def element_type(self) -> Type: ...

class MemRefType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(
        shape: Sequence[int],
        element_type: Type,
        layout: Attribute | None = None,
        memory_space: Attribute | None = None,
        loc: Location | None = None,
    ) -> MemRefType:
        """Raises MLIRError for an invalid combination."""
    @property
    def element_type(self) -> Type: ...
    @property
    def rank(self) -> int: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def has_static_shape(self) -> bool: ...
    @staticmethod
    def get_dynamic_size() -> int: ...
    @staticmethod
    def get_dynamic_stride_or_offset() -> int: ...
    def get_strides_and_offset(self) -> tuple[list[int], int]:
        """Raises ValueError if the layout is not strided."""

    @property
    def layout(self) -> Attribute: ...

class UnrankedMemRefType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(
        element_type: Type, memory_space: Attribute | None = None, loc: Location | None = None
    ) -> UnrankedMemRefType:
        """Raises MLIRError for an invalid combination."""
    @property
    def element_type(self) -> Type: ...

class RankedTensorType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(
        shape: Sequence[int],
        element_type: Type,
        encoding: Attribute | None = None,
        loc: Location | None = None,
    ) -> RankedTensorType:
        """Raises MLIRError for an invalid combination."""
    @property
    def element_type(self) -> Type: ...
    @property
    def rank(self) -> int: ...
    @property
    def shape(self) -> list[int]: ...

class VectorType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(shape: Sequence[int], element_type: Type, loc: Location | None = None) -> VectorType:
        """Raises MLIRError for an invalid combination."""
    @property
    def element_type(self) -> Type: ...
    @property
    def rank(self) -> int: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def scalable(self) -> bool: ...

class FunctionType(Type):
    def __init__(self, cast_from_type: Type) -> None: ...
    @staticmethod
    def isinstance(other: Type) -> bool: ...
    @staticmethod
    def get(
        inputs: Sequence[Type], results: Sequence[Type], context: Context | None = None
    ) -> FunctionType: ...
    @property
    def inputs(self) -> list[Type]: ...
    @property
    def results(self) -> list[Type]: ...

class Attribute:
    def __init__(self, cast_from_attr: Attribute) -> None: ...
    @staticmethod
    def parse(asm: str, context: Context | None = None) -> Attribute:
        """Returns the most specific Attribute subclass; raises MLIRError."""

    @property
    def context(self) -> Context: ...
    @property
    def type(self) -> Type: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __str__(self) -> str: ...

class TypeAttr(Attribute):
    def __init__(self, cast_from_attr: Attribute) -> None:
        """Raises ValueError if `cast_from_attr` is another kind of attribute."""

    @staticmethod
    def get(value: Type, context: Context | None = None) -> TypeAttr: ...
    @staticmethod
    def isinstance(other: Attribute) -> bool: ...
    @property
    def value(self) -> Type: ...

class StringAttr(Attribute):
    def __init__(self, cast_from_attr: Attribute) -> None:
        """Raises ValueError if `cast_from_attr` is another kind of attribute."""

    @staticmethod
    def get(value: str, context: Context | None = None) -> StringAttr: ...
    @staticmethod
    def isinstance(other: Attribute) -> bool: ...
    @property
    def value(self) -> str: ...

class UnitAttr(Attribute):
    def __init__(self, cast_from_attr: Attribute) -> None:
        """Raises ValueError if `cast_from_attr` is another kind of attribute."""

    @staticmethod
    def get(context: Context | None = None) -> UnitAttr: ...
    @staticmethod
    def isinstance(other: Attribute) -> bool: ...

class NamedAttribute:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @property
    def name(self) -> str: ...
    @property
    def attr(self) -> Attribute: ...

class OpAttributeMap:
    """An operation's attributes, read and written in place."""

    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @overload
    def __getitem__(self, name: str) -> Attribute:
        """Raises KeyError if the operation has no attribute `name`."""

    @overload
    def __getitem__(self, index: int) -> NamedAttribute:
        """Raises IndexError past the end; iteration yields NamedAttributes."""

    def __setitem__(self, name: str, attr: Attribute) -> None: ...
    def __delitem__(self, name: str) -> None:
        """Raises KeyError if the operation has no attribute `name`."""

    def __contains__(self, name: str) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[NamedAttribute]: ...

class Module:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @staticmethod
    def parse(asm: str | bytes, context: Context | None = None) -> Module:
        """Text, or MLIR bytecode as bytes; raises MLIRError with the parser's
        diagnostics."""

    @staticmethod
    def parseFile(path: str, context: Context | None = None) -> Module:
        """Text or bytecode; raises MLIRError, also for a file it cannot open."""

    @staticmethod
    def create(loc: Location | None = None) -> Module: ...
    @property
    def context(self) -> Context: ...
    @property
    def operation(self) -> Operation: ...
    @property
    def body(self) -> Block: ...
    def dump(self) -> None: ...
    def __str__(self) -> str: ...
    @property
    def _CAPIPtr(self) -> object: ...
    @staticmethod
    def _CAPICreate(capsule: object) -> Module:
        """The live Module of `capsule`, or a new one owning the module."""

class Operation:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @property
    def _CAPIPtr(self) -> object: ...

    @staticmethod
    def parse(
        source: str | bytes, *, source_name: str = "", context: Context | None = None
    ) -> Operation:
        """Text or MLIR bytecode; raises MLIRError with the parser's diagnostics."""

    @overload
    def get_asm(
        self,
        binary: Literal[False] = False,
        large_elements_limit: int | None = None,
        large_resource_limit: int | None = None,
        enable_debug_info: bool = False,
        pretty_debug_info: bool = False,
        print_generic_op_form: bool = False,
        use_local_scope: bool = False,
        use_name_loc_as_prefix: bool = False,
        assume_verified: bool = False,
        skip_regions: bool = False,
    ) -> str: ...
    @overload
    def get_asm(
        self,
        binary: Literal[True],
        large_elements_limit: int | None = None,
        large_resource_limit: int | None = None,
        enable_debug_info: bool = False,
        pretty_debug_info: bool = False,
        print_generic_op_form: bool = False,
        use_local_scope: bool = False,
        use_name_loc_as_prefix: bool = False,
        assume_verified: bool = False,
        skip_regions: bool = False,
    ) -> bytes:
        """The textual form as bytes (bytecode is write_bytecode's)."""

    def write_bytecode(self, file: _BinaryWriter, desired_version: int | None = None) -> None:
        """Raises ValueError if `desired_version` is not supported."""

    @property
    def name(self) -> str: ...
    @property
    def operation(self) -> Operation: ...
    @property
    def context(self) -> Context: ...
    @property
    def attributes(self) -> OpAttributeMap: ...

    @property
    def regions(self) -> list[Region]: ...
    def verify(self) -> bool:
        """True, or raises MLIRError."""

    def __str__(self) -> str: ...

class Region:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @property
    def blocks(self) -> list[Block]: ...
    def __iter__(self) -> Iterator[Block]: ...

class Block:
    def __init__(self, *args: Never, **kwargs: Never) -> None:
        """No constructor is bound: raises TypeError."""

    @property
    def operations(self) -> list[Operation]: ...
    def __iter__(self) -> Iterator[Operation]: ...
    def __str__(self) -> str: ...
