"""User-defined derivatives: ``custom_jvp``, ``custom_vjp``, ``stop_gradient``
(rematerialization is in ``transforms/checkpoint.py``).

Outside any transformation these run the plain function. Under a trace they record the
function and its rules as private functions and emit ``irax.custom_jvp_call``
or ``irax.custom_vjp_call`` (see ``dialect/autodiff.py``).
"""

from __future__ import annotations

import functools
import threading
from typing import Callable

from irax.core import dtypes, tree_util
from irax.dialect.autodiff import CustomJvpCall, CustomVjpCall, StopGradient
from irax.frontend.callee import (
    apply_transform,
    fun_name,
    fun_symbol,
    leaf_aval_and_value,
    trace_callee,
)
from irax.frontend.trace import bind, current_trace


def stop_gradient(x):
    """Identity whose value has a zero derivative (``jax.lax.stop_gradient``)."""

    def stop(leaf):
        aval = leaf_aval_and_value(leaf)[0]
        return bind(StopGradient, leaf) if dtypes.is_inexact(aval.dtype) else leaf

    return tree_util.tree_map(stop, x)


def _no_captures(callee, api: str, fun) -> None:
    if callee.captures:
        raise TypeError(
            f"{api}: the function {fun_name(fun)!r} closes over a traced value "
            f"({callee.captures[0].aval.str_short()}); pass it as an explicit argument "
            "instead (rules of custom derivatives cannot close over traced values).")


def _trace_rule(owner, flat_fun, leaves, in_tree, suffix: str, rule, callee, api: str):
    """Traces a user rule into ``callee``'s module. While it is traced, calls of ``owner``
    run the plain function (rules may call the function they belong to)."""
    owner._rules.depth = getattr(owner._rules, "depth", 0) + 1
    try:
        traced = trace_callee(flat_fun, leaves, in_tree, fun_symbol(owner.fun) + suffix,
                              fun_name(rule), module=callee.trace.module)
    finally:
        owner._rules.depth -= 1
    _no_captures(traced, api, rule)
    return traced


_SYMBOLIC_ZEROS = (
    "irax.{api}: symbolic_zeros=True is not supported: irax traces a rule once, before it "
    "is known which tangents or cotangents are zero, so every one arrives as an array; "
    "define the rule without symbolic_zeros (zeros are then passed as arrays of zeros)")


def _split_nondiff(args, nondiff_argnums):
    static = {i: args[i] for i in nondiff_argnums}
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    return static, dyn


def _merge(static, dyn, n):
    it = iter(dyn)
    return [static[i] if i in static else next(it) for i in range(n)]


class custom_jvp:  # noqa: N801 - JAX's name
    """A function with a user-defined JVP (``jax.custom_jvp``).

        @custom_jvp
        def f(x): return jnp.sin(x)

        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), jnp.cos(x) * t
    """

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self._rules = threading.local()  # this thread's depth of rule tracing

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        if symbolic_zeros:
            raise NotImplementedError(_SYMBOLIC_ZEROS.format(api="custom_jvp.defjvp"))
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps) -> None:
        def rule(primals, tangents):
            out = self.fun(*primals)
            total = None
            for fn, t in zip(jvps, tangents):
                if fn is None:
                    continue
                term = fn(t, out, *primals)
                total = term if total is None else tree_util.tree_map(
                    lambda a, b: a + b, total, term)
            if total is None:
                total = tree_util.tree_map(lambda o: o * 0, out)
            return out, total

        self.jvp = rule

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"custom_jvp function {fun_name(self.fun)!r} takes positional "
                            "arguments only")
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {fun_name(self.fun)} "
                                 "using defjvp.")
        if current_trace() is None or getattr(self._rules, "depth", 0):
            # the rule itself may call the function for its primal output
            return self.fun(*args)
        static, dyn = _split_nondiff(args, self.nondiff_argnums)
        n = len(args)
        leaves, in_tree = tree_util.tree_flatten((dyn, {}))
        callee = trace_callee(lambda *d: self.fun(*_merge(static, d, n)), leaves, in_tree,
                              fun_symbol(self.fun), fun_name(self.fun))
        _no_captures(callee, "custom_jvp", self.fun)
        out_tree = callee.out_tree

        def rule_flat(*flat):
            k = len(flat) // 2
            primals = tree_util.tree_unflatten(in_tree, list(flat[:k]))[0]
            tangents = tree_util.tree_unflatten(in_tree, list(flat[k:]))[0]
            rule_args = (tuple(static[i] for i in sorted(static)) if static else ())
            res = self.jvp(*rule_args, tuple(primals), tuple(tangents))
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError("Custom JVP rule must produce a pair (list or tuple of length "
                                f"two) representing primal and tangent outputs, but got {res!r}")
            p_out, t_out = res
            p_tree = tree_util.tree_structure(p_out)
            t_tree = tree_util.tree_structure(t_out)
            if p_tree != out_tree or t_tree != out_tree:
                raise TypeError(
                    f"Custom JVP rule {fun_name(self.jvp)} for function {fun_name(self.fun)} must "
                    "produce primal and tangent outputs with equal container (pytree) "
                    f"structures matching the function's output {out_tree}, but got "
                    f"{p_tree} and {t_tree} respectively.")
            return tree_util.tree_leaves(p_out) + tree_util.tree_leaves(t_out)

        rule_in = list(leaves) + list(leaves)
        r_leaves, r_tree = tree_util.tree_flatten((tuple(rule_in), {}))
        rule = _trace_rule(self, rule_flat, r_leaves, r_tree, "_jvp_rule", self.jvp, callee,
                           "custom_jvp")
        outs = apply_transform(CustomJvpCall, callee, leaves, callee.out_avals,
                               jvp=rule.name)
        return tree_util.tree_unflatten(out_tree, outs)


class custom_vjp:  # noqa: N801 - JAX's name
    """A function with a user-defined VJP (``jax.custom_vjp``): ``defvjp(fwd, bwd)`` with
    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, ct) -> tuple of cotangents``."""

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self._rules = threading.local()  # this thread's depth of rule tracing

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        if symbolic_zeros:
            raise NotImplementedError(_SYMBOLIC_ZEROS.format(api="custom_vjp.defvjp"))
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"custom_vjp function {fun_name(self.fun)!r} takes positional "
                            "arguments only")
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {fun_name(self.fun)} "
                                 "using defvjp.")
        if current_trace() is None or getattr(self._rules, "depth", 0):
            # fwd and bwd may call the function itself (JAX's documented idiom)
            return self.fun(*args)
        static, dyn = _split_nondiff(args, self.nondiff_argnums)
        n = len(args)
        rule_args = tuple(static[i] for i in sorted(static))
        leaves, in_tree = tree_util.tree_flatten((dyn, {}))
        callee = trace_callee(lambda *d: self.fun(*_merge(static, d, n)), leaves, in_tree,
                              fun_symbol(self.fun), fun_name(self.fun))
        _no_captures(callee, "custom_vjp", self.fun)
        out_tree = callee.out_tree
        res_tree = []

        def fwd_flat(*d):
            res = self.fwd(*_merge(static, d, n))
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError(f"Custom VJP fwd rule {fun_name(self.fwd)} must produce a pair "
                                f"(output, residuals), but got {res!r}")
            out, resid = res
            if tree_util.tree_structure(out) != out_tree:
                raise TypeError(
                    f"Custom VJP fwd rule {fun_name(self.fwd)} for function {fun_name(self.fun)} "
                    f"must produce an output with the same structure as the function, "
                    f"{out_tree}, but got {tree_util.tree_structure(out)}.")
            r_leaves, r_tree = tree_util.tree_flatten(resid)
            res_tree.append(r_tree)
            return tree_util.tree_leaves(out) + r_leaves

        fwd = _trace_rule(self, fwd_flat, leaves, in_tree, "_fwd", self.fwd, callee,
                          "custom_vjp")
        n_out = len(callee.out_avals)
        res_avals = fwd.out_avals[n_out:]
        dyn_tree = tree_util.tree_structure(dyn)

        def bwd_flat(*flat):
            resid = tree_util.tree_unflatten(res_tree[0], list(flat[:len(res_avals)]))
            ct = tree_util.tree_unflatten(out_tree, list(flat[len(res_avals):]))
            cts = self.bwd(*rule_args, resid, ct)
            got = tree_util.tree_structure(cts, is_leaf=lambda x: x is None)
            want = tree_util.tree_structure(dyn, is_leaf=lambda x: x is None)
            if not isinstance(cts, (tuple, list)) or len(cts) != len(dyn) or \
                    tree_util.tree_structure(tuple(cts)) != dyn_tree and not _none_prefix(
                        cts, dyn):
                raise TypeError(
                    f"Custom VJP bwd rule {fun_name(self.bwd)} for function {fun_name(self.fun)} "
                    "must produce an output with the same container (pytree) structure as "
                    "the args tuple of the primal function, and in particular must produce a "
                    "tuple of length equal to the number of arguments to the primal "
                    f"function, but got bwd output structure {got} for primal input "
                    f"structure {want}.")
            out = []
            for c, a in zip(cts, dyn):
                for cl, al in zip(*_aligned(c, a)):
                    aval = leaf_aval_and_value(al)[0]
                    out.append(_zeros(aval) if cl is None else cl)
            return out

        ct_leaves = [_zeros(a) for a in callee.out_avals]
        b_leaves, b_tree = tree_util.tree_flatten(
            (tuple([_zeros(a) for a in res_avals] + ct_leaves), {}))
        bwd = _trace_rule(self, bwd_flat, b_leaves, b_tree, "_bwd", self.bwd, callee,
                          "custom_vjp")
        outs = apply_transform(CustomVjpCall, callee, leaves, callee.out_avals,
                               fwd=fwd.name, bwd=bwd.name)
        return tree_util.tree_unflatten(out_tree, outs)


def _none_prefix(cts, dyn) -> bool:
    """True when ``cts`` matches ``dyn`` with whole subtrees replaced by None."""
    try:
        _ = [list(_aligned(c, a)) for c, a in zip(cts, dyn)]
        return True
    except (ValueError, TypeError):
        return False


def _aligned(ct, arg):
    a_leaves, a_tree = tree_util.tree_flatten(arg)
    if ct is None:
        return [None] * len(a_leaves), a_leaves
    c_leaves, c_tree = tree_util.tree_flatten(ct)
    if c_tree != a_tree:
        raise TypeError(f"cotangent structure {c_tree} does not match argument {a_tree}")
    return c_leaves, a_leaves


def _zeros(aval):
    import numpy as np

    return np.zeros(aval.shape, aval.dtype)
