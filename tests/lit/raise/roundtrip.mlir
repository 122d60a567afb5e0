// RUN: irax-opt %s -p 'builtin.module(irax-raise-stablehlo, irax-autodiff, irax-lower-to-stablehlo)' | filecheck %s

// StableHLO -> irax -> StableHLO keeps the program (@main).
// CHECK-LABEL: func.func public @main
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0] : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK: %[[T:.*]] = stablehlo.tanh %[[D]] : tensor<5x4xf32>
// CHECK: %[[S:.*]] = stablehlo.reduce(%[[T]] init: %{{.*}}) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<f32>
// CHECK: return %[[S]] : tensor<f32>

// The gradient of a raised function: a reverse sweep through tanh and dot_general.
// CHECK-LABEL: func.func public @grad_w
// CHECK: call @main_grad
// CHECK-LABEL: func.func private @main_vjp
// CHECK: stablehlo.tanh
// CHECK: stablehlo.multiply
// CHECK: %[[G:.*]] = stablehlo.dot_general %arg1, %{{.*}}, contracting_dims = [0] x [0] : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: stablehlo.transpose
// CHECK: return %{{.*}}, %[[G]] : tensor<f32>, tensor<3x4xf32>
module @jit_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<5x3xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
    %1 = stablehlo.tanh %0 : tensor<5x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func public @grad_w(%w: tensor<3x4xf32>, %x: tensor<5x3xf32>) -> tensor<3x4xf32> {
    %g = "irax.grad"(%w, %x) {callee = @main, argnums = array<i64: 0>} : (tensor<3x4xf32>, tensor<5x3xf32>) -> tensor<3x4xf32>
    return %g : tensor<3x4xf32>
  }
}
