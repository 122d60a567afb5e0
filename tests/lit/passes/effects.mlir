// RUN: irax-opt --test-ops %s --split-input-file -p 'builtin.module(irax-dce)' | filecheck %s --check-prefix=DCE
// RUN: irax-opt --test-ops %s --split-input-file -p 'builtin.module(irax-cse)' | filecheck %s --check-prefix=CSE
// RUN: irax-opt --test-ops %s --split-input-file -p 'builtin.module(irax-simplify)' | filecheck %s --check-prefix=SIMPLIFY
// RUN: irax-opt --test-ops %s --split-input-file -p 'builtin.module(irax-inline, irax-simplify)' | filecheck %s --check-prefix=INLINE

// Ops with side effects (has_side_effects; irax.test.effect stands for a debug print) are
// kept by DCE when unused, never merged by CSE, never folded, and kept by inlining.
// DCE-LABEL: func.func @unused
// DCE-NOT: "irax.sin"
// DCE: "irax.test.effect"(%arg0)
// CSE-LABEL: func.func @unused
// CSE: "irax.test.effect"(%arg0)
// CSE: "irax.test.effect"(%arg0)
// SIMPLIFY-LABEL: func.func @unused
// SIMPLIFY-COUNT-2: "irax.test.effect"(%arg0)
// SIMPLIFY-NOT: "irax.sin"
func.func @unused(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.test.effect"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "irax.test.effect"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}

// -----

// A constant operand does not make an effectful op a constant.
// SIMPLIFY-LABEL: func.func @not_folded
// SIMPLIFY: %[[C:.*]] = "irax.constant"
// SIMPLIFY: %[[E:.*]] = "irax.test.effect"(%[[C]])
// SIMPLIFY: return %[[E]]
func.func @not_folded() -> tensor<f32> {
  %c = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "irax.test.effect"(%c) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Loop-invariant code motion hoists the pure invariant op, not the effectful one.
// SIMPLIFY-LABEL: func.func @loop
// SIMPLIFY: "irax.exp"(%arg0)
// SIMPLIFY: "irax.while"
// SIMPLIFY: ^bb0
// SIMPLIFY: "irax.test.effect"
func.func @loop(%w: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%w, %x) ({
  ^bb0(%c: tensor<f32>, %v: tensor<f32>):
    %p = "irax.compare"(%v, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>, %v: tensor<f32>):
    %e = "irax.exp"(%c) : (tensor<f32>) -> tensor<f32>
    %s = "irax.test.effect"(%c) : (tensor<f32>) -> tensor<f32>
    %a = "irax.add"(%v, %e) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %b = "irax.add"(%a, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%b) : (tensor<f32>) -> ()
  }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A call whose callee has side effects is kept although its result is unused; inlined,
// the effectful op stays.
// DCE-LABEL: func.func @calls
// DCE: "irax.call"(%arg0) {callee = @log}
// DCE-NOT: "irax.call"(%arg0) {callee = @pure}
// INLINE-LABEL: func.func @calls
// INLINE: "irax.test.effect"(%arg0)
// INLINE-NOT: "irax.call"
// INLINE-NOT: "irax.cos"
func.func private @log(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.test.effect"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @pure(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.cos"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @calls(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.call"(%x) {callee = @log} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.call"(%x) {callee = @pure} : (tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}
