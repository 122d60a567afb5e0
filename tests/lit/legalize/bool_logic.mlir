// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 summed one element per row of a mask it had folded to all true. A boolean
// convert to a number becomes a select of 1 and 0, and a boolean or / and with a splat
// constant is folded before IREE sees it.
// CHECK-LABEL: func.func @sum_of_or_true
// CHECK-NOT: stablehlo.or
// CHECK: %[[T:.*]] = stablehlo.constant dense<true> : tensor<3x4xi1>
// CHECK: %[[S:.*]] = stablehlo.select %[[T]], {{.*}} : tensor<3x4xi1>, tensor<3x4xi32>
// CHECK-NOT: stablehlo.convert
// CHECK: stablehlo.reduce(%[[S]]
func.func @sum_of_or_true(%m: tensor<3x4xi1>) -> tensor<3xi32> {
  %t = "irax.constant"() {value = dense<true> : tensor<3x4xi1>} : () -> tensor<3x4xi1>
  %0 = "irax.or"(%m, %t) : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<3x4xi1>
  %1 = "irax.convert"(%0) {new_dtype = i32} : (tensor<3x4xi1>) -> tensor<3x4xi32>
  %2 = "irax.reduce_sum"(%1) {axes = array<i64: 1>} : (tensor<3x4xi32>) -> tensor<3xi32>
  return %2 : tensor<3xi32>
}

// x & True is x; an or of two unknown masks stays.
// CHECK-LABEL: func.func @and_true
// CHECK-NOT: stablehlo.and
// CHECK: %[[O:.*]] = stablehlo.or %arg0, %arg1 : tensor<2xi1>
// CHECK: return %[[O]]
func.func @and_true(%m: tensor<2xi1>, %n: tensor<2xi1>) -> tensor<2xi1> {
  %t = "irax.constant"() {value = dense<true> : tensor<2xi1>} : () -> tensor<2xi1>
  %0 = "irax.and"(%m, %t) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %1 = "irax.or"(%0, %n) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %1 : tensor<2xi1>
}
