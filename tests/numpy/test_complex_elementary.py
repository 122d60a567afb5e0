"""sinh, cosh and the inverse trigonometric and hyperbolic functions of complex arguments:
eager and in one jit, against NumPy in complex128 (branch cuts included: the sign of a zero
imaginary part picks the side, as C99 and NumPy say) and JAX's dtypes; lax's too."""

import jax
import jax.numpy as jjnp
import numpy as np

import irax
import irax.lax as lax
import irax.numpy as jnp

NAMES = ["sinh", "cosh", "arcsinh", "arcsin", "arccos", "arctanh", "arctan", "arccosh"]
_rng = np.random.default_rng(1)
_re = np.concatenate([_rng.uniform(-3, 3, 200), [2, -2, 2, -2, 0, 0, 0.5, 1e-4, 1.5, -1.5]])
_im = np.concatenate([_rng.uniform(-3, 3, 200), [0, 0, -0.0, -0.0, 3, -3, 0, 1e-4, 0, -0.0]])
Z = np.empty(_re.shape, np.complex64)
Z.real, Z.imag = _re, _im


def _check(got, ref, name, rtol):
    got = np.asarray(got).astype(np.complex128)
    err = np.abs(got - ref) / np.maximum(np.abs(ref), 1e-30)
    worst = int(np.argmax(err))
    assert err.max() <= rtol, (name, Z[worst], got[worst], ref[worst])


def test_complex_functions_match_numpy_eagerly_and_in_one_jit():
    fns = lambda m: (lambda z: [getattr(m, n)(z) for n in NAMES])  # noqa: E731
    compiled = irax.jit(fns(jnp))(Z)
    eager = fns(jnp)(jnp.asarray(Z))
    want = jax.jit(fns(jjnp))(Z[:3])
    z128 = Z.astype(np.complex128)
    for name, c, e, w in zip(NAMES, compiled, eager, want):
        ref = getattr(np, name)(z128)
        _check(e, ref, f"{name} eager", 5e-6)
        _check(c, ref, f"{name} jit", 5e-6)        # IREE's complex log/sqrt: a few ulp
        assert c.dtype == e.dtype == w.dtype, name


def test_lax_complex_functions_and_their_derivative():
    z = Z[:6]
    for name, lax_name in (("arcsin", "asin"), ("arccosh", "acosh"), ("sinh", "sinh")):
        _check(getattr(lax, lax_name)(z), getattr(np, name)(z.astype(np.complex128)),
               f"lax.{lax_name}", 1e-6)
    # d/dz asin z = 1 / sqrt(1 - z^2), through the composition's jvp
    z0 = np.complex64(0.3 + 0.4j)
    _, t = irax.jvp(jnp.arcsin, (z0,), (np.complex64(1.0),))
    np.testing.assert_allclose(complex(t), 1 / np.sqrt(1 - complex(z0) ** 2), rtol=1e-5)
