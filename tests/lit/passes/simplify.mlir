// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-simplify)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-simplify{max-iterations=1})' | filecheck %s --check-prefix=ONE

// Constant folding and the x * 1 identity.
// CHECK-LABEL: func.func @fold
// CHECK: %[[C:.*]] = "irax.constant"() {value = dense<4.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[Z:.*]] = "irax.add"(%arg0, %[[C]])
// CHECK-NEXT: return %[[Z]]
func.func @fold(%x: tensor<f32>) -> tensor<f32> {
  %c = "irax.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %d = "irax.mul"(%c, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %one = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %y = "irax.mul"(%x, %one) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %z = "irax.add"(%y, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %z : tensor<f32>
}

// -----

// x + 0.0 is not x for floats (-0.0 + 0.0 == +0.0): kept. For integers it folds.
// CHECK-LABEL: func.func @add_zero
// CHECK: "irax.add"(%arg0,
// CHECK-NOT: "irax.add"(%arg1,
// CHECK: return %{{.*}}, %arg1
func.func @add_zero(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %zf = "irax.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %a = "irax.add"(%x, %zf) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %zi = "irax.constant"() {value = dense<0> : tensor<3xi32>} : () -> tensor<3xi32>
  %b = "irax.add"(%i, %zi) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %a, %b : tensor<3xf32>, tensor<3xi32>
}

// -----

// Structural no-ops disappear; duplicates merge; dead code goes. A second round is needed
// to see that neg(neg(x)) is x after CSE merged the two negations' inputs.
// CHECK-LABEL: func.func @structural
// CHECK-NEXT: return %arg0
// ONE-LABEL: func.func @structural
func.func @structural(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = "irax.transpose"(%x) {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "irax.reshape"(%t) {new_sizes = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n1 = "irax.neg"(%r) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n2 = "irax.neg"(%n1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %dead = "irax.sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n2 : tensor<2x3xf32>
}
