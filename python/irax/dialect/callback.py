"""Host callbacks: ops that run a Python function of the process on their operands.

The function is entry ``callback`` of the process's table (``core/callbacks.py``); the
reference interpreter calls it directly, and lowered for IREE each op becomes a call of
an imported host function that the runtime binds to the same entry:

    "irax.debug_callback"(%x) {callback = 0 : i64} : (tensor<3xf32>) -> ()
    %y = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<3xf32>]}
        : (tensor<3xf32>) -> tensor<3xf32>
    %z = "irax.io_callback"(%x) {callback = 2 : i64, ordered = true,
                                 result_types = [tensor<i32>]} : (tensor<3xf32>) -> tensor<i32>
  lower to
    func.call @irax_host.cb0__ifloat32_3(%x) : (tensor<3xf32>) -> ()
    %y = func.call @irax_host.cb1__ifloat32_3__ofloat32_3(%x) ...

``irax.debug_callback`` and ``irax.io_callback`` have side effects: no pass deletes,
merges, hoists or folds them, and the compiled program makes its host calls in program
order (IREE runs imports in the order of the VM code, as the ops stand). ``ordered``
records the user's request; the order is kept for every effectful callback.
``irax.pure_callback`` is a pure function: unused, it is deleted; two equal ones merge.
"""

from __future__ import annotations

from irax.core import callbacks
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.control_flow.scan import Scan
from irax.dialect.regions import emit_region_op

#: a print under vmap of at most this many examples is one op per example (JAX unrolls
#: prints always); larger batches loop (an irax.scan), which keeps the program small
_UNROLL_PRINTS = 16
#: vmap_method values of pure_callback ("" is JAX's None: vmap raises)
VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", "")


class HostCallback(Op):
    """What the callback ops share: the table entry, the result types, the lowering."""
    shard = classmethod(S.replicated)

    num_operands = None
    joins_trace = True
    no_rules = {"transpose": "not linear: callbacks are opaque host code"}

    @classmethod
    def infer(cls, *avals, result_types=(), **_):
        return list(result_types)

    @classmethod
    def evaluate(cls, *arrays, callback, result_types=(), **_):
        return callbacks.call(callback, arrays, result_types)

    @classmethod
    def fold(cls, operands, consts, results, **attrs):
        """Never: a callback runs when the program runs, not while it is compiled."""
        return None

    @classmethod
    def host_import(cls, op) -> tuple[str, list, list]:
        """The imported host function the op lowers to: ``(symbol, input types, result
        types)``."""
        ins = [mlir.aval_of(v) for v in op.operands]
        outs = [mlir.aval_of(r) for r in op.results]
        return (_symbol(cls.decode_attrs(op)["callback"], ins, outs),
                [v.type for v in op.operands], [r.type for r in op.results])

    @classmethod
    def lower(cls, lb, *operands, callback, result_types=(), **_):
        symbol = _symbol(callback, [mlir.aval_of(v) for v in operands], result_types)
        op = lb.create("func.call", operands, [lb.type(a) for a in result_types],
                       {"callee": mlir.ir().FlatSymbolRefAttr.get(symbol)})
        return list(op.results)


def _symbol(index: int, ins, outs) -> str:
    """``irax_host.cb<index>__<signature>``: the import a callback op calls."""
    return f"{callbacks.HOST_MODULE}.{callbacks.import_name(index, ins, list(outs))}"


def _example(b, x, dim: int, i: int):
    """Example ``i`` of ``x`` along its batch dimension ``dim`` (that axis dropped)."""
    a = b.aval(x)
    start = [0] * a.ndim
    limit = list(a.shape)
    start[dim], limit[dim] = i, i + 1
    part = b.slice(x, start_indices=tuple(start), limit_indices=tuple(limit),
                   strides=(1,) * a.ndim)
    return b.reshape(part, new_sizes=tuple(d for k, d in enumerate(a.shape) if k != dim))


def _examples(b, args, dims, i: int) -> list:
    return [x if d is None else _example(b, x, d, i) for x, d in zip(args, dims)]


def _stack(b, values) -> object:
    """The values (of one type) stacked along a new leading axis."""
    a = b.aval(values[0])
    rows = [b.reshape(v, new_sizes=(1, *a.shape)) for v in values]
    return rows[0] if len(rows) == 1 else b.concatenate(*rows, dimension=0)


def sequential_batch(cls, b, args, dims, unrolled: bool = False, **attrs):
    """The callback once per example, in order; results stacked along axis 0 (JAX's
    ``vmap_method="sequential"``): an ``irax.scan`` over the examples, or one op per example
    when ``unrolled`` ("sequential_unrolled"; small batches of prints)."""
    if unrolled or b.axis_size == 1:
        per_example = [b.emit(cls, _examples(b, args, dims, i), **attrs)
                       for i in range(b.axis_size)]
        n_out = len(attrs.get("result_types", ()))
        outs = [_stack(b, [ex[k] for ex in per_example]) for k in range(n_out)]
        return outs, [0] * n_out
    consts = [x for x, d in zip(args, dims) if d is None]
    xs = [b.moveaxis(x, d, 0) for x, d in zip(args, dims) if d is not None]
    slices = [b.aval(x).update(shape=b.aval(x).shape[1:]) for x in xs]
    result_types = attrs.get("result_types", ())
    stacked = [ShapedArray((b.axis_size, *a.shape), a.dtype) for a in result_types]

    def body(ib, block_args):
        cs, xsl = iter(block_args[:len(consts)]), iter(block_args[len(consts):])
        merged = [next(cs) if d is None else next(xsl) for d in dims]
        results, _, _ = ib.emit(cls, merged, **attrs)
        return results

    outs = emit_region_op(b.ir, Scan, consts + xs,
                          [([b.aval(c) for c in consts] + slices, body)], stacked,
                          num_consts=len(consts), num_carry=0, length=b.axis_size)
    return outs, [0] * len(outs)


class DebugCallback(HostCallback):
    """A host call for its effect only (``irax.debug.callback``, ``irax.debug.print``):
    no results; runs with the primal values under differentiation and once per example
    under vmap (JAX's rules).

        "irax.debug_callback"(%x) {callback = 0 : i64, ordered = false}
            : (tensor<3xf32>) -> ()
    """

    name = "irax.debug_callback"
    attributes = {"callback": A.I64, "ordered": A.Bool}
    defaults = {"ordered": False}
    has_side_effects = True
    differentiable = False

    @classmethod
    def batch(cls, b, args, dims, *, callback, ordered):
        return sequential_batch(cls, b, args, dims, unrolled=b.axis_size <= _UNROLL_PRINTS,
                                callback=callback, ordered=ordered)


class PureCallback(HostCallback):
    """A pure host function (``irax.pure_callback``): its results depend only on its
    operands, so it may run any number of times, or not at all when unused.

        %y = "irax.pure_callback"(%x) {callback = 1 : i64, result_types = [tensor<3xf32>],
                                       vmap_method = "sequential"}
            : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.pure_callback"
    attributes = {"callback": A.I64, "result_types": A.TypeList, "vmap_method": A.Str}
    defaults = {"vmap_method": ""}

    @classmethod
    def infer(cls, *avals, result_types=(), vmap_method="", **_):
        if vmap_method not in VMAP_METHODS:
            raise OpError(f"expected vmap_method to be one of {', '.join(VMAP_METHODS[:-1])} "
                          f"or absent, but got '{vmap_method}'")
        return list(result_types)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        raise OpError("pure callbacks do not support JVP: use irax.custom_jvp (or "
                      "custom_vjp) to differentiate a function that calls one")

    @classmethod
    def batch(cls, b, args, dims, *, callback, result_types, vmap_method):
        attrs = dict(callback=callback, result_types=result_types, vmap_method=vmap_method)
        if vmap_method in ("sequential", "sequential_unrolled"):
            return sequential_batch(cls, b, args, dims,
                                    unrolled=vmap_method == "sequential_unrolled", **attrs)
        if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
            size = b.axis_size if vmap_method == "broadcast_all" else 1
            moved = [b.moveaxis(x, d, 0) if d is not None else
                     (x if vmap_method == "legacy_vectorized" else
                      b.broadcast_axis(x, 0, size)) for x, d in zip(args, dims)]
            batched = tuple(ShapedArray((b.axis_size, *a.shape), a.dtype) for a in result_types)
            outs = b.emit(cls, moved, callback=callback, result_types=batched,
                          vmap_method=vmap_method)
            return outs, [0] * len(outs)
        raise OpError("vmap of a pure callback needs vmap_method: one of 'sequential', "
                      "'sequential_unrolled', 'expand_dims', 'broadcast_all' or "
                      "'legacy_vectorized', but got None")


class IoCallback(HostCallback):
    """A host function with side effects that returns values
    (``irax.experimental.io_callback``): never deleted, merged or moved; under vmap an
    unordered one runs once per example, an ordered one cannot be vmapped (JAX's rule).

        %z = "irax.io_callback"(%x) {callback = 2 : i64, ordered = true,
                                     result_types = [tensor<i32>]}
            : (tensor<3xf32>) -> tensor<i32>
    """

    name = "irax.io_callback"
    attributes = {"callback": A.I64, "result_types": A.TypeList, "ordered": A.Bool}
    defaults = {"ordered": False}
    has_side_effects = True

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        raise OpError("io callbacks do not support JVP")

    @classmethod
    def batch(cls, b, args, dims, *, callback, result_types, ordered):
        if ordered:
            raise OpError("cannot vmap an ordered io callback")
        return sequential_batch(cls, b, args, dims, callback=callback,
                                result_types=result_types, ordered=ordered)


def check_vmap_method(method) -> str:
    """``vmap_method`` as the attribute stores it ("" for None); JAX's error otherwise."""
    value = "" if method is None else method
    if value not in VMAP_METHODS or not isinstance(value, str):
        allowed = [m or None for m in VMAP_METHODS]
        raise ValueError(f"vmap_method must be on of the allowed methods {allowed}, "
                         f"but got: {method}")
    return value
