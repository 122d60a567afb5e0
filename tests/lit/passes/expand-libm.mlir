// RUN: irax-opt %s -p 'builtin.module(irax-expand-libm)' | filecheck %s

// A cross-compiled CPU program has no C library to call: float64 sine, cosine, tangent,
// tanh, atan2, cbrt and remainder become plain arithmetic. Float32 ones are left alone.

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

// tanh: its Taylor series below 0.55, 1 - 2 / (exp(2|x|) + 1) above
// CHECK-LABEL: func.func @tanh_f64
// CHECK: stablehlo.exponential
// CHECK-NOT: stablehlo.tanh
// CHECK: return
func.func @tanh_f64(%x: tensor<f64>) -> tensor<f64> {
  %0 = stablehlo.tanh %x : tensor<f64>
  return %0 : tensor<f64>
}

// CHECK-LABEL: func.func @atan2_cbrt_remainder_f64
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.log
// CHECK: stablehlo.floor
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
