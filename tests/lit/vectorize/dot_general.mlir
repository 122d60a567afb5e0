// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// dot_general: the mapped axis is pushed into the one contraction, never a loop over
// examples. Both operands batched: one more batch dimension pair (prepended, so the result
// is batched at 0); one operand batched: its batch dim is one more free dim.

// A batch of matrix-vector products is one dot_general with batch dimensions.
// CHECK-LABEL: func.func @main_matvec
// CHECK: "irax.call"(%arg0, %arg1) {callee = @mv_vmap}
// CHECK-LABEL: func.func private @mv_vmap
// CHECK-SAME: (%[[M:.*]]: tensor<8x3x4xf32>, %[[V:.*]]: tensor<8x4xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[D:.*]] = "irax.dot_general"(%[[M]], %[[V]]) {lhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<8x3x4xf32>, tensor<8x4xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: return %[[D]]
func.func @main_matvec(%m: tensor<8x3x4xf32>, %v: tensor<8x4xf32>) -> tensor<8x3xf32> {
  %r = "irax.vmap"(%m, %v) {callee = @mv, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, axis_size = 8 : i64} : (tensor<8x3x4xf32>, tensor<8x4xf32>) -> tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}
func.func private @mv(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "irax.dot_general"(%m, %v) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// One matrix times a batch of vectors (mapped along their last axis) is one matrix
// product: the batch dim is a free dim of the rhs, last in the result (out_axes = 1).
// CHECK-LABEL: func.func private @mv_vmap
// CHECK-SAME: (%[[M:.*]]: tensor<3x4xf32>, %[[VS:.*]]: tensor<4x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: %[[D:.*]] = "irax.dot_general"(%[[M]], %[[VS]]) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: return %[[D]]
func.func @main_vectors(%m: tensor<3x4xf32>, %vs: tensor<4x8xf32>) -> tensor<3x8xf32> {
  %r = "irax.vmap"(%m, %vs) {callee = @mv, in_axes = array<i64: -1, 1>, out_axes = array<i64: 1>, axis_size = 8 : i64} : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}
func.func private @mv(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "irax.dot_general"(%m, %v) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A batch of matrices (mapped along axis 1) times one vector: the batch dim is a free dim
// of the lhs, after its rows in the result; out_axes = 0 moves it first.
// CHECK-LABEL: func.func private @mv_vmap
// CHECK-SAME: (%[[MS:.*]]: tensor<3x8x4xf32>, %[[V:.*]]: tensor<4xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[D:.*]] = "irax.dot_general"(%[[MS]], %[[V]]) {lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x8x4xf32>, tensor<4xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%[[D]]) {permutation = array<i64: 1, 0>}
// CHECK-NEXT: return %[[T]]
func.func @main_matrices(%ms: tensor<3x8x4xf32>, %v: tensor<4xf32>) -> tensor<8x3xf32> {
  %r = "irax.vmap"(%ms, %v) {callee = @mv, in_axes = array<i64: 1, -1>, out_axes = array<i64: 0>, axis_size = 8 : i64} : (tensor<3x8x4xf32>, tensor<4xf32>) -> tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}
func.func private @mv(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "irax.dot_general"(%m, %v) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Batched matrix products, batched again (lhs along its last axis): the new pair is
// prepended to the existing batch dimensions, the other dims renumbered around it; no
// operand is transposed.
// CHECK-LABEL: func.func private @bmm_vmap
// CHECK-SAME: (%[[A:.*]]: tensor<5x2x3x7xf32>, %[[B:.*]]: tensor<7x5x3x4xf32>) -> tensor<7x5x2x4xf32>
// CHECK-NEXT: %[[D:.*]] = "irax.dot_general"(%[[A]], %[[B]]) {lhs_batch_dimensions = array<i64: 3, 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64: 0, 1>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<5x2x3x7xf32>, tensor<7x5x3x4xf32>) -> tensor<7x5x2x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @main_bmm(%a: tensor<5x2x3x7xf32>, %b: tensor<7x5x3x4xf32>) -> tensor<7x5x2x4xf32> {
  %r = "irax.vmap"(%a, %b) {callee = @bmm, in_axes = array<i64: 3, 0>, out_axes = array<i64: 0>, axis_size = 7 : i64} : (tensor<5x2x3x7xf32>, tensor<7x5x3x4xf32>) -> tensor<7x5x2x4xf32>
  return %r : tensor<7x5x2x4xf32>
}
func.func private @bmm(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = "irax.dot_general"(%a, %b) {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Nested vmap: the inner irax.vmap is expanded first; the outer one batches the resulting
// irax.call as a call of the inner function's own vectorized version. Two batch dims, one
// dot_general.
// CHECK-LABEL: func.func @main_nested
// CHECK: "irax.call"(%arg0, %arg1) {callee = @inner_vmap}
// CHECK-LABEL: func.func private @mv_vmap(
// CHECK-LABEL: func.func private @inner_vmap(
// CHECK-NEXT: "irax.call"(%arg0, %arg1) {callee = @mv_vmap_vmap}
// CHECK-LABEL: func.func private @mv_vmap_vmap
// CHECK-SAME: (%[[M:.*]]: tensor<2x6x3x4xf32>, %[[V:.*]]: tensor<2x6x4xf32>) -> tensor<2x6x3xf32>
// CHECK-NEXT: %[[D:.*]] = "irax.dot_general"(%[[M]], %[[V]]) {lhs_batch_dimensions = array<i64: 0, 1>, lhs_contracting_dimensions = array<i64: 3>, rhs_batch_dimensions = array<i64: 0, 1>, rhs_contracting_dimensions = array<i64: 2>}
// CHECK-NEXT: return %[[D]]
func.func @main_nested(%m: tensor<2x6x3x4xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x6x3xf32> {
  %r = "irax.vmap"(%m, %v) {callee = @inner, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2x6x3x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x3xf32>
  return %r : tensor<2x6x3xf32>
}
func.func private @inner(%m: tensor<6x3x4xf32>, %v: tensor<6x4xf32>) -> tensor<6x3xf32> {
  %r = "irax.vmap"(%m, %v) {callee = @mv, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, axis_size = 6 : i64} : (tensor<6x3x4xf32>, tensor<6x4xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}
func.func private @mv(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "irax.dot_general"(%m, %v) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
