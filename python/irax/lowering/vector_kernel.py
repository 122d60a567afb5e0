"""A ``stablehlo.while`` on a small state as one dispatch: a ``flow.dispatch.region``
holding an ``scf.while`` on vectors.

IREE 3.13 drives a ``stablehlo.while`` from its host VM and runs each step of the body
as its own dispatches: an RNN step ``tanh(h @ w + x_t + b)`` on 64 floats is one fused
dispatch of about 1.5 us, of which the 4,096 multiply-adds are a tenth. When a loop's
carries are scalars and vectors (at most ``MAX_VECTOR`` elements, one non-unit
dimension) plus tensors that are only read and written a row at a time, the whole loop
fits one dispatch of straight-line vector code: each vector carry lives in registers,
``v @ M`` is ``K`` broadcast multiply-adds of ``M``'s rows (read from memory, where the
matrix stays in cache), a scanned input is a row read, a stacked output a row write.
The 1000-step RNN: 1.55 ms -> 0.15 ms (docs/performance.md, "Loops").

Each StableHLO op becomes the ``arith`` / ``math`` op of IREE's own conversion, on
vectors instead of IREE's vector tiles, so elementwise results are those of the
host-driven loop; ``v @ M`` accumulates over ``k`` in order with fused multiply-adds, as
IREE's ``vecmat`` does (tests/control/test_vector_kernels.py compares both). Products
against a transposed matrix (``M @ v``, ``v @ M.T``) read a transpose made once before
the loop, and round differently from IREE's reduction order; sums use
``vector.reduction``.

Before (a scan: counter, state, stacked outputs; ``%xs`` and ``%w`` are read only):
    %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %e) : ...
      cond { %p = stablehlo.compare LT, %i, %n ...; stablehlo.return %p }
      do { %x = stablehlo.dynamic_slice %xs, %i, %z, sizes = [1, 64] ...
           %d = stablehlo.dot_general %h, %w, contracting_dims = [0] x [0] ...
           %t = stablehlo.tanh ...; %ys1 = stablehlo.dynamic_update_slice %ys, ... }
After:
    %r:3 = flow.dispatch.region -> (tensor<i32>, tensor<64xf32>, tensor<1000x64xf32>) {
      %i0 = tensor.extract %c0[] : tensor<i32>
      %hv = vector.transfer_read %h0[%c0] ... : tensor<64xf32>, vector<64xf32>
      %ys0 = scf.for %r ... { ... }                        // %e copied, a row at a time
      %w:3 = scf.while (%i = %i0, %h = %hv, %ys = %ys0) : (i32, vector<64xf32>, tensor<...>) {
        ...; scf.condition(%p) %i, %h, %ys
      } do {
        %x = vector.transfer_read %xs[%ic, %c0] ...          // the row of step i
        %d = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %zero) -> vector<64xf32> {
          %hk = vector.extract %h[%k] ...; %row = vector.transfer_read %w[%k, %c0] ...
          scf.yield (vector.fma (vector.broadcast %hk), %row, %a)
        }
        %t = math.tanh ... : vector<64xf32>
        %ys1 = vector.transfer_write %t, %ys[%ic, %c0] ...
        scf.yield %i1, %t, %ys1
      }
      flow.return (tensor.from_elements %w#0), (vector.transfer_write %w#1 ...), %w#2
    }

Anything else in the loop (other ops, nested loops, larger vectors, a matrix of more
than ``MAX_MATRIX`` elements, a matrix written in the loop) keeps IREE's form.
"""

from __future__ import annotations

import numpy as np

from irax.dialect import mlir
from irax.dialect import raising as R
from irax.lowering import loop_kernel as LK
from irax.lowering.builder import LoweringBuilder

#: the most elements of a value kept in vector registers
MAX_VECTOR = 1024
#: the most elements of a matrix a loop multiplies a vector by (``K`` multiply-adds of
#: rows of ``N``). An RNN of width 256 (1000 steps, 2 cores): 12.5 -> 5.6 ms, its gradient
#: 45 -> 23 ms, first call 0.65 -> 1.7 s; of width 512 still 84 -> 31 ms but its first
#: call 0.7 -> 3.5 s (compile time grows with the vectors' width), so the limit is here
MAX_MATRIX = 256 * 256

_MATH = {"stablehlo.tanh": "math.tanh", "stablehlo.exponential": "math.exp",
         "stablehlo.log": "math.log", "stablehlo.log_plus_one": "math.log1p",
         "stablehlo.exponential_minus_one": "math.expm1", "stablehlo.rsqrt": "math.rsqrt"}
#: elementwise ops beyond the scalar kernel's: name -> (float op, int op)
_MORE_BINARY = {"stablehlo.remainder": ("arith.remf", "arith.remsi")}
#: a reduction's body op -> (float kind, int kind)
_REDUCTIONS = {"stablehlo.add": ("add", "add"), "stablehlo.multiply": ("mul", "mul"),
               "stablehlo.maximum": ("maximumf", "maxsi"),
               "stablehlo.minimum": ("minimumf", "minsi")}
#: StableHLO op -> the ``Emitter`` method that emits it (others: ``elementwise``)
_RULES = {"stablehlo.constant": "constant", "stablehlo.broadcast_in_dim": "reshape",
          "stablehlo.reshape": "reshape", "stablehlo.dynamic_slice": "dynamic_slice",
          "stablehlo.dynamic_update_slice": "dynamic_update_slice",
          "stablehlo.dot_general": "dot", "stablehlo.reduce": "reduce",
          "stablehlo.slice": "slice", "stablehlo.concatenate": "concatenate",
          "stablehlo.transpose": "transpose"}


#: raised where a loop has no vector form (the scalar kernel's, so one handler serves)
Reject = LK.Reject


class KV:
    """A value in the kernel: ``kind`` "s" (a scalar), "v" (a vector), "m" (a tensor in
    memory), "o" (an outer product, the pair of its vectors: only added to a matrix);
    ``inv``: the tensor defined outside the loop that it is (read only), else None."""

    __slots__ = ("kind", "value", "inv")

    def __init__(self, kind, value, inv=None):
        self.kind, self.value, self.inv = kind, value, inv


def info(v):
    """(shape, element type text) of a static tensor of a supported element type."""
    shape, elem = LK.shape_elem(v.type)
    if 0 in shape:
        raise Reject
    return shape, elem


def memory_type(v):
    """The tensor type of ``v``, which the kernel reads or writes: not of booleans, which
    IREE stores as bytes inside a dispatch (``tensor<i1>`` becomes ``tensor<i8>``)."""
    t = mlir.ir().RankedTensorType(v.type)
    if str(t.element_type) == "i1":
        raise Reject
    return t


def vector_like(shape) -> bool:
    """At most one dimension above 1, and small enough for registers."""
    return len(shape) > 0 and sum(d != 1 for d in shape) <= 1 and \
        int(np.prod(shape)) <= MAX_VECTOR


class Emitter:
    def __init__(self, loc):
        self.ir = mlir.ir()
        self.loc = loc
        self.prologue = None        # insertion point before the scf.while
        self.outer = None           # insertion point before the dispatch region
        self.made_outside: list = []
        self.cache: dict = {}       # (value, kind) -> converted value, for read-only tensors
        #: a tensor carry's versions -> its carry's index; the versions written over (each
        #: is written in place: reading or writing one again would need a copy)
        self.root: dict = {}
        self.spent: set = set()
        self.index = self.ir.IndexType.get()
        self.scalars = LK.ScalarEmitter(loc)

    def create(self, ip, name, operands, results, attributes=None, regions=0):
        return LoweringBuilder(ip, self.loc, []).create(name, operands, results,
                                                        attributes, regions)

    def one(self, ip, name, operands, result, attributes=None):
        return self.create(ip, name, operands, [result], attributes).results[0]

    def const(self, ip, t, value):
        """A constant of type ``t`` (a vector type: a splat)."""
        return self.scalars.constant(ip, t, value)

    def vtype(self, n, elem):
        return self.ir.VectorType.get([n], elem)

    # --- reading and writing tensors -----------------------------------------------

    def _map(self, rank):
        ir = self.ir
        return ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)]))

    def read(self, ip, tensor, indices, n):
        """``n`` consecutive elements of ``tensor`` from ``indices`` (index values)."""
        ir = self.ir
        t = memory_type(tensor)
        pad = self.const(ip, t.element_type, 0)
        attrs = {"in_bounds": ir.ArrayAttr.get([ir.BoolAttr.get(True)]),
                 "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, len(indices), 1, 0]),
                 "permutation_map": self._map(t.rank)}
        return self.one(ip, "vector.transfer_read", [tensor, *indices, pad],
                        self.vtype(n, t.element_type), attrs)

    def write(self, ip, vector, tensor, indices):
        ir = self.ir
        t = memory_type(tensor)
        attrs = {"in_bounds": ir.ArrayAttr.get([ir.BoolAttr.get(True)]),
                 "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, len(indices), 0]),
                 "permutation_map": self._map(t.rank)}
        return self.one(ip, "vector.transfer_write", [vector, tensor, *indices], t, attrs)

    def zeros(self, ip, rank):
        c0 = self.const(ip, self.index, 0)
        return [c0] * rank

    # --- kinds -----------------------------------------------------------------------

    def scalar(self, ip, kv, like):
        """``kv`` as a scalar (``like``: the StableHLO value it stands for)."""
        if kv.kind == "s":
            return kv.value
        shape, _ = info(like)
        if int(np.prod(shape)) != 1:
            raise Reject
        if kv.kind == "v":
            return self.one(ip, "vector.extract", [kv.value], self.elem(like),
                            {"static_position": self.ir.DenseI64ArrayAttr.get([0])})
        memory_type(kv.value)
        return self.loaded(ip, kv, "s", lambda at: self.one(
            at, "tensor.extract", [kv.value, *self.zeros(at, len(shape))], self.elem(like)))

    def vector(self, ip, kv, like):
        """``kv`` as a vector of ``like``'s elements (a scalar: of one element)."""
        if kv.kind == "v":
            return kv.value
        shape, _ = info(like)
        if kv.kind == "s" and vector_like(shape) and int(np.prod(shape)) == 1:
            return self.one(ip, "vector.broadcast", [kv.value], self.vtype(1, self.elem(like)))
        if kv.kind != "m" or not vector_like(shape):
            raise Reject
        return self.loaded(ip, kv, "v", lambda at: self.read(
            at, self.current(kv), self.zeros(at, len(shape)), int(np.prod(shape))))

    def loaded(self, ip, kv, kind, make):
        """``make(at)``, a value read from tensor ``kv``: once, before the loop, when the
        tensor is defined there (``kind`` keys that read)."""
        if kv.inv is None:
            return make(ip)
        key = (kv.value, kind)
        if key not in self.cache:
            self.cache[key] = make(self.prologue)
        return self.cache[key]

    def tensor(self, ip, kv, like):
        """``kv`` as a tensor of ``like``'s type."""
        if kv.kind == "m":
            return kv.value
        memory_type(like)
        if kv.kind == "s":
            return self.one(ip, "tensor.from_elements", [kv.value], like.type)
        empty = self.one(ip, "tensor.empty", [], like.type)
        return self.write(ip, kv.value, empty, self.zeros(ip, len(info(like)[0])))

    def copy(self, ip, tensor):
        """A copy of a matrix the loop writes, in a buffer of the dispatch's own: left as
        the operand (read only), bufferization would give the loop a stack copy."""
        shape, _ = info(tensor)
        if len(shape) != 2 or shape[1] > MAX_VECTOR:
            raise Reject
        empty = self.one(ip, "tensor.empty", [], tensor.type)

        def step(bip, r, carried):
            c0 = self.const(bip, self.index, 0)
            return [self.write(bip, self.read(bip, tensor, [r, c0], shape[1]), carried[0],
                               [r, c0])]

        return self.loop(ip, shape[0], [empty], step)[0]

    def elem(self, v):
        return self.ir.RankedTensorType(v.type).element_type

    def same_kind(self, ip, kv, like):
        """``kv`` converted to the kind a value of ``like``'s type has in the kernel."""
        shape, _ = info(like)
        if shape == ():
            return KV("s", self.scalar(ip, kv, like))
        if vector_like(shape):
            return KV("v", self.vector(ip, kv, like))
        if kv.kind != "m":
            raise Reject
        return kv

    # --- ops -------------------------------------------------------------------------

    def block(self, ip, block, env, needed=None):
        """Emits ``block``'s ops (those in ``needed`` when given); returns its
        terminator's operands as kernel values."""
        for o in block.operations:
            if o.name in ("stablehlo.return", "func.return"):
                return [self.get(env, v) for v in o.operands]   # dead ones unused
            if needed is not None and o.operation not in needed:
                continue
            for r, kv in zip(o.results, self.op(ip, o, env)):
                env[r] = kv
        raise Reject

    @staticmethod
    def get(env, v):
        kv = env.get(v)
        return kv if kv is not None else KV("m", v, inv=v)   # defined before the loop

    def op(self, ip, o, env):
        name = o.name
        args = [self.get(env, v) for v in o.operands]
        if name == "func.call":
            body = LK.callee(o)
            if body is None:
                raise Reject
            return self.block(ip, body, dict(zip(body.arguments, args)))
        res = o.results[0] if len(o.results) == 1 else None
        if res is None:
            raise Reject
        rule = _RULES.get(name)
        if rule is not None:
            return [getattr(self, rule)(ip, o, args)]
        return [self.elementwise(ip, o, args, info(res)[0])]

    def constant(self, ip, o, args):
        ir = self.ir
        shape, _ = info(o.results[0])
        attr = ir.DenseElementsAttr(o.attributes["value"])
        res = o.results[0]
        if attr.is_splat and shape == ():
            return KV("s", self.one(ip, "arith.constant", [], self.elem(res),
                                    {"value": attr.get_splat_value()}))
        if attr.is_splat and vector_like(shape):
            n = int(np.prod(shape))
            t = self.vtype(n, self.elem(res))
            splat = ir.DenseElementsAttr.get_splat(t, attr.get_splat_value())
            return KV("v", self.one(ip, "arith.constant", [], t, {"value": splat}))
        # a table: a tensor in the dispatch, read where it is used
        value = self.one(self.prologue, "arith.constant", [], res.type, {"value": attr})
        return KV("m", value, inv=value)

    def reshape(self, ip, o, args):
        kv, src, res = args[0], o.operands[0], o.results[0]
        s_in, _ = info(src)
        s_out, _ = info(res)
        n_in, n_out = int(np.prod(s_in)), int(np.prod(s_out))
        if n_in == n_out:                   # the same elements in the same order
            if s_out == ():
                return KV("s", self.scalar(ip, kv, src))
            if vector_like(s_out):      # (a scalar reshaped to one element: from res)
                return KV("v", self.vector(ip, kv, res if kv.kind == "s" else src))
            raise Reject
        if n_in == 1 and vector_like(s_out):    # a splat
            s = self.scalar(ip, kv, src)
            return KV("v", self.one(ip, "vector.broadcast", [s],
                                    self.vtype(n_out, self.elem(res))))
        raise Reject

    def clamped(self, ip, kv, like, limit):
        """An index operand clamped to ``[0, limit]``, as an ``index``."""
        s = self.scalar(ip, kv, like)
        t = self.elem(like)
        s = self.one(ip, "arith.maxsi", [s, self.const(ip, t, 0)], t)
        s = self.one(ip, "arith.minsi", [s, self.const(ip, t, limit)], t)
        return self.one(ip, "arith.index_cast", [s], self.index)

    def row(self, shape, sizes):
        """The elements a slice of ``sizes`` takes are consecutive: all sizes 1 but the
        last."""
        if any(s != 1 for s in sizes[:-1]) or not sizes:
            raise Reject
        return sizes[-1]

    def current(self, kv):
        """``kv`` (a tensor) if it is a current version: not one written over."""
        if kv.kind != "m" or kv.value in self.spent:
            raise Reject
        return kv.value

    def overwrite(self, kv):
        """A carry's tensor about to be written in place: its carry's index."""
        t = self.current(kv)
        root = self.root.get(t)
        if root is None:                # a tensor from before the loop is read only
            raise Reject
        self.spent.add(t)
        return root

    def dynamic_slice(self, ip, o, args):
        shape, _ = info(o.operands[0])
        sizes = list(self.ir.DenseI64ArrayAttr(o.attributes["slice_sizes"]))
        n = self.row(shape, sizes)
        self.current(args[0])
        if n > MAX_VECTOR:
            raise Reject
        idx = [self.clamped(ip, kv, v, d - s)
               for kv, v, d, s in zip(args[1:], o.operands[1:], shape, sizes)]
        return KV("v", self.read(ip, args[0].value, idx, n))

    def dynamic_update_slice(self, ip, o, args):
        shape, _ = info(o.operands[0])
        ushape, _ = info(o.operands[1])
        self.row(shape, list(ushape))
        root = self.overwrite(args[0])
        vec = self.vector(ip, args[1], o.operands[1])
        idx = [self.clamped(ip, kv, v, d - s)
               for kv, v, d, s in zip(args[2:], o.operands[2:], shape, ushape)]
        out = self.write(ip, vec, args[0].value, idx)
        self.root[out] = root
        return KV("m", out)

    def slice(self, ip, o, args):
        ir = self.ir
        src, res = o.operands[0], o.results[0]
        s_in, _ = info(src)
        s_out, _ = info(res)
        if args[0].kind == "s" or not vector_like(s_in) or not vector_like(s_out):
            raise Reject
        starts = list(ir.DenseI64ArrayAttr(o.attributes["start_indices"]))
        strides = list(ir.DenseI64ArrayAttr(o.attributes["strides"]))
        if any(s != 1 for s in strides):
            raise Reject
        start = next((a for a, d in zip(starts, s_in) if d != 1), 0)
        n = int(np.prod(s_out))
        v = self.vector(ip, args[0], src)
        i64s = ir.ArrayAttr.get
        i64 = ir.IntegerType.get_signless(64)
        attrs = {"offsets": i64s([ir.IntegerAttr.get(i64, start)]),
                 "sizes": i64s([ir.IntegerAttr.get(i64, n)]),
                 "strides": i64s([ir.IntegerAttr.get(i64, 1)])}
        return KV("v", self.one(ip, "vector.extract_strided_slice", [v],
                                self.vtype(n, self.elem(res)), attrs))

    def concatenate(self, ip, o, args):
        """Vectors side by side (each written into a vector of the result's size)."""
        ir = self.ir
        res = o.results[0]
        shape, _ = info(res)
        if not vector_like(shape):
            raise Reject
        n = int(np.prod(shape))
        out = self.const(ip, self.vtype(n, self.elem(res)), 0)
        i64 = ir.IntegerType.get_signless(64)
        at = 0
        for kv, v in zip(args, o.operands):
            part = self.vector(ip, kv, v)
            attrs = {"offsets": ir.ArrayAttr.get([ir.IntegerAttr.get(i64, at)]),
                     "strides": ir.ArrayAttr.get([ir.IntegerAttr.get(i64, 1)])}
            out = self.one(ip, "vector.insert_strided_slice", [part, out], out.type, attrs)
            at += int(np.prod(info(v)[0]))
        return KV("v", out)

    def transpose(self, ip, o, args):
        """A matrix defined before the loop, transposed there; a vector stays as it is."""
        src, kv = o.operands[0], args[0]
        if vector_like(info(src)[0]) and kv.kind == "v":
            return kv
        if kv.kind != "m" or kv.inv is None or len(info(src)[0]) != 2:
            raise Reject
        t = self.transposed(kv.inv, src)
        return KV("m", t, inv=t)

    def transposed(self, value, like):
        ir = self.ir
        shape, _ = info(like)
        t = ir.RankedTensorType.get([shape[1], shape[0]], self.elem(like))
        tr = self.create(self.outer, "stablehlo.transpose", [value], [t],
                         {"permutation": ir.DenseI64ArrayAttr.get([1, 0])})
        self.made_outside.append(tr)
        return tr.results[0]

    def matrix(self, ip, kv, v, transpose: bool):
        """A matrix operand of a product, as a tensor whose rows are the contracted
        dimension's (transposed once, before the loop, when it must be)."""
        shape, elem = info(v)
        self.current(kv)
        if int(np.prod(shape)) > MAX_MATRIX or elem not in LK.FLOATS:
            raise Reject
        if not transpose:
            return kv.value
        if kv.inv is None:           # a matrix the loop computes: not transposed per step
            raise Reject
        return self.transposed(kv.inv, v)

    def dot(self, ip, o, args):
        dims = R.fields(o, "dot_dimension_numbers")
        if dims.get("lhs_batching_dimensions") or dims.get("rhs_batching_dimensions"):
            raise Reject
        lc = dims.get("lhs_contracting_dimensions", ())
        rc = dims.get("rhs_contracting_dimensions", ())
        a, b = o.operands
        sa, ea = info(a)
        sb, eb = info(b)
        res = o.results[0]
        if ea != eb or ea != info(res)[1] or ea not in LK.FLOATS:
            raise Reject
        if not lc and not rc and len(sa) == 1 and len(sb) == 1 and \
                sa[0] * sb[0] <= MAX_MATRIX:         # an outer product: added to a matrix
            va, vb = self.vector(ip, args[0], a), self.vector(ip, args[1], b)
            return KV("o", (va, vb))
        if len(lc) != 1:
            raise Reject
        if len(sa) == 1 and len(sb) == 1:            # v . u
            va, vb = self.vector(ip, args[0], a), self.vector(ip, args[1], b)
            prod = self.one(ip, "arith.mulf", [va, vb], va.type)
            zero = self.const(ip, self.elem(res), 0)
            return KV("s", self.reduction(ip, "add", prod, zero))
        if sorted((len(sa), len(sb))) != [1, 2]:
            raise Reject
        if len(sa) == 1:
            vec, vv, mat, mv, mc = args[0], a, args[1], b, rc[0]
        else:
            vec, vv, mat, mv, mc = args[1], b, args[0], a, lc[0]
        m = self.matrix(ip, mat, mv, transpose=mc == 1)
        k_dim, n = info(mv)[0][mc], info(mv)[0][1 - mc]
        v = self.vector(ip, vec, vv)
        e = self.elem(res)
        vt = self.vtype(n, e)
        zero = self.const(ip, e, 0)
        acc = self.one(ip, "vector.broadcast", [zero], vt)

        def step(bip, k, carried):
            hk = self.element(bip, v, k, e)
            row = self.read(bip, m, [k, self.const(bip, self.index, 0)], n)
            hb = self.one(bip, "vector.broadcast", [hk], vt)
            return [self.one(bip, "vector.fma", [hb, row, carried[0]], vt)]

        return KV("v", self.loop(ip, k_dim, [acc], step)[0])

    def element(self, ip, v, k, e):
        """Element ``k`` (an index value) of vector ``v``."""
        dynamic = self.ir.DenseI64ArrayAttr.get([-(2 ** 63)])
        return self.one(ip, "vector.extract", [v, k], e, {"static_position": dynamic})

    def loop(self, ip, count, inits, step):
        """``scf.for`` over ``0 .. count`` carrying ``inits``; ``step(ip, k, carried)``
        emits a trip and returns the carried values' next ones."""
        ir = self.ir
        c0, c1 = self.const(ip, self.index, 0), self.const(ip, self.index, 1)
        n = self.const(ip, self.index, count)
        types = [v.type for v in inits]
        op = self.create(ip, "scf.for", [c0, n, c1, *inits], types, regions=1)
        body = op.regions[0].blocks.append(self.index, *types)
        bip = ir.InsertionPoint(body)
        self.create(bip, "scf.yield", step(bip, body.arguments[0], list(body.arguments)[1:]),
                    [])
        return list(op.results)

    def reduction(self, ip, kind, vec, acc):
        ir = self.ir
        return self.one(ip, "vector.reduction", [vec, acc], acc.type,
                        {"kind": ir.Attribute.parse(f"#vector.kind<{kind}>"),
                         "fastmath": ir.Attribute.parse("#arith.fastmath<none>")})

    def reduce(self, ip, o, args):
        """A reduction of one vector to a scalar by add, multiply, max or min."""
        if len(o.operands) != 2 or info(o.results[0])[0] != ():
            raise Reject
        kinds = _REDUCTIONS.get(R.reducer(o))
        if kinds is None:
            raise Reject
        fk, ik = kinds
        e = info(o.results[0])[1]
        v = self.vector(ip, args[0], o.operands[0])
        init = self.scalar(ip, args[1], o.operands[1])
        return KV("s", self.reduction(ip, fk if e in LK.FLOATS else ik, v, init))

    def add_outer(self, ip, o, args):
        """``M + a (x) b``: each row ``i`` of ``M`` plus ``a[i] * b`` (a multiply, then an
        add, as IREE computes the product and the sum)."""
        if o.name != "stablehlo.add" or {a.kind for a in args} != {"m", "o"}:
            raise Reject
        m, (va, vb) = (args[0], args[1].value) if args[0].kind == "m" else \
            (args[1], args[0].value)
        rows, cols = info(o.results[0])[0]
        e = self.elem(o.results[0])
        vt = self.vtype(cols, e)

        def step(bip, i, carried):
            ai = self.element(bip, va, i, e)
            prod = self.one(bip, "arith.mulf",
                            [self.one(bip, "vector.broadcast", [ai], vt), vb], vt)
            c0 = self.const(bip, self.index, 0)
            row = self.one(bip, "arith.addf", [self.read(bip, carried[0], [i, c0], cols), prod],
                           vt)
            return [self.write(bip, row, carried[0], [i, c0])]

        root = self.overwrite(m)
        out = self.loop(ip, rows, [m.value], step)[0]
        self.root[out] = root
        return KV("m", out)

    def elementwise(self, ip, o, args, shape):
        """An elementwise op on scalars or on vectors of ``shape``'s elements."""
        name = o.name
        res = o.results[0]
        if any(a.kind == "o" for a in args):
            return self.add_outer(ip, o, args)
        if shape == ():
            vals = [self.scalar(ip, kv, v) for kv, v in zip(args, o.operands)]
            return KV("s", self.scalar_op(ip, o, vals, [self.elem(res)]))
        if not vector_like(shape):
            raise Reject
        n = int(np.prod(shape))
        vals = []
        for kv, v in zip(args, o.operands):
            if info(v)[0] == () and name == "stablehlo.select":
                vals.append(self.scalar(ip, kv, v))      # one predicate for all
            else:
                vals.append(self.vector(ip, kv, v))
        return KV("v", self.scalar_op(ip, o, vals, [self.vtype(n, self.elem(res))]))

    def scalar_op(self, ip, o, vals, rtypes):
        """``o`` on scalars or vectors (``rtypes``: its result type as such): the math
        functions and remainder here, every other elementwise op as the scalar kernel
        emits it (``loop_kernel.check_elementwise``, ``ScalarEmitter.scalar_op``)."""
        name = o.name
        if name in _MATH or name == "stablehlo.logistic":
            # float32 only: float64 ones would be libm calls, which exported programs for
            # other CPUs cannot link (irax-expand-libm expands StableHLO's, not these)
            if info(o.results[0])[1] != "f32":
                raise Reject
        if name in _MATH:
            return self.one(ip, _MATH[name], vals, rtypes[0])
        if name == "stablehlo.logistic":     # 1 / (1 + exp(-x)), as IREE converts it
            t = rtypes[0]
            neg = self.one(ip, "arith.negf", vals, t)
            ex = self.one(ip, "math.exp", [neg], t)
            one = self.const(ip, t, 1.0)
            den = self.one(ip, "arith.addf", [ex, one], t)
            return self.one(ip, "arith.divf", [one, den], t)
        if name in _MORE_BINARY:
            fop, iop = _MORE_BINARY[name]
            op_name = fop if info(o.results[0])[1] in LK.FLOATS else iop
            return self.one(ip, op_name, vals, rtypes[0])
        LK.check_elementwise(o)
        return self.scalars.scalar_op(ip, o, vals, rtypes)[0]
