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

// IREE 3.13 fuses a sum over several dimensions of a product, one operand broadcast along
// a summed dimension, into a "matvec_like" contraction it fails to vectorize for small
// kept sizes ("'vector.contract' op invalid accumulator/result vector shape"): the sum
// runs over the largest such dimension first, then over the rest.
// CHECK-LABEL: func.func @sum_of_broadcast_product
// CHECK: %[[P:.*]] = stablehlo.multiply
// CHECK: %[[S:.*]] = stablehlo.reduce(%[[P]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<8x2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK: stablehlo.reduce(%[[S]] init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<2x8xf32>, tensor<f32>) -> tensor<8xf32>
func.func @sum_of_broadcast_product(%a: tensor<8x2x8xf32>, %b: tensor<2x8xf32>) -> tensor<8xf32> {
  %0 = "irax.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64: 1, 2>, shape = array<i64: 8, 2, 8>} : (tensor<2x8xf32>) -> tensor<8x2x8xf32>
  %1 = "irax.mul"(%a, %0) : (tensor<8x2x8xf32>, tensor<8x2x8xf32>) -> tensor<8x2x8xf32>
  %2 = "irax.reduce_sum"(%1) {axes = array<i64: 0, 1>} : (tensor<8x2x8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// A sum of everything, or of something other than a product, stays one sum.
// CHECK-LABEL: func.func @sums_left_whole
// CHECK: stablehlo.reduce(%{{.*}}) applies stablehlo.add across dimensions = [0, 1, 2]
// CHECK: stablehlo.reduce(%{{.*}}) applies stablehlo.add across dimensions = [0, 1] :
// CHECK-NOT: stablehlo.reduce
func.func @sums_left_whole(%a: tensor<8x2x8xf32>, %b: tensor<8x2x8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %1 = "irax.mul"(%a, %b) : (tensor<8x2x8xf32>, tensor<8x2x8xf32>) -> tensor<8x2x8xf32>
  %2 = "irax.reduce_sum"(%1) {axes = array<i64: 0, 1, 2>} : (tensor<8x2x8xf32>) -> tensor<f32>
  %3 = "irax.add"(%a, %b) : (tensor<8x2x8xf32>, tensor<8x2x8xf32>) -> tensor<8x2x8xf32>
  %4 = "irax.reduce_sum"(%3) {axes = array<i64: 0, 1>} : (tensor<8x2x8xf32>) -> tensor<8xf32>
  return %2, %4 : tensor<f32>, tensor<8xf32>
}
