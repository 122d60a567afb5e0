// Named pipelines expand to their pass lists; irax-default takes a grad to StableHLO.
// RUN: irax-opt %s -p 'builtin.module(irax-default)' | filecheck %s
// RUN: irax-opt %s -p 'builtin.module(irax-expand-transforms, irax-inline, irax-simplify)' | filecheck %s --check-prefix=IRAX

// CHECK-LABEL: func.func @main
// CHECK: %[[C:.*]] = stablehlo.cosine %arg0
// CHECK: return %[[C]]
// IRAX-LABEL: func.func @main
// IRAX-NEXT: %[[C:.*]] = "irax.cos"(%arg0)
// IRAX-NEXT: return %[[C]]
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @f, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
