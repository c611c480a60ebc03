# Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
# See https://llvm.org/LICENSE.txt for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

"""Zero-copy conversion between numpy arrays and MLIR memref descriptors.

A ranked memref descriptor is laid out as
  {allocated, aligned, offset, shape[rank], strides[rank]}
with offset and strides counted in elements (numpy counts bytes).
"""

import ctypes
import typing as _typing

import numpy as np

if _typing.TYPE_CHECKING:
    from typing import Any

    from numpy.typing import DTypeLike, NDArray

# ml_dtypes provides the numpy dtypes for bfloat16 and the f8 family; it is
# optional so that plain numpy users are not forced to install it.
try:
    import ml_dtypes
except ModuleNotFoundError:
    ml_dtypes = None  # type: ignore[assignment]


# ctypes has no complex, half or 8-bit float types, so these structures stand
# in for them: they only need the right size and alignment.
class C128(ctypes.Structure):
    """complex128 element: two doubles."""

    _fields_ = [("real", ctypes.c_double), ("imag", ctypes.c_double)]


class C64(ctypes.Structure):
    """complex64 element: two floats."""

    _fields_ = [("real", ctypes.c_float), ("imag", ctypes.c_float)]


class F16(ctypes.Structure):
    """float16 element, kept as its raw 16 bits."""

    _fields_ = [("f16", ctypes.c_int16)]


class BF16(ctypes.Structure):
    """bfloat16 element, kept as its raw 16 bits."""

    _fields_ = [("bf16", ctypes.c_int16)]


def _f8_struct(name: str) -> "type[ctypes.Structure]":
    # Each f8 type gets its own field name so the structured numpy dtypes of
    # the structs stay distinct and to_numpy can tell them apart.
    return type(
        name,
        (ctypes.Structure,),
        {
            "__doc__": f"{name} element, kept as its raw 8 bits.",
            "_fields_": [("f" + name[1:], ctypes.c_int8)],
        },
    )


F8E4M3FN = _f8_struct("F8E4M3FN")
F8E5M2 = _f8_struct("F8E5M2")
F8E4M3FNUZ = _f8_struct("F8E4M3FNUZ")
F8E5M2FNUZ = _f8_struct("F8E5M2FNUZ")
F8E4M3B11FNUZ = _f8_struct("F8E4M3B11FNUZ")
F8E4M3 = _f8_struct("F8E4M3")
F8E3M4 = _f8_struct("F8E3M4")
F8E8M0FNU = _f8_struct("F8E8M0FNU")

# Struct -> name of the numpy dtype it stands for. The ml_dtypes names are
# looked up lazily so that a missing ml_dtypes only fails when one is used.
_STRUCT_TO_DTYPE_NAME: dict[type[ctypes.Structure], str] = {
    C128: "complex128",
    C64: "complex64",
    F16: "float16",
    BF16: "bfloat16",
    F8E4M3FN: "float8_e4m3fn",
    F8E5M2: "float8_e5m2",
    F8E4M3FNUZ: "float8_e4m3fnuz",
    F8E5M2FNUZ: "float8_e5m2fnuz",
    F8E4M3B11FNUZ: "float8_e4m3b11fnuz",
    F8E4M3: "float8_e4m3",
    F8E3M4: "float8_e3m4",
    F8E8M0FNU: "float8_e8m0fnu",
}
_NUMPY_NATIVE = ("complex128", "complex64", "float16")


def _struct_dtype(struct: "type[ctypes.Structure]") -> "np.dtype[Any]":
    """numpy dtype that the stand-in struct `struct` represents."""
    name = _STRUCT_TO_DTYPE_NAME[struct]
    if name in _NUMPY_NATIVE:
        return np.dtype(name)
    if ml_dtypes is None or not hasattr(ml_dtypes, name):
        raise ImportError(
            f"{name} arrays need the ml_dtypes package (with {name}); "
            "install it with `pip install ml_dtypes`"
        )
    return np.dtype(getattr(ml_dtypes, name))  # type: ignore[no-any-return]


# numpy dtype names of the MLIR element types that have one: the integers,
# floats and complexes here, and each f8 type, whose struct above is named
# after it (F8E4M3FN for f8E4M3FN).
_ELEMENT_TYPE_TO_DTYPE_NAME = {
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "index": "int64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "complex<f32>": "complex64",
    "complex<f64>": "complex128",
    **{
        "f" + struct.__name__[1:]: name
        for struct, name in _STRUCT_TO_DTYPE_NAME.items()
        if struct.__name__.startswith("F8")
    },
}


def _mlir_element_dtype(element_type: str) -> "np.dtype[Any] | None":
    """The numpy dtype of memref elements of MLIR type `element_type` (its
    text), or None if it has none here."""
    name = _ELEMENT_TYPE_TO_DTYPE_NAME.get(element_type)
    if name is None:
        return None
    if hasattr(np, name) and name != "bfloat16":
        return np.dtype(name)
    if ml_dtypes is None or not hasattr(ml_dtypes, name):
        return None
    return np.dtype(getattr(ml_dtypes, name))  # type: ignore[no-any-return]


def _available_structs() -> "dict[np.dtype[Any], type[ctypes.Structure]]":
    # Only the types whose numpy dtype exists here (ml_dtypes may be missing,
    # or an older one may lack some f8 types).
    table: dict[np.dtype[Any], type[ctypes.Structure]] = {}
    for struct in _STRUCT_TO_DTYPE_NAME:
        try:
            table[_struct_dtype(struct)] = struct
        except ImportError:
            pass
    return table


_DTYPE_TO_STRUCT = _available_structs()


def as_ctype(dtp: "DTypeLike") -> "type[ctypes._CData]":
    """Returns the ctypes type used as memref element type for numpy `dtp`."""
    try:
        dtp = np.dtype(dtp)
    except TypeError as e:
        raise TypeError(f"as_ctype: {dtp!r} is not a numpy dtype") from e
    struct = _DTYPE_TO_STRUCT.get(dtp)
    if struct is not None:
        return struct
    try:
        return np.ctypeslib.as_ctypes_type(dtp)  # type: ignore[arg-type]
    except NotImplementedError as e:
        raise TypeError(
            f"as_ctype: numpy dtype {dtp} has no memref element type; supported"
            " are bool, (u)int8-64, float16/32/64, complex64/128 and, with "
            "ml_dtypes, bfloat16 and float8_* types"
        ) from e


def to_numpy(array: "NDArray[Any]") -> "NDArray[Any]":
    """Reinterprets `array` whose dtype is a stand-in struct (C64, F16, ...)
    as the numpy dtype it stands for; other arrays are returned unchanged."""
    for struct in _STRUCT_TO_DTYPE_NAME:
        if array.dtype == np.dtype(struct):
            return array.view(_struct_dtype(struct))
    return array


def make_nd_memref_descriptor(rank: int, dtype: "type[ctypes._CData]") -> "type[ctypes.Structure]":
    """Returns a ctypes struct class for a rank-`rank` memref of `dtype`
    (a ctypes type)."""

    class MemRefDescriptor(ctypes.Structure):
        """Ranked memref descriptor as produced by LLVM lowering."""

        _fields_ = [
            ("allocated", ctypes.c_longlong),
            ("aligned", ctypes.POINTER(dtype)),
            ("offset", ctypes.c_longlong),
            ("shape", ctypes.c_longlong * rank),
            ("strides", ctypes.c_longlong * rank),
        ]

    return MemRefDescriptor


def make_zero_d_memref_descriptor(dtype: "type[ctypes._CData]") -> "type[ctypes.Structure]":
    """Returns a ctypes struct class for a 0-d memref of `dtype` (a ctypes
    type): a rank-0 descriptor has no shape or strides."""

    class MemRefDescriptor(ctypes.Structure):
        """Zero-d memref descriptor as produced by LLVM lowering."""

        _fields_ = [
            ("allocated", ctypes.c_longlong),
            ("aligned", ctypes.POINTER(dtype)),
            ("offset", ctypes.c_longlong),
        ]

    return MemRefDescriptor


class UnrankedMemRefDescriptor(ctypes.Structure):
    """Unranked memref: the rank plus a type-erased pointer to a ranked
    descriptor."""

    _fields_ = [("rank", ctypes.c_longlong), ("descriptor", ctypes.c_void_p)]


def _check_ndarray(nparray: object, fn: str) -> "NDArray[Any]":
    # numpy scalars (what ufuncs return for 0-d inputs) are immutable, so a
    # 0-d copy of one is as good as the scalar itself.
    if isinstance(nparray, np.generic):
        return np.asarray(nparray)
    if not isinstance(nparray, np.ndarray):
        raise TypeError(f"{fn}: expected a numpy.ndarray, got {type(nparray).__name__}")
    return nparray


def get_ranked_memref_descriptor(nparray: "NDArray[Any] | np.generic[Any]") -> ctypes.Structure:
    """Returns a ranked memref descriptor viewing `nparray` (no copy)."""
    nparray = _check_ndarray(nparray, "get_ranked_memref_descriptor")
    ctp = as_ctype(nparray.dtype)
    if nparray.ndim == 0:
        x = make_zero_d_memref_descriptor(ctp)()
    else:
        x = make_nd_memref_descriptor(nparray.ndim, ctp)()
    x.allocated = nparray.ctypes.data
    x.aligned = nparray.ctypes.data_as(ctypes.POINTER(ctp))
    # numpy views already point at their first element, so offset stays 0.
    x.offset = 0
    # The descriptor only holds a raw address: keep the array alive with it.
    x._nparray = nparray
    if nparray.ndim == 0:
        return x
    itemsize = nparray.itemsize
    if any(s % itemsize for s in nparray.strides):
        raise ValueError(
            f"get_ranked_memref_descriptor: strides {nparray.strides} (bytes) "
            f"are not multiples of the item size {itemsize}; memrefs count "
            "strides in elements"
        )
    x.shape[:] = nparray.shape
    # numpy strides are in bytes, memref strides in elements.
    x.strides[:] = [s // itemsize for s in nparray.strides]
    return x


def get_unranked_memref_descriptor(
    nparray: "NDArray[Any] | np.generic[Any]",
) -> UnrankedMemRefDescriptor:
    """Returns an unranked memref descriptor viewing `nparray` (no copy)."""
    nparray = _check_ndarray(nparray, "get_unranked_memref_descriptor")
    ranked = get_ranked_memref_descriptor(nparray)
    d = UnrankedMemRefDescriptor()
    d.rank = nparray.ndim
    d.descriptor = ctypes.addressof(ranked)
    # `descriptor` is a bare address; keep what it points to alive.
    d._ranked = ranked
    return d


def move_aligned_ptr_by_offset(
    aligned_ptr: "ctypes._Pointer[Any]", offset: int
) -> "ctypes._Pointer[Any]":
    """Returns `aligned_ptr` (a ctypes pointer) moved ahead by `offset`
    elements."""
    addr = ctypes.cast(aligned_ptr, ctypes.c_void_p).value or 0
    shift = offset * ctypes.sizeof(aligned_ptr._type_)
    return ctypes.cast(ctypes.c_void_p(addr + shift), type(aligned_ptr))


def _element_dtype(ctp: "type[Any]") -> "np.dtype[Any]":
    if ctp in _STRUCT_TO_DTYPE_NAME:
        return _struct_dtype(ctp)
    return np.dtype(ctp)


def _strided_view(desc: ctypes.Structure, np_dtype: "DTypeLike") -> "NDArray[Any]":
    """numpy view of the memory described by ranked descriptor `desc`."""
    np_dtype = np.dtype(np_dtype)
    shape = tuple(desc.shape) if hasattr(desc, "shape") else ()
    strides = tuple(desc.strides) if hasattr(desc, "strides") else ()
    if any(n < 0 for n in shape):
        raise ValueError(f"memref descriptor has negative sizes {shape}")
    if 0 in shape:
        # Nothing to share; the pointer of an empty memref may be anything.
        return np.empty(shape, np_dtype)
    first = move_aligned_ptr_by_offset(desc.aligned, desc.offset)
    first_addr = ctypes.cast(first, ctypes.c_void_p).value
    if not desc.aligned or not first_addr:
        raise ValueError("memref descriptor has a null aligned pointer")
    # Element span covered by the view, relative to element [0, ..., 0];
    # negative strides reach below it.
    lo = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0)
    itemsize = np_dtype.itemsize
    # Wrap exactly the addressed bytes in a buffer and lay the memref's
    # strides over it: numpy sees the real memory, nothing is copied, and
    # numpy itself checks the strides stay inside the buffer.
    buf = (ctypes.c_char * ((hi - lo + 1) * itemsize)).from_address(first_addr + lo * itemsize)
    return np.ndarray(
        shape,
        dtype=np_dtype,
        buffer=buf,
        offset=-lo * itemsize,
        strides=[s * itemsize for s in strides],
    )


def unranked_memref_to_numpy(
    unranked_memref: "ctypes._Pointer[UnrankedMemRefDescriptor] | UnrankedMemRefDescriptor",
    np_dtype: "DTypeLike",
) -> "NDArray[Any]":
    """Returns a numpy view (no copy) of the memref behind `unranked_memref`,
    a ctypes pointer to an UnrankedMemRefDescriptor, with elements of
    `np_dtype`."""
    u = unranked_memref
    if not isinstance(u, UnrankedMemRefDescriptor):
        u = unranked_memref[0]  # type: ignore[index]
    if u.rank < 0:
        raise ValueError(f"unranked memref has negative rank {u.rank}")
    if not u.descriptor:
        raise ValueError("unranked memref has a null descriptor pointer")
    ctp = as_ctype(np_dtype)
    if u.rank == 0:
        desc_t = make_zero_d_memref_descriptor(ctp)
    else:
        desc_t = make_nd_memref_descriptor(u.rank, ctp)
    desc = ctypes.cast(u.descriptor, ctypes.POINTER(desc_t))[0]
    return _strided_view(desc, _element_dtype(ctp))


def ranked_memref_to_numpy(
    ranked_memref: "ctypes._Pointer[Any] | ctypes.Structure",
) -> "NDArray[Any]":
    """Returns a numpy view (no copy) of the memref behind `ranked_memref`,
    a ctypes pointer to a ranked (or zero-d) memref descriptor; the dtype
    follows from the descriptor's element type."""
    desc = ranked_memref
    if not isinstance(desc, ctypes.Structure):
        desc = ranked_memref[0]  # type: ignore[index]
    return _strided_view(desc, _element_dtype(desc.aligned._type_))
