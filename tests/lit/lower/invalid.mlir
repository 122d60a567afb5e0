// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-lower-to-stablehlo)'

// A collective outside any vmap over its axis name cannot run.
func.func @unbound(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.psum' op unbound axis name: i}}
  %0 = "irax.psum"(%x) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Transformation ops must be expanded first.
func.func @unexpanded(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.grad' op must be expanded by irax-autodiff before lowering}}
  %0 = "irax.grad"(%x) {callee = @f, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// A symbolic size is read from an argument of the function that uses it: a function
// without such an argument cannot make a tensor of that size.
func.func @unknown_size(%c: tensor<f32>) -> tensor<?xf32, ["n"]> {
  // expected-error @+1 {{'irax.broadcast_in_dim' op expected the symbolic size 'n' to be the size of an axis of an argument of the enclosing function}}
  %0 = "irax.broadcast_in_dim"(%c) {shape = ["n"], broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?xf32, ["n"]>
  return %0 : tensor<?xf32, ["n"]>
}
