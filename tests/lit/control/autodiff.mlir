// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// Forward mode of a while loop: a while over (carry, tangent) calling the body's JVP.
// CHECK-LABEL: func.func private @f_jvp
// CHECK: "irax.while"
// CHECK: "irax.call"(%{{.*}}) {callee = @while_cond}
// CHECK: "irax.call"(%{{.*}}) {callee = @while_body_jvp}
// CHECK: {num_consts = 0 : i64}
func.func @jvp(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y, %dy = "irax.jvp"(%x, %t) {callee = @f} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %dy : tensor<f32>, tensor<f32>
}
func.func private @f(%x0: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    %c = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%x, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    %y = "irax.mul"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%y) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Reverse mode of a while loop with a data-dependent trip count whose body couples the
// elements (a reverse): the forward loop counts its iterations; the backward loop runs
// k = n-1..0, recomputes the carry entering step k from a checkpoint with an inner loop,
// and applies the body's VJP.
// CHECK-LABEL: func.func private @g_vjp
// CHECK: %[[FWD:.*]]:2 = "irax.while"
// CHECK: "irax.call"({{.*}}) {callee = @while_body}
// CHECK: "irax.while"
// CHECK: direction = "GE"
// CHECK: "irax.while"
// CHECK: {callee = @while_body}
// CHECK: {callee = @while_body_vjp}
func.func @grad(%x: tensor<2xf32>) -> tensor<2xf32> {
  %g = "irax.grad"(%x) {callee = @g, argnums = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func private @g(%x0: tensor<2xf32>) -> tensor<f32> {
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<2xf32>):
    %s = "irax.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
    %c = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%s, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<2xf32>):
    %v = "irax.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>
    %y = "irax.mul"(%x, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "irax.return"(%y) : (tensor<2xf32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %t = "irax.reduce_sum"(%r) {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// Reverse mode of an elementwise while loop (the body keeps elements apart; the condition
// may be anything): one forward loop carries the tangent of the seed (ones), calling the
// body's JVP; the linear map is the product of that tangent with the cotangent.
// CHECK-LABEL: func.func private @e_vjp
// CHECK: %[[ONE:.*]] = "irax.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// CHECK: %[[LOOP:.*]]:2 = "irax.while"(%{{.*}}, %[[ONE]])
// CHECK: {callee = @while_cond}
// CHECK: {callee = @while_body_jvp}
// CHECK-NOT: "irax.while"
// CHECK: "irax.mul"(%{{.*}}, %[[LOOP]]#1)
// CHECK: return
func.func @grad_e(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @e, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @e(%x0: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    %c = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%x, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    %y = "irax.mul"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%y) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Reverse mode of a scan: the forward scan also stacks the carries; the backward pass is a
// reverse scan over the body's VJP.
// CHECK-LABEL: func.func private @s_vjp
// CHECK: "irax.scan"
// CHECK: {callee = @scan_body}
// CHECK: length = 3 : i64, num_carry = 1 : i64, num_consts = 0 : i64
// CHECK: "irax.scan"
// CHECK: {callee = @scan_body_vjp}
// CHECK: reverse = true
func.func @grad_scan(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @s, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @s(%x: tensor<f32>) -> tensor<f32> {
  %xs = "irax.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %r:2 = "irax.scan"(%x, %xs) ({
  ^bb0(%c: tensor<f32>, %e: tensor<f32>):
    %m = "irax.mul"(%c, %e) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%m, %m) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 3 : i64} : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0 : tensor<f32>
}

// -----

// Reverse mode of a cond: the forward sweep runs the cond; the backward sweep is a cond
// over the branches' VJPs on the same index.
// CHECK-LABEL: func.func private @c_vjp
// CHECK: %[[Y:.*]] = "irax.cond"(%arg0, %arg1)
// CHECK: "irax.cond"(%arg0, %arg1, %arg2)
// CHECK: {callee = @branch0_vjp}
// CHECK: {callee = @branch1_vjp}
func.func @grad_cond(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%i, %x) {callee = @c, argnums = array<i64: 1>} : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @c(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<f32>):
    %n = "irax.neg"(%a) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%n) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    %s = "irax.sin"(%a) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
