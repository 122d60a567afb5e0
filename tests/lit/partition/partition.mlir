// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-partition)' | filecheck %s

// irax-partition turns a function with a mesh and shardings into a shard_map of a
// per-device function: each op is emitted on the device's blocks by its sharding rule,
// with the collectives that moving between shardings and completing partial results need.

// Elementwise ops and a contraction over a split dimension: the per-device dot sums this
// device's rows only, a psum over "x" completes it.
// CHECK-LABEL: func.func @contract
// CHECK: %[[B:.*]] = "irax.reshape"(%arg0) {new_sizes = array<i64: 2, 4, 3>}
// CHECK: "irax.shard_map"(%[[B]], %arg1) {{{.*}}callee = @contract_spmd{{.*}}in_axes = array<i64: 0, -1>{{.*}}mesh_axes = ["x"]
// CHECK-LABEL: func.func private @contract_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK: %[[T:.*]] = "irax.tanh"(%[[X]]) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[H:.*]] = "irax.dot_general"(%[[T]], %[[X]]) {{.*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
// CHECK: %[[S:.*]] = "irax.psum"(%[[H]]) {axis_name = "x"}
// CHECK: %[[O:.*]] = "irax.dot_general"(%[[S]], %[[W]])
// CHECK: return %[[O]] : tensor<3x2xf32>
func.func @contract(%x: tensor<8x3xf32> {irax.sharding = [["x"]]}, %w: tensor<3x2xf32>) -> tensor<3x2xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %t = "irax.tanh"(%x) : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %h = "irax.dot_general"(%t, %x) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<3x3xf32>
  %o = "irax.dot_general"(%h, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -----

// Reductions: a max over a split dimension leaves partial maxima for a pmax; a sum over
// the whole dimension keeps the split of the others.
// CHECK-LABEL: func.func private @reduce_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[M:.*]] = "irax.reduce_max"(%[[X]]) {axes = array<i64: 0, 1>}
// CHECK: "irax.pmax"(%[[M]]) {axis_name = "y"}
// CHECK: "irax.reduce_sum"(%[[X]]) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
func.func @reduce(%x: tensor<4x3xf32> {irax.sharding = [["y"]]}) -> (tensor<f32>, tensor<4xf32> {irax.sharding = [["y"]]})
    attributes {irax.mesh = {axes = ["y"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %m = "irax.reduce_max"(%x) {axes = array<i64: 0, 1>} : (tensor<4x3xf32>) -> tensor<f32>
  %s = "irax.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %m, %s : tensor<f32>, tensor<4xf32>
}

// -----

// Shape ops keep the splits they can: a transpose moves it, a broadcast keeps it on the
// kept dimension (its shape attribute is the device's), a reshape keeps a major split.
// CHECK-LABEL: func.func private @shapes_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK: "irax.transpose"(%[[X]]) {permutation = array<i64: 1, 0>} : (tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK: "irax.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 0, 2>, shape = array<i64: 2, 5, 6>}
// CHECK: "irax.reshape"(%[[X]]) {new_sizes = array<i64: 2, 2, 3>} : (tensor<2x6xf32>) -> tensor<2x2x3xf32>
func.func @shapes(%x: tensor<4x6xf32> {irax.sharding = [["x"]]}) -> (tensor<6x4xf32>, tensor<4x5x6xf32>, tensor<4x2x3xf32>)
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %t = "irax.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %b = "irax.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 2>, shape = array<i64: 4, 5, 6>} : (tensor<4x6xf32>) -> tensor<4x5x6xf32>
  %r = "irax.reshape"(%x) {new_sizes = array<i64: 4, 2, 3>} : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
  return %t, %b, %r : tensor<6x4xf32>, tensor<4x5x6xf32>, tensor<4x2x3xf32>
}

// -----

// Resharding at a constraint: rows over "x" to columns over "x" moves the axis between
// dimensions with one all_to_all (each device sends the other the block it will own).
// CHECK-LABEL: func.func private @constraint_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[C:.*]] = "irax.all_to_all"(%[[X]]) {axis_name = "x", axis_size = 2 : i64, concat_axis = 0 : i64, split_axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NOT: irax.all_gather
// CHECK-NOT: irax.sharding_constraint
// CHECK: "irax.neg"(%[[C]]) : (tensor<4x2xf32>) -> tensor<4x2xf32>
func.func @constraint(%x: tensor<4x4xf32> {irax.sharding = [["x"]]}) -> tensor<4x4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %c = "irax.sharding_constraint"(%x) {sharding = [[], ["x"]], mesh_axes = ["x"], mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = "irax.neg"(%c) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// -----

// An op without a partitioned form (sort along its split dimension) runs on the whole
// operand: gathered first, its result replicated. The function's mesh may come from a
// constraint alone.
// CHECK-LABEL: func.func private @whole_spmd
// CHECK: %[[G:.*]] = "irax.all_gather"(%{{.*}}) {axis = 0 : i64, axis_name = "x"
// CHECK: "irax.sort"(%[[G]]) {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
func.func @whole(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = "irax.sharding_constraint"(%x) {sharding = [["x"]], mesh_axes = ["x"], mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %s = "irax.sort"(%c) {dimension = 0 : i64, is_stable = true, num_keys = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A partial sum whose use splits a dimension over the pending axis is reduce-scattered:
// each device sums only its block of the product (irax.psum_scatter, half the data a
// psum moves), here cut further by the out sharding, split over "x" and then "y".
// CHECK-LABEL: func.func private @scatter_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>, %[[W:.*]]: tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK: %[[P:.*]] = "irax.dot_general"(%[[X]], %[[W]]) {{.*}} -> tensor<8x6xf32>
// CHECK-NOT: "irax.psum"(
// CHECK: %[[S:.*]] = "irax.psum_scatter"(%[[P]]) {axis_name = "x", axis_size = 2 : i64, scatter_dimension = 0 : i64, tiled = true} : (tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK-NOT: "irax.psum"(
// CHECK: "irax.dynamic_slice"(%[[S]]
// CHECK-SAME: -> tensor<2x6xf32>
func.func @scatter(%x: tensor<8x4xf32> {irax.sharding = [[], ["x"]]}, %w: tensor<4x6xf32> {irax.sharding = [["x"]]}) -> (tensor<8x6xf32> {irax.sharding = [["x", "y"]]})
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %p = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %p : tensor<8x6xf32>
}

// -----

// The sum is completed once, at its first use: a constraint that splits it scatters it;
// an elementwise use follows that split, and a result wanted whole gathers the blocks
// (no second sum).
// CHECK-LABEL: func.func private @scatter_then_whole_spmd
// CHECK: %[[P:.*]] = "irax.dot_general"
// CHECK: %[[S:.*]] = "irax.psum_scatter"(%[[P]]) {axis_name = "x", axis_size = 2 : i64, scatter_dimension = 1 : i64, tiled = true} : (tensor<8x6xf32>) -> tensor<8x3xf32>
// CHECK: %[[E:.*]] = "irax.exp"(%[[S]]) : (tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK: %[[G:.*]] = "irax.all_gather"(%[[S]]) {axis = 1 : i64, axis_name = "x", axis_size = 2 : i64, tiled = true} : (tensor<8x3xf32>) -> tensor<8x6xf32>
// CHECK: return %[[E]], %[[G]] : tensor<8x3xf32>, tensor<8x6xf32>
func.func @scatter_then_whole(%x: tensor<8x4xf32> {irax.sharding = [[], ["x"]]}, %w: tensor<4x6xf32> {irax.sharding = [["x"]]}) -> (tensor<8x6xf32>, tensor<8x6xf32> {irax.sharding = [[], []]})
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %p = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %c = "irax.sharding_constraint"(%p) {sharding = [[], ["x"]], mesh_axes = ["x"], mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  %e = "irax.exp"(%c) : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %e, %p : tensor<8x6xf32>, tensor<8x6xf32>
}

// -----

// A use that splits the scattered dimension further (over "x", then "y") gets the
// scatter's block cut by "y": the value is recorded as split over "x" only.
// CHECK-LABEL: func.func private @scatter_then_cut_spmd
// CHECK: %[[S:.*]] = "irax.psum_scatter"({{.*}}) {axis_name = "x", axis_size = 2 : i64, scatter_dimension = 0 : i64, tiled = true} : (tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[C:.*]] = "irax.dynamic_slice"(%[[S]]
// CHECK-SAME: -> tensor<2x6xf32>
// CHECK: "irax.exp"(%[[C]]) : (tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK: "irax.all_gather"(%[[S]]) {axis = 0 : i64, axis_name = "x", axis_size = 2 : i64, tiled = true} : (tensor<4x6xf32>) -> tensor<8x6xf32>
func.func @scatter_then_cut(%x: tensor<8x4xf32> {irax.sharding = [[], ["x"]]}, %w: tensor<4x6xf32> {irax.sharding = [["x"]]}) -> (tensor<8x6xf32> {irax.sharding = [["x", "y"]]}, tensor<8x6xf32> {irax.sharding = [[], []]})
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %p = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %c = "irax.sharding_constraint"(%p) {sharding = [["x", "y"]], mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  %e = "irax.exp"(%c) : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %e, %p : tensor<8x6xf32>, tensor<8x6xf32>
}

// -----

// Two axes moving between dimensions, one all_to_all each (innermost first); an axis that
// is not its dimension's innermost one cannot move so: gathered and cut instead.
// CHECK-LABEL: func.func private @swap_two_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK: %[[A:.*]] = "irax.all_to_all"(%[[X]]) {axis_name = "y", axis_size = 2 : i64, concat_axis = 0 : i64, split_axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<4x4xf32>
// CHECK: %[[B:.*]] = "irax.all_to_all"(%[[A]]) {axis_name = "x", axis_size = 2 : i64, concat_axis = 0 : i64, split_axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<8x2xf32>
// CHECK: "irax.neg"(%[[B]])
// CHECK: "irax.all_gather"
// CHECK-NOT: irax.all_to_all
// CHECK: return
func.func @swap_two(%x: tensor<8x8xf32> {irax.sharding = [["x", "y"]]}) -> (tensor<8x8xf32>, tensor<8x8xf32>)
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %c = "irax.sharding_constraint"(%x) {sharding = [[], ["y", "x"]], mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = "irax.neg"(%c) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = "irax.sharding_constraint"(%n) {sharding = [["y"], ["x"]], mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %n, %d : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A dimension's axes all moving, in their order, to a whole dimension: one all_to_all per
// axis over that axis' share of the whole dimension (split into (2, 2, 2) here), whose
// axis then counts the senders; the senders' axes join the other dimension.
// CHECK-LABEL: func.func private @move_all_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<8x2xf32>)
// CHECK: %[[R:.*]] = "irax.reshape"(%[[X]]) {new_sizes = array<i64: 2, 2, 2, 2>} : (tensor<8x2xf32>) -> tensor<2x2x2x2xf32>
// CHECK: %[[A:.*]] = "irax.all_to_all"(%[[R]]) {axis_name = "y", axis_size = 2 : i64, concat_axis = 0 : i64, split_axis = 0 : i64}
// CHECK: %[[B:.*]] = "irax.all_to_all"(%[[A]]) {axis_name = "x", axis_size = 2 : i64, concat_axis = 1 : i64, split_axis = 1 : i64}
// CHECK: %[[T:.*]] = "irax.transpose"(%[[B]]) {permutation = array<i64: 2, 0, 1, 3>}
// CHECK: "irax.reshape"(%[[T]]) {new_sizes = array<i64: 2, 8>} : (tensor<2x2x2x2xf32>) -> tensor<2x8xf32>
// CHECK-NOT: irax.all_gather
// CHECK: return
func.func @move_all(%x: tensor<8x8xf32> {irax.sharding = [[], ["y", "x"]]}) -> tensor<8x8xf32>
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %c = "irax.sharding_constraint"(%x) {sharding = [["y", "x"]], mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>, devices = array<i64: 0, 1, 2, 3>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

// A gather (an embedding lookup): the indices' batch dimension keeps its split over "x",
// the table's columns (spanned whole by every window) keep theirs over "y", and the
// per-device gather takes this device's indices into its columns, with no collective.
// CHECK-LABEL: func.func private @embed_spmd
// CHECK-SAME: (%[[T:.*]]: tensor<10x2xf32>, %[[I:.*]]: tensor<4x1xi32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[G:.*]] = "irax.gather"(%[[T]], %[[I]]) {{.*}}slice_sizes = array<i64: 1, 2>{{.*}} : (tensor<10x2xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x2xf32>
func.func @embed(%t: tensor<10x4xf32> {irax.sharding = [[], ["y"]]}, %i: tensor<8x1xi32> {irax.sharding = [["x"]]}) -> tensor<8x4xf32>
    attributes {irax.mesh = {axes = ["x", "y"], devices = array<i64: 0, 1, 2, 3>, shape = array<i64: 2, 2>}} {
  %g = "irax.gather"(%t, %i) {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 4>} : (tensor<10x4xf32>, tensor<8x1xi32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}
