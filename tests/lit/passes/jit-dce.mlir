// What jit lowers drops dead code: an unused op, an unused while loop and the functions
// only they called never reach StableHLO.
// RUN: irax-opt %s -p 'builtin.module(irax-to-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: stablehlo.sine
// CHECK-NOT: stablehlo.while
// CHECK: %[[C:.*]] = stablehlo.cosine %arg0
// CHECK-NEXT: return %[[C]]
// CHECK-NOT: func.func private @f
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %dead = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  %loop = "irax.while"(%x) ({
  ^bb0(%c: tensor<f32>):
    %p = "irax.call"(%c) {callee = @f} : (tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>):
    %n = "irax.sin"(%c) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%n) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %0 = "irax.cos"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<i1> {
  %0 = "irax.compare"(%x, %x) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
