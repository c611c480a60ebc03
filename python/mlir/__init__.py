"""MLIR's Python bindings (upstream's, built from the release's sources) with
this project's JIT execution engine.

Importing the package loads the aggregate MLIR C API library first, so that
a missing LLVM/MLIR 22 install is an ImportError saying what to install, not
one naming a .so.
"""

import ctypes
import os
import struct

_CAPI = os.path.join(os.path.dirname(__file__), "_mlir_libs", "libMLIRPythonCAPI.so")
# The self-contained wheel's copies of LLVM/MLIR and their libraries.
_BUNDLED = os.path.join(os.path.dirname(os.path.dirname(__file__)), "mlir_execution_engine.libs")


def _rpath(library: str) -> str:
    """The DT_RUNPATH (or DT_RPATH) of an ELF64 little-endian `library`, or ''.

    It names the LLVM lib directory the library was linked against.
    """
    with open(library, "rb") as f:
        elf = f.read()
    if elf[:6] != b"\x7fELF\x02\x01":
        return ""
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQI", elf, shoff + i * shentsize) for i in range(shnum)]
    for _, kind, _, _, offset, size, link in sections:
        if kind != 6:  # SHT_DYNAMIC; its sh_link is its string table
            continue
        strtab = sections[link][4]
        for i in range(offset, offset + size, 16):
            tag, value = struct.unpack_from("<qQ", elf, i)
            if tag in (15, 29):  # DT_RPATH, DT_RUNPATH
                start = strtab + value
                return elf[start : elf.index(b"\0", start)].decode()
    return ""


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def _global_llvm() -> str | None:
    """The file of an LLVM in the process's global symbol namespace (loaded
    with RTLD_GLOBAL, by LD_PRELOAD or by the program), or None."""
    process = ctypes.CDLL(None)
    try:
        symbol = process.LLVMGetVersion
    except AttributeError:
        return None
    info = _DlInfo()
    if not process.dladdr(ctypes.cast(symbol, ctypes.c_void_p), ctypes.byref(info)):
        return "(a library dladdr cannot name)"
    return os.fsdecode(info.dli_fname or b"(the program)")


def _load_capi() -> None:
    other_llvm = _global_llvm() if os.path.isdir(_BUNDLED) else None
    if other_llvm is not None:
        # The bundled copies' references to LLVM's globals would bind to that
        # LLVM's: both would construct and destroy them (memory corruption).
        raise ImportError(
            f"mlir cannot load its LLVM: another LLVM ({other_llvm}) is already "
            "loaded into the process's global symbol namespace (by LD_PRELOAD, "
            "a library loaded with RTLD_GLOBAL, or the program itself), and the "
            "wheel's own copy would share its globals and corrupt memory. Import "
            "mlir before loading that library, load it with RTLD_LOCAL (ctypes' "
            "default), or use the package built against that LLVM "
            "(./bazelw build //python:mlir)."
        )
    try:
        ctypes.CDLL(_CAPI)
    except OSError as error:
        try:
            # Bazel's own $ORIGIN entries and a wheel's, which point inside
            # the installed package, say nothing to a user.
            dirs = [d for d in _rpath(_CAPI).split(":") if d and not d.startswith("$ORIGIN")]
        except (OSError, ValueError, struct.error, IndexError):
            dirs = ["(its rpath could not be read)"]
        if not dirs and "version `" in str(error):
            raise ImportError(
                f"mlir cannot load its MLIR C API library: {error}.\n"
                "A system library found first is older than the one the wheel was "
                "built with (the message names it and the version it lacks): "
                "usually a libstdc++ on LD_LIBRARY_PATH, or of a conda environment "
                "or an HPC module. Put the system's library first, or unset "
                "LD_LIBRARY_PATH."
            ) from error
        if not dirs:
            # The self-contained wheel: its LLVM/MLIR are copies beside the package.
            raise ImportError(
                f"mlir cannot load its MLIR C API library: {error}.\n"
                "The wheel's own copies of the LLVM/MLIR 22 libraries "
                "(mlir_execution_engine.libs, next to the mlir package) are "
                "missing or damaged: reinstall it with\n"
                "  pip install --force-reinstall mlir_execution_engine"
            ) from error
        raise ImportError(
            f"mlir cannot load its MLIR C API library: {error}.\n"
            "It needs the LLVM/MLIR 22 shared libraries (libMLIR.so.22.1, "
            "libMLIRExecutionEngineShared.so.22.1, libLLVM.so.22.1) in the "
            f"directory it was built against: {':'.join(dirs)}, and LLVM's "
            "OpenMP runtime (libomp.so.5).\n"
            "On Debian 12 install them with:\n"
            "  apt-get install libmlir-22-dev llvm-22-dev mlir-22-tools libomp-22-dev\n"
            "(they go to /usr/lib/llvm-22/lib); elsewhere install LLVM/MLIR 22 "
            "at that prefix, or use the self-contained wheel "
            "(./bazelw build //:wheel)."
        ) from error


_load_capi()
