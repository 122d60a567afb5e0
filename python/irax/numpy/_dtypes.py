"""Dtype names and queries of ``irax.numpy``: scalar types that build arrays, finfo, iinfo,
issubdtype, result_type, promote_types, and the constants pi, e, inf, nan, newaxis.

    jnp.float32(1)            # a strongly typed float32 scalar array
    np.dtype(jnp.bfloat16)    # bfloat16: the scalar types are also dtype-likes
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from irax.core import dtypes
from irax.numpy._creation import asarray

dtype = np.dtype
finfo = dtypes.finfo
iinfo = dtypes.iinfo
issubdtype = dtypes.issubdtype
promote_types = dtypes.promote_types

# Abstract scalar categories (for issubdtype).
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
complexfloating, integer = np.complexfloating, np.integer
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
character, flexible = np.character, np.flexible


class _ScalarMeta(type):
    """The metaclass of ``jnp.float32`` and friends: a dtype-like that builds arrays."""

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other) -> bool:
        return not cls == other

    def __call__(cls, x):
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type(np_type, name: str):
    dt = np.dtype(np_type)
    return _ScalarMeta(name, (object,), {
        "dtype": dt, "__module__": "irax.numpy",
        "__doc__": f"A {name} scalar type: ``{name}(x)`` is ``asarray(x, dtype={name})``."})


bool_ = _scalar_type(np.bool_, "bool")
int8 = _scalar_type(np.int8, "int8")
int16 = _scalar_type(np.int16, "int16")
int32 = _scalar_type(np.int32, "int32")
int64 = _scalar_type(np.int64, "int64")
uint8 = _scalar_type(np.uint8, "uint8")
uint16 = _scalar_type(np.uint16, "uint16")
uint32 = _scalar_type(np.uint32, "uint32")
uint64 = _scalar_type(np.uint64, "uint64")
bfloat16 = _scalar_type(ml_dtypes.bfloat16, "bfloat16")
float16 = _scalar_type(np.float16, "float16")
float32 = _scalar_type(np.float32, "float32")
float64 = _scalar_type(np.float64, "float64")
complex64 = _scalar_type(np.complex64, "complex64")
complex128 = _scalar_type(np.complex128, "complex128")
float8_e4m3fn = _scalar_type(ml_dtypes.float8_e4m3fn, "float8_e4m3fn")
float8_e5m2 = _scalar_type(ml_dtypes.float8_e5m2, "float8_e5m2")
int4 = _scalar_type(ml_dtypes.int4, "int4")
uint4 = _scalar_type(ml_dtypes.uint4, "uint4")
int2 = _scalar_type(ml_dtypes.int2, "int2")
uint2 = _scalar_type(ml_dtypes.uint2, "uint2")
# 1-bit ints: dtype-likes only (their MLIR type i1 is bool's; no array can hold them)
int1 = _scalar_type(ml_dtypes.int1, "int1")
uint1 = _scalar_type(ml_dtypes.uint1, "uint1")
float8_e3m4 = _scalar_type(ml_dtypes.float8_e3m4, "float8_e3m4")
float8_e4m3 = _scalar_type(ml_dtypes.float8_e4m3, "float8_e4m3")
float8_e4m3b11fnuz = _scalar_type(ml_dtypes.float8_e4m3b11fnuz, "float8_e4m3b11fnuz")
float8_e4m3fnuz = _scalar_type(ml_dtypes.float8_e4m3fnuz, "float8_e4m3fnuz")
float8_e5m2fnuz = _scalar_type(ml_dtypes.float8_e5m2fnuz, "float8_e5m2fnuz")
float8_e8m0fnu = _scalar_type(ml_dtypes.float8_e8m0fnu, "float8_e8m0fnu")
float6_e2m3fn = _scalar_type(ml_dtypes.float6_e2m3fn, "float6_e2m3fn")
float6_e3m2fn = _scalar_type(ml_dtypes.float6_e3m2fn, "float6_e3m2fn")
float4_e2m1fn = _scalar_type(ml_dtypes.float4_e2m1fn, "float4_e2m1fn")
object_ = np.object_      # JAX's too: a NumPy name; arrays of objects are refused
ComplexWarning = np.exceptions.ComplexWarning

bool = bool_  # noqa: A001
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double, csingle, cdouble = float32, float64, complex64, complex128
half = float16

pi = float(np.pi)
e = float(np.e)
euler_gamma = float(np.euler_gamma)
inf = float(np.inf)
nan = float(np.nan)
newaxis = None


def result_type(*args):
    """The dtype ``args`` promote to (JAX's lattice; weak results materialise)."""
    return dtypes.result_type(*args)


def can_cast(from_, to, casting: str = "safe") -> bool:
    return bool(np.can_cast(np.dtype(from_), np.dtype(to), casting))


def isdtype(dtype, kind) -> bool:
    """``jnp.isdtype``: whether ``dtype`` is of ``kind`` (a kind name, a dtype, or a tuple of
    them), knowing bfloat16 and the small floats."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    tests = {"bool": dtypes.is_bool, "signed integer": dtypes.is_signed,
             "unsigned integer": dtypes.is_unsigned, "integral": dtypes.is_int,
             "real floating": dtypes.is_float, "complex floating": dtypes.is_complex,
             "numeric": lambda d: not dtypes.is_bool(d)}
    d = np.dtype(dtype)
    for k in kinds:
        if isinstance(k, str):
            if k not in tests:
                raise ValueError(f"kind argument must be a valid dtype kind, got {k!r}")
            if tests[k](d):
                return True
        elif np.dtype(k) == d:
            return True
    return False
