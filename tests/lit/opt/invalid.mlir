// The irax verifier checks terminators, which MLIR cannot check for unregistered ops.
// RUN: irax-opt %s --split-input-file --verify-diagnostics
// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-autodiff)'
// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-lower-to-stablehlo)'

// expected-error @+1 {{'func.func' op expected the body to end in 'func.return', but it ends in 'irax.sin'}}
func.func @no_terminator(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

// expected-error @+1 {{'func.func' op expected the body to end in 'func.return', but it ends in 'irax.return'}}
func.func @irax_return_ends_a_function(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'irax.return' op expects its parent op to be an irax region op}}
  "irax.return"(%a) : (tensor<3xf32>) -> ()
}

// -----

func.func @region_without_return(%x0: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.while' op expected each region to end in 'irax.return'}}
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    %p = "irax.compare"(%x, %x) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>):
    "irax.return"(%x) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @return_not_last(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'irax.return' op must be the last operation in the parent block}}
    "irax.return"(%a) : (tensor<f32>) -> ()
    "irax.return"(%a) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "irax.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

