"""Structured control flow (``jax.lax.cond``, ``switch``, ``while_loop``, ``fori_loop``,
``scan``, ``map``, ``associative_scan``, ``select_n``) as irax region ops.

Each function is traced once, abstractly (Python control flow on its traced arguments
raises, as in JAX); values it closes over become explicit operands of the op. Outside any
trace the op runs at once on the reference interpreter.
"""

from __future__ import annotations

import collections
import threading

import numpy as np

from irax.core import dtypes, tree_util
from irax.core.abstract import ShapedArray
from irax.core.config import config
from irax.dialect.control_flow import Cond, Scan, While
from irax.dialect.elementwise import Compare, Convert, Select
from irax.frontend import eager
from irax.frontend.callee import (
    fun_name,
    fun_symbol,
    leaf_aval_and_value,
    shared_captures,
    trace_callee,
)
from irax.frontend.compile import compiled_function, execute
from irax.frontend.trace import Trace, bind, current_trace
from irax.frontend.tracer import Tracer
from irax.lax import _shape as S
from irax.lax import _util as U
from irax.lax._shape_more import index_in_dim, stack
from irax.runtime.array import Array, committed_device, committed_to
from irax.runtime.compiler import carries
from irax.transforms import split_loops
from irax.transforms.specializations import on_clear_caches
from irax.transforms.vectorize import vmap


def _avals(leaves):
    return [leaf_aval_and_value(x)[0] for x in leaves]


#: eager control flow already compiled: (api, the user's functions, static arguments,
#: operand types, traced configuration) -> (program, what tracing recorded). Like JAX,
#: which caches the traces of loop bodies by function identity, a function is not traced
#: again: values it reads from globals or closures are those of its first trace.
_EAGER: collections.OrderedDict = collections.OrderedDict()
_EAGER_MAX = 64
_EAGER_LOCK = threading.Lock()   # eager loops may run on several threads at once


def _run(build, operands, api: str, key=None, state=None):
    """``_run_here``, whose eager results are committed where the operands are (as JAX's:
    a loop on committed arrays runs on their device)."""
    if current_trace() is not None:
        return build(list(operands))
    home = committed_device(operands, api)
    if eager.sharded(operands):   # jitted, sharded as the partitioner lays it out
        return eager.SHARDED[1](lambda *ops: build(list(ops)), list(operands))
    return committed_to(_run_here(build, operands, api, key, state), home)


def _run_here(build, operands, api: str, key=None, state=None):
    """``build(operand_tracers) -> output tracers`` inside the current trace, or eagerly: in
    a fresh trace whose function is then compiled (once: the compile cache knows it by its
    content) and run, as JAX runs control flow outside jit; with
    ``irax_eager_control_flow_compiled`` off, or for dtypes IREE cannot carry, it runs on
    the reference interpreter instead. ``key``: what identifies the program besides its
    operands' types (the user's functions and static arguments), to run it again without
    tracing; ``state``: a dict ``build`` fills while tracing, restored on such a hit.

    Arrays the functions close over become arguments of the program, not constants in it
    (JAX's hoisted consts): a closure made afresh for each call, as an optimizer's update
    makes its ``cond`` branches, is traced again but compiled once."""
    if current_trace() is not None:
        return build(list(operands))
    pairs = [leaf_aval_and_value(x) for x in operands]
    compiled = config.irax_eager_control_flow_compiled
    if key is not None and compiled and all(v is not None for _, v in pairs):
        key = (api, key, tuple(a for a, _ in pairs), config.trace_key)
        try:
            with _EAGER_LOCK:
                hit = _EAGER.get(key)
                if hit is not None:
                    _EAGER.move_to_end(key)
        except TypeError:        # an unhashable static part: no reuse
            key = hit = None
        if hit is not None:
            spec, saved, hoisted = hit
            if state is not None:
                state.update(saved)
            return execute(spec, list(operands) + hoisted)
    else:
        key = None
    with Trace(origin=api, name="main", hoist=_hoistable) as t:
        outs = build([t.add_argument(a) for a, _ in pairs])
        t.finish(outs)
        out_avals = t.out_avals
    hoisted = list(t.hoisted)     # concrete Arrays of carried dtypes (``_hoistable``)
    if compiled and _compilable(pairs, out_avals):
        avals = [a for a, _ in pairs] + [x.aval for x in hoisted]
        # (a heavy loop's body a program of its own on the pool: split_loops.py)
        spec = compiled_function(t.module, "main", avals, out_avals, api, split_loops.split)
        if key is not None:
            with _EAGER_LOCK:
                _EAGER[key] = (spec, dict(state or {}), hoisted)
                while len(_EAGER) > _EAGER_MAX:
                    _EAGER.popitem(last=False)
        return execute(spec, list(operands) + hoisted)
    values = eager.evaluate(t.module, "main", [v for _, v in pairs] +
                            [leaf_aval_and_value(x)[1] for x in hoisted])
    return [Array._from_host(np.asarray(v), a) for v, a in zip(values, out_avals)]


def _hoistable(x):
    """The type of an outside value an eager control-flow program takes as an argument (an
    irax Array of a dtype IREE carries), or None: it stays a constant."""
    if type(x) is not Array:
        return None
    aval = x.aval
    return aval if carries(aval.dtype) else None


def clear_eager_cache() -> None:
    """Forgets the compiled eager control flow (``irax.clear_caches``)."""
    with _EAGER_LOCK:
        _EAGER.clear()


on_clear_caches(clear_eager_cache)


def _python_mode(*values) -> bool:
    """Whether control flow runs as Python (``irax.disable_jit``): outside any trace, on
    concrete values, as JAX does."""
    return config.jax_disable_jit and current_trace() is None and \
        all(leaf_aval_and_value(v)[1] is not None for v in values)


def _as_array(x):
    if isinstance(x, Array):
        return x
    return U.host_array(U.host_data(x), U.aval_of(x).weak_type)


def _python_scan(f, init, x_leaves, x_tree, n: int, reverse: bool):
    """``scan`` under ``disable_jit``: a Python loop over the leading axis, ys stacked."""
    if n == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                         "the output type is unknown.")
    order = range(n - 1, -1, -1) if reverse else range(n)
    carry, ys = init, []
    for i in order:
        x = tree_util.tree_unflatten(x_tree, [index_in_dim(v, i, keepdims=False)
                                              for v in x_leaves])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, tree_util.tree_map(lambda *y: stack([_as_array(v) for v in y]), *ys)


def _compilable(pairs, out_avals) -> bool:
    """Whether an eager control-flow program can run compiled: IREE carries its dtypes, and
    its operands are concrete (tracers of an outer eager transformation run it in place)."""
    avals = [a for a, _ in pairs] + list(out_avals)
    return all(carries(a.dtype) for a in avals) and all(v is not None for _, v in pairs)


def _trace(fun, avals, in_tree, api: str):
    """Traces ``fun`` on abstract arguments into a private function (captures allowed)."""
    return trace_callee(fun, list(avals), in_tree, fun_symbol(fun), f"{api} of {fun_name(fun)}",
                        in_avals=list(avals), concrete=False)


def _strong(aval: ShapedArray) -> ShapedArray:
    return aval.strip_weak()


# ---- cond / switch -----------------------------------------------------------------------------
def switch(index, branches, *operands, _names=None):
    """``branches[clamp(index, 0, len(branches) - 1)](*operands)`` (``jax.lax.switch``)."""
    branches = list(branches)
    if not branches:
        raise ValueError("switch: empty branch sequence")
    idx_aval = leaf_aval_and_value(index)[0]
    if idx_aval.shape != () or not (dtypes.is_int(idx_aval.dtype) or
                                    dtypes.is_bool(idx_aval.dtype)):
        raise TypeError(f"switch: index must be a scalar integer, got {idx_aval.str_short()}")
    if _python_mode(index):
        i = int(np.clip(int(leaf_aval_and_value(index)[1]), 0, len(branches) - 1))
        return branches[i](*operands)
    leaves, in_tree = tree_util.tree_flatten((tuple(operands), {}))
    avals = [_strong(a) for a in _avals(leaves)]
    found = {}

    def build(ops):
        idx, args = ops[0], ops[1:]
        callees = [_trace(f, avals, in_tree, "switch") for f in branches]
        out0 = callees[0]
        for i, c in enumerate(callees[1:], start=1):
            if c.out_tree != out0.out_tree or [_strong(a) for a in c.out_avals] != \
                    [_strong(a) for a in out0.out_avals]:
                first, other = (_names or ("branch 0", f"branch {i}"))[0], \
                    (_names[i] if _names else f"branch {i}")
                raise TypeError(
                    f"cond branches must have equal output types but they differ: {first} "
                    f"returns {_describe(out0)}, but {other} returns {_describe(c)}.")
        consts, index = shared_captures(callees)
        n_args = len(args)
        block_avals = [_strong(x.aval) for x in consts] + avals
        regions = []
        for c in callees:
            arg_map = list(range(len(consts), len(consts) + n_args)) + \
                [index[id(x)] for x in c.captures]
            regions.append((block_avals, c.trace.func_op, arg_map))
        i32 = bind_convert(idx, np.int32)
        outs = current_trace().emit_region_op(Cond, [i32] + consts + list(args), regions,
                                         [_strong(a) for a in out0.out_avals], {})
        found["out_tree"] = out0.out_tree
        return outs

    outs = _run(build, [index] + leaves, "switch")
    return tree_util.tree_unflatten(found["out_tree"], outs)


def _describe(callee) -> str:
    avals = tree_util.tree_unflatten(callee.out_tree, [a.str_short() for a in callee.out_avals])
    return str(avals).replace("'", "")


def bind_convert(x, dtype):
    aval = leaf_aval_and_value(x)[0]
    return x if aval.dtype == dtype and not aval.weak_type else \
        bind(Convert, x, new_dtype=np.dtype(dtype))


def cond(pred, true_fun, false_fun, *operands, operand=None):
    """``true_fun(*operands) if pred else false_fun(*operands)`` (``jax.lax.cond``)."""
    if operand is not None:
        operands = (operand,)
    p_aval = leaf_aval_and_value(pred)[0]
    if p_aval.shape != ():
        raise TypeError(f"Pred must be a scalar, got {pred!r} of shape {p_aval.shape}.")
    if not (dtypes.is_bool(p_aval.dtype) or dtypes.is_int(p_aval.dtype)):
        raise TypeError(f"Pred type must be either boolean or number, got {p_aval.dtype}.")
    if dtypes.is_bool(p_aval.dtype):
        index = pred
    else:
        index = bind(Compare, pred, np.zeros((), p_aval.dtype), direction="NE")
    return switch(index, [false_fun, true_fun], *operands, _names=("false_fun", "true_fun"))


# ---- while_loop / fori_loop ----------------------------------------------------------------------
def while_loop(cond_fun, body_fun, init_val, *, _key=None):
    """``while cond_fun(val): val = body_fun(val)`` (``jax.lax.while_loop``).

    Differentiable in forward and reverse mode; reverse mode works with a data-dependent
    trip count (see ``docs/control_flow.md`` for its memory/time trade-off)."""
    if _python_mode():
        val = tree_util.tree_map(_as_array, init_val)
        while bool(cond_fun(val)):
            val = body_fun(val)
        return val
    leaves, tree = tree_util.tree_flatten(init_val)
    avals = [_strong(a) for a in _avals(leaves)]
    in_tree = tree_util.tree_structure(((init_val,), {}))

    def build(carry):
        c_fn = _trace(cond_fun, avals, in_tree, "while_loop cond")
        b_fn = _trace(body_fun, avals, in_tree, "while_loop body")
        pred = c_fn.out_avals
        if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != np.bool_:
            got = tree_util.tree_unflatten(c_fn.out_tree, [a.str_short() for a in pred])
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                            f"{got}.")
        _check_carry("while_loop body", b_fn.out_tree, b_fn.out_avals, tree, avals)
        consts, index = shared_captures([c_fn, b_fn])
        k = len(consts)
        block_avals = [_strong(x.aval) for x in consts] + avals
        regions = []
        for c in (c_fn, b_fn):
            arg_map = list(range(k, k + len(avals))) + [index[id(x)] for x in c.captures]
            regions.append((block_avals, c.trace.func_op, arg_map))
        return current_trace().emit_region_op(While, consts + list(carry), regions, avals,
                                         {"num_consts": k})

    outs = _run(build, leaves, "while_loop", key=_key or (cond_fun, body_fun, tree))
    return tree_util.tree_unflatten(tree, outs)


def _check_carry(what, out_tree, out_avals, tree, avals):
    """JAX's error for a loop body whose output carry differs from its input carry, naming
    each differing component."""
    out_avals = [_strong(a) for a in out_avals]
    if out_tree != tree or out_avals != avals:
        paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(
            tree_util.tree_unflatten(tree, avals))[0]]
        detail = []
        if out_tree != tree:
            detail.append(f"the input carry has structure {tree} but the output has "
                          f"{out_tree}")
        else:
            for path, a, b in zip(paths, avals, out_avals):
                if a != b:
                    detail.append(f"the input carry component carry{path} has type "
                                  f"{a.str_short()} but the corresponding output carry "
                                  f"component has type {b.str_short()}")
        raise TypeError(f"{what} function carry input and carry output must have equal "
                        "types, but they differ:\n  * " + "\n  * ".join(detail))


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)`` (``jax.lax.fori_loop``).
    Static bounds become a ``scan`` (reverse-differentiable like JAX's; ``unroll`` is
    checked as ``scan``'s); traced bounds a ``while_loop``, which takes no ``unroll``
    (JAX's error)."""
    lo, hi = leaf_aval_and_value(lower), leaf_aval_and_value(upper)
    dt = _bounds_dtype(lo[0], hi[0])
    static = lo[1] is not None and hi[1] is not None and not _traced(lower, upper)
    if static:  # as JAX: the counter is the Python int lower bound (a weak int)
        lo_v, hi_v = int(lo[1]), int(hi[1])

        def step(carry, _):
            i, val = carry
            return (i + 1, body_fun(i, val)), None

        (_, out), _ = scan(step, (lo_v, init_val), None, length=max(hi_v - lo_v, 0),
                           unroll=False if unroll is None else unroll,
                           _key=("fori", body_fun, lo_v))
        return out
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")

    def c(state):
        i, upper_, _ = state
        return i < upper_

    def b(state):
        i, upper_, val = state
        return i + 1, upper_, body_fun(i, val)

    _, _, out = while_loop(c, b, (U.convert(lower, dt), U.convert(upper, dt), init_val),
                           _key=("fori", body_fun, tree_util.tree_structure(init_val)))
    return out


def _bounds_dtype(lo: ShapedArray, hi: ShapedArray):
    """JAX's rule: both bounds of one dtype, or two signed integers of which one is weak."""
    if lo.dtype == hi.dtype:
        return lo.dtype
    if lo.dtype.kind == hi.dtype.kind == "i" and lo.weak_type != hi.weak_type:
        return hi.dtype if lo.weak_type else lo.dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{dtypes.short_name(lo.dtype)} and {dtypes.short_name(hi.dtype)}")


def _check_unroll(unroll) -> None:
    if isinstance(unroll, Tracer) or not isinstance(unroll, (bool, int, np.integer)):
        raise TypeError("The `unroll` argument to `scan` expects a concrete `int` or "
                        f"`bool` value, got {unroll!r}")
    if unroll < 0:
        raise ValueError(f"`unroll` must be a `bool` or a non-negative `int`, got {unroll}.")


def _traced(*xs) -> bool:
    return any(isinstance(x, Tracer) and x._concrete is None for x in xs)


# ---- scan / map ---------------------------------------------------------------------------
def scan(f, init, xs=None, length=None, reverse: bool = False, unroll=1,
         _split_transpose: bool = False, *, _key=None):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs`` (``jax.lax.scan``).
    Returns ``(final carry, stacked ys)``. ``unroll`` is checked as JAX does (a concrete
    bool or non-negative int), then left to the compiler."""
    _check_unroll(unroll)
    c_leaves, c_tree = tree_util.tree_flatten(init)
    x_leaves, x_tree = tree_util.tree_flatten(xs)
    c_avals = [_strong(a) for a in _avals(c_leaves)]
    x_avals = [_strong(a) for a in _avals(x_leaves)]
    lengths = {a.shape[0] for a in x_avals if a.shape}
    if any(not a.shape for a in x_avals):
        raise ValueError("scan got value with no leading axis to scan over: "
                         + ", ".join(a.str_short() for a in x_avals if not a.shape))
    if length is not None:
        lengths.add(int(length))
    if len(lengths) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         + ", ".join(str(a.shape[0]) for a in x_avals)
                         + (f" and length={length}" if length is not None else ""))
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    n = lengths.pop()
    if _python_mode():
        return _python_scan(f, init, x_leaves, x_tree, n, reverse)
    slices = [a.update(shape=a.shape[1:]) for a in x_avals]
    trees = {}

    def flat_body(*args):
        carry = tree_util.tree_unflatten(c_tree, list(args[:len(c_avals)]))
        x = tree_util.tree_unflatten(x_tree, list(args[len(c_avals):]))
        out = f(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"scan body output must be a pair (carry, y), got {out!r}")
        new_carry, y = out
        trees["carry"] = tree_util.tree_structure(new_carry)
        trees["y"] = tree_util.tree_structure(y)
        trees["carry_avals"] = [_strong(leaf_aval_and_value(v)[0])
                                for v in tree_util.tree_leaves(new_carry)]
        return tree_util.tree_leaves(new_carry) + tree_util.tree_leaves(y)

    flat_tree = tree_util.tree_structure((tuple(range(len(c_avals) + len(x_avals))), {}))

    def build(ops):
        carry, xs_ = ops[:len(c_avals)], ops[len(c_avals):]
        callee = _trace(flat_body, c_avals + slices, flat_tree, "scan")
        _check_carry("scan body", trees["carry"], trees["carry_avals"], c_tree, c_avals)
        y_avals = [_strong(a) for a in callee.out_avals[len(c_avals):]]
        consts, index = shared_captures([callee])
        k = len(consts)
        block_avals = [_strong(x.aval) for x in consts] + c_avals + slices
        arg_map = list(range(k, k + len(c_avals) + len(slices))) + \
            [index[id(x)] for x in callee.captures]
        results = c_avals + [a.update(shape=(n, *a.shape)) for a in y_avals]
        return current_trace().emit_region_op(
            Scan, consts + list(carry) + list(xs_), [(block_avals, callee.trace.func_op,
                                                      arg_map)],
            results, {"num_consts": k, "num_carry": len(c_avals), "length": n,
                      "reverse": bool(reverse)})

    outs = _run(build, c_leaves + x_leaves, "scan", state=trees,
                key=(_key or f, c_tree, x_tree, n, bool(reverse)))
    carry = tree_util.tree_unflatten(c_tree, outs[:len(c_avals)])
    ys = tree_util.tree_unflatten(trees["y"], outs[len(c_avals):])
    return carry, ys


def map(f, xs, *, batch_size: int | None = None):  # noqa: A001 - JAX's name
    """``stack([f(x) for x in xs])`` as a scan (``jax.lax.map``); ``batch_size`` maps
    groups of that many elements with ``vmap`` inside each step."""
    if batch_size is None:
        return scan(lambda c, x: (c, f(x)), (), xs, _key=("map", f))[1]
    leaves, tree = tree_util.tree_flatten(xs)
    n = leaves[0].shape[0]
    full, rem = divmod(n, batch_size)
    head = [S.reshape(S.slice_in_dim(x, 0, full * batch_size), (full, batch_size, *x.shape[1:]))
            for x in leaves]
    ys = scan(lambda c, x: (c, vmap(f)(x)), (), tree_util.tree_unflatten(tree, head))[1]
    ys = tree_util.tree_map(lambda y: S.reshape(y, (full * batch_size, *y.shape[2:])), ys)
    if rem:
        tail = vmap(f)(tree_util.tree_unflatten(
            tree, [S.slice_in_dim(x, full * batch_size, None) for x in leaves]))
        ys = tree_util.tree_map(lambda a, b: S.concatenate([a, b], 0), ys, tail)
    return ys


# ---- associative_scan / select_n ------------------------------------------------------------
def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """Inclusive scan with an associative ``fn`` (``jax.lax.associative_scan``), by the
    odd/even recursion: O(log n) levels of slicing and ``fn`` applications."""
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        return elems
    leaves = [_moveaxis(U.as_operand(x), axis, 0) for x in leaves]
    if reverse:
        leaves = [S.rev(x, (0,)) for x in leaves]

    def combine(a, b):
        return tree_util.tree_leaves(fn(tree_util.tree_unflatten(tree, a),
                                        tree_util.tree_unflatten(tree, b)))

    def rec(xs):
        n = xs[0].shape[0]
        if n < 2:
            return xs
        pairs = combine([S.slice_in_dim(x, 0, n - 1, 2) for x in xs],
                        [S.slice_in_dim(x, 1, None, 2) for x in xs])
        odd = rec(pairs)
        evens = [S.slice_in_dim(x, 2, None, 2) for x in xs]
        if n % 2 == 0:
            even = combine([S.slice_in_dim(o, 0, -1) for o in odd], evens)
        else:
            even = combine(odd, evens)
        even = [S.concatenate([S.slice_in_dim(x, 0, 1), e], 0) for x, e in zip(xs, even)]
        return [_interleave(e, o, n) for e, o in zip(even, odd)]

    out = rec(leaves)
    if reverse:
        out = [S.rev(x, (0,)) for x in out]
    out = [_moveaxis(x, 0, axis) for x in out]
    return tree_util.tree_unflatten(tree, out)


def _moveaxis(x, src: int, dst: int):
    rank = U.aval_of(x).ndim
    src, dst = U.canonicalize_axis(src, rank), U.canonicalize_axis(dst, rank)
    order = [d for d in range(rank) if d != src]
    order.insert(dst, src)
    return U.transpose(x, order)


def _interleave(even, odd, n):
    """``[even[0], odd[0], even[1], odd[1], ...]`` along axis 0 (``even`` may have one
    more)."""
    m = odd.shape[0]
    pairs = S.concatenate([S.expand_dims(S.slice_in_dim(even, 0, m), (1,)),
                           S.expand_dims(odd, (1,))], 1)
    pairs = S.reshape(pairs, (2 * m, *odd.shape[1:]))
    return S.concatenate([pairs, S.slice_in_dim(even, m, None)], 0) if n % 2 else pairs


def select_n(which, *cases):
    """``cases[which]`` elementwise (``jax.lax.select_n``); ``which`` is bool or int32."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    w_aval = leaf_aval_and_value(which)[0]
    if len(cases) == 1:
        return cases[0]
    if dtypes.is_bool(w_aval.dtype):
        if len(cases) != 2:
            raise TypeError("select_n with a boolean `which` takes exactly two cases")
        return bind(Select, which, cases[1], cases[0])
    out = cases[0]
    for i, c in enumerate(cases[1:], start=1):
        take = bind(Compare, which, np.full(w_aval.shape, i, w_aval.dtype), direction="EQ")
        out = bind(Select, take, c, out)
    return out

