// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree)' | filecheck %s
// RUN: irax-opt %s --split-input-file -p 'builtin.module(irax-lower-to-stablehlo, irax-legalize-iree{sort-kernels=false})' | filecheck %s --check-prefix=NOKERNEL

// irax-legalize-iree's sort pattern: what IREE 3.13 needs of a stablehlo.sort lowered from irax.sort
// (the portable form is in lower/sort.mlir).

// A stable sort: an iota along the dimension is the last key (IREE's sort is not stable),
// every operand is copied by a select on a predicate hidden behind a barrier (IREE sorts
// its operand buffers in place), floats compare with NaN last, and a barrier reads every
// result (IREE keeps unread results on the stack).
// CHECK-LABEL: func.func @stable_f32
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x3xi32>
// CHECK: %[[P:.*]]:2 = stablehlo.optimization_barrier %{{.*}}, %{{.*}} : tensor<i1>, tensor<i1>
// CHECK: %[[X:.*]] = stablehlo.select %{{.*}}, %arg0, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK: %[[I:.*]] = stablehlo.select %{{.*}}, %[[IOTA]], %{{.*}} : tensor<2x3xi1>, tensor<2x3xi32>
// CHECK: %[[S:.*]]:2 = "stablehlo.sort"(%[[X]], %[[I]]) <{dimension = 1 : i64, is_stable = true}>
// CHECK: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %[[C:.*]]: tensor<i32>, %[[D:.*]]: tensor<i32>):
// CHECK-DAG: stablehlo.compare LT, %[[C]], %[[D]], SIGNED
// CHECK-DAG: stablehlo.compare LT, %[[A]], %[[B]], FLOAT
// CHECK-DAG: stablehlo.compare NE, %[[B]], %[[B]], FLOAT
// CHECK: stablehlo.return
// CHECK: %[[R:.*]]:2 = stablehlo.optimization_barrier %[[S]]#0, %[[S]]#1
// CHECK: return %[[R]]#0 : tensor<2x3xf32>
func.func @stable_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "irax.sort"(%x) {dimension = 1 : i64, is_stable = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two keys, unstable: no iota; the comparator is lt0 | (eq0 & lt1); unsigned compare.
// CHECK-LABEL: func.func @two_keys
// CHECK-NOT: stablehlo.iota
// CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}}, %{{.*}}) <{dimension = 0 : i64, is_stable = false}>
// CHECK: ^bb0(%[[K0:.*]]: tensor<ui8>, %[[K1:.*]]: tensor<ui8>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK-DAG: %[[LT0:.*]] = stablehlo.compare LT, %[[K0]], %[[K1]], UNSIGNED
// CHECK-DAG: %[[EQ0:.*]] = stablehlo.compare EQ, %[[K0]], %[[K1]], UNSIGNED
// CHECK-DAG: stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED
// CHECK: %[[TIE:.*]] = stablehlo.and %[[EQ0]], %{{.*}} : tensor<i1>
// CHECK: %[[LESS:.*]] = stablehlo.or %[[LT0]], %[[TIE]] : tensor<i1>
// CHECK: stablehlo.return %[[LESS]] : tensor<i1>
func.func @two_keys(%k: tensor<4xui8>, %i: tensor<4xi32>, %v: tensor<4xf32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>) {
  %0:3 = "irax.sort"(%k, %i, %v) {dimension = 0 : i64, is_stable = false, num_keys = 2 : i64} : (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<4xui8>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Complex keys compare by (real, imag); bfloat16 moves as its int16 bits (IREE drops the
// sign of a bfloat16 NaN it moves) and is compared as bfloat16.
// CHECK-LABEL: func.func @complex_bf16
// CHECK: %[[BITS:.*]] = stablehlo.bitcast_convert %arg1 : (tensor<3xbf16>) -> tensor<3xi16>
// CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}})
// CHECK: ^bb0(%[[A:.*]]: tensor<complex<f32>>, %[[B:.*]]: tensor<complex<f32>>, %[[C:.*]]: tensor<i16>, %[[D:.*]]: tensor<i16>):
// CHECK-DAG: stablehlo.real %[[A]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-DAG: stablehlo.imag %[[B]] : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-DAG: stablehlo.bitcast_convert %[[C]] : (tensor<i16>) -> tensor<bf16>
// CHECK: (tensor<3xcomplex<f32>>, tensor<3xi16>) -> (tensor<3xcomplex<f32>>, tensor<3xi16>)
// CHECK: %[[R:.*]]:2 = stablehlo.optimization_barrier
// CHECK: %[[OUT:.*]] = stablehlo.bitcast_convert %[[R]]#1 : (tensor<3xi16>) -> tensor<3xbf16>
// CHECK: return %[[R]]#0, %[[OUT]]
func.func @complex_bf16(%a: tensor<3xcomplex<f32>>, %b: tensor<3xbf16>) -> (tensor<3xcomplex<f32>>, tensor<3xbf16>) {
  %0:2 = "irax.sort"(%a, %b) {dimension = 0 : i64, is_stable = false, num_keys = 2 : i64} : (tensor<3xcomplex<f32>>, tensor<3xbf16>) -> (tensor<3xcomplex<f32>>, tensor<3xbf16>)
  return %0#0, %0#1 : tensor<3xcomplex<f32>>, tensor<3xbf16>
}

// -----

// A long sort (rows * n * n >= 2^15) is a bitonic sorting network: the keys padded to a
// power of two with NaN (sorts last), the positions as the last key, one while loop over
// the stages (k, j); each stage gathers the partner i ^ j of every lane and keeps it where
// (partner < self) xor flip, flip = popcount(i & (j | k)) odd. The iota operand is not
// carried: its result is the network's position key.
// CHECK-LABEL: func.func @long_argsort
// CHECK-NOT: stablehlo.sort
// CHECK: %[[NAN:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<f32>
// CHECK: stablehlo.pad %{{.*}}, %[[NAN]], low = [0, 0, 0], high = [0, 212, 0], interior = [0, 0, 0] : (tensor<1x300x1xf32>, tensor<f32>) -> tensor<1x512x1xf32>
// CHECK: stablehlo.iota dim = 1 : tensor<1x512x1xi32>
// CHECK: stablehlo.while(%[[K:[^ ]+]] = %{{[^ ]+}}, %[[J:[^ ]+]] = %{{[^ ]+}}, %[[X:[^ ]+]] = %{{[^ ]+}}, %[[I:[^ ]+]] = %{{[^ ]+}}) : tensor<i32>, tensor<i32>, tensor<512xf32>, tensor<512xi32>
// CHECK: stablehlo.compare LE, %[[K]], %{{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK: %[[JK:.*]] = stablehlo.or %[[J]], %[[K]] : tensor<i32>
// CHECK: stablehlo.popcnt
// CHECK: %[[JW:.*]] = stablehlo.broadcast_in_dim %[[J]], dims = [] : (tensor<i32>) -> tensor<512xi32>
// CHECK: %[[P:.*]] = stablehlo.xor %{{.*}}, %[[JW]] : tensor<512xi32>
// CHECK: %[[PX:.*]] = "stablehlo.gather"(%[[X]],
// CHECK: %[[PI:.*]] = "stablehlo.gather"(%[[I]],
// CHECK-DAG: stablehlo.compare LT, %[[PI]], %[[I]], SIGNED
// CHECK-DAG: stablehlo.compare LT, %[[PX]], %[[X]], FLOAT
// CHECK: %[[TAKE:.*]] = stablehlo.xor %{{.*}}, %{{.*}} : tensor<512xi1>
// CHECK: stablehlo.select %[[TAKE]], %[[PX]], %[[X]] : tensor<512xi1>, tensor<512xf32>
// CHECK: stablehlo.select %[[TAKE]], %[[PI]], %[[I]] : tensor<512xi1>, tensor<512xi32>
// CHECK: stablehlo.slice %{{.*}} [0:1, 0:300, 0:1] : (tensor<1x512x1xi32>) -> tensor<1x300x1xi32>
func.func @long_argsort(%x: tensor<300xf32>) -> tensor<300xi32> {
  %i = "irax.iota"() {shape = array<i64: 300>, dtype = i32, dimension = 0} : () -> tensor<300xi32>
  %0:2 = "irax.sort"(%x, %i) {dimension = 0 : i64, is_stable = true} : (tensor<300xf32>, tensor<300xi32>) -> (tensor<300xf32>, tensor<300xi32>)
  return %0#1 : tensor<300xi32>
}

// -----

// Batched rows: every row sorted at once in one flat [rows * N] lane per operand; complex
// keys travel as (real, imag) lanes (IREE crashes padding complex numbers), bfloat16 as
// int16 bits; an unstable sort also gets the position key.
// CHECK-LABEL: func.func @long_rows
// CHECK-DAG: %[[RE:.*]] = stablehlo.real %{{.*}} : (tensor<4x200x1xcomplex<f32>>) -> tensor<4x200x1xf32>
// CHECK-DAG: %[[IM:.*]] = stablehlo.imag %{{.*}} : (tensor<4x200x1xcomplex<f32>>) -> tensor<4x200x1xf32>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<i32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xi16>, tensor<1024xi32>
// CHECK: %[[C:.*]] = stablehlo.complex %{{.*}}, %{{.*}} : tensor<4x200x1xcomplex<f32>>
// CHECK: stablehlo.reshape %[[C]] : (tensor<4x200x1xcomplex<f32>>) -> tensor<4x200xcomplex<f32>>
// CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<4x200xi16>) -> tensor<4x200xbf16>
func.func @long_rows(%a: tensor<4x200xcomplex<f32>>, %b: tensor<4x200xbf16>) -> (tensor<4x200xcomplex<f32>>, tensor<4x200xbf16>) {
  %0:2 = "irax.sort"(%a, %b) {dimension = 1 : i64, is_stable = false} : (tensor<4x200xcomplex<f32>>, tensor<4x200xbf16>) -> (tensor<4x200xcomplex<f32>>, tensor<4x200xbf16>)
  return %0#0, %0#1 : tensor<4x200xcomplex<f32>>, tensor<4x200xbf16>
}

// -----

// The threshold: 181 * 181 < 2^15 <= 182 * 182.
// CHECK-LABEL: func.func @threshold
// CHECK: "stablehlo.sort"(%{{.*}}, %{{.*}}) <{dimension = 0 : i64, is_stable = true}>
// CHECK: }) : (tensor<181xf32>, tensor<181xi32>) -> (tensor<181xf32>, tensor<181xi32>)
// CHECK: stablehlo.while
// CHECK-SAME: tensor<256xf32>, tensor<256xi32>
func.func @threshold(%a: tensor<181xf32>, %b: tensor<182xf32>) -> (tensor<181xf32>, tensor<182xf32>) {
  %0 = "irax.sort"(%a) {dimension = 0 : i64, is_stable = true} : (tensor<181xf32>) -> tensor<181xf32>
  %1 = "irax.sort"(%b) {dimension = 0 : i64, is_stable = true} : (tensor<182xf32>) -> tensor<182xf32>
  return %0, %1 : tensor<181xf32>, tensor<182xf32>
}

// -----

// A long sort by one 32-bit key on a CPU: the key as an int32 of the same order (a
// float's negative bits flipped, 0.0 for -0.0, the largest for NaN), packed with the
// position into one i64, the pairs heap-sorted in place in one dispatch; argsort reads
// the positions off the low halves (nothing gathered for the unread sorted keys).
// CHECK-LABEL: func.func @kernel_argsort
// CHECK-NOT: stablehlo.while
// CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<5000xf32>) -> tensor<5000xi32>
// CHECK: stablehlo.compare NE, %{{.*}}, %{{.*}}, FLOAT
// CHECK: stablehlo.shift_left %{{.*}} : tensor<5000xi64>
// CHECK: stablehlo.or %{{.*}} : tensor<5000xi64>
// CHECK: stablehlo.optimization_barrier
// CHECK: %[[S:.*]] = call @irax_heapsort_1x5000(%{{.*}}) : (tensor<5000xi64>) -> tensor<5000xi64>
// CHECK: stablehlo.and %[[S]], %{{.*}} : tensor<5000xi64>
// CHECK-NOT: stablehlo.gather
// CHECK: return
// CHECK-LABEL: func.func private @irax_heapsort_1x5000
// CHECK: flow.dispatch.region -> (tensor<5000xi64>)
// CHECK: scf.for
// CHECK: scf.while
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: tensor.insert
// CHECK: flow.return
// NOKERNEL-LABEL: func.func @kernel_argsort
// NOKERNEL-NOT: flow.dispatch.region
// NOKERNEL: stablehlo.while
func.func @kernel_argsort(%x: tensor<5000xf32>) -> tensor<5000xi32> {
  %i = "irax.iota"() {shape = array<i64: 5000>, dtype = i32, dimension = 0} : () -> tensor<5000xi32>
  %0:2 = "irax.sort"(%x, %i) {dimension = 0 : i64, is_stable = true} : (tensor<5000xf32>, tensor<5000xi32>) -> (tensor<5000xf32>, tensor<5000xi32>)
  return %0#1 : tensor<5000xi32>
}
