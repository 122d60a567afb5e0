"""Parallel map over devices: ``irax.pmap`` and the placement op ``irax.transfer``.

``irax.pmap`` means the same as ``irax.vmap`` (the callee mapped over an axis, with
collectives over ``axis_name``), but each example runs on its own device: example ``k``
on the device of ordinal ``devices[k]``. It outlives the other transformations (its own
``jvp_full`` and ``batch`` rules wrap the transformed callee in a new ``irax.pmap``) and is
expanded last, by ``irax-shard``, into per-device code joined by ``irax.transfer`` ops.

    %y = "irax.pmap"(%xs) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>,
           axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>}
           : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %x1 = "irax.transfer"(%x) {device = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>

``irax.transfer`` lowers to ``flow.tensor.transfer %x : tensor<3xf32> to
#hal.device.promise<@dev1>``; the lowered module then records how many devices it
addresses (``irax.num_devices``), which the compiler and runtime read.

A public function may also take or leave values on given devices: an argument or result
attribute ``irax.device = 1 : i64`` (``DEVICE_ATTR``) lowers to IREE's
``iree.abi.affinity = #hal.device.promise<@dev1>`` (``shard/split.py per_device_main``).
"""

from __future__ import annotations

import numpy as np

from irax.dialect import attrs as A
from irax.dialect import funcs
from irax.dialect import sharding as S
from irax.dialect.autodiff import tape_vjp
from irax.dialect.base import Linear, Op, OpError
from irax.dialect.vectorize import MapOp

#: argument and result attribute of a public function whose values live on several
#: devices: the device (ordinal) an argument arrives on or a result is left on
DEVICE_ATTR = "irax.device"


class Pmap(MapOp):
    """The callee mapped over ``axis_size`` devices (``devices``: their ordinals)."""

    name = "irax.pmap"
    attributes = dict(MapOp.attributes, devices=A.I64Array)
    expanded_by = "irax-shard"
    #: outer transformations go through it with its own rules instead of expanding it
    keeps_own_rules = True
    no_rules = {"shard": "a map over devices is already partitioned: irax-partition refuses "
                         "one inside a partitioned function"}

    @classmethod
    def result_avals(cls, ins, outs, *, devices, axis_size, **attrs):
        """Vmap's result types, once ``devices`` names one device per example."""
        if len(devices) != axis_size:
            raise OpError(f"expected {axis_size} device ordinals (one per example), but got "
                          f"{len(devices)}")
        if any(d < 0 for d in devices) or len(set(devices)) != len(devices):
            raise OpError(f"expected distinct non-negative device ordinals, but got "
                          f"{list(devices)}")
        return super().result_avals(ins, outs, axis_size=axis_size, **attrs)

    @classmethod
    def expand(cls, ctx, op, **attrs):
        return ctx.shard(**attrs)

    @classmethod
    def _backward(cls):
        return _PmapBackward

    # ---- forward and reverse mode: pmap of the callee's derivative ---------------------
    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, callee, in_axes, out_axes, **attrs):
        if b.tape is not None:   # reverse mode: recompute the forward pass when transposing
            outs = _emit(cls, b.ir, callee, ins, out_avals, in_axes, out_axes, attrs)
            lins = b.record(cls._backward(), list(dins) + list(ins), out_avals,
                            dict(attrs, callee=callee, in_axes=in_axes, out_axes=out_axes))
            return outs, lins
        tans = [b.instantiate(t, b.aval(x)) for t, x in zip(dins, ins)]
        res = _emit(cls, b.ir, b.ctx.jvp(callee), list(ins) + tans,
                    list(out_avals) * 2, in_axes * 2, out_axes * 2, attrs)
        return res[:len(out_avals)], res[len(out_avals):]

    # ---- vmap of a pmap: a pmap of the vmapped callee ---------------------------------
    @classmethod
    def batch(cls, b, vals, dims, *, callee, in_axes, out_axes, **attrs):
        ins, outs = funcs.signature(b.ctx.callee(callee))
        vals = [v if d is None else b.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
        new_in = tuple(a if d is None or a < 0 else a + 1 for a, d in zip(in_axes, dims))
        inner = tuple(None if d is None else 0 for d in dims)
        name = b.ctx.vmap(callee, inner, None, b.axis_size, b.axis_name)
        inner_out = b.ctx.vmap_result_dims(name)
        new_out, out_dims, avals = [], [], []
        for a, o, r in zip(outs, out_axes, inner_out):
            per_device = a if r is None else a.insert_axis(r, b.axis_size)
            if r is None or o < 0:
                new_out.append(o)
                out_dims.append(r)
            else:   # the device axis goes after the batch dim when it can
                new_out.append(o if o < r else o + 1)
                out_dims.append(r + 1 if o < r else r)
            avals.append(per_device if new_out[-1] < 0
                         else per_device.insert_axis(new_out[-1], attrs["axis_size"]))
        res = _emit(cls, b.ir, name, vals, avals, new_in, tuple(new_out), attrs)
        return res, out_dims


def _emit(op_cls, ir_builder, callee, operands, result_avals, in_axes, out_axes,
          attrs) -> list:
    results, _, _ = ir_builder.emit(op_cls, list(operands), result_avals=list(result_avals),
                                    callee=callee, in_axes=tuple(in_axes),
                                    out_axes=tuple(out_axes), **attrs)
    return results


class _PmapBackward:
    """Tape entry of a pmap in reverse mode: its transpose is a pmap of the callee's VJP
    (which recomputes the forward pass on each device).

    Cotangents of unmapped operands are summed over the devices; the cotangent of an
    unmapped result (the same on every device) is given to device 0 alone."""

    name = "irax.pmap"
    op = Pmap

    @classmethod
    def transpose(cls, b, ct, *operands, callee, in_axes, out_axes, **attrs):
        n = len(in_axes)
        cts = ct if isinstance(ct, list) else [ct]
        tangents, primals = operands[:n], operands[n:]
        name, ins, outs, wrt, ct_mask = tape_vjp(b, callee, tangents)
        size = attrs["axis_size"]
        ct_vals, ct_axes = [], []
        for c, a, o, m in zip(cts, outs, out_axes, ct_mask):
            if not m:
                continue
            c = b.instantiate(c, a if o < 0 else a.insert_axis(o, size))
            if o < 0 and size > 1:
                c, o = _on_first_device(b, c, size), 0
            ct_vals.append(c)
            ct_axes.append(o)
        wrt_axes = [0 if a < 0 else a for a, w in zip(in_axes, wrt) if w]
        wrt_avals = [x.insert_axis(ax, size) for x, w, ax in
                     zip(ins, wrt, [0 if a < 0 else a for a in in_axes]) if w]
        res = _emit(cls.op, b.ir, name, list(primals) + ct_vals,
                    [o if ax < 0 else o.insert_axis(ax, size) for o, ax in zip(outs, out_axes)]
                    + wrt_avals, tuple(in_axes) + tuple(ct_axes),
                    tuple(out_axes) + tuple(wrt_axes), attrs)
        arg_cts = iter(res[len(outs):])
        out = []
        for a, w in zip(in_axes, wrt):
            g = next(arg_cts) if w else None
            out.append(b.reduce_sum(g, axes=(0,)) if (w and a < 0) else g)
        return out + [None] * len(primals)


class ShardMap(Pmap):
    """A function run once per device of a mesh, on that device's blocks (``shard_map``).

    The mesh has axes ``mesh_axes`` of sizes ``mesh_shape``; its ``axis_size`` devices
    (``devices``, row-major over the mesh) are the examples of a map: operand ``i`` holds
    every device's block stacked along ``in_axes[i]`` (-1: the same value on every
    device), and each result stacks the devices' blocks along ``out_axes[j]``. The callee's
    collectives name mesh axes: over ``"x"`` of a 2x2 mesh they combine the devices that
    share a ``"y"`` coordinate. ``irax-shard`` expands it as ``irax.pmap``: one copy of the
    callee per device, collectives as transfers within each group of devices.

        %y = "irax.shard_map"(%xs) {callee = @f, in_axes = array<i64: 0>,
               out_axes = array<i64: 0>, axis_size = 4 : i64, axis_name = "",
               mesh_axes = ["x", "y"], mesh_shape = array<i64: 2, 2>,
               devices = array<i64: 0, 1, 2, 3>} : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    """

    name = "irax.shard_map"
    attributes = dict(Pmap.attributes, mesh_axes=A.StrArray, mesh_shape=A.I64Array)

    @classmethod
    def result_avals(cls, ins, outs, *, mesh_axes, mesh_shape, axis_size, **attrs):
        """Pmap's result types, once the mesh has ``axis_size`` devices."""
        if len(mesh_axes) != len(mesh_shape) or not mesh_axes:
            raise OpError(f"expected one size per mesh axis, but got mesh_axes "
                          f"{list(mesh_axes)} and mesh_shape {list(mesh_shape)}")
        if len(set(mesh_axes)) != len(mesh_axes) or "" in mesh_axes:
            raise OpError(f"expected distinct non-empty mesh axis names, but got "
                          f"{list(mesh_axes)}")
        if int(np.prod(mesh_shape)) != axis_size:
            raise OpError(f"expected axis_size {int(np.prod(mesh_shape))} (the number of "
                          f"devices of mesh {list(mesh_shape)}), but got {axis_size}")
        return super().result_avals(ins, outs, axis_size=axis_size, **attrs)

    @classmethod
    def _backward(cls):
        return _ShardMapBackward


class _ShardMapBackward(_PmapBackward):
    """Tape entry of a shard_map: a shard_map of the callee's VJP."""

    name = "irax.shard_map"
    op = ShardMap


def _on_first_device(b, ct, size: int):
    """``ct`` stacked with zeros: one slice per device, the cotangent on device 0 only."""
    a = b.aval(ct)
    first = b.reshape(ct, new_sizes=(1, *a.shape))
    rest = b.full(a.update(shape=(size - 1, *a.shape)), 0)
    return b.concatenate(first, rest, dimension=0)


class Transfer(Linear, Op):
    """Moves a value to the device of ordinal ``device`` (an identity on values).

        %y = "irax.transfer"(%x) {device = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.transfer"
    num_operands = 1
    #: an identity on values: in a partitioned function each device moves its block
    shard = classmethod(S.elementwise)
    attributes = {"device": A.I64}

    @classmethod
    def infer(cls, x, *, device):
        if device < 0:
            raise OpError(f"expected a non-negative device ordinal, but got {device}")
        return x

    @classmethod
    def evaluate(cls, x, *, device):
        return np.asarray(x)

    @classmethod
    def lower(cls, lb, x, *, device):
        target = lb.attr(f"#hal.device.promise<@dev{device}>")
        return lb.create("flow.tensor.transfer", [x], [lb.type(lb.out_avals[0])],
                         {"target": target}).results[0]

    @classmethod
    def transpose(cls, b, ct, x, *, device):
        return (ct,)

    @classmethod
    def batch(cls, b, args, dims, *, device):
        return [b.transfer(args[0], device=device)], list(dims)
