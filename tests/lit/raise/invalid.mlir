// RUN: irax-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(irax-raise-stablehlo)'

func.func @while_with_unraisable_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.while' has a body that cannot be raised:}}
  %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.sort' is not supported yet}}
    %w = "stablehlo.sort"(%v) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----

func.func @scatter_multiply(%x: tensor<5xf32>, %i: tensor<1xi32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.scatter' with a region other than an addition of its arguments is not supported}}
  %0 = "stablehlo.scatter"(%x, %i, %v) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<1xi32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @argmax(%x: tensor<5xf32>) -> tensor<i32> {
  %0 = stablehlo.iota dim = 0 : tensor<5xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.reduce' with 2 inputs (an argmax-style reduction) is not supported yet}}
  %1:2 = stablehlo.reduce(%x init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %p = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %p, %a, %b : tensor<i1>, tensor<f32>
    %i = stablehlo.select %p, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f32>, tensor<i32>
  }
  return %1#1 : tensor<i32>
}

// -----

func.func @reduce_init(%x: tensor<5xf32>) -> tensor<f32> {
  %cst = stablehlo.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.reduce' with an init value other than 0.0 (the identity of stablehlo.add) is not supported}}
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_atan2(%x: tensor<5xf32>) -> tensor<f32> {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.reduce' with a region other than one of stablehlo.add, stablehlo.and, stablehlo.maximum, stablehlo.minimum, stablehlo.multiply, stablehlo.or of its arguments is not supported}}
  %0 = stablehlo.reduce(%x init: %cst) across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.atan2 %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

func.func @custom_call(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.custom_call' @my_kernel is not supported}}
  %0 = stablehlo.custom_call @my_kernel(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @total_order(%x: tensor<3xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.compare' with compare_type TOTALORDER on float32 operands is not supported}}
  %0 = stablehlo.compare LT, %x, %x, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @mixed_precision(%x: tensor<2x3xbf16>, %y: tensor<3x4xbf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.dot_general' cannot be expressed as 'irax.dot_general': inferred type(s) tensor<2x4xbf16> differ from the result type(s) tensor<2x4xf32>}}
  %0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @integer_power(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.power' cannot be expressed as 'irax.pow': expected floating-point or complex operands, but got int32[3]}}
  %0 = stablehlo.power %x, %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.sine' is not supported: expected a statically shaped tensor type, got tensor<?xf32>}}
  %0 = stablehlo.sine %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @sort(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{irax-raise-stablehlo: 'stablehlo.sort' is not supported yet}}
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
