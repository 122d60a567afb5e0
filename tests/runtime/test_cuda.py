"""irax on IREE's CUDA backend (``jax_platforms='cuda'``): a handful of jitted programs,
checked against NumPy. Skips unless IREE's cuda driver finds a device (benchmarks/gpu.sh
runs it on a GPU machine).

The compile target is compiler.target_for_platform's (``--iree-cuda-target=sm_80``): PTX
that the CUDA driver JIT-compiles for newer GPUs (an H200 is sm_90; IREE 3.13 rejects
``sm_90``/``sm_90a`` with "missing GPU target").
"""

import numpy as np
import pytest


def _cuda_devices():
    """IREE's CUDA devices, or the reason there are none."""
    try:
        import iree.runtime as rt

        infos = rt.get_driver("cuda").query_available_devices()
    except Exception as e:  # noqa: BLE001 - no libcuda, no driver in this IREE build
        return None, f"IREE's cuda driver is unavailable: {type(e).__name__}: {e}"
    if not infos:
        return None, "IREE's cuda driver finds no device"
    return infos, None


_INFOS, _WHY = _cuda_devices()
if not _INFOS:
    pytest.skip(_WHY.splitlines()[0][:300], allow_module_level=True)

import irax  # noqa: E402
import irax.lax as lax  # noqa: E402
import irax.numpy as jnp  # noqa: E402
from irax.config import config  # noqa: E402
from irax.runtime import compiler  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _on_cuda():
    old = config.jax_platforms
    config.update("jax_platforms", "cuda")
    try:
        yield
    finally:
        config.update("jax_platforms", old)


def _check(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def _on_gpu(x):
    devs = x.devices() if callable(getattr(x, "devices", None)) else {x.device}
    assert {d.platform for d in devs} == {"cuda"}, devs


def test_devices_and_target():
    devs = irax.devices()
    assert devs and all(d.platform == "cuda" for d in devs)
    assert irax.default_backend() == "cuda"
    print("cuda devices:", devs, "target:", compiler.target_for_platform("cuda").flags())


def test_elementwise():
    x = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    out = irax.jit(lambda x: x + x * x + jnp.sin(x))(irax.device_put(x))
    _on_gpu(out)
    _check(out, x + x * x + np.sin(x), rtol=1e-5, atol=1e-5)


def test_matmul():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 384)).astype(np.float32)
    b = rng.standard_normal((384, 128)).astype(np.float32)
    _check(irax.jit(jnp.matmul)(a, b), a @ b, rtol=1e-3, atol=1e-3)


def test_reduction():
    x = np.random.default_rng(2).standard_normal((64, 1000)).astype(np.float32)
    out = irax.jit(lambda x: (jnp.sum(x, axis=1), jnp.max(x), jnp.mean(x * x)))(x)
    want = (x.sum(1), x.max(), (x * x).mean())
    for g, w in zip(out, want):
        _check(g, w, rtol=1e-4, atol=1e-4)


def test_while_loop():
    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.5 + 1.0),
                              (0, x))[1]

    x = np.arange(8, dtype=np.float32)
    want = x.copy()
    for _ in range(37):
        want = want * np.float32(0.5) + np.float32(1.0)
    _check(irax.jit(f)(np.int32(37), x), want)


def _mlp_loss(np_mod, params, x, y):
    (w1, b1), (w2, b2) = params
    h = np_mod.tanh(x @ w1 + b1)
    return np_mod.mean((h @ w2 + b2 - y) ** 2)


def test_grad_of_mlp_loss():
    rng = np.random.default_rng(3)
    params = [(rng.standard_normal((16, 32)).astype(np.float32) / 4, np.zeros(32, np.float32)),
              (rng.standard_normal((32, 4)).astype(np.float32) / 6, np.zeros(4, np.float32))]
    x = rng.standard_normal((8, 16)).astype(np.float32)
    y = rng.standard_normal((8, 4)).astype(np.float32)
    grads = irax.jit(irax.grad(lambda p, x, y: _mlp_loss(jnp, p, x, y)))(params, x, y)
    # by hand in float64
    (w1, b1), (w2, b2) = [(w.astype(np.float64), b.astype(np.float64)) for w, b in params]
    h = np.tanh(x @ w1 + b1)
    dz = 2 * (h @ w2 + b2 - y) / y.size
    dh = (dz @ w2.T) * (1 - h * h)
    want = [(x.T @ dh, dh.sum(0)), (h.T @ dz, dz.sum(0))]
    for (gw, gb), (ww, wb) in zip(grads, want):
        _check(gw, ww, rtol=1e-4, atol=1e-5)
        _check(gb, wb, rtol=1e-4, atol=1e-5)


def test_vmap():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 6, 7)).astype(np.float32)
    v = rng.standard_normal((5, 7)).astype(np.float32)
    out = irax.jit(irax.vmap(lambda m, u: jnp.tanh(m @ u)))(a, v)
    _check(out, np.stack([np.tanh(m @ u) for m, u in zip(a, v)]), rtol=1e-4, atol=1e-5)


def test_host_callbacks_from_a_cuda_program():
    seen = []

    @irax.jit
    def f(x):
        irax.debug.callback(lambda v: seen.append(np.asarray(v).tolist()), x)
        y = irax.pure_callback(np.cos, irax.ShapeDtypeStruct(x.shape, x.dtype), x * 2.0)
        return y + 1.0

    x = np.linspace(0, 1, 8, dtype=np.float32)
    out = f(x)
    _on_gpu(out)
    _check(out, np.cos(x * 2.0) + 1.0)
    assert seen == [x.tolist()]
