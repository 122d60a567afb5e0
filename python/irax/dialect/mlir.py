"""The one MLIR context of the process, and conversions between irax and MLIR types.

The IREE compiler package (which carries the MLIR Python bindings) is imported lazily, on
first use, so ``import irax`` and running saved artifacts need only the IREE runtime.

    >>> to_ir_type(ShapedArray((3,), np.float32))   # tensor<3xf32>
"""

from __future__ import annotations

import sys
import threading
import types

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.dtypes import dtype_from_mlir, mlir_element_type
from irax.core.shape_poly import ANONYMOUS, Dim, parse

_state: dict = {}
_lock = threading.RLock()


def ir():
    """Returns the ``iree.compiler.ir`` module, importing it (and fixing lookups) once."""
    mod = _state.get("ir")
    if mod is None:
        with _lock:
            _install_dialect_stubs()
            from iree.compiler import ir as mod  # import cost: IREE loads on first use

            _state["ir"] = mod
    return mod


def _install_dialect_stubs() -> None:
    # Op-class lookup imports iree.compiler.dialects.<namespace> and retries a failed import
    # on every lookup (~20 us). Stub modules for namespaces without a Python module make the
    # lookup a dictionary hit.
    for ns in ("irax", "stablehlo", "chlo", "vhlo"):
        name = f"iree.compiler.dialects.{ns}"
        if name not in sys.modules:
            sys.modules[name] = types.ModuleType(name)


def context():
    """The process-wide MLIR context (unregistered irax ops allowed)."""
    ctx = _state.get("ctx")
    if ctx is None:
        mlir = ir()
        with _lock:  # one context, whatever the number of threads asking at once
            ctx = _state.get("ctx")
            if ctx is None:
                ctx = mlir.Context()
                ctx.allow_unregistered_dialects = True
                _state["loc"] = mlir.Location.unknown(ctx)
                _state["types"] = {}
                _state["avals"] = {}
                _state["ctx"] = ctx
    return ctx


def unknown_loc():
    context()
    return _state["loc"]


def element_type(dtype: np.dtype):
    """MLIR element type of a NumPy dtype (cached)."""
    context()
    cache = _state["types"]
    t = cache.get(dtype)
    if t is None:
        t = ir().Type.parse(mlir_element_type(np.dtype(dtype)), context())
        cache[dtype] = t
    return t


def to_ir_type(aval: ShapedArray):
    """``tensor<...>`` type of an abstract value (weak type is not part of IR types).

    A symbolic size is a dynamic one, and the type's encoding names every dynamic size in
    order, so that the names survive every irax pass (``core/shape_poly.py``):
    ``tensor<?x784xf32, ["b"]>``."""
    cache = _state.get("avals") if "ctx" in _state else None
    if cache is None:
        context()
        cache = _state["avals"]
    key = (aval.shape, aval.dtype)
    t = cache.get(key)
    if t is None:
        mlir = ir()
        with context(), unknown_loc():
            names = [str(d) for d in aval.shape if type(d) is Dim]
            if names and set(names) != {"?"}:
                dyn = mlir.ShapedType.get_dynamic_size()
                sizes = [dyn if type(d) is Dim else d for d in aval.shape]
                encoding = mlir.ArrayAttr.get([mlir.StringAttr.get(n) for n in names])
                t = mlir.RankedTensorType.get(sizes, element_type(aval.dtype), encoding)
            else:
                dyn = mlir.ShapedType.get_dynamic_size()
                t = mlir.RankedTensorType.get([dyn if type(d) is Dim else d for d in aval.shape],
                                              element_type(aval.dtype))
        cache[key] = t
    return t


def plain_type(t):
    """``t`` without irax's names of dynamic sizes (``tensor<?x784xf32>``): what StableHLO
    and IREE see."""
    mlir = ir()
    if t.typeid != mlir.RankedTensorType.static_typeid:
        return t
    rt = mlir.RankedTensorType(t)
    if rt.encoding is None:
        return t
    return mlir.RankedTensorType.get(list(rt.shape), rt.element_type, loc=unknown_loc())


def aval_of_type(t) -> ShapedArray:
    """The abstract value of a ranked tensor type (scalars are rank-0 tensors)."""
    cache = _state.setdefault("from_type", {})
    a = cache.get(t)
    if a is None:
        mlir = ir()
        if t.typeid != mlir.RankedTensorType.static_typeid:
            raise TypeError(f"expected a ranked tensor type, got {t}")
        rt = mlir.RankedTensorType(t)
        shape = tuple(rt.shape)
        if not rt.has_static_shape:
            shape = _named_sizes(rt, t)
        a = ShapedArray(shape, dtype_from_mlir(str(rt.element_type)))
        cache[t] = a
    return a


def _named_sizes(rt, t) -> tuple:
    """The shape of a dynamically shaped type whose encoding names its dynamic sizes."""
    mlir = ir()
    names = None
    if rt.encoding is not None and rt.encoding.typeid == mlir.ArrayAttr.static_typeid:
        names = [mlir.StringAttr(a).value for a in mlir.ArrayAttr(rt.encoding)]
    dyn = [i for i in range(rt.rank) if rt.is_dynamic_dim(i)]
    if rt.encoding is None:   # plain StableHLO: sizes without names
        return tuple(ANONYMOUS if rt.is_dynamic_dim(i) else rt.shape[i] for i in range(rt.rank))
    if names is None or len(names) != len(dyn):
        raise TypeError(f"expected a statically shaped tensor type or one naming its dynamic "
                        f"sizes (tensor<?x3xf32, [\"b\"]>), got {t}")
    it = iter(names)
    return tuple(parse(next(it)) if rt.is_dynamic_dim(i) else rt.shape[i]
                 for i in range(rt.rank))


def aval_of(value) -> ShapedArray:
    return aval_of_type(value.type)
