// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13's float32 sine reduces its argument with one float32 floor (sin(-1e-10) was
// 6e-08, sin(1e30) -inf). The rewrite reduces |x| exactly in float64 (Cody-Waite and, for
// |x| >= 2**28, the significand times 2**(E-150) 2/pi mod 4 read from a 100-row table by
// the exponent E), evaluates polynomials in float64, puts the sign of x back from its bits
// and rounds once to float32.
// CHECK-LABEL: func.func @sine_f32
// CHECK: %[[D:.*]] = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
// CHECK: %[[A:.*]] = stablehlo.abs %[[D]] : tensor<3xf64>
// CHECK: stablehlo.constant dense<0x41B0000000000000> : tensor<3xf64>
// CHECK: stablehlo.constant dense<0.63661977236758138> : tensor<3xf64>
// CHECK: %[[BITS:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: stablehlo.shift_right_logical %[[BITS]]
// CHECK: %[[ROW:.*]] = stablehlo.reshape {{.*}} : (tensor<3xi32>) -> tensor<3x1xi32>
// CHECK: %[[T0:.*]] = stablehlo.constant dense<[{{.*}}]> : tensor<100xf64>
// CHECK: "stablehlo.gather"(%[[T0]], %[[ROW]])
// CHECK-SAME: collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1
// CHECK-SAME: slice_sizes = array<i64: 1>
// CHECK-SAME: (tensor<100xf64>, tensor<3x1xi32>) -> tensor<3xf64>
// CHECK: stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: stablehlo.is_finite %arg0
// CHECK: %[[R:.*]] = stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NOT: stablehlo.sine
// CHECK: return %[[R]]
func.func @sine_f32(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Cosine is even: no sign of x is put back. A float16 is below 2**28: Cody-Waite only.
// CHECK-LABEL: func.func @cosine_f16
// CHECK: stablehlo.convert %arg0 : (tensor<2xf16>) -> tensor<2xf64>
// CHECK-NOT: stablehlo.bitcast_convert
// CHECK-NOT: stablehlo.gather
// CHECK-NOT: stablehlo.cosine
// CHECK: stablehlo.convert {{.*}} : (tensor<2xf64>) -> tensor<2xf16>
func.func @cosine_f16(%x: tensor<2xf16>) -> tensor<2xf16> {
  %0 = "irax.cos"(%x) : (tensor<2xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// Tangent divides the sine by the cosine of the same reduction.
// CHECK-LABEL: func.func @tan_bf16
// CHECK: stablehlo.divide {{.*}} : tensor<2xf64>
// CHECK-NOT: stablehlo.tan
// CHECK: stablehlo.convert {{.*}} : (tensor<2xf64>) -> tensor<2xbf16>
func.func @tan_bf16(%x: tensor<2xbf16>) -> tensor<2xbf16> {
  %0 = "irax.tan"(%x) : (tensor<2xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// Float64 is left to IREE (a libm call).
// CHECK-LABEL: func.func @sine_f64
// CHECK-NEXT: stablehlo.sine %arg0 : tensor<2xf64>
func.func @sine_f64(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = "irax.sin"(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// A complex64 sine: sin a cosh b + i cos a sinh b, from the exact real sine and cosine.
// CHECK-LABEL: func.func @sine_c64
// CHECK: %[[RE:.*]] = stablehlo.real %arg0 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK: %[[IM:.*]] = stablehlo.imag %arg0 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK: stablehlo.exponential_minus_one
// CHECK: stablehlo.convert %[[RE]] : (tensor<2xf32>) -> tensor<2xf64>
// CHECK: stablehlo.complex
// CHECK-NOT: stablehlo.sine
// CHECK: return
func.func @sine_c64(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = "irax.sin"(%x) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// A complex64 exponential: e^a (cos b + i sin b), e^a alone where b == 0.
// CHECK-LABEL: func.func @exp_c64
// CHECK: %[[RE:.*]] = stablehlo.real %arg0
// CHECK: stablehlo.exponential %[[RE]] : tensor<2xf32>
// CHECK: stablehlo.complex
// CHECK-NOT: stablehlo.exponential {{.*}}complex
func.func @exp_c64(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = "irax.exp"(%x) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// A real exponential is left as it is.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NEXT: stablehlo.exponential %arg0 : tensor<2xf32>
func.func @exp_f32(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "irax.exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
