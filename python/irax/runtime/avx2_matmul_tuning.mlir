// irax's tuning spec for IREE 3.13's llvm-cpu backend on x86-64 with AVX2 and FMA (no
// AVX-512): float32 matrix products of at least 48 rows and 64 columns compute 6x16 tiles
// of the result in registers (12 accumulators of 8 lanes, two loads and six broadcasts
// per step of the reduction) instead of IREE's 8x8 (8 accumulators: too few to hide the
// FMA's latency). Each 64x64 block of the result is computed 64 steps of the reduction at
// a time (cache_reduction): the 64 rows of the right operand a step range reads then stay
// in L1/L2 for all the block's row tiles, even when the rows are a power of two apart (2 KB
// for 512 columns: 16 columns of every row fall into the same two of the L1's 64 sets).
// One thread, 128x512 by 512x512: 0.99 ms without, 0.75 ms with (OpenBLAS: 0.72 ms).
// runtime/compiler.py passes it with --iree-codegen-tuning-spec-path;
// docs/performance.md ("Matrix products in 6x16 tiles") has the measurements. A program's
// products whose rows or columns are no multiple of 64 get blocks that divide them, and
// those whose right operand fits in cache reduce in one go (runtime/avx2_tiles.py inserts
// matchers for their shapes where marked below).
//
// It covers `linalg.matmul` with a row-major right operand, its left operand either way
// (A @ B and A.T @ B), and `linalg.batch_matmul` as A @ B (PV of attention heads, 8x128x128
// by 8x128x64 on one thread: 224 -> 190 us). A @ B.T keeps IREE's own tiles: 4x8 tiles of 8-lane partial sums
// made it 14 % faster alone but the MLP training step 7 % slower, and transposing B in a
// dispatch of its own first (then a plain product) slowed the step by 7 % too.
module @irax_avx2_matmul attributes {transform.with_named_sequence,
                                     iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @annotate(%op: !transform.any_op {transform.readonly},
                                     %info: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %info : !transform.any_op, !transform.any_param
    transform.yield
  }

  // A @ B, not yet configured
  transform.named_sequence @form_ab(%op: !transform.any_op {transform.readonly}) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
    ^bb0(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>):
      %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                         outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield
  }

  // A.T @ B, not yet configured
  transform.named_sequence @form_atb(%op: !transform.any_op {transform.readonly}) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
    ^bb0(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>):
      %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                          affine_map<(d0, d1, d2) -> (d2, d1)>,
                                          affine_map<(d0, d1, d2) -> (d0, d1)>]
             ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
             outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield
  }

  // A @ B for each of a batch (the batch dimension first in all three), not yet configured
  transform.named_sequence @form_batched_ab(%op: !transform.any_op {transform.readonly}) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
    ^bb0(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>):
      %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
                               outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield
  }

  // %op has at least 48 rows and 64 columns (smaller products keep IREE's choice)
  transform.named_sequence @large(%op: !transform.any_op {transform.readonly}) {
    %big = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %m = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %n = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %m_min = transform.param.constant 48 : i64 -> !transform.param<i64>
      %n_min = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %m, %m_min : !transform.param<i64>
      transform.match.param.cmpi ge %n, %n_min : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield
  }

  // a batched %op has at least 48 rows and 64 columns in each product
  transform.named_sequence @large_batched(%op: !transform.any_op {transform.readonly}) {
    %big = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %m = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %n = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %m_min = transform.param.constant 48 : i64 -> !transform.param<i64>
      %n_min = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %m, %m_min : !transform.param<i64>
      transform.match.param.cmpi ge %n, %n_min : !transform.param<i64>
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield
  }

  // one 64x64 block of the result per workgroup, 64 steps of the reduction at a time,
  // 6x16 tiles in registers
  transform.named_sequence @tiles_6x16() -> !transform.any_param {
    %info = transform.param.constant #iree_codegen.compilation_info<
        lowering_config = #iree_cpu.lowering_config<
            distribution = [64, 64, 0], cache_parallel = [64, 64, 0],
            cache_reduction = [0, 0, 64],
            vector_common_parallel = [6, 16, 0], vector_reduction = [0, 0, 1]>,
        translation_info = #iree_codegen.translation_info<
            pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %info : !transform.any_param
  }

  transform.named_sequence @tiles_6x16_batched() -> !transform.any_param {
    %info = transform.param.constant #iree_codegen.compilation_info<
        lowering_config = #iree_cpu.lowering_config<
            distribution = [1, 64, 64, 0], cache_parallel = [1, 64, 64, 0],
            cache_reduction = [0, 0, 0, 64],
            vector_common_parallel = [1, 6, 16, 0], vector_reduction = [0, 0, 0, 1]>,
        translation_info = #iree_codegen.translation_info<
            pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %info : !transform.any_param
  }

  transform.named_sequence @match_ab(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.include @form_ab failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.include @large failures(propagate) (%op) : (!transform.any_op) -> ()
    %info = transform.include @tiles_6x16 failures(propagate) () : () -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_atb(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.include @form_atb failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.include @large failures(propagate) (%op) : (!transform.any_op) -> ()
    %info = transform.include @tiles_6x16 failures(propagate) () : () -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @match_batched_ab(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.include @form_batched_ab failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.include @large_batched failures(propagate) (%op) : (!transform.any_op) -> ()
    %info = transform.include @tiles_6x16_batched failures(propagate) ()
        : () -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }

  // @shapes (a program's own matchers go here)

  transform.named_sequence @__kernel_config(%variant: !transform.any_op {transform.consumed})
      -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %variant
        // @shape matchers (named here, before the generic ones)
        @match_ab -> @annotate, @match_atb -> @annotate,
        @match_batched_ab -> @annotate
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
