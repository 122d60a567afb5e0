// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-autodiff)' | filecheck %s

// dots_saveable: the forward function also returns the dot's result; the VJP reads it
// (its third operand) instead of computing the dot again, and recomputes the sin.

// CHECK-LABEL: func.func private @outer_vjp
// CHECK: %[[F:.*]]:2 = "irax.call"(%arg0, %arg1) {callee = @blk_fwd}
// CHECK: "irax.call"(%arg0, %arg1, %[[F]]#1, %arg2) {callee = @blk_vjp}
// CHECK-LABEL: func.func private @blk_fwd
// CHECK: %[[D:.*]] = "irax.dot_general"(%arg0, %arg1)
// CHECK: %[[S:.*]] = "irax.reduce_sum"
// CHECK: return %[[S]], %[[D]]
// CHECK-LABEL: func.func private @blk_vjp
// CHECK-SAME: (%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<f32>)
// CHECK: "irax.sin"(%arg2)
// CHECK: "irax.cos"(%arg2)
// CHECK: "irax.dot_general"
// CHECK-NOT: "irax.dot_general"
// CHECK: return
func.func @vg(%w: tensor<2x2xf32>, %x: tensor<2xf32>) -> (tensor<f32>, tensor<2x2xf32>) {
  %v, %g = "irax.value_and_grad"(%w, %x) {callee = @outer, argnums = array<i64: 0>} : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2x2xf32>)
  return %v, %g : tensor<f32>, tensor<2x2xf32>
}
func.func private @outer(%w: tensor<2x2xf32>, %x: tensor<2xf32>) -> tensor<f32> {
  %0 = "irax.checkpoint"(%w, %x) {callee = @blk, policy = "dots_saveable"} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @blk(%w: tensor<2x2xf32>, %x: tensor<2xf32>) -> tensor<f32> {
  %0 = "irax.dot_general"(%w, %x) {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "irax.sin"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "irax.reduce_sum"(%1) {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// save_only_these_names: only the value named "h" is saved; the outer sin reads it
// (%arg1) in the VJP. Calls inside the callee are visited inline.

// CHECK-LABEL: func.func private @named_outer_vjp
// CHECK: "irax.call"(%arg0, %{{.*}}#1, %arg1) {callee = @named_blk_vjp}
// CHECK-LABEL: func.func private @named_blk_fwd
// CHECK: %[[H:.*]] = "irax.checkpoint_name"({{.*}}) {name = "h"}
// CHECK: return %{{.*}}, %[[H]]
// CHECK-LABEL: func.func private @named_blk_vjp
// CHECK-SAME: (%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>)
// CHECK-NOT: "irax.checkpoint_name"
// CHECK: "irax.sin"(%arg1)
func.func @named(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = "irax.value_and_grad"(%x) {callee = @named_outer, argnums = array<i64: 0>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}
func.func private @named_outer(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.checkpoint"(%x) {callee = @named_blk, policy = "save_only_these_names('h')"} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @named_blk(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.call"(%x) {callee = @inner} : (tensor<f32>) -> tensor<f32>
  %1 = "irax.sin"(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @inner(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  %1 = "irax.checkpoint_name"(%0) {name = "h"} : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
