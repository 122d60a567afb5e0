"""fabs, float_power, heaviside, modf, sinc, frexp, ldexp, nextafter, spacing, bitwise_count,
gcd, lcm, i0, iscomplex(obj), isreal(obj) against JAX: eagerly over dtypes (hypothesis),
in one jit, derivatives, vmap, x64 and errors."""

import numpy as np
import pytest
from family_helpers import (
    ALL,
    both_x64,
    check_tree,
    eager_vs_jax,
    grads_vs_jax,
    jax_call,
    jit_vs_jax,
    sample,
    vmap_vs_loop,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import irax.numpy as inp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(0)
F = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
I = rng.integers(-12, 13, (4, 5)).astype(np.int32)
U8 = rng.integers(0, 255, (3, 4)).astype(np.uint8)
C = (rng.uniform(-2, 2, (5,)) + 1j * rng.uniform(-2, 2, (5,))).astype(np.complex64)
# no subnormals: XLA CPU and IREE flush them differently (neither is NumPy)
SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-30, 3e38],
                   np.float32)

CASES = {
    "fabs": lambda m, f, i, u, c: m.fabs(f),
    "fabs_i": lambda m, f, i, u, c: m.fabs(i),
    "fabs_scalar": lambda m, f, i, u, c: m.fabs(-2),
    "float_power": lambda m, f, i, u, c: m.float_power(f, 2),
    "float_power_ii": lambda m, f, i, u, c: m.float_power(i, m.abs(i) % 3),
    "float_power_c": lambda m, f, i, u, c: m.float_power(c, 2),
    "heaviside": lambda m, f, i, u, c: m.heaviside(f, 0.5),
    "heaviside_i": lambda m, f, i, u, c: m.heaviside(i, i),
    "modf": lambda m, f, i, u, c: m.modf(f),
    "modf_i": lambda m, f, i, u, c: m.modf(i),
    "sinc": lambda m, f, i, u, c: m.sinc(f),
    "sinc_i": lambda m, f, i, u, c: m.sinc(i),
    "sinc_c": lambda m, f, i, u, c: m.sinc(c),
    "frexp": lambda m, f, i, u, c: m.frexp(f * 1e20),
    "frexp_i": lambda m, f, i, u, c: m.frexp(i),
    "ldexp": lambda m, f, i, u, c: m.ldexp(f, i),
    "ldexp_scalar": lambda m, f, i, u, c: m.ldexp(2.0, i),
    "nextafter": lambda m, f, i, u, c: m.nextafter(f, 0),
    "nextafter_up": lambda m, f, i, u, c: m.nextafter(f, m.inf),
    "spacing": lambda m, f, i, u, c: m.spacing(f),
    "bitwise_count": lambda m, f, i, u, c: m.bitwise_count(i),
    "bitwise_count_u": lambda m, f, i, u, c: m.bitwise_count(u),
    "gcd": lambda m, f, i, u, c: m.gcd(i, 6),
    "gcd_arr": lambda m, f, i, u, c: m.gcd(i, i[::-1]),
    "lcm": lambda m, f, i, u, c: m.lcm(i, 4),
    "lcm_u": lambda m, f, i, u, c: m.lcm(u % 16, u[::-1] % 9),
    "i0": lambda m, f, i, u, c: m.i0(f * 4),
    "i0_i": lambda m, f, i, u, c: m.i0(i),
    "iscomplex": lambda m, f, i, u, c: m.iscomplex(c),
    "iscomplex_f": lambda m, f, i, u, c: m.iscomplex(f),
    "isreal": lambda m, f, i, u, c: m.isreal(f),
    "isreal_c": lambda m, f, i, u, c: m.isreal(c.real + 0j),
}
ARGS = (F, I, U8, C)


def test_eager_cases_match_jax():
    eager_vs_jax(CASES, ARGS, rtol=2e-6, atol=2e-6)


def test_all_cases_in_one_jit_match_jax():
    jit_vs_jax(CASES, ARGS, rtol=2e-6, atol=2e-6)


def test_special_values_match_jax():
    for name in ("fabs", "sinc", "spacing", "frexp", "modf", "i0", "isreal"):
        check_tree(getattr(inp, name)(SPECIAL), getattr(jjnp, name)(SPECIAL), msg=name)
    for name in ("nextafter", "heaviside", "float_power", "ldexp"):
        other = SPECIAL[::-1] if name != "ldexp" else np.int32([3, -2, 0, 1, 2, 5, 1, 130, -1])
        check_tree(getattr(inp, name)(SPECIAL, other), getattr(jjnp, name)(SPECIAL, other),
                   msg=name)


def test_objects_predicates():
    for x in (C, F, I, 1j, 1.0, [1, 2], np.complex64(1)):
        assert inp.iscomplexobj(x) == jjnp.iscomplexobj(x)
        assert inp.isrealobj(x) == jjnp.isrealobj(x)


def _accepts(name, dt):
    if name in ("bitwise_count", "gcd", "lcm"):
        return dt.kind in "iub"
    if name in ("frexp", "spacing", "nextafter", "modf", "i0", "fabs", "heaviside", "ldexp"):
        return dt.kind != "c"
    return True


@settings(max_examples=25, deadline=None, derandomize=True)
@given(name=st.sampled_from(["fabs", "float_power", "heaviside", "modf", "sinc", "frexp", "ldexp",
                             "nextafter", "spacing", "bitwise_count", "gcd", "lcm", "i0",
                             "iscomplex", "isreal"]),
       dt=st.sampled_from(ALL), shape=st.lists(st.integers(0, 4), max_size=3),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_dtypes_shapes_match_jax(name, dt, shape, seed):
    r = np.random.default_rng(seed)
    x = sample(tuple(shape), dt, r)
    if not _accepts(name, dt):
        return
    binary = name in ("float_power", "heaviside", "nextafter", "gcd", "lcm", "ldexp")
    if binary:
        y = sample(tuple(shape), dt, r) if name != "ldexp" else \
            sample(tuple(shape), np.int32, r)
        if name in ("gcd", "lcm") and dt == np.bool_:
            return
        args = (x, y)
    else:
        args = (x,)
    try:
        want = jax_call(lambda m: getattr(m, name)(*args))
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            getattr(inp, name)(*args)
        return
    check_tree(getattr(inp, name)(*args), want, rtol=2e-5, atol=2e-5,
               msg=f"{name} {dt} {shape}")


def test_x64_dtypes_match_jax():
    x = rng.uniform(-3, 3, (6,))
    i = rng.integers(-20, 20, (6,))
    with both_x64():
        for name in ("fabs", "sinc", "spacing", "frexp", "modf", "i0"):
            check_tree(getattr(inp, name)(x), getattr(jjnp, name)(x), rtol=1e-12, atol=1e-12,
                       msg=name)
        for name in ("float_power", "nextafter", "heaviside"):
            check_tree(getattr(inp, name)(x, x[::-1]), getattr(jjnp, name)(x, x[::-1]),
                       rtol=1e-12, atol=1e-12, msg=name)
        for name in ("gcd", "lcm"):
            check_tree(getattr(inp, name)(i, 6), getattr(jjnp, name)(i, 6), msg=name)
        check_tree(inp.bitwise_count(i), jjnp.bitwise_count(i))
        check_tree(inp.ldexp(x, i % 5), jjnp.ldexp(x, i % 5), rtol=1e-12)
        check_tree(inp.float_power(i, 2), jjnp.float_power(i, 2))


@pytest.mark.parametrize("name,f", [
    ("fabs", lambda m, x: m.fabs(x)),
    ("float_power", lambda m, x, y: m.float_power(m.abs(x) + 0.5, y)),
    ("sinc", lambda m, x: m.sinc(x)),
    ("ldexp", lambda m, x: m.ldexp(x, 3)),
    ("i0", lambda m, x: m.i0(x * 3)),
])
def test_derivatives_match_jax_and_finite_differences(name, f):
    x = np.float32([0.3, -1.2, 2.5, 0.7])
    args = (x, x[::-1]) if name == "float_power" else (x,)
    grads_vs_jax(f, args, eps=1e-2)


def test_vmap_matches_loop():
    vmap_vs_loop(inp.sinc, F)
    vmap_vs_loop(inp.frexp, F)
    vmap_vs_loop(lambda x: inp.gcd(x, 6), I)
    vmap_vs_loop(lambda x: inp.ldexp(x, 2), F, in_axes=1)
    vmap_vs_loop(inp.bitwise_count, U8)


def test_errors_match_jax():
    for name, args in [("gcd", (F, F)), ("lcm", (F, 2)), ("bitwise_count", (F,)),
                       ("frexp", (C,)), ("ldexp", (F, F)), ("spacing", (C,)),
                       ("nextafter", (C, C))]:
        try:
            getattr(jjnp, name)(*args)
        except Exception as e:  # noqa: BLE001 - what JAX raises is the oracle
            with pytest.raises(type(e)):
                getattr(inp, name)(*args)
        else:
            raise AssertionError(f"JAX accepted {name}")
    with pytest.raises(TypeError):
        inp.fabs("x")

