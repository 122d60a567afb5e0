// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-partition)' | filecheck %s

// A partitioned function that runs shard_maps among other ops (a jit of code around
// shard_maps, which jit partitions over their mesh): each map's callee (already
// per-device code) is copied into the per-device function, on the device's block of each
// stacked operand; the ops around it are partitioned by their rules.

// A replicated argument, cut into this device's block; the map's psum over "y" leaves a
// result that varies over "x" only: the devices along "y" hold equal blocks, so the
// first-device slice of the out spec P("x") joins copies of this device's block instead
// of gathering the others'.
// CHECK-LABEL: func.func @around
// CHECK: "irax.shard_map"(%arg0) {{{.*}}callee = @around_spmd{{.*}}in_axes = array<i64: -1>
// CHECK-LABEL: func.func private @around_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = "irax.sin"(%[[X]]) : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[B:.*]] = "irax.dynamic_slice"
// CHECK-SAME: {slice_sizes = array<i64: 1, 2, 3>}
// CHECK: %[[L:.*]] = "irax.reshape"(%[[B]]) {new_sizes = array<i64: 2, 3>}
// CHECK: %[[P:.*]] = "irax.psum"(%[[L]]) {axis_name = "y"}
// CHECK: %[[R:.*]] = "irax.reshape"(%[[P]]) {new_sizes = array<i64: 1, 2, 3>}
// CHECK: %[[S:.*]] = "irax.reshape"(%[[R]]) {new_sizes = array<i64: 1, 1, 2, 3>}
// CHECK: %[[C:.*]] = "irax.concatenate"(%[[S]], %[[S]]) {dimension = 1 : i64}
// CHECK: "irax.slice"(%[[C]])
// CHECK-NOT: irax.all_gather
// CHECK: return
func.func @around(%x: tensor<4x6xf32>) -> tensor<4x3xf32>
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %s = "irax.sin"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = "irax.reshape"(%s) {new_sizes = array<i64: 2, 2, 2, 3>} : (tensor<4x6xf32>) -> tensor<2x2x2x3xf32>
  %t = "irax.transpose"(%r) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x2x3xf32>) -> tensor<2x2x2x3xf32>
  %b = "irax.reshape"(%t) {new_sizes = array<i64: 4, 2, 3>} : (tensor<2x2x2x3xf32>) -> tensor<4x2x3xf32>
  %m = "irax.shard_map"(%b) {axis_size = 4 : i64, axis_name = "", callee = @sum_y, devices = array<i64: 0, 1, 2, 3>, in_axes = array<i64: 0>, mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, out_axes = array<i64: 0>} : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %g = "irax.reshape"(%m) {new_sizes = array<i64: 2, 2, 2, 3>} : (tensor<4x2x3xf32>) -> tensor<2x2x2x3xf32>
  %f = "irax.slice"(%g) {start_indices = array<i64: 0, 0, 0, 0>, limit_indices = array<i64: 2, 1, 2, 3>, strides = array<i64: 1, 1, 1, 1>} : (tensor<2x2x2x3xf32>) -> tensor<2x1x2x3xf32>
  %o = "irax.reshape"(%f) {new_sizes = array<i64: 4, 3>} : (tensor<2x1x2x3xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}
func.func private @sum_y(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = "irax.psum"(%x) {axis_name = "y"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// An argument already split like the map's operand moves nothing: the reshape keeps a
// split dimension's axes on the dimensions it is split into and merges fully split
// dimensions into one split over both axes. A result that varies over every axis is
// split over all of them, a block of one per device.
// CHECK-LABEL: func.func private @split_arg_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NOT: {{all_gather|dynamic_slice}}
// CHECK: "irax.reshape"(%[[X]]) {new_sizes = array<i64: 1, 2, 1, 3>} : (tensor<2x3xf32>) -> tensor<1x2x1x3xf32>
// CHECK-NOT: {{all_gather|dynamic_slice}}
// CHECK: %[[L:.*]] = "irax.reshape"({{.*}}) {new_sizes = array<i64: 2, 3>} : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[N:.*]] = "irax.neg"(%[[L]])
// CHECK: %[[O:.*]] = "irax.reshape"(%[[N]]) {new_sizes = array<i64: 1, 2, 3>}
// CHECK-NOT: irax.broadcast_in_dim
// CHECK: return %[[O]] : tensor<1x2x3xf32>
func.func @split_arg(%x: tensor<4x6xf32> {irax.sharding = [["x"], ["y"]]}) -> tensor<4x2x3xf32>
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %r = "irax.reshape"(%x) {new_sizes = array<i64: 2, 2, 2, 3>} : (tensor<4x6xf32>) -> tensor<2x2x2x3xf32>
  %t = "irax.transpose"(%r) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x2x3xf32>) -> tensor<2x2x2x3xf32>
  %b = "irax.reshape"(%t) {new_sizes = array<i64: 4, 2, 3>} : (tensor<2x2x2x3xf32>) -> tensor<4x2x3xf32>
  %m = "irax.shard_map"(%b) {axis_size = 4 : i64, axis_name = "", callee = @negate, devices = array<i64: 0, 1, 2, 3>, in_axes = array<i64: 0>, mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, out_axes = array<i64: 0>} : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return %m : tensor<4x2x3xf32>
}
func.func private @negate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = "irax.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}

// -----

// A function that only runs shard_maps (here in a loop) is not partitioned: it stays
// irax-shard's stacked program, which cuts each map's operands where they are.
// CHECK-LABEL: func.func @in_loop
// CHECK-NOT: _spmd
// CHECK: "irax.while"
// CHECK: "irax.shard_map"
func.func @in_loop(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "irax.while"(%x) ({
  ^bb0(%c: tensor<4x3xf32>):
    %p = "irax.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<4x3xf32>):
    %b = "irax.reshape"(%c) {new_sizes = array<i64: 2, 2, 3>} : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
    %m = "irax.shard_map"(%b) {axis_size = 2 : i64, axis_name = "", callee = @negate, devices = array<i64: 0, 1>, in_axes = array<i64: 0>, mesh_axes = ["x"], mesh_shape = array<i64: 2>, out_axes = array<i64: 0>} : (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %d = "irax.reshape"(%m) {new_sizes = array<i64: 4, 3>} : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
    "irax.return"(%d) : (tensor<4x3xf32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @negate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = "irax.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}
