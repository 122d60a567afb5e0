// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// Symbolic sizes (jit with abstracted_axes) survive differentiation: the generated
// functions keep the named dynamic types, the seed is broadcast to ["b", 4], and the
// transposed dot_general contracts over the symbolic axis back to a static gradient.

// CHECK-LABEL: func.func private @loss_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32, ["b"]>, %[[W:.*]]: tensor<3x4xf32>, %[[CT:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3x4xf32>)
// CHECK: %[[T:.*]] = "irax.tanh"(%{{.*}}) : (tensor<?x4xf32, ["b"]>) -> tensor<?x4xf32, ["b"]>
// CHECK: "irax.broadcast_in_dim"(%[[CT]]) {broadcast_dimensions = array<i64>, shape = ["b", 4]} : (tensor<f32>) -> tensor<?x4xf32, ["b"]>
// CHECK: %[[G:.*]] = "irax.dot_general"(%[[X]], %{{.*}}) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x3xf32, ["b"]>, tensor<?x4xf32, ["b"]>) -> tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[G]] : tensor<f32>, tensor<3x4xf32>
func.func @main(%x: tensor<?x3xf32, ["b"]>, %w: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %g = "irax.grad"(%x, %w) {callee = @loss, argnums = array<i64: 1>} : (tensor<?x3xf32, ["b"]>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}
func.func private @loss(%x: tensor<?x3xf32, ["b"]>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %0 = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x3xf32, ["b"]>, tensor<3x4xf32>) -> tensor<?x4xf32, ["b"]>
  %1 = "irax.tanh"(%0) : (tensor<?x4xf32, ["b"]>) -> tensor<?x4xf32, ["b"]>
  %2 = "irax.reduce_sum"(%1) {axes = array<i64: 0, 1>} : (tensor<?x4xf32, ["b"]>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Forward mode: the tangent has the primal's symbolic type.

// CHECK-LABEL: func.func private @f_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32, ["n"]>, %[[DX:.*]]: tensor<?xf32, ["n"]>) -> (tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>)
// CHECK: %[[C:.*]] = "irax.cos"(%[[X]]) : (tensor<?xf32, ["n"]>) -> tensor<?xf32, ["n"]>
// CHECK: "irax.mul"(%[[DX]], %[[C]]) : (tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>) -> tensor<?xf32, ["n"]>
func.func @main(%x: tensor<?xf32, ["n"]>, %dx: tensor<?xf32, ["n"]>) -> (tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>) {
  %y, %dy = "irax.jvp"(%x, %dx) {callee = @f} : (tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>) -> (tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>)
  return %y, %dy : tensor<?xf32, ["n"]>, tensor<?xf32, ["n"]>
}
func.func private @f(%x: tensor<?xf32, ["n"]>) -> tensor<?xf32, ["n"]> {
  %0 = "irax.sin"(%x) : (tensor<?xf32, ["n"]>) -> tensor<?xf32, ["n"]>
  return %0 : tensor<?xf32, ["n"]>
}
