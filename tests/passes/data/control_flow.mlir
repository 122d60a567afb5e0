// Generated with jax 0.10.2: a while_loop, a cond and a switch (tests/passes/test_raise_control_flow.py)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg1, %iterArg_5 = %arg0, %iterArg_6 = %c) : tensor<f32>, tensor<2xf32>, tensor<i32>
    cond {
      %c_7 = stablehlo.constant dense<5> : tensor<i32>
      %11 = stablehlo.compare LT, %iterArg_6, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %11 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %12 = stablehlo.multiply %iterArg_5, %11 : tensor<2xf32>
      %13 = stablehlo.sine %iterArg_5 : tensor<2xf32>
      %14 = stablehlo.add %12, %13 : tensor<2xf32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %15 = stablehlo.add %iterArg_6, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %14, %15 : tensor<f32>, tensor<2xf32>, tensor<i32>
    }
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0#1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.compare GT, %1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %11 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %12 = stablehlo.subtract %0#1, %11 : tensor<2xf32>
      stablehlo.return %12 : tensor<2xf32>
    }, {
      %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %12 = stablehlo.multiply %0#1, %11 : tensor<2xf32>
      stablehlo.return %12 : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %5 = call @remainder(%0#2, %c_1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %6 = stablehlo.convert %5 : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %7 = stablehlo.clamp %c_2, %6, %c_3 : tensor<i32>
    %8 = "stablehlo.case"(%7) ({
      stablehlo.return %4 : tensor<2xf32>
    }, {
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %12 = stablehlo.add %4, %11 : tensor<2xf32>
      stablehlo.return %12 : tensor<2xf32>
    }, {
      %11 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %12 = stablehlo.multiply %4, %11 : tensor<2xf32>
      stablehlo.return %12 : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
    %9 = stablehlo.multiply %8, %8 : tensor<2xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    return %10 : tensor<f32>
  }
  func.func private @remainder(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.compare NE, %2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %2, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %7 = stablehlo.and %6, %3 : tensor<i1>
    %8 = stablehlo.add %2, %1 : tensor<i32>
    %9 = stablehlo.select %7, %8, %2 : tensor<i1>, tensor<i32>
    return %9 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
