"""Abstract values: what a traced value is known to be (shape, dtype, weak type)."""

from __future__ import annotations

import math

import ml_dtypes  # noqa: F401 - registers bfloat16 and friends with NumPy
import numpy as np

from irax.core.dtypes import short_name
from irax.core.shape_poly import Dim, symbolic_shape


def _size(d):
    """An axis size: an int, or a symbolic ``Dim`` (shape polymorphism)."""
    return d if type(d) is Dim else int(d)


class ShapedArray:
    """The abstract value of an array: a shape, a dtype, and JAX's weak-type flag.

    Immutable and hashable; used as the key of jit caches and by every type rule.
    """

    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape, dtype, weak_type: bool = False):
        self.shape = tuple(_size(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = hash((self.shape, self.dtype, self.weak_type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def insert_axis(self, axis: int, size: int) -> ShapedArray:
        """This value with a new axis of ``size`` at position ``axis`` (a mapped axis)."""
        shape = list(self.shape)
        shape.insert(axis, size)
        return self.update(shape=shape)

    def remove_axis(self, axis: int) -> ShapedArray:
        """This value without axis ``axis``."""
        return self.update(shape=self.shape[:axis] + self.shape[axis + 1:])

    def strip_weak(self) -> ShapedArray:
        return self if not self.weak_type else ShapedArray(self.shape, self.dtype, False)

    @property
    def is_static(self) -> bool:
        """Whether every size is known (no symbolic dimension)."""
        return not any(type(d) is Dim for d in self.shape)

    def str_short(self) -> str:
        return f"{short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self) -> str:   # JAX's: ``~float32[]`` for a weak scalar
        return ("~" if self.weak_type else "") + self.str_short()


class ShapeDtypeStruct:
    """A shape and dtype standing for an array argument (``jax.ShapeDtypeStruct``).

    The dtype is kept as given (as in JAX); it is canonicalised where the struct becomes
    an abstract value (``jit(f).lower(ShapeDtypeStruct((3,), jnp.float64))`` is float32
    without x64).
    """

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, sharding=None, weak_type: bool = False):
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        # names or expressions stand for symbolic sizes: ("batch", 784), "b, 784"
        self.shape = tuple(_size(d) for d in symbolic_shape(shape))
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:
            self.dtype = np.dtype(dtype.dtype)   # jnp.float32 and other dtype-likes
        self.sharding = sharding
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, **kwargs) -> ShapeDtypeStruct:
        """A copy with some of ``shape``, ``dtype``, ``sharding``, ``weak_type`` replaced."""
        unknown = set(kwargs) - set(self.__slots__)
        if unknown:
            raise TypeError(f"ShapeDtypeStruct.update got unexpected keyword arguments "
                            f"{sorted(unknown)}")
        fields = {k: getattr(self, k) for k in self.__slots__}
        fields.update(kwargs)
        return ShapeDtypeStruct(**fields)

    def __eq__(self, other) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.sharding == other.sharding)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        sharding = f", sharding={self.sharding}" if self.sharding is not None else ""
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"
