// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-expand-transforms)' | filecheck %s

// Transformations go through irax.pmap with its own rules instead of expanding it: the
// result is a pmap of the transformed callee, left for irax-shard.

// jvp of a pmap: a pmap of the callee's jvp, mapping primals and tangents alike.
// CHECK-LABEL: func.func private @outer_jvp
// CHECK: "irax.pmap"(%arg0, %arg1) {axis_name = "i", axis_size = 2 : i64, callee = @f_jvp, devices = array<i64: 0, 1>, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>}
func.func @main_jvp(%x: tensor<2x3xf32>, %t: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r:2 = "irax.jvp"(%x, %t) {callee = @outer} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xf32>
}
func.func private @outer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.psum"(%0) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Reverse mode: the forward pmap, then a pmap of the callee's VJP (which recomputes the
// forward pass per device). The cotangent of the unmapped %w is summed over devices.
// CHECK-LABEL: func.func private @outer_vjp
// CHECK-SAME: (%[[W:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>)
// CHECK: "irax.pmap"(%[[W]], %[[X]]) {{.*}}callee = @f,
// CHECK: %[[B:.*]]:3 = "irax.pmap"(%[[W]], %[[X]], %[[CT]]) {{.*}}callee = @f_vjp, {{.*}}in_axes = array<i64: -1, 0, 0>, out_axes = array<i64: 0, 0, 0>}
// CHECK: "irax.reduce_sum"(%[[B]]#1) {axes = array<i64: 0>}
func.func @main_vjp(%w: tensor<3xf32>, %x: tensor<2x3xf32>, %ct: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %r:3 = "irax.vjp"(%w, %x, %ct) {callee = @outer} : (tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>
}
func.func private @outer(%w: tensor<3xf32>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "irax.pmap"(%w, %x) {callee = @f, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.mul"(%w, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.psum"(%0) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// vmap of a pmap: a pmap of the vmapped callee; the device axis goes after the batch axis.
// CHECK-LABEL: func.func private @outer_vmap
// CHECK-NEXT: %[[P:.*]] = "irax.pmap"(%arg0) {axis_name = "i", axis_size = 2 : i64, callee = @f_vmap, devices = array<i64: 0, 1>, in_axes = array<i64: 1>, out_axes = array<i64: 1>} : (tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
// CHECK-NEXT: return %[[P]]
// CHECK-LABEL: func.func private @f_vmap
// CHECK-SAME: (%arg0: tensor<5x3xf32>) -> tensor<5x3xf32>
func.func @main_vmap(%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %r = "irax.vmap"(%x) {callee = @outer, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 5 : i64} : (tensor<5x2x3xf32>) -> tensor<5x2x3xf32>
  return %r : tensor<5x2x3xf32>
}
func.func private @outer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "irax.pmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.psum"(%0) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
