// FAST_PIPELINE's schedule (mlir.execution_engine.FAST_PIPELINE), run by
// transform-interpreter before bufferization: for the host's CPU (AVX-512
// or AVX2), each linalg.matmul on tensors is
// - tiled for the caches into 64 x 128 x 512 blocks (M x N x K), the
//   64 x 128 blocks of C an scf.forall, which FAST_PIPELINE runs on all cores;
// - padded in M and N to the block's full size: copies of A's, B's and C's
//   pieces in contiguous buffers of static shape, whatever the arguments'
//   strides (K stays dynamic: padding it slowed small sizes 2-4 times);
// - tiled for the registers into 8 x 32 x 1 and vectorized: each k step is
//   outer products, 16 FMAs of 16 f32 lanes on AVX-512, the accumulators
//   kept in registers across the k loop (hoisted);
// - its padding and copy back written as linalg.fill and linalg.copy, which
//   LLVM vectorizes (as tensor.pad they bufferize to memrefCopy calls: 4
//   times slower).
// Patterns and CSE run only inside the matmul's own loop nest: on the whole
// function they could replace another matmul that foreach_match has yet to
// visit (a use after free in the interpreter).
// Other ops are left to DEFAULT_PIPELINE's lowering: vectorizing
// elementwise ops on arguments of dynamic strides gives scalar gathers,
// slower than the loops LLVM vectorizes itself.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_matmul(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }

  // A linalg.matmul on memrefs cannot be padded (pad wants tensors): its
  // failure, silenceable, stops the sequence and leaves the op tiled for the
  // caches, then lowered to loops (a match on tensor semantics,
  // match.structured.result, crashes on ops without results in LLVM 22).
  transform.named_sequence @schedule_matmul(
      %op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%matmul: !transform.any_op):
      %shard, %blocks = transform.structured.tile_using_forall %matmul
        tile_sizes [64, 128]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %block, %kLoop = transform.structured.tile_using_for %shard
        tile_sizes [0, 0, 512]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // Zero padding (the default), whatever the element type.
      %padded, %pad, %copyBack = transform.structured.pad %block {
        padding_dimensions = [0, 1],
        nofold_flags = [1, 1, 1],
        copy_back_op = "linalg.copy"
      } : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
      %tile, %tileLoops:3 = transform.structured.tile_using_for %padded
        tile_sizes [8, 32, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tile {create_named_contraction}
        : !transform.any_op
      transform.apply_patterns to %blocks {
        transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %blocks : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %tileLoops#2 : !transform.any_op
      transform.apply_patterns to %blocks {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %blocks : !transform.any_op
      %padding = transform.structured.rewrite_in_destination_passing_style %pad
        : (!transform.any_op) -> !transform.any_op
      transform.structured.insert_slice_to_copy %padding
        : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    transform.foreach_match in %root
      @match_matmul -> @schedule_matmul
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
