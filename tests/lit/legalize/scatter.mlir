// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 lowers one form of scatter in every case: batching dims become inserted dims
// indexed by an iota of the batch position, appended to the index vector.
// CHECK-LABEL: func.func @batched
// CHECK: %[[C:.*]] = stablehlo.clamp %{{.*}}, %arg1, %{{.*}} : (tensor<i32>, tensor<3x2x1xi32>, tensor<i32>) -> tensor<3x2x1xi32>
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<3x2x1xi32>
// CHECK: %[[IDX:.*]] = stablehlo.concatenate %[[C]], %[[IOTA]], dim = 2 : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x2xi32>
// CHECK: "stablehlo.scatter"(%arg0, %[[IDX]], %{{.*}})
// CHECK-SAME: #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>
// CHECK: stablehlo.add
func.func @batched(%x: tensor<3x5xf32>, %i: tensor<3x2x1xi32>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = "irax.scatter_add"(%x, %i, %u) {update_window_dims = array<i64>, inserted_window_dims = array<i64: 1>, scatter_dims_to_operand_dims = array<i64: 1>, input_batching_dims = array<i64: 0>, scatter_indices_batching_dims = array<i64: 0>, index_vector_dim = 2 : i64} : (tensor<3x5xf32>, tensor<3x2x1xi32>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// A window of 2 along an indexed dim becomes 2 one-element windows at consecutive starts:
// the index vectors are broadcast over the window and offset by 0 and 1.
// CHECK-LABEL: func.func @spread
// CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 2] : (tensor<3x1xi32>) -> tensor<3x2x1xi32>
// CHECK: %[[OFF:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [1, 2] : (tensor<2x1xi32>) -> tensor<3x2x1xi32>
// CHECK: %[[IDX:.*]] = stablehlo.add %[[B]], %[[OFF]] : tensor<3x2x1xi32>
// CHECK: "stablehlo.scatter"(%arg0, %[[IDX]], %{{.*}})
// CHECK-SAME: #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>
func.func @spread(%x: tensor<6xf32>, %i: tensor<3x1xi32>, %u: tensor<3x2xf32>) -> tensor<6xf32> {
  %0 = "irax.scatter_add"(%x, %i, %u) {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<6xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
