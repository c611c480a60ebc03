// FAST_PIPELINE's schedule (mlir.execution_engine.FAST_PIPELINE), run by
// transform-interpreter before bufferization: for the host's CPU (AVX-512
// or AVX2), each linalg.matmul on tensors is
// - split into panels of 64 columns of C, an scf.forall, which FAST_PIPELINE
//   runs on all cores; a panel is computed 1024 steps of K at a time;
// - for each of them, B's 1024 x 64 piece is copied once into a contiguous
//   buffer padded to 64 columns (packing, whatever B's strides), shared by
//   every 64-row block of the panel; each block copies its 64 x 1024 piece
//   of A the same way, padded to 64 rows (K stays dynamic: padding it slowed
//   small sizes 2-4 times). Packing B once per panel rather than once per
//   block made large sizes 20-30% faster; panels of 128 columns pack A half
//   as often (10% more at 2048) but leave one core idle below 256 columns;
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
      %columns, %panels = transform.structured.tile_using_forall %matmul
        tile_sizes [0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %kBlock, %kLoop = transform.structured.tile_using_for %columns
        tile_sizes [0, 0, 1024]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // Zero padding (the default), whatever the element type. C's panel
      // is padded to 64 columns too, and copied back.
      %panel, %panelPad, %panelCopyBack = transform.structured.pad %kBlock {
        padding_dimensions = [1],
        nofold_flags = [0, 1, 0],
        copy_back_op = "linalg.copy"
      } : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
      %block, %mLoop = transform.structured.tile_using_for %panel
        tile_sizes [64, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %padded, %pad, %copyBack = transform.structured.pad %block {
        padding_dimensions = [0],
        nofold_flags = [1, 0, 0],
        copy_back_op = "linalg.copy"
      } : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
      %tile, %tileLoops:3 = transform.structured.tile_using_for %padded
        tile_sizes [8, 32, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tile {create_named_contraction}
        : !transform.any_op
      transform.apply_patterns to %panels {
        transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %panels : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %tileLoops#2 : !transform.any_op
      transform.apply_patterns to %panels {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %panels : !transform.any_op
      %pads = transform.merge_handles %panelPad, %pad : !transform.any_op
      %padding = transform.structured.rewrite_in_destination_passing_style %pads
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
