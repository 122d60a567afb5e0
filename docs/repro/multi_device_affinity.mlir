// IREE 3.13 fails to compile this 4-device program: "op affinity
// #hal.device.affinity<@dev1> is not compatible with the partition affinity
// #hal.device.affinity<@dev3>" at the last stablehlo.concatenate (reduced from irax's
// one multi-device program for a partitioned jit on a 2x2 mesh that moves an axis
// between dimensions with all_to_alls, gathers it back and moves it again). Each device's
// ops use only values on that device or moved there by flow.tensor.transfer:
//   1. all_to_all over "x" of each argument (slices, transfers, concatenates);
//   2. all_gather over "x" then over "y" of the results (transfers, concatenates);
//   3. a row of the gathered array per device, doubled;
//   4. all_to_all over "x" again.
// Fed with arguments in place of step 1's results, it compiles; so does the stacked
// program of the same function. irax runs such programs as the stacked program
// (python/irax/transforms/device_program.py AFFINITY_BUG); docs/repro/multi_device_affinity.py
// compiles this file.
//   iree-compile --iree-hal-target-device=dev0=local[0] --iree-hal-target-device=dev1=local[1] \
//     --iree-hal-target-device=dev2=local[2] --iree-hal-target-device=dev3=local[3] \
//     --iree-hal-local-target-device-backends=llvm-cpu --iree-input-type=stablehlo \
//     multi_device_affinity.mlir -o /dev/null
module {
  func.func @main(%arg0: tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev0>}, %arg1: tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev1>}, %arg2: tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev2>}, %arg3: tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev3>}) -> (tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev0>}, tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev1>}, tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev2>}, tensor<2x2xf32> {iree.abi.affinity = #hal.device.promise<@dev3>}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4x4xf32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %16 = stablehlo.slice %arg0 [0:2, 0:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %17 = stablehlo.slice %arg2 [0:2, 0:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %18 = flow.tensor.transfer %17 : tensor<2x1xf32> to #hal.device.promise<@dev0>
    %19 = stablehlo.concatenate %16, %18, dim = 0 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
    %20 = stablehlo.slice %arg0 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %21 = flow.tensor.transfer %20 : tensor<2x1xf32> to #hal.device.promise<@dev2>
    %22 = stablehlo.slice %arg2 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %23 = stablehlo.concatenate %21, %22, dim = 0 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
    %24 = stablehlo.slice %arg1 [0:2, 0:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %25 = stablehlo.slice %arg3 [0:2, 0:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %26 = flow.tensor.transfer %25 : tensor<2x1xf32> to #hal.device.promise<@dev1>
    %27 = stablehlo.concatenate %24, %26, dim = 0 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
    %28 = stablehlo.slice %arg1 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %29 = flow.tensor.transfer %28 : tensor<2x1xf32> to #hal.device.promise<@dev3>
    %30 = stablehlo.slice %arg3 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %31 = stablehlo.concatenate %29, %30, dim = 0 : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
    %32 = flow.tensor.transfer %23 : tensor<4x1xf32> to #hal.device.promise<@dev0>
    %33 = stablehlo.concatenate %19, %32, dim = 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
    %34 = flow.tensor.transfer %19 : tensor<4x1xf32> to #hal.device.promise<@dev2>
    %35 = stablehlo.concatenate %34, %23, dim = 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
    %36 = flow.tensor.transfer %31 : tensor<4x1xf32> to #hal.device.promise<@dev1>
    %37 = stablehlo.concatenate %27, %36, dim = 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
    %38 = flow.tensor.transfer %27 : tensor<4x1xf32> to #hal.device.promise<@dev3>
    %39 = stablehlo.concatenate %38, %31, dim = 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
    %40 = flow.tensor.transfer %37 : tensor<4x2xf32> to #hal.device.promise<@dev0>
    %41 = stablehlo.concatenate %33, %40, dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
    %42 = flow.tensor.transfer %33 : tensor<4x2xf32> to #hal.device.promise<@dev1>
    %43 = stablehlo.concatenate %42, %37, dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
    %44 = flow.tensor.transfer %39 : tensor<4x2xf32> to #hal.device.promise<@dev2>
    %45 = stablehlo.concatenate %35, %44, dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
    %46 = flow.tensor.transfer %35 : tensor<4x2xf32> to #hal.device.promise<@dev3>
    %47 = stablehlo.concatenate %46, %39, dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
    %48 = stablehlo.multiply %c_1, %c : tensor<i32>
    %49 = stablehlo.multiply %c_0, %c : tensor<i32>
    %50 = stablehlo.add %c_1, %48 : tensor<i32>
    %51 = stablehlo.add %c_1, %49 : tensor<i32>
    %52 = stablehlo.add %c_0, %48 : tensor<i32>
    %53 = stablehlo.add %c_0, %49 : tensor<i32>
    %54 = stablehlo.multiply %50, %c_0 : tensor<i32>
    %55 = stablehlo.multiply %51, %c_0 : tensor<i32>
    %56 = stablehlo.multiply %52, %c_0 : tensor<i32>
    %57 = stablehlo.multiply %53, %c_0 : tensor<i32>
    %58 = stablehlo.slice %41 [0:1, 0:4] : (tensor<4x4xf32>) -> tensor<1x4xf32>
    %59 = stablehlo.slice %43 [2:3, 0:4] : (tensor<4x4xf32>) -> tensor<1x4xf32>
    %60 = stablehlo.slice %45 [1:2, 0:4] : (tensor<4x4xf32>) -> tensor<1x4xf32>
    %61 = stablehlo.slice %47 [3:4, 0:4] : (tensor<4x4xf32>) -> tensor<1x4xf32>
    %62 = stablehlo.dynamic_slice %cst, %54, %c_1, sizes = [1, 4] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %63 = stablehlo.dynamic_slice %cst, %55, %c_1, sizes = [1, 4] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %64 = stablehlo.dynamic_slice %cst, %56, %c_1, sizes = [1, 4] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %65 = stablehlo.dynamic_slice %cst, %57, %c_1, sizes = [1, 4] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %66 = stablehlo.add %58, %58 : tensor<1x4xf32>
    %67 = stablehlo.add %59, %59 : tensor<1x4xf32>
    %68 = stablehlo.add %60, %60 : tensor<1x4xf32>
    %69 = stablehlo.add %61, %61 : tensor<1x4xf32>
    %70 = stablehlo.slice %66 [0:1, 0:2] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %71 = stablehlo.slice %68 [0:1, 0:2] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %72 = flow.tensor.transfer %71 : tensor<1x2xf32> to #hal.device.promise<@dev0>
    %73 = stablehlo.concatenate %70, %72, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %74 = stablehlo.slice %66 [0:1, 2:4] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %75 = flow.tensor.transfer %74 : tensor<1x2xf32> to #hal.device.promise<@dev2>
    %76 = stablehlo.slice %68 [0:1, 2:4] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %77 = stablehlo.concatenate %75, %76, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %78 = stablehlo.slice %67 [0:1, 0:2] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %79 = stablehlo.slice %69 [0:1, 0:2] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %80 = flow.tensor.transfer %79 : tensor<1x2xf32> to #hal.device.promise<@dev1>
    %81 = stablehlo.concatenate %78, %80, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %82 = stablehlo.slice %67 [0:1, 2:4] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %83 = flow.tensor.transfer %82 : tensor<1x2xf32> to #hal.device.promise<@dev3>
    %84 = stablehlo.slice %69 [0:1, 2:4] : (tensor<1x4xf32>) -> tensor<1x2xf32>
    %85 = stablehlo.concatenate %83, %84, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    return %73, %81, %77, %85 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
}
