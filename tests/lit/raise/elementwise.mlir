// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-raise-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[A:.*]] = "irax.neg"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  %0 = stablehlo.negate %x : tensor<3xf32>
  // CHECK: %[[B:.*]] = "irax.abs"(%[[A]])
  %1 = stablehlo.abs %0 : tensor<3xf32>
  // CHECK: "irax.sign"
  %2 = stablehlo.sign %1 : tensor<3xf32>
  // CHECK: "irax.floor"
  %3 = stablehlo.floor %2 : tensor<3xf32>
  // CHECK: "irax.ceil"
  %4 = stablehlo.ceil %3 : tensor<3xf32>
  // CHECK: "irax.round_nearest_even"
  %5 = stablehlo.round_nearest_even %4 : tensor<3xf32>
  // CHECK: "irax.round_nearest_afz"
  %6 = stablehlo.round_nearest_afz %5 : tensor<3xf32>
  // CHECK: "irax.exp"
  %7 = stablehlo.exponential %6 : tensor<3xf32>
  // CHECK: "irax.expm1"
  %8 = stablehlo.exponential_minus_one %7 : tensor<3xf32>
  // CHECK: "irax.log"
  %9 = stablehlo.log %8 : tensor<3xf32>
  // CHECK: "irax.log1p"
  %10 = stablehlo.log_plus_one %9 : tensor<3xf32>
  // CHECK: "irax.sin"
  %11 = stablehlo.sine %10 : tensor<3xf32>
  // CHECK: "irax.cos"
  %12 = stablehlo.cosine %11 : tensor<3xf32>
  // CHECK: "irax.tan"
  %13 = stablehlo.tan %12 : tensor<3xf32>
  // CHECK: "irax.tanh"
  %14 = stablehlo.tanh %13 : tensor<3xf32>
  // CHECK: "irax.sqrt"
  %15 = stablehlo.sqrt %14 : tensor<3xf32>
  // CHECK: "irax.rsqrt"
  %16 = stablehlo.rsqrt %15 : tensor<3xf32>
  // CHECK: "irax.cbrt"
  %17 = stablehlo.cbrt %16 : tensor<3xf32>
  // CHECK: %[[L:.*]] = "irax.logistic"
  %18 = stablehlo.logistic %17 : tensor<3xf32>
  // CHECK: return %[[L]] : tensor<3xf32>
  return %18 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: %[[A:.*]] = "irax.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %0 = stablehlo.add %x, %y : tensor<2xf32>
  // CHECK: %[[B:.*]] = "irax.sub"(%[[A]], %arg1)
  %1 = stablehlo.subtract %0, %y : tensor<2xf32>
  // CHECK: "irax.mul"
  %2 = stablehlo.multiply %1, %y : tensor<2xf32>
  // CHECK: "irax.div"
  %3 = stablehlo.divide %2, %y : tensor<2xf32>
  // CHECK: "irax.rem"
  %4 = stablehlo.remainder %3, %y : tensor<2xf32>
  // CHECK: "irax.pow"
  %5 = stablehlo.power %4, %y : tensor<2xf32>
  // CHECK: "irax.max"
  %6 = stablehlo.maximum %5, %y : tensor<2xf32>
  // CHECK: "irax.min"
  %7 = stablehlo.minimum %6, %y : tensor<2xf32>
  // CHECK: "irax.atan2"
  %8 = stablehlo.atan2 %7, %y : tensor<2xf32>
  return %8 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @bitwise
func.func @bitwise(%i: tensor<4xi32>, %j: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: "irax.and"
  %0 = stablehlo.and %i, %j : tensor<4xi32>
  // CHECK: "irax.or"
  %1 = stablehlo.or %0, %j : tensor<4xi32>
  // CHECK: "irax.xor"
  %2 = stablehlo.xor %1, %j : tensor<4xi32>
  // CHECK: "irax.not"
  %3 = stablehlo.not %2 : tensor<4xi32>
  // CHECK: "irax.shift_left"
  %4 = stablehlo.shift_left %3, %j : tensor<4xi32>
  // CHECK: "irax.shift_right_arithmetic"
  %5 = stablehlo.shift_right_arithmetic %4, %j : tensor<4xi32>
  // CHECK: "irax.shift_right_logical"
  %6 = stablehlo.shift_right_logical %5, %j : tensor<4xi32>
  return %6 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @compare_select_convert
func.func @compare_select_convert(%x: tensor<3xf32>, %y: tensor<3xf32>, %u: tensor<3xui8>) -> (tensor<3xi32>, tensor<3xi1>, tensor<3xi1>) {
  // CHECK: %[[P:.*]] = "irax.compare"(%arg0, %arg1) {direction = "LT"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %p = stablehlo.compare LT, %x, %y, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  // CHECK: %[[S:.*]] = "irax.select"(%[[P]], %arg0, %arg1) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = stablehlo.select %p, %x, %y : tensor<3xi1>, tensor<3xf32>
  // CHECK: %[[C:.*]] = "irax.convert"(%[[S]]) {new_dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
  %c = stablehlo.convert %s : (tensor<3xf32>) -> tensor<3xi32>
  // CHECK: %[[F:.*]] = "irax.is_finite"(%arg0) : (tensor<3xf32>) -> tensor<3xi1>
  %f = stablehlo.is_finite %x : (tensor<3xf32>) -> tensor<3xi1>
  // CHECK: %[[U:.*]] = "irax.compare"(%arg2, %arg2) {direction = "GE"} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %q = stablehlo.compare GE, %u, %u, UNSIGNED : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  // CHECK: return %[[C]], %[[F]], %[[U]]
  return %c, %f, %q : tensor<3xi32>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @complex_parts
func.func @complex_parts(%z: tensor<3xcomplex<f32>>) -> (tensor<3xf32>, tensor<3xcomplex<f32>>) {
  // CHECK: %[[R:.*]] = "irax.real"(%arg0) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %re = stablehlo.real %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  // CHECK: %[[I:.*]] = "irax.imag"(%arg0) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %im = stablehlo.imag %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  // CHECK: %[[M:.*]] = "irax.abs"(%arg0) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %m = stablehlo.abs %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  // CHECK: %[[A:.*]] = "irax.add"(%[[R]], %[[M]])
  %s = stablehlo.add %re, %m : tensor<3xf32>
  // CHECK: %[[Z:.*]] = "irax.complex"(%[[A]], %[[I]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  %w = stablehlo.complex %s, %im : tensor<3xcomplex<f32>>
  // CHECK: return %[[A]], %[[Z]]
  return %s, %w : tensor<3xf32>, tensor<3xcomplex<f32>>
}
