// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-cse)' | filecheck %s --check-prefix=CSE
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-dce)' | filecheck %s --check-prefix=DCE

// CSE-LABEL: func.func @dup
// CSE: %[[M:.*]] = "irax.mul"(%arg0, %arg1)
// CSE-NOT: "irax.mul"
// CSE: "irax.add"(%[[M]], %[[M]])
// DCE-LABEL: func.func @dup
// DCE-NOT: "irax.cos"
// DCE: return
func.func @dup(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %unused = "irax.cos"(%x) : (tensor<f32>) -> tensor<f32>
  %2 = "irax.add"(%0, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Ops that differ in attributes do not merge.
// CSE-LABEL: func.func @attrs_differ
// CSE: "irax.compare"(%arg0, %arg1) {direction = "LT"}
// CSE: "irax.compare"(%arg0, %arg1) {direction = "GT"}
func.func @attrs_differ(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<i1>, tensor<i1>) {
  %0 = "irax.compare"(%x, %y) {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %1 = "irax.compare"(%x, %y) {direction = "GT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0, %1 : tensor<i1>, tensor<i1>
}
