// RUN: irax-opt %s --split-input-file --verify-diagnostics

func.func @body_changes_type(%x0: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.while' op expected the body region to return the carry (float32[]), but it returns (int32[])}}
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    %p = "irax.compare"(%x, %x) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    %y = "irax.convert"(%x) {new_dtype = i32} : (tensor<f32>) -> tensor<i32>
    "irax.return"(%y) : (tensor<i32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @branches_differ(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'irax.cond' op expected branch 1 to return (float32[]), but it returns (float32[], float32[])}}
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<f32>):
    "irax.return"(%a) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "irax.return"(%a, %a) : (tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @not_isolated(%x0: tensor<f32>, %outer: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%x0) ({
  ^bb0(%x: tensor<f32>):
    // expected-error @+1 {{'irax.compare' op operand #1 does not dominate this use}}
    %p = "irax.compare"(%x, %outer) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    "irax.return"(%x) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
