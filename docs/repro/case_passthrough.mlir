// IREE 3.13: a stablehlo.case whose branch returns two function arguments unchanged beside a
// computed result fails at run time when the other branch is taken ("ref is null; while
// invoking native function hal.buffer_view.create"). Two results both passed through, one
// argument passed through beside two computed ones, or values computed before the case
// passed through all work; three arguments of three passed through fail too. irax's
// lax.cond under jit hit it; irax-legalize-iree now rewrites such cases
// (python/irax/lowering/case_passthrough.py). Reproduce (input3 >= 0 takes the computing
// branch):
//   iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=host \
//     docs/repro/case_passthrough.mlir -o /tmp/case.vmfb
//   iree-run-module --module=/tmp/case.vmfb --device=local-sync --function=main \
//     --input=3xf32=1 --input=3xf32=2 --input=3xf32=3 --input=f32=1
module {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.compare GE, %arg3, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.select %0, %c, %c_0 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.clamp %c_1, %1, %c_2 : tensor<i32>
    %3:3 = "stablehlo.case"(%2) ({
      %m2 = stablehlo.multiply %arg2, %arg2 : tensor<3xf32>
      stablehlo.return %arg0, %arg1, %m2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    }, {
      %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
      %4 = stablehlo.add %arg0, %cst_3 : tensor<3xf32>
      %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
      %5 = stablehlo.add %arg1, %cst_4 : tensor<3xf32>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
      %6 = stablehlo.add %arg2, %cst_5 : tensor<3xf32>
      stablehlo.return %4, %5, %6 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    }) : (tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
    return %3#0, %3#1, %3#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}

