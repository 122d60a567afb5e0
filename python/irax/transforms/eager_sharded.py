"""Eager ops on sharded arrays, as JAX runs them: each op a jitted primitive, which
follows its arguments' shardings (``JitFunction._follow``: ``irax-partition`` over their
mesh), so the result is sharded as the partitioner propagates it and the blocks never
leave their devices:

    xs = irax.device_put(x, NamedSharding(mesh, P("x")))
    ys = jnp.sin(xs) * 2        # two partitioned programs; ys.sharding: P('x')
    jnp.sum(xs, axis=1)         # P('x'); jnp.sum(xs): P() (a psum)

One jit per op class and attributes (compiled once per signature of the arguments, as
every jit); an op whose attributes cannot be hashed gets a new one each time. An eager
transformation (``grad``, ``vmap``, ...) or control flow (``fori_loop``, ...) on sharded
arrays runs as a jit of it the same way (traced at each call; its program found again by
the compile caches). Arrays that are not sharded keep the NumPy rules
(``frontend/eager.py``).
"""

from __future__ import annotations

import threading

from irax.frontend import eager
from irax.frontend.trace import bind
from irax.transforms.jit import jit

_JITS: dict = {}
_LOCK = threading.Lock()


def run_op(op_cls, args, attrs) -> list:
    """``op_cls`` on ``args`` (some sharded over several devices) as a jitted primitive;
    its results, as ``eager_op`` returns them."""
    try:
        key = (op_cls, tuple(sorted(attrs.items())))
        hash(key)
    except TypeError:   # unhashable attributes: no reuse
        key = None
    f = _JITS.get(key) if key is not None else None
    if f is None:
        f = jit(_primitive(op_cls, dict(attrs)))
        if key is not None:
            with _LOCK:
                f = _JITS.setdefault(key, f)
    out = f(*args)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _primitive(op_cls, attrs):
    """The function binding ``op_cls`` with ``attrs`` (named as the op's method)."""
    def primitive(*xs):
        return bind(op_cls, *xs, **attrs)

    primitive.__name__ = primitive.__qualname__ = op_cls.method
    return primitive


def run(fn, args) -> list:
    """``fn(*args)`` (an eager transformation or control flow on sharded arrays) as a jit
    of it, which follows the arguments' shardings; its results as a list."""
    out = jit(fn)(*args)
    return list(out) if isinstance(out, (list, tuple)) else [out]


eager.SHARDED[:] = [run_op, run]
