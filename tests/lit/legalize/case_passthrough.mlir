// RUN: irax-opt %s -p 'builtin.module(irax-legalize-iree)' | filecheck %s

// IREE 3.13 fails at run time on a case whose branch returns two values from outside
// beside one it computes (docs/repro/case_passthrough.mlir), or three of three: that
// branch returns zeros in those slots, and selects after the case take the outside values
// when it ran.
// CHECK-LABEL: func.func @two_passed_through
// CHECK: %[[R:.*]]:3 = "stablehlo.case"(%[[I:.*]]) ({
// CHECK: %[[Z:.*]] = stablehlo.broadcast_in_dim
// CHECK: %[[Z2:.*]] = stablehlo.broadcast_in_dim
// CHECK: stablehlo.return %[[Z]], %[[Z2]], %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK: stablehlo.return %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK: %[[T:.*]] = stablehlo.compare  EQ, %[[I]], %{{.*}},  SIGNED
// CHECK: %[[A:.*]] = stablehlo.select %[[T]], %arg0, %[[R]]#0
// CHECK: %[[T2:.*]] = stablehlo.compare  EQ, %[[I]], %{{.*}},  SIGNED
// CHECK: %[[B:.*]] = stablehlo.select %[[T2]], %arg1, %[[R]]#1
// CHECK: return %[[A]], %[[B]], %[[R]]#2
func.func @two_passed_through(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>, %i: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = "stablehlo.case"(%i) ({
    %m = stablehlo.multiply %c, %c : tensor<3xf32>
    stablehlo.return %a, %b, %m : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }, {
    %x = stablehlo.add %a, %a : tensor<3xf32>
    %y = stablehlo.add %b, %b : tensor<3xf32>
    %z = stablehlo.add %c, %c : tensor<3xf32>
    stablehlo.return %x, %y, %z : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// The last branch also runs for an index out of range: its test is index < 0 or >= 1.
// CHECK-LABEL: func.func @last_branch
// CHECK: "stablehlo.case"
// CHECK: %[[LO:.*]] = stablehlo.compare  LT
// CHECK: %[[HI:.*]] = stablehlo.compare  GE
// CHECK: %[[T:.*]] = stablehlo.or %[[LO]], %[[HI]]
// CHECK: stablehlo.select %[[T]], %arg0
func.func @last_branch(%a: tensor<2xi32>, %b: tensor<2xi32>, %i: tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<i32>) {
  %r:3 = "stablehlo.case"(%i) ({
    %x = stablehlo.add %a, %b : tensor<2xi32>
    %k = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %x, %x, %k : tensor<2xi32>, tensor<2xi32>, tensor<i32>
  }, {
    %k = stablehlo.constant dense<2> : tensor<i32>
    stablehlo.return %a, %b, %k : tensor<2xi32>, tensor<2xi32>, tensor<i32>
  }) : (tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<2xi32>, tensor<2xi32>, tensor<i32>
}

// One value passed through beside computed ones: left alone (IREE runs it).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: stablehlo.select
// CHECK: stablehlo.return %arg0, %{{.*}}, %{{.*}} :
// CHECK-NOT: stablehlo.select
func.func @left_alone(%a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = "stablehlo.case"(%i) ({
    %m = stablehlo.multiply %b, %b : tensor<3xf32>
    stablehlo.return %a, %m, %m : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }, {
    %x = stablehlo.add %a, %a : tensor<3xf32>
    stablehlo.return %x, %x, %x : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// Every result passed through (lax.cond(p, update, keep, a, b, c)): all three selected.
// CHECK-LABEL: func.func @all_passed_through
// CHECK: "stablehlo.case"
// CHECK-COUNT-3: stablehlo.select
// CHECK: return
func.func @all_passed_through(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>, %i: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = "stablehlo.case"(%i) ({
    stablehlo.return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }, {
    %x = stablehlo.add %a, %a : tensor<3xf32>
    %y = stablehlo.add %b, %b : tensor<3xf32>
    %z = stablehlo.add %c, %c : tensor<3xf32>
    stablehlo.return %x, %y, %z : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
