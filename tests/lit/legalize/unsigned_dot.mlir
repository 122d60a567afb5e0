// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 fuses a widening of uint8/uint16 into the contraction that reads it and then
// sign-extends (a uint8 200 reads as -56), and fails on a widened bool: a barrier keeps the
// convert out of the dot.
// CHECK-LABEL: func.func @uint8_matvec
// CHECK: %[[C:.*]] = stablehlo.convert %arg0 : (tensor<4x4xui8>) -> tensor<4x4xf32>
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[C]] : tensor<4x4xf32>
// CHECK: stablehlo.dot_general %[[B]], %arg1
func.func @uint8_matvec(%a: tensor<4x4xui8>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "irax.convert"(%a) {new_dtype = f32} : (tensor<4x4xui8>) -> tensor<4x4xf32>
  %1 = "irax.dot_general"(%0, %v) {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Behind a transpose and a second convert (a bool widened to float16, then float32).
// CHECK-LABEL: func.func @bool_transposed
// CHECK: %[[T:.*]] = stablehlo.transpose
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[T]]
// CHECK: stablehlo.dot_general %arg1, %[[B]]
func.func @bool_transposed(%a: tensor<4x3xi1>, %v: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "irax.convert"(%a) {new_dtype = f16} : (tensor<4x3xi1>) -> tensor<4x3xf16>
  %1 = "irax.convert"(%0) {new_dtype = f32} : (tensor<4x3xf16>) -> tensor<4x3xf32>
  %2 = "irax.transpose"(%1) {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %3 = "irax.dot_general"(%v, %2) {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3xf32>
  return %3 : tensor<3xf32>
}

// Signed and 32-bit sources are widened correctly: no barrier.
// CHECK-LABEL: func.func @int8_matvec
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @int8_matvec(%a: tensor<4x4xi8>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "irax.convert"(%a) {new_dtype = f32} : (tensor<4x4xi8>) -> tensor<4x4xf32>
  %1 = "irax.dot_general"(%0, %v) {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
