// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13's compiler dies of a floating-point exception on a dot contracting a
// dimension of size 0 (the process, not an error): its value, zeros, is written out.
// CHECK-LABEL: func.func @empty_contraction
// CHECK-NOT: stablehlo.dot_general
// CHECK: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: stablehlo.broadcast_in_dim %[[Z]], dims = [] : (tensor<f32>) -> tensor<4x4xf32>
func.func @empty_contraction(%x: tensor<4x0xf32>, %y: tensor<0x4xf32>) -> tensor<4x4xf32> {
  %0 = "irax.dot_general"(%x, %y) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>, lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>} : (tensor<4x0xf32>, tensor<0x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// A dot whose contracted dimensions are not empty stays.
// CHECK-LABEL: func.func @contraction
// CHECK: stablehlo.dot_general
func.func @contraction(%x: tensor<4x2xf32>, %y: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %0 = "irax.dot_general"(%x, %y) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>, lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// IREE 3.13 fails on a sort along a dimension of size 1 ("write affecting operations on
// global resources are restricted to workgroup distributed contexts"): its operands are
// its results.
// CHECK-LABEL: func.func @unit_sort
// CHECK-NOT: stablehlo.sort
// CHECK: return %arg0
func.func @unit_sort(%x: tensor<1x7xf32>) -> tensor<1x7xf32> {
  %0 = "irax.sort"(%x) {dimension = 0 : i64, is_stable = true, num_keys = 1 : i64} : (tensor<1x7xf32>) -> tensor<1x7xf32>
  return %0 : tensor<1x7xf32>
}
