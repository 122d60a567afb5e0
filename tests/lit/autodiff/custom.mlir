// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// custom_jvp: the user's rule replaces the derivative of the callee.

// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: "irax.cos"
// CHECK: %[[TEN:.*]] = "irax.constant"() {value = dense<1.000000e+01> : tensor<f32>}
// CHECK: "irax.mul"(%[[TEN]], %arg1)
func.func @main(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %dy = "irax.jvp"(%x, %t) {callee = @f} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %dy : tensor<f32>, tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.custom_jvp_call"(%x) {callee = @prim, jvp = @rule} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @prim(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @rule(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  %c = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "irax.mul"(%c, %t) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// custom_vjp: reverse mode calls @fwd in the forward sweep and @bwd in the backward one.

// CHECK-LABEL: func.func private @cv_vjp
// CHECK: %[[R:.*]]:2 = "irax.call"(%arg0) {callee = @fwd}
// CHECK: %[[B:.*]] = "irax.call"(%[[R]]#1, %arg1) {callee = @bwd}
// CHECK: return %[[R]]#0, %[[B]]
func.func @grad_cv(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @cv, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @cv(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.custom_vjp_call"(%x) {callee = @cv_prim, fwd = @fwd, bwd = @bwd} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @cv_prim(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func private @fwd(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}
func.func private @bwd(%r: tensor<f32>, %ct: tensor<f32>) -> tensor<f32> {
  %0 = "irax.mul"(%r, %ct) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// checkpoint: the forward sweep only calls the callee; the backward sweep calls its VJP,
// which recomputes the intermediates (sin) where they are needed.

// CHECK-LABEL: func.func private @outer_vjp
// CHECK: "irax.call"(%arg0) {callee = @blk}
// CHECK: "irax.call"(%arg0, %{{.*}}) {callee = @blk_vjp}
// CHECK-LABEL: func.func private @blk_vjp
// CHECK: "irax.sin"
// CHECK: "irax.cos"
func.func @grad_remat(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @outer, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @outer(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.checkpoint"(%x) {callee = @blk} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @blk(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  %1 = "irax.sin"(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// stop_gradient: no cotangent flows through it.

// CHECK-LABEL: func.func private @sg_vjp
// CHECK: %[[S:.*]] = "irax.stop_gradient"(%arg0)
// CHECK: %[[Z:.*]] = "irax.mul"(%arg0, %[[S]])
// CHECK-NEXT: %[[G:.*]] = "irax.mul"(%arg1, %[[S]])
// CHECK-NEXT: return %[[Z]], %[[G]]
func.func @grad_sg(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @sg, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @sg(%x: tensor<f32>) -> tensor<f32> {
  %s = "irax.stop_gradient"(%x) : (tensor<f32>) -> tensor<f32>
  %0 = "irax.mul"(%x, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
