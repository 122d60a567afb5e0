// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// NCHW x OIHW: padding pairs, strides and kernel dilation carry over; no reversal.
// CHECK-LABEL: func.func @nchw
// CHECK: %[[C:.*]] = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 2], pad = {{\[\[}}1, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x5x4xf32>, tensor<2x3x2x2xf32>) -> tensor<2x2x4x2xf32>
// CHECK-NEXT: return %[[C]]
// GENERIC-LABEL: "func.func"
// GENERIC: "stablehlo.convolution"(%arg0, %arg1) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<{{\[\[}}1, 0], [0, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 2, 1>, window_strides = array<i64: 1, 2>}>
func.func @nchw(%x: tensor<2x3x5x4xf32>, %w: tensor<2x3x2x2xf32>) -> tensor<2x2x4x2xf32> {
  %0 = "irax.conv_general_dilated"(%x, %w) {window_strides = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 2, 1>, lhs_spec = array<i64: 0, 1, 2, 3>, rhs_spec = array<i64: 0, 1, 2, 3>, out_spec = array<i64: 0, 1, 2, 3>} : (tensor<2x3x5x4xf32>, tensor<2x3x2x2xf32>) -> tensor<2x2x4x2xf32>
  return %0 : tensor<2x2x4x2xf32>
}

// -----

// NHWC x HWIO -> NCHW with two feature groups and input (lhs) dilation: the layouts name
// each tensor's dimensions in order.
// CHECK-LABEL: func.func @nhwc_groups
// CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[\[}}0, 0], [0, 0]], lhs_dilate = [2, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}
func.func @nhwc_groups(%x: tensor<1x4x4x4xf32>, %w: tensor<2x2x2x6xf32>) -> tensor<1x6x6x3xf32> {
  %0 = "irax.conv_general_dilated"(%x, %w) {window_strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, lhs_dilation = array<i64: 2, 1>, rhs_dilation = array<i64: 1, 1>, lhs_spec = array<i64: 0, 3, 1, 2>, rhs_spec = array<i64: 3, 2, 0, 1>, out_spec = array<i64: 0, 1, 2, 3>, feature_group_count = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<2x2x2x6xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}

// -----

// 1-D with batch groups and negative (cropping) padding, on integers.
// CHECK-LABEL: func.func @batch_groups_1d
// CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = {{\[\[}}-1, 2]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<4x2x5xi32>, tensor<4x2x2xi32>) -> tensor<2x4x5xi32>
func.func @batch_groups_1d(%x: tensor<4x2x5xi32>, %w: tensor<4x2x2xi32>) -> tensor<2x4x5xi32> {
  %0 = "irax.conv_general_dilated"(%x, %w) {window_strides = array<i64: 1>, padding = array<i64: -1, 2>, lhs_dilation = array<i64: 1>, rhs_dilation = array<i64: 1>, lhs_spec = array<i64: 0, 1, 2>, rhs_spec = array<i64: 0, 1, 2>, out_spec = array<i64: 0, 1, 2>, batch_group_count = 2 : i64} : (tensor<4x2x5xi32>, tensor<4x2x2xi32>) -> tensor<2x4x5xi32>
  return %0 : tensor<2x4x5xi32>
}

// -----

// No spatial dimensions: a matrix product written as a convolution.
// CHECK-LABEL: func.func @no_spatial
// CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f]x[o, i]->[b, f], window = {stride = [], pad = [], lhs_dilate = [], rhs_dilate = []} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
func.func @no_spatial(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %0 = "irax.conv_general_dilated"(%x, %w) {window_strides = array<i64>, padding = array<i64>, lhs_dilation = array<i64>, rhs_dilation = array<i64>, lhs_spec = array<i64: 0, 1>, rhs_spec = array<i64: 0, 1>, out_spec = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
