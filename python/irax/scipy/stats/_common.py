"""Shared helpers of the distributions: argument promotion as JAX's ``promote_args_inexact``
(one inexact dtype, weak Python scalars kept weak, shapes broadcast)."""

from __future__ import annotations

from irax.numpy import _util as U
from irax.scipy.stats._special import c  # noqa: F401 - re-exported


def promote(name: str, *args):
    """``args`` promoted to one inexact dtype and broadcast (errors name ``name``)."""
    return U.promote_args_inexact(name, *args)
