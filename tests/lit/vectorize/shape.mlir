// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// Shape ops: the batch dim is threaded through the attributes; the operand is moved only
// where the op needs it (reshape's row-major order needs the batch dim first).

// broadcast_in_dim: the batch dim (operand dim 1) enters the result right before the dim
// that the next operand dim maps to; broadcast_dimensions stay increasing.
// CHECK-LABEL: func.func private @bcast_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>)
// CHECK-NEXT: "irax.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 1, 2>, shape = array<i64: 2, 3, 5>} : (tensor<3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return
func.func @main_bcast(%x: tensor<3x5xf32>) -> tensor<2x3x5xf32> {
  %r = "irax.vmap"(%x) {callee = @bcast, in_axes = array<i64: 1>, out_axes = array<i64: 2>, axis_size = 5 : i64} : (tensor<3x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}
func.func private @bcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "irax.broadcast_in_dim"(%x) {shape = array<i64: 2, 3>, broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reshape: the batch dim moves first and leads the new sizes.
// CHECK-LABEL: func.func private @flat_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3xf32>)
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%[[X]]) {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[R:.*]] = "irax.reshape"(%[[T]]) {new_sizes = array<i64: 4, 6>} : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @main_flat(%x: tensor<2x4x3xf32>) -> tensor<4x6xf32> {
  %r = "irax.vmap"(%x) {callee = @flat, in_axes = array<i64: 1>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<2x4x3xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
func.func private @flat(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = "irax.reshape"(%x) {new_sizes = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// transpose: the permutation is extended; the batch dim stays in place.
// CHECK-LABEL: func.func private @perm_vmap
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%arg0) {permutation = array<i64: 3, 0, 2, 1>} : (tensor<2x3x4x5xf32>) -> tensor<5x2x4x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @main_perm(%x: tensor<2x3x4x5xf32>) -> tensor<5x2x4x3xf32> {
  %r = "irax.vmap"(%x) {callee = @perm, in_axes = array<i64: 2>, out_axes = array<i64: 2>, axis_size = 4 : i64} : (tensor<2x3x4x5xf32>) -> tensor<5x2x4x3xf32>
  return %r : tensor<5x2x4x3xf32>
}
func.func private @perm(%x: tensor<2x3x5xf32>) -> tensor<5x2x3xf32> {
  %0 = "irax.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}

// -----

// slice and reverse: the batch dim is kept whole and not reversed.
// CHECK-LABEL: func.func private @cut_vmap
// CHECK-NEXT: %[[S:.*]] = "irax.slice"(%arg0) {limit_indices = array<i64: 4, 5>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[R:.*]] = "irax.reverse"(%[[S]]) {dimensions = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @main_cut(%x: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r = "irax.vmap"(%x) {callee = @cut, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
func.func private @cut(%x: tensor<6xf32>) -> tensor<2xf32> {
  %0 = "irax.slice"(%x) {start_indices = array<i64: 1>, limit_indices = array<i64: 5>, strides = array<i64: 2>} : (tensor<6xf32>) -> tensor<2xf32>
  %1 = "irax.reverse"(%0) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// concatenate: the unbatched operand is broadcast along the batch dim of the batched one.
// CHECK-LABEL: func.func private @join_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[B:.*]] = "irax.broadcast_in_dim"(%[[Y]]) {broadcast_dimensions = array<i64: 0>, shape = array<i64: 3, 4>}
// CHECK-NEXT: %[[C:.*]] = "irax.concatenate"(%[[X]], %[[B]]) {dimension = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @main_join(%x: tensor<2x4xf32>, %y: tensor<3xf32>) -> tensor<5x4xf32> {
  %r = "irax.vmap"(%x, %y) {callee = @join, in_axes = array<i64: 1, -1>, out_axes = array<i64: 1>, axis_size = 4 : i64} : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
func.func private @join(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<5xf32> {
  %0 = "irax.concatenate"(%x, %y) {dimension = 0 : i64} : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// pad with an unbatched padding value: one pad, no padding of the batch dim.
// CHECK-LABEL: func.func private @grow_vmap
// CHECK-NEXT: %[[P:.*]] = "irax.pad"(%arg0, %arg1) {edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @main_grow(%x: tensor<4x3xf32>, %v: tensor<f32>) -> tensor<4x8xf32> {
  %r = "irax.vmap"(%x, %v) {callee = @grow, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
func.func private @grow(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<8xf32> {
  %0 = "irax.pad"(%x, %v) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// pad with a batched padding value: pad with zero, then select the per-example value where
// a pad of true with false has padding.
// CHECK-LABEL: func.func private @grow_vmap
// CHECK: %[[P:.*]] = "irax.pad"(%arg0, %{{.*}}) {{.*}} : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK: %[[IN:.*]] = "irax.pad"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<3xi1>, tensor<i1>) -> tensor<8xi1>
// CHECK: %[[M:.*]] = "irax.broadcast_in_dim"(%[[IN]]) {broadcast_dimensions = array<i64: 1>, shape = array<i64: 4, 8>}
// CHECK: %[[V:.*]] = "irax.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0>, shape = array<i64: 4, 8>}
// CHECK: %[[S:.*]] = "irax.select"(%[[M]], %[[P]], %[[V]])
// CHECK-NEXT: return %[[S]]
func.func @main_grow(%x: tensor<4x3xf32>, %v: tensor<4xf32>) -> tensor<4x8xf32> {
  %r = "irax.vmap"(%x, %v) {callee = @grow, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
func.func private @grow(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<8xf32> {
  %0 = "irax.pad"(%x, %v) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
