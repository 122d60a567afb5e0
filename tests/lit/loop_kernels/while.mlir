// RUN: irax-opt %s -p 'builtin.module(irax-loop-kernels)' | filecheck %s
// RUN: env IRAX_LOOP_KERNEL_VECTOR_LANES=0 irax-opt %s -p 'builtin.module(irax-loop-kernels)' \
// RUN:   | filecheck %s --check-prefix SCALAR

// The indexing maps of the kernels: a row, and a lane of a row.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[LANE0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[LANE1:.*]] = affine_map<(d0) -> (d0, 1)>

// A scalar loop becomes a linalg.generic over one row around an scf.while on scalars.
// CHECK-LABEL: func.func @scalar_loop
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<1xi32>, tensor<1xf32>)
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, f32) -> (i32, f32)
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: linalg.yield
// CHECK-NOT: stablehlo.while
func.func @scalar_loop(%n: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.constant dense<1.000100e+00> : tensor<f32>
    %m = stablehlo.multiply %y, %a : tensor<f32>
    %s = stablehlo.add %m, %a : tensor<f32>
    stablehlo.return %i1, %s : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

// A loop over a [4] carry with a 0-d counter: two rows of two lanes, each lane read
// through its own map ((d0) -> (d0, 0), (d0) -> (d0, 1)) of the carry reshaped to 2x2;
// one scf.while per row carries the counter once and the row's lanes as one vector (the
// 0-d value broadcast where it meets it; as separate scalars with vector lanes off),
// whose results are put side by side again; the captured %n is an input of every row.
// CHECK-LABEL: func.func @vector_loop
// CHECK: %[[R:.*]] = stablehlo.reshape %arg1 : (tensor<4xf32>) -> tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[LANE0]], #[[LANE1]], #{{.*}}, #[[ROW]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%{{.*}}, %[[R]], %[[R]], %arg0 : tensor<i32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)
// CHECK-SAME: outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2xi32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[C:[a-z0-9_]+]]: i32, %[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32,
// CHECK: %[[V:.*]] = vector.from_elements %[[A]], %[[B]] : vector<2xf32>
// CHECK: scf.while ({{.*}} = %[[C]], {{.*}} = %[[V]]) : (i32, vector<2xf32>) -> (i32, vector<2xf32>)
// CHECK: %[[F:.*]] = arith.sitofp
// CHECK: %[[FB:.*]] = vector.broadcast %[[F]] : f32 to vector<2xf32>
// CHECK: arith.maximumf %{{.*}}, %[[FB]] : vector<2xf32>
// CHECK-NOT: arith.maximumf
// CHECK: %[[L0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK: %[[L1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK: linalg.yield %{{.*}}, %[[L0]], %[[L1]] : i32, f32, f32
// SCALAR-LABEL: func.func @vector_loop
// SCALAR: scf.while ({{.*}}) : (i32, f32, f32) -> (i32, f32, f32)
// SCALAR: arith.maximumf %{{.*}}, %{{.*}} : f32
// SCALAR: arith.maximumf %{{.*}}, %{{.*}} : f32
// SCALAR-NOT: vector.
// SCALAR-LABEL: func.func @reduction_stays
// CHECK: stablehlo.slice %{{.*}} [0:1] : (tensor<2xi32>) -> tensor<1xi32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<1xi32>) -> tensor<i32>
// CHECK: stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 1 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<2x2xf32>) -> tensor<4xf32>
func.func @vector_loop(%n: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.maximum %y, %b : tensor<4xf32>
    stablehlo.return %i1, %m : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// A reduction in the body: not elementwise, no scalar kernel (a vector kernel instead:
// vector.mlir).
// CHECK-LABEL: func.func @reduction_stays
// CHECK-NOT: linalg.generic
// CHECK: flow.dispatch.region
func.func @reduction_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %k = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.add %y, %b : tensor<4xf32>
    stablehlo.return %i1, %m : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// A body that calls a function, reads a constant table by an index per element (the
// gather form of irax's sin/cos reduction) and shifts bits: the callee is emitted inline,
// the gather becomes a clamped tensor.extract, the shift guards amounts >= the width.
// CHECK-LABEL: func.func @call_table_shift
// CHECK: linalg.generic
// CHECK: scf.while
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.cmpi ult
// CHECK: arith.shrui
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.index_cast
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
// CHECK-NOT: func.call
// CHECK-NOT: stablehlo.while
func.func @call_table_shift(%n: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %y1 = func.call @lookup(%y) : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %i1, %y1 : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}
func.func private @lookup(%y: tensor<2xf32>) -> tensor<2xf32> {
  %bits = stablehlo.bitcast_convert %y : (tensor<2xf32>) -> tensor<2xi32>
  %k = stablehlo.constant dense<30> : tensor<2xi32>
  %hi = stablehlo.shift_right_logical %bits, %k : tensor<2xi32>
  %idx = stablehlo.reshape %hi : (tensor<2xi32>) -> tensor<2x1xi32>
  %t = stablehlo.constant dense<[0.5, 0.25, 0.125, 2.0]> : tensor<4xf32>
  %g = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  %m = stablehlo.multiply %y, %g : tensor<2xf32>
  return %m : tensor<2xf32>
}

// The same lookup on rows of four lanes: each lane's index is read out of the index
// vector, its element looked up, and the elements make the row's vector again.
// CHECK-LABEL: func.func @table_on_vector_lanes
// CHECK: linalg.generic
// CHECK: scf.while ({{.*}}) : (i32, vector<4xf32>) -> (i32, vector<4xf32>)
// CHECK: arith.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.shrui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[I0:.*]] = vector.extract %[[IDX:.*]][0] : i32 from vector<4xi32>
// CHECK: arith.maxsi %[[I0]]
// CHECK: %[[E0:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
// CHECK: vector.extract %[[IDX]][3] : i32 from vector<4xi32>
// CHECK: %[[E3:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
// CHECK: %[[G:.*]] = vector.from_elements %[[E0]], %{{.*}}, %{{.*}}, %[[E3]] : vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %[[G]] : vector<4xf32>
// CHECK-NOT: stablehlo.while
func.func @table_on_vector_lanes(%n: tensor<i32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %bits = stablehlo.bitcast_convert %y : (tensor<8xf32>) -> tensor<8xi32>
    %k = stablehlo.constant dense<30> : tensor<8xi32>
    %hi = stablehlo.shift_right_logical %bits, %k : tensor<8xi32>
    %idx = stablehlo.reshape %hi : (tensor<8xi32>) -> tensor<8x1xi32>
    %t = stablehlo.constant dense<[0.5, 0.25, 0.125, 2.0]> : tensor<4xf32>
    %g = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<8x1xi32>) -> tensor<8xf32>
    %m = stablehlo.multiply %y, %g : tensor<8xf32>
    stablehlo.return %i1, %m : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}

// A gather of rows (not single elements of a 1-D table): the loop stays.
// CHECK-LABEL: func.func @row_gather_stays
// CHECK-NOT: linalg.generic
// CHECK: stablehlo.while
func.func @row_gather_stays(%n: tensor<i32>, %x: tensor<2xi32>) -> tensor<2xi32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<2xi32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %t = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %idx = stablehlo.reshape %y : (tensor<2xi32>) -> tensor<2x1xi32>
    %g = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
    %s = stablehlo.slice %g [0:2, 0:1] : (tensor<2x2xi32>) -> tensor<2x1xi32>
    %y1 = stablehlo.reshape %s : (tensor<2x1xi32>) -> tensor<2xi32>
    stablehlo.return %i1, %y1 : tensor<i32>, tensor<2xi32>
  }
  return %r#1 : tensor<2xi32>
}
