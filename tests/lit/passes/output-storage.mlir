// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-output-storage{min-bytes=64})' | filecheck %s

// A result of 64 bytes or more gets a trailing storage argument; a smaller one does not.
// CHECK-LABEL: func.func @large_and_small
// CHECK-SAME: (%arg0: tensor<16xf32>, %arg1: tensor<16xf32> {iree.abi.output = 0 : index}) -> (tensor<16xf32>, tensor<2xf32>)
// CHECK-SAME: attributes {irax.output_storage = array<i64: 0>}
// CHECK: %[[M:.*]] = stablehlo.multiply %arg0, %arg0
// CHECK: return %[[M]], %{{.*}} : tensor<16xf32>, tensor<2xf32>
func.func @large_and_small(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<2xf32>) {
  %0 = stablehlo.multiply %x, %x : tensor<16xf32>
  %1 = stablehlo.slice %x [0:2] : (tensor<16xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<16xf32>, tensor<2xf32>
}

// -----

// Storage in result order; an argument returned as is, a value returned twice, booleans
// and a private function keep IREE's own buffers.
// CHECK-LABEL: func.func @which
// CHECK-SAME: (%arg0: tensor<16xi32>, %arg1: tensor<16xi32> {iree.abi.output = 1 : index}, %arg2: tensor<64xf64> {iree.abi.output = 4 : index})
// CHECK-SAME: attributes {irax.output_storage = array<i64: 1, 4>}
// CHECK: func.func private @helper(%arg0: tensor<16xi32>) -> tensor<16xi32> {
func.func @which(%x: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<64xi1>, tensor<64xf64>) {
  %0 = stablehlo.add %x, %x : tensor<16xi32>
  %t = stablehlo.constant dense<true> : tensor<64xi1>
  %d = stablehlo.constant dense<1.0> : tensor<64xf64>
  return %x, %0, %0, %t, %d : tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<64xi1>, tensor<64xf64>
}
func.func private @helper(%x: tensor<16xi32>) -> tensor<16xi32> {
  %0 = stablehlo.add %x, %x : tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

// A loop IREE drives from the host: the module is left alone.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%arg0: tensor<16xf32>, %arg1: tensor<i32>) -> tensor<16xf32> {
// CHECK-NOT: iree.abi.output
func.func @loop(%x: tensor<16xf32>, %n: tensor<i32>) -> tensor<16xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<16xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %j = stablehlo.add %i, %c1 : tensor<i32>
      %w = stablehlo.multiply %v, %v : tensor<16xf32>
      stablehlo.return %j, %w : tensor<i32>, tensor<16xf32>
    }
  return %r#1 : tensor<16xf32>
}

// -----

// Storage given already: left alone (the pass runs once).
// CHECK-LABEL: func.func @given
// CHECK-SAME: (%arg0: tensor<16xf32>, %arg1: tensor<16xf32> {iree.abi.output = 0 : index}) -> tensor<16xf32> {
func.func @given(%x: tensor<16xf32>, %o: tensor<16xf32> {iree.abi.output = 0 : index}) -> tensor<16xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}
