# RUN: %python %s | filecheck %s
# Lowering of the reductions (reduction.py) to stablehlo.reduce.
import ml_dtypes
import numpy as np

import irax
from irax.frontend.trace import bind
from irax.dialect import reduction as R


def case(name, fn, *args):
    print("// -----", name)
    print(irax.jit(fn).lower(*args).as_text("stablehlo"))


# CHECK-LABEL: // ----- sum
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.add across dimensions = [1]
# CHECK-SAME: (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
case("sum", lambda x: bind(R.ReduceSum, x, axes=(1,)), np.ones((2, 3), np.float32))

# CHECK-LABEL: // ----- max_int
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<-2147483648> : tensor<i32>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.maximum across dimensions = [0, 1]
# CHECK-SAME: (tensor<2x3xi32>, tensor<i32>) -> tensor<i32>
case("max_int", lambda x: bind(R.ReduceMax, x, axes=(0, 1)), np.ones((2, 3), np.int32))

# Float max starts at -inf.
# CHECK-LABEL: // ----- max_f32
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.maximum across dimensions = [0]
case("max_f32", lambda x: bind(R.ReduceMax, x, axes=(0,)), np.ones((2, 3), np.float32))

# CHECK-LABEL: // ----- min_bf16
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<0x7F80> : tensor<bf16>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.minimum across dimensions = [0]
# CHECK-SAME: (tensor<2x3xbf16>, tensor<bf16>) -> tensor<3xbf16>
case("min_bf16", lambda x: bind(R.ReduceMin, x, axes=(0,)), np.ones((2, 3), ml_dtypes.bfloat16))

# CHECK-LABEL: // ----- prod
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.multiply across dimensions = [0]
case("prod", lambda x: bind(R.ReduceProd, x, axes=(0,)), np.ones((2, 3), np.float32))

# CHECK-LABEL: // ----- and_bool
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<true> : tensor<i1>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.and across dimensions = [1]
# CHECK-SAME: (tensor<2x3xi1>, tensor<i1>) -> tensor<2xi1>
case("and_bool", lambda x: bind(R.ReduceAnd, x, axes=(1,)), np.ones((2, 3), bool))

# CHECK-LABEL: // ----- and_uint
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<255> : tensor<ui8>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.and across dimensions = [1]
case("and_uint", lambda x: bind(R.ReduceAnd, x, axes=(1,)), np.ones((2, 3), np.uint8))

# CHECK-LABEL: // ----- or
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<false> : tensor<i1>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]]) applies stablehlo.or across dimensions = [0]
case("or", lambda x: bind(R.ReduceOr, x, axes=(0,)), np.ones((2, 3), bool))

# argmax: a two-operand reduce over (x, iota); the first NaN wins, ties go to the lower index.
# CHECK-LABEL: // ----- argmax
# CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x3xi32>
# CHECK-DAG: %[[V0:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
# CHECK-DAG: %[[I0:.*]] = stablehlo.constant dense<0> : tensor<i32>
# CHECK: %[[R:.*]]:2 = stablehlo.reduce(%arg0 init: %[[V0]]), (%[[IOTA]] init: %[[I0]]) across dimensions = [1]
# CHECK-SAME: -> (tensor<2xf32>, tensor<2xi32>)
# CHECK: reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>) (%[[AI:.*]]: tensor<i32>, %[[BI:.*]]: tensor<i32>)
# CHECK-DAG: %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[B]], FLOAT
# CHECK-DAG: %[[FIRST:.*]] = stablehlo.compare LT, %[[AI]], %[[BI]], SIGNED
# CHECK-DAG: %[[GT:.*]] = stablehlo.compare GT, %[[A]], %[[B]], FLOAT
# CHECK-DAG: %[[ANAN:.*]] = stablehlo.compare NE, %[[A]], %[[A]], FLOAT
# CHECK-DAG: %[[BNAN:.*]] = stablehlo.compare NE, %[[B]], %[[B]], FLOAT
# CHECK: stablehlo.select %[[PICK:[^,]*]], %[[A]], %[[B]] : tensor<i1>, tensor<f32>
# CHECK-NEXT: stablehlo.select %[[PICK]], %[[AI]], %[[BI]] : tensor<i1>, tensor<i32>
# CHECK-NEXT: stablehlo.return
# CHECK: return %[[R]]#1 : tensor<2xi32>
case("argmax", lambda x: bind(R.Argmax, x, axis=1, index_dtype=np.int32),
     np.ones((2, 3), np.float32))

# Integer argmin needs no NaN tests.
# CHECK-LABEL: // ----- argmin_int
# CHECK: stablehlo.iota dim = 0 : tensor<2x3xi32>
# CHECK: %[[INIT:.*]] = stablehlo.constant dense<2147483647> : tensor<i32>
# CHECK: stablehlo.reduce(%arg0 init: %[[INIT]])
# CHECK-NOT: compare NE
# CHECK: stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
# CHECK: stablehlo.return
case("argmin_int", lambda x: bind(R.Argmin, x, axis=0, index_dtype=np.int32),
     np.ones((2, 3), np.int32))
