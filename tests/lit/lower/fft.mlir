// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// irax.fft's portable lowering: stablehlo.fft only for 1-d power-of-two lengths (all that
// IREE 3.13 compiles); an n-d transform is 1-d transforms with the axis moved last.
// CHECK-LABEL: func.func @pow2_1d
// CHECK: %[[Y:.*]] = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
// CHECK-NEXT: return %[[Y]]
func.func @pow2_1d(%x: tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 8>} : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
  return %0 : tensor<2x8xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @pow2_2d
// CHECK: stablehlo.fft %arg0, type = IFFT, length = [8] : (tensor<4x8xcomplex<f32>>)
// CHECK: %[[T:.*]] = stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<4x8xcomplex<f32>>) -> tensor<8x4xcomplex<f32>>
// CHECK: stablehlo.fft %[[T]], type = IFFT, length = [4] : (tensor<8x4xcomplex<f32>>)
// CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<8x4xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
// CHECK-NOT: length = [4, 8]
func.func @pow2_2d(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "IFFT", fft_lengths = array<i64: 4, 8>} : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
  return %0 : tensor<4x8xcomplex<f32>>
}

// -----

// A short length: one real matmul with the DFT's twiddles (7 = 12 / 2 + 1 bins, re and im).
// CHECK-LABEL: func.func @short_rfft
// CHECK-NOT: stablehlo.fft
// CHECK: stablehlo.dot_general %arg0, %{{.*}}, contracting_dims = [0] x [0] : (tensor<12xf32>, tensor<12x14xf32>) -> tensor<14xf32>
// CHECK: stablehlo.complex %{{.*}}, %{{.*}} : tensor<7xcomplex<f32>>
func.func @short_rfft(%x: tensor<12xf32>) -> tensor<7xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "RFFT", fft_lengths = array<i64: 12>} : (tensor<12xf32>) -> tensor<7xcomplex<f32>>
  return %0 : tensor<7xcomplex<f32>>
}

// -----

// A long prime length: Bluestein's chirp-z, a convolution by power-of-two FFTs (256 >= 2*67-1).
// CHECK-LABEL: func.func @prime_bluestein
// CHECK: stablehlo.concatenate {{.*}} -> tensor<256xcomplex<f32>>
// CHECK: stablehlo.fft %{{.*}}, type = FFT, length = [256]
// CHECK: stablehlo.fft %{{.*}}, type = IFFT, length = [256]
// CHECK: stablehlo.slice %{{.*}} [0:67] : (tensor<256xcomplex<f32>>) -> tensor<67xcomplex<f32>>
func.func @prime_bluestein(%x: tensor<67xcomplex<f32>>) -> tensor<67xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 67>} : (tensor<67xcomplex<f32>>) -> tensor<67xcomplex<f32>>
  return %0 : tensor<67xcomplex<f32>>
}

// -----

// A long length with short prime factors: the four-step split 675 = 45 * 15 (DFT matmuls).
// CHECK-LABEL: func.func @four_step
// CHECK-NOT: stablehlo.fft
// CHECK: stablehlo.reshape %arg0 : (tensor<675xcomplex<f32>>) -> tensor<45x15xcomplex<f32>>
// CHECK: stablehlo.dot_general {{.*}} : (tensor<15x90xf32>, tensor<90x90xf32>) -> tensor<15x90xf32>
// CHECK: stablehlo.dot_general {{.*}} : (tensor<45x30xf32>, tensor<30x30xf32>) -> tensor<45x30xf32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<15x45xcomplex<f32>>) -> tensor<675xcomplex<f32>>
func.func @four_step(%x: tensor<675xcomplex<f32>>) -> tensor<675xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 675>} : (tensor<675xcomplex<f32>>) -> tensor<675xcomplex<f32>>
  return %0 : tensor<675xcomplex<f32>>
}

// -----

// With a power-of-two part of at least 8, the four-step split takes it natively:
// 1000 = 8 * 125, then 125 = 25 * 5 by DFT matmuls.
// CHECK-LABEL: func.func @four_step_pow2
// CHECK: stablehlo.reshape %arg0 : (tensor<1000xcomplex<f32>>) -> tensor<8x125xcomplex<f32>>
// CHECK: stablehlo.fft %{{.*}}, type = FFT, length = [8] : (tensor<125x8xcomplex<f32>>)
// CHECK: stablehlo.reshape %{{.*}} : (tensor<8x125xcomplex<f32>>) -> tensor<8x25x5xcomplex<f32>>
// CHECK: stablehlo.dot_general {{.*}} : (tensor<8x5x50xf32>, tensor<50x50xf32>) -> tensor<8x5x50xf32>
// CHECK: stablehlo.dot_general {{.*}} : (tensor<8x25x10xf32>, tensor<10x10xf32>) -> tensor<8x25x10xf32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<125x8xcomplex<f32>>) -> tensor<1000xcomplex<f32>>
func.func @four_step_pow2(%x: tensor<1000xcomplex<f32>>) -> tensor<1000xcomplex<f32>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 1000>} : (tensor<1000xcomplex<f32>>) -> tensor<1000xcomplex<f32>>
  return %0 : tensor<1000xcomplex<f32>>
}

// -----

// The portable form keeps a float64 stablehlo.fft (irax-legalize-iree rewrites it:
// legalize/fft.mlir).
// CHECK-LABEL: func.func @f64
// CHECK: stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
func.func @f64(%x: tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>> {
  %0 = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 8>} : (tensor<8xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  return %0 : tensor<8xcomplex<f64>>
}
