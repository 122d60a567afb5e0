"""The differentiation API: grad, value_and_grad, jvp, vjp, linearize, jacobians, custom
rules, stop_gradient, checkpoint — eager and under jit, against JAX's numbers."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import errors


def tanh_by_exp(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def test_tanh_derivatives_match_reference_values():
    g = irax.grad(tanh_by_exp)
    np.testing.assert_allclose(float(g(1.0)), 0.4199743, rtol=1e-6)
    ggg = irax.grad(irax.grad(irax.grad(tanh_by_exp)))
    np.testing.assert_allclose(float(ggg(1.0)), 0.62162673, rtol=1e-5)
    np.testing.assert_allclose(float(irax.jit(ggg)(1.0)), 0.62162673, rtol=1e-5)


def cube_with_python_control_flow(x):
    out = 0.0
    for _ in range(3):
        out = out + 1.0 if False else out
    if x > 0:
        y = x * x * x
    else:
        y = x * (x * x)
    return y + out


@pytest.mark.parametrize("x", [-2.0, -0.5, 0.7, 3.0])
def test_third_derivative_of_cube_with_branches(x):
    d3 = irax.grad(irax.grad(irax.grad(cube_with_python_control_flow)))
    assert float(d3(x)) == pytest.approx(6.0)
    d1 = irax.grad(cube_with_python_control_flow)
    assert float(d1(x)) == pytest.approx(3 * x * x, rel=1e-6)


def test_grad_of_abs_with_python_branch():
    def abs_val(x):
        return x if x > 0 else -x

    assert float(irax.grad(abs_val)(-1.0)) == -1.0
    assert float(irax.grad(abs_val)(2.0)) == 1.0


def _mlp_params(rng, sizes=(3, 5, 2)):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((m, n)).astype(np.float32) * 0.5,
                       rng.standard_normal(n).astype(np.float32) * 0.1))
    return params


def _loss(params, x, y, np_mod):
    h = x
    for w, b in params[:-1]:
        h = np_mod.tanh(h @ w + b)
    w, b = params[-1]
    out = h @ w + b
    return np_mod.mean((out - y) ** 2)


def test_jit_grad_of_tanh_mlp_matches_jax(rng):
    jax = pytest.importorskip("jax")
    params = _mlp_params(rng)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((4, 2)).astype(np.float32)
    ours = irax.jit(irax.grad(lambda p, x, y: _loss(p, x, y, jnp)))(params, x, y)
    theirs = jax.grad(lambda p, x, y: _loss(p, x, y, jax.numpy))(params, x, y)
    for (gw, gb), (tw, tb) in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(gw), np.asarray(tw), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(gb), np.asarray(tb), rtol=1e-5, atol=1e-6)
    eager = irax.grad(lambda p, x, y: _loss(p, x, y, jnp))(params, x, y)
    np.testing.assert_allclose(np.asarray(eager[0][0]), np.asarray(theirs[0][0]), rtol=1e-5,
                               atol=1e-6)


def test_value_and_grad_with_aux_and_argnums():
    def f(x, y):
        return jnp.sum(x * y), {"norm": jnp.sum(x * x)}

    x = np.array([1.0, 2.0], np.float32)
    y = np.array([3.0, 4.0], np.float32)
    (v, aux), (gx, gy) = irax.value_and_grad(f, argnums=(0, 1), has_aux=True)(x, y)
    assert float(v) == 11.0 and float(aux["norm"]) == 5.0
    np.testing.assert_allclose(gx, y)
    np.testing.assert_allclose(gy, x)
    g, aux = irax.grad(f, has_aux=True)(x, y)
    np.testing.assert_allclose(g, y)


def test_jit_of_hessian_via_jacfwd_of_jacrev():
    def f(x):
        return jnp.sum(jnp.sin(x) * x[::-1])

    x = np.array([0.3, -1.2, 2.0], np.float32)
    h = irax.jit(irax.jacfwd(irax.jacrev(f)))(x)
    hess = irax.hessian(f)(x)
    # analytic Hessian of sum_i sin(x_i) x_{n-1-i}
    n = len(x)
    expect = np.zeros((n, n))
    for i in range(n):
        j = n - 1 - i
        expect[i, i] += -np.sin(x[i]) * x[j]
        expect[i, j] += np.cos(x[i])
        expect[j, i] += np.cos(x[i])
    np.testing.assert_allclose(np.asarray(h), expect, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(hess), expect, rtol=1e-5, atol=1e-6)


def test_jacobians_of_vector_function():
    def f(x):
        return jnp.stack([x[0] * x[1], jnp.sin(x[2]), x[0] + x[2]])

    x = np.array([1.0, 2.0, 0.5], np.float32)
    expect = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, np.cos(0.5)], [1.0, 0.0, 1.0]])
    np.testing.assert_allclose(irax.jacfwd(f)(x), expect, rtol=1e-6)
    np.testing.assert_allclose(irax.jacrev(f)(x), expect, rtol=1e-6)


def test_holomorphic_grad():
    def f(z):
        return z * z + 3.0 * z

    z = np.complex64(1.0 + 2.0j)
    g = irax.grad(f, holomorphic=True)(z)
    np.testing.assert_allclose(complex(g), 2 * z + 3.0, rtol=1e-6)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        irax.grad(f, holomorphic=True)(1.0)


def test_jvp_vjp_linearize():
    def f(x, y):
        return jnp.sin(x) * y

    x = np.float32(0.5)
    y = np.float32(2.0)
    out, tan = irax.jvp(f, (x, y), (np.float32(1.0), np.float32(0.0)))
    np.testing.assert_allclose(float(tan), np.cos(0.5) * 2.0, rtol=1e-6)
    out2, pullback = irax.vjp(f, x, y)
    gx, gy = pullback(np.float32(1.0))
    np.testing.assert_allclose(float(gx), np.cos(0.5) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(float(gy), np.sin(0.5), rtol=1e-6)
    out3, f_jvp = irax.linearize(f, x, y)
    np.testing.assert_allclose(float(f_jvp(np.float32(1.0), np.float32(0.0))), float(tan))
    # has_aux, as jax.linearize: (out, f_jvp, aux)
    out4, f_jvp4, aux = irax.linearize(lambda u, v: (f(u, v), {"u2": u * u}), x, y,
                                       has_aux=True)
    assert float(out4) == pytest.approx(float(out3)) and float(aux["u2"]) == 0.25
    np.testing.assert_allclose(float(f_jvp4(np.float32(1.0), np.float32(0.0))), float(tan))


def test_checkpoint_static_argnames():
    """jax.checkpoint's static_argnames: a keyword taken as a Python value (here it picks
    a branch in Python), the gradient that of the function."""
    def f(x, *, power):
        return jnp.sum(x ** power) if power > 1 else jnp.sum(jnp.sin(x))

    g = irax.checkpoint(f, static_argnames="power")
    x = np.array([0.5, -1.5], np.float32)
    np.testing.assert_allclose(irax.grad(lambda u: g(u, power=3))(x), 3 * x ** 2, rtol=1e-6)
    np.testing.assert_allclose(irax.jit(irax.grad(lambda u: g(u, power=0)))(x), np.cos(x),
                               rtol=1e-6)


def test_errors_match_jax_meaning():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions. "
                                        r"Output had shape: \(3,\)."):
        irax.grad(lambda x: x * 2)(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        irax.grad(lambda x: x * 2.0)(3)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        irax.grad(lambda x: (x > 0).astype(np.int32))(1.0)
    with pytest.raises(ValueError, match="argnums=2 is out of range"):
        irax.grad(lambda x, y: x * y, argnums=2)(1.0, 2.0)
    with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp must have the "
                                        "same tree structure"):
        irax.jvp(lambda x: x, (1.0,), (1.0, 2.0))


def test_allow_int_gives_float0():
    g = irax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(g[0]) == 3.0
    assert g[1].dtype == np.dtype([("float0", np.void, 0)])


def test_grad_under_jit_closes_over_outer_values():
    @irax.jit
    def f(x, y):
        return irax.grad(lambda z: jnp.sum(z * y * x))(x)

    # the outer x inside the lambda is a constant of the inner grad: d/dz (z*y*x) = y*x
    np.testing.assert_allclose(f(np.float32(2.0), np.float32(3.0)), 6.0)
    # and an enclosing grad differentiates through it: d/dx (y*x) = y
    outer = irax.grad(lambda x, y: irax.grad(lambda z: jnp.sum(z * y * x))(x))
    np.testing.assert_allclose(outer(np.float32(2.0), np.float32(3.0)), 3.0)
    np.testing.assert_allclose(irax.jit(outer)(np.float32(2.0), np.float32(3.0)), 3.0)


def test_stop_gradient():
    g = irax.grad(lambda x: x * irax.lax.stop_gradient(x))(3.0)
    assert float(g) == 3.0


def test_custom_jvp():
    @irax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 10.0 * t  # a deliberately different rule

    assert float(irax.grad(f)(0.3)) == pytest.approx(10.0)
    assert float(irax.jit(irax.grad(f))(0.3)) == pytest.approx(10.0)
    assert float(f(0.3)) == pytest.approx(np.sin(0.3))
    _, t = irax.jvp(f, (0.3,), (1.0,))
    assert float(t) == pytest.approx(10.0)


def test_custom_jvp_rule_with_a_loop():
    """A rule's loops keep their bodies when the rule is inlined (eager, jit, vmap)."""
    from irax import lax

    @irax.custom_jvp
    def f(x):
        return x * 2

    @f.defjvp
    def f_jvp(primals, tangents):
        n = lax.while_loop(lambda c: c < 3.0, lambda c: c + 1.0, primals[0])
        return f(primals[0]), tangents[0] * n

    x = np.float32(1.5)
    assert float(irax.grad(f)(x)) == 3.5
    assert float(irax.jit(irax.grad(f))(x)) == 3.5
    np.testing.assert_array_equal(irax.vmap(irax.grad(f))(np.array([1.0, 2.5], np.float32)),
                                  [3.0, 3.5])


def test_custom_jvp_defjvps():
    @irax.custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(lambda t, ans, x, y: t * y * 2.0, None)
    assert float(irax.grad(f)(2.0, 5.0)) == pytest.approx(10.0)
    assert float(irax.grad(f, argnums=1)(2.0, 5.0)) == 0.0


def test_custom_vjp():
    @irax.custom_vjp
    def clip_gradient(x):
        return x

    def fwd(x):
        return x, None

    def bwd(_, g):
        return (jnp.clip(g, -1.0, 1.0),)

    clip_gradient.defvjp(fwd, bwd)
    g = irax.grad(lambda x: jnp.sum(clip_gradient(x) * 5.0))(np.ones(3, np.float32))
    np.testing.assert_allclose(g, [1.0, 1.0, 1.0])
    gj = irax.jit(irax.grad(lambda x: jnp.sum(clip_gradient(x) * 0.5)))(np.ones(2, np.float32))
    np.testing.assert_allclose(gj, [0.5, 0.5])
    with pytest.raises(Exception, match="forward-mode"):
        irax.jvp(clip_gradient, (1.0,), (1.0,))


def test_symbolic_zeros_are_refused_not_ignored():
    f = irax.custom_jvp(lambda x: x)
    with pytest.raises(NotImplementedError, match=r"irax.custom_jvp.defjvp: symbolic_zeros=True "
                                                  r"is not supported"):
        f.defjvp(lambda p, t: (p[0], t[0]), symbolic_zeros=True)
    g = irax.custom_vjp(lambda x: x)
    with pytest.raises(NotImplementedError, match=r"irax.custom_vjp.defvjp: symbolic_zeros=True "
                                                  r"is not supported"):
        g.defvjp(lambda x: (x, None), lambda r, ct: (ct,), symbolic_zeros=True)


def test_custom_vjp_bwd_wrong_structure_names_function():
    @irax.custom_vjp
    def f(x, y):
        return x * y

    def fwd(x, y):
        return x * y, (x, y)

    def bad_bwd(res, g):
        return (g * res[1],)  # one cotangent for two arguments

    f.defvjp(fwd, bad_bwd)
    with pytest.raises(TypeError, match=r"Custom VJP bwd rule bad_bwd for function f must "
                                        r"produce an output with the same container"):
        irax.grad(f)(1.0, 2.0)


def test_checkpoint_recomputes_and_matches():
    def block(x):
        return jnp.sin(jnp.sin(x)) * 2.0

    f = lambda x: jnp.sum(irax.checkpoint(block)(x))  # noqa: E731
    g = lambda x: jnp.sum(block(x))  # noqa: E731
    x = np.linspace(0, 1, 5).astype(np.float32)
    np.testing.assert_allclose(irax.grad(f)(x), irax.grad(g)(x), rtol=1e-6)
    text = irax.jit(irax.grad(f)).lower(x).as_text("irax")
    assert '"irax.checkpoint"' in text
    np.testing.assert_allclose(irax.jit(irax.grad(f))(x), irax.grad(g)(x), rtol=1e-6)


def test_leaked_tracer_from_grad_is_detected():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0

    irax.grad(f)(1.0)
    with pytest.raises(errors.UnexpectedTracerError):
        irax.jit(lambda y: y + leaked[0])(1.0)


def test_custom_rules_survive_vmap():
    @irax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 42.0 * t[0]))
    g = irax.grad(lambda v: jnp.sum(irax.vmap(f)(v)))(np.zeros(3, np.float32))
    np.testing.assert_allclose(g, [42.0, 42.0, 42.0])

    @irax.custom_vjp
    def h(x):
        return jnp.sin(x)

    h.defvjp(lambda x: (h(x), x), lambda x, ct: (42.0 * ct,))  # fwd calls h itself
    np.testing.assert_allclose(float(irax.grad(h)(np.float32(0))), 42.0)
    g = irax.grad(lambda v: jnp.sum(irax.vmap(h)(v)))(np.zeros(3, np.float32))
    np.testing.assert_allclose(g, [42.0, 42.0, 42.0])
    gj = irax.jit(irax.grad(lambda v: jnp.sum(irax.vmap(h)(v))))(np.zeros(3, np.float32))
    np.testing.assert_allclose(gj, [42.0, 42.0, 42.0])


def test_nondiff_argnums():
    import functools

    @functools.partial(irax.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(f, x), 3.0 * t

    assert float(irax.grad(lambda x: app(jnp.sin, x))(0.5)) == 3.0

    @functools.partial(irax.custom_vjp, nondiff_argnums=(1,))
    def scale(x, k):
        return x * k

    scale.defvjp(lambda x, k: (x * k, None), lambda k, res, g: (g * k * 100.0,))
    assert float(irax.grad(lambda x: scale(x, 2.0))(1.0)) == 200.0
    assert float(irax.jit(irax.grad(lambda x: scale(x, 2.0)))(1.0)) == 200.0

