"""``custom_linear_solve`` and ``custom_root``: solvers differentiated implicitly, never
through the solver (``jax.lax.custom_linear_solve``, ``jax.lax.custom_root``).

    x = lax.custom_linear_solve(lambda v: a @ v, b, solve)     # solve(matvec, b)
    dx = solve(matvec, db - d(matvec)(x))                      # its JVP
    r = lax.custom_root(f, x0, solve, tangent_solve)           # f(r) = 0
    dr = tangent_solve(d_x f(r), -d_params f(r))               # its JVP

Both are written as ``x = x0 + (y - stop_gradient(y))`` with ``x0`` the solver's answer
(its derivative stopped) and ``y`` the solve of the residual at ``x0`` (about zero), a
``custom_jvp`` whose tangent is the solve of the residual's tangent: the value is exactly
the solver's, the derivative the implicit one, and ordinary autodiff differentiates the
residual (``d(matvec)(x0)``, ``d_params f``). ``solve`` may close over traced values: it is
traced once to find them, and they become explicit arguments of the ``custom_jvp``
(closure conversion). Reverse mode transposes the tangent solve, so ``solve`` (resp.
``tangent_solve``) must itself be transposable; ``transpose_solve`` is not used.
``custom_root``'s ``tangent_solve`` gets the Jacobian of ``f`` at the root as a dense
matrix (one JVP per unknown).
"""

from __future__ import annotations

import numpy as np

from irax.core import tree_util
from irax.dialect.control import Call
from irax.frontend.callee import apply_transform, fun_name, fun_symbol, trace_callee
from irax.lax import _util as U
from irax.lax._reduce import dot_general
from irax.lax._shape import concatenate, slice_in_dim
from irax.lax._shape_more import stack
from irax.transforms.autodiff import jvp
from irax.transforms.custom_derivatives import custom_jvp, stop_gradient


class _Converted:
    """``fun`` (of one pytree argument shaped like ``example``) traced once; ``call(x,
    consts)`` applies the traced function with its captured values given explicitly."""

    def __init__(self, fun, example):
        leaves, in_tree = tree_util.tree_flatten(((example,), {}))
        self.callee = trace_callee(fun, leaves, in_tree, fun_symbol(fun), fun_name(fun))
        self.consts = list(self.callee.captures)
        self.out_tree = self.callee.out_tree

    def call(self, x, consts):
        leaves = tree_util.tree_leaves(x)
        outs = apply_transform(Call, self.callee, list(leaves) + list(consts),
                               self.callee.out_avals)
        return tree_util.tree_unflatten(self.out_tree, outs)


def _check_tree(what: str, want, got) -> None:
    if want != got:
        raise TypeError(f"{what} output must have the same pytree structure as the input, "
                        f"got {got} and {want}")


def _sub(a, b):
    return tree_util.tree_map(lambda x, y: x - y, a, b)


def _neg(a):
    return tree_util.tree_map(lambda x: -x, a)


def _zeros_like(a):
    return tree_util.tree_map(lambda x: U.full(U.aval_of(x).shape, 0, U.aval_of(x).dtype), a)


def _implicit(y):
    """``y - stop_gradient(y)``: zero, with ``y``'s tangent."""
    return tree_util.tree_map(lambda v: v - stop_gradient(v), y)


def _plus(a, b):
    return tree_util.tree_map(lambda x, y: x + y, a, b)


def _linear_correction(fn, consts, r):
    """``fn(r, consts)`` as a function linear in ``r`` alone (the consts' tangents are
    ignored), minus its value: zero, whose tangent is ``fn(dr, consts)``."""
    @custom_jvp
    def apply(r, *c):
        return fn(r, c)

    @apply.defjvp
    def _apply_jvp(primals, tangents):
        (r, *c), (dr, *_) = primals, tangents
        return apply(r, *c), fn(dr, c)

    return _implicit(apply(r, *consts))


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """``solve(matvec, b)``, a solution of ``matvec(x) = b``, with derivatives from the
    implicit function theorem (``jax.lax.custom_linear_solve``)."""
    del transpose_solve, symmetric
    b = tree_util.tree_map(U.as_operand, b)
    tree = tree_util.tree_structure(b)
    out = solve(matvec, b)
    x0, aux = (out if has_aux else (out, None))
    _check_tree("solve", tree, tree_util.tree_structure(x0))
    x0 = stop_gradient(x0)
    mx = matvec(x0)
    _check_tree("matvec", tree, tree_util.tree_structure(mx))
    r = _sub(b, mx)
    sv = _Converted(lambda v: _first(solve(matvec, v), has_aux), b)
    x = _plus(x0, _linear_correction(sv.call, sv.consts, r))
    return (x, stop_gradient(aux)) if has_aux else x


def _first(out, has_aux):
    return out[0] if has_aux else out


def _ravel(tree):
    leaves = [U.reshape(v, (U.aval_of(v).size,)) for v in tree_util.tree_leaves(tree)]
    return leaves[0] if len(leaves) == 1 else concatenate(leaves, 0)


def _unravel(vec, like):
    leaves, tree = tree_util.tree_flatten(like)
    out, start = [], 0
    for v in leaves:
        a = U.aval_of(v)
        piece = slice_in_dim(vec, start, start + a.size) if len(leaves) > 1 else vec
        out.append(U.reshape(piece, a.shape))
        start += a.size
    return tree_util.tree_unflatten(tree, out)


def _jacobian(fc, x, consts):
    """The dense Jacobian ``[n_out, n_in]`` of ``fc`` at ``x`` (derivatives stopped)."""
    flat = _ravel(x)
    n = U.aval_of(flat).size
    cols = []
    for i in range(n):
        e = U.host_array(np.eye(n, dtype=U.aval_of(flat).dtype)[i])
        cols.append(_ravel(jvp(lambda y: fc.call(y, consts), (x,), (_unravel(e, x),))[1]))
    return stack(cols, 1)


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """``solve(f, initial_guess)``, a root of ``f``, with derivatives from the implicit
    function theorem through ``tangent_solve(g, y)`` (solving the linear ``g(x) = y``)
    (``jax.lax.custom_root``)."""
    guess = tree_util.tree_map(U.as_operand, initial_guess)
    tree = tree_util.tree_structure(guess)
    out = solve(f, guess)
    x0, aux = (out if has_aux else (out, None))
    _check_tree("solve", tree, tree_util.tree_structure(x0))
    x0 = stop_gradient(x0)
    fx = f(x0)
    _check_tree("f", tree, tree_util.tree_structure(fx))
    fc = _Converted(f, x0)
    jac = _jacobian(fc, x0, [stop_gradient(c) for c in fc.consts])

    def t_solve(v, consts):
        (j,) = consts

        def g(u):
            return _unravel(dot_general(j, _ravel(u), (((1,), (0,)), ((), ()))), u)

        return tangent_solve(g, v)

    x = _plus(x0, _linear_correction(t_solve, [jac], _neg(fx)))
    return (x, stop_gradient(aux)) if has_aux else x
