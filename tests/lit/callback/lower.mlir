// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo)' | filecheck %s

// Each host callback becomes a call of an imported host function whose name spells the
// callback's number and its signature, declared once per module; the calls stay in
// program order.
// CHECK-LABEL: module
// CHECK-DAG: func.func private @irax_host.cb0__ifloat32_3(tensor<3xf32>)
// CHECK-DAG: func.func private @irax_host.cb1__ifloat32_3__ofloat32_3(tensor<3xf32>) -> tensor<3xf32>
// CHECK-DAG: func.func private @irax_host.cb2__ifloat32_3__iint32__oint32_2x2(tensor<3xf32>, tensor<i32>) -> tensor<2x2xi32>
// CHECK-LABEL: func.func @main
// CHECK-NEXT: call @irax_host.cb0__ifloat32_3(%arg0) : (tensor<3xf32>) -> ()
// CHECK-NEXT: %[[Y:.*]] = call @irax_host.cb1__ifloat32_3__ofloat32_3(%arg0)
// CHECK-NEXT: call @irax_host.cb0__ifloat32_3(%[[Y]])
// CHECK-NEXT: %[[Z:.*]] = call @irax_host.cb2__ifloat32_3__iint32__oint32_2x2(%[[Y]], %arg1)
// CHECK-NEXT: return %[[Z]]
func.func @main(%x: tensor<3xf32>, %i: tensor<i32>) -> tensor<2x2xi32> {
  "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<3xf32>) -> ()
  %y = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  "irax.debug_callback"(%y) {callback = 0 : i64, ordered = true} : (tensor<3xf32>) -> ()
  %z = "irax.io_callback"(%y, %i) {callback = 2 : i64, ordered = true, result_types = [tensor<2x2xi32>]} : (tensor<3xf32>, tensor<i32>) -> tensor<2x2xi32>
  return %z : tensor<2x2xi32>
}

// -----

// A callback in a loop body is called from the lowered loop, each trip.
// CHECK-LABEL: func.func @loop
// CHECK: stablehlo.while
// CHECK: do {
// CHECK: call @irax_host.cb4__ifloat32(
// CHECK: stablehlo.return
func.func @loop(%n: tensor<f32>) -> tensor<f32> {
  %r = "irax.while"(%n) ({
  ^bb0(%c: tensor<f32>):
    %z = "irax.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
    %p = "irax.compare"(%c, %z) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "irax.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%c: tensor<f32>):
    "irax.debug_callback"(%c) {callback = 4 : i64} : (tensor<f32>) -> ()
    %one = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %d = "irax.add"(%c, %one) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "irax.return"(%d) : (tensor<f32>) -> ()
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
