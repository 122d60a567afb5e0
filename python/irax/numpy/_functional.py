"""Functional programming helpers (``jax.numpy`` compatible): ``vectorize``,
``apply_along_axis``, ``apply_over_axes`` and ``piecewise``, all built on ``irax.vmap`` as
JAX's are.

    @jnp.vectorize
    def f(a, b): ...                       # elementwise over broadcast a, b

    jnp.vectorize(jnp.dot, signature="(n),(n)->()")(x, y)   # core dims stay whole
    jnp.apply_along_axis(jnp.sort, 1, x)
    jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, 1.0, lambda v: v])

The wrapped functions are traced once per example, so Python control flow on their
(mapped) arguments raises as under ``jax.vmap``.
"""

from __future__ import annotations

import functools
import re

from irax.lax import _control as LC
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import array, asarray, zeros_like
from irax.numpy._reductions import argmax, cumsum
from irax.numpy._shape import concatenate, expand_dims, squeeze
from irax.transforms.vectorize import vmap

_DIM = r"\w+"
_CORE_DIMS = f"(?:{_DIM}(?:,{_DIM})*)?"
_ARGUMENT = rf"\({_CORE_DIMS}\)"
_ARGUMENTS = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENTS}->{_ARGUMENTS}$"


# ---- vectorize ---------------------------------------------------------------------------------
def _parse_signature(signature: str):
    """The core dimension names of each input and each output of a gufunc signature."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return ([tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARGUMENT, part)]
            for part in signature.split("->"))


def _update_dim_sizes(sizes, shape, core_dims, context, *, is_input: bool) -> None:
    n = len(core_dims)
    if is_input and len(shape) < n:
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core_dims!r} {context}")
    if not is_input and len(shape) != n:
        raise ValueError(f"output shape {shape!r} does not match core dimensions "
                         f"{core_dims!r} {context}")
    for dim, size in zip(core_dims, shape[len(shape) - n:] if n else ()):
        if sizes.setdefault(dim, size) != size:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs "
                             f"{sizes[dim]!r} {context}")


def _loop_shape(args, input_core_dims, context):
    """The broadcast shape of the non-core dims, and the size of each core dim."""
    if len(args) != len(input_core_dims):
        raise TypeError(f"wrong number of positional arguments: expected "
                        f"{len(input_core_dims)!r}, got {len(args)!r} {context}")
    shapes, sizes = [], {}
    for arg, core in zip(args, input_core_dims):
        s = U.aval_of(arg).shape
        _update_dim_sizes(sizes, s, core, context, is_input=True)
        shapes.append(s[:len(s) - len(core)])
    try:
        return U.broadcast_shapes("vectorize", *shapes), sizes
    except TypeError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None


def _checked_outputs(func, sizes, output_core_dims, context):
    def wrapped(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else [out]
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, "
                            f"got: {out!r}\n{context}")
        if len(outs) != len(output_core_dims):
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(output_core_dims)!r}, got {len(outs)!r} {context}")
        found = dict(sizes)
        for o, core in zip(outs, output_core_dims):
            _update_dim_sizes(found, U.aval_of(o).shape, core, context, is_input=False)
        return out
    return wrapped


def _apply_excluded(func, excluded, args, kwargs):
    """``func`` with the excluded positional and keyword arguments bound (not vectorized)."""
    if not excluded:
        return func, args, kwargs
    dynamic = [a for i, a in enumerate(args) if i not in excluded]
    dynamic_kw = {k: v for k, v in kwargs.items() if k not in excluded}
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
              if i < len(args)]
    static_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def bound(*a, **kw):
        a = list(a)
        for i, v in static:
            a.insert(i, v)
        return func(*a, **kw, **static_kw)

    return bound, dynamic, dynamic_kw


def vectorize(pyfunc, *, excluded=frozenset(), signature: str | None = None):
    """``pyfunc`` vectorized over its broadcast arguments by ``irax.vmap``
    (``jax.numpy.vectorize``): ``signature`` names core dims (``"(n),(n)->()"``) that stay
    whole, ``excluded`` positions or names are passed through unchanged."""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, but "
                        f"excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = (f"on vectorized function with excluded={excluded!r} and "
                   f"signature={signature!r}")
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            input_core, output_core = _parse_signature(signature)
        else:
            input_core, output_core = [()] * len(args), None
        nones = {i for i, a in enumerate(args) if a is None}
        if any(nones):  # JAX's test: a None first argument is not excluded
            if any(input_core[i] != () for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with "
                                 f"signature={signature!r}")
            func, args, _ = _apply_excluded(func, nones, args, {})
            input_core = [d for i, d in enumerate(input_core) if i not in nones]
        args = tuple(asarray(a) for a in args)
        loop, sizes = _loop_shape(args, input_core, context)
        checked = func if output_core is None else _checked_outputs(func, sizes, output_core,
                                                                    context)
        return _vmap_loop(checked, args, input_core, loop, kwargs)

    return wrapped


def _vmap_loop(func, args, input_core, loop, kwargs):
    squeezed, rev_shapes = [], []
    for arg, core in zip(args, input_core):
        s = U.aval_of(arg).shape
        noncore = s[:len(s) - len(core)]
        rev_shapes.append(((1,) * (len(loop) - len(noncore)) + noncore)[::-1])
        squeezed.append(squeeze(arg, axis=tuple(i for i, d in enumerate(noncore) if d == 1)))
    mapped = functools.partial(func, **kwargs) if kwargs else func
    expand = []
    for negdim, sizes in enumerate(zip(*rev_shapes)):
        in_axes = tuple(None if d == 1 else 0 for d in sizes)
        if all(a is None for a in in_axes):
            expand.append(len(loop) - 1 - negdim)
        else:
            mapped = vmap(mapped, in_axes)
    result = mapped(*squeezed)
    if not expand:
        return result
    if isinstance(result, tuple):
        return tuple(expand_dims(r, axis=expand) for r in result)
    return expand_dims(result, axis=expand)


# ---- apply_along_axis, apply_over_axes ---------------------------------------------------------
def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (nested vmaps); the
    result's dims replace ``axis``."""
    U.check_arraylike("apply_along_axis", arr)
    nd = U.aval_of(arr).ndim
    axis = LU.canonicalize_axis(axis, nd)

    def func(a):
        return func1d(a, *args, **kwargs)

    for i in range(1, nd - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each of ``axes`` in turn, keeping the rank (a reduced
    axis is put back with size 1)."""
    x = U.as_array("apply_over_axes", a)
    for axis in axes:
        b = func(x, axis)
        nb, nx = U.aval_of(b).ndim, U.aval_of(x).ndim
        if nb == nx:
            x = b
        elif nb == nx - 1:
            x = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return x


# ---- piecewise ---------------------------------------------------------------------------------
def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i]`` (a function of ``x`` or a constant) where ``condlist[i]`` holds (the
    last true condition wins); an extra last entry gives the default, else 0."""
    xa = U.as_array("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    conds = asarray(condlist, dtype=bool)
    first = zeros_like(conds[:1]) if U.aval_of(conds).ndim else zeros_like(conds)
    index = argmax(cumsum(concatenate([first, conds], 0), 0), 0)
    dt = U.aval_of(xa).dtype

    def branch(f):
        if callable(f):
            return lambda v: LU.convert(f(v, *args, **kw), dt)
        return lambda v: array(f, dtype=dt)

    return vectorize(LC.switch, excluded=(1,))(index, [branch(f) for f in funclist], xa)
