// RUN: irax-opt %s -p 'builtin.module(irax-loop-kernels)' | filecheck %s
// RUN: irax-opt %s -p 'builtin.module(irax-loop-kernels{vectors=false})' | filecheck %s --check-prefix=NOVEC

// A scan step of an RNN: a counter, a vector state in registers, a fixed matrix (its
// rows read in a loop of multiply-adds), the scanned input's row read, a stacked
// output's row written (in a copy of its own made before the loop).
// CHECK-LABEL: func.func @rnn_scan
// CHECK-NOT: stablehlo.while
// CHECK: flow.dispatch.region -> (tensor<i32>, tensor<4xf32>, tensor<6x4xf32>)
// CHECK: tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: vector.transfer_read %{{.*}} : tensor<4xf32>, vector<4xf32>
// CHECK: scf.for
// CHECK: scf.while
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: vector.transfer_read %{{.*}} : tensor<6x4xf32>, vector<4xf32>
// CHECK: scf.for
// CHECK: vector.extract %{{.*}}[%{{.*}}] : f32 from vector<4xf32>
// CHECK: vector.fma
// CHECK: math.tanh %{{.*}} : vector<4xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<4xf32>, tensor<6x4xf32>
// CHECK: scf.yield
// CHECK: tensor.from_elements
// CHECK: flow.return
// NOVEC-LABEL: func.func @rnn_scan
// NOVEC: stablehlo.while
// NOVEC-NOT: flow.dispatch.region
func.func @rnn_scan(%w: tensor<4x4xf32>, %xs: tensor<6x4xf32>, %h0: tensor<4xf32>, %ys0: tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %x = %xs, %ys = %ys0) : tensor<i32>, tensor<4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
  cond {
    %n = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 4] : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %xi = stablehlo.reshape %row : (tensor<1x4xf32>) -> tensor<4xf32>
    %d = stablehlo.dot_general %h, %w, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %s = stablehlo.add %d, %xi : tensor<4xf32>
    %t = stablehlo.tanh %s : tensor<4xf32>
    %t2 = stablehlo.reshape %t : (tensor<4xf32>) -> tensor<1x4xf32>
    %ys1 = stablehlo.dynamic_update_slice %ys, %t2, %i, %z : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %t, %x, %ys1 : tensor<i32>, tensor<4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
  }
  return %r#1, %r#3 : tensor<4xf32>, tensor<6x4xf32>
}

// A product with the matrix's other dimension (M @ v): the matrix is transposed once,
// before the loop. A carry nothing reads after the loop (%acc) is left out of the kernel.
// CHECK-LABEL: func.func @transposed_and_dead
// CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK: flow.dispatch.region -> (tensor<i32>, tensor<3xf32>) {
// CHECK: vector.fma %{{.*}} : vector<3xf32>
// CHECK-NOT: tensor<4xf32>
// CHECK: flow.return
func.func @transposed_and_dead(%m: tensor<3x3xf32>, %v0: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %a0 = stablehlo.constant dense<0.0> : tensor<4xf32>
  %r:3 = stablehlo.while(%i = %c0, %v = %v0, %acc = %a0) : tensor<i32>, tensor<3xf32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %d = stablehlo.dot_general %m, %v, contracting_dims = [1] x [0] : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %v1 = stablehlo.tanh %d : tensor<3xf32>
    %h = stablehlo.constant dense<0.5> : tensor<4xf32>
    %acc1 = stablehlo.add %acc, %h : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %v1, %acc1 : tensor<i32>, tensor<3xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<3xf32>
}

// A gradient's matrix plus an outer product: each row plus a[i] * b, in a loop over the
// rows of the matrix carry.
// CHECK-LABEL: func.func @outer_product_sum
// CHECK: flow.dispatch.region
// CHECK: scf.while
// CHECK: scf.for
// CHECK: vector.broadcast %{{.*}} : f32 to vector<3xf32>
// CHECK: arith.mulf %{{.*}} : vector<3xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x3xf32>, vector<3xf32>
// CHECK: arith.addf %{{.*}} : vector<3xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<3xf32>, tensor<2x3xf32>
func.func @outer_product_sum(%a: tensor<2xf32>, %b: tensor<3xf32>, %g0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %g = %g0) : tensor<i32>, tensor<2x3xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %o = stablehlo.dot_general %a, %b, contracting_dims = [] x [] : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %g1 = stablehlo.add %g, %o : tensor<2x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %g1 : tensor<i32>, tensor<2x3xf32>
  }
  return %r#1 : tensor<2x3xf32>
}

// A matrix the loop computes and multiplies by: no vector form, the loop stays.
// CHECK-LABEL: func.func @matrix_carry_stays
// CHECK-NOT: flow.dispatch.region
// CHECK: stablehlo.while
func.func @matrix_carry_stays(%m0: tensor<3x3xf32>, %v0: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %m = %m0, %v = %v0) : tensor<i32>, tensor<3x3xf32>, tensor<3xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %h = stablehlo.constant dense<0.5> : tensor<3x3xf32>
    %m1 = stablehlo.multiply %m, %h : tensor<3x3xf32>
    %v1 = stablehlo.dot_general %v, %m1, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %m1, %v1 : tensor<i32>, tensor<3x3xf32>, tensor<3xf32>
  }
  return %r#2 : tensor<3xf32>
}

// A tensor carry is written in place: its old version read after a write would need a
// copy, so the loop stays.
// CHECK-LABEL: func.func @old_version_read_stays
// CHECK-NOT: flow.dispatch.region
// CHECK: stablehlo.while
func.func @old_version_read_stays(%ys0: tensor<6x4xf32>, %v0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %ys = %ys0, %v = %v0) : tensor<i32>, tensor<6x4xf32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.reshape %v : (tensor<4xf32>) -> tensor<1x4xf32>
    %ys1 = stablehlo.dynamic_update_slice %ys, %row, %i, %z : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
    %old = stablehlo.dynamic_slice %ys, %i, %z, sizes = [1, 4] : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %o = stablehlo.reshape %old : (tensor<1x4xf32>) -> tensor<4xf32>
    %v1 = stablehlo.add %v, %o : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %ys1, %v1 : tensor<i32>, tensor<6x4xf32>, tensor<4xf32>
  }
  return %r#2 : tensor<4xf32>
}
