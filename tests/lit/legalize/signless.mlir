// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 fails to compile stablehlo.reverse and flow.tensor.transfer on unsigned
// tensors: they run on the signless integers of the same width, bitcast on both sides.
// CHECK-LABEL: func.func @reverse_u8
// CHECK: %[[S:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<4xui8>) -> tensor<4xi8>
// CHECK: %[[R:.*]] = stablehlo.reverse %[[S]], dims = [0] : tensor<4xi8>
// CHECK: %[[U:.*]] = stablehlo.bitcast_convert %[[R]] : (tensor<4xi8>) -> tensor<4xui8>
// CHECK: return %[[U]]
func.func @reverse_u8(%x: tensor<4xui8>) -> tensor<4xui8> {
  %0 = "irax.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// CHECK-LABEL: func.func @transfer_u32
// CHECK: %[[S:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<2xui32>) -> tensor<2xi32>
// CHECK: %[[T:.*]] = flow.tensor.transfer %[[S]] : tensor<2xi32> to #hal.device.promise<@dev1>
// CHECK: stablehlo.bitcast_convert %[[T]] : (tensor<2xi32>) -> tensor<2xui32>
func.func @transfer_u32(%x: tensor<2xui32>) -> tensor<2xui32> {
  %0 = "irax.transfer"(%x) {device = 1 : i64} : (tensor<2xui32>) -> tensor<2xui32>
  return %0 : tensor<2xui32>
}

// Signed and float values are left alone.
// CHECK-LABEL: func.func @reverse_f32
// CHECK-NOT: bitcast_convert
// CHECK: stablehlo.reverse %arg0, dims = [0] : tensor<4xf32>
func.func @reverse_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "irax.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
