// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 fails to compile a two-result reduce (argmax) whose result a transpose
// consumes ("'linalg.yield' op expected number of yield values"): a barrier reads the
// used results, so the reduce is not fused with its consumer.
// CHECK-LABEL: func.func @argmax_transposed
// CHECK: %[[R:.*]]:2 = stablehlo.reduce
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[R]]#1 : tensor<2x4xi32>
// CHECK: stablehlo.transpose %[[B]], dims = [1, 0]
func.func @argmax_transposed(%x: tensor<2x3x4xf32>) -> tensor<4x2xi32> {
  %0 = "irax.argmax"(%x) {axis = 1 : i64, index_dtype = i32} : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
  %1 = "irax.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x4xi32>) -> tensor<4x2xi32>
  return %1 : tensor<4x2xi32>
}

// A one-result reduce needs no barrier.
// CHECK-LABEL: func.func @sum
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @sum(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = "irax.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
