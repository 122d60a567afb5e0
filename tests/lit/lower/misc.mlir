// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// scatter_add lowers to one stablehlo.scatter with an adding region.
// CHECK-LABEL: func.func @scatter_add
// CHECK: "stablehlo.scatter"
// CHECK: stablehlo.add
// CHECK: stablehlo.return
// GENERIC-LABEL: "func.func"
// GENERIC: "stablehlo.scatter"
func.func @scatter_add(%x: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %0 = "irax.scatter_add"(%x, %i, %u) {update_window_dims = array<i64>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// stop_gradient is the identity once derivatives are gone.
// CHECK-LABEL: func.func @stop
// CHECK-NEXT: %[[S:.*]] = stablehlo.sine %arg0
// CHECK-NEXT: return %[[S]]
func.func @stop(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.stop_gradient"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.sin"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Custom-rule calls and checkpoints run their callee.
// CHECK-LABEL: func.func @calls
// CHECK: call @f(%arg0)
// CHECK: call @f(%{{.*}})
// CHECK-LABEL: func.func private @f
// CHECK: stablehlo.cosine
func.func @calls(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.custom_jvp_call"(%x) {callee = @f, jvp = @rule} : (tensor<f32>) -> tensor<f32>
  %1 = "irax.checkpoint"(%0) {callee = @f} : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.cos"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @rule(%x: tensor<f32>, %t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %x, %t : tensor<f32>, tensor<f32>
}
