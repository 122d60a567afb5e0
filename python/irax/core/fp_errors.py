"""NumPy's floating-point warnings switched off around irax's own NumPy evaluation (eager
ops compute IEEE results silently, as compiled code does), at a fraction of the cost of
``np.errstate``.

    token = ignore()          # like entering np.errstate(all="ignore")
    try:
        out = np.multiply(a, b)
    finally:
        restore(token)

``np.errstate(all="ignore")`` builds its error state on every entry (about 2 us, most of an
eager small op); NumPy 2 keeps that state in a context variable, so setting it to a state
built once costs a tenth of that. Where NumPy does not have that variable (another
version), ``np.errstate`` itself is used.
"""

from __future__ import annotations

import numpy as np

try:
    from numpy._core import _ufunc_config as _config

    _VAR = _config._extobj_contextvar
    _IGNORE = _config._make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):   # not NumPy 2's layout
    _VAR = _IGNORE = None


def ignore():
    """Switches NumPy's floating-point warnings off in this context; returns the token
    ``restore`` takes."""
    if _VAR is None:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    return _VAR.set(_IGNORE)


def restore(token) -> None:
    """Puts back the floating-point error state ``ignore`` replaced."""
    if _VAR is None:
        token.__exit__(None, None, None)
    else:
        _VAR.reset(token)
