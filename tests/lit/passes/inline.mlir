// RUN: irax-opt %s -p 'builtin.module(irax-inline)' | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[M:.*]] = "irax.mul"(%arg0, %arg0)
// CHECK-NEXT: %[[S:.*]] = "irax.sin"(%[[M]])
// CHECK-NEXT: return %[[S]]
// CHECK-NOT: func.func private @sq
// CHECK-NOT: func.func private @sinsq
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "irax.call"(%a) {callee = @sinsq} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @sinsq(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.call"(%x) {callee = @sq} : (tensor<f32>) -> tensor<f32>
  %1 = "irax.sin"(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @sq(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.mul"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
