"""Host callbacks from the user's side: ``irax.debug.callback``, ``irax.debug.print``,
``irax.pure_callback`` and ``irax.experimental.io_callback``, as JAX defines them.

Each call registers a flat host function (``core/callbacks.py``) wrapping the user's
function (pytrees of arguments, static non-array arguments, ``Array`` values in, the
results checked against ``result_shape_dtypes``) and binds one callback op
(``dialect/callback.py``): eagerly it runs at once, under a trace it becomes part of the
program and runs every time the program does.

    @irax.jit
    def f(x):
        irax.debug.print("x = {}", x)                  # "irax.debug_callback"
        return irax.pure_callback(np.sin, x, x)        # "irax.pure_callback"
"""

from __future__ import annotations

import string
import sys

import numpy as np

from irax.core import callbacks, dtypes, tree_util
from irax.core.abstract import ShapedArray
from irax.dialect.callback import DebugCallback, IoCallback, PureCallback, check_vmap_method
from irax.frontend.callee import fun_origin
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.runtime.array import Array


def _is_dynamic(x) -> bool:
    """Whether a leaf is an array value (traced or concrete) rather than a static one."""
    return isinstance(x, (Tracer, Array, np.ndarray, np.generic, bool, int, float, complex))


def _split(args, kwargs):
    """``(in_tree, dynamic leaves, {position: static leaf})`` of a call's arguments."""
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    static = {i: x for i, x in enumerate(leaves) if not _is_dynamic(x)}
    dynamic = [x for i, x in enumerate(leaves) if i not in static]
    return tree, dynamic, static


def _merge(tree, dynamic, static):
    it = iter(dynamic)
    leaves = [static[i] if i in static else next(it)
              for i in range(len(static) + len(dynamic))]
    return tree_util.tree_unflatten(tree, leaves)


def _key_part(static) -> tuple:
    return tuple(sorted(static.items(), key=lambda kv: kv[0]))


def _bind(op_cls, dynamic, **attrs) -> list:
    """``bind`` of a callback op (which joins the trace being recorded: ``joins_trace``),
    its results as a list."""
    out = bind(op_cls, *dynamic, **attrs)
    return out if isinstance(out, list) else [out]


def _host_arrays(arrays, keep: bool = False) -> list[Array]:
    """The host function's arguments as ``Array`` values. The runtime hands over mapped
    buffers valid during the call only: ``keep`` copies them for callbacks with effects,
    which may keep what they get (a pure function has no reason to)."""
    out = []
    for a in arrays:
        a = np.array(a) if keep else np.asarray(a)
        out.append(Array._from_host(a, ShapedArray(a.shape, a.dtype)))
    return out


# ---- debug.callback and debug.print -------------------------------------------------------
def debug_callback(callback=None, *args, ordered: bool = False, partitioned: bool = False,
                   **kwargs):
    """``jax.debug.callback``: calls ``callback(*args, **kwargs)`` for its effect with the
    arguments' values, inside ``jit`` as outside; ``irax.debug.callback(ordered=True)``
    returns the function to call (JAX's two-call form)."""
    if callback is None:
        if args or kwargs:
            raise TypeError("debug_callback received unexpected arguments in the two-call "
                            f"form: args={args} kwargs={kwargs}")
        return lambda cb, *a, **k: debug_callback(cb, *a, ordered=ordered,
                                                  partitioned=partitioned, **k)
    if not callable(callback):
        raise TypeError("first argument to irax.debug.callback must be callable, but got "
                        f"an object of type {type(callback)}")
    tree, dynamic, static = _split(args, kwargs)

    def flat(arrays, out_avals):
        a, k = _merge(tree, _host_arrays(arrays, keep=True), static)
        callback(*a, **k)
        return []

    index = callbacks.register(flat, ("debug", callback, tree, _key_part(static)))
    _bind(DebugCallback, dynamic, callback=index, ordered=bool(ordered))


class _FormatChecker(string.Formatter):
    """Checks a format string against its arguments without formatting anything."""

    def __init__(self, fmt: str):
        self.fmt = fmt

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"irax.debug.print: unused positional arguments for the format "
                             f"string {self.fmt!r}: {unused}")
        if unused_kw:
            raise ValueError(f"irax.debug.print: unused keyword arguments for the format "
                             f"string {self.fmt!r}: {unused_kw}. You may be passing an "
                             "f-string (f\"{x}\") where a format string (\"{x}\", x=x) "
                             "belongs")


def debug_print(fmt: str | None = None, *args, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False, **kwargs):
    """``jax.debug.print``: prints ``fmt.format(*args, **kwargs)`` with the arguments'
    values when the program runs (a format string without placeholders prints the
    arguments after it, space-separated). Under ``vmap`` it prints once per example, under
    ``grad`` the primal values once."""
    if fmt is None:
        if args or kwargs:
            raise TypeError("debug_print received unexpected arguments in the two-call "
                            f"form: args={args} kwargs={kwargs}")
        return lambda f, *a, **k: debug_print(f, *a, ordered=ordered, partitioned=partitioned,
                                              skip_format_check=skip_format_check, **k)
    if not isinstance(fmt, str):
        raise TypeError(f"irax.debug.print: the format must be a str, got {type(fmt).__name__}")
    if not skip_format_check:
        _check_format(fmt, args, kwargs)
    placeholders = any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))
    options = tuple(np.get_printoptions().items())

    def show(*a, **k):
        with np.printoptions(**dict(options)):
            try:
                text = fmt.format(*a, **k) if placeholders else \
                    " ".join((fmt, *(str(x) for x in a)))
            except (ValueError, TypeError, IndexError, KeyError) as e:
                raise ValueError(f"irax.debug.print: cannot format {fmt!r} with its "
                                 f"values: {e}") from None
        sys.stdout.write(text + "\n")

    show.__qualname__ = f"debug.print({fmt!r})"
    tree, dynamic, static = _split(args, kwargs)

    def flat(arrays, out_avals):
        a, k = _merge(tree, _host_arrays(arrays), static)    # formatted at once: no copy
        show(*a, **k)
        return []

    index = callbacks.register(flat, ("print", fmt, options, tree, _key_part(static)))
    _bind(DebugCallback, dynamic, callback=index, ordered=bool(ordered))


def _check_format(fmt: str, args, kwargs) -> None:
    try:
        _FormatChecker(fmt).format(fmt, *args, **kwargs)
    except ValueError as e:
        if str(e).startswith("irax.debug.print"):
            raise
        raise ValueError(f"irax.debug.print: invalid format string {fmt!r}: {e}") from None
    except (IndexError, KeyError) as e:
        raise ValueError(f"irax.debug.print: the format string {fmt!r} names an argument "
                         f"that was not given: {e}") from None


# ---- pure_callback and io_callback --------------------------------------------------------
def _result_avals(api: str, result_shape_dtypes):
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(f"{api}: result_shape_dtypes must be a pytree of values with "
                            f"shape and dtype (irax.ShapeDtypeStruct), got {leaf!r}")
        dt = np.dtype(leaf.dtype)
        if dtypes.canonicalize_dtype(dt) != dt:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                             "`jax_enable_x64` is disabled")
        avals.append(ShapedArray(tuple(leaf.shape), dt))
    return tree, avals


def _checked(api: str, name: str, result, out_avals) -> list[np.ndarray]:
    """The callback's results as NumPy arrays of ``out_avals``; the error names the
    callback and says expected vs got."""
    leaves = tree_util.tree_leaves(result)
    if len(leaves) != len(out_avals):
        raise RuntimeError(f"{api}: the callback {name} returned {len(leaves)} values, "
                           f"expected {len(out_avals)} (result_shape_dtypes)")
    outs = []
    for i, (value, aval) in enumerate(zip(leaves, out_avals)):
        arr = np.asarray(value)
        arr = arr.astype(dtypes.canonicalize_dtype(arr.dtype), copy=False)
        if arr.shape != aval.shape:
            raise RuntimeError(f"{api}: the callback {name} returned a value of shape "
                               f"{arr.shape} for result #{i}, expected shape {aval.shape}")
        if arr.dtype != aval.dtype:
            raise RuntimeError(f"{api}: the callback {name} returned a value of dtype "
                               f"{arr.dtype} for result #{i}, expected dtype {aval.dtype}")
        outs.append(arr)
    return outs


def _value_callback(api, op_cls, callback, result_shape_dtypes, args, kwargs,
                    keep: bool | None = None, **attrs):
    if not callable(callback):
        raise TypeError(f"{api}: the callback must be callable, got {type(callback)}")
    out_tree, out_avals = _result_avals(api, result_shape_dtypes)
    tree, dynamic, static = _split(args, kwargs)
    name = fun_origin(callback, qualified=True)

    keep = op_cls is not PureCallback if keep is None else keep

    def flat(arrays, avals):
        a, k = _merge(tree, _host_arrays(arrays, keep), static)
        return _checked(api, name, callback(*a, **k), avals)

    kind = op_cls.name
    index = callbacks.register(flat, (kind, callback, tree, _key_part(static)))
    outs = _bind(op_cls, dynamic, callback=index, result_types=tuple(out_avals), **attrs)
    return tree_util.tree_unflatten(out_tree, outs)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None,
                  vmap_method: str | None = None, **kwargs):
    """``jax.pure_callback``: the results of a pure host function of the arguments'
    values, shaped as ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``). It may
    run any number of times, or not at all when its results are unused; ``vmap`` maps it
    by ``vmap_method`` ("sequential", "sequential_unrolled", "expand_dims",
    "broadcast_all"); it has no derivative (wrap it in ``custom_jvp``)."""
    method = check_vmap_method(vmap_method)
    return _value_callback("irax.pure_callback", PureCallback, callback, result_shape_dtypes,
                           args, kwargs, vmap_method=method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered: bool = False,
                **kwargs):
    """``jax.experimental.io_callback``: a host function with side effects; it runs exactly
    once per execution, in program order with the other effectful callbacks."""
    return _value_callback("irax.experimental.io_callback", IoCallback, callback,
                           result_shape_dtypes, args, kwargs, ordered=bool(ordered))


def borrowing_io_callback(callback, result_shape_dtypes, *args, ordered: bool = False):
    """``io_callback`` whose callback gets the runtime's mapped views of the arguments'
    buffers, valid until it returns, instead of copies: for irax's own callbacks that
    read their arguments only before they return (the collectives of a shard_map run on
    threads, ``transforms/spmd.py``)."""
    return _value_callback("irax.experimental.io_callback", IoCallback, callback,
                           result_shape_dtypes, args, {}, keep=False, ordered=bool(ordered))
