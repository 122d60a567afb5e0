// RUN: irax-opt %s --split-input-file --verify-diagnostics

func.func @mismatched_shapes(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.add' op expected operands of the same shape and dtype, but got float32[3] and float32[4]}}
  %0 = "irax.add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @wrong_result_type(%a: tensor<3xf32>) -> tensor<3xf16> {
  // expected-error @+1 {{'irax.sin' op inferred type(s) tensor<3xf32> are incompatible with result type(s) tensor<3xf16>}}
  %0 = "irax.sin"(%a) : (tensor<3xf32>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

func.func @int_sin(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'irax.sin' op expected floating-point or complex operands, but got int32[3]}}
  %0 = "irax.sin"(%a) : (tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @missing_attr(%a: tensor<3xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{'irax.compare' op requires attribute 'direction'}}
  %0 = "irax.compare"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @unknown_op(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.frobnicate' op is not a registered irax op}}
  %0 = "irax.frobnicate"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @bad_callee(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.call' op 'nowhere' does not reference a valid function}}
  %0 = "irax.call"(%a) {callee = @nowhere} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Symbolic sizes: two names are two sizes, so their shapes differ.
func.func @different_symbolic_sizes(%a: tensor<?x3xf32, ["b"]>, %c: tensor<?x3xf32, ["n"]>) -> tensor<?x3xf32, ["b"]> {
  // expected-error @+1 {{'irax.add' op expected operands of the same shape and dtype, but got float32[b,3] and float32[n,3]}}
  %0 = "irax.add"(%a, %c) : (tensor<?x3xf32, ["b"]>, tensor<?x3xf32, ["n"]>) -> tensor<?x3xf32, ["b"]>
  return %0 : tensor<?x3xf32, ["b"]>
}

// -----

// A result type whose symbolic size is not the one inferred.
func.func @wrong_symbolic_result(%a: tensor<?x3xf32, ["b"]>) -> tensor<?xf32, ["2*b"]> {
  // expected-error @+1 {{'irax.reshape' op inferred type(s) tensor<?xf32, ["3*b"]> are incompatible with result type(s) tensor<?xf32, ["2*b"]>}}
  %0 = "irax.reshape"(%a) {new_sizes = ["3*b"]} : (tensor<?x3xf32, ["b"]>) -> tensor<?xf32, ["2*b"]>
  return %0 : tensor<?xf32, ["2*b"]>
}

// -----

// A dynamic size without a name is not irax IR.
func.func @unnamed_dynamic_size(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'irax.neg' op expected every dynamic size to be named (tensor<?x3xf32, ["b"]>), but got tensor<?xf32>}}
  %0 = "irax.neg"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
