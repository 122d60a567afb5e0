// RUN: irax-opt %s -p 'builtin.module(irax-legalize-iree)' | filecheck %s

// IREE 3.13 cannot compile a while loop whose body passes a carry on unchanged into
// another slot when that slot's result is used after the loop: the chain's slots are
// stacked into one carry.
// CHECK-LABEL: func.func @forwarded
// CHECK: %[[S0:.*]] = stablehlo.concatenate {{.*}}, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %arg2, %[[S:.*]] = %[[S0]]) : tensor<i32>, tensor<2x2xf32>
// CHECK: stablehlo.slice %[[S]] [0:1, 0:2]
// CHECK: %[[A:.*]] = stablehlo.reshape {{.*}} : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK: %[[C:.*]] = stablehlo.tanh %[[A]]
// CHECK: stablehlo.concatenate {{.*}}, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK: stablehlo.slice %[[W]]#1 [0:1, 0:2]
// CHECK: stablehlo.slice %[[W]]#1 [1:2, 0:2]
func.func @forwarded(%x: tensor<2xf32>, %y: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0:3 = stablehlo.while(%a = %x, %b = %y, %i = %n) : tensor<2xf32>, tensor<2xf32>, tensor<i32>
  cond {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %i, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c = stablehlo.tanh %a : tensor<2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %c, %a, %j : tensor<2xf32>, tensor<2xf32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// A loop without forwarding is left alone.
// CHECK-LABEL: func.func @plain
// CHECK: stablehlo.while(%{{.*}} = %arg0, %{{.*}} = %arg1) : tensor<f32>, tensor<i32>
// CHECK-NOT: stablehlo.concatenate
func.func @plain(%x: tensor<f32>, %n: tensor<i32>) -> tensor<f32> {
  %0:2 = stablehlo.while(%a = %x, %i = %n) : tensor<f32>, tensor<i32>
  cond {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %i, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c = stablehlo.tanh %a : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %c, %j : tensor<f32>, tensor<i32>
  }
  return %0#0 : tensor<f32>
}

// A slot given the same value on every trip (here the constant 0, as the cotangent of a
// carry the body overwrites), read by another slot, fails the same way: it is stacked
// with a computed slot of its type.
// CHECK-LABEL: func.func @constant_slot
// CHECK: %[[W:.*]]:2 = stablehlo.while(%{{.*}} = %arg2, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<2xf32>
// CHECK: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: stablehlo.reshape %[[Z]] : (tensor<f32>) -> tensor<1xf32>
// CHECK: stablehlo.concatenate
func.func @constant_slot(%x: tensor<f32>, %y: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<f32>) {
  %0:3 = stablehlo.while(%a = %x, %b = %y, %i = %n) : tensor<f32>, tensor<f32>, tensor<i32>
  cond {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %i, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %t = stablehlo.tanh %a : tensor<f32>
    %s = stablehlo.add %t, %b : tensor<f32>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %s, %c, %j : tensor<f32>, tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<f32>, tensor<f32>
}
