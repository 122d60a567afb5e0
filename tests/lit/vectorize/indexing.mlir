// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// Indexing ops. Unbatched starts keep dynamic_slice / dynamic_update_slice (start 0 and the
// whole batch dim); per-example starts become one gather / scatter with the example as a
// batching dim. gather and scatter_add pair batched operands and indices as StableHLO
// batching dims; an operand batched alone is one more (whole) window dim.

// CHECK-LABEL: func.func private @window_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[I:.*]]: tensor<i32>)
// CHECK-NEXT: %[[Z:.*]] = "irax.constant"() {value = dense<0> : tensor<i32>}
// CHECK-NEXT: %[[S:.*]] = "irax.dynamic_slice"(%[[X]], %[[I]], %[[Z]]) {slice_sizes = array<i64: 2, 4>} : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @main_window(%x: tensor<5x4xf32>, %i: tensor<i32>) -> tensor<2x4xf32> {
  %r = "irax.vmap"(%x, %i) {callee = @window, in_axes = array<i64: 1, -1>, out_axes = array<i64: 1>, axis_size = 4 : i64} : (tensor<5x4xf32>, tensor<i32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
func.func private @window(%x: tensor<5xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  %0 = "irax.dynamic_slice"(%x, %i) {slice_sizes = array<i64: 2>} : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Per-example starts: one gather, operand batching dim 1 paired with the starts' row.
// CHECK-LABEL: func.func private @window_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-NEXT: %[[IV:.*]] = "irax.broadcast_in_dim"(%[[I]]) {broadcast_dimensions = array<i64: 0>, shape = array<i64: 4, 1>}
// CHECK-NEXT: %[[G:.*]] = "irax.gather"(%[[X]], %[[IV]]) {collapsed_slice_dims = array<i64>, index_vector_dim = 1 : i64, offset_dims = array<i64: 1>, operand_batching_dims = array<i64: 1>, slice_sizes = array<i64: 2, 1>, start_index_map = array<i64: 0>, start_indices_batching_dims = array<i64: 0>} : (tensor<5x4xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: irax.dynamic_slice
func.func @main_window(%x: tensor<5x4xf32>, %i: tensor<4xi32>) -> tensor<4x2xf32> {
  %r = "irax.vmap"(%x, %i) {callee = @window, in_axes = array<i64: 1, 0>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<5x4xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
func.func private @window(%x: tensor<5xf32>, %i: tensor<i32>) -> tensor<2xf32> {
  %0 = "irax.dynamic_slice"(%x, %i) {slice_sizes = array<i64: 2>} : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Per-example update starts: clamped as dynamic_update_slice clamps them, then the update
// is scattered into -0.0 (exact, signs kept) and selected over the operand where a count
// scattered the same way is non-zero.
// CHECK-LABEL: func.func private @put_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>, %[[U:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<3xi32>)
// CHECK: %[[MAX:.*]] = "irax.max"
// CHECK: %[[ST:.*]] = "irax.min"(%[[MAX]], %{{.*}}) : (tensor<3x1xi32>, tensor<3x1xi32>)
// CHECK: %[[HITS:.*]] = "irax.scatter_add"(%{{.*}}, %[[ST]], %{{.*}}) {index_vector_dim = 1 : i64, input_batching_dims = array<i64: 0>, inserted_window_dims = array<i64>, scatter_dims_to_operand_dims = array<i64: 1>, scatter_indices_batching_dims = array<i64: 0>, update_window_dims = array<i64: 1>} : (tensor<3x5xi32>, tensor<3x1xi32>, tensor<3x2xi32>) -> tensor<3x5xi32>
// CHECK: %[[MASK:.*]] = "irax.compare"(%[[HITS]], %{{.*}}) {direction = "NE"}
// CHECK: %[[NZ:.*]] = "irax.constant"() {value = dense<-0.000000e+00> : tensor<f32>}
// CHECK: %[[PUT:.*]] = "irax.scatter_add"(%{{.*}}, %[[ST]], %{{.*}}) {{.*}} : (tensor<3x5xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %[[R:.*]] = "irax.select"(%[[MASK]], %[[PUT]], %[[X]])
// CHECK-NEXT: return %[[R]]
func.func @main_put(%x: tensor<3x5xf32>, %u: tensor<2xf32>, %i: tensor<3xi32>) -> tensor<3x5xf32> {
  %r = "irax.vmap"(%x, %u, %i) {callee = @put, in_axes = array<i64: 0, -1, 0>, out_axes = array<i64: 0>, axis_size = 3 : i64} : (tensor<3x5xf32>, tensor<2xf32>, tensor<3xi32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
func.func private @put(%x: tensor<5xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<5xf32> {
  %0 = "irax.dynamic_update_slice"(%x, %u, %i) : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// gather with the operand and the indices batched (along their last axes): one more pair
// of batching dims; the result's batch dim comes after the indices' own batch dim.
// CHECK-LABEL: func.func private @take_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3x6xf32>, %[[I:.*]]: tensor<4x1x6xi32>)
// CHECK-NEXT: %[[G:.*]] = "irax.gather"(%[[X]], %[[I]]) {collapsed_slice_dims = array<i64: 0>, index_vector_dim = 1 : i64, offset_dims = array<i64: 1>, operand_batching_dims = array<i64: 2>, slice_sizes = array<i64: 1, 3, 1>, start_index_map = array<i64: 0>, start_indices_batching_dims = array<i64: 2>} : (tensor<5x3x6xf32>, tensor<4x1x6xi32>) -> tensor<4x3x6xf32>
// CHECK-NEXT: return %[[G]]
func.func @main_take(%x: tensor<5x3x6xf32>, %i: tensor<4x1x6xi32>) -> tensor<4x3x6xf32> {
  %r = "irax.vmap"(%x, %i) {callee = @take, in_axes = array<i64: 2, 2>, out_axes = array<i64: 2>, axis_size = 6 : i64} : (tensor<5x3x6xf32>, tensor<4x1x6xi32>) -> tensor<4x3x6xf32>
  return %r : tensor<4x3x6xf32>
}
func.func private @take(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = "irax.gather"(%x, %i) {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// gather with only the operand batched: its batch dim is one more whole window dim.
// CHECK-LABEL: func.func private @take_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<6x5x3xf32>, %[[I:.*]]: tensor<4x1xi32>)
// CHECK-NEXT: %[[G:.*]] = "irax.gather"(%[[X]], %[[I]]) {collapsed_slice_dims = array<i64: 1>, index_vector_dim = 1 : i64, offset_dims = array<i64: 1, 2>, slice_sizes = array<i64: 6, 1, 3>, start_index_map = array<i64: 1>} : (tensor<6x5x3xf32>, tensor<4x1xi32>) -> tensor<4x6x3xf32>
// CHECK-NEXT: return %[[G]]
func.func @main_take(%x: tensor<6x5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x6x3xf32> {
  %r = "irax.vmap"(%x, %i) {callee = @take, in_axes = array<i64: 0, -1>, out_axes = array<i64: 1>, axis_size = 6 : i64} : (tensor<6x5x3xf32>, tensor<4x1xi32>) -> tensor<4x6x3xf32>
  return %r : tensor<4x6x3xf32>
}
func.func private @take(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = "irax.gather"(%x, %i) {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// scatter_add with batched indices and updates into an unbatched operand: the operand is
// broadcast (the result depends on the example), and its batch dim is paired with the
// indices' as batching dims.
// CHECK-LABEL: func.func private @add_at_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5xf32>, %[[I:.*]]: tensor<6x2x1xi32>, %[[U:.*]]: tensor<6x2xf32>)
// CHECK-NEXT: %[[B:.*]] = "irax.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 1>, shape = array<i64: 6, 5>}
// CHECK-NEXT: %[[S:.*]] = "irax.scatter_add"(%[[B]], %[[I]], %[[U]]) {index_vector_dim = 2 : i64, input_batching_dims = array<i64: 0>, inserted_window_dims = array<i64: 1>, scatter_dims_to_operand_dims = array<i64: 1>, scatter_indices_batching_dims = array<i64: 0>, update_window_dims = array<i64>} : (tensor<6x5xf32>, tensor<6x2x1xi32>, tensor<6x2xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: return %[[S]]
func.func @main_add_at(%x: tensor<5xf32>, %i: tensor<6x2x1xi32>, %u: tensor<6x2xf32>) -> tensor<6x5xf32> {
  %r = "irax.vmap"(%x, %i, %u) {callee = @add_at, in_axes = array<i64: -1, 0, 0>, out_axes = array<i64: 0>, axis_size = 6 : i64} : (tensor<5xf32>, tensor<6x2x1xi32>, tensor<6x2xf32>) -> tensor<6x5xf32>
  return %r : tensor<6x5xf32>
}
func.func private @add_at(%x: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %0 = "irax.scatter_add"(%x, %i, %u) {update_window_dims = array<i64>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
