"""Automatic differentiation as function transformations over irax IR.

``jvp.py`` builds the forward-mode derivative of a ``func.func``; ``vjp.py`` builds the
reverse-mode one by linearizing (primal ops emitted, tangent ops recorded on a tape) and
transposing the tape. Both ask each op class for its rules; ``passes/autodiff.py`` drives
them from the ``irax.jvp``/``irax.vjp``/``irax.grad`` transform ops.
"""
