// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-dce)' | filecheck %s --check-prefix=DCE
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-cse)' | filecheck %s --check-prefix=CSE
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-simplify)' | filecheck %s --check-prefix=SIMPLIFY
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-inline, irax-simplify)' | filecheck %s --check-prefix=INLINE

// debug_callback and io_callback have effects: kept unused, never merged; an unused
// pure_callback is deleted and two equal ones merge.
// DCE-LABEL: func.func @unused
// DCE-NEXT: "irax.debug_callback"(%arg0) {callback = 0 : i64}
// DCE-NEXT: "irax.debug_callback"(%arg0) {callback = 0 : i64}
// DCE-NEXT: "irax.io_callback"(%arg0) {callback = 2 : i64, result_types = [tensor<3xf32>]}
// DCE-NEXT: "irax.io_callback"(%arg0) {callback = 2 : i64, result_types = [tensor<3xf32>]}
// DCE-NEXT: return %arg0
// CSE-LABEL: func.func @unused
// CSE-NEXT: "irax.debug_callback"(%arg0)
// CSE-NEXT: "irax.pure_callback"(%arg0)
// CSE-NEXT: "irax.debug_callback"(%arg0)
// CSE-NEXT: "irax.io_callback"(%arg0)
// CSE-NEXT: "irax.io_callback"(%arg0)
// CSE-NEXT: return %arg0
// SIMPLIFY-LABEL: func.func @unused
// SIMPLIFY-COUNT-2: "irax.debug_callback"(%arg0)
// SIMPLIFY-NOT: "irax.pure_callback"
// SIMPLIFY-COUNT-2: "irax.io_callback"(%arg0)
func.func @unused(%x: tensor<3xf32>) -> tensor<3xf32> {
  "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<3xf32>) -> ()
  %p = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  %q = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<3xf32>) -> ()
  %r = "irax.io_callback"(%x) {callback = 2 : i64, result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  %s = "irax.io_callback"(%x) {callback = 2 : i64, result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}

// -----

// Constant operands fold nothing: a callback runs when the program does.
// SIMPLIFY-LABEL: func.func @constants
// SIMPLIFY: %[[C:.*]] = "irax.constant"
// SIMPLIFY: %[[P:.*]] = "irax.pure_callback"(%[[C]])
// SIMPLIFY: return %[[P]]
func.func @constants() -> tensor<f32> {
  %c = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "irax.pure_callback"(%c) {callback = 1 : i64, result_types = [tensor<f32>]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A callee holding a print is inlined with its print, which then stays although the
// call's results are unused.
// INLINE-LABEL: func.func @caller
// INLINE-NEXT: "irax.debug_callback"(%arg0) {callback = 0 : i64, ordered = true}
// INLINE-NEXT: return %arg0
func.func @caller(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.call"(%x) {callee = @log} : (tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}
func.func private @log(%x: tensor<3xf32>) -> tensor<3xf32> {
  "irax.debug_callback"(%x) {callback = 0 : i64, ordered = true} : (tensor<3xf32>) -> ()
  %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Loop-invariant code motion does not hoist a print out of a loop body.
// SIMPLIFY-LABEL: func.func @loop
// SIMPLIFY: "irax.while"
// SIMPLIFY: ^bb0
// SIMPLIFY: ^bb0
// SIMPLIFY-NEXT: "irax.debug_callback"(%{{.*}}) {callback = 0 : i64}
func.func @loop(%w: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%w, %x) ({
  ^bb0(%c: tensor<f32>, %v: tensor<f32>):
    %p = "irax.compare"(%v, %c) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>, %v: tensor<f32>):
    "irax.debug_callback"(%c) {callback = 0 : i64} : (tensor<f32>) -> ()
    %one = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %d = "irax.add"(%v, %one) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%d) : (tensor<f32>) -> ()
  }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
