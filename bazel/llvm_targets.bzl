"""The @llvm-project targets this component uses, as upstream's Bazel overlay
(utils/bazel/llvm-project-overlay, LLVM 22) defines them: the one table from
which //bazel:prebuilt_llvm.bzl generates the prebuilt overlay.

Every BUILD file of this project names only targets listed here
(//test/llvm_overlay checks it), and every entry stands for the upstream target
named in its comment. Fields:

  kind: "cc_library"; "capi" (upstream's mlir_c_api_cc_library, below);
    "shared_library" (upstream: a cc_binary with linkshared, whose only
    output is the .so); "binary" (a tool).
  alwayslink, testonly: as upstream sets them.
  hdrs: the headers the target itself exports, as upstream lists them (glob
    patterns where upstream globs); textual_hdrs likewise.
  deps: entries whose headers and code it brings, as upstream's deps (and a
    C API library's header_deps) do; capi_deps: C API entries, as upstream's.
  lib: the prebuilt code: "libLLVM", "libMLIR" or
    "libMLIRExecutionEngineShared" (shared libraries), "capi:<Name>,..." (the
    static archives libMLIRCAPI<Name>.a), "lib:<file>" (a file in the LLVM lib
    directory), "bin:<tool>", or absent (headers only).

upstream's mlir_c_api_cc_library macro makes three targets of one C API
library: "X" (not alwayslink), "XHeaders" (headers only) and "XObjects"
(alwayslink, for aggregating into one shared library). The "capi" entries
below stand for all three.
"""

# The headers of each upstream mlir_c_api_cc_library we use.
_CAPI_IR_HDRS = [
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
]

LLVM_PROJECT_TARGETS = {
    # llvm/BUILD.bazel cc_library "Support".
    "llvm:Support": {
        "kind": "cc_library",
        "hdrs": [
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
        "textual_hdrs": ["include/llvm/Support/*.def"],
        "lib": "libLLVM",
    },
    # llvm/BUILD.bazel cc_library "OrcJIT".
    "llvm:OrcJIT": {
        "kind": "cc_library",
        "hdrs": ["include/llvm/ExecutionEngine/Orc/*.h"],
        "deps": ["llvm:Support"],
        "lib": "libLLVM",
    },
    # llvm/BUILD.bazel cc_binary "FileCheck", testonly.
    "llvm:FileCheck": {
        "kind": "binary",
        "testonly": True,
        "lib": "bin:FileCheck",
    },
    # mlir/BUILD.bazel cc_library "IR".
    "mlir:IR": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/IR/*.h",
            "include/mlir/IR/PDLPatternMatch.h.inc",
            "include/mlir/Interfaces/CallInterfaces.h",
            "include/mlir/Interfaces/FoldInterfaces.h",
        ],
        "deps": ["llvm:Support"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "LLVMDialect".
    "mlir:LLVMDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/LLVMIR/*.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "Pass".
    "mlir:Pass": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Pass/*.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "TransformUtils" (approximate: upstream
    # excludes Passes.h, which "Transforms" exports).
    "mlir:TransformUtils": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Transforms/*.h"],
        "deps": ["mlir:IR", "mlir:Pass"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "ArithDialect".
    "mlir:ArithDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/Arith/IR/Arith.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "ArithTransforms".
    "mlir:ArithTransforms": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/Arith/Transforms/*.h"],
        "deps": ["mlir:ArithDialect", "mlir:Pass", "mlir:TransformUtils"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "VectorDialect".
    "mlir:VectorDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/Vector/IR/*.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "BufferizationDialect".
    "mlir:BufferizationDialect": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/Dialect/Bufferization/IR/Bufferization.h",
            "include/mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h",
            "include/mlir/Dialect/Bufferization/IR/UnstructuredControlFlow.h",
        ],
        "deps": ["mlir:ArithDialect", "mlir:IR", "mlir:MemRefDialect", "mlir:TensorDialect"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "FuncDialect".
    "mlir:FuncDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/Func/IR/*.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "MemRefDialect".
    "mlir:MemRefDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/MemRef/IR/*.h"],
        "deps": ["mlir:ArithDialect", "mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "OpenMPDialect".
    "mlir:OpenMPDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/OpenMP/*.h"],
        "deps": ["mlir:IR", "mlir:LLVMDialect"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "SCFDialect".
    "mlir:SCFDialect": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/SCF/IR/*.h"],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "SCFTransforms".
    "mlir:SCFTransforms": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/SCF/Transforms/*.h"],
        "deps": ["mlir:IR", "mlir:Pass", "mlir:SCFDialect", "mlir:TensorDialect", "mlir:TransformUtils"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "TensorDialect".
    "mlir:TensorDialect": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/Dialect/Tensor/IR/ShardingInterfaceImpl.h",
            "include/mlir/Dialect/Tensor/IR/Tensor.h",
            "include/mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h",
        ],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "LinalgDialect".
    "mlir:LinalgDialect": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/Dialect/Linalg/IR/Linalg.h",
            "include/mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h",
        ],
        "deps": ["mlir:ArithDialect", "mlir:IR", "mlir:TensorDialect"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "LinalgTransforms".
    "mlir:LinalgTransforms": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/Dialect/Linalg/Passes.h",
            "include/mlir/Dialect/Linalg/Transforms/*.h",
        ],
        "deps": ["mlir:LinalgDialect", "mlir:Pass", "mlir:SCFDialect", "mlir:TransformUtils"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "MathTransforms".
    "mlir:MathTransforms": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Dialect/Math/Transforms/*.h"],
        "deps": ["mlir:IR", "mlir:Pass", "mlir:TransformUtils"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "ToLLVMIRTranslation".
    "mlir:ToLLVMIRTranslation": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/Target/LLVMIR/Export.h",
            "include/mlir/Target/LLVMIR/LLVMTranslationInterface.h",
            "include/mlir/Target/LLVMIR/ModuleTranslation.h",
            "include/mlir/Target/LLVMIR/TypeToLLVM.h",
        ],
        "deps": ["mlir:IR"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "BuiltinToLLVMIRTranslation".
    "mlir:BuiltinToLLVMIRTranslation": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"],
        "deps": ["mlir:ToLLVMIRTranslation"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "LLVMToLLVMIRTranslation".
    "mlir:LLVMToLLVMIRTranslation": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"],
        "deps": ["mlir:ToLLVMIRTranslation"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "OpenMPToLLVMIRTranslation".
    "mlir:OpenMPToLLVMIRTranslation": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/Target/LLVMIR/Dialect/OpenMP/*.h"],
        "deps": ["mlir:ToLLVMIRTranslation"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel cc_library "ExecutionEngine" (mlir::ExecutionEngine).
    "mlir:ExecutionEngine": {
        "kind": "cc_library",
        "hdrs": [
            "include/mlir/ExecutionEngine/ExecutionEngine.h",
            "include/mlir/ExecutionEngine/MemRefUtils.h",
        ],
        "deps": [
            "llvm:OrcJIT",
            "mlir:ToLLVMIRTranslation",
        ],
        "lib": "libMLIRExecutionEngineShared",
    },
    # mlir/BUILD.bazel cc_library "ExecutionEngineUtils" (OptUtils).
    "mlir:ExecutionEngineUtils": {
        "kind": "cc_library",
        "hdrs": ["include/mlir/ExecutionEngine/OptUtils.h"],
        "deps": ["llvm:Support"],
        "lib": "libMLIR",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIIR".
    "mlir:CAPIIR": {
        "kind": "capi",
        "hdrs": _CAPI_IR_HDRS,
        "deps": ["mlir:IR"],
        # Upstream's CAPIIR also compiles lib/CAPI/Dialect/{Func,IRDL}.cpp,
        # which Debian ships as archives of their own.
        "lib": "capi:IR,Func,IRDL",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIConversion".
    "mlir:CAPIConversion": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Conversion.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Conversion",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIDebug".
    "mlir:CAPIDebug": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Debug.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Debug",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIInterfaces".
    "mlir:CAPIInterfaces": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Interfaces.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Interfaces",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIRegisterEverything".
    "mlir:CAPIRegisterEverything": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/RegisterEverything.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:RegisterEverything",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPITransforms".
    "mlir:CAPITransforms": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Transforms.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Transforms",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIExecutionEngine". This
    # project's //lib/CAPI:CAPIExecutionEngine replaces it: listed so that
    # //lib/CAPI can refuse it by name (never link both).
    "mlir:CAPIExecutionEngine": {
        "kind": "capi",
        "hdrs": [
            "include/mlir-c/ExecutionEngine.h",
            "include/mlir/CAPI/ExecutionEngine.h",
        ],
        "capi_deps": ["mlir:CAPIIR"],
        "deps": ["mlir:ExecutionEngine"],
        "lib": "capi:ExecutionEngine",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIAMDGPU".
    "mlir:CAPIAMDGPU": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/AMDGPU.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:AMDGPU",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIAsync".
    "mlir:CAPIAsync": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/Async.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Async",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIGPU".
    "mlir:CAPIGPU": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/GPU.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:GPU",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPILLVM".
    "mlir:CAPILLVM": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/LLVM.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:LLVM",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPILinalg".
    "mlir:CAPILinalg": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/Linalg.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Linalg",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPINVGPU".
    "mlir:CAPINVGPU": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/NVGPU.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:NVGPU",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIPDL".
    "mlir:CAPIPDL": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/PDL.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:PDL",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPIQuant".
    "mlir:CAPIQuant": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/Quant.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Quant",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPISMT" (the SMT dialect's C
    # API and its SMT-LIB export: in 22.1.8 one target, two archives).
    "mlir:CAPISMT": {
        "kind": "capi",
        "hdrs": [
            "include/mlir-c/Dialect/SMT.h",
            "include/mlir-c/Target/ExportSMTLIB.h",
        ],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:SMT,ExportSMTLIB",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPISparseTensor".
    "mlir:CAPISparseTensor": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/SparseTensor.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:SparseTensor",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPITarget".
    "mlir:CAPITarget": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Target/LLVMIR.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:Target",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPITransformDialect".
    "mlir:CAPITransformDialect": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/Transform.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:TransformDialect",
    },
    # mlir/BUILD.bazel mlir_c_api_cc_library "CAPITransformDialectTransforms".
    "mlir:CAPITransformDialectTransforms": {
        "kind": "capi",
        "hdrs": ["include/mlir-c/Dialect/Transform/Interpreter.h"],
        "capi_deps": ["mlir:CAPIIR"],
        "lib": "capi:TransformDialectTransforms",
    },
    # mlir/BUILD.bazel td_library "PassBaseTdFiles" (mlir/tblgen.bzl).
    "mlir:PassBaseTdFiles": {
        "kind": "td_library",
        "srcs": ["include/mlir/Pass/*.td"],
    },
    # mlir/BUILD.bazel cc_binary "mlir-tblgen".
    "mlir:mlir-tblgen": {
        "kind": "binary",
        "lib": "bin:mlir-tblgen",
    },
    # mlir/BUILD.bazel cc_library "MLIRBindingsPythonHeaders": Interop.h and
    # the other binding headers, as textual_hdrs (upstream's also depends on
    # @pybind11 and rules_python's Python headers, which this component takes
    # from @pip and @local_python).
    "mlir:MLIRBindingsPythonHeaders": {
        "kind": "cc_library",
        "textual_hdrs": [
            "include/mlir-c/Bindings/Python/*.h",
            "include/mlir/Bindings/Python/*.h",
        ],
        "deps": ["mlir:CAPIIRHeaders"],
    },
    # mlir/BUILD.bazel cc_binary "libmlir_c_runner_utils.so" (linkshared).
    "mlir:libmlir_c_runner_utils.so": {
        "kind": "shared_library",
        "lib": "lib:libmlir_c_runner_utils.so",
    },
    # mlir/BUILD.bazel cc_binary "libmlir_runner_utils.so" (linkshared).
    "mlir:libmlir_runner_utils.so": {
        "kind": "shared_library",
        "lib": "lib:libmlir_runner_utils.so",
    },
    # mlir/BUILD.bazel cc_binary "libmlir_async_runtime.so" (linkshared).
    "mlir:libmlir_async_runtime.so": {
        "kind": "shared_library",
        "lib": "lib:libmlir_async_runtime.so",
    },
    # mlir/BUILD.bazel cc_binary "libmlir_float16_utils.so" (linkshared).
    "mlir:libmlir_float16_utils.so": {
        "kind": "shared_library",
        "lib": "lib:libmlir_float16_utils.so",
    },
    # mlir/BUILD.bazel cc_binary "libmlir_apfloat_utils.so" (linkshared):
    # what upstream's CMake, and so Debian, names libmlir_apfloat_wrappers.so.
    "mlir:libmlir_apfloat_utils.so": {
        "kind": "shared_library",
        "lib": "lib:libmlir_apfloat_wrappers.so",
    },
}
