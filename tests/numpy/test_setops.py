"""unique (and unique_all/counts/inverse/values), isin, union1d, setdiff1d, setxor1d,
intersect1d against JAX: eagerly (data-dependent sizes), with ``size=`` in one jit, over dtypes
and shapes (hypothesis), gradients, vmap, x64, and JAX's errors without ``size`` under jit."""

import numpy as np
import pytest
from family_helpers import (
    ALL,
    both_x64,
    check_tree,
    eager_vs_jax,
    jax_call,
    jit_vs_jax,
    sample,
    vmap_vs_loop,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.numpy as inp
from irax.core.errors import ConcretizationTypeError

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(4)
I = rng.integers(-4, 5, (4, 5)).astype(np.int32)
I1 = rng.integers(0, 6, (9,)).astype(np.int32)
F = rng.integers(-3, 3, (12,)).astype(np.float32) / 2
FN = F.copy()
FN[[1, 4, 7]] = np.nan
FN[2] = -0.0
B = rng.integers(0, 2, (7,)).astype(bool)
U8 = rng.integers(0, 4, (3, 4)).astype(np.uint8)
C = (rng.integers(-1, 2, (8,)) + 1j * rng.integers(-1, 2, (8,))).astype(np.complex64)
ROWS = (rng.integers(0, 2, (6, 3))).astype(np.int32)

# data-dependent sizes: eager only
EAGER = {
    "unique": lambda m, i, i1, f, fn, b, u, c, r: m.unique(i),
    "unique_all": lambda m, i, i1, f, fn, b, u, c, r: m.unique(i, True, True, True),
    "unique_axis": lambda m, i, i1, f, fn, b, u, c, r: m.unique(r, axis=0, return_inverse=True,
                                                                 return_counts=True),
    "unique_axis1": lambda m, i, i1, f, fn, b, u, c, r: m.unique(r.T, return_index=True,
                                                                  axis=1),
    "unique_nan": lambda m, i, i1, f, fn, b, u, c, r: m.unique(fn, return_counts=True),
    "unique_nan_distinct": lambda m, i, i1, f, fn, b, u, c, r: m.unique(fn, equal_nan=False),
    "unique_bool": lambda m, i, i1, f, fn, b, u, c, r: m.unique(b, return_inverse=True),
    "unique_c": lambda m, i, i1, f, fn, b, u, c, r: m.unique(c, return_index=True),
    "unique_all_f": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_all(fn)),
    "unique_counts": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_counts(i1)),
    "unique_inverse": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_inverse(i)),
    "unique_values": lambda m, i, i1, f, fn, b, u, c, r: m.unique_values(fn),
    "union1d": lambda m, i, i1, f, fn, b, u, c, r: m.union1d(i1, i[0]),
    "union1d_f": lambda m, i, i1, f, fn, b, u, c, r: m.union1d(f, i1),
    "setdiff1d": lambda m, i, i1, f, fn, b, u, c, r: m.setdiff1d(i, i1),
    "setdiff1d_u": lambda m, i, i1, f, fn, b, u, c, r: m.setdiff1d(u, i1, assume_unique=False),
    "setxor1d": lambda m, i, i1, f, fn, b, u, c, r: m.setxor1d(i, i1),
    "setxor1d_au": lambda m, i, i1, f, fn, b, u, c, r: m.setxor1d(m.unique(i), m.unique(i1),
                                                                   assume_unique=True),
    "intersect1d": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(i, i1),
    "intersect1d_ri": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(i, i1,
                                                                        return_indices=True),
    "intersect1d_au": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(
        m.unique(i), m.unique(i1), assume_unique=True, return_indices=True),
}
# fixed sizes: eager and in one jit
SIZED = {
    "unique_size": lambda m, i, i1, f, fn, b, u, c, r: m.unique(i, size=12, fill_value=-9),
    "unique_size_cut": lambda m, i, i1, f, fn, b, u, c, r: m.unique(
        i, return_index=True, return_inverse=True, return_counts=True, size=5),
    "unique_size_pad": lambda m, i, i1, f, fn, b, u, c, r: m.unique(
        i1, return_index=True, return_inverse=True, return_counts=True, size=9),
    "unique_size_axis": lambda m, i, i1, f, fn, b, u, c, r: m.unique(
        r, axis=0, size=7, fill_value=-1, return_counts=True),
    "unique_size_nan": lambda m, i, i1, f, fn, b, u, c, r: m.unique(fn, size=10),
    "unique_all_size": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_all(i1, size=8,
                                                                              fill_value=0)),
    "unique_counts_size": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_counts(
        u, size=6)),
    # not fn itself: IREE 3.13 miscompiles unique(fn) and unique_values(fn) in one module
    "unique_values_size": lambda m, i, i1, f, fn, b, u, c, r: m.unique_values(fn[::-1],
                                                                              size=12),
    "unique_inverse_size": lambda m, i, i1, f, fn, b, u, c, r: tuple(m.unique_inverse(
        i, size=3)),
    "isin": lambda m, i, i1, f, fn, b, u, c, r: m.isin(i, i1),
    "isin_invert": lambda m, i, i1, f, fn, b, u, c, r: m.isin(i, i1, invert=True),
    "isin_sort": lambda m, i, i1, f, fn, b, u, c, r: m.isin(f, i1, method="sort"),
    "isin_bs": lambda m, i, i1, f, fn, b, u, c, r: m.isin(i, i1, invert=True,
                                                          method="binary_search"),
    "isin_nan": lambda m, i, i1, f, fn, b, u, c, r: m.isin(fn, fn),
    "isin_c": lambda m, i, i1, f, fn, b, u, c, r: m.isin(c, c[:3]),
    "isin_scalar": lambda m, i, i1, f, fn, b, u, c, r: m.isin(i, 2),
    "union1d_size": lambda m, i, i1, f, fn, b, u, c, r: m.union1d(i1, i[0], size=12),
    "union1d_fill": lambda m, i, i1, f, fn, b, u, c, r: m.union1d(i1, i[0], size=12,
                                                                  fill_value=99),
    "setdiff1d_size": lambda m, i, i1, f, fn, b, u, c, r: m.setdiff1d(i, i1, size=8,
                                                                      fill_value=99),
    "setdiff1d_cut": lambda m, i, i1, f, fn, b, u, c, r: m.setdiff1d(i, i1, size=2),
    "setdiff1d_default": lambda m, i, i1, f, fn, b, u, c, r: m.setdiff1d(i1, i, size=4),
    "setxor1d_size": lambda m, i, i1, f, fn, b, u, c, r: m.setxor1d(i, i1, size=10),
    "setxor1d_fill": lambda m, i, i1, f, fn, b, u, c, r: m.setxor1d(i, i1, size=12,
                                                                    fill_value=-7),
    "intersect1d_size": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(i, i1, size=5),
    "intersect1d_ri_size": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(
        i, i1, size=7, return_indices=True),
    "intersect1d_fill": lambda m, i, i1, f, fn, b, u, c, r: m.intersect1d(i, i1, size=8,
                                                                          fill_value=-1),
}
ARGS = (I, I1, F, FN, B, U8, C, ROWS)


def test_eager_cases_match_jax():
    want = {n: f(jjnp, *ARGS) for n, f in EAGER.items()}  # data-dependent: JAX eagerly
    for n, f in EAGER.items():
        check_tree(f(inp, *ARGS), want[n], msg=n)


def test_sized_cases_eagerly_match_jax():
    eager_vs_jax(SIZED, ARGS)


def test_sized_cases_in_one_jit_match_jax():
    jit_vs_jax(SIZED, ARGS)


def test_python_scalars_lists_and_empty():
    e = np.zeros((0,), np.int32)
    for f in (lambda m: m.unique(m.asarray([3, 1, 3])), lambda m: m.unique(m.asarray(2.0)),
              lambda m: m.unique(e, return_counts=True, return_inverse=True),
              lambda m: m.unique(e, size=3, fill_value=1), lambda m: m.isin(e, I1),
              lambda m: m.union1d(e, e), lambda m: m.setdiff1d(e, I1),
              lambda m: m.setdiff1d(I1, e), lambda m: m.intersect1d(e, I1),
              lambda m: m.setxor1d(e, I1), lambda m: m.isin(3, m.asarray([1, 3]))):
        check_tree(f(inp), f(jjnp))


@settings(max_examples=10, deadline=None, derandomize=True)
@given(dt=st.sampled_from(ALL), n1=st.sampled_from([0, 1, 6]), n2=st.sampled_from([0, 4]),
       size=st.sampled_from([None, 1, 5]), seed=st.integers(0, 2 ** 16))
def test_hypothesis_dtypes_sizes_match_jax(dt, n1, n2, size, seed):
    r = np.random.default_rng(seed)
    a, b = sample((n1,), dt, r, -2, 2), sample((n2,), dt, r, -2, 2)
    if dt.kind == "f" and n1:
        a[r.uniform(size=n1) < 0.2] = np.nan

    def call(m):
        kw = {} if size is None else {"size": size, "fill_value": 0}
        outs = [m.unique(a, return_index=True, return_inverse=True, return_counts=True,
                         **({} if size is None or n1 else kw)) if not (size and not n1)
                else m.unique(a, **kw),
                m.isin(a, b), m.union1d(a, b, **kw), m.setdiff1d(a, b, **kw),
                m.intersect1d(a, b, **kw)]
        if dt.kind != "c":
            outs.append(m.setxor1d(a, b, **kw))
        return outs

    try:
        want = call(jjnp) if size is None else jax_call(call)
    except jax.errors.ConcretizationTypeError:  # a JAX path without size for empty inputs
        want = call(jjnp)
    check_tree(call(inp), want, msg=f"{dt} {n1} {n2} {size}")


def test_x64_dtypes_match_jax():
    i = rng.integers(-3, 3, (10,))
    x = rng.integers(-3, 3, (8,)) / 2.0
    with both_x64():
        for f in (lambda m: m.unique(i, True, True, True), lambda m: m.unique(x, size=8),
                  lambda m: m.isin(i, x), lambda m: m.union1d(i, x),
                  lambda m: m.setdiff1d(i, x), lambda m: m.setxor1d(i, x, size=6),
                  lambda m: m.intersect1d(i, x, return_indices=True),
                  lambda m: tuple(m.unique_all(x))):
            check_tree(f(inp), f(jjnp))
        check_tree(irax.jit(lambda a: inp.unique(a, size=4))(i), jjnp.unique(i, size=4))


def test_gradients_match_jax():
    """With ``size`` the gradient flows; without, JAX (and irax) use the concrete value."""
    x = np.float32([2.0, 1.0, 2.0, 3.0])

    def f(m, a, size):
        return m.sum(m.unique(a, size=size, fill_value=0.0) ** 2) + m.sum(
            m.setdiff1d(a, m.asarray([1.0]), size=size) * 3.0)

    for size in (None, 5):
        check_tree(irax.grad(lambda a: f(inp, a, size))(x),  # noqa: B023
                   jax.grad(lambda a: f(jjnp, a, size))(x), msg=str(size))  # noqa: B023


def test_vmap_matches_loop():
    vmap_vs_loop(lambda a: inp.unique(a, size=5, fill_value=-1), I)
    vmap_vs_loop(lambda a: inp.isin(a, I1), I)
    vmap_vs_loop(lambda a: inp.intersect1d(a, I1, size=4), I)
    vmap_vs_loop(lambda a: inp.setdiff1d(a, I1, size=3), I, in_axes=1)


@pytest.mark.parametrize("f", [
    lambda a: inp.unique(a), lambda a: inp.unique(a, return_counts=True),
    lambda a: inp.unique_values(a), lambda a: inp.unique_all(a),
    lambda a: inp.union1d(a, a), lambda a: inp.setdiff1d(a, I1),
    lambda a: inp.setxor1d(a, I1), lambda a: inp.intersect1d(a, I1),
])
def test_data_dependent_sizes_under_jit_raise_like_jax(f):
    with pytest.raises(ConcretizationTypeError):
        irax.jit(f)(I1)


def test_jax_raises_the_same_under_jit():
    for f in (lambda a: jjnp.unique(a), lambda a: jjnp.union1d(a, a),
              lambda a: jjnp.setdiff1d(a, a), lambda a: jjnp.intersect1d(a, a)):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(f)(I1)
    with pytest.raises(ConcretizationTypeError, match="size"):
        irax.jit(inp.unique)(I1)
    with pytest.raises(ConcretizationTypeError):
        irax.vmap(inp.unique)(I)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - JAX's error type is the oracle
        with pytest.raises(type(e)):
            f(inp)
    else:
        raise AssertionError("JAX accepted it")


@pytest.mark.parametrize("f", [
    lambda m: m.unique(I, axis=2),
    lambda m: m.unique(np.zeros((0,), np.int32), size=3),
    lambda m: m.unique([1, 2]),
    lambda m: m.isin(I, I1, method="magic"),
    lambda m: m.isin([1], I1),
    lambda m: m.union1d(I1, [1]),
    lambda m: m.setdiff1d(I1, [1]),
    lambda m: m.intersect1d([1], I1),
    lambda m: m.unique_all(I, size=2.5),
])
def test_errors_match_jax(f):
    _same_error(f)
