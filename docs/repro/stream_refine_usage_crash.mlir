// IREE 3.13 iree-compile crashes (SIGSEGV in Stream RefineUsagePass, ResourceType::getLifetime)
// on this module: irax's lowering of jit(grad) through a while loop with the tape of
// dialect/control_flow/while_tape.py (irax_while_grad_forward=False), the loss
// sum(v * arange(1., 4.)) of a loop carrying (i, v, s) with s unused. See docs/performance.md.
//   iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
//     --iree-input-type=stablehlo docs/repro/stream_refine_usage_crash.mlir -o /dev/null
module {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
    %0:2 = call @loss_grad(%arg0, %arg1, %arg2, %arg3) : (tensor<3xf32>, tensor<f32>, tensor<i32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
    return %0#0, %0#1 : tensor<3xf32>, tensor<f32>
  }
  func.func private @loss_vjp(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>, %arg4: tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg2, %iterArg_12 = %c_0, %iterArg_13 = %c, %iterArg_14 = %arg0, %iterArg_15 = %arg3) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
    cond {
      %18 = func.call @while_cond(%iterArg, %iterArg_13, %iterArg_14, %iterArg_15) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    } do {
      %c_16 = stablehlo.constant dense<1> : tensor<i32>
      %18 = stablehlo.add %iterArg_12, %c_16 : tensor<i32>
      %19:3 = func.call @while_body(%iterArg, %iterArg_13, %iterArg_14, %iterArg_15) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>)
      stablehlo.return %iterArg, %18, %19#0, %19#1, %19#2 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
    }
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
    %1 = stablehlo.multiply %0#3, %cst : tensor<3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %3 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %4 = stablehlo.multiply %3, %cst : tensor<3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_3 = stablehlo.constant dense<256> : tensor<i32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %5 = stablehlo.subtract %c_3, %c_4 : tensor<i32>
    %6 = stablehlo.add %0#1, %5 : tensor<i32>
    %7 = stablehlo.divide %6, %c_3 : tensor<i32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.maximum %7, %c_5 : tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<257xi32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<257x3xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<257xf32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %12:10 = stablehlo.while(%iterArg = %arg2, %iterArg_12 = %0#1, %iterArg_13 = %8, %iterArg_14 = %c_9, %iterArg_15 = %c, %iterArg_16 = %arg0, %iterArg_17 = %arg3, %iterArg_18 = %9, %iterArg_19 = %10, %iterArg_20 = %11) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<257xi32>, tensor<257x3xf32>, tensor<257xf32>
    cond {
      %18 = stablehlo.compare LT, %iterArg_14, %iterArg_12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    } do {
      %18 = stablehlo.remainder %iterArg_14, %iterArg_13 : tensor<i32>
      %c_21 = stablehlo.constant dense<0> : tensor<i32>
      %19 = stablehlo.compare EQ, %18, %c_21, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %20 = stablehlo.divide %iterArg_14, %iterArg_13 : tensor<i32>
      %c_22 = stablehlo.constant dense<256> : tensor<i32>
      %21 = stablehlo.select %19, %20, %c_22 : tensor<i1>, tensor<i32>
      %22 = stablehlo.reshape %iterArg_15 : (tensor<i32>) -> tensor<1xi32>
      %23 = stablehlo.dynamic_update_slice %iterArg_18, %22, %21 : (tensor<257xi32>, tensor<1xi32>, tensor<i32>) -> tensor<257xi32>
      %c_23 = stablehlo.constant dense<0> : tensor<i32>
      %24 = stablehlo.reshape %iterArg_16 : (tensor<3xf32>) -> tensor<1x3xf32>
      %25 = stablehlo.dynamic_update_slice %iterArg_19, %24, %21, %c_23 : (tensor<257x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<257x3xf32>
      %26 = stablehlo.reshape %iterArg_17 : (tensor<f32>) -> tensor<1xf32>
      %27 = stablehlo.dynamic_update_slice %iterArg_20, %26, %21 : (tensor<257xf32>, tensor<1xf32>, tensor<i32>) -> tensor<257xf32>
      %28:3 = func.call @while_body(%iterArg, %iterArg_15, %iterArg_16, %iterArg_17) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>)
      %c_24 = stablehlo.constant dense<1> : tensor<i32>
      %29 = stablehlo.add %iterArg_14, %c_24 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_12, %iterArg_13, %29, %28#0, %28#1, %28#2, %23, %25, %27 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<257xi32>, tensor<257x3xf32>, tensor<257xf32>
    }
    %c_10 = stablehlo.constant dense<1> : tensor<i32>
    %13 = stablehlo.subtract %8, %c_10 : tensor<i32>
    %14 = stablehlo.add %0#1, %13 : tensor<i32>
    %15 = stablehlo.divide %14, %8 : tensor<i32>
    %c_11 = stablehlo.constant dense<1> : tensor<i32>
    %16 = stablehlo.subtract %15, %c_11 : tensor<i32>
    %17:9 = stablehlo.while(%iterArg = %arg2, %iterArg_12 = %12#7, %iterArg_13 = %12#8, %iterArg_14 = %12#9, %iterArg_15 = %0#1, %iterArg_16 = %8, %iterArg_17 = %16, %iterArg_18 = %4, %iterArg_19 = %cst_2) : tensor<i32>, tensor<257xi32>, tensor<257x3xf32>, tensor<257xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
    cond {
      %c_20 = stablehlo.constant dense<0> : tensor<i32>
      %18 = stablehlo.compare GE, %iterArg_17, %c_20, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    } do {
      %18 = stablehlo.multiply %iterArg_17, %iterArg_16 : tensor<i32>
      %19 = stablehlo.subtract %iterArg_15, %18 : tensor<i32>
      %20 = stablehlo.minimum %iterArg_16, %19 : tensor<i32>
      %c_20 = stablehlo.constant dense<64> : tensor<i32>
      %c_21 = stablehlo.constant dense<1> : tensor<i32>
      %21 = stablehlo.subtract %c_20, %c_21 : tensor<i32>
      %22 = stablehlo.add %20, %21 : tensor<i32>
      %23 = stablehlo.divide %22, %c_20 : tensor<i32>
      %c_22 = stablehlo.constant dense<1> : tensor<i32>
      %24 = stablehlo.maximum %23, %c_22 : tensor<i32>
      %25 = stablehlo.dynamic_slice %iterArg_12, %iterArg_17, sizes = [1] : (tensor<257xi32>, tensor<i32>) -> tensor<1xi32>
      %26 = stablehlo.reshape %25 : (tensor<1xi32>) -> tensor<i32>
      %c_23 = stablehlo.constant dense<0> : tensor<i32>
      %27 = stablehlo.dynamic_slice %iterArg_13, %iterArg_17, %c_23, sizes = [1, 3] : (tensor<257x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %28 = stablehlo.reshape %27 : (tensor<1x3xf32>) -> tensor<3xf32>
      %29 = stablehlo.dynamic_slice %iterArg_14, %iterArg_17, sizes = [1] : (tensor<257xf32>, tensor<i32>) -> tensor<1xf32>
      %30 = stablehlo.reshape %29 : (tensor<1xf32>) -> tensor<f32>
      %c_24 = stablehlo.constant dense<0> : tensor<i32>
      %c_25 = stablehlo.constant dense<0> : tensor<i32>
      %31 = stablehlo.broadcast_in_dim %c_25, dims = [] : (tensor<i32>) -> tensor<65xi32>
      %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %32 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<65x3xf32>
      %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %33 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<65xf32>
      %34:10 = stablehlo.while(%iterArg_30 = %iterArg, %iterArg_31 = %20, %iterArg_32 = %24, %iterArg_33 = %c_24, %iterArg_34 = %26, %iterArg_35 = %28, %iterArg_36 = %30, %iterArg_37 = %31, %iterArg_38 = %32, %iterArg_39 = %33) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<65xi32>, tensor<65x3xf32>, tensor<65xf32>
      cond {
        %38 = stablehlo.compare LT, %iterArg_33, %iterArg_31, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %38 : tensor<i1>
      } do {
        %38 = stablehlo.remainder %iterArg_33, %iterArg_32 : tensor<i32>
        %c_40 = stablehlo.constant dense<0> : tensor<i32>
        %39 = stablehlo.compare EQ, %38, %c_40, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %40 = stablehlo.divide %iterArg_33, %iterArg_32 : tensor<i32>
        %c_41 = stablehlo.constant dense<64> : tensor<i32>
        %41 = stablehlo.select %39, %40, %c_41 : tensor<i1>, tensor<i32>
        %42 = stablehlo.reshape %iterArg_34 : (tensor<i32>) -> tensor<1xi32>
        %43 = stablehlo.dynamic_update_slice %iterArg_37, %42, %41 : (tensor<65xi32>, tensor<1xi32>, tensor<i32>) -> tensor<65xi32>
        %c_42 = stablehlo.constant dense<0> : tensor<i32>
        %44 = stablehlo.reshape %iterArg_35 : (tensor<3xf32>) -> tensor<1x3xf32>
        %45 = stablehlo.dynamic_update_slice %iterArg_38, %44, %41, %c_42 : (tensor<65x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<65x3xf32>
        %46 = stablehlo.reshape %iterArg_36 : (tensor<f32>) -> tensor<1xf32>
        %47 = stablehlo.dynamic_update_slice %iterArg_39, %46, %41 : (tensor<65xf32>, tensor<1xf32>, tensor<i32>) -> tensor<65xf32>
        %48:3 = func.call @while_body(%iterArg_30, %iterArg_34, %iterArg_35, %iterArg_36) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>)
        %c_43 = stablehlo.constant dense<1> : tensor<i32>
        %49 = stablehlo.add %iterArg_33, %c_43 : tensor<i32>
        stablehlo.return %iterArg_30, %iterArg_31, %iterArg_32, %49, %48#0, %48#1, %48#2, %43, %45, %47 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<65xi32>, tensor<65x3xf32>, tensor<65xf32>
      }
      %c_28 = stablehlo.constant dense<1> : tensor<i32>
      %35 = stablehlo.subtract %20, %c_28 : tensor<i32>
      %36:8 = stablehlo.while(%iterArg_30 = %iterArg, %iterArg_31 = %34#7, %iterArg_32 = %34#8, %iterArg_33 = %34#9, %iterArg_34 = %24, %iterArg_35 = %35, %iterArg_36 = %iterArg_18, %iterArg_37 = %iterArg_19) : tensor<i32>, tensor<65xi32>, tensor<65x3xf32>, tensor<65xf32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
      cond {
        %c_38 = stablehlo.constant dense<0> : tensor<i32>
        %38 = stablehlo.compare GE, %iterArg_35, %c_38, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %38 : tensor<i1>
      } do {
        %38 = stablehlo.divide %iterArg_35, %iterArg_34 : tensor<i32>
        %39 = stablehlo.dynamic_slice %iterArg_31, %38, sizes = [1] : (tensor<65xi32>, tensor<i32>) -> tensor<1xi32>
        %40 = stablehlo.reshape %39 : (tensor<1xi32>) -> tensor<i32>
        %c_38 = stablehlo.constant dense<0> : tensor<i32>
        %41 = stablehlo.dynamic_slice %iterArg_32, %38, %c_38, sizes = [1, 3] : (tensor<65x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %42 = stablehlo.reshape %41 : (tensor<1x3xf32>) -> tensor<3xf32>
        %43 = stablehlo.dynamic_slice %iterArg_33, %38, sizes = [1] : (tensor<65xf32>, tensor<i32>) -> tensor<1xf32>
        %44 = stablehlo.reshape %43 : (tensor<1xf32>) -> tensor<f32>
        %45 = stablehlo.remainder %iterArg_35, %iterArg_34 : tensor<i32>
        %c_39 = stablehlo.constant dense<0> : tensor<i32>
        %46:6 = stablehlo.while(%iterArg_41 = %iterArg_30, %iterArg_42 = %45, %iterArg_43 = %c_39, %iterArg_44 = %40, %iterArg_45 = %42, %iterArg_46 = %44) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
        cond {
          %49 = stablehlo.compare LT, %iterArg_43, %iterArg_42, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %49 : tensor<i1>
        } do {
          %c_47 = stablehlo.constant dense<1> : tensor<i32>
          %49 = stablehlo.add %iterArg_43, %c_47 : tensor<i32>
          %50:3 = func.call @while_body(%iterArg_41, %iterArg_44, %iterArg_45, %iterArg_46) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>)
          stablehlo.return %iterArg_41, %iterArg_42, %49, %50#0, %50#1, %50#2 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
        }
        %c_40 = stablehlo.constant dense<1> : tensor<i32>
        %47 = stablehlo.subtract %iterArg_35, %c_40 : tensor<i32>
        %48:5 = func.call @while_body_vjp(%iterArg_30, %46#3, %46#4, %46#5, %iterArg_36, %iterArg_37) : (tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>)
        stablehlo.return %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %47, %48#3, %48#4 : tensor<i32>, tensor<65xi32>, tensor<65x3xf32>, tensor<65xf32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
      }
      %c_29 = stablehlo.constant dense<1> : tensor<i32>
      %37 = stablehlo.subtract %iterArg_17, %c_29 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %37, %36#6, %36#7 : tensor<i32>, tensor<257xi32>, tensor<257x3xf32>, tensor<257xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>, tensor<f32>
    }
    return %2, %17#7, %17#8 : tensor<f32>, tensor<3xf32>, tensor<f32>
  }
  func.func private @while_cond(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<3xf32>, %arg3: tensor<f32>) -> tensor<i1> {
    %c = stablehlo.constant dense<20> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func private @while_body(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<3xf32>, %arg3: tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>) {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = stablehlo.add %arg1, %0 : tensor<i32>
    %2 = stablehlo.negate %arg2 : tensor<3xf32>
    %3 = stablehlo.multiply %2, %arg2 : tensor<3xf32>
    %4 = stablehlo.exponential %3 : tensor<3xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<3xf32>
    %5 = stablehlo.multiply %arg2, %cst : tensor<3xf32>
    %6 = stablehlo.add %4, %5 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.multiply %arg3, %cst_0 : tensor<f32>
    return %1, %6, %7 : tensor<i32>, tensor<3xf32>, tensor<f32>
  }
  func.func private @while_body_vjp(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<3xf32>, %arg3: tensor<f32>, %arg4: tensor<3xf32>, %arg5: tensor<f32>) -> (tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>) {
    %0 = stablehlo.convert %arg0 : tensor<i32>
    %1 = stablehlo.add %arg1, %0 : tensor<i32>
    %2 = stablehlo.negate %arg2 : tensor<3xf32>
    %3 = stablehlo.multiply %2, %arg2 : tensor<3xf32>
    %4 = stablehlo.exponential %3 : tensor<3xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<3xf32>
    %5 = stablehlo.multiply %arg2, %cst : tensor<3xf32>
    %6 = stablehlo.add %4, %5 : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.multiply %arg3, %cst_0 : tensor<f32>
    %8 = stablehlo.multiply %arg5, %cst_0 : tensor<f32>
    %9 = stablehlo.multiply %arg4, %cst : tensor<3xf32>
    %10 = stablehlo.multiply %arg4, %4 : tensor<3xf32>
    %11 = stablehlo.multiply %10, %2 : tensor<3xf32>
    %12 = stablehlo.add %9, %11 : tensor<3xf32>
    %13 = stablehlo.multiply %10, %arg2 : tensor<3xf32>
    %14 = stablehlo.negate %13 : tensor<3xf32>
    %15 = stablehlo.add %12, %14 : tensor<3xf32>
    return %1, %6, %7, %15, %8 : tensor<i32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>
  }
  func.func private @loss_grad(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0:3 = call @loss_vjp(%arg0, %arg1, %arg2, %arg3, %cst) : (tensor<3xf32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>)
    return %0#1, %0#2 : tensor<3xf32>, tensor<f32>
  }
}
