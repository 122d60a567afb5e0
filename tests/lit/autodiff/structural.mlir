// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// Reverse mode through dot_general and reduce_sum: the transpose of reduce_sum is a
// broadcast, the transpose of dot_general w.r.t. its rhs contracts lhs with the cotangent,
// ordered so that the result needs no transpose (x^T @ ct for x @ w).

// CHECK-LABEL: func.func @main
// CHECK: %[[G:.*]] = "irax.call"(%arg0, %arg1) {callee = @loss_grad}
// CHECK: return %[[G]]
// CHECK-LABEL: func.func private @loss
// CHECK-LABEL: func.func private @loss_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[CT:.*]]: tensor<f32>)
// CHECK: "irax.dot_general"(%[[X]], %[[W]])
// CHECK: "irax.reduce_sum"
// CHECK: %[[B:.*]] = "irax.broadcast_in_dim"(%[[CT]]) {broadcast_dimensions = array<i64>, shape = array<i64: 2, 4>}
// CHECK: %[[P:.*]] = "irax.dot_general"(%[[X]], %[[B]]) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: "irax.transpose"
// CHECK: return {{.*}}, %[[P]]
// CHECK-LABEL: func.func private @loss_grad
// CHECK: %[[ONE:.*]] = "irax.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// CHECK: "irax.call"(%arg0, %arg1, %[[ONE]]) {callee = @loss_vjp}
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %g = "irax.grad"(%x, %w) {callee = @loss, argnums = array<i64: 1>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}
func.func private @loss(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %0 = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "irax.reduce_sum"(%0) {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Forward mode: the JVP of a linear op applies the op to the tangent.

// CHECK-LABEL: func.func @fwd
// CHECK: "irax.call"(%arg0, %arg1) {callee = @lin_jvp}
// CHECK-LABEL: func.func private @lin_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[DX:.*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = "irax.transpose"(%[[X]])
// CHECK: %[[DY:.*]] = "irax.transpose"(%[[DX]])
// CHECK: return %[[Y]], %[[DY]]
func.func @fwd(%x: tensor<2x3xf32>, %dx: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %y, %dy = "irax.jvp"(%x, %dx) {callee = @lin} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>)
  return %y, %dy : tensor<3x2xf32>, tensor<3x2xf32>
}
func.func private @lin(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "irax.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Memoization: two grad ops of the same callee share one generated function.

// CHECK-LABEL: func.func @twice
// CHECK: "irax.call"(%arg0) {callee = @sq_grad}
// CHECK: "irax.call"(%arg0) {callee = @sq_grad}
// CHECK-NOT: @sq_grad_1
func.func @twice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = "irax.grad"(%x) {callee = @sq, argnums = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  %b = "irax.grad"(%x) {callee = @sq, argnums = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
func.func private @sq(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = "irax.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
