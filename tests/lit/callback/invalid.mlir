// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-expand-transforms)'

// An ordered io_callback cannot be vmapped (its effects are one sequence per call).
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "irax.vmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.io_callback' op cannot vmap an ordered io callback}}
  %0 = "irax.io_callback"(%x) {callback = 2 : i64, ordered = true, result_types = [tensor<f32>]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A pure_callback without vmap_method cannot be vmapped (JAX's rule).
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "irax.vmap"(%x) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>, axis_size = 2 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.pure_callback' op vmap of a pure callback needs vmap_method: one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all' or 'legacy_vectorized', but got None}}
  %0 = "irax.pure_callback"(%x) {callback = 2 : i64, result_types = [tensor<f32>]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// The result types are the ones the attribute states.
func.func @mismatch(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.pure_callback' op inferred type(s) tensor<2xf32> are incompatible with result type(s) tensor<f32>}}
  %0 = "irax.pure_callback"(%x) {callback = 2 : i64, result_types = [tensor<2xf32>]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @method(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.pure_callback' op expected vmap_method to be one of sequential, sequential_unrolled, expand_dims, broadcast_all, legacy_vectorized or absent, but got 'loop'}}
  %0 = "irax.pure_callback"(%x) {callback = 2 : i64, result_types = [tensor<f32>], vmap_method = "loop"} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// debug_callback has no results.
func.func @results(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.debug_callback' op inferred type(s) () are incompatible with result type(s) tensor<f32>}}
  %0 = "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A pure callback on a value with a tangent has no derivative.
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %g = "irax.grad"(%x) {callee = @h, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.pure_callback' op pure callbacks do not support JVP: use irax.custom_jvp (or custom_vjp) to differentiate a function that calls one}}
  %0 = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<f32>]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
