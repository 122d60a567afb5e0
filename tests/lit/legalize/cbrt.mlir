// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13's float32 cbrt is 10 ulp off and NaN at infinity. One Newton step in float64
// refines it; infinities, NaN and zeros pass through.
// CHECK-LABEL: func.func @cbrt_f32
// CHECK: %[[Y:.*]] = stablehlo.cbrt %arg0 : tensor<3xf32>
// CHECK: stablehlo.convert %[[Y]] : (tensor<3xf32>) -> tensor<3xf64>
// CHECK: stablehlo.divide {{.*}} : tensor<3xf64>
// CHECK: %[[R:.*]] = stablehlo.convert {{.*}} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK: stablehlo.is_finite %arg0
// CHECK: %[[OUT:.*]] = stablehlo.select {{.*}}, %arg0, %[[R]]
// CHECK: return %[[OUT]]
func.func @cbrt_f32(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.cbrt"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
