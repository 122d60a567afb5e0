"""irax.optim's losses against optax's: values and dtypes on random inputs (float32 and
float64), gradients (irax.grad against jax.grad of optax's loss), one jitted program, and
the errors for bad inputs."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.optim as optim
from irax.config import config

jax = pytest.importorskip("jax")
optax = pytest.importorskip("optax")

B, C = 4, 5


def _data(dtype, seed=0):
    r = np.random.default_rng(seed)
    f = lambda *s: r.normal(size=s).astype(dtype)  # noqa: E731
    probs = r.dirichlet(np.ones(C), size=B).astype(dtype)
    probs[0, 1] = 0.0  # 0 * log 0 in kl_divergence
    mask = r.random((B, C)) > 0.3
    mask[:, 0] = True
    mask[1] = False  # one example masked out entirely
    return dict(x=f(B, C), y=f(B, C), probs=probs, mask=mask, rowmask=np.array([1, 0, 1, 1], bool),
                ints=r.integers(0, C, size=B).astype(np.int32), bits=(r.random((B, C)) > 0.5),
                signs=np.where(r.random((B, C)) > 0.5, 1.0, -1.0).astype(dtype),
                x4=f(2, 3, 2, 4), ints2=r.integers(0, 12, size=(2, 2)).astype(np.int32),
                logits_inf=np.where(probs == 0, -np.inf, f(B, C)).astype(dtype))


# name -> (loss name, args from the data, kwargs, indices of the arguments to differentiate)
CASES = {
    "squared_error": ("squared_error", ("x", "y"), {}, (0, 1)),
    "squared_error_zero": ("squared_error", ("x",), {}, (0,)),
    "l2_loss": ("l2_loss", ("x", "y"), {}, (0, 1)),
    "huber_loss": ("huber_loss", ("x", "y"), {"delta": 0.7}, (0, 1)),
    "huber_loss_zero": ("huber_loss", ("x",), {}, (0,)),
    "log_cosh": ("log_cosh", ("x", "y"), {}, (0, 1)),
    "cosine_similarity": ("cosine_similarity", ("x", "y"), {}, (0, 1)),
    "cosine_similarity_eps_axis": ("cosine_similarity", ("x", "y"),
                                   {"epsilon": 0.5, "axis": 0}, (0, 1)),
    "cosine_similarity_where": ("cosine_similarity", ("x", "y"), {"where": "mask0"}, (0, 1)),
    "cosine_distance": ("cosine_distance", ("x", "y"), {"epsilon": 1e-3}, (0, 1)),
    "sigmoid_bce": ("sigmoid_binary_cross_entropy", ("x", "probs"), {}, (0, 1)),
    "sigmoid_bce_int_labels": ("sigmoid_binary_cross_entropy", ("x", "bits"), {}, (0,)),
    "hinge_loss": ("hinge_loss", ("x", "signs"), {}, (0,)),
    "softmax_ce": ("softmax_cross_entropy", ("x", "probs"), {}, (0, 1)),
    "softmax_ce_axis0": ("softmax_cross_entropy", ("x", "probs"), {"axis": 0}, (0, 1)),
    "softmax_ce_where": ("softmax_cross_entropy", ("x", "probs"), {"where": "mask0"}, (0,)),
    "softmax_ce_rowwhere": ("softmax_cross_entropy", ("x", "probs"), {"where": "rowmask"},
                            (0,)),
    "int_ce": ("softmax_cross_entropy_with_integer_labels", ("x", "ints"), {}, (0,)),
    "int_ce_axis0": ("softmax_cross_entropy_with_integer_labels", ("xT", "ints"),
                     {"axis": 0}, (0,)),
    "int_ce_where": ("softmax_cross_entropy_with_integer_labels", ("x", "ints"),
                     {"where": "mask"}, (0,)),
    "int_ce_rowwhere": ("softmax_cross_entropy_with_integer_labels", ("x", "ints"),
                        {"where": "rowmask"}, (0,)),
    "int_ce_tuple_axis": ("softmax_cross_entropy_with_integer_labels", ("x4", "ints2"),
                          {"axis": (1, 3)}, (0,)),
    "safe_softmax_ce": ("safe_softmax_cross_entropy", ("x", "probs"), {}, (0, 1)),
    "safe_softmax_ce_inf": ("safe_softmax_cross_entropy", ("logits_inf", "probs"), {}, (0,)),
    "poly_loss": ("poly_loss_cross_entropy", ("x", "probs"), {}, (0, 1)),
    "poly_loss_eps_where": ("poly_loss_cross_entropy", ("x", "probs"),
                            {"epsilon": -1.0, "where": "mask0"}, (0,)),
    "kl_divergence": ("kl_divergence", ("logp", "probs"), {}, (0, 1)),
    "kl_divergence_axis_where": ("kl_divergence", ("logp", "probs"),
                                 {"axis": 0, "where": "mask0"}, (0,)),
    "kl_log_targets": ("kl_divergence_with_log_targets", ("logp", "x"), {}, (0, 1)),
    "smooth_labels": ("smooth_labels", ("probs",), {"alpha": 0.1}, (0,)),
    "smooth_labels_axis_where": ("smooth_labels", ("probs",),
                                 {"alpha": 0.2, "axis": 0, "where": "mask0"}, (0,)),
}


def _inputs(case, dtype):
    d = _data(dtype)
    d["xT"] = np.ascontiguousarray(d["x"].T)
    d["logp"] = np.log(np.clip(d["probs"], 1e-3, None)).astype(dtype) + d["x"] * 0.1
    d["mask0"] = np.where(np.arange(B)[:, None] == 1, True, d["mask"])  # no empty rows
    name, arg_keys, kwargs, diff = CASES[case]
    kwargs = {k: d[v] if isinstance(v, str) else v for k, v in kwargs.items()}
    return name, [d[k] for k in arg_keys], kwargs, diff


def _grad_of(module_grad, loss, args, kwargs, diff, np_mod):
    def total(*xs):
        full = list(args)
        for i, v in zip(diff, xs):
            full[i] = v
        return np_mod.sum(loss(*full, **kwargs))
    return module_grad(total, argnums=tuple(range(len(diff))))(*[args[i] for i in diff])


def _check(got, want, dtype, msg):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    tol = 2e-6 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=msg)


def _jax_reference(dtype):
    """optax's values and jax.grad's gradients for every case, in one jax.jit (one
    compile instead of one per jax op)."""
    cases = sorted(CASES)
    inputs = [_inputs(c, dtype) for c in cases]

    def run(arrays):
        out = {}
        for c, (name, _, kw, diff), xs in zip(cases, inputs, arrays):
            loss = getattr(optax.losses, name)
            out[c] = (loss(*xs, **kw), _grad_of(jax.grad, loss, xs, kw, diff, jax.numpy))
        return out

    return jax.jit(run)([[jax.numpy.asarray(a) for a in args] for _, args, _, _ in inputs])


@pytest.fixture(scope="module")
def reference32():
    return jax.tree.map(np.asarray, _jax_reference(np.float32))


@pytest.fixture(scope="module")
def reference64():
    jax.config.update("jax_enable_x64", True)
    config.update("jax_enable_x64", True)
    try:
        return jax.tree.map(np.asarray, _jax_reference(np.float64))
    finally:
        jax.config.update("jax_enable_x64", False)
        config.update("jax_enable_x64", False)


def _compare(case, dtype, reference):
    name, args, kwargs, diff = _inputs(case, dtype)
    want, want_grads = reference[case]
    args = [jnp.asarray(a) for a in args]
    loss = getattr(optim, name)
    _check(loss(*args, **kwargs), want, dtype, f"{case} value")
    grads = _grad_of(irax.grad, loss, args, kwargs, diff, jnp)
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        _check(g, w, dtype, f"{case} grad {i}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_float32(case, reference32):
    _compare(case, np.float32, reference32)


@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_float64(case, reference64, x64):
    _compare(case, np.float64, reference64)


def test_python_scalars_and_weak_types():
    for name, args in [("l2_loss", (1.5,)), ("huber_loss", (2.5, 0.5)),
                       ("hinge_loss", (0.5, 1.0))]:
        got, want = getattr(optim, name)(*args), getattr(optax.losses, name)(*args)
        _check(got, want, np.float32, name)
        assert got.weak_type == want.weak_type, name


def test_jit_all_losses(reference32):
    """All the float32 cases in one jitted program equal optax's."""
    cases = sorted(CASES)
    inputs = [_inputs(c, np.float32) for c in cases]

    def run(arrays):
        return [getattr(optim, name)(*xs, **kw)
                for (name, _, kw, _), xs in zip(inputs, arrays)]

    got = irax.jit(run)([[jnp.asarray(a) for a in args] for _, args, _, _ in inputs])
    for c, g in zip(cases, got):
        _check(g, reference32[c][0], np.float32, f"{c} jit")


# -- errors -----------------------------------------------------------------------------


def test_error_integer_labels_shape():
    x = np.zeros((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy_with_integer_labels: expected "
                       r"labels of shape \(4,\).*got \(4, 5\)"):
        optim.softmax_cross_entropy_with_integer_labels(x, np.zeros((4, 5), np.int32))
    with pytest.raises(ValueError, match=r"expected labels of shape \(4,\).*got \(3,\)"):
        optim.softmax_cross_entropy_with_integer_labels(x, np.zeros(3, np.int32))


def test_error_dtypes():
    with pytest.raises(TypeError, match="softmax_cross_entropy_with_integer_labels: expected "
                       "labels of an integer dtype, got float32"):
        optim.softmax_cross_entropy_with_integer_labels(np.zeros((2, 3), np.float32),
                                                        np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="softmax_cross_entropy: expected logits of a floating "
                       "dtype, got int32"):
        optim.softmax_cross_entropy(np.zeros((2, 3), np.int32), np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="l2_loss: expected predictions of a floating dtype"):
        optim.l2_loss(np.arange(3))


def test_error_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"expected axis in \[-2, 2\).*got 2"):
        optim.softmax_cross_entropy_with_integer_labels(x, np.zeros(2, np.int32), axis=2)
    with pytest.raises(TypeError, match="expected axis of type int or tuple"):
        optim.softmax_cross_entropy_with_integer_labels(x, np.zeros(2, np.int32), axis=None)


def test_error_squared_error_shapes():
    with pytest.raises(ValueError, match=r"squared_error: expected predictions and targets of "
                       r"the same shape, got \(3,\) and \(2,\)"):
        optim.squared_error(np.zeros(3, np.float32), np.zeros(2, np.float32))


def test_losses_namespace():
    assert optim.losses.softmax_cross_entropy is optim.softmax_cross_entropy
    for name in optim.losses.__all__:
        assert hasattr(optax.losses, name), name
