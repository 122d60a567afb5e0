// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[A:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: %[[B:.*]] = stablehlo.exponential %[[A]] : tensor<3xf32>
  %1 = "irax.exp"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: stablehlo.log_plus_one %[[B]] : tensor<3xf32>
  %2 = "irax.log1p"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: stablehlo.round_nearest_even
  %3 = "irax.round_nearest_even"(%2) : (tensor<3xf32>) -> tensor<3xf32>
  return %3 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
  // CHECK: stablehlo.add %arg0, %arg1 : tensor<2xi32>
  %0 = "irax.add"(%x, %y) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  // CHECK: stablehlo.divide
  %1 = "irax.div"(%0, %y) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  // CHECK: stablehlo.shift_right_logical
  %2 = "irax.shift_right_logical"(%1, %y) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %2 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%x: tensor<2xui32>, %y: tensor<2xui32>) -> tensor<2xui32> {
  // CHECK: %[[P:.*]] = stablehlo.compare  LT, %arg0, %arg1,  UNSIGNED : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  %p = "irax.compare"(%x, %y) {direction = "LT"} : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  // CHECK: stablehlo.select %[[P]], %arg0, %arg1 : tensor<2xi1>, tensor<2xui32>
  %r = "irax.select"(%p, %x, %y) : (tensor<2xi1>, tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  return %r : tensor<2xui32>
}

// -----

// CHECK-LABEL: func.func @convert
func.func @convert(%x: tensor<2xf32>) -> tensor<2xi1> {
  // CHECK: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<2xf32>
  // CHECK: stablehlo.compare  NE, %arg0, %[[Z]]
  %0 = "irax.convert"(%x) {new_dtype = i1} : (tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x3xi32>, tensor<2xf32>) {
  // CHECK: stablehlo.iota dim = 1 : tensor<2x3xi32>
  %0 = "irax.iota"() {shape = array<i64: 2, 3>, dtype = i32, dimension = 1} : () -> tensor<2x3xi32>
  // CHECK: stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %1 = "irax.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @call
func.func private @callee(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @call(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: call @callee(%arg0) : (tensor<f32>) -> tensor<f32>
  %0 = "irax.call"(%x) {callee = @callee} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
