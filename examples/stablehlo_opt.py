"""Differentiate a program that JAX exported as StableHLO, with irax-opt's passes.

    python examples/stablehlo_opt.py

JAX traces a small MLP loss and prints it as StableHLO (`jax.jit(f).lower(...).as_text()`).
irax did not trace it, yet its passes apply: this example adds a `@grad_main` entry that
holds one `irax.grad` op naming `@main`, then runs `irax-opt` (the command line, in a
subprocess) with

    builtin.module(irax-raise-stablehlo)                      StableHLO -> irax dialect
    builtin.module(irax-raise-stablehlo, irax-autodiff, irax-inline,
                   irax-simplify, irax-lower-to-stablehlo)    -> the gradient, as StableHLO

and prints the IR at each stage. The lowered gradient is then compiled by IREE and run
(`irax.ir.load(text).call("grad_main", ...)`) and compared with `jax.grad`. JAX is needed
only to produce the input and the reference: without it the example says so and exits 0.
"""

import subprocess
import sys

import numpy as np

import irax

GRAD_ENTRY = """
  func.func public @grad_main({params}) -> ({results}) {{
    %g:2 = "irax.grad"({args}) {{callee = @main, argnums = array<i64: 0, 1>}}
        : ({types}) -> ({results})
    return %g#0, %g#1 : {results}
  }}
}}
"""

SHAPES = {"w1": (3, 8), "w2": (8, 1), "x": (16, 3), "y": (16, 1)}


def loss(jnp, w1, w2, x, y):
    """The MLP loss JAX exports: mean squared error of a one-hidden-layer tanh network."""
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)


def with_grad_entry(stablehlo: str) -> str:
    """``stablehlo`` plus ``@grad_main``: the gradient of ``@main`` in (w1, w2), written as
    one ``irax.grad`` op that ``irax-autodiff`` expands."""
    types = [f"tensor<{'x'.join(map(str, s))}xf32>" for s in SHAPES.values()]
    body = stablehlo.rstrip()
    if not body.endswith("}"):
        raise ValueError(f"stablehlo_opt: expected a module ending in '}}', got {body[-40:]!r}")
    entry = GRAD_ENTRY.format(
        params=", ".join(f"%{n}: {t}" for n, t in zip(SHAPES, types)),
        args=", ".join(f"%{n}" for n in SHAPES),
        types=", ".join(types),
        results=", ".join(types[:2]))
    return body[:-1] + entry


def irax_opt(text: str, pipeline: str) -> str:
    """Runs the ``irax-opt`` command line on ``text``; returns the IR it prints."""
    proc = subprocess.run([sys.executable, "-m", "irax.cli.opt", "-", "-p", pipeline],
                          input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"irax-opt -p '{pipeline}' failed:\n{proc.stderr}")
    return proc.stdout


def banner(title: str, text: str) -> None:
    print(f"\n==== {title} " + "=" * max(0, 72 - len(title)))
    print(text.strip())


def main() -> int:
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        print("stablehlo_opt: skipped: this example needs jax to export StableHLO "
              "(pip install jax)")
        return 0

    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in SHAPES.values()]
    f = lambda w1, w2, x, y: loss(jjnp, w1, w2, x, y)
    exported = jax.jit(f).lower(*args).as_text()
    banner("StableHLO exported by JAX (jax.jit(loss).lower(...).as_text())", exported)

    source = with_grad_entry(exported)
    raised = irax_opt(source, "builtin.module(irax-raise-stablehlo)")
    banner("after irax-raise-stablehlo: the irax dialect, with the irax.grad op", raised)

    pipeline = ("builtin.module(irax-raise-stablehlo, irax-autodiff, irax-inline, "
                "irax-simplify, irax-lower-to-stablehlo)")
    lowered = irax_opt(source, pipeline)
    banner(f"after {pipeline}", lowered)
    if "irax." in lowered:
        raise SystemExit("stablehlo_opt: the lowered module still holds irax ops")

    # run the lowered gradient with IREE; compare with jax.grad
    module = irax.ir.load(lowered)
    got = module.call("grad_main", *args)
    want = jax.grad(f, argnums=(0, 1))(*args)
    for name, g, w in zip(("dw1", "dw2"), got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-6,
                                   err_msg=f"stablehlo_opt: {name} differs from jax.grad")
    value = module.call("main", *args)
    np.testing.assert_allclose(float(value), float(f(*args)), rtol=1e-5)
    diff = max(float(np.abs(np.asarray(g) - np.asarray(w)).max()) for g, w in zip(got, want))
    print(f"\nloss {float(value):.6f}; the irax-opt gradient matches jax.grad "
          f"(max difference {diff:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
