// irax's tuning spec for IREE 3.13's llvm-cpu backend on x86-64 with AVX2 and FMA (no
// AVX-512): float32 matrix products of at least 48 rows and 64 columns compute 6x16 tiles
// of the result in registers (12 accumulators of 8 lanes, two loads and six broadcasts
// per step of the reduction) instead of IREE's 8x8 (8 accumulators: too few to hide the
// FMA's latency). runtime/compiler.py passes it with --iree-codegen-tuning-spec-path;
// docs/performance.md ("Matrix products in 6x16 tiles") has the measurements.
//
// It covers `linalg.matmul` with a row-major right operand, its left operand either way
// (A @ B and A.T @ B). A @ B.T keeps IREE's own tiles: 4x8 tiles of 8-lane partial sums
// made it 14 % faster alone but the MLP training step 7 % slower, and transposing B in a
// dispatch of its own first (then a plain product) slowed the step by 7 % too.
module @irax_avx2_matmul attributes {transform.with_named_sequence,
                                     iree_codegen.tuning_spec_with_default_entrypoint} {
  transform.named_sequence @annotate(%op: !transform.any_op {transform.readonly},
                                     %info: !transform.any_param {transform.readonly}) {
    transform.annotate %op "compilation_info" = %info : !transform.any_op, !transform.any_param
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

  transform.named_sequence @tiles_6x16() -> !transform.any_param {
    %info = transform.param.constant #iree_codegen.compilation_info<
        lowering_config = #iree_cpu.lowering_config<
            distribution = [64, 64, 0], cache_parallel = [64, 64, 0],
            vector_common_parallel = [6, 16, 0], vector_reduction = [0, 0, 1]>,
        translation_info = #iree_codegen.translation_info<
            pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, {enable_loop_peeling}>>
        -> !transform.any_param
    transform.yield %info : !transform.any_param
  }

  // A @ B
  transform.named_sequence @match_ab(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
    ^bb0(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>):
      %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                         outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.include @large failures(propagate) (%op) : (!transform.any_op) -> ()
    %info = transform.include @tiles_6x16 failures(propagate) () : () -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }

  // A.T @ B
  transform.named_sequence @match_atb(%op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.any_param) {
    transform.iree.match.has_no_lowering_config %op : !transform.any_op
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %op {
    ^bb0(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>):
      %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                          affine_map<(d0, d1, d2) -> (d2, d1)>,
                                          affine_map<(d0, d1, d2) -> (d0, d1)>]
             ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
             outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.include @large failures(propagate) (%op) : (!transform.any_op) -> ()
    %info = transform.include @tiles_6x16 failures(propagate) () : () -> !transform.any_param
    transform.yield %op, %info : !transform.any_op, !transform.any_param
  }

  transform.named_sequence @__kernel_config(%variant: !transform.any_op {transform.consumed})
      -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %res = transform.foreach_match in %variant
        @match_ab -> @annotate, @match_atb -> @annotate
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
