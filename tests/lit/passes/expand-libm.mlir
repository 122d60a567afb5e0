// RUN: irax-opt %s -p 'builtin.module(irax-expand-libm)' | filecheck %s

// A cross-compiled CPU program has no C library to call: float64 sine, cosine, tangent,
// tanh, atan2, cbrt and remainder become plain arithmetic, and so do exp, expm1, log,
// log1p, power, logistic and the roundings (wasm32's and a generic x86-64's IREE calls the
// library for some of them). Float32 ones are left alone.

// CHECK-LABEL: func.func @sine_f64
// CHECK: %[[A:.*]] = stablehlo.abs %arg0 : tensor<3xf64>
// CHECK: stablehlo.bitcast_convert %[[A]] : (tensor<3xf64>) -> tensor<3xi64>
// CHECK: stablehlo.constant dense<"0x{{[0-9A-F]+}}"> : tensor<1031xf64>
// CHECK: "stablehlo.gather"
// CHECK-SAME: (tensor<1031xf64>, tensor<3x1xi32>) -> tensor<3xf64>
// CHECK: stablehlo.is_finite %arg0
// CHECK-NOT: stablehlo.sine
// CHECK: return
func.func @sine_f64(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.sine %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// CHECK-LABEL: func.func @cosine_tan_f64
// CHECK-NOT: stablehlo.cosine
// CHECK-NOT: stablehlo.tan
// CHECK: return
func.func @cosine_tan_f64(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %0 = stablehlo.cosine %x : tensor<2xf64>
  %1 = stablehlo.tan %x : tensor<2xf64>
  return %0, %1 : tensor<2xf64>, tensor<2xf64>
}

// tanh: its Taylor series below 0.55, 1 - 2 / (exp(2|x|) + 1) above, the exp expanded
// in turn
// CHECK-LABEL: func.func @tanh_f64
// CHECK-NOT: stablehlo.tanh
// CHECK-NOT: stablehlo.exponential
// CHECK: return
func.func @tanh_f64(%x: tensor<f64>) -> tensor<f64> {
  %0 = stablehlo.tanh %x : tensor<f64>
  return %0 : tensor<f64>
}

// CHECK-LABEL: func.func @atan2_cbrt_remainder_f64
// CHECK: stablehlo.sqrt
// CHECK-NOT: stablehlo.log
// CHECK-NOT: stablehlo.floor
// CHECK-NOT: stablehlo.atan2
// CHECK-NOT: stablehlo.cbrt
// CHECK-NOT: stablehlo.remainder
// CHECK: return
func.func @atan2_cbrt_remainder_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = stablehlo.atan2 %x, %y : tensor<4xf64>
  %1 = stablehlo.cbrt %x : tensor<4xf64>
  %2 = stablehlo.remainder %x, %y : tensor<4xf64>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// CHECK-LABEL: func.func @narrower_floats_stay
// CHECK: %[[S:.*]] = stablehlo.sine %arg0 : tensor<3xf32>
// CHECK: %[[T:.*]] = stablehlo.tanh %arg1 : tensor<3xf16>
// CHECK: %[[R:.*]] = stablehlo.remainder %arg2, %arg2 : tensor<3xi32>
// CHECK: return %[[S]], %[[T]], %[[R]]
func.func @narrower_floats_stay(%x: tensor<3xf32>, %h: tensor<3xf16>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf16>, tensor<3xi32>) {
  %0 = stablehlo.sine %x : tensor<3xf32>
  %1 = stablehlo.tanh %h : tensor<3xf16>
  %2 = stablehlo.remainder %i, %i : tensor<3xi32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf16>, tensor<3xi32>
}

// exp: x = k ln2 + r (42-bit ln2_hi), a polynomial in r, 2**k made from k's bits (no
// float-to-integer conversion: IREE's calls trunc); log: the exponent and significand
// read from the bits
// CHECK-LABEL: func.func @exp_log_f64
// CHECK: stablehlo.constant dense<0.69314718055{{[0-9]*}}>
// CHECK: stablehlo.shift_left
// CHECK: stablehlo.shift_right_logical
// CHECK-NOT: stablehlo.exponential
// CHECK-NOT: stablehlo.log
// CHECK-NOT: stablehlo.convert
// CHECK: return
func.func @exp_log_f64(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = stablehlo.exponential %x : tensor<4xf64>
  %1 = stablehlo.log %x : tensor<4xf64>
  %2 = stablehlo.exponential_minus_one %x : tensor<4xf64>
  %3 = stablehlo.log_plus_one %x : tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// CHECK-LABEL: func.func @power_rounding_f64
// CHECK-NOT: stablehlo.power
// CHECK-NOT: stablehlo.floor
// CHECK-NOT: stablehlo.ceil
// CHECK-NOT: stablehlo.round_nearest
// CHECK: return
func.func @power_rounding_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = stablehlo.power %x, %y : tensor<4xf64>
  %1 = stablehlo.floor %x : tensor<4xf64>
  %2 = stablehlo.ceil %x : tensor<4xf64>
  %3 = stablehlo.round_nearest_afz %x : tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// CHECK-LABEL: func.func @exp_f32
// CHECK: stablehlo.exponential
func.func @exp_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
