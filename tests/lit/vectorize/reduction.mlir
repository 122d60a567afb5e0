// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// Reductions: the axes are renumbered around the batch dim, which survives in place.

// CHECK-LABEL: func.func private @total_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3x4xf32>) -> tensor<5xf32>
// CHECK-NEXT: %[[S:.*]] = "irax.reduce_sum"(%[[X]]) {axes = array<i64: 0, 2, 3>} : (tensor<2x5x3x4xf32>) -> tensor<5xf32>
// CHECK-NEXT: return %[[S]]
func.func @main_total(%x: tensor<2x5x3x4xf32>) -> tensor<5xf32> {
  %r = "irax.vmap"(%x) {callee = @total, in_axes = array<i64: 1>, out_axes = array<i64: 0>, axis_size = 5 : i64} : (tensor<2x5x3x4xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
func.func private @total(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = "irax.reduce_sum"(%x) {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The batch dim between reduced axes: the result is batched where the kept dims put it.
// CHECK-LABEL: func.func private @rows_vmap
// CHECK-NEXT: %[[M:.*]] = "irax.reduce_max"(%arg0) {axes = array<i64: 0, 3>} : (tensor<2x3x5x4xi32>) -> tensor<3x5xi32>
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%[[M]]) {permutation = array<i64: 1, 0>}
// CHECK-NEXT: return %[[T]]
func.func @main_rows(%x: tensor<2x3x5x4xi32>) -> tensor<5x3xi32> {
  %r = "irax.vmap"(%x) {callee = @rows, in_axes = array<i64: 2>, out_axes = array<i64: 0>, axis_size = 5 : i64} : (tensor<2x3x5x4xi32>) -> tensor<5x3xi32>
  return %r : tensor<5x3xi32>
}
func.func private @rows(%x: tensor<2x3x4xi32>) -> tensor<3xi32> {
  %0 = "irax.reduce_max"(%x) {axes = array<i64: 0, 2>} : (tensor<2x3x4xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// argmax moves the batch dim first, so that its result needs no transpose (which IREE
// fails to compile after this two-result reduce).
// CHECK-LABEL: func.func private @best_vmap
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%arg0) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>
// CHECK-NEXT: %[[A:.*]] = "irax.argmax"(%[[T]]) {axis = 2 : i64, index_dtype = i32} : (tensor<5x2x3xf32>) -> tensor<5x2xi32>
// CHECK-NEXT: return %[[A]]
func.func @main_best(%x: tensor<2x3x5xf32>) -> tensor<5x2xi32> {
  %r = "irax.vmap"(%x) {callee = @best, in_axes = array<i64: 2>, out_axes = array<i64: 0>, axis_size = 5 : i64} : (tensor<2x3x5xf32>) -> tensor<5x2xi32>
  return %r : tensor<5x2xi32>
}
func.func private @best(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  %0 = "irax.argmax"(%x) {axis = 1 : i64, index_dtype = i32} : (tensor<2x3xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Invariant work is not repeated per example: the reduction of the unmapped operand is
// copied unchanged, only the add that meets the mapped value is batched.
// CHECK-LABEL: func.func private @shift_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<3x2xf32>, %[[W:.*]]: tensor<4x2xf32>)
// CHECK-NEXT: %[[S:.*]] = "irax.reduce_sum"(%[[W]]) {axes = array<i64: 0>} : (tensor<4x2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[B:.*]] = "irax.broadcast_in_dim"(%[[S]]) {broadcast_dimensions = array<i64: 1>, shape = array<i64: 3, 2>}
// CHECK-NEXT: %[[A:.*]] = "irax.add"(%[[X]], %[[B]])
// CHECK-NEXT: return %[[A]]
func.func @main_shift(%x: tensor<3x2xf32>, %w: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %r = "irax.vmap"(%x, %w) {callee = @shift, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, axis_size = 3 : i64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
func.func private @shift(%x: tensor<2xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32> {
  %0 = "irax.reduce_sum"(%w) {axes = array<i64: 0>} : (tensor<4x2xf32>) -> tensor<2xf32>
  %1 = "irax.add"(%x, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
