// RUN: irax-opt %s --split-input-file --verify-diagnostics

func.func @too_few_devices(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'irax.pmap' op expected 2 device ordinals (one per example), but got 1}}
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @repeated_device(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'irax.pmap' op expected distinct non-negative device ordinals, but got [1, 1]}}
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @wrong_result(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.pmap' op result types (float32[3]) do not match the expected (float32[2,3]) for @f}}
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @negative_device(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.transfer' op expected a non-negative device ordinal, but got -1}}
  %r = "irax.transfer"(%x) {device = -1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @mesh_sizes(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'irax.shard_map' op expected one size per mesh axis, but got mesh_axes ['x', 'y'] and mesh_shape [4]}}
  %r = "irax.shard_map"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "", mesh_axes = ["x", "y"], mesh_shape = array<i64: 4>, devices = array<i64: 0, 1, 2, 3>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @mesh_names(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'irax.shard_map' op expected distinct non-empty mesh axis names, but got ['x', 'x']}}
  %r = "irax.shard_map"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "", mesh_axes = ["x", "x"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @mesh_size(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'irax.shard_map' op expected axis_size 6 (the number of devices of mesh [2, 3]), but got 4}}
  %r = "irax.shard_map"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "", mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 3>, devices = array<i64: 0, 1, 2, 3>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op expected argument 1's 'irax.device' to be a non-negative i64 device ordinal, but got -1 : i64}}
func.func @negative_device(%x: tensor<3xf32> {irax.device = 0 : i64}, %y: tensor<3xf32> {irax.device = -1 : i64}) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op expected result 0's 'irax.device' to be a non-negative i64 device ordinal, but got "dev1"}}
func.func @named_device(%x: tensor<3xf32>) -> (tensor<3xf32> {irax.device = "dev1"}) {
  return %x : tensor<3xf32>
}
