// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// A vmap over a function of a symbolic size: the mapped axis (5) is added beside it, and
// a broadcast to ["b", 3] gains the batch dimension as [5, "b", 3].

// CHECK-LABEL: func.func private @f_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x?x3xf32, ["b"]>) -> tensor<5x?x3xf32, ["b"]>
// CHECK: %[[B:.*]] = "irax.broadcast_in_dim"(%{{.*}}) {broadcast_dimensions = array<i64>, shape = ["b", 3]} : (tensor<f32>) -> tensor<?x3xf32, ["b"]>
// CHECK: %[[BB:.*]] = "irax.broadcast_in_dim"(%[[B]]) {broadcast_dimensions = array<i64: 1, 2>, shape = [5, "b", 3]} : (tensor<?x3xf32, ["b"]>) -> tensor<5x?x3xf32, ["b"]>
// CHECK: "irax.mul"(%[[X]], %[[BB]])
func.func @main(%x: tensor<5x?x3xf32, ["b"]>) -> tensor<5x?x3xf32, ["b"]> {
  %r = "irax.vmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 5 : i64} : (tensor<5x?x3xf32, ["b"]>) -> tensor<5x?x3xf32, ["b"]>
  return %r : tensor<5x?x3xf32, ["b"]>
}
func.func private @f(%x: tensor<?x3xf32, ["b"]>) -> tensor<?x3xf32, ["b"]> {
  %c = "irax.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %b = "irax.broadcast_in_dim"(%c) {shape = ["b", 3], broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?x3xf32, ["b"]>
  %y = "irax.mul"(%x, %b) : (tensor<?x3xf32, ["b"]>, tensor<?x3xf32, ["b"]>) -> tensor<?x3xf32, ["b"]>
  return %y : tensor<?x3xf32, ["b"]>
}

// -----

// The size of a symbolic axis is the same for every example: dimension_size skips the
// batch axis and its result stays unmapped (broadcast to the batch when returned).

// CHECK-LABEL: func.func private @n_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, ["b"]>) -> tensor<4xi32>
// CHECK: %[[N:.*]] = "irax.dimension_size"(%[[X]]) {dimension = 0 : i64, dtype = i32} : (tensor<?x4xf32, ["b"]>) -> tensor<i32>
// CHECK: "irax.broadcast_in_dim"(%[[N]]) {broadcast_dimensions = array<i64>, shape = array<i64: 4>}
func.func @main(%x: tensor<?x4xf32, ["b"]>) -> tensor<4xi32> {
  %r = "irax.vmap"(%x) {callee = @n, in_axes = array<i64: 1>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<?x4xf32, ["b"]>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func private @n(%x: tensor<?xf32, ["b"]>) -> tensor<i32> {
  %0 = "irax.dimension_size"(%x) {dimension = 0 : i64, dtype = i32} : (tensor<?xf32, ["b"]>) -> tensor<i32>
  return %0 : tensor<i32>
}
