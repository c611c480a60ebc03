"""@llvm-project//mlir/python as upstream's overlay
(utils/bazel/llvm-project-overlay/mlir/python/BUILD.bazel) names it, for the
LLVM 22.1.8 sources //bazel:llvm_sources.bzl fetches: the tablegen targets of
the dialects' Python files ("...PyGen", one genrule running
@llvm-project//mlir:mlir-tblgen for each output) and the filegroups of the
package's files ("...PyFiles"). //bazel:prebuilt_llvm.bzl writes the BUILD.

Where the stored overlay (a newer main revision) and 22.1.8's CMake differ,
22.1.8's CMake wins: affine has enum bindings, the SMT transform extension is
transform_smt_extension, there is no dialects/ext.py.
"""

_OPS = "-gen-python-op-bindings"
_ENUMS = "-gen-python-enum-bindings"

def _d(dialect, ext = None):
    flags = ["-bind-dialect=" + dialect]
    if ext:
        flags.append("-dialect-extension=" + ext)
    return flags

# name: (td file below mlir/python, {output below mlir/python: flags}).
PY_GEN = {
    "AffineOpsPyGen": ("mlir/dialects/AffineOps.td", {
        "mlir/dialects/_affine_enum_gen.py": [_ENUMS] + _d("affine"),
        "mlir/dialects/_affine_ops_gen.py": [_OPS] + _d("affine"),
    }),
    "AMDGPUOpsPyGen": ("mlir/dialects/AMDGPUOps.td", {
        "mlir/dialects/_amdgpu_enum_gen.py": [_ENUMS] + _d("amdgpu"),
        "mlir/dialects/_amdgpu_ops_gen.py": [_OPS] + _d("amdgpu"),
    }),
    "ArithOpsPyGen": ("mlir/dialects/ArithOps.td", {
        "mlir/dialects/_arith_enum_gen.py": [_ENUMS] + _d("arith"),
        "mlir/dialects/_arith_ops_gen.py": [_OPS] + _d("arith"),
    }),
    "AsyncOpsPyGen": ("mlir/dialects/AsyncOps.td", {"mlir/dialects/_async_ops_gen.py": [_OPS] + _d("async")}),
    "BufferizationEnumPyGen": ("mlir/dialects/BufferizationEnums.td", {"mlir/dialects/_bufferization_enum_gen.py": [_ENUMS] + _d("bufferization")}),
    "BufferizationOpsPyGen": ("mlir/dialects/BufferizationOps.td", {"mlir/dialects/_bufferization_ops_gen.py": [_OPS] + _d("bufferization")}),
    "BuiltinOpsPyGen": ("mlir/dialects/BuiltinOps.td", {"mlir/dialects/_builtin_ops_gen.py": [_OPS] + _d("builtin")}),
    "ComplexOpsPyGen": ("mlir/dialects/ComplexOps.td", {"mlir/dialects/_complex_ops_gen.py": [_OPS] + _d("complex")}),
    "ControlFlowOpsPyGen": ("mlir/dialects/ControlFlowOps.td", {"mlir/dialects/_cf_ops_gen.py": [_OPS] + _d("cf")}),
    "EmitCPyGen": ("mlir/dialects/EmitC.td", {"mlir/dialects/_emitc_ops_gen.py": [_OPS] + _d("emitc")}),
    "FuncPyGen": ("mlir/dialects/FuncOps.td", {"mlir/dialects/_func_ops_gen.py": [_OPS] + _d("func")}),
    "GPUOpsPyGen": ("mlir/dialects/GPUOps.td", {
        "mlir/dialects/_gpu_enum_gen.py": [_ENUMS] + _d("gpu"),
        "mlir/dialects/_gpu_ops_gen.py": [_OPS] + _d("gpu"),
    }),
    "IndexOpsPyGen": ("mlir/dialects/IndexOps.td", {
        "mlir/dialects/_index_enum_gen.py": [_ENUMS] + _d("index"),
        "mlir/dialects/_index_ops_gen.py": [_OPS] + _d("index"),
    }),
    "IRDLOpsPyGen": ("mlir/dialects/IRDLOps.td", {
        "mlir/dialects/_irdl_enum_gen.py": [_ENUMS] + _d("irdl"),
        "mlir/dialects/_irdl_ops_gen.py": [_OPS] + _d("irdl"),
    }),
    "LinalgOpsPyGen": ("mlir/dialects/LinalgOps.td", {
        "mlir/dialects/_linalg_enum_gen.py": [_ENUMS] + _d("linalg"),
        "mlir/dialects/_linalg_ops_gen.py": [_OPS] + _d("linalg"),
    }),
    "LLVMOpsPyGen": ("mlir/dialects/LLVMOps.td", {
        "mlir/dialects/_llvm_enum_gen.py": [_ENUMS] + _d("llvm"),
        "mlir/dialects/_llvm_ops_gen.py": [_OPS] + _d("llvm"),
    }),
    "MathOpsPyGen": ("mlir/dialects/MathOps.td", {"mlir/dialects/_math_ops_gen.py": [_OPS] + _d("math")}),
    "MemRefOpsPyGen": ("mlir/dialects/MemRefOps.td", {"mlir/dialects/_memref_ops_gen.py": [_OPS] + _d("memref")}),
    "MLProgramOpsPyGen": ("mlir/dialects/MLProgramOps.td", {"mlir/dialects/_ml_program_ops_gen.py": [_OPS] + _d("ml_program")}),
    "NVGPUOpsPyGen": ("mlir/dialects/NVGPUOps.td", {
        "mlir/dialects/_nvgpu_enum_gen.py": [_ENUMS] + _d("nvgpu"),
        "mlir/dialects/_nvgpu_ops_gen.py": [_OPS] + _d("nvgpu"),
    }),
    "NVVMOpsPyGen": ("mlir/dialects/NVVMOps.td", {
        "mlir/dialects/_nvvm_enum_gen.py": [_ENUMS] + _d("nvvm"),
        "mlir/dialects/_nvvm_ops_gen.py": [_OPS] + _d("nvvm"),
    }),
    "OpenACCOpsPyGen": ("mlir/dialects/OpenACCOps.td", {"mlir/dialects/_acc_ops_gen.py": [_OPS] + _d("acc")}),
    "OpenMPOpsPyGen": ("mlir/dialects/OpenMPOps.td", {"mlir/dialects/_omp_ops_gen.py": [_OPS] + _d("omp")}),
    "PDLPyGen": ("mlir/dialects/PDLOps.td", {"mlir/dialects/_pdl_ops_gen.py": [_OPS] + _d("pdl")}),
    "ROCDLOpsPyGen": ("mlir/dialects/ROCDLOps.td", {"mlir/dialects/_rocdl_ops_gen.py": [_OPS] + _d("rocdl")}),
    "SCFPyGen": ("mlir/dialects/SCFOps.td", {"mlir/dialects/_scf_ops_gen.py": [_OPS] + _d("scf")}),
    "ShapeOpsPyGen": ("mlir/dialects/ShapeOps.td", {"mlir/dialects/_shape_ops_gen.py": [_OPS] + _d("shape")}),
    "ShardOpsPyGen": ("mlir/dialects/ShardOps.td", {
        "mlir/dialects/_shard_enum_gen.py": [_ENUMS] + _d("shard"),
        "mlir/dialects/_shard_ops_gen.py": [_OPS] + _d("shard"),
    }),
    "SMTOpsPyGen": ("mlir/dialects/SMTOps.td", {
        "mlir/dialects/_smt_enum_gen.py": [_ENUMS] + _d("smt"),
        "mlir/dialects/_smt_ops_gen.py": [_OPS] + _d("smt"),
    }),
    "SparseTensorEnumPyGen": ("mlir/dialects/SparseTensorAttrDefs.td", {"mlir/dialects/_sparse_tensor_enum_gen.py": [_ENUMS] + _d("sparse_tensor")}),
    "SparseTensorOpsPyGen": ("mlir/dialects/SparseTensorOps.td", {"mlir/dialects/_sparse_tensor_ops_gen.py": [_OPS] + _d("sparse_tensor")}),
    "SPIRVOpsPyGen": ("mlir/dialects/SPIRVOps.td", {"mlir/dialects/_spirv_ops_gen.py": [_OPS] + _d("spirv")}),
    "TensorOpsPyGen": ("mlir/dialects/TensorOps.td", {"mlir/dialects/_tensor_ops_gen.py": [_OPS] + _d("tensor")}),
    "TosaOpsPyGen": ("mlir/dialects/TosaOps.td", {"mlir/dialects/_tosa_ops_gen.py": [_OPS] + _d("tosa")}),
    "UbOpsPyGen": ("mlir/dialects/UBOps.td", {"mlir/dialects/_ub_ops_gen.py": [_OPS] + _d("ub")}),
    "VectorOpsPyGen": ("mlir/dialects/VectorOps.td", {"mlir/dialects/_vector_ops_gen.py": [_OPS] + _d("vector")}),
    "VectorAttributesPyGen": ("mlir/dialects/VectorAttributes.td", {"mlir/dialects/_vector_enum_gen.py": [_ENUMS] + _d("vector")}),
    # The transform dialect and its extensions.
    "TransformEnumPyGen": ("mlir/dialects/TransformAttrs.td", {"mlir/dialects/_transform_enum_gen.py": [_ENUMS] + _d("transform")}),
    "TransformOpsPyGen": ("mlir/dialects/TransformOps.td", {"mlir/dialects/_transform_ops_gen.py": [_OPS] + _d("transform")}),
    "BufferizationTransformOpsPyGen": ("mlir/dialects/BufferizationTransformOps.td", {"mlir/dialects/_bufferization_transform_ops_gen.py": [_OPS] + _d("transform", "bufferization_transform")}),
    "DebugTransformOpsPyGen": ("mlir/dialects/TransformDebugExtensionOps.td", {"mlir/dialects/_transform_debug_extension_ops_gen.py": [_OPS] + _d("transform", "transform_debug_extension")}),
    "GPUTransformOpsPyGen": ("mlir/dialects/GPUTransformOps.td", {"mlir/dialects/_gpu_transform_ops_gen.py": [_OPS] + _d("transform", "gpu_transform")}),
    "LoopTransformOpsPyGen": ("mlir/dialects/SCFLoopTransformOps.td", {"mlir/dialects/_loop_transform_ops_gen.py": [_OPS] + _d("transform", "loop_transform")}),
    "MemRefTransformOpsPyGen": ("mlir/dialects/MemRefTransformOps.td", {"mlir/dialects/_memref_transform_ops_gen.py": [_OPS] + _d("transform", "memref_transform")}),
    "NVGPUTransformOpsPyGen": ("mlir/dialects/NVGPUTransformOps.td", {"mlir/dialects/_nvgpu_transform_ops_gen.py": [_OPS] + _d("transform", "nvgpu_transform")}),
    "PDLTransformOpsPyGen": ("mlir/dialects/TransformPDLExtensionOps.td", {"mlir/dialects/_transform_pdl_extension_ops_gen.py": [_OPS] + _d("transform", "transform_pdl_extension")}),
    "SparseTensorTransformOpsPyGen": ("mlir/dialects/SparseTensorTransformOps.td", {"mlir/dialects/_sparse_tensor_transform_ops_gen.py": [_OPS] + _d("transform", "sparse_tensor_transform")}),
    "StructureTransformEnumPyGen": ("mlir/dialects/LinalgStructuredTransformEnums.td", {"mlir/dialects/_structured_transform_enum_gen.py": [_ENUMS] + _d("transform")}),
    "StructuredTransformOpsPyGen": ("mlir/dialects/LinalgStructuredTransformOps.td", {"mlir/dialects/_structured_transform_ops_gen.py": [_OPS] + _d("transform", "structured_transform")}),
    "TensorTransformOpsPyGen": ("mlir/dialects/TensorTransformOps.td", {"mlir/dialects/_tensor_transform_ops_gen.py": [_OPS] + _d("transform", "tensor_transform")}),
    "TransformSMTExtensionOpsPyGen": ("mlir/dialects/TransformSMTExtensionOps.td", {"mlir/dialects/_transform_smt_extension_ops_gen.py": [_OPS] + _d("transform", "transform_smt_extension")}),
    "TuneTransformOpsPyGen": ("mlir/dialects/TransformTuneExtensionOps.td", {"mlir/dialects/_transform_tune_extension_ops_gen.py": [_OPS] + _d("transform", "transform_tune_extension")}),
    "VectorTransformEnumPyGen": ("mlir/dialects/VectorTransformsBase.td", {"mlir/dialects/_vector_transform_enum_gen.py": [_ENUMS] + _d("transform")}),
    "VectorTransformOpsPyGen": ("mlir/dialects/VectorTransformOps.td", {"mlir/dialects/_vector_transform_ops_gen.py": [_OPS] + _d("transform", "vector_transform")}),
    # Upstream's test-only dialect (mlir/test/python), for the tests.
    "PythonTestPyGen": ("//mlir/test/python:python_test_ops.td", {"mlir/dialects/_python_test_ops_gen.py": [_OPS] + _d("python_test")}),
    "XeGPUTransformOpsPyGen": ("mlir/dialects/XeGPUTransformOps.td", {"mlir/dialects/_xegpu_transform_ops_gen.py": [_OPS] + _d("transform", "xegpu_transform")}),
}

def _dir(path):
    return 'glob(["%s/*.py"])' % path

# name: its files, as labels or (a string starting with "glob(") a glob.
PY_FILES = {
    "DialectCorePyFiles": ["mlir/dialects/_ods_common.py"],
    "ExecutionEnginePyFiles": ["mlir/execution_engine.py"],
    "ExecutionEnginePyIFiles": ["mlir/_mlir_libs/_mlirExecutionEngine.pyi"],
    "IRPyFiles": ["mlir/ir.py"],
    "ExtrasPyFiles": _dir("mlir/extras"),
    "MlirLibsPyFiles": ["mlir/_mlir_libs/__init__.py"],
    "PassManagerPyFiles": ["mlir/passmanager.py"],
    "RewritePyFiles": ["mlir/rewrite.py"],
    "RuntimePyFiles": _dir("mlir/runtime"),
    "AffineOpsPyFiles": ["mlir/dialects/affine.py", ":AffineOpsPyGen"],
    "AMDGPUOpsPyFiles": ["mlir/dialects/amdgpu.py", ":AMDGPUOpsPyGen"],
    "ArithOpsPyFiles": ["mlir/dialects/arith.py", ":ArithOpsPyGen"],
    "AsyncOpsPyFiles": [":AsyncOpsPyGen"],
    "AsyncOpsPackagePyFiles": _dir("mlir/dialects/async_dialect"),
    "AsyncOpsPackagePassesPyFiles": _dir("mlir/dialects/async_dialect/passes"),
    "BufferizationOpsPyFiles": ["mlir/dialects/bufferization.py", ":BufferizationEnumPyGen", ":BufferizationOpsPyGen"],
    "BuiltinOpsPyFiles": ["mlir/dialects/builtin.py", ":BuiltinOpsPyGen"],
    "ComplexOpsPyFiles": ["mlir/dialects/complex.py", ":ComplexOpsPyGen"],
    "ControlFlowOpsPyFiles": ["mlir/dialects/cf.py", ":ControlFlowOpsPyGen"],
    "DebugPyFiles": ["mlir/dialects/transform/debug.py", ":DebugTransformOpsPyGen"],
    "EmitCPyFiles": ["mlir/dialects/emitc.py", ":EmitCPyGen"],
    "FuncPyFiles": ["mlir/dialects/func.py", ":FuncPyGen"],
    "GPUOpsPyFiles": [":GPUOpsPyGen"],
    "GPUOpsPackagePyFiles": _dir("mlir/dialects/gpu"),
    "GPUOpsPackagePassesPyFiles": _dir("mlir/dialects/gpu/passes"),
    "IndexOpsPyFiles": ["mlir/dialects/index.py", ":IndexOpsPyGen"],
    "IRDLPyFiles": ["mlir/dialects/irdl.py", ":IRDLOpsPyGen"],
    "LinalgOpsPyFiles": [":LinalgOpsPyGen"],
    "LinalgOpsPackagePyFiles": _dir("mlir/dialects/linalg"),
    "LinalgOpsPackageOpDSLPyFiles": _dir("mlir/dialects/linalg/opdsl"),
    "LinalgOpsPackageOpDSLLangPyFiles": _dir("mlir/dialects/linalg/opdsl/lang"),
    "LinalgOpsPackageOpDSLOpsPyFiles": _dir("mlir/dialects/linalg/opdsl/ops"),
    "LinalgOpsPackagePassesPyFiles": _dir("mlir/dialects/linalg/passes"),
    "LLVMOpsPyFiles": ["mlir/dialects/llvm.py", ":LLVMOpsPyGen"],
    "MathOpsPyFiles": ["mlir/dialects/math.py", ":MathOpsPyGen"],
    "MemRefOpsPyFiles": ["mlir/dialects/memref.py", ":MemRefOpsPyGen"],
    "MLProgramOpsPyFiles": ["mlir/dialects/ml_program.py", ":MLProgramOpsPyGen"],
    "NVGPUOpsPyFiles": ["mlir/dialects/nvgpu.py", ":NVGPUOpsPyGen"],
    "NVVMOpsPyFiles": ["mlir/dialects/nvvm.py", ":NVVMOpsPyGen"],
    "OpenACCOpsPyFiles": ["mlir/dialects/openacc.py", ":OpenACCOpsPyGen"],
    "OpenMPOpsPyFiles": ["mlir/dialects/openmp.py", ":OpenMPOpsPyGen"],
    "PDLPyFiles": ["mlir/dialects/pdl.py", ":PDLPyGen"],
    "PDLPyIFiles": ["mlir/_mlir_libs/_mlir/dialects/pdl.pyi"],
    "PythonTestPyFiles": ["mlir/dialects/python_test.py", ":PythonTestPyGen"],
    "QuantPyFiles": ["mlir/dialects/quant.py"],
    "QuantPyIFiles": ["mlir/_mlir_libs/_mlir/dialects/quant.pyi"],
    "ROCDLOpsPyFiles": ["mlir/dialects/rocdl.py", ":ROCDLOpsPyGen"],
    "SCFPyFiles": ["mlir/dialects/scf.py", ":SCFPyGen"],
    "ShapeOpsPyFiles": ["mlir/dialects/shape.py", ":ShapeOpsPyGen"],
    "ShardOpsPyFiles": ["mlir/dialects/shard.py", ":ShardOpsPyGen"],
    "SMTOpsPyFiles": ["mlir/dialects/smt.py", ":SMTOpsPyGen"],
    "SparseTensorOpsPyFiles": ["mlir/dialects/sparse_tensor.py", ":SparseTensorEnumPyGen", ":SparseTensorOpsPyGen"],
    "SPIRVOpsPyFiles": ["mlir/dialects/spirv.py", ":SPIRVOpsPyGen"],
    "TensorOpsPyFiles": ["mlir/dialects/tensor.py", ":TensorOpsPyGen"],
    "TosaOpsPyFiles": ["mlir/dialects/tosa.py", ":TosaOpsPyGen"],
    "TunePyFiles": ["mlir/dialects/transform/tune.py", ":TuneTransformOpsPyGen"],
    "UbPyFiles": ["mlir/dialects/ub.py", ":UbOpsPyGen"],
    "VectorOpsPyFiles": ["mlir/dialects/vector.py", ":VectorAttributesPyGen", ":VectorOpsPyGen"],
    "TransformOpsPyFiles": [
        ":BufferizationTransformOpsPyGen",
        ":GPUTransformOpsPyGen",
        ":LoopTransformOpsPyGen",
        ":MemRefTransformOpsPyGen",
        ":NVGPUTransformOpsPyGen",
        ":PDLTransformOpsPyGen",
        ":SparseTensorTransformOpsPyGen",
        ":StructureTransformEnumPyGen",
        ":StructuredTransformOpsPyGen",
        ":TensorTransformOpsPyGen",
        ":TransformEnumPyGen",
        ":TransformOpsPyGen",
        ":TransformSMTExtensionOpsPyGen",
        ":VectorTransformEnumPyGen",
        ":VectorTransformOpsPyGen",
        ":XeGPUTransformOpsPyGen",
    ],
    "TransformOpsPackagePyFiles": _dir("mlir/dialects/transform"),
    "TransformExtrasPackagePyFiles": _dir("mlir/dialects/transform/extras"),
    "TransformInterpreterPackagePyFiles": _dir("mlir/dialects/transform/interpreter"),
}
