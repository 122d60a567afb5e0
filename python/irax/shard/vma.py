"""Which mesh axes each value of a shard_map's function may vary over (JAX's
``check_vma``): an out spec that leaves a mesh axis out claims the output is the same on
every device along it, which must follow from the function.

A value varies over the axes its argument's in spec splits it along; an op's result
varies over what its operands vary over; a collective says by its class
(``varies_along_axis``) whether its result is the same along its axis (psum, pmax, pmin)
or varies along it (all_gather, psum_scatter, ppermute, axis_index), as in JAX.

    %0 = "irax.sin"(%x)                         // varies over {x, y} (in spec P('x', 'y'))
    %1 = "irax.psum"(%0) {axis_name = "y"}      // varies over {x}: may be out spec P('x')

Loops, branches and calls holding a collective are not analysed: their results are
unknown (None), and unknown values are never reported.
"""

from __future__ import annotations

from irax.dialect import funcs
from irax.dialect.base import lookup
from irax.dialect.collective import Collective
from irax.dialect.control import is_plain_call, is_return
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


def _block(module, block, env) -> list:
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
        elif (len(op.regions) or funcs.symbol_refs(op)) and holds_collective(
                funcs.symbol_table(module).get, op):
            outs = [None] * len(op.results)
        else:
            outs = [_union(ins)] * len(op.results)
        env.update(zip(op.results, outs))
    return []
