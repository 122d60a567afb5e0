"""``jax_debug_nans`` / ``jax_debug_infs`` for jitted functions, as JAX: when a result of
a jitted call holds a NaN (or an infinity), the function is run again de-optimized (its
traced irax ops, one by one, on the reference interpreter) to name the first op that
produced one, and ``FloatingPointError`` is raised::

    FloatingPointError: invalid value (nan) encountered in jit(f): first produced by
    'irax.log' at loc("model.py":12:0) (the de-optimized function run op by op)
"""

from __future__ import annotations

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.dialect.interpreter import Interpreter
from irax.frontend.compile import clone_module
from irax.frontend.eager import concrete_value, invalid_value
from irax.passes import pipelines, run_pipeline


class _FirstBad(Interpreter):
    """The interpreter, stopping at the first op whose results hold a value its operands
    did not."""

    def __init__(self, module, infs: bool):
        super().__init__(module)
        self.infs = infs

    def run_op(self, op, operands, env):
        outs = super().run_op(op, operands, env)
        kind = invalid_value(outs, True, self.infs)
        if kind is not None and invalid_value(operands, True, self.infs) != kind:
            raise _Found(kind, op)
        return outs


class _Found(Exception):
    def __init__(self, kind: str, op):
        super().__init__(kind)
        self.kind, self.op = kind, op


def enabled() -> bool:
    return bool(config.jax_debug_nans or config.jax_debug_infs)


def check(entry, name: str, leaves, out, module) -> None:
    """Raises FloatingPointError when ``out`` (a jitted call's result) holds a NaN or,
    with ``jax_debug_infs``, an infinity; ``module``: the specialization's traced module
    (not modified)."""
    infs = bool(config.jax_debug_infs)
    kind = invalid_value(tree_util.tree_leaves(out), True, infs) \
        if config.jax_debug_nans or infs else None
    if kind is None or (kind == "nan" and not config.jax_debug_nans):
        return
    head = f"invalid value ({kind}) encountered in jit({name})"
    try:
        arrays = [concrete_value(x)[0] for x in leaves]
    except Exception:  # noqa: BLE001 - a donated argument is gone: no de-optimized run
        raise FloatingPointError(head) from None
    if invalid_value(arrays, True, infs) == kind:
        raise FloatingPointError(f"{head}: an argument of {name} already holds one")
    copy = clone_module(module)
    run_pipeline(copy, pipelines.EAGER)
    try:
        with np.errstate(all="ignore"):
            _FirstBad(copy, infs).call("main", arrays)
    except _Found as found:
        loc = str(found.op.location)
        where = "" if loc.startswith('loc("-"') or loc == "loc(unknown)" else f" at {loc}"
        raise FloatingPointError(
            f"{head}: first produced by '{found.op.name}'{where} (the de-optimized function "
            "run op by op)") from None
    raise FloatingPointError(
        f"{head}; the de-optimized function (run op by op on the reference interpreter) "
        "produced no invalid value, so the compiled program's rounding or fusion did")
