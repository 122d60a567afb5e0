// RUN: irax-opt %s -p 'builtin.module(irax-loop-kernels)' | filecheck %s

// A scalar loop becomes a 0-d linalg.generic around an scf.while on scalars.
// CHECK-LABEL: func.func @scalar_loop
// CHECK: linalg.generic {{.*}}iterator_types = []
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, f32) -> (i32, f32)
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: linalg.yield
// CHECK-NOT: stablehlo.while
func.func @scalar_loop(%n: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.constant dense<1.000100e+00> : tensor<f32>
    %m = stablehlo.multiply %y, %a : tensor<f32>
    %s = stablehlo.add %m, %a : tensor<f32>
    stablehlo.return %i1, %s : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

// A loop over a [4] carry with a 0-d counter: the counter is computed per element and
// sliced back to 0-d; the captured %n is an input broadcast to every element.
// CHECK-LABEL: func.func @vector_loop
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %arg0 : tensor<i32>, tensor<4xf32>, tensor<i32>)
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK: stablehlo.slice %{{.*}} [0:1] : (tensor<4xi32>) -> tensor<1xi32>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<1xi32>) -> tensor<i32>
func.func @vector_loop(%n: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.maximum %y, %b : tensor<4xf32>
    stablehlo.return %i1, %m : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// A reduction in the body: not elementwise, the loop stays.
// CHECK-LABEL: func.func @reduction_stays
// CHECK-NOT: linalg.generic
// CHECK: stablehlo.while
func.func @reduction_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %k = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %m = stablehlo.add %y, %b : tensor<4xf32>
    stablehlo.return %i1, %m : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
