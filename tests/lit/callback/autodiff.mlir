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

// -----

// A print in a loop body runs in the forward loop only: the backward sweep recomputes
// carries and runs the body's VJP on a copy without it (@while_body_quiet).
// SIMPLE-LABEL: func.func @main
// SIMPLE: "irax.call"({{.*}}) {callee = @while_body}
// SIMPLE-NOT: {callee = @while_body}
// SIMPLE-LABEL: func.func private @while_body(
// SIMPLE-NEXT: "irax.debug_callback"
// SIMPLE-LABEL: func.func private @while_body_quiet(
// SIMPLE-NOT: "irax.debug_callback"
// SIMPLE-LABEL: func.func private @while_body_quiet_vjp(
// SIMPLE-NOT: "irax.debug_callback"
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @f, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %n = "irax.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %r:2 = "irax.while"(%n, %x) ({
  ^bb0(%m: tensor<i32>, %c: tensor<f32>):
    %z = "irax.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %p = "irax.compare"(%m, %z) {direction = "GT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%m: tensor<i32>, %c: tensor<f32>):
    "irax.debug_callback"(%c) {callback = 0 : i64} : (tensor<f32>) -> ()
    %one = "irax.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %m2 = "irax.sub"(%m, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %d = "irax.sin"(%c) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%m2, %d) : (tensor<i32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  return %r#1 : tensor<f32>
}
