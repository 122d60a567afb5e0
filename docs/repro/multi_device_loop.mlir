module attributes {irax.num_devices = 4 : i64} {
  func.func @main(%arg0: tensor<i32>, %arg1: tensor<8x4xf32>) -> (tensor<i32>, tensor<8x4xf32>) {
    %0 = stablehlo.reshape %arg1 : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2, 3] : (tensor<2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %3:2 = call @main_spmd_pmap(%arg0, %2) : (tensor<i32>, tensor<4x4x4xf32>) -> (tensor<4xi32>, tensor<4x4x4xf32>)
    %4 = stablehlo.reshape %3#0 : (tensor<4xi32>) -> tensor<2x2xi32>
    %5 = stablehlo.slice %4 [0:1, 0:1] : (tensor<2x2xi32>) -> tensor<1x1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1x1xi32>) -> tensor<i32>
    %7 = stablehlo.reshape %3#1 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %8 = stablehlo.slice %7 [0:2, 0:1, 0:4, 0:4] : (tensor<2x2x4x4xf32>) -> tensor<2x1x4x4xf32>
    %9 = stablehlo.reshape %8 : (tensor<2x1x4x4xf32>) -> tensor<2x4x4xf32>
    %10 = stablehlo.reshape %9 : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
    return %6, %10 : tensor<i32>, tensor<8x4xf32>
  }
  func.func private @main_spmd_pmap(%arg0: tensor<i32>, %arg1: tensor<4x4x4xf32>) -> (tensor<4xi32>, tensor<4x4x4xf32>) {
    %0 = flow.tensor.transfer %arg0 : tensor<i32> to #hal.device.promise<@dev0>
    %1 = stablehlo.slice %arg1 [0:1, 0:4, 0:4] : (tensor<4x4x4xf32>) -> tensor<1x4x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %3 = flow.tensor.transfer %2 : tensor<4x4xf32> to #hal.device.promise<@dev0>
    %4 = flow.tensor.transfer %arg0 : tensor<i32> to #hal.device.promise<@dev1>
    %5 = stablehlo.slice %arg1 [1:2, 0:4, 0:4] : (tensor<4x4x4xf32>) -> tensor<1x4x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %7 = flow.tensor.transfer %6 : tensor<4x4xf32> to #hal.device.promise<@dev1>
    %8 = flow.tensor.transfer %arg0 : tensor<i32> to #hal.device.promise<@dev2>
    %9 = stablehlo.slice %arg1 [2:3, 0:4, 0:4] : (tensor<4x4x4xf32>) -> tensor<1x4x4xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %11 = flow.tensor.transfer %10 : tensor<4x4xf32> to #hal.device.promise<@dev2>
    %12 = flow.tensor.transfer %arg0 : tensor<i32> to #hal.device.promise<@dev3>
    %13 = stablehlo.slice %arg1 [3:4, 0:4, 0:4] : (tensor<4x4x4xf32>) -> tensor<1x4x4xf32>
    %14 = stablehlo.reshape %13 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %15 = flow.tensor.transfer %14 : tensor<4x4xf32> to #hal.device.promise<@dev3>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %16:9 = stablehlo.while(%iterArg = %c, %iterArg_0 = %0, %iterArg_1 = %3, %iterArg_2 = %4, %iterArg_3 = %7, %iterArg_4 = %8, %iterArg_5 = %11, %iterArg_6 = %12, %iterArg_7 = %15) : tensor<i32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>
    cond {
      %c_8 = stablehlo.constant dense<3> : tensor<i32>
      %35 = stablehlo.compare LT, %iterArg, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %35 : tensor<i1>
    } do {
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %c_9 = stablehlo.constant dense<1> : tensor<i32>
      %c_10 = stablehlo.constant dense<1> : tensor<i32>
      %c_11 = stablehlo.constant dense<1> : tensor<i32>
      %35 = stablehlo.add %iterArg_0, %c_8 : tensor<i32>
      %36 = stablehlo.add %iterArg_2, %c_9 : tensor<i32>
      %37 = stablehlo.add %iterArg_4, %c_10 : tensor<i32>
      %38 = stablehlo.add %iterArg_6, %c_11 : tensor<i32>
      %cst = stablehlo.constant dense<1.500000e+00> : tensor<8x4xf32>
      %cst_12 = stablehlo.constant dense<1.500000e+00> : tensor<8x4xf32>
      %cst_13 = stablehlo.constant dense<1.500000e+00> : tensor<8x4xf32>
      %cst_14 = stablehlo.constant dense<1.500000e+00> : tensor<8x4xf32>
      %c_15 = stablehlo.constant dense<0> : tensor<i32>
      %c_16 = stablehlo.constant dense<1> : tensor<i32>
      %c_17 = stablehlo.constant dense<0> : tensor<i32>
      %c_18 = stablehlo.constant dense<1> : tensor<i32>
      %c_19 = stablehlo.constant dense<4> : tensor<i32>
      %c_20 = stablehlo.constant dense<4> : tensor<i32>
      %c_21 = stablehlo.constant dense<4> : tensor<i32>
      %c_22 = stablehlo.constant dense<4> : tensor<i32>
      %39 = stablehlo.multiply %c_15, %c_19 : tensor<i32>
      %40 = stablehlo.multiply %c_17, %c_20 : tensor<i32>
      %41 = stablehlo.multiply %c_16, %c_21 : tensor<i32>
      %42 = stablehlo.multiply %c_18, %c_22 : tensor<i32>
      %c_23 = stablehlo.constant dense<0> : tensor<i32>
      %c_24 = stablehlo.constant dense<0> : tensor<i32>
      %c_25 = stablehlo.constant dense<0> : tensor<i32>
      %c_26 = stablehlo.constant dense<0> : tensor<i32>
      %43 = stablehlo.dynamic_slice %cst, %39, %c_23, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
      %44 = stablehlo.dynamic_slice %cst_12, %40, %c_24, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
      %45 = stablehlo.dynamic_slice %cst_13, %41, %c_25, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
      %46 = stablehlo.dynamic_slice %cst_14, %42, %c_26, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
      %47 = stablehlo.multiply %iterArg_1, %43 : tensor<4x4xf32>
      %48 = stablehlo.multiply %iterArg_3, %44 : tensor<4x4xf32>
      %49 = stablehlo.multiply %iterArg_5, %45 : tensor<4x4xf32>
      %50 = stablehlo.multiply %iterArg_7, %46 : tensor<4x4xf32>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %51 = stablehlo.add %iterArg, %c_27 : tensor<i32>
      stablehlo.return %51, %35, %47, %36, %48, %37, %49, %38, %50 : tensor<i32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>
    }
    %17 = flow.tensor.transfer %16#1 : tensor<i32> to #hal.device.promise<@dev0>
    %18 = stablehlo.reshape %17 : (tensor<i32>) -> tensor<1xi32>
    %19 = flow.tensor.transfer %16#3 : tensor<i32> to #hal.device.promise<@dev0>
    %20 = stablehlo.reshape %19 : (tensor<i32>) -> tensor<1xi32>
    %21 = flow.tensor.transfer %16#5 : tensor<i32> to #hal.device.promise<@dev0>
    %22 = stablehlo.reshape %21 : (tensor<i32>) -> tensor<1xi32>
    %23 = flow.tensor.transfer %16#7 : tensor<i32> to #hal.device.promise<@dev0>
    %24 = stablehlo.reshape %23 : (tensor<i32>) -> tensor<1xi32>
    %25 = stablehlo.concatenate %18, %20, %22, %24, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    %26 = flow.tensor.transfer %16#2 : tensor<4x4xf32> to #hal.device.promise<@dev0>
    %27 = stablehlo.reshape %26 : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %28 = flow.tensor.transfer %16#4 : tensor<4x4xf32> to #hal.device.promise<@dev0>
    %29 = stablehlo.reshape %28 : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %30 = flow.tensor.transfer %16#6 : tensor<4x4xf32> to #hal.device.promise<@dev0>
    %31 = stablehlo.reshape %30 : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %32 = flow.tensor.transfer %16#8 : tensor<4x4xf32> to #hal.device.promise<@dev0>
    %33 = stablehlo.reshape %32 : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %34 = stablehlo.concatenate %27, %29, %31, %33, dim = 0 : (tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<4x4x4xf32>
    return %25, %34 : tensor<4xi32>, tensor<4x4x4xf32>
  }
}
