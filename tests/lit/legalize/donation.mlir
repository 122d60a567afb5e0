// RUN: irax-opt %s -p 'builtin.module(irax-legalize-iree)' | filecheck %s

// A donated argument (jax.buffer_donor, as jit marks it) loses the mark and gets no
// iree.abi.output: IREE 3.13 would write a result into the buffer while the program still
// reads it (a donated training step came back wrong). The caller deletes donated arrays.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%arg0: tensor<3xf32>, %arg1: tensor<2xi32>, %arg2: tensor<3xf32>)
// CHECK-NOT: iree.abi.output
// CHECK-NOT: jax.buffer_donor
func.func @two(%a: tensor<3xf32> {jax.buffer_donor = true}, %b: tensor<2xi32>, %c: tensor<3xf32> {jax.buffer_donor = true}) -> (tensor<2xi32>, tensor<3xf32>, tensor<3xf32>) {
  return %b, %a, %c : tensor<2xi32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @unusable
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<2xf32>
func.func @unusable(%a: tensor<4xf32> {jax.buffer_donor = true}) -> tensor<2xf32> {
  %0 = stablehlo.slice %a [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
