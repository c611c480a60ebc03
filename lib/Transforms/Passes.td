//===- Passes.td - This project's passes ------------------*- tablegen -*-===//
//
// Every MLIR pass of the project: mlir-tblgen generates their declarations,
// base classes and registration (Passes.h.inc), and their C API
// (mlir-c/JitPasses.capi.h.inc, JitPasses.capi.cpp.inc). One pass a file.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_EXECUTION_ENGINE_TRANSFORMS_PASSES
#define MLIR_EXECUTION_ENGINE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"jit-approximate-math"> {
  let summary = "Replace math ops on f32, f16 and bf16 by polynomial approximations that vectorize";
}

def ConvolutionsAsMatmuls : Pass<"jit-convolutions-as-matmuls"> {
  let summary = "Compute each linalg.conv_2d_nhwc_hwcf on tensors as a linalg.matmul of its input's windows (im2col) and its filter, in blocks of rows in an scf.forall";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def DecomposeAggregates : Pass<"jit-decompose-aggregates"> {
  let summary = "Decompose aggregate linalg ops (linalg.softmax) on tensors into the simpler linalg ops they stand for";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ExpandArith : Pass<"jit-expand-arith"> {
  let summary = "Expand the arith ops convert-arith-to-llvm does not lower (integer ceil/floor division, scaling casts) or lowers inexactly (bf16 casts, 16-bit float min/max), leaving float min/max to LLVM";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def HoistAllocas : Pass<"jit-hoist-allocas"> {
  let summary = "Move the static memref.allocas of loops out of them, and free the others at the end of each iteration";
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

def ParallelFusion : Pass<"jit-parallel-fusion"> {
  let summary = "Compute chains of linalg ops on tensors in parallel tiles of their last op's first loop, their producers fused in";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ParallelIf : Pass<"jit-parallel-if"> {
  let summary = "Run an omp.parallel's loop on the calling thread alone when it has fewer than two iterations, or runs fewer ops than a fork costs";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

def ParallelReductions : Pass<"jit-parallel-reductions"> {
  let summary = "Split whole reductions of linalg.generic on tensors whose combiner allows any order into chunks reduced in parallel";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def RegisterAccumulators : Pass<"jit-register-accumulators"> {
  let summary = "Keep an scf.for's accumulator, an element of an allocation it loads and stores, in an iteration argument";
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

def SequentialLoops : Pass<"jit-sequential-loops"> {
  let summary = "Rewrite the scf.parallel loops that call, reduce or are nested in another as scf.for loops, and the innermost dimension of the others that have straight-line bodies";
}

def UnbatchMatmuls : Pass<"jit-unbatch-matmuls"> {
  let summary = "Compute each batch of a linalg.batch_matmul on tensors as a linalg.matmul, the batches in an scf.forall";
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def UncloneReturnedArguments : Pass<"jit-unclone-returned-arguments", "::mlir::ModuleOp"> {
  let summary = "Return arguments (or views of them) that buffer deallocation cloned, so that results alias them";
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // MLIR_EXECUTION_ENGINE_TRANSFORMS_PASSES
