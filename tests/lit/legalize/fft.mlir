// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// irax-legalize-iree's fft pattern: IREE 3.13 miscompiles a float64 stablehlo.fft (float32
// twiddles: "'arith.mulf' op requires the same type for all operands and results"), so it
// becomes the same transform from matmuls in float64 (the portable form: lower/fft.mlir).
// CHECK-LABEL: func.func @f64
// CHECK-NOT: stablehlo.fft
// CHECK: stablehlo.dot_general {{.*}} : (tensor<16xf64>, tensor<16x16xf64>) -> tensor<16xf64>
// CHECK: stablehlo.complex %{{.*}}, %{{.*}} : tensor<8xcomplex<f64>>
func.func @f64(%x: tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 8>} : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  return %0 : tensor<8xcomplex<f64>>
}

// -----

// float32 keeps its native stablehlo.fft.
// CHECK-LABEL: func.func @f32
// CHECK: stablehlo.fft %arg0, type = RFFT, length = [16]
func.func @f32(%x: tensor<16xf32>) -> tensor<9xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "RFFT", fft_lengths = array<i64: 16>} : (tensor<16xf32>) -> tensor<9xcomplex<f32>>
  return %0 : tensor<9xcomplex<f32>>
}
