// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-simplify)' | filecheck %s

// A cond on a constant index becomes the taken branch.
// CHECK-LABEL: func.func @dead_branch
// CHECK-NOT: "irax.cond"
// CHECK: %[[S:.*]] = "irax.sin"(%arg0)
// CHECK-NEXT: return %[[S]]
func.func @dead_branch(%x: tensor<f32>) -> tensor<f32> {
  %i = "irax.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
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

// -----

// exp(w) depends only on the loop's const: computed once, before the loop.
// CHECK-LABEL: func.func @licm
// CHECK: %[[E:.*]] = "irax.exp"(%arg0)
// CHECK-NEXT: "irax.while"(%arg0, %[[E]], %arg1)
// CHECK: ^bb0(%{{.*}}: tensor<f32>, %[[E1:.*]]: tensor<f32>, %[[X:.*]]: tensor<f32>):
// CHECK-NOT: "irax.exp"
// CHECK: "irax.mul"(%[[E1]], %[[X]])
// CHECK: {num_consts = 2 : i64}
func.func @licm(%w: tensor<f32>, %x0: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%w, %x0) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %ten = "irax.constant"() {value = dense<10.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%x, %ten) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %e = "irax.exp"(%c) : (tensor<f32>) -> tensor<f32>
    %y = "irax.mul"(%e, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%y) : (tensor<f32>) -> ()
  }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
