// FAST_PIPELINE's schedule (mlir.execution_engine.FAST_PIPELINE), run by
// transform-interpreter before bufferization: for the host's CPU (AVX-512
// or AVX2), each linalg.matmul on tensors is
// - split into panels of 64 columns of C, an scf.forall, which FAST_PIPELINE
//   runs on all cores; a panel is computed 1024 steps of K at a time;
// - for each of them, B's 1024 x 64 piece is copied once into a contiguous
//   buffer padded to 64 columns (packing, whatever B's strides), shared by
//   every block of rows of the panel (K stays dynamic: padding it slowed
//   small sizes 2-4 times). Packing B once per panel rather than once per
//   block made large sizes 20-30% faster;
// - its rows taken 64 at a time, the last block peeled off: the others
//   have static shapes and read A where it is. Only the last block's tiles
//   are padded, to 8 rows, their piece of A copied (A copied for every
//   block cost 15% at 2048; padding the last block to 64 rows cost 513^3
//   an eighth of its time);
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
  // A matmul with a static size of 0 is left to the loops: LLVM 22's
  // tiling crashes on it (computeTileSizes). Dynamic sizes match.
  transform.named_sequence @match_matmul(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%matmul: !transform.any_op):
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      %m = transform.match.structured.dim %matmul[0]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %m, %zero : !transform.param<i64>
      %n = transform.match.structured.dim %matmul[1]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %n, %zero : !transform.param<i64>
      %k = transform.match.structured.dim %matmul[2]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %k, %zero : !transform.param<i64>
      transform.match.structured.yield
    }
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
      // The panel's rows in blocks of 64, the last block (of fewer rows)
      // peeled off, so that the others have static shapes. Peeling fails
      // where the blocks divide the rows statically: nothing to peel then.
      %block, %mLoop = transform.structured.tile_using_for %panel
        tile_sizes [64, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @peel failures(suppress) (%mLoop)
        : (!transform.any_op) -> ()
      transform.apply_patterns to %panels {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %blocks = transform.structured.match ops{["linalg.matmul"]} in %panels
        : (!transform.any_op) -> !transform.any_op
      // Tiles of 8 rows; only those of the last block, cut by the edge, are
      // padded (and A's rows copied), to 8 rows rather than 64.
      %rows, %rowLoop = transform.structured.tile_using_for %blocks
        tile_sizes [8, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %padded, %pad, %copyBack = transform.structured.pad %rows {
        padding_dimensions = [0],
        copy_back_op = "linalg.copy"
      } : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
      %tile, %tileLoops:2 = transform.structured.tile_using_for %padded
        tile_sizes [0, 32, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
      transform.structured.vectorize %tile {create_named_contraction}
        : !transform.any_op
      transform.apply_patterns to %panels {
        transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %panels : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %tileLoops#1 : !transform.any_op
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

  // Peels the last, partial iteration off the scf.for `loop`; fails
  // (silenceably) where there is none to peel.
  transform.named_sequence @peel(%loop: !transform.any_op {transform.consumed}) {
    %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %full, %last = transform.loop.peel %for
      : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // A linalg.matvec, but one with a static size of 0 (as above).
  transform.named_sequence @match_matvec(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matvec"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%matvec: !transform.any_op):
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      %rows = transform.match.structured.dim %matvec[0]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %rows, %zero : !transform.param<i64>
      %columns = transform.match.structured.dim %matvec[1]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %columns, %zero : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // y = A x (linalg.matvec, on tensors or memrefs): blocks of 64 rows on the
  // threads, A streamed once; each block 8 rows at a time, each row's sum
  // kept in order: an 8 x 8 piece of A is read, transposed in registers
  // (shuffles), and its 8 columns added one after the other as FMAs on a
  // vector of the 8 rows' sums. The last rows of a block and the last steps
  // of k (fewer than 8) are peeled off, left to the loops. A's strides are
  // unknown, so each piece is read as 64 scalar loads: copying A's rows
  // into a contiguous buffer first did not pay, the copy being scalar too
  // (and its buffer allocated on the heap for each piece of k).
  // (Each step suppresses its failures: a static size that 8 divides has
  // nothing to peel.)
  transform.named_sequence @schedule_matvec(
      %op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%matvec: !transform.any_op):
      %block, %blocks = transform.structured.tile_using_forall %matvec
        tile_sizes [64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %rows, %rowLoop = transform.structured.tile_using_for %block
        tile_sizes [8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @peel failures(suppress) (%rowLoop)
        : (!transform.any_op) -> ()
      transform.apply_patterns to %blocks {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %rowTiles = transform.structured.match ops{["linalg.matvec"]} in %blocks
        : (!transform.any_op) -> !transform.any_op
      %tiles, %kLoops = transform.structured.tile_using_for %rowTiles
        tile_sizes [0, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.foreach %kLoops : !transform.any_op {
      ^bb1(%kLoop: !transform.any_op):
        transform.include @peel failures(suppress) (%kLoop)
          : (!transform.any_op) -> ()
      }
      transform.apply_patterns to %blocks {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // The full 8 x 8 tiles vectorize; the peeled ones (sizes unknown)
      // fail to, and stay loops.
      %leaves = transform.structured.match ops{["linalg.matvec"]} in %blocks
        : (!transform.any_op) -> !transform.any_op
      transform.foreach %leaves : !transform.any_op {
      ^bb1(%leaf: !transform.any_op):
        transform.sequence %leaf : !transform.any_op failures(suppress) {
        ^bb2(%tile: !transform.any_op):
          transform.structured.vectorize %tile {create_named_contraction}
            : !transform.any_op
        }
      }
      transform.apply_patterns to %blocks {
        transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.vector.lower_outerproduct
        transform.apply_patterns.vector.lower_transpose
          lowering_strategy = "shuffle_1d"
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %blocks : !transform.any_op
    }
    transform.yield
  }

  // A 2-D linalg.transpose (a copy into the transposed layout), but one
  // with a static size of 0 (as above).
  transform.named_sequence @match_transpose(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.transpose"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%transpose: !transform.any_op):
      %rank = transform.match.structured.rank %transpose
        : (!transform.any_op) -> !transform.param<i64>
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %two : !transform.param<i64>
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      %outRows = transform.match.structured.dim %transpose[0]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %outRows, %zero : !transform.param<i64>
      %outColumns = transform.match.structured.dim %transpose[1]
        : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ne %outColumns, %zero : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // A 2-D transpose in blocks of 128 x 128 on the threads: a block's rows of
  // the input and columns of the output stay in the caches while it is
  // copied (row by row over the whole matrix, each write of a column
  // touched a new line).
  transform.named_sequence @schedule_transpose(
      %op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%transpose: !transform.any_op):
      %block, %blocks = transform.structured.tile_using_forall %transpose
        tile_sizes [128, 128]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    transform.foreach_match in %root
      @match_matmul -> @schedule_matmul,
      @match_matvec -> @schedule_matvec,
      @match_transpose -> @schedule_transpose
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
