// RUN: irax-opt %s -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s

// IREE 3.13 gave two boolean concatenations of one shape the same result. A boolean
// concatenate runs on int8 and compares with 0.
// CHECK-LABEL: func.func @bool_concatenate
// CHECK: %[[A:.*]] = stablehlo.convert %arg0 : (tensor<1xi1>) -> tensor<1xi8>
// CHECK: %[[B:.*]] = stablehlo.convert %arg1 : (tensor<3xi1>) -> tensor<3xi8>
// CHECK: %[[C:.*]] = stablehlo.concatenate %[[A]], %[[B]], dim = 0 : (tensor<1xi8>, tensor<3xi8>) -> tensor<4xi8>
// CHECK: %[[R:.*]] = stablehlo.compare NE, %[[C]], {{.*}} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
// CHECK: return %[[R]]
func.func @bool_concatenate(%x: tensor<1xi1>, %y: tensor<3xi1>) -> tensor<4xi1> {
  %0 = "irax.concatenate"(%x, %y) {dimension = 0 : i64} : (tensor<1xi1>, tensor<3xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// Other dtypes are left as they are.
// CHECK-LABEL: func.func @int_concatenate
// CHECK-NEXT: stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
func.func @int_concatenate(%x: tensor<1xi32>, %y: tensor<3xi32>) -> tensor<4xi32> {
  %0 = "irax.concatenate"(%x, %y) {dimension = 0 : i64} : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
