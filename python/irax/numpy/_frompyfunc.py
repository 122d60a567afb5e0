"""``frompyfunc``: a NumPy-style ufunc object from a scalar Python function
(``jax.numpy.frompyfunc``), with ``__call__`` (``vectorize``), ``reduce``, ``accumulate``,
``at``, ``reduceat`` and ``outer`` built from ``vmap`` and ``irax.lax`` loops, as JAX's are.

    mul_add = jnp.frompyfunc(lambda a, b: a * b + 1, nin=2, nout=1, identity=0)
    mul_add(x, 2.0); mul_add.reduce(x, axis=0); mul_add.outer(x, y)
    mul_add.at(x, idx, 3.0, inplace=False)      # sequential: repeated indices apply in turn
"""

from __future__ import annotations

import math
import operator

from irax.lax import _control as LC
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import arange
from irax.numpy._functional import vectorize
from irax.numpy._indexing import _index, take
from irax.numpy._indexing_more import _gather_1d, scatter_set
from irax.numpy._logic import greater, less, logical_and
from irax.numpy._logic import where as where_
from irax.numpy._manipulation import append
from irax.numpy._shape import moveaxis, ravel, reshape
from irax.transforms.jit import eval_shape
from irax.transforms.vectorize import vmap

_AT_INPLACE = ("jax.numpy.ufunc.at operations cannot be performed in-place, because JAX arrays "
               "are immutable. Use inplace=False instead, which will return a new array.")


def _one(x, dtype=None):
    a = U.aval_of(x)
    return U.full((), 1, a.dtype if dtype is None else dtype, a.weak_type)


class ufunc:  # noqa: N801 - JAX's name
    """A ufunc of ``nin`` inputs and ``nout`` outputs wrapping ``func`` (``jnp.ufunc``)."""

    def __init__(self, func, /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity=None, call=None, reduce=None,
                 accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._func = func
        self.nin = operator.index(nin)
        self.nout = operator.index(nout)
        self.nargs = operator.index(nargs or nin)
        self.identity = identity
        # Implementations replacing the generic ones (JAX's keyword overrides).
        self._impl = {"call": call, "reduce": reduce, "accumulate": accumulate, "at": at,
                      "reduceat": reduceat}

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        U.check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._impl["call"] or vectorize(self._func)
        return call(*args)

    def _binary(self, what: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{what} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{what} only supported for functions returning a single value")

    def _dtype(self, *args):
        return eval_shape(self._func, *(_one(a) for a in args)).dtype

    # ---- reduce --------------------------------------------------------------------------------
    def reduce(self, a, axis: int | None = 0, dtype=None, out=None, keepdims: bool = False,
               initial=None, where=None):
        """Folds the ufunc over ``axis`` (a loop, left to right)."""
        U.check_arraylike(f"{self.__name__}.reduce", a)
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            U.check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            U.check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify 'initial'.")
            if U.aval_of(where).dtype != bool:
                raise ValueError(f"where argument must have dtype=bool; got "
                                 f"dtype={U.aval_of(where).dtype}")
        reduce = self._impl["reduce"] or self._reduce
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                      where=where)

    def _reduce(self, arr, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        arr, mask = U.as_array("reduce", arr), where
        initial = self.identity if initial is None else initial
        dtype = self._dtype(arr, arr) if dtype is None else dtype
        shape = U.aval_of(arr).shape
        if mask is not None:
            mask = LU.broadcast_to(U.as_array("reduce", mask), shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final = (1,) * len(shape) if keepdims else ()
            arr, axis = ravel(arr), 0
            mask = None if mask is None else ravel(mask)
        else:
            axis = LU.canonicalize_axis(axis, len(shape))
            final = shape[:axis] + (1,) * keepdims + shape[axis + 1:]
        if axis:
            arr = moveaxis(arr, axis, 0)
            mask = None if mask is None else moveaxis(mask, axis, 0)
        n = U.aval_of(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            return LS.full(final, initial, dtype)

        def body(i, val):
            new = self(val, LU.convert(_index(arr, i), dtype))
            return new if mask is None else where_(_index(mask, i), new, val)

        start, init = (1, _index(arr, 0)) if initial is None else (0, initial)
        init = LU.broadcast_to(LU.convert(U.as_array("reduce", init), dtype),
                               U.aval_of(arr).shape[1:])
        result = LC.fori_loop(start, n, body, init)
        return reshape(result, final) if keepdims else result

    # ---- accumulate ----------------------------------------------------------------------------
    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        """The running fold of the ufunc along ``axis`` (a scan)."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self._impl["accumulate"] or self._accumulate
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate(self, a, axis=0, dtype=None):
        U.check_arraylike(f"{self.__name__}.accumulate", a)
        arr = U.as_array("accumulate", a)
        dtype = self._dtype(arr, arr) if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = LU.canonicalize_axis(axis, U.aval_of(arr).ndim)
        if U.aval_of(arr).size == 0:
            return LS.full(U.aval_of(arr).shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)
        first = LU.convert(_index(arr, 0), dtype)

        def step(carry, _):
            i, x = carry
            y = where_(U.cmp(i, U.full_like(i, 0), "EQ"), first,
                      self(LU.convert(x, dtype), LU.convert(_index(arr, i), dtype)))
            return (i + 1, y), y

        _, result = LC.scan(step, (0, first), None, length=U.aval_of(arr).shape[0])
        return moveaxis(result, 0, axis)

    # ---- at -----------------------------------------------------------------------------------
    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        """``a`` with the ufunc applied at ``indices`` (with ``b``), one index at a time, so
        repeated indices accumulate; ``inplace=False`` is required."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        at = self._impl["at"] or self._at
        return at(a, indices) if b is None else at(a, indices, b)

    def _at(self, a, indices, *args):
        U.check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = self._dtype(a, *args)
        a = LU.convert(U.as_array("at", a), dtype)
        args = tuple(LU.convert(U.as_array("at", x), dtype) for x in args)
        idx = indices if isinstance(indices, tuple) else (indices,)
        if not idx:
            return a
        shape = U.aval_of(a).shape
        positions = _index(LU.reshape(arange(math.prod(shape)), shape), idx)
        arrays = [i for i in idx if not isinstance(i, slice) and i is not None and
                  i is not Ellipsis]
        batch = U.broadcast_shapes("at", *(U.aval_of(i).shape for i in arrays)) if arrays else ()
        flat = ravel(a)
        if not batch:
            cur = LU.reshape(_gather_1d(flat, ravel(positions)), U.aval_of(positions).shape)
            vals = self(cur, *args)
            vals = LU.broadcast_to(LU.convert(vals, dtype), U.aval_of(positions).shape)
            return reshape(scatter_set(flat, [positions], vals, unique=True), shape)
        return self._at_loop(flat, positions, batch, args, dtype, shape)

    def _at_loop(self, flat, positions, batch, args, dtype, shape):
        nb = math.prod(batch)
        window = U.aval_of(positions).shape[len(batch):]
        positions = LU.reshape(positions, (nb,) + window)
        if args:
            arg = args[0]
            s = U.aval_of(arg).shape
            arg = LU.broadcast_to(arg, batch + s[len(batch):]) if s[:len(batch)] != batch \
                else arg
            args = (LU.reshape(arg, (nb,) + U.aval_of(arg).shape[len(batch):]),)

        def body(i, x):
            pos = _index(positions, i)
            cur = LU.reshape(_gather_1d(x, ravel(pos)), U.aval_of(pos).shape)
            new = self(cur, *(_index(g, i) for g in args))
            new = LU.broadcast_to(LU.convert(new, dtype), U.aval_of(pos).shape)
            return scatter_set(x, [pos], new, unique=True)

        return reshape(LC.fori_loop(0, nb, body, flat), shape)

    # ---- reduceat, outer -----------------------------------------------------------------------
    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        """Folds of the ufunc over the slices ``indices[i]:indices[i+1]`` along ``axis``."""
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self._impl["reduceat"] or self._reduceat
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat(self, a, indices, axis=0, dtype=None):
        U.check_arraylike(f"{self.__name__}.reduceat", a, indices)
        x = U.as_array("reduceat", a)
        idx = U.as_array("reduceat", indices)
        if U.aval_of(x).ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got "
                             f"a.shape={U.aval_of(x).shape}")
        if U.aval_of(idx).ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got "
                             f"indices.shape={U.aval_of(idx).shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = LU.canonicalize_axis(axis, U.aval_of(x).ndim)
        out = take(x, idx, axis=axis)
        nd = U.aval_of(out).ndim
        bounds = append(idx, U.aval_of(x).shape[axis])
        bounds = LS.expand_dims(bounds, [d for d in range(nd) if d != axis])
        m = U.aval_of(bounds).shape[axis]
        lo = LS.slice_in_dim(bounds, 0, m - 1, axis=axis)
        hi = LS.slice_in_dim(bounds, 1, m, axis=axis)

        def body(i, acc):
            inside = logical_and(greater(i, lo), less(i, hi))
            step = self(acc, take(x, LS.expand_dims(i, (0,)), axis=axis))
            return where_(inside, step, acc)

        return LC.fori_loop(0, U.aval_of(x).shape[axis], body, out)

    def outer(self, A, B, /):
        """The ufunc of every pair of elements of ``A`` and ``B`` (shape ``A.shape +
        B.shape``)."""
        self._binary("outer")
        U.check_arraylike(f"{self.__name__}.outer", A, B)
        a, b = U.as_array("outer", A), U.as_array("outer", B)
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(a), ravel(b))
        return reshape(result, U.aval_of(a).shape + U.aval_of(b).shape)


def frompyfunc(func, /, nin: int, nout: int, *, identity=None) -> ufunc:
    """A ``ufunc`` from the scalar function ``func`` of ``nin`` inputs and ``nout`` outputs
    (``jax.numpy.frompyfunc``)."""
    return ufunc(func, nin, nout, identity=identity)
