// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// reduce_precision lowers one to one; its bit counts become i32 attributes.
// CHECK-LABEL: func.func @to_half
// CHECK: stablehlo.reduce_precision %arg0, format = e5m10 : tensor<3xf32>
func.func @to_half(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.reduce_precision"(%x) {exponent_bits = 5 : i64, mantissa_bits = 10 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
