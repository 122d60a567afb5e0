// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// irax-lower-to-stablehlo emits portable StableHLO: none of irax-legalize-iree's IREE 3.13
// workarounds (no clamp before a gather, no sort operand copies or position key, no
// optimization barriers, no bitcasts of unsigned or bfloat16 values, no iree.abi.output).
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK-NOT: stablehlo.bitcast_convert
// CHECK-NOT: iree.abi
// CHECK-NOT: stablehlo.iota
// CHECK-NOT: stablehlo.clamp
// CHECK-LABEL: func.func @all
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK-NOT: stablehlo.bitcast_convert
// CHECK-NOT: stablehlo.clamp
// CHECK: "stablehlo.sort"
// CHECK: "stablehlo.gather"
// CHECK: stablehlo.reverse
// CHECK: flow.tensor.transfer
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK-NOT: stablehlo.bitcast_convert
func.func @all(%x: tensor<4xbf16> {jax.buffer_donor = true}, %y: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4xui8>) -> (tensor<4xbf16>, tensor<4x3xf32>, tensor<4xui8>, tensor<4xui8>) {
  %0 = "irax.sort"(%x) {dimension = 0 : i64, is_stable = true} : (tensor<4xbf16>) -> tensor<4xbf16>
  %1 = "irax.gather"(%y, %i) {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, slice_sizes = array<i64: 1, 3>, index_vector_dim = 1 : i64} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  %2 = "irax.reverse"(%u) {dimensions = array<i64: 0>} : (tensor<4xui8>) -> tensor<4xui8>
  %3 = "irax.transfer"(%u) {device = 1 : i64} : (tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4x3xf32>, tensor<4xui8>, tensor<4xui8>
}
