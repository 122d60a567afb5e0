// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-raise-stablehlo)' | filecheck %s

// stablehlo.while -> irax.while; a value the regions capture from outside becomes a const.
// CHECK-LABEL: func.func @while
// CHECK: "irax.while"(%arg1, %arg0)
// CHECK: ^bb0(%[[C:.*]]: tensor<f32>, %[[X:.*]]: tensor<f32>):
// CHECK: "irax.compare"(%[[X]], %[[C]]) {direction = "LT"}
// CHECK: "irax.return"
// CHECK: "irax.mul"
// CHECK: {num_consts = 1 : i64}
func.func @while(%x0: tensor<f32>, %limit: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.while(%x = %x0) : tensor<f32>
   cond {
    %p = stablehlo.compare LT, %x, %limit, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %y = stablehlo.multiply %x, %x : tensor<f32>
    stablehlo.return %y : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// stablehlo.if -> irax.cond on the predicate converted to int32 (false branch first).
// CHECK-LABEL: func.func @if
// CHECK: %[[I:.*]] = "irax.convert"(%arg0) {new_dtype = i32}
// CHECK: "irax.cond"(%[[I]], %arg1)
// CHECK: "irax.neg"
// CHECK: "irax.sin"
func.func @if(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.if"(%p) ({
    %s = stablehlo.sine %x : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }, {
    %n = stablehlo.negate %x : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}
