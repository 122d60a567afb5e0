// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-vectorize)' | filecheck %s

// A batched predicate: the loop runs while any example runs; finished examples keep their
// carry (select).
// CHECK-LABEL: func.func private @f_vmap
// CHECK: "irax.while"
// CHECK: "irax.reduce_or"
// CHECK: "irax.select"
func.func @main(%xs: tensor<4xf32>) -> tensor<4xf32> {
  %r = "irax.vmap"(%xs) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @f(%x0: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    %c = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%x, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    %y = "irax.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%y) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A batched index: every branch runs, then a select per example.
// CHECK-LABEL: func.func private @g_vmap
// CHECK-NOT: "irax.cond"
// CHECK: "irax.compare"
// CHECK: "irax.select"
func.func @cond(%is: tensor<3xi32>, %xs: tensor<3xf32>) -> tensor<3xf32> {
  %r = "irax.vmap"(%is, %xs) {callee = @g, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, axis_size = 3 : i64} : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @g(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<f32>):
    %n = "irax.neg"(%a) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%n) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "irax.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A batched scan keeps the loop over time; the scanned operand is batched on axis 1.
// CHECK-LABEL: func.func private @s_vmap
// CHECK: "irax.scan"
// CHECK: {callee = @scan_body_vmap}
// CHECK: }) {length = 3 : i64, num_carry = 1 : i64, num_consts = 0 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
func.func @scan(%xs: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = "irax.vmap"(%xs) {callee = @s, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @s(%xs: tensor<3xf32>) -> tensor<f32> {
  %z = "irax.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %r:2 = "irax.scan"(%z, %xs) ({
  ^bb0(%c: tensor<f32>, %e: tensor<f32>):
    %m = "irax.add"(%c, %e) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%m, %m) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 3 : i64} : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %r#0 : tensor<f32>
}
