// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-split-reductions)' | filecheck %s

// A row sum: 128 = 16 x 8, eight partial sums per row, then those.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<1024x128xf32>) -> tensor<1024x16x8xf32>
// CHECK: %[[P:.*]] = stablehlo.reduce(%[[R]] init: %[[Z:.*]]) applies stablehlo.add across dimensions = [1] : (tensor<1024x16x8xf32>, tensor<f32>) -> tensor<1024x8xf32>
// CHECK: %[[S:.*]] = stablehlo.reduce(%[[P]] init: %[[Z]]) applies stablehlo.add across dimensions = [1] : (tensor<1024x8xf32>, tensor<f32>) -> tensor<1024xf32>
// CHECK: return %[[S]]
func.func @row_sum(%x: tensor<1024x128xf32>) -> tensor<1024xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x128xf32>, tensor<f32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// Every dimension reduced: the trailing extent is the whole tensor, 64 partials.
// CHECK-LABEL: func.func @full_max
// CHECK: stablehlo.reshape %arg0 : (tensor<64x256xf32>) -> tensor<256x64xf32>
// CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [0] : (tensor<256x64xf32>, tensor<f32>) -> tensor<64xf32>
// CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
func.func @full_max(%x: tensor<64x256xf32>) -> tensor<f32> {
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A leading reduced dimension beside the trailing run goes to the first stage; 784 =
// 49 x 16.
// CHECK-LABEL: func.func @outer_and_inner
// CHECK: stablehlo.reshape %arg0 : (tensor<3x5x784xf64>) -> tensor<3x5x49x16xf64>
// CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [0, 2] : (tensor<3x5x49x16xf64>, tensor<f64>) -> tensor<5x16xf64>
// CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1] : (tensor<5x16xf64>, tensor<f64>) -> tensor<5xf64>
func.func @outer_and_inner(%x: tensor<3x5x784xf64>) -> tensor<5xf64> {
  %m = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
  %0 = stablehlo.reduce(%x init: %m) applies stablehlo.minimum across dimensions = [0, 2] : (tensor<3x5x784xf64>, tensor<f64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// A module with a host-driven loop is left whole, the loop's function and the others
// (IREE 3.13 miscompiled a program with loops whose reduction was split: the pass's
// docstring).
// CHECK-LABEL: func.func @beside_a_loop
// CHECK-NOT: stablehlo.reshape
// CHECK-LABEL: func.func @in_loop
// CHECK: stablehlo.while
// CHECK-NOT: stablehlo.reshape
// CHECK: return
func.func @beside_a_loop(%x: tensor<1024x128xf32>) -> tensor<1024xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x128xf32>, tensor<f32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
func.func @in_loop(%x: tensor<256xf32>, %n: tensor<i32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %z) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<256xf32>, tensor<f32>) -> tensor<f32>
    %a = stablehlo.add %acc, %s : tensor<f32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

// -----

// Left alone: the innermost dimension kept (IREE vectorizes across it already), an
// extent no lane count divides or too short to split, an init that is not the identity
// (it would enter every partial), a product, integers, two operands.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: stablehlo.reshape
// CHECK: return
func.func @left_alone(%x: tensor<1024x128xf32>, %y: tensor<8x1001xf32>, %w: tensor<8x32xf32>,
                      %i: tensor<8x128xi32>, %v: tensor<8x128xf32>) -> (tensor<128xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %zi = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1024x128xf32>, tensor<f32>) -> tensor<128xf32>
  %1 = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x1001xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = stablehlo.reduce(%w init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = stablehlo.reduce(%x init: %one) applies stablehlo.add across dimensions = [1] : (tensor<1024x128xf32>, tensor<f32>) -> tensor<1024xf32>
  %4 = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<1024x128xf32>, tensor<f32>) -> tensor<1024xf32>
  %5 = stablehlo.reduce(%i init: %zi) applies stablehlo.add across dimensions = [1] : (tensor<8x128xi32>, tensor<i32>) -> tensor<8xi32>
  %6:2 = stablehlo.reduce(%v init: %z), (%i init: %zi) across dimensions = [1] : (tensor<8x128xf32>, tensor<8x128xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
      %s = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.add %c, %d : tensor<i32>
      stablehlo.return %s, %t : tensor<f32>, tensor<i32>
    }
  return %0, %1, %2, %3, %4, %5, %6#0, %6#1 : tensor<128xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<8xi32>, tensor<8xf32>, tensor<8xi32>
}
