// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff, irax-inline, irax-simplify)' | filecheck %s --check-prefix=SIMPLE

// Under grad a print runs once, in the forward sweep, with the primal value; the
// backward sweep has none.
// CHECK-LABEL: func.func private @f_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>)
// CHECK: "irax.debug_callback"(%[[X]]) {callback = 0 : i64}
// CHECK-NOT: "irax.debug_callback"
// CHECK: return
// SIMPLE-LABEL: func.func @main
// SIMPLE-COUNT-1: "irax.debug_callback"(%arg0)
// SIMPLE-NOT: "irax.debug_callback"
// SIMPLE: return
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = "irax.grad"(%x) {callee = @f, argnums = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<f32> {
  "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<3xf32>) -> ()
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.reduce_sum"(%0) {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A pure callback has no derivative; one on values without tangents is fine.
// CHECK-LABEL: func.func private @g_vjp
// CHECK: "irax.pure_callback"
func.func @main(%x: tensor<f32>, %i: tensor<i32>) -> tensor<f32> {
  %g = "irax.grad"(%x, %i) {callee = @g, argnums = array<i64: 0>} : (tensor<f32>, tensor<i32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @g(%x: tensor<f32>, %i: tensor<i32>) -> tensor<f32> {
  %0 = "irax.pure_callback"(%i) {callback = 1 : i64, result_types = [tensor<f32>]} : (tensor<i32>) -> tensor<f32>
  %1 = "irax.mul"(%0, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
