"""A ``stablehlo.while`` of elementwise work as one native loop: a ``linalg.generic`` over
rows of the carries' elements whose body is an ``scf.while`` on scalars.

IREE 3.13 drives a ``stablehlo.while`` from its host VM: every trip dispatches the body
and reads the condition back (microseconds a trip; scalar bodies run on the VM at about
70 ns an op). A loop whose carries are all of one shape ``S`` or 0-d, and whose cond and
body only apply elementwise ops to them (plus splat constants, broadcasts of 0-d values
to ``S``, calls of such functions, and single-element lookups in constant tables: the
form of irax's float32 sin/cos reduction), computes every element of ``S``
independently of the others: the 0-d part (a counter, the condition) is the same for
each. Such a loop becomes one dispatch that runs the whole loop per element, in native
code. Each StableHLO op becomes the ``arith`` / ``math`` op IREE's own StableHLO
conversion makes of it, so the numbers are the same (tests/control/test_loop_kernels.py
compares both bit for bit).

One element's loop is a chain of dependent scalar ops, bound by their latency; so each
kernel instance runs a *row* of ``lanes`` elements (``lanes_for``: up to 16) side by
side, as one vector (``VectorLaneEmitter``: one vector instruction per op and row) or,
with ``irax_loop_kernel_vector_lanes`` off, as up to 4 scalar chains the CPU overlaps
(the 1000-trip sine loop on 64 floats: one element a row 1.36 ms, 4 scalars 0.34 ms on
an AVX2 machine; 4 scalars 0.60-0.75 ms, a vector of 16 0.23-0.34 ms on a Zen 4 one).
Shaped values are reshaped to ``rows x lanes`` and each lane is read through its own
indexing map; 0-d values are computed once per row.

Before:
    %r:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i32>, tensor<8xf32>
      cond { %p = stablehlo.compare LT, %i, %n, SIGNED ...; stablehlo.return %p }
      do { ...; stablehlo.return %i1, %x1 : tensor<i32>, tensor<8xf32> }
After (two rows of four lanes; shown as scalars, with vector lanes each row's four are
one ``vector<4xf32>``, from ``vector.from_elements`` to ``vector.extract``):
    %x2 = stablehlo.reshape %x0 : (tensor<8xf32>) -> tensor<2x4xf32>
    %r:5 = linalg.generic {indexing_maps = [() , (d0, 0), (d0, 1), (d0, 2), (d0, 3), (),
                                            (d0) x 5], iterator_types = ["parallel"]}
        ins(%c0, %x2, %x2, %x2, %x2, %n) outs(...) {
    ^bb0(%i0: i32, %a: f32, %b: f32, %c: f32, %d: f32, %ns: i32, ...):
      %w:5 = scf.while (%i = %i0, %xa = %a, %xb = %b, %xc = %c, %xd = %d) {
        %p = arith.cmpi slt, %i, %ns : i32
        scf.condition(%p) ...
      } do { ... each op on each lane ...; scf.yield %i1, %ya, %yb, %yc, %yd }
      linalg.yield %w#0, ...
    } -> (tensor<2xi32>, tensor<2xf32> x 4)
    // the lanes side by side again (reshape, concatenate, reshape); the 0-d counter
    // sliced from row 0

Loops over more than ``irax_loop_kernel_max_elements`` elements keep IREE's form (there
the vectorized per-trip dispatch is the faster one).
"""

from __future__ import annotations

import numpy as np

from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.lowering.builder import LoweringBuilder

FLOATS = {"f32", "f64"}
_INTS = {"i1", "i8", "i16", "i32", "i64"}

#: stablehlo op -> (float op, signless-int op); None where the kind is not supported
BINARY = {
    "stablehlo.add": ("arith.addf", "arith.addi"),
    "stablehlo.subtract": ("arith.subf", "arith.subi"),
    "stablehlo.multiply": ("arith.mulf", "arith.muli"),
    "stablehlo.divide": ("arith.divf", None),
    "stablehlo.maximum": ("arith.maximumf", "arith.maxsi"),
    "stablehlo.minimum": ("arith.minimumf", "arith.minsi"),
    "stablehlo.and": (None, "arith.andi"),
    "stablehlo.or": (None, "arith.ori"),
    "stablehlo.xor": (None, "arith.xori"),
}
UNARY = {
    "stablehlo.negate": ("arith.negf", None),
    "stablehlo.abs": ("math.absf", "math.absi"),
    "stablehlo.sqrt": ("math.sqrt", None),
    "stablehlo.floor": ("math.floor", None),
    "stablehlo.ceil": ("math.ceil", None),
}
FLOAT_CMP = {"EQ": "oeq", "NE": "une", "LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge"}
INT_CMP = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
CMPF = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7,
         "ueq": 8, "ugt": 9, "uge": 10, "ult": 11, "ule": 12, "une": 13, "uno": 14,
         "true": 15}
CMPI = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7,
         "ugt": 8, "uge": 9}
BOOL_CMP = dict(INT_CMP, LT="ult", LE="ule", GT="ugt", GE="uge")
_SHIFTS = {"stablehlo.shift_left": "arith.shli", "stablehlo.shift_right_logical": "arith.shrui",
           "stablehlo.shift_right_arithmetic": "arith.shrsi"}
_OTHER = {"stablehlo.compare", "stablehlo.select", "stablehlo.convert", "stablehlo.constant",
          "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.while",
          "stablehlo.return", "stablehlo.not", "stablehlo.gather", "stablehlo.bitcast_convert",
          "stablehlo.is_finite", "stablehlo.clamp", "func.call", "func.return"} | set(_SHIFTS)


class Reject(Exception):
    pass


def shape_elem(t):
    ir = mlir.ir()
    try:
        rt = ir.RankedTensorType(t)
    except ValueError:
        raise Reject from None
    if not rt.has_static_shape:
        raise Reject
    elem = str(rt.element_type)
    if elem not in FLOATS and elem not in _INTS:
        raise Reject
    return tuple(rt.shape), elem


def _captures(while_op) -> list:
    """Values defined outside ``while_op`` that its regions use, in first-use order."""
    inside, seen, out = set(), set(), []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for a in block.arguments:
                    inside.add(a)
                for o in block.operations:
                    for v in o.operands:
                        if v not in inside and v not in seen:
                            seen.add(v)
                            out.append(v)
                    visit(o)
                    for r in o.results:
                        inside.add(r)

    visit(while_op)
    return out


def _fits(s, shape) -> bool:
    """Whether a value of shape ``s`` holds one scalar (0-d) or one element per element of
    ``shape`` in the same order (``shape`` with unit dimensions added or removed)."""
    if s in ((), shape):
        return True
    return [d for d in s if d != 1] == [d for d in shape if d != 1]


def callee(call):
    """The entry block of the function a ``func.call`` in a loop calls (None: not here)."""
    module = funcs.enclosing_module(call)
    return None if module is None else funcs.callee_body(call, module)


def _table_gather(o) -> bool:
    """``table[idx]`` elementwise: a gather of single elements of a 1-D constant by an
    index per element (the ``tablelookups`` of irax's sin/cos reduction)."""
    table, idx = o.operands[0], o.operands[1]
    ts, _ = shape_elem(table.type)
    is_, _ = shape_elem(idx.type)
    owner = table.owner
    if len(ts) != 1 or not is_ or is_[-1] != 1 or not hasattr(owner, "name") or \
            owner.name != "stablehlo.constant":
        return False
    want = (f"#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
            f"index_vector_dim = {len(is_) - 1}>")
    return str(o.attributes["dimension_numbers"]) == want and \
        list(mlir.ir().DenseI64ArrayAttr(o.attributes["slice_sizes"])) == [1]


def _check_region_ops(op, shape, depth: int = 0):
    """Raises Reject unless every op nested in ``op`` (and in the functions it calls) is
    supported on () or ``shape``."""
    for region in op.regions:
        for block in region.blocks:
            _check_block(block, shape, depth)


def _check_block(block, shape, depth: int):
    for a in block.arguments:
        if not _fits(shape_elem(a.type)[0], shape):
            raise Reject
    for o in block.operations:
        name = o.name
        if name not in BINARY and name not in UNARY and name not in _OTHER:
            raise Reject
        if name == "func.return":
            continue
        values = list(o.operands)[1 if name == "stablehlo.gather" else 0:] + list(o.results)
        for v in values:
            s = shape_elem(v.type)[0]
            if not _fits(s, shape) and not (name == "stablehlo.constant" and len(s) == 1):
                raise Reject
        if name == "stablehlo.constant":
            attr = mlir.ir().DenseElementsAttr(o.attributes["value"])
            if not attr.is_splat and not all(
                    u.owner.name == "stablehlo.gather" and u.operand_number == 0
                    for u in o.results[0].uses):
                raise Reject
        elif name == "stablehlo.gather":
            if not _table_gather(o):
                raise Reject
        elif name == "func.call":
            body = callee(o)
            if body is None or depth > 8:
                raise Reject
            _check_block(body, shape, depth + 1)
        elif name in ELEMENTWISE:
            check_elementwise(o)
        elif name == "stablehlo.broadcast_in_dim":
            s_in = shape_elem(o.operands[0].type)[0]
            if s_in not in ((), shape_elem(o.results[0].type)[0]):
                raise Reject
        _check_region_ops(o, shape, depth)


def _elem(v):
    return mlir.ir().RankedTensorType(v.type).element_type


#: the elementwise ops ``Emitter.scalar_op`` emits (on scalars or on vectors)
ELEMENTWISE = frozenset(BINARY) | frozenset(UNARY) | frozenset(_SHIFTS) | {
    "stablehlo.bitcast_convert", "stablehlo.clamp", "stablehlo.convert",
    "stablehlo.compare", "stablehlo.not", "stablehlo.select", "stablehlo.is_finite"}


def check_elementwise(o) -> None:
    """Raises Reject unless ``Emitter.scalar_op`` emits the elementwise op ``o`` (of
    ``ELEMENTWISE``) for its operand and result types."""
    name = o.name
    if name == "stablehlo.bitcast_convert":
        if _elem(o.operands[0]).width != _elem(o.results[0]).width:
            raise Reject
    elif name == "stablehlo.clamp" or name in _SHIFTS:
        if shape_elem(o.results[0].type)[1] not in _INTS - {"i1"} or \
                shape_elem(o.operands[0].type)[0] != shape_elem(o.results[0].type)[0]:
            raise Reject
    elif name == "stablehlo.convert":
        convert_name(str(_elem(o.operands[0])), str(_elem(o.results[0])))
    elif name in BINARY or name in UNARY:
        fop, iop = (BINARY if name in BINARY else UNARY)[name]
        if (fop if shape_elem(o.results[0].type)[1] in FLOATS else iop) is None:
            raise Reject
    elif name == "stablehlo.compare":
        attrs = o.attributes
        kind = str(attrs["compare_type"]) if "compare_type" in attrs else ""
        e = shape_elem(o.operands[0].type)[1]
        if "TOTALORDER" in kind or ("UNSIGNED" in kind and e != "i1"):
            raise Reject
    elif name == "stablehlo.not" and shape_elem(o.results[0].type)[1] != "i1":
        raise Reject
    elif name not in ELEMENTWISE:
        raise Reject


def _scalar_type(t):
    """The element type of a vector type, else ``t`` itself."""
    ir = mlir.ir()
    return ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t


def _like(t, elem):
    """``elem``, or a vector of it shaped as ``t`` when ``t`` is a vector type."""
    ir = mlir.ir()
    return ir.VectorType.get(ir.VectorType(t).shape, elem) if isinstance(t, ir.VectorType) \
        else elem


def convert_name(src: str, dst: str):
    if src == dst:
        return None
    width = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f32": 32, "f64": 64}
    if src in FLOATS and dst in FLOATS:
        return "arith.extf" if width[dst] > width[src] else "arith.truncf"
    if src in _INTS and dst in FLOATS and src != "i1":
        return "arith.sitofp"
    if src in _INTS and dst in _INTS and "i1" not in (src, dst):
        return "arith.extsi" if width[dst] > width[src] else "arith.trunci"
    if src in FLOATS and dst in _INTS and dst != "i1":
        return "arith.fptosi"
    raise Reject


def qualifies(while_op) -> tuple | None:
    """The carries' common shape when ``while_op`` can become a kernel, else None."""
    try:
        inputs = list(while_op.operands) + _captures(while_op)
        shapes = {shape_elem(v.type)[0] for v in inputs}
        shapes.discard(())
        if len(shapes) > 1:
            return None
        shape = shapes.pop() if shapes else ()
        limit = config.irax_loop_kernel_max_elements
        if not limit or int(np.prod(shape, dtype=np.int64)) > limit or 0 in shape:
            return None
        _check_region_ops(while_op, shape)
        per_lane, others = _bindings(while_op, inputs)
        if per_lane + others > MAX_BINDINGS:   # more bindings than IREE takes: stays
            return None
        return shape
    except Reject:
        return None


class _Table:
    """A constant table (a 1-D tensor) read by gathers, in the emitted scalar code."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ScalarEmitter:
    """Emits scalar code for the ops of a loop (its ``constant`` and ``scalar_op`` also
    serve the vector kernel, on vectors). A value of the loop's shape is a list of
    ``lanes`` scalars (elements ``j``, ``j + 1``, ... of one row: several independent
    chains that the CPU overlaps); a 0-d value is one scalar (the same for every element)."""

    def __init__(self, loc, lanes: int = 1):
        self.ir = mlir.ir()
        self.loc = loc
        self.lanes = lanes

    def create(self, ip, name, operands, results, attributes=None, regions=0):
        return LoweringBuilder(ip, self.loc, []).create(name, operands, results,
                                                        attributes, regions)

    def block(self, ip, block, env):
        """Emits ``block``'s ops (not its terminator) at ``ip``; returns the terminator's
        scalar operands."""
        for o in block.operations:
            if o.name in ("stablehlo.return", "func.return"):
                return [env[v] for v in o.operands]
            outs = self.op(ip, o, env)
            for r, s in zip(o.results, outs):
                env[r] = s
        raise Reject

    def op(self, ip, o, env):
        """The op's results: a list of lane scalars for each shaped one, else a scalar."""
        name = o.name
        vals = [env[v] for v in o.operands]
        if name == "func.call":
            body = callee(o)
            return self.block(ip, body, dict(zip(body.arguments, vals)))
        if name == "stablehlo.while":
            return self.while_(ip, o, vals, env)
        if name == "stablehlo.constant":
            attr = self.ir.DenseElementsAttr(o.attributes["value"])
            if not attr.is_splat:   # a table, read by gathers: kept whole
                return [_Table(self.create(ip, "arith.constant", [], [o.results[0].type],
                                           {"value": attr}).results[0])]
            c = self.create(ip, "arith.constant", [], [_elem(o.results[0])],
                            {"value": attr.get_splat_value()}).results[0]
            return [self.spread(c, o.results[0], ip)]
        if name in ("stablehlo.broadcast_in_dim", "stablehlo.reshape"):
            return [self.spread(vals[0], o.results[0], ip)]
        if not any(isinstance(v, list) for v in vals):
            return list(self.scalar_op(ip, o, vals))
        per_lane = [self.scalar_op(ip, o, [v[j] if isinstance(v, list) else v for v in vals])
                    for j in range(self.lanes)]
        return [[lane[i] for lane in per_lane] for i in range(len(o.results))]

    def spread(self, v, like, ip=None):
        """``v`` as the value of ``like``: lanes for a shaped value, one scalar for 0-d."""
        if shape_elem(like.type)[0] == ():
            return v[0] if isinstance(v, list) else v
        return v if isinstance(v, list) else [v] * self.lanes

    def constant(self, ip, t, value):
        """An ``arith.constant`` of type ``t`` (a scalar type, or a vector type: a splat)."""
        ir = self.ir
        e = _scalar_type(t)
        attr = ir.IntegerAttr.get(e, int(value)) if isinstance(e, (ir.IntegerType,
                                                                   ir.IndexType)) \
            else ir.FloatAttr.get(e, float(value))
        if isinstance(t, ir.VectorType):
            attr = ir.DenseElementsAttr.get_splat(t, attr)
        return self.create(ip, "arith.constant", [], [t], {"value": attr}).results[0]

    def scalar_op(self, ip, o, args, rtypes=None):
        """The results of ``o`` on one element (operands: scalars, or tables), or on
        vectors of elements (``args`` vectors, ``rtypes`` the vector result types: the
        vector kernel's use)."""
        ir, name = self.ir, o.name
        rtypes = rtypes or [_elem(r) for r in o.results]
        if name in BINARY or name in UNARY:
            fop, iop = (BINARY if name in BINARY else UNARY)[name]
            is_f = str(_scalar_type(rtypes[0])) in FLOATS
            return self.create(ip, fop if is_f else iop, args, rtypes).results
        if name == "stablehlo.not":
            true = self.constant(ip, rtypes[0], 1)
            return self.create(ip, "arith.xori", [args[0], true], rtypes).results
        if name == "stablehlo.gather":
            return [self.lookup(ip, o, args)]
        if name == "stablehlo.bitcast_convert":
            return self.create(ip, "arith.bitcast", args, rtypes).results
        if name in _SHIFTS:
            return [self.shift(ip, name, args, rtypes[0])]
        if name == "stablehlo.clamp":       # clamp(lo, x, hi) on integers
            lo = self.create(ip, "arith.maxsi", [args[1], args[0]], rtypes).results[0]
            return self.create(ip, "arith.minsi", [lo, args[2]], rtypes).results
        if name == "stablehlo.is_finite":   # |x| < inf (false for NaN)
            t = args[0].type
            inf = self.constant(ip, t, float("inf"))
            ax = self.create(ip, "math.absf", args, [t]).results[0]
            pred = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), CMPF["olt"])
            return self.create(ip, "arith.cmpf", [ax, inf], rtypes, {"predicate": pred}).results
        if name == "stablehlo.convert":
            cv = convert_name(str(_elem(o.operands[0])), str(_scalar_type(rtypes[0])))
            return args if cv is None else self.create(ip, cv, args, rtypes).results
        if name == "stablehlo.select":
            return self.create(ip, "arith.select", args, rtypes).results
        if name == "stablehlo.compare":
            direction = str(o.attributes["comparison_direction"]).split()[-1].rstrip(">")
            e = str(_elem(o.operands[0]))
            i64 = ir.IntegerType.get_signless(64)
            if e in FLOATS:
                pred = ir.IntegerAttr.get(i64, CMPF[FLOAT_CMP[direction]])
                return self.create(ip, "arith.cmpf", args, rtypes, {"predicate": pred}).results
            table = BOOL_CMP if e == "i1" else INT_CMP  # booleans compare unsigned
            pred = ir.IntegerAttr.get(i64, CMPI[table[direction]])
            return self.create(ip, "arith.cmpi", args, rtypes, {"predicate": pred}).results
        raise Reject

    def lookup(self, ip, o, args):
        """``table[clamp(i, 0, n - 1)]`` (a gather clamps its start indices the same way)."""
        ir = self.ir
        table, i = args[0].value, args[1]
        n = shape_elem(o.operands[0].type)[0][0]
        it = _elem(o.operands[1])

        def const(v):
            return self.create(ip, "arith.constant", [], [it],
                               {"value": ir.IntegerAttr.get(it, v)}).results[0]

        i = self.create(ip, "arith.maxsi", [i, const(0)], [it]).results[0]
        i = self.create(ip, "arith.minsi", [i, const(n - 1)], [it]).results[0]
        index = ir.IndexType.get()
        i = self.create(ip, "arith.index_cast", [i], [index]).results[0]
        return self.create(ip, "tensor.extract", [table, i], [_elem(o.results[0])]).results[0]

    def shift(self, ip, name, args, t):
        """StableHLO's shifts: an amount of the bit width or more gives 0 (-1 for a
        negative value shifted right arithmetically), unlike LLVM's (poison)."""
        ir = self.ir
        x, amount = args
        bits = _scalar_type(t).width
        width = self.constant(ip, t, bits)
        i64 = ir.IntegerType.get_signless(64)
        pred = ir.IntegerAttr.get(i64, CMPI["ult"])
        inside = self.create(ip, "arith.cmpi", [amount, width],
                             [_like(t, ir.IntegerType.get_signless(1))],
                             {"predicate": pred}).results[0]
        if name == "stablehlo.shift_right_arithmetic":
            last = self.constant(ip, t, bits - 1)
            amount = self.create(ip, "arith.select", [inside, amount, last], [t]).results[0]
            return self.create(ip, _SHIFTS[name], [x, amount], [t]).results[0]
        zero = self.constant(ip, t, 0)
        shifted = self.create(ip, _SHIFTS[name], [x, amount], [t]).results[0]
        return self.create(ip, "arith.select", [inside, shifted, zero], [t]).results[0]

    def flatten(self, values, like, ip=None):
        """The scalars of ``values`` (each spread like the matching value of ``like``)."""
        flat = []
        for v, w in zip(values, like):
            v = self.spread(v, w, ip)
            flat += v if isinstance(v, list) else [v]
        return flat

    def pack(self, ip, scalars, like) -> list:
        """The kernel's per-lane arguments as the values of ``like`` (in the body)."""
        return self.regroup(scalars, like)

    def unpack(self, ip, values, like) -> list:
        """The per-lane scalars the kernel yields for ``values`` of ``like``."""
        return self.flatten(values, like, ip)

    def regroup(self, scalars, like) -> list:
        out, k = [], 0
        for w in like:
            if shape_elem(w.type)[0] == ():
                out.append(scalars[k])
                k += 1
            else:
                out.append(list(scalars[k:k + self.lanes]))
                k += self.lanes
        return out

    def while_(self, ip, o, vals, outer):
        ir = self.ir
        carry = list(o.operands)
        flat = self.flatten(vals, carry, ip)
        types = [v.type for v in flat]
        w = self.create(ip, "scf.while", flat, types, regions=2)
        cond_src, body_src = o.regions[0].blocks[0], o.regions[1].blocks[0]
        before = w.regions[0].blocks.append(*types)
        env = dict(outer)
        env.update(zip(cond_src.arguments, self.carries(list(before.arguments), carry)))
        (p,) = self.block(ir.InsertionPoint(before), cond_src, env)
        if isinstance(p, list) or isinstance(p.type, ir.VectorType):
            raise Reject
        self.create(ir.InsertionPoint(before), "scf.condition", [p, *before.arguments], [])
        after = w.regions[1].blocks.append(*types)
        env = dict(outer)
        env.update(zip(body_src.arguments, self.carries(list(after.arguments), carry)))
        outs = self.block(ir.InsertionPoint(after), body_src, env)
        self.create(ir.InsertionPoint(after), "scf.yield",
                    self.flatten(outs, carry, ir.InsertionPoint(after)), [])
        return self.carries(list(w.results), list(o.results))

    def carries(self, values, like) -> list:
        """A loop's block arguments or results as the values of its carries ``like``."""
        return self.regroup(values, like)


class VectorLaneEmitter(ScalarEmitter):
    """The lanes of a row as one vector (``vector<lanes x T>``) instead of ``lanes``
    scalars: an op on a row is one vector instruction (a float64 multiply of four lanes
    one AVX2 instruction, not four); 0-d values stay scalars, broadcast where they meet
    a vector; a table lookup reads each lane's element. The same ops on the same
    values: the same bits as the scalar lanes."""

    def vtype(self, elem):
        return self.ir.VectorType.get([self.lanes], elem)

    def is_vector(self, v) -> bool:
        return not isinstance(v, _Table) and isinstance(v.type, self.ir.VectorType)

    def broadcast(self, ip, v):
        return self.create(ip, "vector.broadcast", [v], [self.vtype(v.type)]).results[0]

    def lane(self, ip, v, j: int):
        e = self.ir.VectorType(v.type).element_type
        return self.create(ip, "vector.extract", [v], [e],
                           {"static_position": self.ir.DenseI64ArrayAttr.get([j])}).results[0]

    def spread(self, v, like, ip=None):
        if shape_elem(like.type)[0] == ():
            if self.is_vector(v):
                raise Reject    # a row's value as 0-d: only with one element a row
            return v
        return v if self.is_vector(v) else self.broadcast(ip, v)

    def op(self, ip, o, env):
        if o.name in ("func.call", "stablehlo.while", "stablehlo.constant",
                      "stablehlo.broadcast_in_dim", "stablehlo.reshape"):
            return super().op(ip, o, env)
        vals = [env[v] for v in o.operands]
        if not any(self.is_vector(v) for v in vals):
            return list(self.scalar_op(ip, o, vals))
        args = [v if isinstance(v, _Table) or self.is_vector(v) else self.broadcast(ip, v)
                for v in vals]
        return list(self.scalar_op(ip, o, args, [self.vtype(_elem(r)) for r in o.results]))

    def lookup(self, ip, o, args):
        if not self.is_vector(args[1]):
            return super().lookup(ip, o, args)
        scalar = super().lookup
        lanes = [scalar(ip, o, [args[0], self.lane(ip, args[1], j)]) for j in range(self.lanes)]
        return self.create(ip, "vector.from_elements", lanes,
                           [self.vtype(_elem(o.results[0]))]).results[0]

    def carries(self, values, like) -> list:
        return list(values)

    def pack(self, ip, scalars, like) -> list:
        out = []
        for v in self.regroup(scalars, like):
            out.append(self.create(ip, "vector.from_elements", v, [self.vtype(v[0].type)])
                       .results[0] if isinstance(v, list) else v)
        return out

    def unpack(self, ip, values, like) -> list:
        flat = []
        for v, w in zip(values, like):
            v = self.spread(v, w, ip)
            flat += [self.lane(ip, v, j) for j in range(self.lanes)] if self.is_vector(v) \
                else [v]
        return flat


#: independent element loops one kernel instance runs side by side as scalars (a scalar
#: loop is bound by the latency of its chain of dependent ops; several chains overlap)
LANES = 4
#: the most lanes of a row computed as one vector (``VectorLaneEmitter``): a loop whose
#: trips depend on each other is bound by the latency of one trip, whatever the vector's
#: width, so the wider the row the fewer rows pay it (the 1000-trip sine loop on 64
#: floats, one thread: 4 scalar lanes 0.60-0.70 ms, a vector of 4 0.52-0.56, 8 0.31-0.33,
#: 16 0.23-0.29)
VECTOR_LANES = 16

#: IREE 3.13 takes at most 32 bindings a dispatch, and a kernel yields each lane of each
#: shaped result as a tensor of its own (a binding each, beside one for each input and
#: one for the constant tables): a kernel keeps this many at most, a margin below
MAX_BINDINGS = 30


def _bindings(while_op, inputs) -> tuple[int, int]:
    """A kernel of ``while_op``'s bindings, ``inputs`` its carries and captures: (per
    lane, the others)."""
    shaped = sum(shape_elem(r.type)[0] != () for r in while_op.results)
    return shaped, len(set(inputs)) + (len(while_op.results) - shaped) + 1


def lanes_for(n: int, per_lane: int = 1, others: int = 0, vector: bool = False) -> int:
    """How many elements of an ``n``-element loop one kernel instance runs (at least two
    rows: work for two cores), its bindings (``per_lane`` a lane, ``others``) within
    ``MAX_BINDINGS``."""
    widest = VECTOR_LANES if vector else LANES
    options = [k for k in (16, 8, 4, 2) if k <= widest and k * per_lane + others <= MAX_BINDINGS]
    return next((k for k in options if n % k == 0 and n >= 2 * k), 1)


def _map(*exprs):
    """``(d0) -> (exprs)``: ints are constants, "d" the dimension."""
    ir = mlir.ir()
    out = [ir.AffineDimExpr.get(0) if e == "d" else ir.AffineConstantExpr.get(e)
           for e in exprs]
    return ir.AffineMapAttr.get(ir.AffineMap.get(1, 0, out))


def rewrite(while_op, shape) -> None:
    """Replaces ``while_op`` (which ``qualifies`` over ``shape``) by its kernel: a
    ``linalg.generic`` over rows of ``lanes`` elements (the loop's shaped values
    reshaped to ``rows x lanes``, each lane read through its own indexing map), one
    ``scf.while`` per row running the lanes' loops side by side."""
    ir = mlir.ir()
    n = int(np.prod(shape, dtype=np.int64))
    vector = bool(config.irax_loop_kernel_vector_lanes)
    inputs = list(while_op.operands) + _captures(while_op)
    lanes = lanes_for(n, *_bindings(while_op, inputs), vector)
    rows = n // lanes
    em = (VectorLaneEmitter if lanes > 1 and vector else ScalarEmitter)(while_op.location,
                                                                        lanes)
    ip = ir.InsertionPoint(while_op)
    ins, maps = [], []
    for v in inputs:
        if shape_elem(v.type)[0] == ():
            ins.append(v)
            maps.append(_map())
            continue
        t = ir.RankedTensorType.get([rows, lanes], _elem(v))
        r = em.create(ip, "stablehlo.reshape", [v], [t]).results[0]
        for j in range(lanes):
            ins.append(r)
            maps.append(_map("d", j))
    results = list(while_op.results)
    out_types = [ir.RankedTensorType.get([rows], _elem(r))
                 for r in results for _ in range(1 if shape_elem(r.type)[0] == () else lanes)]
    outs = [em.create(ip, "tensor.empty", [], [t]).results[0] for t in out_types]
    maps += [_map("d") for _ in outs]
    par = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    attrs = {"indexing_maps": ir.ArrayAttr.get(maps),
             "iterator_types": ir.ArrayAttr.get([par]),
             "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(ins), len(outs)])}
    gen = em.create(ip, "linalg.generic", ins + outs, out_types, attrs, regions=1)
    body = gen.regions[0].blocks.append(*[_elem(v) for v in ins + outs])
    bip = ir.InsertionPoint(body)
    values = em.pack(bip, list(body.arguments[:len(ins)]), inputs)
    n_carry = len(while_op.operands)
    outer = dict(zip(inputs[n_carry:], values[n_carry:]))
    res = em.while_(bip, while_op, values[:n_carry], outer)
    em.create(bip, "linalg.yield", em.unpack(bip, res, results), [])
    parts = ScalarEmitter.regroup(em, list(gen.results), results)
    i64s = ir.DenseI64ArrayAttr.get
    for old, new in zip(results, parts):
        if not isinstance(new, list):      # a 0-d carry: every row holds it
            one = ir.RankedTensorType.get([1], _elem(old))
            new = em.create(ip, "stablehlo.slice", [new], [one],
                            {"start_indices": i64s([0]), "limit_indices": i64s([1]),
                             "strides": i64s([1])}).results[0]
        elif lanes > 1:                    # the lanes side by side: rows x lanes
            col = ir.RankedTensorType.get([rows, 1], _elem(old))
            cols = [em.create(ip, "stablehlo.reshape", [p], [col]).results[0] for p in new]
            new = em.create(ip, "stablehlo.concatenate", cols,
                            [ir.RankedTensorType.get([rows, lanes], _elem(old))],
                            {"dimension": ir.IntegerAttr.get(
                                ir.IntegerType.get_signless(64), 1)}).results[0]
        else:
            new = new[0]
        new = em.create(ip, "stablehlo.reshape", [new], [old.type]).results[0]
        old.replace_all_uses_with(new)
    while_op.erase()


def rewrite_module(module) -> int:
    """Rewrites every outermost qualifying while of ``module``; returns how many."""
    ir = mlir.ir()
    found = []

    def visit(op):
        if op.name == "stablehlo.while":
            shape = qualifies(op)
            if shape is not None:
                found.append((op, shape))
                return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    with mlir.context():
        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        for op, shape in found:
            rewrite(op, shape)
    return len(found)
