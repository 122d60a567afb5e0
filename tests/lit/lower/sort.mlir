// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// A stable sort: an iota along the dimension is the last key (IREE's sort is not stable),
// every operand is copied by a select on a predicate hidden behind a barrier (IREE sorts
// its operand buffers in place), floats compare with NaN last, and a barrier reads every
// result (IREE keeps unread results on the stack).
// CHECK-LABEL: func.func @stable_f32
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x3xi32>
// CHECK: %[[P:.*]]:2 = stablehlo.optimization_barrier %{{.*}}, %{{.*}} : tensor<i1>, tensor<i1>
// CHECK: %[[X:.*]] = stablehlo.select %{{.*}}, %arg0, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK: %[[I:.*]] = stablehlo.select %{{.*}}, %[[IOTA]], %{{.*}} : tensor<2x3xi1>, tensor<2x3xi32>
// CHECK: %[[S:.*]]:2 = "stablehlo.sort"(%[[X]], %[[I]]) <{dimension = 1 : i64, is_stable = true}>
// CHECK: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %[[C:.*]]: tensor<i32>, %[[D:.*]]: tensor<i32>):
// CHECK-DAG: stablehlo.compare LT, %[[C]], %[[D]], SIGNED
// CHECK-DAG: stablehlo.compare LT, %[[A]], %[[B]], FLOAT
// CHECK-DAG: stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK: stablehlo.return
// CHECK: %[[R:.*]]:2 = stablehlo.optimization_barrier %[[S]]#0, %[[S]]#1
// CHECK: return %[[R]]#0 : tensor<2x3xf32>
func.func @stable_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "irax.sort"(%x) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two keys, unstable: no iota; the comparator is lt0 | (eq0 & lt1); unsigned compare.
// CHECK-LABEL: func.func @two_keys
// CHECK-NOT: stablehlo.iota
// CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}}, %{{.*}}) <{dimension = 0 : i64, is_stable = false}>
// CHECK: ^bb0(%[[K0:.*]]: tensor<ui8>, %[[K1:.*]]: tensor<ui8>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK-DAG: %[[LT0:.*]] = stablehlo.compare LT, %[[K0]], %[[K1]], UNSIGNED
// CHECK-DAG: %[[EQ0:.*]] = stablehlo.compare EQ, %[[K0]], %[[K1]], UNSIGNED
// CHECK-DAG: stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
// CHECK: %[[TIE:.*]] = stablehlo.and %[[EQ0]], %{{.*}} : tensor<i1>
// CHECK: %[[LESS:.*]] = stablehlo.or %[[LT0]], %[[TIE]] : tensor<i1>
// CHECK: stablehlo.return %[[LESS]] : tensor<i1>
func.func @two_keys(%k: tensor<4xui8>, %i: tensor<4xi32>, %v: tensor<4xf32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>) {
  %0:3 = "irax.sort"(%k, %i, %v) {dimension = 0 : i64, is_stable = false, num_keys = 2 : i64} : (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<4xui8>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Complex keys compare by (real, imag); bfloat16 moves as its int16 bits (IREE drops the
// sign of a bfloat16 NaN it moves) and is compared as bfloat16.
// CHECK-LABEL: func.func @complex_bf16
// CHECK: %[[BITS:.*]] = stablehlo.bitcast_convert %arg1 : (tensor<3xbf16>) -> tensor<3xi16>
// CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}})
// CHECK: ^bb0(%[[A:.*]]: tensor<complex<f32>>, %[[B:.*]]: tensor<complex<f32>>, %[[C:.*]]: tensor<i16>, %[[D:.*]]: tensor<i16>):
// CHECK-DAG: stablehlo.real %[[A]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-DAG: stablehlo.imag %[[B]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-DAG: stablehlo.bitcast_convert %[[C]] : (tensor<i16>) -> tensor<bf16>
// CHECK: (tensor<3xcomplex<f32>>, tensor<3xi16>) -> (tensor<3xcomplex<f32>>, tensor<3xi16>)
// CHECK: %[[R:.*]]:2 = stablehlo.optimization_barrier
// CHECK: %[[OUT:.*]] = stablehlo.bitcast_convert %[[R]]#1 : (tensor<3xi16>) -> tensor<3xbf16>
// CHECK: return %[[R]]#0, %[[OUT]]
func.func @complex_bf16(%a: tensor<3xcomplex<f32>>, %b: tensor<3xbf16>) -> (tensor<3xcomplex<f32>>, tensor<3xbf16>) {
  %0:2 = "irax.sort"(%a, %b) {dimension = 0 : i64, is_stable = false, num_keys = 2 : i64} : (tensor<3xcomplex<f32>>, tensor<3xbf16>) -> (tensor<3xcomplex<f32>>, tensor<3xbf16>)
  return %0#0, %0#1 : tensor<3xcomplex<f32>>, tensor<3xbf16>
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
