"""Named mapped axes: the ``axis_name``s of the vmaps and pmaps being traced, innermost
last. Collectives (``lax.psum(x, "i")``) look up the size of their axis here.

    with bound_axis("i", 8):
        trace the mapped function         # bound_axis_size("i") == 8 inside
"""

from __future__ import annotations

import contextlib
from typing import Any

_AXES: list[tuple[Any, int]] = []


@contextlib.contextmanager
def bound_axis(name, size: int):
    """Binds ``name`` to an axis of ``size`` while the body runs (None binds nothing)."""
    if name is None:
        yield
        return
    _AXES.append((name, size))
    try:
        yield
    finally:
        _AXES.pop()


def bound_axis_size(name) -> int:
    """The size of the innermost mapped axis called ``name`` (``NameError`` when no map
    being traced has that ``axis_name``)."""
    for bound, size in reversed(_AXES):
        if bound == name:
            return size
    raise NameError(f"unbound axis name: {name}")
