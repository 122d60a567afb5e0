# RUN: %python %s | filecheck %s
# Lowering of dot_general (linalg.py) to stablehlo.dot_general.
import ml_dtypes
import numpy as np

import irax
from irax.frontend.trace import bind
from irax.dialect import linalg as L


def case(name, fn, *args):
    print("// -----", name)
    print(irax.jit(fn).lower(*args).as_text("stablehlo"))


def dot(lc, rc, lb=(), rb=()):
    return lambda x, y: bind(L.DotGeneral, x, y, lhs_contracting_dimensions=lc,
                             rhs_contracting_dimensions=rc, lhs_batch_dimensions=lb,
                             rhs_batch_dimensions=rb)


# CHECK-LABEL: // ----- matmul
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
# CHECK-SAME: (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
case("matmul", dot((1,), (0,)), np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))

# CHECK-LABEL: // ----- batched
# CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1]
# CHECK-SAME: (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
case("batched", dot((2,), (1,), (0,), (0,)), np.ones((5, 2, 3), np.float32),
     np.ones((5, 3, 4), np.float32))

# Result dims: batch, then lhs free, then rhs free.
# CHECK-LABEL: // ----- general
# CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [3], contracting_dims = [1, 2] x [2, 0]
# CHECK-SAME: (tensor<2x3x4x5xi32>, tensor<4x6x3x2xi32>) -> tensor<2x5x6xi32>
case("general", dot((1, 2), (2, 0), (0,), (3,)), np.ones((2, 3, 4, 5), np.int32),
     np.ones((4, 6, 3, 2), np.int32))

# CHECK-LABEL: // ----- outer_bf16
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [] x []
# CHECK-SAME: (tensor<3xbf16>, tensor<2xbf16>) -> tensor<3x2xbf16>
case("outer_bf16", dot((), ()), np.ones(3, ml_dtypes.bfloat16), np.ones(2, ml_dtypes.bfloat16))
