"""The derivative meta-test: every differentiable op's rules against finite differences.

For each sample of each op (tests/dialect/op_samples.py) with floating-point operands,
in float64 (x64 mode):
- forward mode: ``jvp`` against central differences along a random direction;
- reverse mode: the dot-product test ``<ct, J t> == <J^T ct, t>`` with ``vjp``.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import irax
from irax.core import dtypes
from irax.dialect import REGISTRY
from irax.frontend.trace import bind

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "dialect"))
from op_samples import NO_DERIVATIVE, SAMPLES  # noqa: E402

#: operands that are not differentiable inputs (indices, predicates) stay as given
_rng = np.random.default_rng(7)


def _float_case(operands):
    return [i for i, x in enumerate(operands) if np.asarray(x).dtype.kind == "f"]


def _cases():
    for name in sorted(SAMPLES):
        cls = REGISTRY[name]
        if not cls.differentiable or name in NO_DERIVATIVE:
            continue
        for k, (operands, _attrs) in enumerate(SAMPLES[name]):
            if not _float_case(operands):
                continue
            if not all(np.all(np.isfinite(np.asarray(x))) for x in operands
                       if np.asarray(x).dtype.kind in "fc"):
                continue  # NaN samples test NaN semantics, not derivatives
            if cls.surrogate_derivative:
                continue  # a straight-through rule: its own tests compare it with JAX's
            yield pytest.param(name, k, id=f"{name}#{k}")


def _as64(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype.kind == "f" else x


def _setup(name, k):
    cls = REGISTRY[name]
    operands, attrs = SAMPLES[name][k]
    operands = [_as64(x) for x in operands]
    wrt = _float_case(operands)

    def f(*diff):
        full = list(operands)
        for i, v in zip(wrt, diff):
            full[i] = v
        out = bind(cls, *full, **attrs)
        return out if not isinstance(out, list) else out[0]

    primals = tuple(operands[i] for i in wrt)
    f.wrt = wrt  # the operand index of each primal
    return cls, f, primals


def _tangents(cls, f, primals):
    """Random directions; Hermitian ones where the op's derivative is defined only along
    those (``cls.hermitian_tangents``)."""
    out = []
    for i, p in zip(f.wrt, primals):
        t = _rng.standard_normal(np.shape(p))
        if i in cls.hermitian_tangents:
            t = (t + np.conj(np.swapaxes(t, -1, -2))) / 2
        out.append(t)
    return tuple(out)


def _fd(f, primals, tangents, eps=1e-6):
    plus = [p + eps * t for p, t in zip(primals, tangents)]
    minus = [p - eps * t for p, t in zip(primals, tangents)]
    return (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps)


@pytest.mark.parametrize("name,k", list(_cases()))
def test_jvp_matches_finite_differences(name, k, x64):
    cls, f, primals = _setup(name, k)
    assert cls.jvp is not None or cls.jvp_full is not None, \
        f"{name} is differentiable but has no jvp rule"
    out = np.asarray(f(*primals))
    if not dtypes.is_inexact(out.dtype):
        pytest.skip("integer-valued result")
    tangents = _tangents(cls, f, primals)
    y, dy = irax.jvp(f, primals, tangents)
    np.testing.assert_allclose(np.asarray(y), out, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dy), _fd(f, primals, tangents), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,k", list(_cases()))
def test_vjp_is_the_transpose_of_jvp(name, k, x64):
    cls, f, primals = _setup(name, k)
    out = np.asarray(f(*primals))
    if not dtypes.is_inexact(out.dtype):
        pytest.skip("integer-valued result")
    tangents = _tangents(cls, f, primals)
    ct = _rng.standard_normal(out.shape)
    if np.iscomplexobj(out):
        ct = ct + 1j * _rng.standard_normal(out.shape)
    _, dy = irax.jvp(f, primals, tangents)
    _, pullback = irax.vjp(f, *primals)
    cts = pullback(ct)
    # JAX's (non-conjugating) convention: <ct, J t> = <J^T ct, t> with the bilinear pairing
    lhs = np.sum(ct * np.asarray(dy))
    rhs = sum(np.sum(np.asarray(c) * t) for c, t in zip(cts, tangents))
    if not any(np.iscomplexobj(p) for p in primals):
        lhs = np.real(lhs)  # real inputs: the pairing is the real part
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


def test_every_differentiable_op_has_a_derivative_rule():
    from irax.dialect.control import Call, Return
    from irax.dialect.transform import TransformOp

    missing = []
    for name, cls in sorted(REGISTRY.items()):
        if issubclass(cls, (TransformOp, Call, Return)) or not cls.differentiable:
            continue  # expanded before differentiation / handled by the driver
        if cls.jvp is None and cls.jvp_full is None:
            missing.append(name)
    assert not missing, f"differentiable ops without a jvp rule: {missing}"


def test_linear_rules_have_transposes():
    """Ops that jvp rules apply to tangents must be transposable (reverse mode)."""
    for name in ("irax.add", "irax.sub", "irax.neg", "irax.mul", "irax.div", "irax.convert",
                 "irax.select", "irax.broadcast_in_dim", "irax.reshape", "irax.transpose",
                 "irax.reduce_sum", "irax.dot_general", "irax.slice", "irax.pad",
                 "irax.concatenate", "irax.reverse", "irax.dynamic_slice",
                 "irax.dynamic_update_slice", "irax.gather", "irax.scatter_add", "irax.real",
                 "irax.imag", "irax.complex"):
        assert REGISTRY[name].transpose is not None, name
