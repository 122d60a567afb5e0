"""Eager evaluation: what ``bind`` does outside any trace, and how a transformation or a
region op called outside ``jit`` runs at once.

An op on concrete values runs its class's NumPy rule (``eager_op``): eager mode *is* the
reference interpreter, op by op. A transformation (``grad`` outside ``jit``) or a loop
(``lax.while_loop`` on concrete values) is first recorded as IR; ``evaluate`` then
expands it with the ``irax-eager`` pipeline and runs it on the interpreter:

    scratch = copy_functions(module, "f")              # @f and what it calls
    main = add_entry(scratch, Grad, [x_aval], [g_aval], callee="f", argnums=(0,))
    evaluate(scratch, main, [x])                       # [array(...)]
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.config import config
from irax.core.errors import OutOfMemoryError, byte_count
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError
from irax.dialect.builder import IRBuilder
from irax.dialect.interpreter import evaluate_function
from irax.passes import pipelines, run_pipeline
from irax.runtime.array import Array, committed_device


def concrete_value(x) -> tuple[np.ndarray, ShapedArray]:
    """NumPy data and abstract value of a concrete input (Array, ndarray, Python scalar)."""
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        dtype, weak = dtypes.dtype_and_weak(x)
        if type(x) is int:
            dtypes.check_python_int(x, dtype, "irax")
        arr = np.asarray(x, dtype=dtype)
        return arr, ShapedArray((), dtype, weak)
    aval = getattr(x, "aval", None)
    if aval is not None and hasattr(x, "_numpy"):
        return x._numpy(), aval
    if isinstance(x, (np.ndarray, np.generic)):
        dt = dtypes.canonicalize_dtype(x.dtype)
        arr = np.asarray(x, dtype=dt)
        return arr, ShapedArray(arr.shape, dt, False)
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid irax type")


#: How eager computations on arrays sharded over several devices run, as JAX runs them:
#: jitted, partitioned by their shardings, so that their results keep shardings
#: (``transforms/eager_sharded.py`` sets both): ``[op(op_cls, args, attrs) -> results,
#: run(fn, args) -> fn(*args) jitted]``
SHARDED: list = [None, None]


def sharded(args) -> bool:
    """Whether an argument is an array sharded over several devices."""
    for a in args:
        if type(a) is Array and a._shards is not None and len(a._shards) > 1:
            return SHARDED[0] is not None
    return False


def eager_op(op_cls, args, attrs) -> list[Array]:
    """``op_cls`` applied to concrete ``args`` with its NumPy rule (or, for arrays sharded
    over several devices, ``SHARDED``'s jitted primitive)."""
    if sharded(args):
        committed_device(args, op_cls.method, _operand_name)   # (JAX's error)
        return SHARDED[0](op_cls, args, attrs)
    arrays, avals = [], []
    for a in args:
        v, av = concrete_value(a)
        arrays.append(v)
        avals.append(av)
    try:
        attrs = op_cls.normalize_attrs(attrs)
        out_avals = op_cls.infer_list(avals, attrs)
    except OpError as e:
        raise TypeError(op_cls.diag(str(e))) from None
    # as JAX: the results are committed to the device of the committed operands
    home = committed_device(args, op_cls.method, _operand_name)
    try:
        outs = op_cls.evaluate_list(arrays, attrs, out_avals)
    except MemoryError:
        raise OutOfMemoryError(op_cls.diag(
            f"cannot allocate its result{'s' if len(out_avals) > 1 else ''} on the host: "
            + ", ".join(f"{a.str_short()} ({byte_count(a.size * a.dtype.itemsize)})"
                        for a in out_avals))) from None
    if DEBUG_CHECKS[0] and not op_cls.constant_like:
        check_values(op_cls, outs)
    return [Array._from_host(o, a, home) for o, a in zip(outs, out_avals)]


def _operand_name(i: int) -> str:
    """An eager op's operand ``i`` in errors, as JAX names a primitive's (x, y, ...)."""
    return "xyz"[i] if i < 3 else f"args[{i}]"


#: (jax_debug_nans, jax_debug_infs) or a falsy first entry when both are off (kept by a
#: config listener: eager ops do not read two options each)
DEBUG_CHECKS = [False, False, False]


def _on_config(name: str) -> None:
    if name in ("jax_debug_nans", "jax_debug_infs"):
        nans, infs = bool(config.jax_debug_nans), bool(config.jax_debug_infs)
        DEBUG_CHECKS[:] = [nans or infs, nans, infs]


config.on_change(_on_config)
_on_config("jax_debug_nans")   # values from the environment


def invalid_value(arrays, nans: bool = True, infs: bool = False) -> str | None:
    """"nan" (with ``nans``) or "inf" (with ``infs``) when an inexact array of ``arrays``
    holds one (bfloat16 and the float8s read as float32), else None."""
    for a in arrays:
        a = np.asarray(a)
        if not dtypes.is_inexact(a.dtype):
            continue
        if a.dtype.kind not in "fc":
            a = a.astype(np.float32)
        if nans and np.isnan(a).any():
            return "nan"
        if infs and np.isinf(a).any():
            return "inf"
    return None


def check_values(op_cls, outs) -> None:
    """``jax_debug_nans`` / ``jax_debug_infs`` for one eager op, as JAX checks every eager
    primitive: a NaN (infinity) in its results raises ``FloatingPointError``."""
    kind = invalid_value(outs, DEBUG_CHECKS[1], DEBUG_CHECKS[2])
    if kind == "nan":
        raise FloatingPointError(f"invalid value (nan) encountered in {op_cls.method}")
    if kind == "inf":
        raise FloatingPointError(
            f"divide by zero or overflow (inf) encountered in {op_cls.method}")


def copy_functions(module, name: str):
    """A new module holding ``@name`` and every function it reaches."""
    ir = mlir.ir()
    with mlir.context(), mlir.unknown_loc():
        scratch = ir.Module.create()
        for fn in funcs.reachable_functions(module, name):
            fn.operation.clone(ip=ir.InsertionPoint(scratch.body))
    return scratch


def add_entry(module, op_cls, in_avals, result_avals, entry: str = "main", **attrs) -> str:
    """Adds a public function applying ``op_cls`` (with ``attrs``) to its arguments;
    returns its name."""
    with mlir.context(), mlir.unknown_loc():
        fn, block = funcs.create_function(module, funcs.unique_name(module, entry),
                                          list(in_avals), private=False)
        results, _, _ = IRBuilder.at_end(block).emit(
            op_cls, list(block.arguments), result_avals=list(result_avals), **attrs)
        funcs.finish_function(fn, block, results)
    return funcs.symbol_name(fn)


def evaluate(module, entry: str, args) -> list[np.ndarray]:
    """Expands the transformations of ``module`` (in place) and runs ``@entry`` on the
    reference interpreter."""
    run_pipeline(module, pipelines.EAGER)
    return evaluate_function(module, entry, list(args))
