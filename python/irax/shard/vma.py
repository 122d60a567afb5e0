"""Which mesh axes each value of a shard_map's function may vary over (JAX's
``check_vma``): an out spec that leaves a mesh axis out claims the output is the same on
every device along it, which must follow from the function.

A value varies over the axes its argument's in spec splits it along; an op's result
varies over what its operands vary over; a collective says by its class
(``varies_along_axis``) whether its result is the same along its axis (psum, pmax, pmin)
or varies along it (all_gather, psum_scatter, ppermute, axis_index), as in JAX.

    %0 = "irax.sin"(%x)                         // varies over {x, y} (in spec P('x', 'y'))
    %1 = "irax.psum"(%0) {axis_name = "y"}      // varies over {x}: may be out spec P('x')

Loops, branches and calls holding a collective are not analysed there: their results
are unknown (None), and unknown values are never reported. ``uniform_control`` analyses
loops and branches too (a loop's carry over the trips), to tell whether every loop
condition and branch index is the same on every device: then each device takes the
same trips and branches, and meets the collectives inside them as the others do.
"""

from __future__ import annotations

from irax.dialect import funcs
from irax.dialect.base import lookup
from irax.dialect.collective import Collective
from irax.dialect.control import is_plain_call, is_return
from irax.dialect.control_flow import Cond, Scan, While
from irax.shard.split import holds_collective


def output_vma(module, fn, in_vma) -> list:
    """The axes each result of ``fn`` may vary over (a frozenset, or None when unknown),
    given those of its arguments (``in_vma``)."""
    block = fn.regions[0].blocks[0]
    env = dict(zip(block.arguments, in_vma))
    return _block(module, block, env)


def _union(sets):
    out = frozenset()
    for s in sets:
        if s is None:
            return None
        out |= s
    return out


def uniform_control(module, fn, in_vma) -> bool:
    """Whether the condition or index of every loop or branch of ``fn`` (at any depth)
    that holds a collective is known to vary over no mesh axis, given the axes its
    arguments vary over (``in_vma``)."""
    block = fn.regions[0].blocks[0]
    control: list = []
    _block(module, block, dict(zip(block.arguments, in_vma)), control)
    return all(v is not None and not v for v in control)


def _block(module, block, env, control=None) -> list:
    """The axes ``block``'s results vary over; ``control``, when given, gathers those of
    each loop condition and branch index, the regions analysed (``_region``)."""
    for op in block.operations:
        ins = [env.get(v, frozenset()) for v in op.operands]
        if is_return(op):
            return ins
        cls = lookup(op.name)
        if is_plain_call(op):
            body = funcs.callee_body(op, module)
            outs = _block(module, body, dict(zip(body.arguments, ins))) if body is not None \
                else [None] * len(op.results)
        elif cls is not None and issubclass(cls, Collective) and \
                cls.varies_along_axis is not None:   # the collective's own rule
            axis = cls.decode_attrs(op)["axis_name"]
            base = _union(ins)
            if base is None:
                outs = [None]
            else:
                outs = [base | {axis} if cls.varies_along_axis else base - {axis}]
        elif len(op.regions) and control is not None:
            outs = _region(module, op, ins, control)
        elif (len(op.regions) or funcs.symbol_refs(op)) and holds_collective(
                funcs.symbol_table(module).get, op):
            outs = [None] * len(op.results)
        else:
            outs = [_union(ins)] * len(op.results)
        env.update(zip(op.results, outs))
    return []


def _region(module, op, ins, control) -> list:
    """The axes a loop's or branch's results vary over: a carry over what its initial
    value and the body's result vary over, trip after trip (the sets only grow, so this
    ends); a branch's over its index and every branch's. Its condition's or index's go
    to ``control`` where it holds a collective."""
    cls = lookup(op.name)
    blocks = [r.blocks[0] for r in op.regions]
    meets = holds_collective(funcs.symbol_table(module).get, op)

    def run(block, args):
        return _block(module, block, dict(zip(block.arguments, args)), control)

    if cls is Cond:
        if meets:
            control.append(ins[0])
        outs = [run(b, ins[1:]) for b in blocks]
        return [_union([ins[0], *col]) for col in zip(*outs)]
    if cls is not While and cls is not Scan:
        if meets:
            control.append(None)
        return [None] * len(op.results)
    attrs = cls.decode_attrs(op)
    k = attrs["num_consts"]
    n = attrs["num_carry"] if cls is Scan else len(ins) - k
    consts, carry, xs = ins[:k], ins[k:k + n], ins[k + n:]
    while True:
        out = run(blocks[-1], consts + carry + xs)
        new = [_union([c, o]) for c, o in zip(carry, out)]
        if new == carry:
            break
        carry = new
    if cls is While and meets:
        control.append(run(blocks[0], consts + carry)[0])
    return carry + out[n:]
