// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-partition)'

// An argument's sharding must divide its dimensions.
// expected-error @+1 {{irax-partition: @indivisible: expected dimension 0 of argument 0 (size 3) to be divisible by 2, the devices of mesh axes ['x']}}
func.func @indivisible(%x: tensor<3xf32> {irax.sharding = [["x"]]}) -> tensor<3xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  return %x : tensor<3xf32>
}

// -----

// A sharding names axes of the function's mesh, each once.
// expected-error @+1 {{irax-partition: @unknown_axis: expected mesh axes of ['x'] in the sharding of result 0, but got 'z'}}
func.func @unknown_axis(%x: tensor<4xf32>) -> (tensor<4xf32> {irax.sharding = [["z"]]})
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  return %x : tensor<4xf32>
}

// -----

// One mesh per function.
// expected-error @+1 {{irax-partition: expected one mesh in @two_meshes, but got mesh {'x': 2} on devices [0, 1] and mesh {'y': 2} on devices [0, 1]}}
func.func @two_meshes(%x: tensor<4xf32> {irax.sharding = [["x"]]}) -> tensor<4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %c = "irax.sharding_constraint"(%x) {sharding = [["y"]], mesh_axes = ["y"], mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A map over devices inside a partitioned function is refused.
func.func @nested(%x: tensor<2x4xf32> {irax.sharding = [["x"]]}) -> tensor<2x4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  // expected-error @+1 {{'irax.pmap' op cannot be partitioned: a map over devices is already partitioned: irax-partition refuses one inside a partitioned function}}
  %y = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A constraint's sharding must fit its operand.
func.func @bad_constraint(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.sharding_constraint' op expected dimension 0 of the operand (size 3) to be divisible by 2, the devices of mesh axes ['x']}}
  %c = "irax.sharding_constraint"(%x) {sharding = [["x"]], mesh_axes = ["x"], mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

// A shard_map inside a partitioned function runs on the function's mesh.
// expected-error @+1 {{irax-partition: expected one mesh in @map_on_other_mesh, but got mesh {'x': 2} on devices [0, 1] and mesh {'y': 2} on devices [2, 3]}}
func.func @map_on_other_mesh(%x: tensor<2x3xf32> {irax.sharding = [["x"]]}) -> tensor<2x3xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %m = "irax.shard_map"(%x) {axis_size = 2 : i64, axis_name = "", callee = @negate, devices = array<i64: 2, 3>, in_axes = array<i64: 0>, mesh_axes = ["y"], mesh_shape = array<i64: 2>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}
func.func private @negate(%x: tensor<3xf32>) -> tensor<3xf32> {
  %n = "irax.neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %n : tensor<3xf32>
}

// -----

// A map over devices in a loop of a partitioned function cannot be partitioned.
// expected-error @+1 {{irax-partition: @map_in_loop runs a map over devices inside a loop, a branch, another map or a pmap, which cannot be partitioned}}
func.func @map_in_loop(%x: tensor<4x3xf32> {irax.sharding = [["x"]]}) -> tensor<4x3xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %r = "irax.while"(%x) ({
  ^bb0(%c: tensor<4x3xf32>):
    %p = "irax.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<4x3xf32>):
    %b = "irax.reshape"(%c) {new_sizes = array<i64: 2, 2, 3>} : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
    %m = "irax.shard_map"(%b) {axis_size = 2 : i64, axis_name = "", callee = @negate2, devices = array<i64: 0, 1>, in_axes = array<i64: 0>, mesh_axes = ["x"], mesh_shape = array<i64: 2>, out_axes = array<i64: 0>} : (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %d = "irax.reshape"(%m) {new_sizes = array<i64: 4, 3>} : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
    "irax.return"(%d) : (tensor<4x3xf32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @negate2(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = "irax.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}

// -----

// A shard_map on a one-device mesh inside a function partitioned over another mesh.
func.func @map_on_one_device(%x: tensor<2x3xf32> {irax.sharding = [["x"]]}) -> tensor<1x2x3xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %b = "irax.reshape"(%x) {new_sizes = array<i64: 1, 2, 3>} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  // expected-error @+1 {{'irax.shard_map' op cannot be partitioned: expected the function's mesh {'x': 2} on devices [0, 1], but got mesh {'z': 1} on devices [3]}}
  %m = "irax.shard_map"(%b) {axis_size = 1 : i64, axis_name = "", callee = @negate3, devices = array<i64: 3>, in_axes = array<i64: 0>, mesh_axes = ["z"], mesh_shape = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  return %m : tensor<1x2x3xf32>
}
func.func private @negate3(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = "irax.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}
