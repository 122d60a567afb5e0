// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-shard)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-shard, irax-inline, irax-lower-to-stablehlo)' | filecheck %s --check-prefix=LOWER

// irax-shard expands a shard_map over a 2x2 mesh ("x", "y") as a pmap over its 4
// devices (row-major: device 2k+j is x=k, y=j). A collective over "y" combines the
// devices that share an "x" coordinate, {0, 1} and {2, 3}: a psum is a tree of
// transfers, each pair added on its first device and the total sent back down, so each
// device's result stays on that device (no gather onto one device).

// CHECK-LABEL: func.func private @f_pmap
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-COUNT-4: "irax.transfer"(%{{.*}}) {device = {{[0-3]}} : i64}
// CHECK: %[[S0:.*]] = "irax.sin"
// CHECK: %[[S1:.*]] = "irax.sin"
// CHECK: %[[S2:.*]] = "irax.sin"
// CHECK: %[[S3:.*]] = "irax.sin"
// CHECK: %[[A1:.*]] = "irax.transfer"(%[[S1]]) {device = 0 : i64}
// CHECK: %[[SUM0:.*]] = "irax.add"(%[[S0]], %[[A1]])
// CHECK: %[[R1:.*]] = "irax.transfer"(%[[SUM0]]) {device = 1 : i64}
// CHECK: %[[B3:.*]] = "irax.transfer"(%[[S3]]) {device = 2 : i64}
// CHECK: %[[SUM1:.*]] = "irax.add"(%[[S2]], %[[B3]])
// CHECK: %[[R3:.*]] = "irax.transfer"(%[[SUM1]]) {device = 3 : i64}
// CHECK: "irax.transfer"(%[[SUM0]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[R1]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[SUM1]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[R3]]) {device = 0 : i64}
// CHECK: "irax.concatenate"({{.*}}) {dimension = 0 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
// LOWER: module attributes {irax.num_devices = 4 : i64}
// LOWER: flow.tensor.transfer %{{.*}} : tensor<3xf32> to #hal.device.promise<@dev3>
// LOWER-COUNT-4: stablehlo.sine
func.func @main_psum_y(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "irax.shard_map"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "", mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.psum"(%0) {axis_name = "y"} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// axis_index over "x" is each device's x coordinate, a constant of its own copy: the
// group of devices {0, 2} (y = 0) gets 0 and 1, as does the group {1, 3}; no transfers
// until the results are stacked on the first device.
// CHECK-LABEL: func.func private @g_pmap
// CHECK: %[[A:.*]] = "irax.constant"() {value = dense<0> : tensor<i32>}
// CHECK: %[[B:.*]] = "irax.constant"() {value = dense<1> : tensor<i32>}
// CHECK: %[[C:.*]] = "irax.constant"() {value = dense<0> : tensor<i32>}
// CHECK: %[[D:.*]] = "irax.constant"() {value = dense<1> : tensor<i32>}
// CHECK-NOT: irax.iota
// CHECK: "irax.transfer"(%[[A]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[C]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[B]]) {device = 0 : i64}
// CHECK: "irax.transfer"(%[[D]]) {device = 0 : i64}
// CHECK: "irax.concatenate"
func.func @main_axis_index() -> tensor<4xi32> {
  %r = "irax.shard_map"() {callee = @g, in_axes = array<i64>, out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "", mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : () -> tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func private @g() -> tensor<i32> {
  %0 = "irax.axis_index"() {axis_name = "x"} : () -> tensor<i32>
  return %0 : tensor<i32>
}
