// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-raise-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x3xf32>, %p: tensor<4x3xi1>, %i: tensor<4x3xi32>) -> (tensor<3xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<i1>, tensor<i1>, tensor<3xi32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %imin = stablehlo.constant dense<-2147483648> : tensor<i32>
  // CHECK-NOT: irax.constant
  // CHECK: "irax.reduce_sum"(%arg0) {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xf32>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  // CHECK: "irax.reduce_prod"(%arg0) {axes = array<i64: 0, 1>} : (tensor<4x3xf32>) -> tensor<f32>
  %1 = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
  // CHECK: "irax.reduce_max"(%arg0) {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  %2 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: "irax.reduce_min"(%arg0) {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  %3 = stablehlo.reduce(%x init: %inf) applies stablehlo.minimum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: "irax.reduce_and"(%arg1) {axes = array<i64: 0, 1>} : (tensor<4x3xi1>) -> tensor<i1>
  %4 = stablehlo.reduce(%p init: %true) applies stablehlo.and across dimensions = [0, 1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<i1>
  // CHECK: "irax.reduce_or"(%arg1) {axes = array<i64: 0, 1>} : (tensor<4x3xi1>) -> tensor<i1>
  %5 = stablehlo.reduce(%p init: %false) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x3xi1>, tensor<i1>) -> tensor<i1>
  // CHECK: "irax.reduce_max"(%arg2) {axes = array<i64: 0>} : (tensor<4x3xi32>) -> tensor<3xi32>
  %6 = stablehlo.reduce(%i init: %imin) applies stablehlo.maximum across dimensions = [0] : (tensor<4x3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<i1>, tensor<i1>, tensor<3xi32>
}

// -----

// The region form of reduce, with a broadcast init.
// CHECK-LABEL: func.func @reduce_region
func.func @reduce_region(%x: tensor<5xf32>) -> tensor<f32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %init = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
  // CHECK: %[[S:.*]] = "irax.reduce_sum"(%arg0) {axes = array<i64: 0>} : (tensor<5xf32>) -> tensor<f32>
  %0 = stablehlo.reduce(%x init: %init) across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  // CHECK: return %[[S]]
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @dots
func.func @dots(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %m: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<5x2x4xf32>, tensor<2xf32>, tensor<f32>) {
  // CHECK: "irax.dot_general"(%arg0, %arg1) {lhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK: "irax.dot_general"(%arg2, %arg3) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = stablehlo.dot %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  // CHECK: "irax.dot_general"(%arg3, %arg3) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %2 = stablehlo.dot %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<5x2x4xf32>, tensor<2xf32>, tensor<f32>
}
