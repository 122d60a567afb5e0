// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// A window max lowers to one stablehlo.reduce_window from -inf whose region takes the
// maximum; the padding pairs become a rank x 2 dense attribute.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK: "stablehlo.reduce_window"(%arg0, %[[INIT]])
// CHECK-SAME: padding = dense<{{\[\[}}0, 0], [1, 0], [0, 1], [0, 0]]> : tensor<4x2xi64>
// CHECK-SAME: window_dimensions = array<i64: 1, 2, 2, 1>
// CHECK-SAME: window_strides = array<i64: 1, 2, 2, 1>
// CHECK: stablehlo.maximum
// CHECK: stablehlo.return
// CHECK: -> tensor<2x3x3x3xf32>
func.func @max_pool(%x: tensor<2x5x5x3xf32>) -> tensor<2x3x3x3xf32> {
  %0 = "irax.reduce_window_max"(%x) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding_low = array<i64: 0, 1, 0, 0>, padding_high = array<i64: 0, 0, 1, 0>, base_dilation = array<i64: 1, 1, 1, 1>, window_dilation = array<i64: 1, 1, 1, 1>} : (tensor<2x5x5x3xf32>) -> tensor<2x3x3x3xf32>
  return %0 : tensor<2x3x3x3xf32>
}

// -----

// A window sum starts from 0 and adds; base and window dilation are kept.
// CHECK-LABEL: func.func @sum_dilated
// CHECK: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK: "stablehlo.reduce_window"(%arg0, %[[ZERO]])
// CHECK-SAME: base_dilations = array<i64: 2>
// CHECK-SAME: window_dilations = array<i64: 2>
// CHECK: stablehlo.add
// CHECK: -> tensor<5xi32>
func.func @sum_dilated(%x: tensor<5xi32>) -> tensor<5xi32> {
  %0 = "irax.reduce_window_sum"(%x) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>, padding_low = array<i64: 0>, padding_high = array<i64: -2>, base_dilation = array<i64: 2>, window_dilation = array<i64: 2>} : (tensor<5xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// A boolean window min combines with "and" from true.
// CHECK-LABEL: func.func @min_bool
// CHECK: stablehlo.constant dense<true> : tensor<i1>
// CHECK: "stablehlo.reduce_window"
// CHECK: stablehlo.and
// CHECK: -> tensor<3xi1>
func.func @min_bool(%x: tensor<4xi1>) -> tensor<3xi1> {
  %0 = "irax.reduce_window_min"(%x) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>, padding_low = array<i64: 0>, padding_high = array<i64: 0>, base_dilation = array<i64: 1>, window_dilation = array<i64: 1>} : (tensor<4xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
