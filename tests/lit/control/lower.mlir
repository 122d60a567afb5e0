// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// irax.while -> stablehlo.while; consts are carried through the body unchanged.
// CHECK-LABEL: func.func @while
// CHECK: %[[W:.*]]:2 = stablehlo.while(%[[C:.*]] = %arg0, %[[X:.*]] = %arg1) : tensor<f32>, tensor<f32>
// CHECK: cond {
// CHECK: %[[P:.*]] = stablehlo.compare  LT, %[[X]], %[[C]]
// CHECK: stablehlo.return %[[P]] : tensor<i1>
// CHECK: } do {
// CHECK: %[[Y:.*]] = stablehlo.add %[[X]], %[[X]]
// CHECK: stablehlo.return %[[C]], %[[Y]] : tensor<f32>, tensor<f32>
// CHECK: return %[[W]]#1
func.func @while(%limit: tensor<f32>, %x0: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%limit, %x0) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %p = "irax.compare"(%x, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %y = "irax.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%y) : (tensor<f32>) -> ()
  }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// irax.cond -> stablehlo.case on the clamped index; branch arguments become operands.
// CHECK-LABEL: func.func @cond
// CHECK: %[[I:.*]] = stablehlo.clamp %{{.*}}, %arg0, %{{.*}} : tensor<i32>
// CHECK: %[[R:.*]] = "stablehlo.case"(%[[I]]) ({
// CHECK: stablehlo.negate %arg1
// CHECK: }, {
// CHECK: stablehlo.sine %arg1
// CHECK: return %[[R]]
func.func @cond(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.cond"(%i, %x) ({
  ^bb0(%a: tensor<f32>):
    %n = "irax.neg"(%a) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%n) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    %s = "irax.sin"(%a) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// irax.scan -> stablehlo.while over a counter, dynamic_slice of xs, dynamic_update_slice
// of ys.
// CHECK-LABEL: func.func @scan
// CHECK: stablehlo.while
// CHECK: stablehlo.compare  LT
// CHECK: stablehlo.dynamic_slice
// CHECK: stablehlo.add
// CHECK: stablehlo.dynamic_update_slice
func.func @scan(%c0: tensor<f32>, %xs: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %r:2 = "irax.scan"(%c0, %xs) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = "irax.add"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%s, %c) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 4 : i64} : (tensor<f32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<4xf32>
}

// -----

// A small body runs several steps per trip (here 32 of the 37; the other 5 follow the
// loop): the host-side cost of a trip is paid once per 32 steps.
// CHECK-LABEL: func.func @scan_unrolled
// CHECK: stablehlo.while
// CHECK: %[[N:.*]] = stablehlo.constant dense<32> : tensor<i32>
// CHECK: stablehlo.compare  LT, %{{.*}}, %[[N]]
// CHECK-COUNT-32: stablehlo.multiply
// CHECK: %[[STEP:.*]] = stablehlo.constant dense<32> : tensor<i32>
// CHECK: stablehlo.add %{{.*}}, %[[STEP]]
// CHECK: stablehlo.constant dense<32> : tensor<i32>
// CHECK: stablehlo.multiply
// CHECK: stablehlo.constant dense<33> : tensor<i32>
// CHECK-COUNT-4: stablehlo.multiply
// CHECK-NOT: stablehlo.multiply
// CHECK: return
func.func @scan_unrolled(%c0: tensor<f32>, %xs: tensor<37xf32>) -> (tensor<f32>, tensor<37xf32>) {
  %r:2 = "irax.scan"(%c0, %xs) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = "irax.mul"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%s, %c) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 37 : i64} : (tensor<f32>, tensor<37xf32>) -> (tensor<f32>, tensor<37xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<37xf32>
}

// -----

// Where a divisor of the length lies within half of the most steps a trip, a trip runs
// that many and no step follows the loop (here 20 of 40, not 32 and 8 after it).
// CHECK-LABEL: func.func @scan_divisor
// CHECK: stablehlo.while
// CHECK: %[[N:.*]] = stablehlo.constant dense<40> : tensor<i32>
// CHECK: stablehlo.compare  LT, %{{.*}}, %[[N]]
// CHECK-COUNT-20: stablehlo.multiply
// CHECK: %[[STEP:.*]] = stablehlo.constant dense<20> : tensor<i32>
// CHECK: stablehlo.add %{{.*}}, %[[STEP]]
// CHECK-NOT: stablehlo.multiply
// CHECK: return
func.func @scan_divisor(%c0: tensor<f32>, %xs: tensor<40xf32>) -> (tensor<f32>, tensor<40xf32>) {
  %r:2 = "irax.scan"(%c0, %xs) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = "irax.mul"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%s, %c) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 40 : i64} : (tensor<f32>, tensor<40xf32>) -> (tensor<f32>, tensor<40xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<40xf32>
}

