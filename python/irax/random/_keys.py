"""PRNG keys: raw ``uint32[..., 2]`` arrays (``PRNGKey``) and typed keys (``key``).

A typed key array (``KeyArray``) is a thin wrapper around its key data, a uint32 array of
shape ``(*shape, 2)``; its ``shape`` is the data's without the trailing 2 and its
``dtype`` prints as ``key<fry>``. It is a pytree with the data as its one leaf, so it passes
through ``irax.jit`` and ``irax.vmap`` (mapping over leading key dimensions) unchanged.
Typed and raw keys holding the same data give identical samples.

    >>> irax.random.key_data(irax.random.key(42))
    Array([ 0, 42], dtype=uint32)
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.core.config import config
from irax.core.tree_util import register_pytree_node
from irax.frontend.tracer import Tracer
from irax.random import _prng
from irax.runtime.array import Array

IMPL = "threefry2x32"


class KeyDType:
    """The dtype of typed threefry keys, ``key<fry>``."""

    name = "key<fry>"
    type = dtypes.prng_key   # issubdtype(key.dtype, irax.dtypes.prng_key)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyDType) or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = KeyDType()


class KeyArray:
    """An array of typed PRNG keys (``irax.random.key``); ``key_data`` unwraps it."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = data

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def dtype(self) -> KeyDType:
        return KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        return KeyArray(self._data[(*idx, slice(None))])

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        size = self.size
        shape = tuple(size // -int(np.prod(shape)) if d == -1 else d for d in shape)
        return KeyArray(jnp.reshape(self._data, (*shape, 2)))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def __eq__(self, other):
        if not isinstance(other, KeyArray):
            return NotImplemented
        return jnp.all(self._data == other._data, axis=-1)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else jnp.logical_not(eq)

    __hash__ = None

    def __repr__(self) -> str:
        data = self._data
        if isinstance(data, Tracer):
            return f"Traced<KeyArray{self.shape}, dtype={KEY_DTYPE}>"
        return f"Array({self.shape}, dtype={KEY_DTYPE}) overlaying:\n{np.asarray(data)}"


register_pytree_node(KeyArray, lambda k: ((k._data,), None), lambda _, ch: KeyArray(ch[0]))


# ---- checking keys ------------------------------------------------------------------------
def _invalid(name: str, what: str) -> TypeError:
    return TypeError(f"irax.random.{name}: encountered invalid PRNG key data: {what}")


def check_key(name: str, key, allow_batched: bool = False):
    """``(data, typed)``: the uint32 ``(..., 2)`` data of ``key`` and whether it was typed.

    A raw key must be a uint32 array whose shape ends with ``(2,)``; unless
    ``allow_batched``, it must hold a single key."""
    if isinstance(key, KeyArray):
        data, typed = key._data, True
    elif isinstance(key, (Array, Tracer, np.ndarray, np.generic)):
        data, typed = key, False
        if tuple(np.shape(key))[-1:] != (2,):
            raise _invalid(name, "expected key_data.shape to end with (2,); got "
                           f"shape={tuple(np.shape(key))} for impl={IMPL}")
        if np.dtype(key.dtype) != np.uint32:
            raise _invalid(name, "expected key_data.dtype = uint32; got "
                           f"dtype={np.dtype(key.dtype)}")
        if not isinstance(key, (Array, Tracer)):
            data = jnp.asarray(key)
    elif isinstance(key, (bool, int, float, complex)):
        raise _invalid(name, f"expected key_data to have ndim, shape, and dtype attributes. "
                       f"Got {key!r}")
    else:
        raise TypeError(f"irax.random.{name}: unexpected PRNG key type {type(key)}")
    if not allow_batched and data.ndim != 1:
        raise ValueError(f"irax.random.{name} accepts a single key, but was given a key array "
                         f"of shape {tuple(np.shape(key))} != (). Use irax.vmap for batching.")
    return data, typed


def key_words(name: str, key):
    """The key words ``(k0, k1)`` of a single key (checked as ``check_key`` does)."""
    return _prng.words(check_key(name, key)[0])


def wrap(typed: bool, data):
    return KeyArray(data) if typed else data


# ---- seeding ------------------------------------------------------------------------------
def _seed(ctor: str, seed):
    if isinstance(seed, KeyArray):
        raise TypeError(f"irax.random.{ctor} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed) if not isinstance(seed, (Array, Tracer)) else seed.ndim:
        raise TypeError(f"irax.random.{ctor} accepts a scalar seed, but was given an array of "
                        f"shape {tuple(np.shape(seed))} != (). Use irax.vmap for batching")
    x64 = bool(config.jax_enable_x64)
    if isinstance(seed, (Array, Tracer)):
        if not dtypes.is_int(seed.dtype):
            raise TypeError(f"irax.random.{ctor}: PRNG key seed must be an integer; got "
                            f"{seed.dtype} seed")
        return _traced_seed(seed)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"irax.random.{ctor}: PRNG key seed must be an integer; got {seed!r}")
    value = int(seed)
    if type(seed) is int and not -2 ** 63 <= value < 2 ** 63:
        raise OverflowError("Python int too large to convert to C long")
    value %= 2 ** 64 if x64 else 2 ** 32
    return jnp.asarray(np.array([value >> 32, value & 0xFFFFFFFF], np.uint32))


def _traced_seed(seed):
    """Seeding a (traced) integer array: the high word is ``seed >> 32`` for 64-bit seeds,
    the low word ``seed mod 2**32``."""
    lo = _prng.u32(seed)
    if np.dtype(seed.dtype).itemsize == 8:
        hi = _prng.u32(lax.shift_right_logical(seed, np.array(32, seed.dtype)))
    else:
        hi = lax.full((), 0, np.uint32)
    return lax.concatenate([lax.reshape(hi, (1,)), lax.reshape(lo, (1,))], 0)


def PRNGKey(seed, *, impl=None):
    """A raw PRNG key, ``uint32[2]``, from an integer seed (``jax.random.PRNGKey``).

    In x32 mode the seed is truncated to 32 bits (``[0, seed mod 2**32]``); in x64 mode the
    key holds the two 32-bit halves of ``seed mod 2**64``, high half first. A Python int
    outside ``[-2**63, 2**63)`` raises ``OverflowError``; a non-integer seed ``TypeError``.
    """
    _check_impl("PRNGKey", impl)
    return _seed("PRNGKey", seed)


def key(seed, *, impl=None, dtype=None):
    """A typed scalar PRNG key (``key<fry>``) from an integer seed (``jax.random.key``)."""
    _check_impl("key", impl if dtype is None else dtype)
    return KeyArray(_seed("key", seed))


def _check_impl(name: str, impl) -> None:
    if impl is None or impl == IMPL or isinstance(impl, KeyDType):
        return
    raise ValueError(f'irax.random.{name}: unrecognized PRNG implementation "{impl}". '
                     f'Did you mean one of: "{IMPL}"?')


def key_data(keys):
    """The uint32 data, shape ``(*keys.shape, 2)``, of typed or raw keys."""
    data, _ = check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys holding ``key_bits_array`` (uint32, trailing dimension 2)."""
    _check_impl("wrap_key_data", impl if dtype is None else dtype)
    if isinstance(key_bits_array, KeyArray):
        raise TypeError("irax.random.wrap_key_data: expected raw key data, got typed keys")
    if isinstance(key_bits_array, (list, tuple)):
        key_bits_array = np.asarray(key_bits_array, np.uint32)
    data, _ = check_key("wrap_key_data", key_bits_array, allow_batched=True)
    return KeyArray(data)


def key_impl(keys) -> str:
    check_key("key_impl", keys, allow_batched=True)
    return IMPL


def clone(key):
    """``key`` itself (keys are immutable values in irax)."""
    return key


# ---- split and fold_in --------------------------------------------------------------------
def split(key, num=2):
    """``num`` (an int or a shape) new keys derived from ``key``; raw keys give
    ``uint32[*shape, 2]``, typed keys a key array of that shape."""
    data, typed = check_key("split", key)
    shape = tuple(num) if isinstance(num, (tuple, list)) else (int(num),)
    if any(int(d) < 0 for d in shape):
        raise ValueError(f"irax.random.split: num must be non-negative, got {num}")
    return wrap(typed, _prng.stack(_prng.split(_prng.words(data), tuple(int(d) for d in shape))))


def fold_in(key, data):
    """A new key from ``key`` and the 32-bit integer ``data`` (``block(key, (0, data))``)."""
    kd, typed = check_key("fold_in", key)
    if np.ndim(data) if not isinstance(data, (Array, Tracer)) else data.ndim:
        raise TypeError("irax.random.fold_in accepts a scalar, but was given an array of "
                        f"shape {tuple(np.shape(data))} != (). Use irax.vmap for batching.")
    if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
        if not 0 <= int(data) < 2 ** 32:
            raise OverflowError(f"Python integer {int(data)} out of bounds for uint32")
        data = np.uint32(int(data))
    elif isinstance(data, (bool, float, np.floating)):
        data = np.uint32(np.trunc(float(data))) if float(data) >= 0 else np.uint32(0)
    return wrap(typed, _prng.stack(_prng.fold_in(_prng.words(kd), data)))
