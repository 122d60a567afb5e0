"""The methods and properties of ``irax.Array`` and tracers against ``jax.Array``'s: the same
names and signatures, the same values, dtypes and weak types (eagerly, in one jit, under
grad and vmap), and the same refusals on tracers."""

import copy
import inspect
import pickle

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.core.errors import ConcretizationTypeError
from irax.runtime.array import Array

_rng = np.random.default_rng(0)
M = _rng.standard_normal((3, 4)).astype(np.float32)
V = np.array([3.0, -1.0, 2.0, 2.0, 0.0, 5.0], np.float32)
I = np.array([[1, 0, 3], [2, 2, -4]], np.int32)
B = np.array([True, False, True, True, False, True])


def _public(x):
    return {n for n in dir(x) if not n.startswith("_")}


def test_every_public_attribute_of_jax_arrays_exists():
    assert _public(jjnp.arange(3.0)) - _public(jnp.arange(3.0)) == set()


def test_method_signatures_match_jax():
    """Every parameter a caller can name or place in ``jax.Array``'s methods, irax's takes
    the same way (positional-only names are free)."""
    checked = 0
    for name in sorted(_public(jjnp.arange(3.0))):
        ours, theirs = getattr(Array, name), getattr(jax.Array, name, None)
        if theirs is None or isinstance(theirs, property) or not callable(theirs):
            continue
        try:
            want = list(inspect.signature(theirs).parameters.values())[1:]
        except (TypeError, ValueError):  # C++ methods
            continue
        got = list(inspect.signature(ours).parameters.values())[1:]
        by_name = {p.name: p for p in got}
        for pos, p in enumerate(want):
            if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            q = by_name.get(p.name)
            assert q is not None, f"{name}: no parameter {p.name}"
            if p.kind == p.POSITIONAL_OR_KEYWORD:
                assert q.kind == p.POSITIONAL_OR_KEYWORD and got.index(q) == pos, (name, p)
            if p.default is not p.empty:
                assert repr(q.default) == repr(p.default), (name, p, q)
        checked += 1
    assert checked > 40


# ---- values against JAX ----------------------------------------------------------------------
def _method_cases():
    """(name, function of the arrays m, v, i, b) covering every computing method."""
    return {
        "sum": lambda m, v, i, b: m.sum(axis=1, keepdims=True),
        "sum-int": lambda m, v, i, b: i.sum(dtype=np.float32),
        "prod": lambda m, v, i, b: m.prod(0),
        "max": lambda m, v, i, b: m.max(axis=0, initial=-1.0),
        "min-where": lambda m, v, i, b: v.min(where=b, initial=10.0),
        "mean": lambda m, v, i, b: i.mean(),
        "all": lambda m, v, i, b: b.all(),
        "any": lambda m, v, i, b: m.any(axis=1),
        "argmax": lambda m, v, i, b: m.argmax(axis=1, keepdims=True),
        "argmin": lambda m, v, i, b: v.argmin(),
        "std": lambda m, v, i, b: m.std(ddof=1),
        "var": lambda m, v, i, b: m.var(axis=0, correction=1),
        "ptp": lambda m, v, i, b: m.ptp(axis=1),
        "cumsum": lambda m, v, i, b: i.cumsum(),
        "cumprod": lambda m, v, i, b: m.cumprod(axis=1),
        "trace": lambda m, v, i, b: m.trace(offset=1),
        "reshape": lambda m, v, i, b: m.reshape(2, 6),
        "reshape-tuple": lambda m, v, i, b: m.reshape((4, -1), order="F"),
        "transpose": lambda m, v, i, b: m.transpose(),
        "transpose-axes": lambda m, v, i, b: m[None].transpose(2, 0, 1),
        "ravel": lambda m, v, i, b: m.ravel(order="F"),
        "flatten": lambda m, v, i, b: m.flatten(),
        "squeeze": lambda m, v, i, b: m[:, None].squeeze(1),
        "swapaxes": lambda m, v, i, b: m.swapaxes(0, 1),
        "diagonal": lambda m, v, i, b: m.diagonal(offset=-1),
        "repeat": lambda m, v, i, b: v.repeat(2),
        "repeat-axis": lambda m, v, i, b: m.repeat(np.array([1, 0, 2]), axis=0),
        "take": lambda m, v, i, b: m.take(i, axis=1, mode="clip"),
        "take-fill": lambda m, v, i, b: v.take(np.array([0, 9]), mode="fill", fill_value=-2.0),
        "nonzero": lambda m, v, i, b: v.nonzero(size=6, fill_value=-1)[0],
        "sort": lambda m, v, i, b: m.sort(axis=0),
        "sort-desc": lambda m, v, i, b: v.sort(descending=True),
        "argsort": lambda m, v, i, b: v.argsort(stable=True),
        "clip": lambda m, v, i, b: m.clip(-0.5, 0.5),
        "clip-min": lambda m, v, i, b: i.clip(min=0),
        "round": lambda m, v, i, b: (m * 10).round(1),
        "__round__": lambda m, v, i, b: round(m[0, 0] * 10),
        "dot": lambda m, v, i, b: m.dot(m.T),
        "conj": lambda m, v, i, b: (m * 1j).conj(),
        "conjugate": lambda m, v, i, b: (m + 2j).conjugate(),
        "astype": lambda m, v, i, b: m.astype(np.int8),
        "astype-copy": lambda m, v, i, b: i.astype(np.float32, copy=True),
        "copy": lambda m, v, i, b: m.copy(),
        "T": lambda m, v, i, b: m.T,
        "mT": lambda m, v, i, b: m[None].mT,
        "real": lambda m, v, i, b: (m + 1j).real,
        "imag": lambda m, v, i, b: (m * 2j).imag,
        "searchsorted": lambda m, v, i, b: v.sort().searchsorted(np.array([0.5, 2.0]),
                                                                  side="right"),
        "argpartition": lambda m, v, i, b: v.argpartition(2)[:2].sort(),
        "compress": lambda m, v, i, b: v.compress(b, size=4),
        "choose": lambda m, v, i, b: (m[0] > 0).astype(np.int32).choose([m[0], m[1]], mode="clip"),
        "at": lambda m, v, i, b: m.at[1, 2:].add(1.0),
        "getitem": lambda m, v, i, b: m[1:, ::-2],
        "neg-weak": lambda m, v, i, b: -(m[0, 0] * 0 + 2.0),
        "matmul": lambda m, v, i, b: m @ m.T,
        "rmatmul": lambda m, v, i, b: np.ones((2, 3), np.float32) @ m,
        "pow": lambda m, v, i, b: 2 ** i,
        "mod": lambda m, v, i, b: i % 3,
        "rshift": lambda m, v, i, b: i >> 1,
        "invert": lambda m, v, i, b: ~i,
        "divmod": lambda m, v, i, b: divmod(i, 3)[1],
        "rdivmod": lambda m, v, i, b: divmod(7, i + 5)[0],
        "abs": lambda m, v, i, b: abs(m),
        "pos": lambda m, v, i, b: +i,
        "cmp": lambda m, v, i, b: m >= 0.1,
    }


_JIT = ["sum", "max", "min-where", "argmax", "var", "ptp", "cumprod", "trace", "reshape-tuple",
        "transpose-axes", "diagonal", "repeat-axis", "take", "take-fill", "clip-min", "round",
        "__round__", "astype", "mT", "at", "neg-weak", "divmod", "searchsorted", "compress"]


def _args(mod):
    return tuple(mod.asarray(a) for a in (M, V, I, B))


def test_methods_match_jax_eagerly_and_in_one_jit():
    """irax eagerly and in one compiled module, against JAX (one jitted module too)."""
    cases = _method_cases()

    def fn(m, v, i, b):
        return {k: f(m, v, i, b) for k, f in cases.items()}

    def some(m, v, i, b):  # the compiled subset (the functions behind are jit-tested)
        return {k: cases[k](m, v, i, b) for k in _JIT}

    want = jax.jit(fn)(M, V, I, B)
    eager = fn(*_args(jnp))
    compiled = irax.jit(some)(M, V, I, B)
    for k in cases:
        check(eager[k], want[k], rtol=1e-5, atol=1e-5, msg=k)
    for k in _JIT:
        check(compiled[k], want[k], rtol=1e-5, atol=1e-5, msg=k)


def test_properties_match_jax():
    for a in (M, I, B, np.float32(2.0), 3.0, np.zeros((2, 0), np.int8)):
        x, y = jnp.asarray(a), jjnp.asarray(a)
        for name in ("shape", "ndim", "size", "nbytes", "itemsize", "dtype", "weak_type"):
            assert getattr(x, name) == getattr(y, name), (a, name)
        assert x.tolist() == y.tolist()
        assert x.tobytes() == y.tobytes()
        assert x.tobytes(order="F") == y.tobytes(order="F")
        assert x.on_device_size_in_bytes() == y.on_device_size_in_bytes()
        assert len(x.addressable_shards) == len(y.addressable_shards) == 1
        shard = x.addressable_shards[0]
        assert shard.index == y.addressable_shards[0].index and shard.replica_id == 0
        np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(y))
        np.testing.assert_array_equal(np.asarray(x.addressable_data(0)), np.asarray(y))
        assert x.is_fully_replicated and x.is_fully_addressable and not x.committed
        assert x.global_shards[0].device == x.device
        assert x.is_ready() and x.platform() == "cpu" and x.clone().tolist() == x.tolist()
        assert x.block_until_ready() is x
        assert x.format.sharding.device_set == {x.device}
        assert isinstance(x.unsafe_buffer_pointer(), int)
        assert x.devices() == {x.device}
    assert jnp.asarray(M)[1, 2].item() == jjnp.asarray(M)[1, 2].item()
    assert jnp.asarray(M).item(5) == jjnp.asarray(M).item(5)


def test_view_and_byteswap_match_jax():
    for a, dt in [(M, np.int32), (M, np.uint8), (I, np.float32), (I, np.int16),
                  (np.array([1, 0, 2], np.uint8), np.bool_), (B, np.int8), (M, None)]:
        check(jnp.asarray(a).view(dt), jjnp.asarray(a).view(dt), msg=f"{a.dtype}->{dt}")
    for a in (M, I, np.array([1 + 2j], np.complex64)):
        check(jnp.asarray(a).byteswap(), jjnp.asarray(a).byteswap(), msg=str(a.dtype))
    for mod in (jnp, jjnp):
        with pytest.raises(ValueError):
            mod.asarray(np.arange(3, dtype=np.int8)).view(np.int16)
        with pytest.raises(ValueError):
            mod.asarray(np.int8(3)).view(np.int16)


def test_copy_pickle_contains_and_iteration():
    x = jnp.asarray(V)
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x)), x.copy()):
        check(y, jjnp.asarray(V))
    assert 2.0 in x and 7.0 not in x
    assert [float(e) for e in x] == V.tolist()
    with pytest.raises(ValueError, match="one-dimensional"):
        1.0 in jnp.asarray(M)  # noqa: B015
    with pytest.raises(NotImplementedError, match="flatten"):
        jnp.asarray(M).flat  # noqa: B018
    with pytest.raises(AttributeError, match="addressable_data"):
        jnp.asarray(M).device_buffer  # noqa: B018
    assert x.__array_namespace__() is jnp


def test_to_device_and_astype_device():
    x = jnp.asarray(M)
    dev = irax.devices()[0]
    check(x.to_device(dev), jjnp.asarray(M))
    assert x.to_device(dev).device == dev
    assert x.to_device(x.sharding).device == dev
    check(x.astype(np.int32, device=dev), jjnp.asarray(M).astype(np.int32))


# ---- tracers ---------------------------------------------------------------------------------
_CONCRETE_ONLY = ["tobytes", "tolist", "item", "addressable_shards", "global_shards",
                  "committed", "is_fully_replicated", "is_fully_addressable", "devices",
                  "is_deleted", "delete", "on_device_size_in_bytes", "unsafe_buffer_pointer",
                  "traceback"]
_NOT_ON_TRACERS = ["device", "sharding", "block_until_ready", "copy_to_host_async", "clone",
                   "is_ready", "format", "platform"]


def _probe(x, name):
    attr = getattr(x, name)
    return attr() if callable(attr) else attr


@pytest.mark.parametrize("transform", ["jit", "vmap"])
def test_tracers_refuse_concrete_queries_as_jax(transform):
    def f(mod_name):
        def g(x):
            for name in _CONCRETE_ONLY:
                with pytest.raises(ConcretizationTypeError if mod_name == "irax"
                                   else jax.errors.ConcretizationTypeError):
                    _probe(x, name)
            for name in _NOT_ON_TRACERS:
                with pytest.raises(AttributeError):
                    _probe(x, name)
            assert x.nbytes == 12 if transform == "jit" else x.nbytes == 4
            return x
        return g

    if transform == "jit":
        irax.jit(f("irax"))(V[:3])
        jax.jit(f("jax"))(V[:3])
    else:
        irax.vmap(f("irax"))(V[:3])
        jax.vmap(f("jax"))(V[:3])


def test_concrete_tracers_answer_under_eager_grad():
    def f(x):
        assert x.tobytes() == np.float32(1.5).tobytes()
        assert x.tolist() == 1.5 and not x.committed
        return x * 2

    assert float(irax.grad(f)(np.float32(1.5))) == 2.0


# ---- derivatives and vmap --------------------------------------------------------------------
_DIFFERENTIABLE = ["sum", "prod", "max", "mean", "std", "var", "ptp", "cumprod", "trace",
                   "reshape", "transpose-axes", "diagonal", "repeat-axis", "take", "sort",
                   "clip", "dot", "at", "getitem", "matmul", "abs", "T"]


def test_grads_of_methods_match_jax():
    cases = _method_cases()

    def loss(mod, k):
        def f(m, v):
            out = cases[k](m, v, mod.asarray(I), mod.asarray(B))
            return mod.sum(mod.sin(out))
        return f

    want = jax.jit(lambda m, v: [jax.grad(loss(jjnp, k), argnums=(0, 1))(m, v)
                                 for k in _DIFFERENTIABLE])(M, V)
    for k, w in zip(_DIFFERENTIABLE, want):
        got = irax.grad(loss(jnp, k), argnums=(0, 1))(M, V)
        for g, e in zip(got, w):
            check(g, e, rtol=1e-4, atol=1e-5, msg=k)


def test_vmap_of_methods_matches_a_python_loop():
    ms = _rng.standard_normal((3, 3, 4)).astype(np.float32)
    cases = _method_cases()
    names = ["sum", "cumprod", "ptp", "trace", "diagonal", "take", "sort", "argsort", "at",
             "reshape", "searchsorted", "clip", "dot"]

    def per(k):
        return lambda m: cases[k](m, jnp.asarray(V), jnp.asarray(I), jnp.asarray(B))

    got = irax.jit(lambda ms: {k: irax.vmap(per(k))(ms) for k in names})(ms)
    for k in names:
        want = jnp.stack([per(k)(jnp.asarray(m)) for m in ms])
        check(got[k], want, rtol=1e-5, atol=1e-5, msg=k)


def test_view_and_byteswap_under_jit_and_vmap_match_jax():
    c = np.array([[1 + 2j, -3.5j]], np.complex64)
    u8 = np.array([[1, 0, 2, 0, 1, 1, 0, 1]], np.uint8)

    def fn(m, i, c, u8):
        return {"f-i32": m.view(np.int32), "f-u8": m.view(np.uint8),
                "f-f16": m.view(np.float16), "i-u16": i.view(np.uint16),
                "u8-f32": u8.view(np.float32), "u8-bool": u8.view(np.bool_),
                "bool-i8": (u8 > 0).view(np.int8), "c-f32": c.view(np.float32),
                "f-c64": m.view(np.complex64), "0d": m[0, 0].view(np.int32),
                "swap-f": m.byteswap(), "swap-i": i.byteswap(), "swap-c": c.byteswap(),
                "swap-0d": m[0, 0].byteswap(), "swap-u8": u8.byteswap()}

    args = (M, I, c, u8)
    want = jax.jit(fn)(*args)
    got = irax.jit(fn)(*args)
    eager = fn(*map(jnp.asarray, args))
    for k in want:
        check(got[k], want[k], msg=k)
        check(eager[k], want[k], msg=k)
    vm = irax.vmap(lambda r: r.view(np.uint16).byteswap())(M)
    check(vm, jax.vmap(lambda r: r.view(np.uint16).byteswap())(M))
