"""Dtypes and JAX's type-promotion rules.

A value's type for promotion is a pair ``(dtype, weak)``. Python scalars are *weak*: they adapt to
the other operand (``int8 + 1`` is int8). Promotion is the least upper bound (join) in a small
type lattice whose nodes are the strong dtypes plus the weak kinds ``i*``, ``f*`` and ``c*``:

    b -> i*;  i* -> u8, i8 (and the 2/4-bit ints, terminal)
    u8 -> u16, i16;  u16 -> u32, i32;  u32 -> u64, i64 (x32: u64, i32);  u64 -> f*
    i8 -> i16 -> i32 -> i64 -> f*
    f* -> bf16, f16, c* (and the fp8/fp6/fp4 types, terminal)
    bf16 -> f32;  f16 -> f32;  f32 -> f64, c64;  f64 -> c128;  c* -> c64 -> c128

The joins of every pair of nodes are computed once at import into tables (one per x64 mode, plus
the 'strict' lattice), so :func:`result_type` is a few dict look-ups per argument.

With ``jax_enable_x64`` off every 64-bit dtype is canonicalised to its 32-bit counterpart. The flag
is read from :data:`irax.config.config` at every call, never cached.
"""

from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np

from irax.core.config import config
from irax.core.shape_poly import Dim

__all__ = [
    "TypePromotionError", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128", "float0",
    "int2", "int4", "uint2", "uint4", "float8_e4m3fn", "float8_e5m2", "all_dtypes",
    "python_scalar_dtypes", "canonicalize_dtype", "check_user_dtype", "default_int_dtype",
    "default_uint_dtype", "default_float_dtype", "default_complex_dtype", "dtype_and_weak",
    "dtype_of", "check_python_int", "promote_types", "result_type", "issubdtype", "is_float",
    "is_complex", "is_int", "is_unsigned", "is_signed", "is_bool", "is_inexact",
    "to_inexact_dtype", "to_complex_dtype", "real_dtype", "finfo", "iinfo", "sum_dtype",
    "mlir_element_type", "dtype_from_mlir", "short_name", "extended", "prng_key",
    "itemsize_bits", "scalar_type_of",
]


class TypePromotionError(ValueError):
    """Raised when operand dtypes have no implicit promotion path (fp8, 4-bit ints, strict mode)."""


# ------------------------------------------------------------------------------------------------
# Dtype constants
# ------------------------------------------------------------------------------------------------
bool_ = np.dtype(np.bool_)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)
# The tangent type of integer/bool values (an empty structured dtype, as in JAX).
float0 = np.dtype([("float0", np.void, 0)])

int2 = np.dtype(ml_dtypes.int2)
int4 = np.dtype(ml_dtypes.int4)
uint2 = np.dtype(ml_dtypes.uint2)
uint4 = np.dtype(ml_dtypes.uint4)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)

# The 15 standard dtypes, in the order of the promotion table.
all_dtypes: tuple[np.dtype, ...] = (
    bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
    bfloat16, float16, float32, float64, complex64, complex128,
)

# name -> MLIR element type of the low-precision ml_dtypes floats (no implicit promotion).
_SMALL_FLOAT_MLIR = {
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e4m3": "f8E4M3", "float8_e3m4": "f8E3M4", "float8_e8m0fnu": "f8E8M0FNU",
    "float6_e2m3fn": "f6E2M3FN", "float6_e3m2fn": "f6E3M2FN", "float4_e2m1fn": "f4E2M1FN",
}
_small_floats = tuple(np.dtype(getattr(ml_dtypes, n)) for n in _SMALL_FLOAT_MLIR
                      if hasattr(ml_dtypes, n))
_small_sints = (int2, int4)
_small_uints = (uint2, uint4)
_small_ints = _small_sints + _small_uints

# Every dtype irax supports, with its kind: 'b', 'i', 'u', 'f', 'c' or 'float0'.
_KIND: dict[np.dtype, str] = {float0: "float0"}
for _dt in all_dtypes + _small_floats + _small_ints:
    _KIND[_dt] = ("f" if _dt in _small_floats or _dt == bfloat16 else
                  "i" if _dt in _small_sints else "u" if _dt in _small_uints else _dt.kind)
#: the floats whose NumPy rules compute in float32 and round back (set lookup: an
#: eager op's ``dtype.name`` costs a microsecond)
LOW_PRECISION_FLOATS = frozenset((float16, bfloat16))
_CUSTOM = frozenset((bfloat16,) + _small_floats + _small_ints)   # numpy does not know their kind

python_scalar_dtypes: dict[type, np.dtype] = {
    bool: bool_, int: int64, float: float64, complex: complex128,
}

_TO_32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def _x64() -> bool:
    return bool(config.jax_enable_x64)


def default_int_dtype() -> np.dtype:
    return int64 if _x64() else int32


def default_uint_dtype() -> np.dtype:
    return uint64 if _x64() else uint32


def default_float_dtype() -> np.dtype:
    return float64 if _x64() else float32


def default_complex_dtype() -> np.dtype:
    return complex128 if _x64() else complex64


# ------------------------------------------------------------------------------------------------
# Canonicalisation
# ------------------------------------------------------------------------------------------------
# Canonical dtype of every supported dtype, per x64 mode.
_CANON: dict[bool, dict[np.dtype, np.dtype]] = {
    True: {dt: dt for dt in _KIND},
    False: {dt: _TO_32.get(dt, dt) for dt in _KIND},
}
_DTYPE_LIKE_MEMO: dict[Any, np.dtype] = {}


def _is_extended(x: Any) -> bool:
    return not isinstance(x, np.dtype) and bool(getattr(x, "_irax_extended_dtype", False))


def _to_np_dtype(x: Any) -> np.dtype:
    """Converts a dtype-like to a native-byte-order np.dtype, without canonicalising. TypeError if
    it is not a dtype at all."""
    if isinstance(x, np.dtype):
        dt = x
    elif isinstance(x, (type, str)):
        try:
            return _DTYPE_LIKE_MEMO[x]
        except KeyError:
            pass
        try:
            dt = np.dtype(x)
        except Exception as err:
            raise TypeError(f"Cannot interpret {x!r} as a dtype") from err
    elif hasattr(x, "dtype"):
        return _to_np_dtype(x.dtype)
    else:
        try:
            dt = np.dtype(x)
        except Exception as err:
            raise TypeError(f"Cannot interpret {x!r} as a dtype") from err
    if dt.byteorder == ">" or (dt.byteorder == "<" and not np.little_endian):
        dt = dt.newbyteorder("=")
    if isinstance(x, (type, str)) and len(_DTYPE_LIKE_MEMO) < 4096:
        _DTYPE_LIKE_MEMO[x] = dt
    return dt


def _canon(x: Any, x64: bool) -> np.dtype:
    """Canonical dtype of a dtype-like, TypeError if unsupported."""
    table = _CANON[x64]
    canon = table.get(x) if isinstance(x, np.dtype) else None
    if canon is None:
        canon = table.get(_to_np_dtype(x))
        if canon is None:
            raise TypeError(f"unsupported dtype {x!r}")
    return canon


def canonicalize_dtype(dtype: Any, allow_extended: bool = False) -> np.dtype:
    """The dtype irax uses for ``dtype``: 64-bit types become 32-bit ones while x64 is off.

    Accepts Python types (``int`` -> the default int, ...), strings, numpy dtypes and scalar types
    and the ml_dtypes types. Unsupported dtypes (object, str, longdouble, ...) raise TypeError.
    With ``allow_extended``, extended dtypes (objects with a true ``_irax_extended_dtype``
    attribute, e.g. PRNG key types) are returned unchanged.
    """
    if allow_extended and _is_extended(dtype):
        return dtype
    return _canon(dtype, _x64())


def check_user_dtype(dtype: Any, fun_name: str) -> np.dtype | None:
    """Canonicalises a dtype passed explicitly by a user to ``fun_name``.

    Returns None for None. Warns (UserWarning) when a 64-bit dtype is requested with x64 off;
    Python's ``int``/``float``/``complex`` mean the default types and never warn. Unsupported
    dtypes raise ``TypeError(f"{fun_name}: unsupported dtype {dtype!r}")``.
    """
    if dtype is None:
        return None
    if isinstance(dtype, type) and dtype in python_scalar_dtypes:
        return _CANON[_x64()][python_scalar_dtypes[dtype]]
    try:
        dt = _to_np_dtype(dtype)
    except TypeError:
        raise TypeError(f"{fun_name}: unsupported dtype {dtype!r}") from None
    canon = _CANON[_x64()].get(dt)
    if canon is None:
        raise TypeError(f"{fun_name}: unsupported dtype {dtype!r}")
    if canon != dt:
        warnings.warn(
            f"Explicitly requested dtype {short_name(dt)} requested in {fun_name} is not "
            f"available, and will be truncated to dtype {short_name(canon)}. To enable more "
            "dtypes, set the jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
            "environment variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
            UserWarning, stacklevel=3)
    return canon


# ------------------------------------------------------------------------------------------------
# The promotion lattice
# ------------------------------------------------------------------------------------------------
# Lattice nodes are strings: a strong dtype's short name, or one of the weak kinds below.
_WI, _WF, _WC = "i*", "f*", "c*"
_WEAK_NODES = (_WI, _WF, _WC)
_WEAK_NODE_PYTYPE = {_WI: int, _WF: float, _WC: complex}


def _node_name(dt: np.dtype) -> str:
    return "float0" if dt == float0 else dt.name


_NODE_DTYPE: dict[str, np.dtype] = {_node_name(dt): dt for dt in _KIND}
# dtype -> its strong node, and -> the node of a weakly typed value of that dtype.
_STRONG_NODE: dict[np.dtype, str] = {dt: _node_name(dt) for dt in _KIND}
_WEAK_NODE: dict[np.dtype, str] = {
    dt: {"b": "bool", "i": _WI, "u": _WI, "f": _WF, "c": _WC, "float0": "float0"}[k]
    for dt, k in _KIND.items()
}
_PY_NODE: dict[type, str] = {bool: "bool", int: _WI, float: _WF, complex: _WC}


def _edges(x64: bool, strict: bool) -> dict[str, list[str]]:
    n = _node_name
    nodes = list(_NODE_DTYPE) + list(_WEAK_NODES)
    e: dict[str, list[str]] = {k: [] for k in nodes}
    if strict:
        # Only weak values promote: to any dtype of their kind or to the next weak kind.
        e[_WI] = [_WF] + [n(d) for d, k in _KIND.items() if k in ("i", "u")]
        e[_WF] = [_WC] + [n(d) for d, k in _KIND.items() if k == "f"]
        e[_WC] = [n(complex64), n(complex128)]
        return e
    e["bool"] = [_WI]
    e[_WI] = [n(uint8), n(int8)] + [n(d) for d in _small_ints]
    e[n(uint8)] = [n(uint16), n(int16)]
    e[n(uint16)] = [n(uint32), n(int32)]
    e[n(uint32)] = [n(uint64), n(int64) if x64 else n(int32)]
    e[n(uint64)] = [_WF]
    e[n(int8)] = [n(int16)]
    e[n(int16)] = [n(int32)]
    e[n(int32)] = [n(int64)]
    e[n(int64)] = [_WF]
    e[_WF] = [n(bfloat16), n(float16), _WC] + [n(d) for d in _small_floats]
    e[n(bfloat16)] = [n(float32)]
    e[n(float16)] = [n(float32)]
    e[n(float32)] = [n(float64), n(complex64)]
    e[n(float64)] = [n(complex128)]
    e[_WC] = [n(complex64)]
    e[n(complex64)] = [n(complex128)]
    return e


def _join_table(x64: bool, strict: bool) -> dict[tuple[str, str], str | None]:
    """Least upper bound of every pair of nodes (None where the pair has no upper bound)."""
    edges = _edges(x64, strict)
    up: dict[str, frozenset[str]] = {}

    def uppers(a: str) -> frozenset[str]:
        if a not in up:
            s = {a}
            for b in edges[a]:
                s |= uppers(b)
            up[a] = frozenset(s)
        return up[a]

    table: dict[tuple[str, str], str | None] = {}
    for a in edges:
        for b in edges:
            common = uppers(a) & uppers(b)
            least = [c for c in common if common <= uppers(c)]
            if common and len(least) != 1:
                raise AssertionError(f"promotion graph is not a lattice at {a}, {b}")
            table[a, b] = least[0] if least else None
    return table


_JOIN = {(x64, False): _join_table(x64, False) for x64 in (False, True)}
_JOIN[False, True] = _JOIN[True, True] = _join_table(True, True)


def _materialize_table(x64: bool) -> dict[str, tuple[np.dtype, bool]]:
    canon = _CANON[x64]
    out = {name: (canon[dt], False) for name, dt in _NODE_DTYPE.items()}
    for w in _WEAK_NODES:
        out[w] = (canon[python_scalar_dtypes[_WEAK_NODE_PYTYPE[w]]], True)
    return out


_MATERIALIZE = {x64: _materialize_table(x64) for x64 in (False, True)}


def _display(node: str) -> str:
    return repr(_WEAK_NODE_PYTYPE[node]) if node in _WEAK_NODE_PYTYPE else node


def _promotion_error(nodes: list[str], strict: bool) -> TypePromotionError:
    names = tuple(_display(n) for n in dict.fromkeys(nodes))
    head = f"Input dtypes {names} have no available implicit dtype promotion path"
    if strict:
        return TypePromotionError(
            f"{head} when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the "
            "desired output type, or set jax_numpy_dtype_promotion=standard.")
    small_f = {_node_name(d) for d in _small_floats}
    small_i = {_node_name(d) for d in _small_ints}
    if "float0" in nodes:
        return TypePromotionError(
            f"{head}: float0 (the tangent dtype of integer and boolean values) does not take part "
            "in type promotion.")
    if small_f & set(nodes):
        return TypePromotionError(
            f"{head}. To avoid unintended promotion, 8-bit floats do not support implicit "
            "promotion. If you'd like your inputs to be promoted to another type, you can do so "
            "explicitly using e.g. x.astype('float32')")
    if small_i & set(nodes):
        return TypePromotionError(
            f"{head}. To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not "
            "support implicit promotion. If you'd like your inputs to be promoted to another "
            "type, you can do so explicitly using e.g. x.astype('int32')")
    return TypePromotionError(f"{head}. Try explicitly casting inputs to the desired output type.")


def _is_strict() -> bool:
    mode = config.jax_numpy_dtype_promotion
    if mode == "standard":
        return False
    if mode == "strict":
        return True
    raise ValueError(f"jax_numpy_dtype_promotion must be 'standard' or 'strict', got {mode!r}")


def _join_nodes(nodes: list[str], x64: bool) -> str:
    strict = _is_strict()
    table = _JOIN[x64, strict]
    node = nodes[0]
    for other in nodes[1:]:
        if other != node:
            joined = table[node, other]
            if joined is None:
                raise _promotion_error(nodes, strict)
            node = joined
    return node


# ------------------------------------------------------------------------------------------------
# Weak types and result_type
# ------------------------------------------------------------------------------------------------
def _node_of(x: Any, x64: bool) -> str:
    """The lattice node of a promotion argument (values are canonicalised first)."""
    node = _PY_NODE.get(type(x))
    if node is not None:
        return node
    if isinstance(x, np.dtype):
        return _STRONG_NODE[_canon(x, x64)]
    if isinstance(x, (type, str)):
        if isinstance(x, type) and x in _PY_NODE:
            return _PY_NODE[x]
        return _STRONG_NODE[_canon(x, x64)]
    dt, weak = _dtype_and_weak(x, x64)
    return _WEAK_NODE[dt] if weak else _STRONG_NODE[dt]


def _dtype_and_weak(x: Any, x64: bool) -> tuple[np.dtype, bool]:
    canon_map = _CANON[x64]
    t = type(x)
    if t in _PY_NODE:
        dt = python_scalar_dtypes[t]
        return canon_map[dt], t is not bool
    if t is Dim:   # a symbolic size is a Python int whose value is not known yet
        return canon_map[python_scalar_dtypes[int]], True
    dt_attr = getattr(x, "dtype", None) if not isinstance(x, type) else None
    if dt_attr is not None:
        if _is_extended(dt_attr):
            return dt_attr, bool(getattr(x, "weak_type", False))
        canon = _canon(dt_attr, x64)
        weak = bool(getattr(x, "weak_type", False)) and canon != bool_
        return canon, weak
    if isinstance(x, (bool, int, float, complex)):  # subclasses, e.g. IntEnum
        for py in (bool, int, float, complex):
            if isinstance(x, py):
                return canon_map[python_scalar_dtypes[py]], py is not bool
    if isinstance(x, type) and x in _PY_NODE:
        return canon_map[python_scalar_dtypes[x]], x is not bool
    if x is None:
        return canon_map[float64], False
    if isinstance(x, (type, str, np.dtype)):
        return canonicalize_dtype(x), False
    return canonicalize_dtype(np.asarray(x).dtype), False


def dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
    """The promotion type ``(canonical dtype, weak)`` of a value.

    Python bool -> (bool, False); int/float/complex -> (default dtype of that kind, True);
    numpy scalars/arrays -> (canonicalised dtype, False); objects with ``.dtype`` and
    ``.weak_type`` (irax arrays and tracers) use those (a weak bool is not weak). A dtype-like
    (np.dtype, string, scalar type) is strong, except the Python types int/float/complex.
    """
    return _dtype_and_weak(x, _x64())


def dtype_of(x: Any) -> np.dtype:
    """The canonical dtype of a value (``jax.dtypes.dtype``)."""
    return _dtype_and_weak(x, _x64())[0]


def check_python_int(value: int, dtype: Any = None, fun_name: str | None = None) -> int:
    """Checks that a Python int fits ``dtype`` (None: the default int type, int32 / int64).

    Operators pass None: the int must fit the default int type and is then cast to the other
    operand's dtype with wraparound. Non-integer target dtypes are not checked.
    """
    dt = default_int_dtype() if dtype is None else _to_np_dtype(dtype)
    if _KIND.get(dt) in ("i", "u"):
        info = iinfo(dt)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python int {value} too large to convert to {short_name(dt)}")
    return value


def promote_types(a: Any, b: Any) -> np.dtype:
    """The join of two dtypes (``jnp.promote_types``): not canonicalised, so float64 stays
    float64 with x64 off. Python ``int``/``float``/``complex`` act as weak types; a weak result
    is the 64-bit type of its kind."""
    x64 = _x64()
    nodes = []
    for x in (a, b):
        if isinstance(x, type) and x in _PY_NODE:
            nodes.append(_PY_NODE[x])
        else:
            dt = _to_np_dtype(x)
            if dt not in _STRONG_NODE:
                raise TypeError(f"unsupported dtype {x!r}")
            nodes.append(_STRONG_NODE[dt])
    node = _join_nodes(nodes, x64)
    if node in _WEAK_NODE_PYTYPE:
        return python_scalar_dtypes[_WEAK_NODE_PYTYPE[node]]
    return _NODE_DTYPE[node]


def result_type(*args: Any, return_weak_type_flag: bool = False):
    """The dtype ``jnp`` functions promote ``args`` to (JAX's lattice join).

    Each argument is an array-like, a Python scalar, a dtype-like (strong) or an object with
    ``dtype``/``weak_type``. A weak result materialises as the default dtype of its kind; with
    ``return_weak_type_flag`` returns ``(dtype, weak)``. Raises TypePromotionError when there is
    no implicit promotion path.
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    x64 = _x64()
    if len(args) == 1:
        node = _node_of(args[0], x64)
    else:
        node = _join_nodes([_node_of(a, x64) for a in args], x64)
    dt, weak = _MATERIALIZE[x64][node]
    return (dt, weak) if return_weak_type_flag else dt


# ------------------------------------------------------------------------------------------------
# Kind helpers
# ------------------------------------------------------------------------------------------------
_ABSTRACT = frozenset({np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger,
                       np.inexact, np.floating, np.complexfloating})
_KIND_REPRESENTATIVE = {"f": np.float16, "i": np.int8, "u": np.uint8}


def _as_dtype(x: Any) -> np.dtype:
    if isinstance(x, np.dtype) and x in _KIND:
        return x
    return _to_np_dtype(x)


class extended(np.generic):  # noqa: N801 - JAX's name
    """The abstract category of dtypes NumPy does not have (``jax.dtypes.extended``)."""


class prng_key(extended):  # noqa: N801 - JAX's name
    """The category of typed PRNG key dtypes (``jax.dtypes.prng_key``):
    ``issubdtype(key.dtype, prng_key)``."""


def issubdtype(a: Any, b: Any) -> bool:
    """``np.issubdtype`` that knows bfloat16 and the fp8 types are floating and the 2/4-bit ints
    are integers; key dtypes (with a ``type`` in :class:`extended`) are extended."""
    category = getattr(a, "type", None)
    if not isinstance(a, (np.dtype, type)) and isinstance(category, type) \
            and issubclass(category, extended):
        if isinstance(b, type) and issubclass(b, np.generic):
            return issubclass(category, b)
        return a == b
    if isinstance(b, type) and b in (extended, prng_key):
        return isinstance(a, type) and issubclass(a, b)
    if isinstance(a, type) and a in _ABSTRACT:
        return bool(np.issubdtype(a, b))
    a_dt = _as_dtype(a)
    if a_dt in _CUSTOM:
        if isinstance(b, type) and b in _ABSTRACT:
            return issubclass(_KIND_REPRESENTATIVE[_KIND[a_dt]], b)
        return a_dt == _as_dtype(b)
    if isinstance(b, type) and b in _ABSTRACT:
        return bool(np.issubdtype(a_dt, b))
    return a_dt == _as_dtype(b)


def _kind(dt: Any) -> str:
    d = _as_dtype(dt)
    k = _KIND.get(d)
    return d.kind if k is None else k


def is_bool(dt: Any) -> bool:
    return _kind(dt) == "b"


def is_float(dt: Any) -> bool:
    """Real floating point, including bfloat16 and the fp8 types."""
    return _kind(dt) == "f"


def is_complex(dt: Any) -> bool:
    return _kind(dt) == "c"


def is_int(dt: Any) -> bool:
    """Signed or unsigned integer (not bool)."""
    return _kind(dt) in ("i", "u")


def is_signed(dt: Any) -> bool:
    return _kind(dt) == "i"


def is_unsigned(dt: Any) -> bool:
    return _kind(dt) == "u"


def is_inexact(dt: Any) -> bool:
    return _kind(dt) in ("f", "c")


def to_inexact_dtype(dt: Any) -> np.dtype:
    """The dtype inexact operations (``/``, sqrt, mean, ...) compute in: bool and ints up to 32
    bits -> float32 (even with x64), 64-bit ints -> float64 (canonicalised); floats and complex
    are unchanged."""
    d = _as_dtype(dt)
    k = _kind(d)
    if k in ("f", "c"):
        return d
    if k in ("b", "i", "u"):
        return canonicalize_dtype(float64) if d.itemsize > 4 else float32
    raise TypeError(f"{short_name(d)} has no inexact counterpart")


def to_complex_dtype(dt: Any) -> np.dtype:
    """The complex dtype holding values of ``dt`` (complex128 for 64-bit types, canonicalised)."""
    f = to_inexact_dtype(dt)
    if f in (float64, complex128):
        return canonicalize_dtype(complex128)
    return complex64


def real_dtype(dt: Any) -> np.dtype:
    """The dtype of the real part: complex64 -> float32, complex128 -> float64, others unchanged."""
    d = _as_dtype(dt)
    return {complex64: float32, complex128: float64}.get(d, d)


def finfo(dt: Any):
    """Machine limits of a float dtype (bfloat16 and fp8 included)."""
    d = _as_dtype(dt)
    return ml_dtypes.finfo(d) if d in _CUSTOM else np.finfo(d)


def iinfo(dt: Any):
    """Machine limits of an integer dtype (the 2/4-bit ints included)."""
    d = _as_dtype(dt)
    return ml_dtypes.iinfo(d) if d in _CUSTOM else np.iinfo(d)


def itemsize_bits(dt: Any) -> int:
    """The size of one element in bits (``jax.dtypes.itemsize_bits``): 4 for int4, 8 for
    float8_e5m2, 32 for float32."""
    d = _as_dtype(dt)
    if d == float0:
        return 0
    if d in _small_ints:
        return iinfo(d).bits
    if d in _small_floats:
        return {"f4": 4, "f6": 6}.get(_MLIR_NAME[d][:2], 8)
    return d.itemsize * 8


_SCALAR_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x: Any) -> type:
    """The Python scalar type of a value's dtype (``jax.dtypes.scalar_type_of``):
    ``float`` for ``1.0`` or a float32 array, ``int`` for int8, ``bool`` for bool."""
    return _SCALAR_TYPES[_kind(dtype_of(x))]


def sum_dtype(dt: Any) -> np.dtype:
    """The dtype ``sum``/``prod`` accumulate and return with ``dtype=None``: bool and signed ints
    narrower than the default int -> default int; unsigned ints narrower than the default uint ->
    default uint (so i8/i16/u8/u16 in x32, and also i32/u32 in x64); other dtypes unchanged."""
    d = _as_dtype(dt)
    k = _kind(d)
    if k == "b":
        return default_int_dtype()
    if k == "i":
        di = default_int_dtype()
        return di if d.itemsize < di.itemsize else d
    if k == "u":
        du = default_uint_dtype()
        return du if d.itemsize < du.itemsize else d
    return d


# ------------------------------------------------------------------------------------------------
# Names
# ------------------------------------------------------------------------------------------------
_MLIR_NAME: dict[np.dtype, str] = {
    bool_: "i1", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
    uint8: "ui8", uint16: "ui16", uint32: "ui32", uint64: "ui64",
    bfloat16: "bf16", float16: "f16", float32: "f32", float64: "f64",
    complex64: "complex<f32>", complex128: "complex<f64>",
    int2: "i2", int4: "i4", uint2: "ui2", uint4: "ui4",
}
_MLIR_NAME.update({d: _SMALL_FLOAT_MLIR[d.name] for d in _small_floats})
_FROM_MLIR: dict[str, np.dtype] = {v: k for k, v in _MLIR_NAME.items()}


def mlir_element_type(dt: Any) -> str:
    """The MLIR element type spelling of a dtype (signless ``iN`` for signed ints, ``uiN`` for
    unsigned, ``i1`` for bool)."""
    d = _as_dtype(dt)
    try:
        return _MLIR_NAME[d]
    except KeyError:
        raise TypeError(f"dtype {short_name(d)} has no MLIR element type") from None


def dtype_from_name(name: str) -> np.dtype:
    """The dtype NumPy's ``dtype.name`` spells (ml_dtypes' names too: ``"bfloat16"``),
    not canonicalised."""
    return _to_np_dtype(name)


def dtype_from_mlir(name: str) -> np.dtype:
    """Inverse of :func:`mlir_element_type` (also accepts ``siN`` for signed ints)."""
    name = name.strip()
    if name.startswith("si") and name[2:].isdigit():
        name = name[1:]
    try:
        return _FROM_MLIR[name]
    except KeyError:
        raise ValueError(f"unknown MLIR element type {name!r}") from None


def short_name(dt: Any) -> str:
    """JAX's name of a dtype as used in messages: 'float32', 'int32', 'bfloat16', 'bool', ..."""
    if _is_extended(dt):
        return str(getattr(dt, "name", dt))
    d = _as_dtype(dt)
    if d == float0:
        return "float0"
    return d.name
