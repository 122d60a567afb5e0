"""Reproducer: IREE 3.13 returns a wrong ``svd`` from a module whose only change is a
reduction computed in two stages (irax uses irax only to write the two modules; compiling
and running them is iree.compiler and iree.runtime alone).

    python docs/repro/split_norm_memoization.py

The module is ``jit(lambda a, m: (*la.eigh(a), *la.svd(m)))`` on two batches of 2x128x128
float32 matrices at irax's "iree" stage: Jacobi sweeps in ``stablehlo.while`` loops. The
second module differs in one place: the Frobenius norm ``sum(a * a)`` over dims [1, 2]
before the eigh loop is reduced as (2, 256, 64) over dim 1 and then over the 64 partials
(what ``irax-split-reductions`` writes; the sum changes in its last bits, nothing else).
Measured 2026-12-06 (local-sync, one thread):

    plain                                  svd error 1.1e-05   eigh error 2.9e-06
    split                                  svd error 7.1       eigh error 2.9e-06
    split --iree-hal-memoization=false     svd error 1.1e-05   eigh error 2.9e-06
    split --iree-hal-indirect-command-buffers=false
                                           svd error 1.1e-05   eigh error 2.9e-06

(the svd error is ``max |U S Vh - m|``; in the wrong result ``Vh`` is +-identity). irax
therefore leaves modules with host-driven loops unsplit (``passes/split_reductions.py``).
"""

import numpy as np

N = 128
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host", "--iree-input-type=stablehlo",
         "--iree-opt-const-eval=false", "--iree-input-demote-f64-to-f32=false"]


def modules() -> tuple[str, str]:
    """The plain module and the one with the norm split (irax writes both)."""
    import irax
    import irax.passes.split_reductions as sr
    from irax.numpy import linalg as la

    zeros = np.zeros((2, N, N), np.float32)

    def text(split_first: bool) -> str:
        original, seen = sr.split, []

        def first_only(op):
            seen.append(op)
            return original(op) if split_first and len(seen) == 1 else False

        sr.split, loops = first_only, sr.SplitReductions.run
        # the pass leaves modules with loops whole: run its rewrite on this one anyway
        sr.SplitReductions.run = _run_ignoring_loops
        try:
            f = irax.jit(lambda a, m: (*la.eigh(a), *la.svd(m)))
            return f.lower(zeros, zeros).as_text("iree")
        finally:
            sr.split, sr.SplitReductions.run = original, loops

    return text(False), text(True)


def _run_ignoring_loops(self, module) -> None:
    import irax.passes.split_reductions as sr

    for op in sr.candidates(module)[0]:
        sr.split(op)


def run(text: str, extra=()):
    import iree.compiler as ireec
    import iree.runtime as rt

    vmfb = ireec.compile_str(text, extra_args=FLAGS + list(extra))
    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    rng = np.random.default_rng(7)
    q, _ = np.linalg.qr(rng.standard_normal((2, N, N)))
    a = ((q * np.linspace(1, 10, N)) @ np.swapaxes(q, -1, -2)).astype(np.float32)
    m = rng.standard_normal((2, N, N)).astype(np.float32)
    w, v, u, s, vh = (np.asarray(o.to_host(), np.float64)
                      for o in ctx.modules.module["main"](a, m))
    return (np.abs((u * s[:, None, :]) @ vh - m).max(),
            np.abs(a @ v - v * w[:, None, :]).max())


if __name__ == "__main__":
    plain, split = modules()
    for name, text, extra in [("plain", plain, ()), ("split", split, ()),
                              ("split --iree-hal-memoization=false", split,
                               ("--iree-hal-memoization=false",)),
                              ("split --iree-hal-indirect-command-buffers=false", split,
                               ("--iree-hal-indirect-command-buffers=false",))]:
        svd_err, eigh_err = run(text, extra)
        print(f"{name:48s} svd error {svd_err:.2g}   eigh error {eigh_err:.2g}")
