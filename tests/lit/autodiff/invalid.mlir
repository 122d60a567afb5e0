// RUN: irax-opt %s --split-input-file --verify-diagnostics

func.func @vector_output(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.grad' op expected the callee's first result to be a floating-point or complex scalar, but got float32[3]}}
  %g = "irax.grad"(%x) {callee = @id, argnums = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
func.func private @id(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @bad_argnum(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.grad' op argnum 1 is out of range for 1 operands}}
  %g = "irax.grad"(%x) {callee = @f, argnums = array<i64: 1>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @wrong_tangent_count(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{'irax.jvp' op operand types (float32[]) do not match the expected (float32[], float32[]) for @g}}
  %y, %dy = "irax.jvp"(%x) {callee = @g} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %y, %dy : tensor<f32>, tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @missing_callee(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.grad' op 'nothere' does not reference a valid function}}
  %g = "irax.grad"(%x) {callee = @nothere, argnums = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

func.func @bad_policy(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.checkpoint' op unknown checkpoint policy 'dots_savable'; expected one of ['nothing_saveable', 'everything_saveable', 'dots_saveable', 'dots_with_no_batch_dims_saveable', 'save_only_these_names', 'save_any_names_but_these'], save_from_both_policies or custom}}
  %0 = "irax.checkpoint"(%x) {callee = @blk, policy = "dots_savable"} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @blk(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @foreign_policy(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.checkpoint' op checkpoint policy 'custom(7)' names a Python function of another process}}
  %0 = "irax.checkpoint"(%x) {callee = @blk, policy = "custom(7)"} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @blk(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
