"""How an irax name departs from JAX's: read by ``irax.cli.gen_compat_docs`` for the
"partial" rows of docs/jax-compat.md.

    @partial_support("no `where=`: NumPy's masked form is not implemented")
    def nanmedian(a, axis=None, ...): ...

A module whose names are plain objects (dtypes, constants) lists them instead:

    __irax_partial__ = {"int1": "a dtype-like only: no array holds 1-bit integers"}
"""

from __future__ import annotations

ATTRIBUTE = "__irax_partial__"


def partial_support(reason: str):
    """Marks a function or class as covering only part of JAX's behaviour, and why."""

    def mark(obj):
        setattr(obj, ATTRIBUTE, reason)
        return obj

    return mark


def partial_reason(module, name: str) -> str | None:
    """Why ``module.name`` is partial, or None: from the object itself (not inherited)
    or the module's ``__irax_partial__`` table."""
    table = getattr(module, ATTRIBUTE, None)
    if isinstance(table, dict) and name in table:
        return table[name]
    obj = getattr(module, name, None)
    if obj is None or isinstance(obj, type(module)):
        return None
    own = vars(obj) if isinstance(obj, type) else {}
    reason = own.get(ATTRIBUTE) if isinstance(obj, type) else getattr(obj, ATTRIBUTE, None)
    return reason if isinstance(reason, str) else None
