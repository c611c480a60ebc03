"""Upstream's Bazel overlay at LLVM 22, written by hand: every @llvm-project
target this component names, with the facts its users depend on.

Read from utils/bazel/llvm-project-overlay/llvm/BUILD.bazel,
mlir/BUILD.bazel and mlir/build_defs.bzl of llvm/llvm-project (stored copies
of a main-branch revision around the 22 release, not the release tag itself;
faithfulness.py checks every name here against the release's own overlay);
the C API header lists were checked against the headers LLVM 22.1.8 installs
(include/mlir-c, include/mlir/CAPI), which they match exactly. Entries marked
"approximate" simplify a glob with excludes.

Each entry: rule ("cc_library", or "cc_binary" with linkshared for a shared
library, without for a tool), alwayslink, testonly, hdrs and textual_hdrs as
upstream writes them (glob patterns where upstream globs).
"""


def _lib(hdrs=(), textual_hdrs=(), alwayslink=False):
    return {
        "rule": "cc_library",
        "alwayslink": alwayslink,
        "testonly": False,
        "hdrs": list(hdrs),
        "textual_hdrs": list(textual_hdrs),
    }


def _capi(name, hdrs):
    """The three targets of mlir/build_defs.bzl's mlir_c_api_cc_library."""
    return {
        name: _lib(hdrs),
        name + "Headers": _lib(hdrs),
        name + "Objects": _lib(hdrs, alwayslink=True),
    }


def _shared_library():
    return {
        "rule": "cc_binary",
        "linkshared": True,
        "alwayslink": False,
        "testonly": False,
        "hdrs": [],
        "textual_hdrs": [],
    }


UPSTREAM = {
    # llvm/BUILD.bazel
    "llvm:Support": _lib(
        hdrs=[
            "include/llvm/Support/**/*.h",
            "include/llvm/ADT/*.h",
            "include/llvm-c/Core.h",
            "include/llvm-c/DataTypes.h",
            "include/llvm-c/Deprecated.h",
            "include/llvm-c/DisassemblerTypes.h",
            "include/llvm-c/Error.h",
            "include/llvm-c/ErrorHandling.h",
            "include/llvm-c/ExternC.h",
            "include/llvm-c/Support.h",
            "include/llvm-c/Types.h",
            "include/llvm-c/Visibility.h",
            "include/llvm-c/blake3.h",
            "include/llvm/ExecutionEngine/JITSymbol.h",
            "include/llvm/Support/Extension.def",
            "include/llvm/Support/VCSRevision.h",
        ],
        textual_hdrs=["include/llvm/Support/*.def"],
    ),
    # approximate: upstream adds a few llvm-c Orc headers.
    "llvm:OrcJIT": _lib(hdrs=["include/llvm/ExecutionEngine/Orc/*.h"]),
    "llvm:FileCheck": {
        "rule": "cc_binary",
        "linkshared": False,
        "alwayslink": False,
        "testonly": True,
        "hdrs": [],
        "textual_hdrs": [],
    },
    # mlir/BUILD.bazel
    "mlir:IR": _lib(
        hdrs=[
            "include/mlir/IR/*.h",
            "include/mlir/IR/PDLPatternMatch.h.inc",
            "include/mlir/Interfaces/CallInterfaces.h",
            "include/mlir/Interfaces/FoldInterfaces.h",
        ]
    ),
    # approximate: upstream excludes the other LLVM-IR-like dialects' headers
    # (NVVM, ROCDL, ...).
    "mlir:LLVMDialect": _lib(hdrs=["include/mlir/Dialect/LLVMIR/*.h"]),
    "mlir:Pass": _lib(hdrs=["include/mlir/Pass/*.h"]),
    # approximate: upstream excludes Passes.h, which "Transforms" exports.
    "mlir:TransformUtils": _lib(hdrs=["include/mlir/Transforms/*.h"]),
    "mlir:ArithDialect": _lib(hdrs=["include/mlir/Dialect/Arith/IR/Arith.h"]),
    "mlir:ArithTransforms": _lib(hdrs=["include/mlir/Dialect/Arith/Transforms/*.h"]),
    "mlir:VectorDialect": _lib(hdrs=["include/mlir/Dialect/Vector/IR/*.h"]),
    "mlir:BufferizationDialect": _lib(
        hdrs=[
            "include/mlir/Dialect/Bufferization/IR/Bufferization.h",
            "include/mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h",
            "include/mlir/Dialect/Bufferization/IR/UnstructuredControlFlow.h",
        ]
    ),
    "mlir:FuncDialect": _lib(hdrs=["include/mlir/Dialect/Func/IR/*.h"]),
    "mlir:MemRefDialect": _lib(hdrs=["include/mlir/Dialect/MemRef/IR/*.h"]),
    "mlir:OpenMPDialect": _lib(hdrs=["include/mlir/Dialect/OpenMP/*.h"]),
    "mlir:SCFDialect": _lib(hdrs=["include/mlir/Dialect/SCF/IR/*.h"]),
    "mlir:SCFTransforms": _lib(hdrs=["include/mlir/Dialect/SCF/Transforms/*.h"]),
    "mlir:MathTransforms": _lib(hdrs=["include/mlir/Dialect/Math/Transforms/*.h"]),
    "mlir:TensorDialect": _lib(
        hdrs=[
            "include/mlir/Dialect/Tensor/IR/ShardingInterfaceImpl.h",
            "include/mlir/Dialect/Tensor/IR/Tensor.h",
            "include/mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h",
        ]
    ),
    "mlir:LinalgDialect": _lib(
        hdrs=[
            "include/mlir/Dialect/Linalg/IR/Linalg.h",
            "include/mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h",
        ]
    ),
    "mlir:LinalgTransforms": _lib(
        hdrs=[
            "include/mlir/Dialect/Linalg/Passes.h",
            "include/mlir/Dialect/Linalg/Transforms/*.h",
        ]
    ),
    "mlir:ToLLVMIRTranslation": _lib(
        hdrs=[
            "include/mlir/Target/LLVMIR/Export.h",
            "include/mlir/Target/LLVMIR/LLVMTranslationInterface.h",
            "include/mlir/Target/LLVMIR/ModuleTranslation.h",
            "include/mlir/Target/LLVMIR/TypeToLLVM.h",
        ]
    ),
    "mlir:BuiltinToLLVMIRTranslation": _lib(
        hdrs=[
            "include/mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h",
        ]
    ),
    "mlir:LLVMToLLVMIRTranslation": _lib(
        hdrs=[
            "include/mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h",
        ]
    ),
    "mlir:OpenMPToLLVMIRTranslation": _lib(
        hdrs=[
            "include/mlir/Target/LLVMIR/Dialect/OpenMP/*.h",
        ]
    ),
    "mlir:ExecutionEngine": _lib(
        hdrs=[
            "include/mlir/ExecutionEngine/ExecutionEngine.h",
            "include/mlir/ExecutionEngine/MemRefUtils.h",
        ]
    ),
    "mlir:ExecutionEngineUtils": _lib(hdrs=["include/mlir/ExecutionEngine/OptUtils.h"]),
    **_capi(
        "mlir:CAPIIR",
        [
            "include/mlir-c/AffineExpr.h",
            "include/mlir-c/AffineMap.h",
            "include/mlir-c/BuiltinAttributes.h",
            "include/mlir-c/BuiltinTypes.h",
            "include/mlir-c/Diagnostics.h",
            "include/mlir-c/Dialect/Func.h",
            "include/mlir-c/Dialect/IRDL.h",
            "include/mlir-c/ExecutionEngine.h",
            "include/mlir-c/IR.h",
            "include/mlir-c/IntegerSet.h",
            "include/mlir-c/Interfaces.h",
            "include/mlir-c/Pass.h",
            "include/mlir-c/RegisterEverything.h",
            "include/mlir-c/Rewrite.h",
            "include/mlir-c/Support.h",
            "include/mlir/CAPI/AffineExpr.h",
            "include/mlir/CAPI/AffineMap.h",
            "include/mlir/CAPI/Diagnostics.h",
            "include/mlir/CAPI/IR.h",
            "include/mlir/CAPI/IntegerSet.h",
            "include/mlir/CAPI/Interfaces.h",
            "include/mlir/CAPI/Pass.h",
            "include/mlir/CAPI/Registration.h",
            "include/mlir/CAPI/Rewrite.h",
            "include/mlir/CAPI/Support.h",
            "include/mlir/CAPI/Utils.h",
            "include/mlir/CAPI/Wrap.h",
        ],
    ),
    **_capi("mlir:CAPIConversion", ["include/mlir-c/Conversion.h"]),
    **_capi("mlir:CAPIDebug", ["include/mlir-c/Debug.h"]),
    **_capi("mlir:CAPIInterfaces", ["include/mlir-c/Interfaces.h"]),
    **_capi("mlir:CAPIRegisterEverything", ["include/mlir-c/RegisterEverything.h"]),
    **_capi("mlir:CAPITransforms", ["include/mlir-c/Transforms.h"]),
    **_capi(
        "mlir:CAPIExecutionEngine",
        [
            "include/mlir-c/ExecutionEngine.h",
            "include/mlir/CAPI/ExecutionEngine.h",
        ],
    ),
    # The C APIs of upstream's dialect extension modules.
    **_capi("mlir:CAPIAMDGPU", ["include/mlir-c/Dialect/AMDGPU.h"]),
    **_capi("mlir:CAPIAsync", ["include/mlir-c/Dialect/Async.h"]),
    **_capi("mlir:CAPIGPU", ["include/mlir-c/Dialect/GPU.h"]),
    **_capi("mlir:CAPILLVM", ["include/mlir-c/Dialect/LLVM.h"]),
    **_capi("mlir:CAPILinalg", ["include/mlir-c/Dialect/Linalg.h"]),
    **_capi("mlir:CAPINVGPU", ["include/mlir-c/Dialect/NVGPU.h"]),
    **_capi("mlir:CAPIPDL", ["include/mlir-c/Dialect/PDL.h"]),
    **_capi("mlir:CAPIQuant", ["include/mlir-c/Dialect/Quant.h"]),
    **_capi(
        "mlir:CAPISMT", ["include/mlir-c/Dialect/SMT.h", "include/mlir-c/Target/ExportSMTLIB.h"]
    ),
    **_capi("mlir:CAPISparseTensor", ["include/mlir-c/Dialect/SparseTensor.h"]),
    **_capi("mlir:CAPITarget", ["include/mlir-c/Target/LLVMIR.h"]),
    **_capi("mlir:CAPITransformDialect", ["include/mlir-c/Dialect/Transform.h"]),
    **_capi(
        "mlir:CAPITransformDialectTransforms", ["include/mlir-c/Dialect/Transform/Interpreter.h"]
    ),
    # Upstream's Python bindings (mlir/BUILD.bazel): the core classes without
    # C API code, nanobind's headers, the C APIs the core uses.
    "mlir:MLIRBindingsPythonCoreNoCAPI": _lib(alwayslink=True),
    "mlir:MLIRBindingsPythonNanobindHeaders": _lib(textual_hdrs=["lib/Bindings/Python/*.h"]),
    "mlir:MLIRBindingsPythonCAPIObjects": _lib(),
    "mlir:PassBaseTdFiles": {
        "rule": "td_library",
        "alwayslink": False,
        "testonly": False,
        "hdrs": [],
        "textual_hdrs": [],
    },
    "mlir:mlir-tblgen": {
        "rule": "cc_binary",
        "alwayslink": False,
        "testonly": False,
        "hdrs": [],
        "textual_hdrs": [],
    },
    # Interop.h is here, not in CAPIIRHeaders.
    "mlir:MLIRBindingsPythonHeaders": _lib(
        textual_hdrs=[
            "include/mlir-c/Bindings/Python/*.h",
            "include/mlir/Bindings/Python/*.h",
        ]
    ),
    # The runner libraries' cc_library targets (mlir_c_runner_utils, an alias
    # of _mlir_c_runner_utils) produce several files; these produce the .so.
    "mlir:libmlir_c_runner_utils.so": _shared_library(),
    "mlir:libmlir_runner_utils.so": _shared_library(),
    "mlir:libmlir_async_runtime.so": _shared_library(),
    "mlir:libmlir_float16_utils.so": _shared_library(),
    "mlir:libmlir_apfloat_utils.so": _shared_library(),
}
