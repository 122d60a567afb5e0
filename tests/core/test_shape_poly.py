"""Symbolic sizes (core/shape_poly.py): the arithmetic and comparisons shape rules use,
the text form IR types carry, and the binding of names to sizes."""

import numpy as np
import pytest

from irax.core.abstract import ShapedArray, ShapeDtypeStruct
from irax.core.shape_poly import (
    Dim,
    InconclusiveDimensionOperation,
    bind,
    evaluate_shape,
    parse,
    symbolic_shape,
)
from irax.dialect import mlir

b, n = Dim.symbol("b"), Dim.symbol("n")


def test_arithmetic_is_polynomial_and_constants_come_back_as_ints():
    assert str(b * 3 + 1) == "3*b + 1"
    assert (b * 3 + 1) - b == 2 * b + 1
    assert (b + 1) - b == 1 and type((b + 1) - b) is int
    assert b * n == n * b and str(b * n * b) == "b*b*n"
    assert b * 784 // 784 == b
    assert (6 * b) // 3 == 2 * b
    assert (b * n) // n == b
    assert (4 * b) % 2 == 0
    assert -(-(b - 0) // 1) == b        # the ceil-division shape rules write
    assert hash(parse("b*2")) == hash(2 * b)


def test_comparisons_assume_every_size_is_at_least_one():
    assert b >= 1 and b > 0 and not (b < 1) and b != 3 and not (b == 3)
    assert 2 * b + 1 > b and b <= b and b < 2 * b and not (b > 2 * b) and not (b >= 2 * b)
    assert not (b - 3 >= b) and b - 1 < b and 1 - b <= 0
    with pytest.raises(InconclusiveDimensionOperation, match="depends on the value"):
        _ = b > 1
    with pytest.raises(InconclusiveDimensionOperation, match="depends on the value"):
        _ = b % 2
    with pytest.raises(InconclusiveDimensionOperation, match="not a polynomial"):
        _ = (b + 1) // 2


def test_a_symbolic_size_refuses_to_be_an_int_and_says_what_to_do():
    with pytest.raises(InconclusiveDimensionOperation,
                       match="symbolic dimension b has no value.*abstracted_axes"):
        int(b)
    with pytest.raises(InconclusiveDimensionOperation):
        range(b)
    with pytest.raises(InconclusiveDimensionOperation):
        np.zeros((b, 3))


@pytest.mark.parametrize("text", ["b", "2*b + 1", "b*n - 3", "b*b*n", "784"])
def test_text_round_trips(text):
    assert str(parse(text)) == text


@pytest.mark.parametrize("bad", ["", "b +", "2b", "b**2", "(b)", "b + * 2"])
def test_bad_text_is_refused(bad):
    with pytest.raises(ValueError, match="dimension expression"):
        parse(bad)


def test_jax_spelling_of_a_symbolic_shape():
    assert symbolic_shape("b, 784") == (b, 784)
    assert symbolic_shape(("batch", 3)) == (Dim.symbol("batch"), 3)
    s = ShapeDtypeStruct("b, 3", np.float32)
    assert s.shape == (b, 3)


def test_ir_types_name_their_dynamic_sizes():
    a = ShapedArray((b, 784), np.float32)
    t = mlir.to_ir_type(a)
    assert str(t) == 'tensor<?x784xf32, ["b"]>'
    assert mlir.aval_of_type(t) == a
    assert str(mlir.plain_type(t)) == "tensor<?x784xf32>"
    c = ShapedArray((2 * b + 1, 3, b * n), np.int32)
    assert str(mlir.to_ir_type(c)) == 'tensor<?x3x?xi32, ["2*b + 1", "b*n"]>'
    assert mlir.aval_of_type(mlir.to_ir_type(c)) == c
    assert a.str_short() == "float32[b,784]" and not a.is_static


def test_binding_checks_that_one_name_has_one_size():
    env = {}
    bind(env, (b, 3), (7, 3), "argument x")
    bind(env, (b, b * 2), (7, 14), "argument y")
    assert evaluate_shape((b * 2 + 1, 3), {k: v[0] for k, v in env.items()}) == (15, 3)
    with pytest.raises(ValueError, match="'b' is 7 at argument x axis 0 but 8 at argument z"):
        bind(env, (b,), (8,), "argument z")
    with pytest.raises(ValueError, match=r"2\*b is 14 .* but 15 at argument w axis 0"):
        bind(env, (2 * b,), (15,), "argument w")
