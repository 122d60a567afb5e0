// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-partition)' | filecheck %s

// irax-partition runs loops and branches on the devices' blocks: their regions are
// partitioned like the function around them (shard/regions.py).

// A while loop keeps its carry's split: the body works on this device's rows; the
// condition sums over every device's rows (a psum inside the condition region), so
// every device takes the same number of trips.
// CHECK-LABEL: func.func private @while_rows_spmd
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[R:.*]] = "irax.while"(%{{.*}}, %[[X]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %[[C:.*]]: tensor<4x4xf32>):
// CHECK-NEXT: %[[S:.*]] = "irax.reduce_sum"(%[[C]]) {axes = array<i64: 0, 1>} : (tensor<4x4xf32>) -> tensor<f32>
// CHECK-NEXT: %[[T:.*]] = "irax.psum"(%[[S]]) {axis_name = "x"}
// CHECK-NEXT: "irax.compare"(%[[T]]
// CHECK: ^bb0(%{{.*}}: tensor<f32>, %[[B:.*]]: tensor<4x4xf32>):
// CHECK-NEXT: %[[D:.*]] = "irax.add"(%[[B]], %[[B]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: "irax.return"(%[[D]]) : (tensor<4x4xf32>) -> ()
// CHECK: return %[[R]] : tensor<4x4xf32>
func.func @while_rows(%x: tensor<8x4xf32> {irax.sharding = [["x"]]}) -> tensor<8x4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %lim = "irax.constant"() {value = dense<100.0> : tensor<f32>} : () -> tensor<f32>
  %r = "irax.while"(%lim, %x) ({
  ^bb0(%l: tensor<f32>, %c: tensor<8x4xf32>):
    %s = "irax.reduce_sum"(%c) {axes = array<i64: 0, 1>} : (tensor<8x4xf32>) -> tensor<f32>
    %p = "irax.compare"(%s, %l) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%l: tensor<f32>, %c: tensor<8x4xf32>):
    %d = "irax.add"(%c, %c) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    "irax.return"(%d) : (tensor<8x4xf32>) -> ()
  }) {num_consts = 1 : i64} : (tensor<f32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// A scan over operands split on another dimension than the scanned one: each step's
// slice keeps the split; the replicated initial carry is cut to the body's split (a
// local slice) and keeps it; the stacked results are split as the body's.
// CHECK-LABEL: func.func private @scan_columns_spmd
// CHECK-SAME: (%[[H:.*]]: tensor<8x4xf32>, %[[XS:.*]]: tensor<5x8x2xf32>) -> (tensor<8x2xf32>, tensor<5x8x2xf32>)
// CHECK: %[[I:.*]] = "irax.axis_index"() {axis_name = "x"}
// CHECK: %[[C:.*]] = "irax.dynamic_slice"(%[[H]], %{{.*}}, %{{.*}}) {slice_sizes = array<i64: 8, 2>}
// CHECK: %[[R:.*]]:2 = "irax.scan"(%[[C]], %[[XS]]) ({
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x2xf32>, %{{.*}}: tensor<8x2xf32>):
// CHECK-NOT: irax.all_gather
// CHECK: }) {length = 5 : i64, num_carry = 1 : i64, num_consts = 0 : i64} : (tensor<8x2xf32>, tensor<5x8x2xf32>) -> (tensor<8x2xf32>, tensor<5x8x2xf32>)
func.func @scan_columns(%h: tensor<8x4xf32>, %xs: tensor<5x8x4xf32> {irax.sharding = [[], [], ["x"]]}) -> (tensor<8x4xf32>, tensor<5x8x4xf32>)
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %r:2 = "irax.scan"(%h, %xs) ({
  ^bb0(%c: tensor<8x4xf32>, %x: tensor<8x4xf32>):
    %s = "irax.add"(%c, %x) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %t = "irax.tanh"(%s) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "irax.return"(%t, %s) : (tensor<8x4xf32>, tensor<8x4xf32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 5 : i64} : (tensor<8x4xf32>, tensor<5x8x4xf32>) -> (tensor<8x4xf32>, tensor<5x8x4xf32>)
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<5x8x4xf32>
}

// -----

// The scanned dimension stays whole: operands split along it are gathered before the
// loop.
// CHECK-LABEL: func.func private @scan_steps_split_spmd
// CHECK: %[[G:.*]] = "irax.all_gather"(%arg0) {axis = 0 : i64, axis_name = "x", axis_size = 2 : i64, tiled = true} : (tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: "irax.scan"(%{{.*}}, %[[G]])
func.func @scan_steps_split(%xs: tensor<4x3xf32> {irax.sharding = [["x"]]}) -> tensor<3xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %z = "irax.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %r = "irax.scan"(%z, %xs) ({
  ^bb0(%c: tensor<3xf32>, %x: tensor<3xf32>):
    %s = "irax.add"(%c, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "irax.return"(%s) : (tensor<3xf32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 4 : i64} : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A branch's result takes the first branch's sharding, refined where another splits it
// further: the contraction's partial sums are reduce-scattered to this device's rows,
// which the other branch keeps.
// CHECK-LABEL: func.func private @cond_refined_spmd
// CHECK-SAME: (%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: "irax.cond"(%[[I]], %[[X]]) ({
// CHECK: %[[P:.*]] = "irax.dot_general"{{.*}} -> tensor<4x4xf32>
// CHECK-NEXT: %[[Q:.*]] = "irax.psum_scatter"(%[[P]]) {axis_name = "x", axis_size = 2 : i64, scatter_dimension = 0 : i64, tiled = true} : (tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: "irax.return"(%[[Q]])
// CHECK: "irax.neg"{{.*}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: }) : (tensor<i32>, tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @cond_refined(%i: tensor<i32>, %x: tensor<4x4xf32> {irax.sharding = [["x"]]}) -> tensor<4x4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<4x4xf32>):
    %t = "irax.dot_general"(%a, %a) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "irax.return"(%t) : (tensor<4x4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4x4xf32>):
    %n = "irax.neg"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    "irax.return"(%n) : (tensor<4x4xf32>) -> ()
  }) : (tensor<i32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A carry keeps its initial value's split even where the body moves it (as JAX does):
// the transposed block goes back to rows with one all_to_all at the end of every trip.
// CHECK-LABEL: func.func private @carry_transposed_spmd
// CHECK: "irax.scan"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<2x4xf32>):
// CHECK-NEXT: %[[T:.*]] = "irax.transpose"(%[[C]]) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[A:.*]] = "irax.all_to_all"(%[[T]]) {axis_name = "x", axis_size = 2 : i64, concat_axis = 1 : i64, split_axis = 0 : i64} : (tensor<4x2xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: "irax.return"(%[[A]]) : (tensor<2x4xf32>) -> ()
func.func @carry_transposed(%x: tensor<4x4xf32> {irax.sharding = [["x"]]}) -> tensor<4x4xf32>
    attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>, shape = array<i64: 2>}} {
  %r = "irax.scan"(%x) ({
  ^bb0(%c: tensor<4x4xf32>):
    %t = "irax.transpose"(%c) {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    "irax.return"(%t) : (tensor<4x4xf32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 3 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
