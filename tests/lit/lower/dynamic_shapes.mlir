// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// Symbolic sizes lower to StableHLO's dynamic ops; a size is read from the function's
// argument that has it (get_dimension_size), arithmetic on sizes is i64 arithmetic, and the
// names are dropped from the types (plain tensor<?x3xf32>). A dynamic broadcast says which
// operand dims expand (IREE 3.13 compiles it only then).

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xi32>, tensor<i32>)
// CHECK: %[[N:.*]] = stablehlo.get_dimension_size %[[X]], dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK: %[[S:.*]] = stablehlo.concatenate
// CHECK: %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %{{.*}}, %[[S]], dims = [] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64>} : (tensor<f32>, tensor<2xi64>) -> tensor<?x3xf32>
// CHECK: %[[Y:.*]] = stablehlo.multiply %[[X]], %[[B]] : tensor<?x3xf32>
// CHECK: stablehlo.multiply %{{.*}}, %{{.*}} : tensor<i64>
// CHECK: %[[F:.*]] = stablehlo.dynamic_reshape %[[Y]], %{{.*}} : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK: %[[I:.*]] = stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<2xi64>) -> tensor<?x3xi32>
// CHECK: %[[D:.*]] = stablehlo.get_dimension_size %[[X]], dim = 0
// CHECK: return %[[Y]], %[[F]], %[[I]], %[[D]] : tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xi32>, tensor<i32>
func.func @main(%x: tensor<?x3xf32, ["b"]>) -> (tensor<?x3xf32, ["b"]>, tensor<?xf32, ["3*b"]>, tensor<?x3xi32, ["b"]>, tensor<i32>) {
  %c = "irax.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %b = "irax.broadcast_in_dim"(%c) {shape = ["b", 3], broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?x3xf32, ["b"]>
  %y = "irax.mul"(%x, %b) : (tensor<?x3xf32, ["b"]>, tensor<?x3xf32, ["b"]>) -> tensor<?x3xf32, ["b"]>
  %f = "irax.reshape"(%y) {new_sizes = ["3*b"]} : (tensor<?x3xf32, ["b"]>) -> tensor<?xf32, ["3*b"]>
  %i = "irax.iota"() {shape = ["b", 3], dtype = i32, dimension = 0 : i64} : () -> tensor<?x3xi32, ["b"]>
  %n = "irax.dimension_size"(%x) {dimension = 0 : i64, dtype = i32} : (tensor<?x3xf32, ["b"]>) -> tensor<i32>
  return %y, %f, %i, %n : tensor<?x3xf32, ["b"]>, tensor<?xf32, ["3*b"]>, tensor<?x3xi32, ["b"]>, tensor<i32>
}

// -----

// A broadcast of a symbolic operand axis: that axis does not expand, the static 1 does.

// CHECK-LABEL: func.func @grow
// CHECK: stablehlo.dynamic_broadcast_in_dim %{{.*}}, %{{.*}}, dims = [0, 1] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x4xf32>
func.func @grow(%x: tensor<?x1xf32, ["b"]>) -> tensor<?x4xf32, ["b"]> {
  %b = "irax.broadcast_in_dim"(%x) {shape = ["b", 4], broadcast_dimensions = array<i64: 0, 1>} : (tensor<?x1xf32, ["b"]>) -> tensor<?x4xf32, ["b"]>
  return %b : tensor<?x4xf32, ["b"]>
}
