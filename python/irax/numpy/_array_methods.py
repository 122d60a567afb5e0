"""The operators, methods and properties of ``irax.Array`` and ``Tracer`` (``jax.Array``'s),
implemented by the ``irax.numpy`` functions of the same meaning and installed on their base
class (``core.array_methods.ArrayMethods``) when ``irax.numpy`` is imported.

    x.sum(axis=0)     # irax.numpy.sum(x, axis=0)
    x @ y             # irax.numpy.matmul(x, y)
    x.at[0].set(1)    # irax.numpy._at

Methods whose function another module provides (``searchsorted``, ``compress``...) look it
up in ``irax.numpy`` when called, so they work as soon as it exists; until then they raise
NotImplementedError naming it.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.array_methods import install
from irax.core.errors import ConcretizationTypeError
from irax.dialect import elementwise as E
from irax.dialect.bitcast import BitcastConvert
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _util as LU
from irax.numpy._array_api import namespace
from irax.numpy._at import IndexUpdateHelper
from irax.numpy._fast import fast_binary
from irax.runtime.array import Array
from irax.transforms.placement import device_put


def _binary(fn, reflected=False, op_cls=None):
    """The operator method applying ``fn`` (``other (op) self`` when ``reflected``);
    ``op_cls``: the op of the eager fast path (``_fast.fast_binary``), if it has one."""
    def op(self, other):
        if op_cls is not None and type(self) is Array:
            out = fast_binary(op_cls, self, other, reflected)
            if out is not None:
                return out
        return fn(other, self) if reflected else fn(self, other)
    op.__name__ = fn.__name__
    return op


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    return method


def _late(jnp, name: str, method: str):
    """``irax.numpy.<name>`` looked up at call time."""
    fn = getattr(jnp, name, None)
    if fn is None:
        raise NotImplementedError(f"irax.Array.{method} needs irax.numpy.{name}, which is not "
                                  "available yet")
    return fn


def _device_of(device):
    """A device, from a device or a single-device sharding."""
    return getattr(device, "_device", device)


def _bitcast(x, dtype):
    return bind(BitcastConvert, x, new_dtype=np.dtype(dtype))


def _view_as(jnp, x, dt):
    """``x``'s bits as ``dt`` (JAX's rules: bool as uint8 bytes, complex as interleaved real
    and imaginary parts; the last axis rescaled)."""
    src = x.dtype
    if src == dt:
        return x
    if src == np.bool_:
        return _view_as(jnp, x.astype(np.uint8), dt)
    if dtypes.is_complex(src):
        parts = jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)
        return _view_as(jnp, parts.reshape(*x.shape[:-1], x.shape[-1] * 2), parts.dtype)
    if dt == np.bool_:
        return _view_as(jnp, x, np.uint8) != 0
    if dtypes.is_complex(dt):
        parts = _view_as(jnp, x, dtypes.real_dtype(dt)).astype(dt)
        return parts[..., 0::2] + 1j * parts[..., 1::2]
    bits_in, bits_out = dtypes.itemsize_bits(src), dtypes.itemsize_bits(dt)
    if bits_in < bits_out:
        k = bits_out // bits_in
        return _bitcast(x.reshape(*x.shape[:-1], x.shape[-1] // k, k), dt)
    out = _bitcast(x, dt)
    return out if bits_in == bits_out else out.reshape(*out.shape[:-2],
                                                       out.shape[-2] * out.shape[-1])


def _view_method(jnp):
    def view(self, dtype=None, type=None):  # noqa: A002 - NumPy's name
        """The array's bits read as ``dtype``; the last axis is rescaled when the item size
        changes (``jax.Array.view``)."""
        if type is not None:
            raise NotImplementedError("`type` argument of array.view() is not supported.")
        if dtype is None:
            return self
        dt = dtypes.check_user_dtype(dtype, "view")
        bits_in, bits_out = dtypes.itemsize_bits(self.dtype), dtypes.itemsize_bits(dt)
        if self.ndim == 0:
            if bits_in != bits_out:
                raise ValueError("view() of a 0d array is only supported if the itemsize is "
                                 "unchanged.")
            return _view_as(jnp, self.reshape(1), dt).reshape(())
        if (self.shape[-1] * bits_in) % bits_out:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        return _view_as(jnp, self, dt)
    return view


def _byteswap_method(jnp):
    def byteswap(self):
        """The array with the bytes of every element reversed (``jax.Array.byteswap``)."""
        if self.dtype.itemsize == 1 or self.size == 0:
            return self
        if dtypes.is_complex(self.dtype):
            swapped = byteswap(jnp.real(self)) + 1j * byteswap(jnp.imag(self))
            return swapped.astype(self.dtype)
        swapped = jnp.flip(_bitcast(self, np.uint8), axis=-1)  # a 0-d element: shape (k,)
        return _bitcast(swapped, self.dtype)
    return byteswap


def _new_array(out, x):
    """``out``, a distinct object from the concrete array ``x`` (as JAX's copies are)."""
    if out is x and not isinstance(x, Tracer):
        return LU.host_array(np.array(LU.host_data(x)), x.weak_type)
    return out


def _contains(jnp, self, other):
    """``other in x`` for a 1-d ``x`` and a scalar ``other``."""
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    query = jnp.asarray(other)
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, got "
                         f"arr.shape={self.shape}.")
    if query.ndim != 0:
        raise ValueError(f"Array.__contains__: query value must be a scalar, got "
                         f"query.shape={query.shape}")
    return jnp.any(self == query)


def _flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


def _operators(jnp) -> dict:
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
              "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
              "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift"}
    fast = {"add": E.Add, "sub": E.Sub, "mul": E.Mul, "truediv": E.Div}
    methods = {}
    for dunder, name in binary.items():
        methods[f"__{dunder}__"] = _binary(getattr(jnp, name), op_cls=fast.get(dunder))
        methods[f"__r{dunder}__"] = _binary(getattr(jnp, name), reflected=True,
                                            op_cls=fast.get(dunder))
    for dunder, name in {"lt": "less", "le": "less_equal", "gt": "greater",
                         "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}.items():
        methods[f"__{dunder}__"] = _binary(getattr(jnp, name))
    for dunder, name in {"neg": "negative", "pos": "positive", "abs": "abs",
                         "invert": "invert"}.items():
        methods[f"__{dunder}__"] = _method(getattr(jnp, name))
    methods["__divmod__"] = _binary(jnp.divmod)
    methods["__rdivmod__"] = _binary(jnp.divmod, reflected=True)
    methods["__getitem__"] = _binary(jnp._index)

    def __round__(self, ndigits=None):
        out = jnp.round(self, decimals=ndigits or 0)
        return out.astype(int) if ndigits is None else out

    def __contains__(self, other):
        return bool(_contains(jnp, self, other))

    def __array_namespace__(self, *, api_version=None):
        return namespace(jnp, api_version)

    methods.update(__round__=__round__, __contains__=__contains__,
                   __array_namespace__=__array_namespace__)
    return methods


def _properties(jnp) -> dict:
    return {"T": property(lambda self: jnp.transpose(self)),
            "mT": property(lambda self: jnp.swapaxes(self, -1, -2)),
            "real": property(lambda self: jnp.real(self)),
            "imag": property(lambda self: jnp.imag(self)),
            "at": property(IndexUpdateHelper, doc="Indexed updates: ``x.at[idx].set(v)``."),
            "flat": property(_flat),
            "nbytes": property(lambda self: self.size * self.dtype.itemsize),
            "itemsize": property(lambda self: self.dtype.itemsize),
            "__numpy_dtype__": property(lambda self: self.dtype)}


def _reductions(jnp) -> dict:
    """sum, prod, max, min, mean, all, any, argmax, argmin, std, var, ptp, cumsum, cumprod
    with ``jax.Array``'s signatures."""

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
            promote_integers=True):
        return jnp.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                       initial=initial, where=where, promote_integers=promote_integers)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
             promote_integers=True):
        return jnp.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                        initial=initial, where=where, promote_integers=promote_integers)

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        return jnp.max(self, axis=axis, out=out, keepdims=keepdims, initial=initial,
                       where=where)

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=None):
        return jnp.min(self, axis=axis, out=out, keepdims=keepdims, initial=initial,
                       where=where)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
        return jnp.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)

    def all(self, axis=None, out=None, keepdims=False, *, where=None):
        return jnp.all(self, axis=axis, out=out, keepdims=keepdims, where=where)

    def any(self, axis=None, out=None, keepdims=False, *, where=None):
        return jnp.any(self, axis=axis, out=out, keepdims=keepdims, where=where)

    def argmax(self, axis=None, out=None, keepdims=None):
        return jnp.argmax(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=None):
        return jnp.argmin(self, axis=axis, out=out, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
            correction=None):
        return jnp.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                       where=where, correction=correction)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
            correction=None):
        return jnp.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                       where=where, correction=correction)

    def ptp(self, axis=None, out=None, keepdims=False):
        return jnp.ptp(self, axis=axis, out=out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return jnp.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return jnp.cumprod(self, axis=axis, dtype=dtype, out=out)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return jnp.trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype, out=out)

    return {f.__name__: f for f in (sum, prod, max, min, mean, all, any, argmax, argmin, std,
                                    var, ptp, cumsum, cumprod, trace)}


def _shape_methods(jnp) -> dict:
    """reshape, transpose, ravel, flatten, squeeze, swapaxes, diagonal, repeat, take,
    nonzero, sort, argsort, clip, round, dot, conj, astype, copy."""

    def reshape(self, *args, order="C", out_sharding=None):
        shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        return jnp.reshape(self, shape, order=order)

    def transpose(self, *args):
        axes = args[0] if len(args) == 1 and (args[0] is None or
                                              not isinstance(args[0], int)) else args
        return jnp.transpose(self, axes or None)

    def ravel(self, order="C", *, out_sharding=None):
        return jnp.ravel(self, order=order)

    def flatten(self, order="C", *, out_sharding=None):
        return jnp.ravel(self, order=order)

    def squeeze(self, axis=None):
        return jnp.squeeze(self, axis=axis)

    def swapaxes(self, axis1, axis2):
        return jnp.swapaxes(self, axis1, axis2)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return jnp.diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def repeat(self, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
        return jnp.repeat(self, repeats, axis=axis, total_repeat_length=total_repeat_length)

    def take(self, indices, axis=None, out=None, mode=None, unique_indices=False,
             indices_are_sorted=False, fill_value=None):
        return jnp.take(self, indices, axis=axis, out=out, mode=mode,
                        unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                        fill_value=fill_value)

    def nonzero(self, *, fill_value=None, size=None):
        return jnp.nonzero(self, size=size, fill_value=fill_value)

    def sort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return jnp.sort(self, axis=axis, kind=kind, order=order, stable=stable,
                        descending=descending)

    def argsort(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        return jnp.argsort(self, axis=axis, kind=kind, order=order, stable=stable,
                           descending=descending)

    def clip(self, min=None, max=None):
        return jnp.clip(self, min=min, max=max)

    def round(self, decimals=0, out=None):
        return jnp.round(self, decimals=decimals, out=out)

    def dot(self, b, *, precision=None, preferred_element_type=None, out_sharding=None):
        return jnp.dot(self, b, precision=precision,
                       preferred_element_type=preferred_element_type)

    def conj(self):
        return jnp.conjugate(self)

    def conjugate(self):
        return jnp.conjugate(self)

    def astype(self, dtype, copy=False, device=None):
        out = jnp.astype(self, dtype, copy=copy, device=device)
        if copy and out is self:
            out = self.copy()
        return out if device is None else out.to_device(device)

    def copy(self):
        return _new_array(jnp.copy(self), self)

    return {f.__name__: f for f in (reshape, transpose, ravel, flatten, squeeze, swapaxes,
                                    diagonal, repeat, take, nonzero, sort, argsort, clip, round,
                                    dot, conj, conjugate, astype, copy)}


def _late_methods(jnp) -> dict:
    """Methods whose functions may come later: searchsorted, compress, choose,
    argpartition."""

    def searchsorted(self, v, side="left", sorter=None, *, method="scan"):
        return _late(jnp, "searchsorted", "searchsorted")(self, v, side=side, sorter=sorter,
                                                          method=method)

    def compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
        return _late(jnp, "compress", "compress")(condition, self, axis=axis, out=out,
                                                  size=size, fill_value=fill_value)

    def choose(self, choices, out=None, mode="raise"):
        return _late(jnp, "choose", "choose")(self, choices, out=out, mode=mode)

    def argpartition(self, kth, axis=-1):
        return _late(jnp, "argpartition", "argpartition")(self, kth, axis=axis)

    return {f.__name__: f for f in (searchsorted, compress, choose, argpartition)}


def _device_methods(jnp) -> dict:
    def to_device(self, device, *, stream=None):
        """A copy of the array on ``device`` (a device or a single-device sharding)."""
        if stream is not None:
            raise NotImplementedError("stream argument of array.to_device()")
        return device_put(self, _device_of(device))

    return {"to_device": to_device, "view": _view_method(jnp),
            "byteswap": _byteswap_method(jnp),
            "__copy__": lambda self: self.copy(),
            "__deepcopy__": lambda self, memo: self.copy()}


# ---- placement: one device, one shard ----------------------------------------------------------
class Format:
    """An array's layout (row-major, dense) and sharding (``jax.Array.format``)."""

    __slots__ = ("layout", "sharding")

    def __init__(self, layout, sharding):
        self.layout, self.sharding = layout, sharding

    def __repr__(self) -> str:
        return f"Format(layout={self.layout!r}, sharding={self.sharding!r})"


def _concrete(self, what: str):
    """The array itself, or a traced array's concrete value (eager transformations); an
    abstract tracer raises JAX's ConcretizationTypeError."""
    if not isinstance(self, Tracer):
        return self
    if self._concrete is not None:
        return LU.host_array(np.asarray(self._concrete))
    raise ConcretizationTypeError(self, f"This occurred in the {what} of irax.Array")


def _not_on_tracers(name: str, kind: str = "method"):
    """An attribute of concrete arrays only: a tracer raises AttributeError (as JAX's)."""
    def get(self):
        raise AttributeError(f"The '{name}' {kind} is not available on traced array with "
                             f"shape {self.aval.str_short()}.")
    return property(get)


def _shards(self):
    return _concrete(self, "addressable_shards").shard_list()


def _addressable_data(self, index: int):
    """The data of shard ``index`` (in the order of ``addressable_shards``)."""
    x = _concrete(self, "addressable_data() method")
    return [s.data for s in _shards(x)][index]


def _tobytes(self, order="C"):
    """The raw bytes of the data (``jax.Array.tobytes``)."""
    return np.asarray(_concrete(self, "tobytes() method")).tobytes(order=order)


def _on_device_size_in_bytes(self) -> int:
    return _concrete(self, "on_device_size_in_bytes() method").nbytes


def _unsafe_buffer_pointer(self) -> int:
    """The address of the array's (host-mapped) data."""
    return np.asarray(_concrete(self, "unsafe_buffer_pointer() method")).ctypes.data


def _clone(self):
    """A copy of the array (``jax.Array.clone``)."""
    if isinstance(self, Tracer):
        raise AttributeError(f"{type(self).__name__} has no attribute clone")
    return self.copy()


def _deprecated(old: str, new: str):
    def get(self):
        raise AttributeError(f"arr.{old} has been deprecated. Use {new}")
    return property(get)


def _constant(what: str, value):
    """A property of concrete arrays whose value is always ``value`` here."""
    def get(self):
        _concrete(self, what)
        return value
    return property(get)


def _not_traced(self, name: str) -> None:
    if isinstance(self, Tracer):
        raise AttributeError(f"{type(self).__name__} has no attribute {name}")


def _is_ready(self) -> bool:
    """Whether the data is computed (always: irax runs synchronously)."""
    _not_traced(self, "is_ready")
    return True


def _platform(self) -> str:
    _not_traced(self, "platform")
    return next(iter(self.devices())).platform


def _format(self):
    _not_traced(self, "format")
    return Format("row-major", self.sharding)


def _delete(self):
    _concrete(self, "delete() method")


def _devices(self):
    return _concrete(self, "devices() method").devices()


def _is_deleted(self):
    return _concrete(self, "is_deleted() method").is_deleted()


def _placement_methods() -> dict:
    """The placement attributes of ``jax.Array``: an irax array lives whole on one device
    (committed to it or not: ``committed``) or in blocks on the devices of its sharding."""
    return dict(
        committed=property(lambda self: _concrete(self, "committed property").committed),
        is_fully_addressable=_constant("is_fully_addressable property", True),
        is_fully_replicated=property(lambda self: _concrete(
            self, "is_fully_replicated property").sharding.is_fully_replicated),
        traceback=_constant("traceback property", None),
        addressable_shards=property(_shards), global_shards=property(_shards),
        addressable_data=_addressable_data, tobytes=_tobytes,
        on_device_size_in_bytes=_on_device_size_in_bytes,
        unsafe_buffer_pointer=_unsafe_buffer_pointer, clone=_clone, is_ready=_is_ready,
        platform=_platform, format=property(_format),
        device_buffer=_deprecated("device_buffer", "arr.addressable_data(0)"),
        device_buffers=_deprecated("device_buffers",
                                   "[x.data for x in arr.addressable_shards]"),
        # irax.Array defines these itself; tracers refuse them as JAX's do
        device=_not_on_tracers("device", "property"),
        sharding=_not_on_tracers("sharding", "attribute"),
        block_until_ready=_not_on_tracers("block_until_ready"),
        copy_to_host_async=_not_on_tracers("copy_to_host_async"),
        devices=_devices, delete=_delete, is_deleted=_is_deleted,
    )


def install_array_methods(jnp) -> None:
    """Installs the operators and methods, taken from the ``irax.numpy`` module ``jnp``."""
    methods = {**_operators(jnp), **_properties(jnp), **_reductions(jnp),
               **_shape_methods(jnp), **_late_methods(jnp), **_device_methods(jnp),
               **_placement_methods()}
    install(methods)
