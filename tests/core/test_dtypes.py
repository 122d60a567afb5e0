"""Tests of irax.core.dtypes against the type-promotion spec (jax-semantics.md section 2) and,
when it is installed, against JAX itself."""

import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import irax.core.dtypes as dt
from irax.config import config

# ------------------------------------------------------------------------------------------------
# Fixtures
# ------------------------------------------------------------------------------------------------


def _set_option(name, value):
    old = config.read(name)
    config.update(name, value)
    return old


@pytest.fixture
def x64():
    old = _set_option("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", old)


@pytest.fixture
def x32():
    old = _set_option("jax_enable_x64", False)
    try:
        yield
    finally:
        config.update("jax_enable_x64", old)


@pytest.fixture
def strict():
    old = _set_option("jax_numpy_dtype_promotion", "strict")
    try:
        yield
    finally:
        config.update("jax_numpy_dtype_promotion", old)


# Abbreviations of the spec's table. Weak types are the Python scalars that carry them.
ABBREV = {
    "b": dt.bool_, "u8": dt.uint8, "u16": dt.uint16, "u32": dt.uint32, "u64": dt.uint64,
    "i8": dt.int8, "i16": dt.int16, "i32": dt.int32, "i64": dt.int64, "bf": dt.bfloat16,
    "f16": dt.float16, "f32": dt.float32, "f64": dt.float64, "c64": dt.complex64,
    "c128": dt.complex128,
}
WEAK_VALUE = {"i*": 1, "f*": 1.0, "c*": 1j}
WEAK_X64 = {"i*": dt.int64, "f*": dt.float64, "c*": dt.complex128}
WEAK_X32 = {"i*": dt.int32, "f*": dt.float32, "c*": dt.complex64}


def operand(tok):
    return WEAK_VALUE[tok] if tok in WEAK_VALUE else ABBREV[tok]


def expected(tok, weak_map):
    return (weak_map[tok], True) if tok in weak_map else (ABBREV[tok], False)


# ------------------------------------------------------------------------------------------------
# 2.2: the full x64 table, cell by cell (row (+) col; * = weak result)
# ------------------------------------------------------------------------------------------------
X64_TABLE = """
      b    u8   u16  u32  u64  i8   i16  i32  i64  bf   f16  f32  f64  c64  c128 i*   f*   c*
b     b    u8   u16  u32  u64  i8   i16  i32  i64  bf   f16  f32  f64  c64  c128 i*   f*   c*
u8    u8   u8   u16  u32  u64  i16  i16  i32  i64  bf   f16  f32  f64  c64  c128 u8   f*   c*
u16   u16  u16  u16  u32  u64  i32  i32  i32  i64  bf   f16  f32  f64  c64  c128 u16  f*   c*
u32   u32  u32  u32  u32  u64  i64  i64  i64  i64  bf   f16  f32  f64  c64  c128 u32  f*   c*
u64   u64  u64  u64  u64  u64  f*   f*   f*   f*   bf   f16  f32  f64  c64  c128 u64  f*   c*
i8    i8   i16  i32  i64  f*   i8   i16  i32  i64  bf   f16  f32  f64  c64  c128 i8   f*   c*
i16   i16  i16  i32  i64  f*   i16  i16  i32  i64  bf   f16  f32  f64  c64  c128 i16  f*   c*
i32   i32  i32  i32  i64  f*   i32  i32  i32  i64  bf   f16  f32  f64  c64  c128 i32  f*   c*
i64   i64  i64  i64  i64  f*   i64  i64  i64  i64  bf   f16  f32  f64  c64  c128 i64  f*   c*
bf    bf   bf   bf   bf   bf   bf   bf   bf   bf   bf   f32  f32  f64  c64  c128 bf   bf   c64
f16   f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f16  f32  f64  c64  c128 f16  f16  c64
f32   f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64  c64  c128 f32  f32  c64
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  c128 c128 f64  f64  c128
c64   c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c128 c64  c128 c64  c64  c64
c128  c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
i*    i*   u8   u16  u32  u64  i8   i16  i32  i64  bf   f16  f32  f64  c64  c128 i*   f*   c*
f*    f*   f*   f*   f*   f*   f*   f*   f*   f*   bf   f16  f32  f64  c64  c128 f*   f*   c*
c*    c*   c*   c*   c*   c*   c*   c*   c*   c*   c64  c64  c64  c128 c64  c128 c*   c*   c*
"""


def _parse_table(text):
    lines = [ln.split() for ln in text.strip().splitlines()]
    cols = lines[0]
    cells = []
    for row in lines[1:]:
        assert len(row) == len(cols) + 1
        cells += [(row[0], c, r) for c, r in zip(cols, row[1:])]
    return cells


X64_CELLS = _parse_table(X64_TABLE)


def test_table_is_complete_and_symmetric():
    assert len(X64_CELLS) == 18 * 18
    table = {(a, b): r for a, b, r in X64_CELLS}
    for (a, b), r in table.items():
        assert table[b, a] == r, (a, b)


@pytest.mark.parametrize("row,col,res", X64_CELLS, ids=[f"{a}+{b}" for a, b, _ in X64_CELLS])
def test_x64_table(x64, row, col, res):
    got = dt.result_type(operand(row), operand(col), return_weak_type_flag=True)
    assert got == expected(res, WEAK_X64)
    assert dt.result_type(operand(row), operand(col)) == expected(res, WEAK_X64)[0]
    if row not in WEAK_VALUE and col not in WEAK_VALUE:
        want = WEAK_X64.get(res, ABBREV.get(res))
        assert dt.promote_types(ABBREV[row], ABBREV[col]) == want


# x32: the same lattice on canonicalised operands, except that u32 + i32 gives i32.
X32_CELLS = [
    ("u32", "i32", "i32"), ("u32", "i8", "i32"), ("u32", "i64", "i32"), ("u64", "i64", "i32"),
    ("u64", "i8", "i32"), ("u8", "i64", "i32"), ("f16", "f64", "f32"), ("f32", "f64", "f32"),
    ("i8", "f*", "f*"), ("b", "i*", "i*"), ("i*", "f*", "f*"), ("f64", "c*", "c64"),
    ("c128", "f16", "c64"), ("i64", "u64", "i32"), ("u8", "i*", "u8"), ("bf", "c*", "c64"),
    ("f64", "f64", "f32"), ("u64", "u64", "u32"), ("c128", "c128", "c64"),
]


@pytest.mark.parametrize("row,col,res", X32_CELLS, ids=[f"{a}+{b}" for a, b, _ in X32_CELLS])
def test_x32_cells(x32, row, col, res):
    want = (WEAK_X32[res], True) if res in WEAK_X32 else (ABBREV[res], False)
    assert dt.result_type(operand(row), operand(col), return_weak_type_flag=True) == want
    assert dt.result_type(operand(col), operand(row), return_weak_type_flag=True) == want


def test_promote_types_is_not_canonicalised(x32):
    assert dt.promote_types(np.uint32, np.int32) == dt.int32
    assert dt.promote_types(np.float64, np.float32) == dt.float64
    assert dt.promote_types(np.uint64, np.int8) == dt.float64
    assert dt.promote_types(int, np.int8) == dt.int8
    assert dt.promote_types(int, int) == dt.int64
    assert dt.promote_types(float, complex) == dt.complex128
    assert dt.promote_types("bfloat16", "float16") == dt.float32


def test_promote_types_x64(x64):
    assert dt.promote_types(np.uint32, np.int32) == dt.int64
    assert dt.promote_types(np.uint64, np.int64) == dt.float64


# ------------------------------------------------------------------------------------------------
# 2.7: representative results (the pure dtype questions)
# ------------------------------------------------------------------------------------------------
def rt(*args):
    return dt.result_type(*args, return_weak_type_flag=True)


def test_representative_x32(x32):
    assert rt(np.float32(1), 1) == (dt.float32, False)
    assert rt(np.float32(1), 1.0) == (dt.float32, False)
    assert rt(dt.int8, dt.uint8) == (dt.int16, False)
    assert rt(dt.int32, dt.uint32) == (dt.int32, False)
    assert rt(dt.bfloat16, dt.float16) == (dt.float32, False)
    assert rt(dt.int32, dt.float16) == (dt.float16, False)
    assert rt(dt.int8, 1) == (dt.int8, False)
    assert rt(dt.int8, 1.0) == (dt.float32, True)
    assert rt(dt.bool_, 1) == (dt.int32, True)
    assert rt(dt.bool_, True) == (dt.bool_, False)
    assert rt(dt.float16, 1j) == (dt.complex64, False)
    assert rt(dt.float32, dt.float64) == (dt.float32, False)
    assert rt(1, 1.0) == (dt.float32, True)
    assert dt.to_inexact_dtype(dt.result_type(dt.int32, dt.int32)) == dt.float32  # int32 / int32
    assert rt(dt.int32, dt.int32) == (dt.int32, False)  # int32 // int32
    assert rt(dt.int32, 2) == (dt.int32, False)  # int32 ** 2
    assert rt(dt.int32, 2.0) == (dt.float32, True)  # int32 ** 2.0
    assert dt.sum_dtype(dt.bool_) == dt.int32
    assert dt.sum_dtype(dt.uint8) == dt.uint32
    assert dt.to_inexact_dtype(dt.int32) == dt.float32  # mean(int32)
    assert dt.to_inexact_dtype(dt.float16) == dt.float16  # mean(f16)
    assert dt.default_int_dtype() == dt.int32  # argmax
    assert rt(True, dt.int8, 1.0) == (dt.float32, True)  # where(True, int8, 1.0)
    assert rt(dt.int8, dt.uint8) == (dt.int16, False)  # concatenate


def test_representative_x64(x64):
    assert rt(dt.int32, dt.uint32) == (dt.int64, False)
    assert rt(dt.int64, dt.uint64) == (dt.float64, True)
    assert rt(dt.float32, dt.float64) == (dt.float64, False)
    assert rt(1, 1.0) == (dt.float64, True)
    assert rt(np.float32(1), 1) == (dt.float32, False)
    assert rt(dt.int8, 1.0) == (dt.float64, True)
    assert dt.to_inexact_dtype(dt.result_type(dt.int32, dt.int32)) == dt.float32
    assert dt.default_int_dtype() == dt.int64


# ------------------------------------------------------------------------------------------------
# 2.3 / 2.4 / 2.5: canonicalisation, weak types, defaults
# ------------------------------------------------------------------------------------------------
class Weak:
    """An irax-array-like object: dtype plus weak_type."""

    def __init__(self, dtype, weak_type):
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type


def test_numpy_values_are_strong_but_canonicalised(x32):
    assert rt(np.zeros(2, np.uint8), np.int64(1)) == (dt.int32, False)
    assert rt(np.zeros(2, np.float16), np.float64(1)) == (dt.float32, False)
    assert dt.dtype_and_weak(np.float64(1)) == (dt.float32, False)
    assert dt.dtype_and_weak(np.arange(3)) == (dt.int32, False)
    assert dt.dtype_and_weak(np.zeros(2)) == (dt.float32, False)


def test_weak_rules(x32):
    assert rt(Weak(dt.int32, True), dt.int8) == (dt.int8, False)
    assert rt(Weak(dt.int32, True), Weak(dt.int8, False)) == (dt.int8, False)
    assert rt(dt.float16, 1.0) == (dt.float16, False)
    assert rt(dt.bfloat16, 1.0) == (dt.bfloat16, False)
    assert rt(dt.uint32, 1.0) == (dt.float32, True)
    assert rt(Weak(dt.int32, True), Weak(dt.float32, True)) == (dt.float32, True)
    # A weakly typed array of any width acts as its kind's weak type.
    assert rt(Weak(dt.int8, True)) == (dt.int32, True)
    assert rt(Weak(dt.bfloat16, True)) == (dt.float32, True)
    # bool is never weak.
    assert dt.dtype_and_weak(True) == (dt.bool_, False)
    assert dt.dtype_and_weak(Weak(dt.bool_, True)) == (dt.bool_, False)
    assert rt(Weak(dt.bool_, True), 1) == (dt.int32, True)
    # Objects without weak_type are strong.

    class Strong:
        dtype = np.dtype("int16")

    assert dt.dtype_and_weak(Strong()) == (dt.int16, False)


def test_python_scalar_defaults(x32):
    assert dt.dtype_and_weak(1) == (dt.int32, True)
    assert dt.dtype_and_weak(1.0) == (dt.float32, True)
    assert dt.dtype_and_weak(1j) == (dt.complex64, True)
    assert dt.dtype_and_weak([1, 2]) == (dt.int32, False)
    assert dt.dtype_and_weak([1, 2.0]) == (dt.float32, False)
    assert dt.canonicalize_dtype(float) == dt.float32
    assert dt.canonicalize_dtype(int) == dt.int32
    assert dt.canonicalize_dtype(complex) == dt.complex64
    assert dt.canonicalize_dtype(bool) == dt.bool_
    assert rt(int) == (dt.int32, True)
    assert rt(bool) == (dt.bool_, False)
    assert rt(None) == (dt.float32, False)
    assert dt.default_uint_dtype() == dt.uint32
    assert dt.default_float_dtype() == dt.float32
    assert dt.default_complex_dtype() == dt.complex64


def test_python_scalar_defaults_x64(x64):
    assert dt.dtype_and_weak(1) == (dt.int64, True)
    assert dt.dtype_and_weak(1.0) == (dt.float64, True)
    assert dt.dtype_and_weak(1j) == (dt.complex128, True)
    assert dt.dtype_and_weak(False) == (dt.bool_, False)
    assert dt.dtype_and_weak(np.arange(3)) == (dt.int64, False)
    assert dt.canonicalize_dtype(float) == dt.float64
    assert dt.canonicalize_dtype(int) == dt.int64
    assert dt.default_uint_dtype() == dt.uint64
    assert dt.default_complex_dtype() == dt.complex128


def test_python_scalar_dtypes():
    assert dt.python_scalar_dtypes == {bool: dt.bool_, int: dt.int64, float: dt.float64,
                                       complex: dt.complex128}


def test_check_python_int(x32):
    assert dt.check_python_int(2**31 - 1) == 2**31 - 1
    assert dt.check_python_int(-(2**31)) == -(2**31)
    with pytest.raises(OverflowError, match=r"^Python int 2147483648 too large to convert to "
                                            r"int32$"):
        dt.check_python_int(2**31, None, "array")
    with pytest.raises(OverflowError, match="too large to convert to uint8"):
        dt.check_python_int(-1, np.uint8, "array")
    assert dt.check_python_int(2**31, np.uint32) == 2**31
    assert dt.check_python_int(2**70, np.float32) == 2**70


def test_check_python_int_x64(x64):
    assert dt.check_python_int(2**31) == 2**31
    with pytest.raises(OverflowError, match="too large to convert to int64"):
        dt.check_python_int(2**63)


def test_canonicalize_dtype(x32):
    assert dt.canonicalize_dtype(np.float64) == dt.float32
    assert dt.canonicalize_dtype("float64") == dt.float32
    assert dt.canonicalize_dtype(np.dtype(">f4")) == dt.float32
    assert dt.canonicalize_dtype("bfloat16") == dt.bfloat16
    assert dt.canonicalize_dtype(ml_dtypes.bfloat16) == dt.bfloat16
    assert dt.canonicalize_dtype("float8_e4m3fn") == dt.float8_e4m3fn
    assert dt.canonicalize_dtype(np.uint64) == dt.uint32
    assert dt.canonicalize_dtype(np.complex128) == dt.complex64
    assert dt.canonicalize_dtype(dt.float0) == dt.float0
    assert isinstance(dt.canonicalize_dtype(np.int16), np.dtype)
    for bad in (object, str, np.longdouble, "U3", "datetime64[s]"):
        with pytest.raises(TypeError):
            dt.canonicalize_dtype(bad)


def test_canonicalize_dtype_x64(x64):
    for d in dt.all_dtypes:
        assert dt.canonicalize_dtype(d) == d
    assert dt.canonicalize_dtype(float) == dt.float64


def test_canonicalize_reads_flag_at_call_time():
    old = config.jax_enable_x64
    try:
        config.update("jax_enable_x64", True)
        assert dt.canonicalize_dtype(np.float64) == dt.float64
        assert dt.result_type(1.0) == dt.float64
        config.update("jax_enable_x64", False)
        assert dt.canonicalize_dtype(np.float64) == dt.float32
        assert dt.result_type(1.0) == dt.float32
    finally:
        config.update("jax_enable_x64", old)


def test_check_user_dtype_warns(x32):
    msg = ("Explicitly requested dtype float64 requested in zeros is not available, and will be "
           "truncated to dtype float32. To enable more dtypes, set the jax_enable_x64 "
           "configuration option or the JAX_ENABLE_X64 shell environment variable. See "
           "https://github.com/jax-ml/jax#current-gotchas for more.")
    with pytest.warns(UserWarning, match="^" + re.escape(msg) + "$"):
        assert dt.check_user_dtype(np.float64, "zeros") == dt.float32
    with pytest.warns(UserWarning, match="dtype int64 requested in arange .* dtype int32"):
        assert dt.check_user_dtype("int64", "arange") == dt.int32
    with pytest.warns(UserWarning, match="dtype complex128 requested in full .* complex64"):
        dt.check_user_dtype(np.dtype(np.complex128), "full")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dt.check_user_dtype(float, "zeros") == dt.float32
        assert dt.check_user_dtype(int, "zeros") == dt.int32
        assert dt.check_user_dtype(np.float32, "zeros") == dt.float32
        assert dt.check_user_dtype("bfloat16", "zeros") == dt.bfloat16
        assert dt.check_user_dtype(None, "zeros") is None


def test_check_user_dtype_x64_no_warning(x64):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dt.check_user_dtype(np.float64, "zeros") == dt.float64
        assert dt.check_user_dtype(int, "zeros") == dt.int64


def test_check_user_dtype_unsupported():
    with pytest.raises(TypeError, match=r"^zeros: unsupported dtype <class 'object'>$"):
        dt.check_user_dtype(object, "zeros")
    with pytest.raises(TypeError, match=r"^ones: unsupported dtype <class 'str'>$"):
        dt.check_user_dtype(str, "ones")
    with pytest.raises(TypeError, match="^full: unsupported dtype"):
        dt.check_user_dtype("not-a-dtype", "full")


# ------------------------------------------------------------------------------------------------
# Promotion errors: fp8, 4-bit ints, float0, strict mode
# ------------------------------------------------------------------------------------------------
def test_fp8_promotes_only_with_itself():
    f8, f8b = dt.float8_e4m3fn, dt.float8_e5m2
    assert dt.result_type(f8, f8) == f8
    assert dt.promote_types(f8, f8) == f8
    assert rt(f8, 1.0) == (f8, False)  # weak scalars adapt, as in JAX
    assert rt(f8, 1) == (f8, False)
    assert rt(f8, dt.bool_) == (f8, False)
    # Integers sit below the weak float in the lattice, so they join fp8 too (as in JAX).
    assert rt(f8, dt.int8) == (f8, False)
    assert rt(f8, dt.uint64) == (f8, False)
    for other in (dt.float32, dt.bfloat16, dt.float16, dt.float64, dt.complex64, f8b, 1j):
        with pytest.raises(dt.TypePromotionError, match="8-bit floats do not support implicit"):
            dt.result_type(f8, other)
    with pytest.raises(dt.TypePromotionError, match=r"Input dtypes \('float8_e4m3fn', "
                                                    r"'float32'\) have no available"):
        dt.promote_types(f8, np.float32)
    assert issubclass(dt.TypePromotionError, ValueError)


def test_small_ints():
    assert dt.result_type(dt.int4, 1) == dt.int4
    assert dt.result_type(dt.int4, dt.bool_) == dt.int4
    with pytest.raises(dt.TypePromotionError, match="4-bit integers"):
        dt.result_type(dt.int4, dt.int8)
    with pytest.raises(dt.TypePromotionError, match="4-bit integers"):
        dt.result_type(dt.uint4, dt.int4)


def test_float0():
    assert dt.result_type(dt.float0, dt.float0) == dt.float0
    with pytest.raises(dt.TypePromotionError):
        dt.result_type(dt.float0, dt.float32)
    assert dt.short_name(dt.float0) == "float0"
    assert dt.float0 == np.dtype([("float0", np.void, 0)])


def test_strict_mode(strict, x32):
    assert rt(dt.float32, dt.float32) == (dt.float32, False)
    assert rt(dt.float32, 1.0) == (dt.float32, False)
    assert rt(dt.uint8, 1) == (dt.uint8, False)
    assert rt(1, 1.0) == (dt.float32, True)
    assert rt(1.0, 1j) == (dt.complex64, True)
    assert rt(dt.bfloat16, 1.0) == (dt.bfloat16, False)
    for a, b in [(dt.int32, dt.float32), (dt.float16, dt.float32), (dt.int8, dt.int16),
                 (dt.int8, 1.0), (dt.bool_, 1), (dt.float16, 1j), (dt.bool_, dt.int8)]:
        with pytest.raises(dt.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
            dt.result_type(a, b)
    with pytest.raises(dt.TypePromotionError):
        dt.promote_types(np.float16, np.float32)


def test_result_type_misc(x32):
    with pytest.raises(ValueError):
        dt.result_type()
    assert dt.result_type(np.float64) == dt.float32
    assert dt.result_type("int8", np.uint8, 1, 2.0) == dt.float32
    assert rt(1, 2, 3) == (dt.int32, True)
    assert dt.result_type(dt.int8, dt.uint8, dt.int16, dt.uint16) == dt.int32
    # The join is associative: order does not matter.
    assert dt.result_type(dt.uint64, dt.int8, dt.bfloat16) == dt.bfloat16
    with pytest.raises(TypeError):
        dt.result_type(np.array(["a"]))


# ------------------------------------------------------------------------------------------------
# 2.6: inexact promotion; reductions
# ------------------------------------------------------------------------------------------------
SMALL_EXACT = [dt.bool_, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32]


@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_to_inexact_dtype(mode, request):
    request.getfixturevalue(mode)
    wide = dt.float64 if mode == "x64" else dt.float32
    for d in SMALL_EXACT:
        assert dt.to_inexact_dtype(d) == dt.float32
    assert dt.to_inexact_dtype(dt.int64) == wide
    assert dt.to_inexact_dtype(dt.uint64) == wide
    for d in (dt.bfloat16, dt.float16, dt.float32, dt.complex64, dt.float8_e4m3fn):
        assert dt.to_inexact_dtype(d) == d
    # sqrt(1): a weak int becomes the default float, still weak.
    d, weak = dt.dtype_and_weak(1)
    assert (dt.to_inexact_dtype(d), weak) == (wide, True)
    # to_complex_dtype / real_dtype
    assert dt.to_complex_dtype(dt.float32) == dt.complex64
    assert dt.to_complex_dtype(dt.int32) == dt.complex64
    assert dt.to_complex_dtype(dt.bfloat16) == dt.complex64
    assert dt.to_complex_dtype(dt.int64) == (dt.complex128 if mode == "x64" else dt.complex64)
    assert dt.to_complex_dtype(dt.complex64) == dt.complex64
    assert dt.real_dtype(dt.complex64) == dt.float32
    assert dt.real_dtype(dt.complex128) == dt.float64
    assert dt.real_dtype(dt.bfloat16) == dt.bfloat16


def test_sum_dtype_x32(x32):
    for d in (dt.bool_, dt.int8, dt.int16, dt.int32):
        assert dt.sum_dtype(d) == dt.int32
    for d in (dt.uint8, dt.uint16, dt.uint32):
        assert dt.sum_dtype(d) == dt.uint32
    for d in (dt.float16, dt.bfloat16, dt.float32, dt.complex64):
        assert dt.sum_dtype(d) == d


def test_sum_dtype_x64(x64):
    for d in (dt.bool_, dt.int8, dt.int16, dt.int32, dt.int64):
        assert dt.sum_dtype(d) == dt.int64
    for d in (dt.uint8, dt.uint16, dt.uint32, dt.uint64):
        assert dt.sum_dtype(d) == dt.uint64
    for d in (dt.float16, dt.float64, dt.complex128):
        assert dt.sum_dtype(d) == d


# ------------------------------------------------------------------------------------------------
# Kind helpers and names
# ------------------------------------------------------------------------------------------------
def test_issubdtype_bfloat16():
    bf = dt.bfloat16
    assert not np.issubdtype(bf, np.floating)  # why the helper exists
    for abstract in (np.floating, np.inexact, np.number, np.generic):
        assert dt.issubdtype(bf, abstract)
        assert dt.issubdtype(ml_dtypes.bfloat16, abstract)
        assert dt.issubdtype(dt.float8_e4m3fn, abstract)
    for abstract in (np.integer, np.complexfloating, np.signedinteger, np.bool_):
        assert not dt.issubdtype(bf, abstract)
    assert dt.issubdtype(bf, bf)
    assert dt.issubdtype("bfloat16", ml_dtypes.bfloat16)
    assert not dt.issubdtype(bf, np.float16)
    assert not dt.issubdtype(np.float32, bf)
    assert dt.issubdtype(dt.int4, np.signedinteger)
    assert dt.issubdtype(dt.uint4, np.unsignedinteger)
    assert not dt.issubdtype(dt.int4, np.floating)


def test_issubdtype_standard():
    assert dt.issubdtype(np.float32, np.floating)
    assert dt.issubdtype(np.complex64, np.complexfloating)
    assert dt.issubdtype(np.complex64, np.inexact)
    assert not dt.issubdtype(np.complex64, np.floating)
    assert dt.issubdtype(np.int8, np.signedinteger)
    assert dt.issubdtype(np.uint8, np.unsignedinteger)
    assert dt.issubdtype(np.uint8, np.integer)
    assert dt.issubdtype(np.bool_, np.bool_)
    assert not dt.issubdtype(np.bool_, np.number)
    assert not dt.issubdtype(np.bool_, np.integer)
    assert dt.issubdtype(np.floating, np.inexact)
    assert dt.issubdtype(np.dtype("int32"), np.int32)
    assert not dt.issubdtype(dt.float0, np.inexact)


def test_kind_predicates():
    assert dt.is_float(dt.bfloat16) and dt.is_float(np.float16) and dt.is_float(dt.float8_e5m2)
    assert not dt.is_float(np.complex64) and not dt.is_float(np.int32)
    assert dt.is_complex(np.complex128) and not dt.is_complex(np.float64)
    assert dt.is_int(np.int8) and dt.is_int(np.uint64) and dt.is_int(dt.int4)
    assert not dt.is_int(np.bool_) and not dt.is_int(dt.bfloat16)
    assert dt.is_unsigned(np.uint16) and dt.is_unsigned(dt.uint4) and not dt.is_unsigned(np.int16)
    assert dt.is_inexact(dt.bfloat16) and dt.is_inexact(np.complex64)
    assert not dt.is_inexact(np.int32) and not dt.is_inexact(np.bool_)
    assert dt.is_bool(np.bool_) and dt.is_signed(np.int64)


def test_finfo_iinfo():
    fi = dt.finfo(dt.bfloat16)
    assert fi.bits == 16 and float(fi.eps) == 2.0**-7
    assert float(dt.finfo(np.float32).eps) == float(np.finfo(np.float32).eps)
    assert float(dt.finfo(dt.float8_e4m3fn).max) == 448.0
    assert dt.iinfo(np.int8).max == 127
    assert dt.iinfo(np.uint16).max == 65535
    assert dt.iinfo(dt.int4).min == -8


MLIR_NAMES = {
    dt.bool_: "i1", dt.int8: "i8", dt.int16: "i16", dt.int32: "i32", dt.int64: "i64",
    dt.uint8: "ui8", dt.uint16: "ui16", dt.uint32: "ui32", dt.uint64: "ui64",
    dt.bfloat16: "bf16", dt.float16: "f16", dt.float32: "f32", dt.float64: "f64",
    dt.complex64: "complex<f32>", dt.complex128: "complex<f64>",
    dt.float8_e4m3fn: "f8E4M3FN", dt.float8_e5m2: "f8E5M2",
}


def test_mlir_names_round_trip():
    for d, name in MLIR_NAMES.items():
        assert dt.mlir_element_type(d) == name
        assert dt.dtype_from_mlir(name) == d
    for name in ("i4", "ui4", "i2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f4E2M1FN"):
        assert dt.mlir_element_type(dt.dtype_from_mlir(name)) == name
    assert dt.mlir_element_type(np.float32) == "f32"
    assert dt.mlir_element_type("bfloat16") == "bf16"
    assert dt.dtype_from_mlir("si32") == dt.int32
    with pytest.raises(ValueError):
        dt.dtype_from_mlir("f128")
    with pytest.raises(TypeError):
        dt.mlir_element_type(dt.float0)


def test_short_names():
    assert dt.short_name(np.bool_) == "bool"
    assert dt.short_name(dt.float32) == "float32"
    assert dt.short_name(np.int32) == "int32"
    assert dt.short_name(dt.bfloat16) == "bfloat16"
    assert dt.short_name("complex64") == "complex64"
    assert dt.short_name(dt.float8_e4m3fn) == "float8_e4m3fn"


def test_constants():
    assert [d.name for d in dt.all_dtypes] == [
        "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
        "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
    assert all(isinstance(d, np.dtype) for d in dt.all_dtypes)
    assert dt.bfloat16 == np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------------------------------------
# Differential tests against JAX
# ------------------------------------------------------------------------------------------------
OPERANDS = [*ABBREV, *WEAK_VALUE]


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def jax_mode(request):
    jax = pytest.importorskip("jax")
    old_jax = jax.config.jax_enable_x64
    old_ours = _set_option("jax_enable_x64", request.param)
    jax.config.update("jax_enable_x64", request.param)
    try:
        yield jax
    finally:
        jax.config.update("jax_enable_x64", old_jax)
        config.update("jax_enable_x64", old_ours)


def _jax_value(jnp, tok):
    return WEAK_VALUE[tok] if tok in WEAK_VALUE else jnp.zeros((), ABBREV[tok])


def test_against_jax_result_type(jax_mode):
    jax = jax_mode
    jnp = jax.numpy
    mismatches = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in OPERANDS:
            for b in OPERANDS:
                ja, jb = _jax_value(jnp, a), _jax_value(jnp, b)
                out = jax.eval_shape(lambda ja=ja, jb=jb: jnp.add(ja, jb))
                want = (np.dtype(out.dtype), bool(out.weak_type))
                assert np.dtype(jnp.result_type(ja, jb)) == want[0]
                got = dt.result_type(operand(a), operand(b), return_weak_type_flag=True)
                # irax also accepts JAX arrays (objects with dtype and weak_type) directly.
                got_arrays = dt.result_type(jnp.asarray(ja), jnp.asarray(jb),
                                            return_weak_type_flag=True)
                if got != want or got_arrays != want:
                    mismatches.append((a, b, want, got, got_arrays))
    assert not mismatches


def test_against_jax_promote_types(jax_mode):
    jnp = jax_mode.numpy
    names = [*ABBREV.values(), int, float, complex]
    mismatches = []
    for a in names:
        for b in names:
            want = np.dtype(jnp.promote_types(a, b))
            got = dt.promote_types(a, b)
            if got != want:
                mismatches.append((a, b, want, got))
    assert not mismatches


def test_against_jax_strict(jax_mode, strict):
    jax = jax_mode
    jnp = jax.numpy
    old = jax.config.jax_numpy_dtype_promotion
    jax.config.update("jax_numpy_dtype_promotion", "strict")
    mismatches = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for a in OPERANDS:
                for b in OPERANDS:
                    ja, jb = _jax_value(jnp, a), _jax_value(jnp, b)
                    try:
                        want = np.dtype(jnp.result_type(ja, jb))
                    except ValueError:
                        want = "error"
                    try:
                        got = dt.result_type(operand(a), operand(b))
                    except dt.TypePromotionError:
                        got = "error"
                    if got != want:
                        mismatches.append((a, b, want, got))
    finally:
        jax.config.update("jax_numpy_dtype_promotion", old)
    assert not mismatches


def test_against_jax_reductions_and_inexact(jax_mode):
    jax = jax_mode
    jnp = jax.numpy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for d in ABBREV.values():
            x = jnp.zeros((3,), d)
            canon = dt.canonicalize_dtype(d)
            assert dt.sum_dtype(canon) == jax.eval_shape(jnp.sum, x).dtype, d
            assert dt.to_inexact_dtype(canon) == jax.eval_shape(jnp.sqrt, x).dtype, d
            assert dt.to_inexact_dtype(canon) == jax.eval_shape(jnp.true_divide, x, x).dtype, d
            assert dt.issubdtype(d, np.floating) == jnp.issubdtype(d, np.floating)
            assert dt.issubdtype(d, np.integer) == jnp.issubdtype(d, np.integer)
