// irax-hoist-scan-inputs: work of a scan body that depends only on the scanned inputs
// and consts runs once, batched over all steps, before the loop.
// RUN: irax-opt %s -p 'builtin.module(irax-hoist-scan-inputs)' | filecheck %s

// An RNN step: x_i @ u leaves the loop as one product xs @ u; the body reads its row.
// The scan no longer reads xs itself.
// CHECK-LABEL: func.func @rnn
// CHECK: %[[XU:.*]] = "irax.call"(%arg0, %arg1, %arg3) {callee = @scan_inputs_vmap} : {{.*}} -> tensor<10x4xf32>
// CHECK: "irax.scan"(%arg0, %arg1, %arg2, %[[XU]])
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<3x4xf32>, %[[H:.*]]: tensor<4xf32>, %[[ROW:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[A:.*]] = "irax.dot_general"(%[[H]]
// CHECK-NEXT: "irax.add"(%[[A]], %[[ROW]])
// CHECK-NOT: irax.dot_general
// CHECK: "irax.return"
func.func @rnn(%w: tensor<4x4xf32>, %u: tensor<3x4xf32>, %h0: tensor<4xf32>, %xs: tensor<10x3xf32>) -> tensor<4xf32> {
  %r = "irax.scan"(%w, %u, %h0, %xs) ({
  ^bb0(%w1: tensor<4x4xf32>, %u1: tensor<3x4xf32>, %h: tensor<4xf32>, %x: tensor<3xf32>):
    %a = "irax.dot_general"(%h, %w1) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %b = "irax.dot_general"(%x, %u1) {lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
    %s = "irax.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = "irax.tanh"(%s) : (tensor<4xf32>) -> tensor<4xf32>
    "irax.return"(%t) : (tensor<4xf32>) -> ()
  }) {num_consts = 2 : i64, num_carry = 1 : i64, length = 10 : i64} : (tensor<4x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<10x3xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A const-only op feeding the moved work goes with it (a copy), and stays in the loop
// for its other use; x_i is still read in the loop by the carry's update, so xs stays a
// scanned input beside the new one. The stacked result (ys) of an input-only value is
// the moved value's row.
// CHECK-LABEL: func.func @mixed
// CHECK: %[[E:.*]] = "irax.call"(%arg0, %arg2) {callee = @scan_inputs_vmap_1} : (tensor<f32>, tensor<6xf32>) -> tensor<6xf32>
// CHECK: "irax.scan"(%arg0, %arg1, %arg2, %[[E]])
// CHECK-NEXT: ^bb0(%[[K:.*]]: tensor<f32>, %[[C:.*]]: tensor<f32>, %[[X:.*]]: tensor<f32>, %[[EX:.*]]: tensor<f32>):
// CHECK-NEXT: %[[K2:.*]] = "irax.mul"(%[[K]], %[[K]])
// CHECK-NEXT: %[[CX:.*]] = "irax.mul"(%[[C]], %[[X]])
// CHECK-NEXT: %[[N:.*]] = "irax.add"(%[[CX]], %[[K2]])
// CHECK-NEXT: "irax.return"(%[[N]], %[[EX]])
func.func @mixed(%k: tensor<f32>, %c0: tensor<f32>, %xs: tensor<6xf32>) -> (tensor<f32>, tensor<6xf32>) {
  %r:2 = "irax.scan"(%k, %c0, %xs) ({
  ^bb0(%k1: tensor<f32>, %c: tensor<f32>, %x: tensor<f32>):
    %k2 = "irax.mul"(%k1, %k1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %xk = "irax.mul"(%x, %k2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %e = "irax.exp"(%xk) : (tensor<f32>) -> tensor<f32>
    %cx = "irax.mul"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %n = "irax.add"(%cx, %k2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%n, %e) : (tensor<f32>, tensor<f32>) -> ()
  }) {num_consts = 1 : i64, num_carry = 1 : i64, length = 6 : i64} : (tensor<f32>, tensor<f32>, tensor<6xf32>) -> (tensor<f32>, tensor<6xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<6xf32>
}

// Nothing moves: every op depends on the carry.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: irax.call
// CHECK: "irax.scan"(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "irax.add"
// CHECK-NEXT: "irax.sin"
func.func @stays(%c0: tensor<f32>, %xs: tensor<5xf32>) -> tensor<f32> {
  %r = "irax.scan"(%c0, %xs) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %s = "irax.add"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %t = "irax.sin"(%s) : (tensor<f32>) -> tensor<f32>
    "irax.return"(%t) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 5 : i64} : (tensor<f32>, tensor<5xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// A call taking a scanned value is inlined first (a differentiated scan calls its body),
// so what it computes from x_i moves too; @g itself stays for its other callers.
// CHECK-LABEL: func.func @calls
// CHECK: %[[G:.*]] = "irax.call"(%arg1) {callee = @scan_inputs_vmap_2} : (tensor<5xf32>) -> tensor<5xf32>
// CHECK: "irax.scan"(%arg0, %[[G]])
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<f32>, %[[GX:.*]]: tensor<f32>):
// CHECK-NEXT: "irax.add"(%[[C]], %[[GX]])
func.func @calls(%c0: tensor<f32>, %xs: tensor<5xf32>) -> tensor<f32> {
  %r = "irax.scan"(%c0, %xs) ({
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %y = "irax.call"(%x) {callee = @g} : (tensor<f32>) -> tensor<f32>
    %s = "irax.add"(%c, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%s) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64, num_carry = 1 : i64, length = 5 : i64} : (tensor<f32>, tensor<5xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// The batched functions (one per scan; the unbatched step functions are gone): the
// product over all 10 steps, the const-only square feeding the scanned work, the sine.
// CHECK-LABEL: func.func private @scan_inputs_vmap(%{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<3x4xf32>, %arg2: tensor<10x3xf32>) -> tensor<10x4xf32>
// CHECK-NEXT: "irax.dot_general"(%arg2, %arg1) {lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<10x3xf32>, tensor<3x4xf32>) -> tensor<10x4xf32>
// CHECK-LABEL: func.func private @scan_inputs_vmap_1(%{{.*}}: tensor<f32>, %{{.*}}: tensor<6xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[M:.*]] = "irax.mul"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: "irax.exp"
// CHECK-LABEL: func.func private @scan_inputs_vmap_2(%arg0: tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT: "irax.sin"(%arg0) : (tensor<5xf32>) -> tensor<5xf32>
// CHECK-NOT: func.func private @scan_inputs(
