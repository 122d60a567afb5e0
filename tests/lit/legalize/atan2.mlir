// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13's float32 atan2 is 30 ulp off and gives +pi for atan2(-1e-34, -1.). The rewrite
// computes it in float64: t = min/max of |x|, |y| (0 for two zeros, 1 for two infinities),
// two argument halvings and a Taylor polynomial, then the octant and the sign bits of x and y.
// CHECK-LABEL: func.func @atan2_f32
// CHECK: stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
// CHECK: stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<3xf64>
// CHECK: stablehlo.maximum
// CHECK: stablehlo.minimum
// CHECK: stablehlo.sqrt {{.*}} : tensor<3xf64>
// CHECK: stablehlo.bitcast_convert %arg1 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK-NOT: stablehlo.atan2
// CHECK: stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf32>
func.func @atan2_f32(%y: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.atan2"(%y, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Float64 is left to IREE.
// CHECK-LABEL: func.func @atan2_f64
// CHECK-NEXT: stablehlo.atan2 %arg0, %arg1 : tensor<3xf64>
func.func @atan2_f64(%y: tensor<3xf64>, %x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "irax.atan2"(%y, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
