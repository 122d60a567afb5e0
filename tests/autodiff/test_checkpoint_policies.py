"""checkpoint policies and checkpoint_name: every policy of JAX exists, gives JAX's
gradients (eagerly, under jit, under vmap, to second order) and saves what it says: the
ops it saves are not computed again in the backward pass (counted in the expanded,
dead-code-free module; tests/lit/autodiff/checkpoint.mlir shows the functions)."""

import functools

import jax
import jax.ad_checkpoint
import jax.numpy as jj
import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.ad_checkpoint import checkpoint_name
from irax.ad_checkpoint import checkpoint_policies as cp
from irax.frontend.compile import clone_module
from irax.passes import run_pipeline

RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 4)).astype(np.float32)
X = RNG.standard_normal((4, 3)).astype(np.float32)


def layer(np_, name):
    def f(w, x):
        h = np_.tanh(name(w @ x, "pre"))
        return np_.sum(np_.sin(w.T @ h) ** 2)
    return f


IRAX_LAYER = layer(jnp, checkpoint_name)
JAX_LAYER = layer(jj, jax.ad_checkpoint.checkpoint_name)

POLICIES = {
    "default": (None, None),
    "everything": (cp.everything_saveable, jax.checkpoint_policies.everything_saveable),
    "nothing": (cp.nothing_saveable, jax.checkpoint_policies.nothing_saveable),
    "dots": (cp.dots_saveable, jax.checkpoint_policies.dots_saveable),
    "dots_no_batch": (cp.dots_with_no_batch_dims_saveable,
                      jax.checkpoint_policies.dots_with_no_batch_dims_saveable),
    "only_pre": (cp.save_only_these_names("pre"),
                 jax.checkpoint_policies.save_only_these_names("pre")),
    "all_names_but_pre": (cp.save_any_names_but_these("pre"),
                          jax.checkpoint_policies.save_any_names_but_these("pre")),
    "both": (cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("pre")),
             jax.checkpoint_policies.save_from_both_policies(
                 jax.checkpoint_policies.dots_saveable,
                 jax.checkpoint_policies.save_only_these_names("pre"))),
    "offload": (cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["pre"],
        offload_src="device", offload_dst="pinned_host"),
        jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[], names_which_can_be_offloaded=["pre"],
            offload_src="device", offload_dst="pinned_host")),
    "custom": (lambda prim, *avals, **params: prim is irax.dialect.linalg.DotGeneral,
               lambda prim, *avals, **params: prim is jax.lax.dot_general_p),
}


def test_every_jax_policy_exists():
    names = {n for n in dir(jax.checkpoint_policies) if not n.startswith("_")}
    assert names <= {n for n in dir(cp) if not n.startswith("_")}
    ours = {n for n in dir(irax.ad_checkpoint) if not n.startswith("_")}
    theirs = {n for n in dir(jax.ad_checkpoint) if not n.startswith("_")}
    assert theirs - {"print_saved_residuals"} <= ours


@pytest.mark.parametrize("key", sorted(POLICIES))
def test_policy_gradients_match_jax(key):
    ours, theirs = POLICIES[key]
    want = jax.value_and_grad(jax.checkpoint(JAX_LAYER, policy=theirs), argnums=(0, 1))(W, X)
    f = irax.value_and_grad(irax.checkpoint(IRAX_LAYER, policy=ours), argnums=(0, 1))
    for got in (f(W, X), irax.jit(f)(W, X)):
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


def test_policies_under_vmap_and_second_order():
    f = irax.checkpoint(lambda w, x: jnp.sum(jnp.tanh(w @ x) ** 3), policy=cp.dots_saveable)
    g = lambda w, x: jnp.sum(jnp.tanh(w @ x) ** 3)  # noqa: E731
    jf = lambda w, x: jj.sum(jj.tanh(w @ x) ** 3)  # noqa: E731
    xs = RNG.standard_normal((5, 4, 3)).astype(np.float32)
    got = irax.jit(irax.vmap(irax.grad(f), in_axes=(None, 0)))(W, xs)
    want = np.stack([jax.grad(jf)(W, x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # second order: the hessian-vector product through a checkpointed call
    v = RNG.standard_normal(W.shape).astype(np.float32)
    hvp = irax.jit(lambda w: irax.jvp(irax.grad(f), (w, X), (v, np.zeros_like(X)))[1])(W)
    jhvp = jax.jvp(jax.grad(jf), (W, X), (v, np.zeros_like(X)))[1]
    np.testing.assert_allclose(hvp, jhvp, rtol=1e-4, atol=1e-4)
    assert irax.grad(g)(W, X).shape == W.shape


def _op_counts(policy) -> dict:
    """Dots, tanh and sin in value_and_grad's module after expansion, inlining and DCE."""
    fn = irax.value_and_grad(irax.checkpoint(IRAX_LAYER, policy=policy))
    module = clone_module(irax.jit(fn).lower(W, X).compiler_ir("irax"))
    run_pipeline(module, "builtin.module(irax-expand-transforms, irax-inline, irax-dce)")
    out = str(module)
    return {op: out.count(f'"irax.{op}"') for op in ("dot_general", "tanh", "sin")}


@pytest.mark.parametrize("key, dots, tanh", [
    # forward: 2 dots, 1 tanh; the backward pass: 3 dots, plus what it recomputes
    ("everything", 5, 1),      # nothing recomputed
    ("nothing", 7, 2),         # both dots and the tanh recomputed
    ("dots", 5, 2),            # dots saved; the tanh recomputed from the saved dot
    ("only_pre", 6, 2),        # the named dot saved; the second dot and the tanh not
    ("all_names_but_pre", 7, 2),
    ("both", 5, 2),
    ("offload", 6, 2),         # offloaded names are saved
    ("custom", 5, 2),
])
def test_policies_save_what_they_say(key, dots, tanh):
    counts = _op_counts(POLICIES[key][0])
    assert (counts["dot_general"], counts["tanh"]) == (dots, tanh)


def test_custom_policy_decisions_and_errors():
    f = lambda w, x: jnp.sum(jnp.sin(w @ x))  # noqa: E731
    want = irax.grad(f)(W, X)
    for answer in (irax.ad_checkpoint.Saveable, irax.ad_checkpoint.Recompute,
                   irax.ad_checkpoint.Offloadable("device", "pinned_host")):
        got = irax.grad(irax.checkpoint(f, policy=lambda *_, a=answer, **__: a))(W, X)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(Exception, match="returned 3; expected a bool"):
        irax.grad(irax.checkpoint(f, policy=lambda *_, **__: 3))(W, X)
    with pytest.raises(TypeError, match="policy must be a callable"):
        irax.checkpoint(f, policy="dots_saveable")
    with pytest.raises(ValueError, match="should not intersect"):
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host")
    with pytest.raises(ValueError, match="should be a boolean"):
        both = cp.save_from_both_policies(lambda *_, **__: irax.ad_checkpoint.Saveable,
                                          cp.dots_saveable)
        irax.grad(irax.checkpoint(f, policy=both))(W, X)


def test_checkpoint_name_is_the_identity():
    tree = {"a": np.arange(3.0, dtype=np.float32), "b": 2.0}
    assert checkpoint_name(tree, "t") is tree                     # eagerly: untouched
    got = irax.jit(lambda t: checkpoint_name(t, "t"))(tree)
    np.testing.assert_array_equal(got["a"], tree["a"])
    assert irax.grad(lambda x: checkpoint_name(x * x, "sq"))(3.0) == 6.0
    assert irax.vmap(lambda x: checkpoint_name(x, "v"))(np.ones(4)).shape == (4,)
    text = irax.jit(lambda x: checkpoint_name(x, "t") + 1).lower(1.0).as_text("irax")
    assert '"irax.checkpoint_name"' in text and 'name = "t"' in text
    with pytest.raises(TypeError, match="name must be a str"):
        checkpoint_name(1.0, 3)


def test_policy_repr_and_reuse():
    assert repr(cp.dots_saveable) == "checkpoint_policies.dots_saveable"
    assert cp.checkpoint_dots is cp.dots_saveable
    assert cp.save_anything_except_these_names("x") is cp.everything_saveable
    assert cp.offload_dot_with_no_batch_dims("a", "b") is cp.dots_with_no_batch_dims_saveable
    p = cp.save_only_these_names("b", "a")
    assert p.expr == "save_only_these_names('a', 'b')"
    assert p(irax.dialect.remat.CheckpointName, name="a") and not p(
        irax.dialect.linalg.DotGeneral)
    f = functools.partial(irax.checkpoint, policy=p)(lambda x: x * 2)
    assert irax.grad(f)(1.0) == 2.0
