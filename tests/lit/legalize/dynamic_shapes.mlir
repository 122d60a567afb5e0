// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-legalize-iree)' | filecheck %s

// IREE 3.13 cannot convert stablehlo.dynamic_reshape: it becomes a collapse to one
// dimension and an expansion to the result's sizes, read from the shape operand.

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<?x3xf32> into tensor<?xf32>
// CHECK: %[[K:.*]] = arith.constant 0 : index
// CHECK: %[[E:.*]] = tensor.extract %[[S]][%[[K]]] : tensor<2xi64>
// CHECK: %[[D:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [%[[D]], 6] : tensor<?xf32> into tensor<?x6xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: dynamic_reshape
func.func @reshape(%x: tensor<?x3xf32>, %s: tensor<2xi64>) -> tensor<?x6xf32> {
  %y = stablehlo.dynamic_reshape %x, %s : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}

// -----

// To one dimension: the collapse alone.

// CHECK-LABEL: func.func @flatten
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<?x3x2xf32> into tensor<?xf32>
// CHECK-NEXT: return %[[F]]
func.func @flatten(%x: tensor<?x3x2xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %y = stablehlo.dynamic_reshape %x, %s : (tensor<?x3x2xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// An update written into an operand of dynamic size: tensor.insert_slice at each start
// clamped to [0, dim - update_dim], as StableHLO clamps (IREE 3.13 cannot convert the
// dynamic dynamic_update_slice).

// CHECK-LABEL: func.func @update
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[U:.*]]: tensor<1x4xf32>, %[[I:.*]]: tensor<i32>)
// CHECK: %[[N:.*]] = stablehlo.get_dimension_size %[[X]], dim = 0
// CHECK: %[[TOP:.*]] = stablehlo.subtract %{{.*}}, %{{.*}} : tensor<i32>
// CHECK: %[[C:.*]] = stablehlo.clamp %{{.*}}, %[[I]], %[[TOP]] : tensor<i32>
// CHECK: %[[E:.*]] = tensor.extract %[[C]][] : tensor<i32>
// CHECK: %[[O:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK: %[[Y:.*]] = tensor.insert_slice %[[U]] into %[[X]][%[[O]], %{{.*}}] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<?x4xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: dynamic_update_slice
func.func @update(%x: tensor<?x4xf32>, %u: tensor<1x4xf32>, %i: tensor<i32>) -> tensor<?x4xf32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %y = stablehlo.dynamic_update_slice %x, %u, %i, %z : (tensor<?x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A static update into a static operand is IREE's own form: left alone.

// CHECK-LABEL: func.func @static_update
// CHECK: stablehlo.dynamic_update_slice
func.func @static_update(%x: tensor<5x4xf32>, %u: tensor<1x4xf32>, %i: tensor<i32>) -> tensor<5x4xf32> {
  %y = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<5x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
  return %y : tensor<5x4xf32>
}

// -----

// An embedding lookup with indices of dynamic size: besides the clamps, the index vector
// of one entry becomes implicit (IREE 3.13 lowers the explicit form of dynamic size
// through a static-only reshape).

// CHECK-LABEL: func.func @lookup
// CHECK: %[[C:.*]] = stablehlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i32>, tensor<?x1xi32>, tensor<i32>) -> tensor<?x1xi32>
// CHECK: %[[I:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1]] : tensor<?x1xi32> into tensor<?xi32>
// CHECK: "stablehlo.gather"(%{{.*}}, %[[I]]) {{.*}}index_vector_dim = 1>{{.*}} : (tensor<50x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
func.func @lookup(%t: tensor<50x8xf32>, %i: tensor<?x1xi32>) -> tensor<?x8xf32> {
  %0 = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} : (tensor<50x8xf32>, tensor<?x1xi32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
