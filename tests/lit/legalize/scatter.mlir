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

// -----

// A set (a region returning the update) is legalized like an addition; an out-of-bounds
// start was moved by the lowering into the padding beyond the operand, sliced off after.
// CHECK-LABEL: func.func @set
// CHECK: %[[OK:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x1xi1>, tensor<2x1xi32>
// CHECK: %[[P:.*]] = stablehlo.pad %arg0, %{{.*}}, low = [0], high = [1], interior = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK: %[[S:.*]] = "stablehlo.scatter"(%[[P]], %[[OK]], %arg2)
// CHECK-SAME: #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %[[U:.*]]: tensor<f32>):
// CHECK-NEXT: stablehlo.return %[[U]] : tensor<f32>
// CHECK: stablehlo.slice %[[S]] [0:5] : (tensor<6xf32>) -> tensor<5xf32>
func.func @set(%x: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %0 = "irax.scatter"(%x, %i, %u) {update_window_dims = array<i64>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Without an addition, zero-padding a partial window would change the operand: its dim is
// indexed at 0 instead and spread into one-element windows like an indexed dim.
// CHECK-LABEL: func.func @partial_max
// CHECK: %[[Z:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
// CHECK: %[[IDX:.*]] = stablehlo.concatenate %{{.*}}, %[[Z]], dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
// CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim %[[IDX]], dims = [0, 2] : (tensor<3x2xi32>) -> tensor<3x2x2xi32>
// CHECK: stablehlo.constant dense<{{\[\[}}0, 0], [0, 1]]> : tensor<2x2xi32>
// CHECK: "stablehlo.scatter"
// CHECK-SAME: #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>
// CHECK: stablehlo.maximum
// CHECK-NOT: stablehlo.pad %arg2
func.func @partial_max(%x: tensor<4x6xf32>, %i: tensor<3x1xi32>, %u: tensor<3x2xf32>) -> tensor<4x6xf32> {
  %0 = "irax.scatter_max"(%x, %i, %u) {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<4x6xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
