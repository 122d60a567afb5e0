// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-raise-stablehlo)' | filecheck %s

// CHECK-LABEL: func.func @dynamic_slices
func.func @dynamic_slices(%x: tensor<4x3xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) -> (tensor<2x2xf32>, tensor<4x3xf32>) {
  // CHECK: %[[S:.*]] = "irax.dynamic_slice"(%arg0, %arg2, %arg2) {slice_sizes = array<i64: 2, 2>} : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %0 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 2] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  // CHECK: %[[U:.*]] = "irax.dynamic_update_slice"(%arg0, %arg1, %arg2, %arg2) : (tensor<4x3xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<4x3xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  // CHECK: return %[[S]], %[[U]]
  return %0, %1 : tensor<2x2xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%x: tensor<4x3xf32>, %idx: tensor<2x1xi32>, %upd: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  // CHECK: %[[G:.*]] = "irax.gather"(%arg0, %arg1) {collapsed_slice_dims = array<i64: 0>, index_vector_dim = 1 : i64, offset_dims = array<i64: 1>, slice_sizes = array<i64: 1, 3>, start_index_map = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %0 = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  // CHECK: %[[S:.*]] = "irax.scatter_add"(%arg0, %arg1, %arg2) {index_vector_dim = 1 : i64, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, update_window_dims = array<i64: 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = "stablehlo.scatter"(%x, %idx, %upd) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: return %[[G]], %[[S]]
  return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}

// -----

// A scalar update at an implicit index_vector_dim = 0 (JAX's x.at[i].add(v)).
// CHECK-LABEL: func.func @scatter_scalar
func.func @scatter_scalar(%x: tensor<5xf32>, %i: tensor<1xi32>, %v: tensor<f32>) -> tensor<5xf32> {
  // CHECK: "irax.scatter_add"(%arg0, %arg1, %arg2) {index_vector_dim = 0 : i64, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, update_window_dims = array<i64>}
  %0 = "stablehlo.scatter"(%x, %i, %v) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %b, %a : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<1xi32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
