# RUN: %python %s | filecheck %s
# Lowering of the shape and indexing ops (shape.py, indexing.py) to StableHLO.
import numpy as np

import irax
from irax.frontend.trace import bind
from irax.dialect import indexing as I
from irax.dialect import shape as S

f32 = np.float32


def case(name, fn, *args):
    print("// -----", name)
    print(irax.jit(fn).lower(*args).as_text("stablehlo"))


# CHECK-LABEL: // ----- broadcast_sorted
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
case("broadcast_sorted",
     lambda x: bind(S.BroadcastInDim, x, shape=(2, 3), broadcast_dimensions=(1,)),
     np.ones(3, f32))

# CHECK-LABEL: // ----- broadcast_unsorted
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [2, 0] : (tensor<2x3xf32>) -> tensor<3x4x2xf32>
case("broadcast_unsorted",
     lambda x: bind(S.BroadcastInDim, x, shape=(3, 4, 2), broadcast_dimensions=(2, 0)),
     np.ones((2, 3), f32))

# CHECK-LABEL: // ----- reshape
# CHECK: stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x1x2xf32>
case("reshape", lambda x: bind(S.Reshape, x, new_sizes=(3, 1, 2)), np.ones((2, 3), f32))

# CHECK-LABEL: // ----- transpose
# CHECK: stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
case("transpose", lambda x: bind(S.Transpose, x, permutation=(2, 0, 1)),
     np.ones((2, 3, 4), f32))

# CHECK-LABEL: // ----- slice
# CHECK: stablehlo.slice %arg0 [1:4:2, 0:6:3] : (tensor<5x6xf32>) -> tensor<2x2xf32>
case("slice", lambda x: bind(S.Slice, x, start_indices=(1, 0), limit_indices=(4, 6),
                             strides=(2, 3)), np.ones((5, 6), f32))

# CHECK-LABEL: // ----- concatenate
# CHECK: stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1
# CHECK-SAME: (tensor<2x1xi32>, tensor<2x3xi32>, tensor<2x1xi32>) -> tensor<2x5xi32>
case("concatenate", lambda x, y: bind(S.Concatenate, x, y, x, dimension=1),
     np.ones((2, 1), np.int32), np.ones((2, 3), np.int32))

# CHECK-LABEL: // ----- pad
# CHECK: stablehlo.pad %arg0, %arg1, low = [1, -1], high = [0, 2], interior = [1, 0]
# CHECK-SAME: (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
case("pad", lambda x, v: bind(S.Pad, x, v, edge_padding_low=(1, -1), edge_padding_high=(0, 2),
                              interior_padding=(1, 0)), np.ones((2, 3), f32), f32(0))

# CHECK-LABEL: // ----- reverse
# CHECK: stablehlo.reverse %arg0, dims = [0, 1] : tensor<2x3xf32>
case("reverse", lambda x: bind(S.Reverse, x, dimensions=(0, 1)), np.ones((2, 3), f32))

# CHECK-LABEL: // ----- dynamic_slice
# CHECK: stablehlo.dynamic_slice %arg0, %arg1, %arg2, sizes = [2, 2]
# CHECK-SAME: (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
case("dynamic_slice", lambda x, i, j: bind(I.DynamicSlice, x, i, j, slice_sizes=(2, 2)),
     np.ones((5, 4), f32), np.int32(0), np.int32(1))

# CHECK-LABEL: // ----- dynamic_update_slice
# CHECK: stablehlo.dynamic_update_slice %arg0, %arg1, %arg2
# CHECK-SAME: (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
case("dynamic_update_slice", lambda x, u, i: bind(I.DynamicUpdateSlice, x, u, i),
     np.ones(5, f32), np.ones(2, f32), np.int32(3))

# One stablehlo.gather, which clamps its starts itself (the explicit clamp IREE needs is
# irax-legalize-iree's: legalize/gather.mlir).
# CHECK-LABEL: // ----- gather_rows
# CHECK-NOT: stablehlo.clamp
# CHECK: "stablehlo.gather"(%arg0, %arg1)
# CHECK-SAME: dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
# CHECK-SAME: indices_are_sorted = false, slice_sizes = array<i64: 1, 3>
# CHECK-SAME: (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
case("gather_rows", lambda x, i: bind(I.Gather, x, i, offset_dims=(1,),
                                      collapsed_slice_dims=(0,), start_index_map=(0,),
                                      slice_sizes=(1, 3), index_vector_dim=1),
     np.ones((5, 3), f32), np.zeros((4, 1), np.int32))

# CHECK-LABEL: // ----- gather_batching
# CHECK: "stablehlo.gather"
# CHECK-SAME: #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>
# CHECK-SAME: (tensor<3x5xf32>, tensor<3x2x1xi32>) -> tensor<3x2xf32>
case("gather_batching", lambda x, i: bind(I.Gather, x, i, offset_dims=(),
                                          collapsed_slice_dims=(1,), start_index_map=(1,),
                                          operand_batching_dims=(0,),
                                          start_indices_batching_dims=(0,), slice_sizes=(1, 1),
                                          index_vector_dim=2),
     np.ones((3, 5), f32), np.zeros((3, 2, 1), np.int32))
