"""Differentiation API (``jax.grad`` and friends), built on the transformation ops.

Each function traces the user's function into a private ``func.func`` and emits an
``irax.grad`` / ``irax.value_and_grad`` / ``irax.jvp`` / ``irax.vjp`` op; the
``irax-autodiff`` pass generates the derivative (see ``docs/autodiff.md``). Outside ``jit``
the trace carries concrete values, so Python control flow on values works, as in JAX.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from irax.core import dtypes, tree_util
from irax.core.abstract import ShapedArray
from irax.dialect.autodiff import Grad, Jvp, ValueAndGrad, Vjp
from irax.dialect.control import Call
from irax.dialect.shape import Reshape, Slice
from irax.frontend.callee import (
    apply_transform,
    flatten_args,
    fun_origin,
    fun_symbol,
    leaf_aval_and_value,
    trace_callee,
    zeros_for,
)
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.runtime.array import Array
from irax.transforms.vectorize import vmap


def _argnums_tuple(argnums, nargs: int, api: str):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for i in nums:
        if not isinstance(i, int):
            raise TypeError(f"{api}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -nargs <= i < nargs:
            raise ValueError(f"{api}: argnums={argnums!r} is out of range for a function "
                             f"called with {nargs} positional argument(s)")
    return single, tuple(i % nargs for i in nums)


def _is_array(x) -> bool:
    return isinstance(x, (Tracer, Array, np.ndarray, np.generic, bool, int, float, complex))


def _float0_zeros(aval: ShapedArray):
    return np.zeros(aval.shape, dtypes.float0)


# ---- grad and value_and_grad ---------------------------------------------------------------
def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes=()) -> Callable:
    """``(value, grad)`` of a scalar function (``jax.value_and_grad``)."""
    if not callable(fun):
        raise TypeError(f"value_and_grad expected a callable, got {fun!r}")

    @functools.wraps(fun, updated=())
    def value_and_grad_f(*args, **kwargs):
        return _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, args, kwargs,
                               "value_and_grad", True)

    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """Gradient of a scalar function with respect to ``argnums`` (``jax.grad``)."""
    if not callable(fun):
        raise TypeError(f"grad expected a callable, got {fun!r}")

    @functools.wraps(fun, updated=())
    def grad_f(*args, **kwargs):
        return _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, args, kwargs,
                               "grad", False)

    return grad_f


def _check_input_dtype(aval, holomorphic, allow_int, api):
    dt = aval.dtype
    if holomorphic:
        if not dtypes.is_complex(dt):
            raise TypeError(f"{api} with holomorphic=True requires inputs with complex dtype, "
                            f"but got {dtypes.short_name(dt)}.")
        return
    if dtypes.is_inexact(dt):
        return
    if allow_int and (dtypes.is_int(dt) or dtypes.is_bool(dt)):
        return
    raise TypeError(
        f"{api} requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        f"np.inexact), but got {dtypes.short_name(dt)}. If you want to use Boolean- or "
        "integer-valued inputs, use vjp or set allow_int to True.")


def _check_output(aval, holomorphic, api):
    if aval.shape != ():
        raise TypeError("Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}.")
    dt = aval.dtype
    if holomorphic:
        if not dtypes.is_complex(dt):
            raise TypeError(f"{api} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {dtypes.short_name(dt)}.")
        return
    if dtypes.is_complex(dt):
        raise TypeError(
            f"{api} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtypes.short_name(dt)}. For holomorphic differentiation, "
            "pass holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use jax.vjp directly.")
    if not dtypes.is_float(dt):
        raise TypeError(
            f"{api} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtypes.short_name(dt)}. For differentiation of functions "
            "with integer outputs, use jax.vjp directly.")


def _value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, args, kwargs, api, value):
    single, nums = _argnums_tuple(argnums, len(args), api)
    leaves, in_tree = flatten_args(args, kwargs)
    # leaf index ranges of each positional argument
    starts, pos = [], 0
    for a in args:
        starts.append(pos)
        pos += len(tree_util.tree_leaves(a))
    wrt_trees = {i: tree_util.tree_structure(args[i]) for i in nums}
    wrt_leaves = {i: list(range(starts[i], starts[i] + wrt_trees[i].num_leaves)) for i in nums}
    wrt = {j for js in wrt_leaves.values() for j in js}
    # leaves of the other arguments that are not arrays (a function passed to a
    # custom_vjp's nondiff argument) are closed over, as JAX does, not traced
    traced = [j for j, x in enumerate(leaves) if j in wrt or _is_array(x)]
    in_avals = {j: leaf_aval_and_value(leaves[j])[0] for j in traced}
    for i in nums:
        for j in wrt_leaves[i]:
            _check_input_dtype(in_avals[j], holomorphic, allow_int, api)

    def flat_fun(*a, **k):
        out = fun(*a, **k)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(f"{api} with has_aux=True requires the function to return a "
                                f"pair (output, aux), but it returned {type(out).__name__}")
            return out
        return out, None

    def traced_fun(*dyn):
        full = list(leaves)  # the static leaves as given, the traced ones replaced
        for j, v in zip(traced, dyn):
            full[j] = v
        a, k = tree_util.tree_unflatten(in_tree, full)
        return flat_fun(*a, **k)

    dyn_leaves = [leaves[j] for j in traced]
    dyn_tree = tree_util.tree_structure((tuple(dyn_leaves), {}))
    callee = trace_callee(traced_fun, dyn_leaves, dyn_tree, fun_symbol(fun), fun_origin(fun))
    out_tree = callee.out_tree
    n_out = len(callee.out_avals)
    if n_out == 0 or tree_util.tree_unflatten(out_tree, list(range(n_out)))[0] != 0:
        main = tree_util.tree_unflatten(out_tree, callee.out_avals)[0]
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {main}.")
    out_aval = callee.out_avals[0]
    _check_output(out_aval, holomorphic, api)
    diff_leaves = [j for i in nums for j in wrt_leaves[i]
                   if dtypes.is_inexact(in_avals[j].dtype)]
    op_cls = ValueAndGrad if value else Grad
    grad_avals = [in_avals[j] for j in diff_leaves]
    position = {j: k for k, j in enumerate(traced)}
    aux_avals = callee.out_avals[1:]
    result_avals = ([out_aval] + aux_avals + grad_avals) if value else (grad_avals + aux_avals)
    results = apply_transform(op_cls, callee, lambda caps: dyn_leaves + caps, result_avals,
                              argnums=tuple(position[j] for j in diff_leaves),
                              has_aux=bool(aux_avals))
    if value:
        val, aux, grads = results[0], results[1:1 + len(aux_avals)], results[1 + len(aux_avals):]
    else:
        grads, aux = results[:len(grad_avals)], results[len(grad_avals):]
    by_leaf = dict(zip(diff_leaves, grads))
    trees = []
    for i in nums:
        g = [by_leaf[j] if j in by_leaf else _float0_zeros(in_avals[j]) for j in wrt_leaves[i]]
        trees.append(tree_util.tree_unflatten(wrt_trees[i], g))
    g_out = trees[0] if single else tuple(trees)
    aux_tree = tree_util.tree_unflatten(out_tree, [None] + list(aux))[1]
    if value:
        v = (val, aux_tree) if has_aux else val
        return v, g_out
    return (g_out, aux_tree) if has_aux else g_out


# ---- jvp, vjp, linearize ---------------------------------------------------------------------
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """``(fun(*primals), d fun(primals)[tangents])`` (``jax.jvp``)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; "
                        f"found {type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {p_tree} whereas tangents "
                        f"have tree structure {t_tree}.")
    for p, t in zip(p_leaves, t_leaves):
        pa, ta = leaf_aval_and_value(p)[0], leaf_aval_and_value(t)[0]
        want = pa.dtype if dtypes.is_inexact(pa.dtype) else dtypes.float0
        if ta.shape != pa.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
        if ta.dtype != want and not (ta.dtype == dtypes.float0 or not dtypes.is_inexact(pa.dtype)):
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must "
                            "be equal, or in case of int/bool primal dtype the tangent dtype "
                            f"must be float0.Got primal dtype {dtypes.short_name(pa.dtype)} "
                            f"and so expected tangent dtype {dtypes.short_name(want)}, but got "
                            f"tangent dtype {dtypes.short_name(ta.dtype)} instead.")
    leaves, in_tree = flatten_args(tuple(primals), {})
    callee = trace_callee(fun, leaves, in_tree, fun_symbol(fun), fun_origin(fun))
    p_avals = [leaf_aval_and_value(x)[0] for x in leaves]
    tans = [t if dtypes.is_inexact(a.dtype) else np.zeros(a.shape, a.dtype)
            for t, a in zip(t_leaves, p_avals)]
    n = len(callee.out_avals)
    results = apply_transform(
        Jvp, callee, lambda caps: list(leaves) + caps + tans + [zeros_for(c) for c in caps],
        callee.out_avals + callee.out_avals)
    outs, douts = results[:n], results[n:]
    douts = [d if dtypes.is_inexact(a.dtype) else _float0_zeros(a)
             for d, a in zip(douts, callee.out_avals)]
    out = tree_util.tree_unflatten(callee.out_tree, outs)
    dout = tree_util.tree_unflatten(callee.out_tree, douts)
    if has_aux:
        return out[0], dout[0], out[1]
    return out, dout


def _primal_call(callee, leaves):
    """The callee's outputs on ``leaves`` (an ``irax.call`` inside a trace)."""
    return apply_transform(Call, callee, lambda caps: list(leaves) + caps, callee.out_avals)


def vjp(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), vjp_fn)`` where ``vjp_fn(ct)`` pulls a cotangent back to the
    primals (``jax.vjp``)."""
    leaves, in_tree = flatten_args(primals, {})
    callee = trace_callee(fun, leaves, in_tree, fun_symbol(fun), fun_origin(fun))
    outs = _primal_call(callee, leaves)
    out = tree_util.tree_unflatten(callee.out_tree, outs)
    if has_aux:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("vjp with has_aux=True requires the function to return a pair "
                            "(output, aux)")
        out, aux = out
        n_main = len(tree_util.tree_leaves(out))
    else:
        n_main = len(outs)
    main_tree = tree_util.tree_structure(out)
    in_avals = [leaf_aval_and_value(x)[0] for x in leaves]

    def vjp_fn(*cts):
        if len(cts) != 1:
            raise TypeError(f"The function returned by irax.vjp takes one cotangent argument "
                            f"(a pytree matching the output), got {len(cts)}")
        ct_leaves, ct_tree = tree_util.tree_flatten(cts[0])
        if ct_tree != main_tree:
            raise ValueError(f"unexpected tree structure of argument to vjp function: got "
                             f"{ct_tree}, but expected to match {main_tree}")
        full = []
        for c, a in zip(ct_leaves, callee.out_avals[:n_main]):
            ca = leaf_aval_and_value(c)[0]
            if ca.shape != a.shape:
                raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to vjp "
                                 f"function: got {ca.str_short()}, but expected "
                                 f"{a.str_short()} because the corresponding output of the "
                                 "function had that type")
            full.append(c if dtypes.is_inexact(a.dtype) else np.zeros(a.shape, a.dtype))
        full += [np.zeros(a.shape, a.dtype) for a in callee.out_avals[n_main:]]
        n_in = len(leaves)
        results = apply_transform(
            Vjp, callee, lambda caps: list(leaves) + caps + full,
            callee.out_avals + in_avals + [c.aval for c in callee.captures])
        in_cts = results[len(callee.out_avals):len(callee.out_avals) + n_in]
        in_cts = [c if dtypes.is_inexact(a.dtype) else _float0_zeros(a)
                  for c, a in zip(in_cts, in_avals)]
        return tree_util.tree_unflatten(in_tree, in_cts)[0]

    if has_aux:
        return out, vjp_fn, aux
    return out, vjp_fn


def linearize(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), f_jvp)`` with ``f_jvp(*tangents)`` the JVP at ``primals``
    (``jax.linearize``); with ``has_aux``, ``fun`` returns ``(out, aux)`` and so does
    this a third value, ``aux``."""
    def f_jvp(*tangents):
        return jvp(fun, primals, tangents, has_aux=has_aux)[1]

    zeros = tree_util.tree_map(lambda x: zeros_for(x) if dtypes.is_inexact(
        leaf_aval_and_value(x)[0].dtype) else _float0_zeros(leaf_aval_and_value(x)[0]),
        primals)
    if has_aux:
        out, _, aux = jvp(fun, primals, zeros, has_aux=True)
        return out, f_jvp, aux
    out, _ = jvp(fun, primals, zeros)
    return out, f_jvp


# ---- Jacobians and Hessians -------------------------------------------------------------------
def _std_basis(avals):
    """One-hot rows for the flattened elements of ``avals``: one leaf per aval, each of
    shape ``(N, *aval.shape)`` with N the total number of elements."""
    sizes = [a.size for a in avals]
    n = sum(sizes)
    dtype = dtypes.result_type(*[a.dtype for a in avals]) if avals else np.float32
    eye = np.eye(n, dtype=dtype)
    out, start = [], 0
    for a, k in zip(avals, sizes):
        out.append(eye[:, start:start + k].reshape((n, *a.shape)).astype(a.dtype))
        start += k
    return out


def _split_rows(x, sizes, leading_shape, avals, axis_last: bool):
    """Splits the flattened-element axis of ``x`` (its last axis when ``axis_last``, else
    its first) into one block per aval."""
    shape = leaf_aval_and_value(x)[0].shape
    axis = len(shape) - 1 if axis_last else 0
    blocks, start = [], 0
    for a, k in zip(avals, sizes):
        lo, hi = [0] * len(shape), list(shape)
        lo[axis], hi[axis] = start, start + k
        part = bind(Slice, x, start_indices=tuple(lo), limit_indices=tuple(hi),
                    strides=(1,) * len(shape))
        new = leading_shape + a.shape if axis_last else a.shape + leading_shape
        blocks.append(bind(Reshape, part, new_sizes=tuple(new)))
        start += k
    return blocks


def _partial_in(fun, args, nums):
    def partial_fun(*w):
        full = list(args)
        for i, v in zip(nums, w):
            full[i] = v
        return fun(*full)

    return partial_fun


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """Jacobian by forward mode: ``vmap`` of ``jvp`` over the standard basis of the inputs
    (``jax.jacfwd``)."""

    def jacfun(*args):
        single, nums = _argnums_tuple(argnums, len(args), "jacfwd")
        wrt = tuple(args[i] for i in nums)
        w_leaves, w_tree = tree_util.tree_flatten(wrt)
        w_avals = [leaf_aval_and_value(x)[0] for x in w_leaves]
        for a in w_avals:
            _check_input_dtype(a, holomorphic, False, "jacfwd")
        partial_fun = _partial_in(fun, args, nums)

        def pushfwd(*basis_leaves):
            tangents = tree_util.tree_unflatten(w_tree, list(basis_leaves))
            return jvp(partial_fun, wrt, tangents, has_aux=has_aux)

        basis = _std_basis(w_avals)
        out_axes = (None, -1, None) if has_aux else (None, -1)
        res = vmap(pushfwd, out_axes=out_axes)(*basis)
        out, jac_flat = res[0], res[1]
        aux = res[2] if has_aux else None
        sizes = [a.size for a in w_avals]
        o_leaves, o_tree = tree_util.tree_flatten(out)
        j_leaves = tree_util.tree_leaves(jac_flat)
        jac = []
        for o, jl in zip(o_leaves, j_leaves):
            blocks = _split_rows(jl, sizes, tuple(np.shape(o)), w_avals, axis_last=True)
            per_input = tree_util.tree_unflatten(w_tree, blocks)
            jac.append(per_input[0] if single else per_input)
        result = tree_util.tree_unflatten(o_tree, jac)
        return (result, aux) if has_aux else result

    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """Jacobian by reverse mode: ``vmap`` of the VJP over the standard basis of the outputs
    (``jax.jacrev``)."""

    def jacfun(*args):
        single, nums = _argnums_tuple(argnums, len(args), "jacrev")
        wrt = tuple(args[i] for i in nums)
        w_leaves, w_tree = tree_util.tree_flatten(wrt)
        w_avals = [leaf_aval_and_value(x)[0] for x in w_leaves]
        for a in w_avals:
            _check_input_dtype(a, holomorphic, allow_int, "jacrev")
        res = vjp(_partial_in(fun, args, nums), *wrt, has_aux=has_aux)
        out, pullback = res[0], res[1]
        aux = res[2] if has_aux else None
        o_leaves, o_tree = tree_util.tree_flatten(out)
        o_avals = [leaf_aval_and_value(x)[0] for x in o_leaves]

        def pull(*basis_leaves):
            return pullback(tree_util.tree_unflatten(o_tree, list(basis_leaves)))

        rows = tree_util.tree_leaves(vmap(pull)(*_std_basis(o_avals)))
        sizes = [a.size for a in o_avals]
        per_output = [[] for _ in o_avals]
        for r, w in zip(rows, w_avals):
            for j, block in enumerate(_split_rows(r, sizes, w.shape, o_avals, False)):
                per_output[j].append(block)
        jac = []
        for blocks in per_output:
            per_input = tree_util.tree_unflatten(w_tree, blocks)
            jac.append(per_input[0] if single else per_input)
        result = tree_util.tree_unflatten(o_tree, jac)
        return (result, aux) if has_aux else result

    return jacfun


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """``jacfwd(jacrev(fun))`` (``jax.hessian``)."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
