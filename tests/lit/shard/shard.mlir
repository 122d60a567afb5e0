// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-shard)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-shard, irax-inline, irax-lower-to-stablehlo)' | filecheck %s --check-prefix=LOWER

// irax-shard repeats the pmap's callee once per device: each device gets its slice of the
// mapped operands through irax.transfer, runs its copy of every op, and the results are
// stacked on device 0.

// CHECK-LABEL: func.func @main_sin
// CHECK: "irax.call"(%arg0) {callee = @f_pmap}
// CHECK-LABEL: func.func private @f_pmap
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S0:.*]] = "irax.slice"(%[[X]]) {limit_indices = array<i64: 1, 3>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}
// CHECK: %[[R0:.*]] = "irax.reshape"(%[[S0]]) {new_sizes = array<i64: 3>}
// CHECK: %[[X0:.*]] = "irax.transfer"(%[[R0]]) {device = 0 : i64}
// CHECK: %[[S1:.*]] = "irax.slice"(%[[X]]) {limit_indices = array<i64: 2, 3>, start_indices = array<i64: 1, 0>
// CHECK: %[[R1:.*]] = "irax.reshape"(%[[S1]])
// CHECK: %[[X1:.*]] = "irax.transfer"(%[[R1]]) {device = 1 : i64}
// CHECK: %[[Y0:.*]] = "irax.sin"(%[[X0]])
// CHECK: %[[Y1:.*]] = "irax.sin"(%[[X1]])
// CHECK: %[[H0:.*]] = "irax.transfer"(%[[Y0]]) {device = 0 : i64}
// CHECK: %[[H1:.*]] = "irax.transfer"(%[[Y1]]) {device = 0 : i64}
// CHECK: "irax.concatenate"
// CHECK-SAME: {dimension = 0 : i64}
// LOWER: module attributes {irax.num_devices = 2 : i64}
// LOWER: flow.tensor.transfer %{{.*}} : tensor<3xf32> to #hal.device.promise<@dev1>
// LOWER-COUNT-2: stablehlo.sine
func.func @main_sin(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A psum is a tree of transfers: device 3's value goes to device 2, is added there, and
// the total goes back to device 3 (each result on its own device); an unmapped operand
// is copied to every device.
// CHECK-LABEL: func.func private @g_pmap
// CHECK-SAME: (%[[W:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<2x3xf32>)
// CHECK: "irax.transfer"(%[[W]]) {device = 2 : i64}
// CHECK: "irax.transfer"(%[[W]]) {device = 3 : i64}
// CHECK: %[[M0:.*]] = "irax.mul"
// CHECK: %[[M1:.*]] = "irax.mul"
// CHECK: %[[G1:.*]] = "irax.transfer"(%[[M1]]) {device = 2 : i64}
// CHECK: %[[SUM:.*]] = "irax.add"(%[[M0]], %[[G1]])
// CHECK: "irax.transfer"(%[[SUM]]) {device = 3 : i64}
func.func @main_psum(%w: tensor<3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "irax.pmap"(%w, %x) {callee = @g, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 2, 3>} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @g(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.mul"(%w, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.psum"(%0) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// A public function's arguments and results may live on given devices (the one program
// of a top-level shard_map or pmap: transforms/device_program.py): irax.device becomes
// IREE's iree.abi.affinity, and the module records the devices it addresses.
// LOWER: module attributes {irax.num_devices = 3 : i64}
// LOWER-LABEL: func.func @on_devices
// LOWER-SAME: (%{{.*}}: tensor<3xf32> {iree.abi.affinity = #hal.device.promise<@dev0>}, %{{.*}}: tensor<3xf32> {iree.abi.affinity = #hal.device.promise<@dev2>})
// LOWER-SAME: -> (tensor<3xf32> {iree.abi.affinity = #hal.device.promise<@dev0>}, tensor<3xf32> {iree.abi.affinity = #hal.device.promise<@dev2>})
// LOWER-NOT: irax.device
// LOWER-NOT: flow.tensor.transfer
// LOWER-COUNT-2: stablehlo.sine
func.func @on_devices(%x0: tensor<3xf32> {irax.device = 0 : i64}, %x2: tensor<3xf32> {irax.device = 2 : i64}) -> (tensor<3xf32> {irax.device = 0 : i64}, tensor<3xf32> {irax.device = 2 : i64}) {
  %0 = "irax.sin"(%x0) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.sin"(%x2) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
