// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// A print under vmap prints each example, in order (JAX's rule): one callback per
// example of the batched operand; the unbatched operand is passed as it is.
// CHECK-LABEL: func.func private @show_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[A:.*]] = "irax.slice"(%[[X]]) {limit_indices = array<i64: 1, 3>, start_indices = array<i64: 0, 0>
// CHECK: %[[A1:.*]] = "irax.reshape"(%[[A]]) {new_sizes = array<i64: 3>}
// CHECK: "irax.debug_callback"(%[[A1]], %[[S]]) {callback = 0 : i64}
// CHECK: %[[B:.*]] = "irax.slice"(%[[X]]) {limit_indices = array<i64: 2, 3>, start_indices = array<i64: 1, 0>
// CHECK: %[[B1:.*]] = "irax.reshape"(%[[B]]) {new_sizes = array<i64: 3>}
// CHECK: "irax.debug_callback"(%[[B1]], %[[S]]) {callback = 0 : i64}
// CHECK-NOT: "irax.debug_callback"
func.func @main(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %r = "irax.vmap"(%x, %s) {callee = @show, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @show(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  "irax.debug_callback"(%x, %s) {callback = 0 : i64} : (tensor<3xf32>, tensor<f32>) -> ()
  return %x : tensor<3xf32>
}

// -----

// pure_callback with vmap_method = "expand_dims": one call on the whole batch, the
// unbatched operand given a leading axis of size 1; results batched at 0.
// CHECK-LABEL: func.func private @f_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<f32>)
// CHECK: %[[B:.*]] = "irax.broadcast_in_dim"(%[[Y]]) {broadcast_dimensions = array<i64>, shape = array<i64: 1>}
// CHECK: %[[R:.*]] = "irax.pure_callback"(%[[X]], %[[B]]) {callback = 1 : i64, result_types = [tensor<4xf32>], vmap_method = "expand_dims"} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %r = "irax.vmap"(%x, %y) {callee = @f, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = "irax.pure_callback"(%x, %y) {callback = 1 : i64, result_types = [tensor<f32>], vmap_method = "expand_dims"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// "broadcast_all" tiles the unbatched operand to the batch size instead.
// CHECK-LABEL: func.func private @f_vmap
// CHECK: "irax.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>, shape = array<i64: 4>}
// CHECK: "irax.pure_callback"
// CHECK-SAME: (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @main(%x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %r = "irax.vmap"(%x, %y) {callee = @f, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = "irax.pure_callback"(%x, %y) {callback = 1 : i64, result_types = [tensor<f32>], vmap_method = "broadcast_all"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// "sequential" (and an unordered io_callback) calls once per example, in order: a scan
// over the examples whose ys are the results, stacked along the batch axis.
// CHECK-LABEL: func.func private @f_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2xi32>
// CHECK-NEXT: %[[S:.*]] = "irax.scan"(%[[X]]) ({
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<3xf32>):
// CHECK-NEXT: %[[R:.*]] = "irax.io_callback"(%[[E]]) {callback = 2 : i64, result_types = [tensor<i32>]} : (tensor<3xf32>) -> tensor<i32>
// CHECK-NEXT: "irax.return"(%[[R]])
// CHECK-NEXT: }) {length = 2 : i64, num_carry = 0 : i64, num_consts = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
// CHECK-NEXT: return %[[S]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  %r = "irax.vmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<i32> {
  %0 = "irax.io_callback"(%x) {callback = 2 : i64, result_types = [tensor<i32>]} : (tensor<3xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// "sequential_unrolled": one call per example, results stacked.
// CHECK-LABEL: func.func private @f_vmap
// CHECK-COUNT-2: "irax.pure_callback"(%{{.*}}) {callback = 1 : i64, result_types = [tensor<f32>], vmap_method = "sequential_unrolled"}
// CHECK: "irax.concatenate"
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "irax.vmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<f32>], vmap_method = "sequential_unrolled"} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// More than 16 examples of a print loop over them (an irax.scan), in order.
// CHECK-LABEL: func.func private @show_vmap
// CHECK-NEXT: "irax.scan"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<f32>):
// CHECK-NEXT: "irax.debug_callback"(%[[E]]) {callback = 0 : i64}
// CHECK: length = 17 : i64
func.func @main(%x: tensor<17xf32>) -> tensor<17xf32> {
  %r = "irax.vmap"(%x) {callee = @show, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 17 : i64} : (tensor<17xf32>) -> tensor<17xf32>
  return %r : tensor<17xf32>
}
func.func private @show(%x: tensor<f32>) -> tensor<f32> {
  "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<f32>) -> ()
  return %x : tensor<f32>
}
