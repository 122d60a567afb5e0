"""Where traced ops come from: the user's file, line and function, and ``named_scope``.

Every op a trace emits carries the MLIR location of the innermost Python frame outside
irax's own files: the line of user code that asked for it, under the function's name
and the enclosing ``named_scope`` names (JAX's name stack):

    %0 = "irax.sin"(%arg0) : ... loc("mlp/forward"("/work/model.py":42:0))

Passes keep an op's location and give it to the ops its rules emit, the lowering hands
it to StableHLO and IREE, so IR dumps (``as_text(stage, debug_info=True)``), diagnostics
and errors of rules under ``jit`` point at user code. Locations are cached per code
object, line and scope: finding one costs a short walk up the stack.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading

from irax.dialect import mlir

#: irax's package directory: frames under it are irax's, not the user's
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_CACHE: dict = {}
_CACHE_MAX = 1 << 16


class _Scopes(threading.local):
    def __init__(self):
        self.names: tuple[str, ...] = ()


_SCOPES = _Scopes()


def current_scopes() -> tuple[str, ...]:
    """The ``named_scope`` names active on this thread, outermost first."""
    return _SCOPES.names


@contextlib.contextmanager
def named_scope(name: str):
    """``jax.named_scope``: ops traced inside carry ``name`` in their locations
    (``"outer/inner/function"``); scopes nest."""
    if not isinstance(name, str):
        raise TypeError(f"irax.named_scope: the name must be a str, got {type(name).__name__}")
    saved = _SCOPES.names
    _SCOPES.names = (*saved, name)
    try:
        yield
    finally:
        _SCOPES.names = saved


def named_call(fun, *, name: str | None = None):
    """``jax.named_call``: ``fun`` whose traced ops carry ``name`` (default: its
    ``__name__``) as a scope in their locations."""
    scope = name if name is not None else getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)

    return named


def user_frame():
    """The innermost frame outside irax's package, or None."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f = f.f_back
    return f


def user_location(default):
    """The location of the user's line being traced (``default`` when none is found)."""
    f = user_frame()
    if f is None:
        return default
    scopes = _SCOPES.names
    code = f.f_code
    key = (id(code), f.f_lineno, scopes)     # a code object's own hash reads its bytecode
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is code:
        return hit[1]
    ir = mlir.ir()
    here = ir.Location.file(code.co_filename, f.f_lineno, 0, context=mlir.context())
    name = "/".join((*scopes, code.co_name))
    loc = ir.Location.name(name, childLoc=here, context=mlir.context())
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = (code, loc)      # the entry keeps the code object (and its id) alive
    return loc
