"""The Python array API standard (the version ``jax.numpy`` follows) in ``irax.numpy``:
``array_api_strict`` lists the standard's names and signatures; every one ``jax.numpy`` has
must exist in ``irax.numpy`` and take its parameters as ``jax.numpy``'s does. Then the
inspection namespace, the standard's special-case values, dtype rules and the functions
added for it (``cumulative_sum``/``cumulative_prod``) against JAX."""

import inspect
import itertools
import warnings

import array_api_strict as xp
import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.test_util import check_grads

API_VERSION = jjnp.__array_api_version__
xp.set_array_api_strict_flags(api_version=API_VERSION)

#: (irax.numpy function, parameter): differences owned by other modules, left to them
KNOWN_SIGNATURE_GAPS: dict = {}


def _standard_names(module=None):
    """The standard's public names (of the main namespace or an extension)."""
    ns = xp if module is None else getattr(xp, module)
    names = getattr(ns, "__all__", None) if module else None
    names = names or [n for n in dir(ns) if not n.startswith("_")]
    return sorted(n for n in names if n not in ("fft", "linalg") and not
                  n.startswith(("set_array_api", "get_array_api", "reset_array_api")) and
                  n not in ("ArrayAPIStrictFlags", "Device", "ModuleType"))


_MISSING = object()


def _pairs():
    """(qualified name, jax's object, irax's object) for every standard name jax has."""
    out = []
    for module in (None, "linalg", "fft"):
        jax_ns = jjnp if module is None else getattr(jjnp, module)
        our_ns = jnp if module is None else getattr(jnp, module)
        for name in _standard_names(module):
            if hasattr(jax_ns, name):
                qual = name if module is None else f"{module}.{name}"
                out.append((qual, getattr(jax_ns, name), getattr(our_ns, name, _MISSING)))
    return out


def test_every_standard_name_jax_has_exists():
    pairs = _pairs()
    assert len(pairs) > 150
    missing = [q for q, _, ours in pairs if ours is _MISSING]
    assert not missing, missing
    for extra in ("__array_api_version__", "__array_namespace_info__"):
        assert hasattr(jnp, extra)


def _signature(f):
    try:
        return list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return None


def _signature_problems(qual, spec, theirs, ours):
    """The standard's parameters (``spec``) that jax's function takes but irax's does not take
    the same way: positionally at the same place, or by keyword."""
    want, got, std = _signature(theirs), _signature(ours), _signature(spec)
    if want is None or got is None or std is None:
        return []
    problems = []
    jax_names = {p.name: p for p in want}
    by_name = {p.name: p for p in got}
    var_kw = any(p.kind == p.VAR_KEYWORD for p in got)
    var_pos = any(p.kind == p.VAR_POSITIONAL for p in got)
    jax_var_pos = any(p.kind == p.VAR_POSITIONAL for p in want)
    positional = [p for p in got if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    jax_positional = [p for p in want if p.kind in (p.POSITIONAL_ONLY,
                                                    p.POSITIONAL_OR_KEYWORD)]
    for pos, p in enumerate(std):
        if p.kind == p.POSITIONAL_ONLY:
            if (pos < len(jax_positional) or jax_var_pos) and pos >= len(positional) and \
                    not var_pos:
                problems.append((qual, p.name, "not accepted positionally"))
            continue
        j = jax_names.get(p.name)
        if j is None or j.kind == j.POSITIONAL_ONLY:
            continue
        q = by_name.get(p.name)
        if (q is None and not var_kw) or (q is not None and q.kind == q.POSITIONAL_ONLY):
            problems.append((qual, p.name, "not accepted by keyword"))
        elif j.kind == j.POSITIONAL_OR_KEYWORD and q is not None and \
                (q.kind != q.POSITIONAL_OR_KEYWORD or
                 positional.index(q) != jax_positional.index(j)):
            problems.append((qual, p.name, "not accepted at jax's position"))
    return problems


def test_signatures_are_compatible_with_jax():
    """Every parameter of jax.numpy's function that the standard names can be passed to
    irax.numpy's the same way (positionally where jax allows it, by keyword where jax
    allows it)."""
    problems, compared = [], 0
    for qual, theirs, ours in _pairs():
        module, _, name = qual.rpartition(".")
        spec = getattr(getattr(xp, module) if module else xp, name)
        if callable(theirs) and not isinstance(theirs, type) and callable(spec):
            problems += _signature_problems(qual, spec, theirs, ours)
            compared += 1
    assert compared > 120
    unexpected = [p for p in problems if p[:2] not in KNOWN_SIGNATURE_GAPS]
    assert not unexpected, unexpected


def test_standard_parameters_are_accepted_by_keyword():
    """The standard's keyword parameters (beyond jax's positional ones) in irax's."""
    for name in ("cumulative_sum", "cumulative_prod", "astype", "unique_values", "sort",
                 "argsort", "concat", "stack", "take", "searchsorted", "clip", "std", "var",
                 "sum", "prod", "max", "argmax", "count_nonzero", "roll", "diff"):
        spec = inspect.signature(getattr(xp, name))
        ours = inspect.signature(getattr(jnp, name)).parameters
        for p in spec.parameters.values():
            if p.kind == p.KEYWORD_ONLY and p.name in inspect.signature(
                    getattr(jjnp, name)).parameters:
                assert p.name in ours, (name, p.name)


# ---- the namespace and its inspection --------------------------------------------------------
def test_namespace_and_version_match_jax():
    x = jnp.arange(3)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version=API_VERSION) is jnp
    assert jnp.__array_api_version__ == API_VERSION
    for arr in (x, jjnp.arange(3)):
        with pytest.raises(ValueError, match="is not available"):
            arr.__array_namespace__(api_version="2021.12")
    assert irax.jit(lambda a: a.__array_namespace__() is jnp and a)(x) is not None


@pytest.mark.parametrize("x64_on", [False, True])
def test_namespace_info_matches_jax(x64_on):
    irax.config.update("jax_enable_x64", x64_on)
    try:
        with jax.enable_x64(x64_on):
            ours, theirs = jnp.__array_namespace_info__(), jjnp.__array_namespace_info__()
            assert ours.capabilities() == theirs.capabilities()
            assert ours.default_device() is theirs.default_device() is None
            assert ours.default_dtypes() == theirs.default_dtypes()
            assert ours.default_dtypes(device=None) == theirs.default_dtypes(device=None)
            assert ours.dtypes() == theirs.dtypes()
            kinds = ["bool", "signed integer", "unsigned integer", "integral",
                     "real floating", "complex floating", "numeric"]
            for kind in kinds + [("bool", "real floating"), ("integral", "complex floating")]:
                assert ours.dtypes(kind=kind) == theirs.dtypes(kind=kind), kind
            devices = ours.devices()
            assert devices[0] is None and len(devices) == len(theirs.devices())
            assert all(d in irax.devices() for d in devices[1:])
    finally:
        irax.config.update("jax_enable_x64", False)


def test_isdtype_matches_jax():
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("bool", "integral"), np.float32, np.int8]
    for dt, kind in itertools.product(
            [np.bool_, np.int8, np.uint16, np.int32, np.float16, np.float32, np.complex64,
             jnp.bfloat16], kinds):
        assert jnp.isdtype(np.dtype(dt), kind) == jjnp.isdtype(np.dtype(dt), kind), (dt, kind)


def test_astype_copy_and_device():
    x = jnp.arange(4.0)
    dev = jnp.__array_namespace_info__().devices()[1]
    for kwargs in ({}, {"copy": True}, {"copy": False}, {"device": dev},
                   {"copy": True, "device": dev}):
        check(jnp.astype(x, np.int16, **kwargs), jjnp.astype(jjnp.arange(4.0), np.int16),
              msg=str(kwargs))
        check(x.astype(np.int16, **kwargs), jjnp.arange(4.0).astype(np.int16), msg=str(kwargs))
    assert x.astype(np.float32, copy=True) is not x
    assert x.astype(np.int32, device=dev).device == dev


# ---- the standard's special cases -----------------------------------------------------------
_F = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -2.5, 1e-30], np.float32)
_FD = np.array([5.0, -5.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -3.0, 7.5], np.float32)


def _special_cases(m, f, g, i, j):
    return {
        "sqrt": m.sqrt(f), "log": m.log(f), "log1p": m.log1p(f - 1), "log2": m.log2(f),
        "exp": m.exp(f), "expm1": m.expm1(f), "sign": m.sign(f), "abs": m.abs(f),
        "floor": m.floor(f), "ceil": m.ceil(f), "trunc": m.trunc(f), "round": m.round(f),
        "sin": m.sin(f), "tanh": m.tanh(f), "atanh": m.atanh(f), "acosh": m.acosh(f),
        "asinh": m.asinh(f), "signbit": m.signbit(f), "square": m.square(f),
        "reciprocal": m.reciprocal(f), "positive": m.positive(f), "negative": m.negative(f),
        "divide": m.divide(g, f), "floor_divide": m.floor_divide(g, f),
        "remainder": m.remainder(g, f), "pow": m.pow(f, g), "pow-neg": m.pow(g, f),
        "maximum": m.maximum(f, g), "minimum": m.minimum(f, g), "atan2": m.atan2(f, g),
        "atan2-rev": m.atan2(g, f), "copysign": m.copysign(g, f), "hypot": m.hypot(f, g),
        "logaddexp": m.logaddexp(f, g), "nextafter": m.nextafter(f, g),
        "equal": m.equal(f, g), "less": m.less(f, g), "isnan": m.isnan(f),
        "isfinite": m.isfinite(f), "isinf": m.isinf(f),
        "int-floor_divide": m.floor_divide(i, j), "int-remainder": m.remainder(i, j),
        "int-pow": m.pow(i, m.abs(j)), "int-shift": m.bitwise_left_shift(i, m.abs(j)),
        "int-rshift": m.bitwise_right_shift(i, m.abs(j)), "int-invert": m.bitwise_invert(i),
        "int-maximum": m.maximum(i, j),
    }


def test_special_case_values_match_jax_eagerly_and_in_one_jit():
    i = np.array([7, -7, 7, -7, 0, 5, -5, 3, 100, -128], np.int8)
    j = np.array([3, 3, -3, -3, 3, 2, 2, -1, 7, 1], np.int8)
    args = (_F, _FD, i, j)
    want = jax.jit(lambda *a: _special_cases(jjnp, *a))(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager = _special_cases(jnp, *map(jnp.asarray, args))
    compiled = irax.jit(lambda *a: _special_cases(jnp, *a))(*args)
    for k in want:
        w = np.asarray(want[k])
        for name, got in (("eager", eager[k]), ("jit", compiled[k])):
            check(got, want[k], rtol=1e-6, atol=0, msg=f"{k} {name}")
            if w.dtype.kind == "f":  # signed zeros too (a NaN's sign is unspecified)
                g = np.asarray(got)
                np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g),
                                              np.signbit(w) & ~np.isnan(w),
                                              err_msg=f"{k} {name} sign")


# ---- dtype rules -----------------------------------------------------------------------------
_API_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
               np.float32, np.complex64]


def test_binary_promotion_of_the_standard_dtypes_matches_jax():
    pairs = [(a if not isinstance(a, type) else np.ones(2, a), np.ones(2, b))
             for a, b in itertools.product(_API_DTYPES + [True, 2, 2.5, 1j], _API_DTYPES)]
    want = jax.jit(lambda: [jjnp.multiply(x, y) for x, y in pairs])()
    for (x, y), w in zip(pairs, want):
        check(jnp.multiply(x, y), w, msg=f"{x!r} * {y.dtype}")
        assert jnp.result_type(x, y) == jjnp.result_type(x, y), (x, y.dtype)


def test_standard_functions_keep_jax_dtypes():
    x8, xf, xb = np.arange(6, dtype=np.int8), np.linspace(-1, 1, 6, dtype=np.float32), \
        np.arange(6) % 2 == 0
    cases = {
        "sum-int8": lambda m: m.sum(x8), "prod-bool": lambda m: m.prod(xb),
        "mean-int8": lambda m: m.mean(x8), "cumulative_sum-int8": lambda m: m.cumulative_sum(x8),
        "cumulative_sum-bool": lambda m: m.cumulative_sum(xb),
        "cumulative_prod-uint8": lambda m: m.cumulative_prod(x8.astype(np.uint8)),
        "vecdot": lambda m: m.vecdot(xf, xf), "matmul": lambda m: m.matmul(xf, xf),
        "tensordot": lambda m: m.tensordot(xf, xf, axes=1),
        "count_nonzero": lambda m: m.count_nonzero(x8), "argmax": lambda m: m.argmax(xf),
        "nonzero": lambda m: m.nonzero(xb)[0], "searchsorted": lambda m: m.searchsorted(xf, 0.0),
        "unique_values": lambda m: m.unique_values(x8 % 3),
        "unique_counts": lambda m: m.unique_counts(x8 % 3).counts,
        "unique_inverse": lambda m: m.unique_inverse(x8 % 3).inverse_indices,
        "unique_all": lambda m: m.unique_all(x8 % 3).indices,
        "clip-weak": lambda m: m.clip(xf, -0.5, 0.5), "where": lambda m: m.where(xb, xf, 2),
        "full_like": lambda m: m.full_like(x8, 3), "linspace": lambda m: m.linspace(0, 1, 5),
        "arange": lambda m: m.arange(5), "eye": lambda m: m.eye(3, k=1),
        "zeros": lambda m: m.zeros(3), "asarray-weak": lambda m: m.asarray(2.0),
        "astype": lambda m: m.astype(xf, np.int32), "real": lambda m: m.real(xf * 1j),
        "conj": lambda m: m.conj(xf), "bitwise_left_shift": lambda m: m.bitwise_left_shift(x8, 1),
        "tile": lambda m: m.tile(x8, 2), "unstack": lambda m: m.unstack(xf[None])[0],
        "moveaxis": lambda m: m.moveaxis(xf[None], 0, 1), "flip": lambda m: m.flip(xf),
        "diff": lambda m: m.diff(x8, prepend=0), "take_along_axis":
        lambda m: m.take_along_axis(xf, np.array([1, 0]), axis=0),
        "cumulative_sum-int8-dtype": lambda m: m.cumulative_sum(x8, dtype=np.int16),
    }
    shapeless = {"nonzero", "unique_values", "unique_counts", "unique_inverse", "unique_all"}
    want = jax.jit(lambda: {k: f(jjnp) for k, f in cases.items() if k not in shapeless})()
    want.update({k: cases[k](jjnp) for k in shapeless})
    for name, f in cases.items():
        check(f(jnp), want[name], rtol=1e-6, msg=name)


# ---- cumulative_sum / cumulative_prod --------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       dtype=st.sampled_from([np.float32, np.int32, np.int8, np.uint8, np.bool_]),
       include_initial=st.booleans(), prod=st.booleans(), data=st.data())
def test_cumulative_functions_match_jax(shape, dtype, include_initial, prod, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1)) if len(shape) > 1 else \
        data.draw(st.sampled_from([None, 0, -1]))
    x = np.random.default_rng(len(shape)).integers(0, 3, shape).astype(dtype)
    name = "cumulative_prod" if prod else "cumulative_sum"
    got = getattr(jnp, name)(x, axis=axis, include_initial=include_initial)
    want = getattr(jjnp, name)(x, axis=axis, include_initial=include_initial)
    check(got, want, msg=f"{name} {shape} {axis}")


def test_cumulative_functions_bad_input_as_jax():
    for name in ("cumulative_sum", "cumulative_prod"):
        for mod in (jnp, jjnp):
            with pytest.raises(ValueError, match="must be non-scalar"):
                getattr(mod, name)(np.float32(1))
            with pytest.raises(ValueError, match="axis was not set"):
                getattr(mod, name)(np.ones((2, 2)))
            with pytest.raises(TypeError):
                getattr(mod, name)(np.ones(2), 0)  # axis is keyword-only
            with pytest.raises(ValueError):
                getattr(mod, name)(np.ones(2), axis=1)


def test_cumulative_functions_jit_grad_and_vmap():
    x = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4)).astype(np.float32)

    def fns(m, x):
        return {"sum": m.cumulative_sum(x, axis=1, include_initial=True),
                "prod": m.cumulative_prod(x, axis=0, include_initial=True),
                "sum-int": m.cumulative_sum(x.astype(np.int8), axis=-1, dtype=np.int32),
                "prod-plain": m.cumulative_prod(x[0])}

    compiled = irax.jit(lambda x: fns(jnp, x))(x)
    want = fns(jjnp, jjnp.asarray(x))
    for k in want:
        check(compiled[k], want[k], rtol=1e-5, msg=k)
        check(fns(jnp, jnp.asarray(x))[k], want[k], rtol=1e-5, msg=k)
    for name in ("cumulative_sum", "cumulative_prod"):
        def loss(m, name=name):
            return lambda x: m.sum(m.sin(getattr(m, name)(x, axis=1, include_initial=True)))
        check(irax.grad(loss(jnp))(x), jax.grad(loss(jjnp))(x), rtol=1e-5, msg=name)
        check_grads(lambda x, name=name: getattr(jnp, name)(x, axis=0, include_initial=True),
                    (x.astype(np.float64),), order=1, atol=1e-2, rtol=1e-2)
        got = irax.vmap(lambda r, name=name: getattr(jnp, name)(r, include_initial=True))(x)
        loop = jnp.stack([getattr(jnp, name)(jnp.asarray(r), include_initial=True) for r in x])
        check(got, loop, msg=name)
