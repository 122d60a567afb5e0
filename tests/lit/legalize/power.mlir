// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 computes a float power as exp(y * log(x)): NaN for a negative base. The power
// is taken of |x|, then the sign of an odd integer exponent, NaN for a finite negative base
// and a non-integer exponent, and 1 for y = 0 or x = 1 are put back.
// CHECK-LABEL: func.func @float_power
// CHECK: %[[A:.*]] = stablehlo.abs %arg0 : tensor<3xf32>
// CHECK: %[[P:.*]] = stablehlo.power %[[A]], %arg1 : tensor<3xf32>
// CHECK: stablehlo.floor %arg1
// CHECK: stablehlo.bitcast_convert %arg0 : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: %[[N:.*]] = stablehlo.negate %[[P]]
// CHECK: stablehlo.select {{.*}}, %[[N]], %[[P]]
// CHECK-NOT: stablehlo.power
// CHECK: return
func.func @float_power(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.pow"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// A complex power is left as it is.
// CHECK-LABEL: func.func @complex_power
// CHECK-NOT: stablehlo.abs
// CHECK: stablehlo.power %arg0, %arg1 : tensor<2xcomplex<f32>>
func.func @complex_power(%x: tensor<2xcomplex<f32>>, %y: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = "irax.pow"(%x, %y) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
