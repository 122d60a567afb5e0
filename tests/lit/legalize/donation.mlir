// RUN: irax-opt %s -p 'builtin.module(irax-legalize-iree)' | filecheck %s

// A donated argument (jax.buffer_donor, as jit marks it) aliases the first unclaimed result
// of its type through IREE's iree.abi.output, so IREE writes that result into it.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%arg0: tensor<3xf32> {iree.abi.output = 1 : index}, %arg1: tensor<2xi32>, %arg2: tensor<3xf32> {iree.abi.output = 2 : index})
func.func @two(%a: tensor<3xf32> {jax.buffer_donor = true}, %b: tensor<2xi32>, %c: tensor<3xf32> {jax.buffer_donor = true}) -> (tensor<2xi32>, tensor<3xf32>, tensor<3xf32>) {
  return %b, %a, %c : tensor<2xi32>, tensor<3xf32>, tensor<3xf32>
}

// A donation no result can take is dropped (JAX ignores it with a warning).
// CHECK-LABEL: func.func @unusable
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<2xf32>
func.func @unusable(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<2xf32> {
  %0 = stablehlo.slice %a [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
