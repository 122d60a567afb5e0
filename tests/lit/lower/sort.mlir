// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// The portable form: one stablehlo.sort whose comparator is the total order's "less than"
// (NaN last: x < y, or x is a number and y a NaN); irax.num_keys records the keys. No
// iota, copies, barriers or networks: those are irax-legalize-iree's (legalize/sort.mlir).
// CHECK-LABEL: func.func @stable_f32
// CHECK-NOT: stablehlo.iota
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK: %[[S:.*]] = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-DAG: %[[LT:.*]] = stablehlo.compare LT, %[[A]], %[[B]], FLOAT
// CHECK-DAG: %[[NUM:.*]] = stablehlo.compare EQ, %[[A]], %[[A]], FLOAT
// CHECK-DAG: %[[NAN:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK: %[[LAST:.*]] = stablehlo.and %[[NUM]], %[[NAN]] : tensor<i1>
// CHECK: %[[LESS:.*]] = stablehlo.or %[[LT]], %[[LAST]] : tensor<i1>
// CHECK: stablehlo.return %[[LESS]] : tensor<i1>
// CHECK: }) {irax.num_keys = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x3xf32>
func.func @stable_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "irax.sort"(%x) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// bfloat16 stays bfloat16 and a long sort stays one sort in the portable form.
// CHECK-LABEL: func.func @long_bf16
// CHECK-NOT: bitcast_convert
// CHECK-NOT: stablehlo.while
// CHECK: "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = false}>
// CHECK: ^bb0(%{{.*}}: tensor<bf16>, %{{.*}}: tensor<bf16>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
// CHECK: }) {irax.num_keys = 2 : i64} : (tensor<300xbf16>, tensor<300xi32>) -> (tensor<300xbf16>, tensor<300xi32>)
func.func @long_bf16(%x: tensor<300xbf16>, %i: tensor<300xi32>) -> (tensor<300xbf16>, tensor<300xi32>) {
  %0:2 = "irax.sort"(%x, %i) {dimension = 0 : i64, is_stable = false, num_keys = 2 : i64} : (tensor<300xbf16>, tensor<300xi32>) -> (tensor<300xbf16>, tensor<300xi32>)
  return %0#0, %0#1 : tensor<300xbf16>, tensor<300xi32>
}

// -----

func.func @mismatched_shapes(%a: tensor<3xf32>, %b: tensor<4xi32>) -> (tensor<3xf32>, tensor<4xi32>) {
  // expected-error @+1 {{'irax.sort' op expected operands of one shape, but got float32[3] and int32[4]}}
  %0:2 = "irax.sort"(%a, %b) {dimension = 0 : i64, is_stable = true} : (tensor<3xf32>, tensor<4xi32>) -> (tensor<3xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<4xi32>
}

// -----

func.func @bad_dimension(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.sort' op expected dimension to be in [0, 1), but got 1}}
  %0 = "irax.sort"(%a) {dimension = 1 : i64, is_stable = true} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @bad_num_keys(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.sort' op expected num_keys to be in [1, 1], but got 2}}
  %0 = "irax.sort"(%a) {dimension = 0 : i64, is_stable = true, num_keys = 2 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @missing_attribute(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.sort' op requires attribute 'is_stable'}}
  %0 = "irax.sort"(%a) {dimension = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
