// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13's gather does not clamp its start indices (StableHLO's does): the clamp is
// explicit, to the last start whose window fits.
// CHECK-LABEL: func.func @gather_rows
// CHECK-DAG: %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-DAG: %[[HI:.*]] = stablehlo.constant dense<4> : tensor<i32>
// CHECK: %[[IDX:.*]] = stablehlo.clamp %[[LO]], %arg1, %[[HI]]
// CHECK: "stablehlo.gather"(%arg0, %[[IDX]])
// CHECK-SAME: #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
// CHECK-SAME: (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
func.func @gather_rows(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = "irax.gather"(%x, %i) {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, slice_sizes = array<i64: 1, 3>, index_vector_dim = 1 : i64} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Different bounds per index-vector entry are broadcast along index_vector_dim.
// CHECK-LABEL: func.func @gather_points
// CHECK: %[[B:.*]] = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
// CHECK: %[[HI:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<2xi32>) -> tensor<3x2xi32>
// CHECK: %[[IDX:.*]] = stablehlo.clamp %{{.*}}, %arg1, %[[HI]]
// CHECK: "stablehlo.gather"(%arg0, %[[IDX]])
func.func @gather_points(%x: tensor<4x5xf32>, %i: tensor<3x2xi32>) -> tensor<3xf32> {
  %0 = "irax.gather"(%x, %i) {offset_dims = array<i64>, collapsed_slice_dims = array<i64: 0, 1>, start_index_map = array<i64: 0, 1>, slice_sizes = array<i64: 1, 1>, index_vector_dim = 1 : i64} : (tensor<4x5xf32>, tensor<3x2xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// IREE 3.13 crashes compiling a gather whose index vector dim precedes a batching dim of
// the indices: the index vector moves last (a transpose), the batching dims shift down.
// CHECK-LABEL: func.func @index_vector_first
// CHECK: %[[T:.*]] = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<1x3xi32>) -> tensor<3x1xi32>
// CHECK: %[[C:.*]] = stablehlo.clamp %{{.*}}, %[[T]], %{{.*}}
// CHECK: "stablehlo.gather"(%arg0, %[[C]])
// CHECK-SAME: #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>
func.func @index_vector_first(%x: tensor<3x5xf32>, %i: tensor<1x3xi32>) -> tensor<3xf32> {
  %0 = "irax.gather"(%x, %i) {offset_dims = array<i64>, collapsed_slice_dims = array<i64: 1>, start_index_map = array<i64: 1>, operand_batching_dims = array<i64: 0>, start_indices_batching_dims = array<i64: 1>, slice_sizes = array<i64: 1, 1>, index_vector_dim = 0 : i64} : (tensor<3x5xf32>, tensor<1x3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
