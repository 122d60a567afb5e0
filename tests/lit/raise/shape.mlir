// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-raise-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%x: tensor<4x3xf32>, %v: tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<6x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<7x4xf32>, tensor<4x3xf32>) {
  // CHECK: "irax.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 2>, shape = array<i64: 2, 4, 3>} : (tensor<3xf32>) -> tensor<2x4x3xf32>
  %0 = stablehlo.broadcast_in_dim %v, dims = [2] : (tensor<3xf32>) -> tensor<2x4x3xf32>
  // CHECK: "irax.reshape"(%arg0) {new_sizes = array<i64: 6, 2>} : (tensor<4x3xf32>) -> tensor<6x2xf32>
  %1 = stablehlo.reshape %x : (tensor<4x3xf32>) -> tensor<6x2xf32>
  // CHECK: "irax.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  // CHECK: "irax.slice"(%arg0) {limit_indices = array<i64: 3, 3>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.slice %x [1:3, 0:3:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  // CHECK: "irax.concatenate"(%arg0, %arg0) {dimension = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %4 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  // CHECK: %[[Z:.*]] = "irax.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  // CHECK: "irax.pad"(%arg0, %[[Z]]) {edge_padding_high = array<i64: 2, 1>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x4xf32>
  %5 = stablehlo.pad %x, %z, low = [1, 0], high = [2, 1], interior = [0, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x4xf32>
  // CHECK: "irax.reverse"(%arg0) {dimensions = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %6 = stablehlo.reverse %x, dims = [0] : tensor<4x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x4x3xf32>, tensor<6x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<7x4xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x3xf32>, tensor<2xcomplex<f32>>, tensor<3xbf16>, tensor<2xi1>, tensor<3x4xi32>, tensor<2xcomplex<f64>>) {
  // CHECK: "irax.constant"() {value = dense<1.500000e+00> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %0 = stablehlo.constant dense<1.5> : tensor<2x3xf32>
  // CHECK: "irax.constant"() {value = dense<[(1.000000e+00,-2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>}
  %1 = stablehlo.constant dense<[(1.0, -2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
  // CHECK: "irax.constant"() {value = dense<[1.000000e+00, 2.500000e+00, -3.000000e+00]> : tensor<3xbf16>}
  %2 = stablehlo.constant dense<[1.0, 2.5, -3.0]> : tensor<3xbf16>
  // CHECK: "irax.constant"() {value = dense<[true, false]> : tensor<2xi1>}
  %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: "irax.iota"() {dimension = 1 : i64, dtype = i32, shape = array<i64: 3, 4>} : () -> tensor<3x4xi32>
  %4 = stablehlo.iota dim = 1 : tensor<3x4xi32>
  // CHECK: "irax.constant"() {value = dense<(5.000000e-01,2.000000e+00)> : tensor<2xcomplex<f64>>}
  %5 = stablehlo.constant dense<(0.5, 2.0)> : tensor<2xcomplex<f64>>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2xcomplex<f32>>, tensor<3xbf16>, tensor<2xi1>, tensor<3x4xi32>, tensor<2xcomplex<f64>>
}

// -----

// Frontend attributes are dropped, dead code is removed, chlo is legalized first.
// CHECK-LABEL: module @jit_f {
// CHECK: func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NOT: stablehlo
// CHECK-NOT: chlo
// CHECK: "irax.max"
// CHECK: "irax.min"
// CHECK: return
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = "default"}) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %dead = stablehlo.sine %arg0 : tensor<3xf32>
    %0 = chlo.erf %arg0 : tensor<3xf32> -> tensor<3xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{replicated}"} : (tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}

// -----

// CHECK-LABEL: func.func @clamp_and_call
func.func @clamp_and_call(%x: tensor<3xf32>, %lo: tensor<f32>) -> tensor<3xf32> {
  // CHECK: %[[C:.*]] = "irax.constant"() {value = dense<1.000000e+00> : tensor<3xf32>}
  %hi = stablehlo.constant dense<1.0> : tensor<3xf32>
  // CHECK: %[[LO:.*]] = "irax.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>, shape = array<i64: 3>}
  // CHECK: %[[M:.*]] = "irax.max"(%arg0, %[[LO]])
  // CHECK: %[[N:.*]] = "irax.min"(%[[M]], %[[C]])
  %0 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK: %[[R:.*]] = "irax.call"(%[[N]]) {callee = @twice} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = call @twice(%0) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK: return %[[R]]
  return %1 : tensor<3xf32>
}
// CHECK-LABEL: func.func private @twice
func.func private @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: "irax.add"(%arg0, %arg0)
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
