// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// d sin(x) = cos(x) dx: forward mode emits the primal, then cos and a multiply.

// CHECK-LABEL: func.func private @f_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>)
// CHECK: %[[Y:.*]] = "irax.sin"(%[[X]])
// CHECK: %[[C:.*]] = "irax.cos"(%[[X]])
// CHECK: %[[DY:.*]] = "irax.mul"(%[[DX]], %[[C]])
// CHECK: return %[[Y]], %[[DY]]
func.func @main(%x: tensor<3xf32>, %dx: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y, %dy = "irax.jvp"(%x, %dx) {callee = @f} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %y, %dy : tensor<3xf32>, tensor<3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Reverse mode of x * y w.r.t. x only: the residual y is reused, no tangent of y is
// computed, and the transpose of mul by y is mul by y.

// CHECK-LABEL: func.func private @g_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<f32>, %[[CT:.*]]: tensor<f32>)
// CHECK: %[[Z:.*]] = "irax.mul"(%[[X]], %[[Y]])
// CHECK-NEXT: %[[G:.*]] = "irax.mul"(%[[CT]], %[[Y]])
// CHECK-NEXT: return %[[Z]], %[[G]]
func.func @grad_mul(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x, %y) {callee = @g, argnums = array<i64: 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @g(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Non-differentiable ops contribute symbolic zeros: floor and the comparison emit no
// tangent code; select routes the cotangent to the taken branch.

// CHECK-LABEL: func.func private @h_vjp
// CHECK: "irax.floor"
// CHECK: %[[P:.*]] = "irax.compare"
// CHECK: %[[S:.*]] = "irax.select"
// CHECK-NOT: "irax.floor"
// CHECK: "irax.select"(%[[P]],
// CHECK: return
func.func @grad_select(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @h, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %f = "irax.floor"(%x) : (tensor<f32>) -> tensor<f32>
  %p = "irax.compare"(%x, %f) {direction = "GT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %s = "irax.select"(%p, %x, %f) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Second derivative: the inner grad is expanded first, then differentiated again.

// CHECK-LABEL: func.func @second
// CHECK: "irax.call"(%arg0) {callee = @dsin_grad}
// CHECK-LABEL: func.func private @sin_vjp
// CHECK-LABEL: func.func private @sin_grad
// CHECK-LABEL: func.func private @dsin_vjp
// CHECK: "irax.sin"
// CHECK-LABEL: func.func private @dsin_grad
func.func @second(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @dsin, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @dsin(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @sin, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @sin(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
