"""Named mapped axes: the ``axis_name``s of the vmaps and pmaps this thread is tracing,
innermost last. Collectives (``lax.psum(x, "i")``) look up the size of their axis here.

    with bound_axis("i", 8):
        trace the mapped function         # bound_axis_size("i") == 8 inside
"""

from __future__ import annotations

import contextlib
import threading

from irax.frontend.trace import current_trace


class _Axes(threading.local):
    """This thread's bound axes, ``(axis_name, size)`` innermost last."""

    def __init__(self):
        self.bound: list = []
        #: axis name -> the handler its collectives call instead of emitting ops (a
        #: shard_map run as one program per device: irax.transforms.spmd)
        self.spmd: list = []


_AXES = _Axes()


@contextlib.contextmanager
def bound_axis(name, size: int, spmd=None):
    """Binds ``name`` to an axis of ``size`` while the body runs (None binds nothing);
    ``spmd``, when given, is what its collectives call (``spmd_handler``)."""
    if name is None:
        yield
        return
    _AXES.bound.append((name, size))
    _AXES.spmd.append((name, spmd))
    try:
        yield
    finally:
        _AXES.bound.pop()
        _AXES.spmd.pop()


def spmd_handler(name):
    """The handler bound with the innermost axis ``name``: None unless that axis is one
    of a mesh whose devices each run their own program, whose collectives call
    ``handler(op_cls, operands, attrs)`` instead of emitting the op."""
    for bound, handler in reversed(_AXES.spmd):
        if bound == name:
            return handler
    return None


def bound_axis_size(name) -> int:
    """The size of the innermost mapped axis called ``name`` (``NameError`` when no map
    being traced has that ``axis_name``)."""
    for bound, size in reversed(_AXES.bound):
        if bound == name:
            return size
    raise NameError(f"unbound axis name: {name}")


def in_binding_order(names) -> tuple:
    """``names`` ordered as their axes were bound, outermost first (a mesh's own axis
    order under ``shard_map``): the order JAX numbers the devices of a ``ppermute`` over
    several axes in, whatever order its ``axis_name`` lists them."""
    def depth(name):
        return max(i for i, (bound, _) in enumerate(_AXES.bound) if bound == name)
    return tuple(sorted(names, key=depth))


def emit_collective(op_cls, operands, attrs):
    """A collective over ``attrs["axis_name"]``: computed by that axis' handler when its
    mesh runs a program per device (``spmd_handler``), else emitted into the innermost
    trace (a vmap being traced encloses it; constants and operand-free collectives are
    recorded too). Returns its result."""
    handler = spmd_handler(attrs["axis_name"])
    if handler is not None:
        return handler(op_cls, list(operands), attrs)
    return current_trace().emit(op_cls, list(operands), attrs)[0]
