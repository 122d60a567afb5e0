"""irax.export / irax.aot: an exported function saved as one .vmfb runs from the file in a
process without the IREE compiler, and under iree-run-module, with the jitted function's
results; cross targets compile to valid IREE modules; bad artifacts and arguments get
errors that name what is wrong."""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp

BIN = Path(sys.executable).parent


def _mlp(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return {"y": h @ params["w2"], "n": jnp.sum(h)}


def _step(params, batch):
    def loss(p):
        return jnp.mean((_mlp(p, batch["x"])["y"] - batch["t"]) ** 2)

    value, grads = irax.value_and_grad(loss)(params)
    return irax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value


def _data(rng):
    params = {"w1": rng.standard_normal((8, 16)).astype(np.float32),
              "b1": np.zeros(16, np.float32),
              "w2": rng.standard_normal((16, 2)).astype(np.float32)}
    batch = {"x": rng.standard_normal((4, 8)).astype(np.float32),
             "t": rng.standard_normal((4, 2)).astype(np.float32)}
    return params, batch


def _spec(x):
    return irax.ShapeDtypeStruct(np.shape(x), np.asarray(x).dtype)


_NO_COMPILER = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == "iree.compiler" or name.startswith("iree.compiler."):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, _Block())
import numpy as np
import irax
"""


def test_mlp_and_training_step_run_from_the_file_without_the_compiler(tmp_path, rng):
    params, batch = _data(rng)
    predict = irax.export.export(irax.jit(_mlp))(irax.tree.map(_spec, params),
                                                 _spec(batch["x"]))
    step = irax.export.export(irax.jit(_step, donate_argnums=0))(params, batch)
    assert step.donated == (0, 1, 2) and predict.targets == ("cpu",)
    assert "stablehlo.tanh" in predict.mlir_module()
    predict.save(tmp_path / "predict.vmfb")
    step.save(tmp_path / "step.vmfb")
    np.savez(tmp_path / "data.npz", **{f"p_{k}": v for k, v in params.items()},
             **{f"b_{k}": v for k, v in batch.items()})
    script = _NO_COMPILER + textwrap.dedent(f"""
        d = np.load({str(tmp_path / 'data.npz')!r})
        params = {{k[2:]: d[k] for k in d.files if k.startswith("p_")}}
        batch = {{k[2:]: d[k] for k in d.files if k.startswith("b_")}}
        f = irax.aot.load({str(tmp_path / 'predict.vmfb')!r})
        out = f(params, batch["x"])
        step = irax.aot.load({str(tmp_path / 'step.vmfb')!r})
        p = irax.tree.map(irax.device_put, params)
        new, loss = step(p, batch)
        assert all(v.is_deleted() for v in p.values())       # donated
        np.savez({str(tmp_path / 'out.npz')!r}, y=out["y"], n=out["n"], loss=loss,
                 **{{"w_" + k: v for k, v in new.items()}})
        assert "iree.compiler" not in sys.modules
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300)
    got = np.load(tmp_path / "out.npz")
    want = irax.jit(_mlp)(params, batch["x"])
    np.testing.assert_allclose(got["y"], want["y"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got["n"], want["n"], rtol=2e-5)
    new, loss = irax.jit(_step)(params, batch)
    np.testing.assert_allclose(got["loss"], loss, rtol=2e-5)
    for k in params:
        np.testing.assert_allclose(got["w_" + k], new[k], rtol=2e-5, atol=2e-6)
    # in this process too: Exported.call and deserialize
    np.testing.assert_allclose(predict.call(params, batch["x"])["n"], want["n"], rtol=2e-5)
    again = irax.export.deserialize(predict.serialize())
    np.testing.assert_allclose(again(params, batch["x"])["y"], want["y"], rtol=2e-5,
                               atol=2e-6)


@pytest.mark.skipif(shutil.which("iree-run-module", path=str(BIN)) is None,
                    reason="iree-run-module is not installed")
def test_the_same_file_runs_under_iree_run_module(tmp_path, rng):
    params, batch = _data(rng)
    exp = irax.export.export(_mlp)(params, batch["x"])
    exp.save(tmp_path / "predict.vmfb")
    flat = irax.tree.leaves((params, batch["x"]))        # the artifact's argument order
    inputs = []
    for i, a in enumerate(flat):
        np.save(tmp_path / f"in{i}.npy", a)
        inputs.append(f"--input=@{tmp_path / f'in{i}.npy'}")
    outs = [f"--output=@{tmp_path / f'out{i}.npy'}" for i in range(len(exp.out_avals))]
    subprocess.run([str(BIN / "iree-run-module"), "--device=local-task",
                    f"--module={tmp_path / 'predict.vmfb'}", "--function=main", *inputs,
                    *outs], check=True, timeout=120, capture_output=True)
    want = irax.tree.leaves(irax.jit(_mlp)(params, batch["x"]))
    for i, w in enumerate(want):
        np.testing.assert_allclose(np.load(tmp_path / f"out{i}.npy"), w, rtol=2e-5,
                                   atol=2e-6)


def test_cross_targets_compile_to_valid_modules(tmp_path):
    def f(x):
        return jnp.sin(x) * 2.0 + jnp.exp(-x)

    def g(x):      # vmvx has no float64: sin's exact argument reduction needs it
        return jnp.tanh(x) * 2.0 + jnp.exp(-x)

    spec = irax.ShapeDtypeStruct((16,), np.float32)
    exp = irax.export.export(f, targets=["aarch64", "riscv64"])(spec)
    gpus = ["wasm32", "cuda:sm_80", "cuda:sm_90", "vulkan", "rocm:gfx942"]
    portable = irax.export.export(g, targets=["vmvx", *gpus])(spec)
    assert exp.targets == ("aarch64", "riscv64")
    for target, e in (("aarch64", exp), ("riscv64", exp), ("vmvx", portable),
                      *((t, portable) for t in gpus)):
        path = tmp_path / f"{target}.vmfb"
        e.save(path, target)
        dump = subprocess.run([str(BIN / "iree-dump-module"), str(path)], check=True,
                              capture_output=True, text=True, timeout=60).stdout
        assert "irax.signature" in dump
    # sm_90, which IREE 3.13 has no flag name for, is real sm_90 PTX
    assert b".target sm_90" in portable.serialize("cuda:sm_90")
    assert b".target sm_80" in portable.serialize("cuda:sm_80")
    with pytest.raises(ValueError, match=r"irax.aot.load: .*aarch64.vmfb was compiled for "
                                         r"target 'aarch64' \(aarch64\), which this machine "
                                         r"\(x86_64\) cannot run"):
        irax.aot.load(tmp_path / "aarch64.vmfb")
    # vmvx is portable: it runs here
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    np.testing.assert_allclose(irax.aot.load(tmp_path / "vmvx.vmfb")(x), g(x), rtol=1e-5,
                               atol=1e-6)
    assert "cpu" in irax.export.targets() and "cuda:sm_80" in irax.export.targets()
    with pytest.raises(ValueError, match="was not exported for 'host'"):
        exp.serialize("host")


def test_a_pmap_program_exports_and_runs_on_two_devices(tmp_path):
    with irax.config.override("jax_num_cpu_devices", 2):
        g = irax.jit(irax.pmap(lambda x: x * 2.0 + irax.lax.psum(x, "i"), axis_name="i"))
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        exp = irax.export.export(g)(x)
        assert exp.nr_devices == 2
        exp.save(tmp_path / "pmap.vmfb")
        np.testing.assert_allclose(irax.aot.load(tmp_path / "pmap.vmfb")(x), g(x))


def test_bad_artifacts_and_arguments_say_what_is_wrong(tmp_path, rng):
    params, batch = _data(rng)
    exp = irax.export.export(_mlp)(params, batch["x"])
    f = irax.export.deserialize(exp.serialize())
    with pytest.raises(TypeError, match=r"irax.aot.load\(_mlp\): argument args\[1\] "
                                        r"expected float32\[4,8\], got float32\[3,8\]"):
        f(params, batch["x"][:3])
    with pytest.raises(TypeError, match=r"argument args\[0\]\['w1'\] expected "
                                        r"float32\[8,16\], got int32\[8,16\]"):
        f(dict(params, w1=params["w1"].astype(np.int32)), batch["x"])
    with pytest.raises(TypeError, match="expected arguments of pytree structure"):
        f(params)
    with pytest.raises(ValueError, match="is not an IREE module"):
        irax.export.deserialize(b"not a module")
    plain = irax.jit(lambda x: x + 1).lower(np.float32(1)).compile().vmfb
    with pytest.raises(ValueError, match="an IREE module without irax's signature"):
        irax.export.deserialize(plain)
    # a newer format: the signature of a file written by a future irax
    from irax.export import _format, _signed
    from irax.frontend.compile import module_at_stage
    from irax.runtime.compiler import Target, compile_module

    lowered = irax.jit(lambda x: x * 3).lower(np.float32(1))
    sig = json.loads(json.dumps({"format": 99, "irax": "9.0", "function": "f",
                                 "target": {"name": "cpu", "arch": "x86_64"}}))
    future = compile_module(_signed(module_at_stage(lowered._entry, "iree"), sig),
                            Target("llvm-cpu", cpu="generic"))
    with pytest.raises(ValueError, match=r"has artifact format 99, newer than this irax "
                                         rf"reads \(format {_format.FORMAT}\): load it with "
                                         r"the irax 9.0"):
        irax.export.deserialize(future)
    with pytest.raises(ValueError, match=r"irax.export.export: unknown target 'arm'"):
        irax.export.export(_mlp, targets=["arm"])
    with pytest.raises(TypeError, match="cannot export pytrees with nodes of type"):
        from collections import namedtuple

        P = namedtuple("P", "a")
        irax.export.export(lambda p: p.a * 2)(P(np.float32(1)))


def _cuda_device():
    try:
        return irax.devices("cuda")[0]
    except (RuntimeError, ValueError, IndexError):
        return None


@pytest.mark.skipif(_cuda_device() is None, reason="no CUDA device")
def test_the_cuda_artifact_runs_on_the_gpu_and_matches_the_cpu(tmp_path, rng):
    params, batch = _data(rng)
    exp = irax.export.export(_mlp, targets=["cuda:sm_80", "cpu"])(params, batch["x"])
    exp.save(tmp_path / "gpu.vmfb", "cuda:sm_80")
    got = irax.aot.load(tmp_path / "gpu.vmfb")(params, batch["x"])
    want = irax.export.deserialize(exp.serialize("cpu"))(params, batch["x"])
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-4, atol=1e-5)


def test_float64_cross_compiles_and_libm_calls_say_why_not(x64):
    """Float64 sin, cos, tan, tanh, atan2, cbrt and fmod (C library calls on the host) are
    arithmetic on cross targets (``irax-expand-libm``; their numbers: test_libm64.py), and
    so is complex128 expm1; a program that still calls the library says so and names the
    function."""
    spec = irax.ShapeDtypeStruct((8,), np.float64)

    def f(x):
        return (jnp.exp(x) * jnp.log1p(x) + jnp.sqrt(x) / 3.0, jnp.sin(x), jnp.cos(x),
                jnp.tan(x), jnp.tanh(x), jnp.arctan2(x, x + 1), jnp.cbrt(x), jnp.fmod(x, 0.3),
                jnp.arcsin(x))

    exp = irax.export.export(f, targets=["aarch64", "riscv64"])(spec)
    assert exp.in_avals[0].dtype == np.float64 and exp.targets == ("aarch64", "riscv64")
    from irax.core.errors import CompilationError

    cspec = irax.ShapeDtypeStruct((8,), np.complex128)
    assert irax.export.export(jnp.expm1, targets=["aarch64"])(cspec).targets == ("aarch64",)
    # a program that still calls the library (here: sin compiled without the expansion)
    from irax.runtime.compiler import Target, compile_module

    module = irax.jit(jnp.sin).lower(np.ones(8)).compiler_ir("iree")
    with pytest.raises(CompilationError, match=r"cannot compile sin for "
                                               r"aarch64-unknown-linux-gnu: it calls the C "
                                               r"math function sin\b"):
        compile_module(module, Target("llvm-cpu", cpu="generic",
                                      triple="aarch64-unknown-linux-gnu"), "sin")


def test_jax_platforms_falls_back_past_missing_accelerators_as_jax():
    def has(platform):
        try:
            return bool(irax.devices(platform))
        except RuntimeError:
            return False

    if has("cuda") or has("rocm"):
        pytest.skip("an accelerator is present: nothing to fall back from")
    for platforms in ("cuda,cpu", "gpu,cpu", "rocm,cpu"):
        with irax.config.override("jax_platforms", platforms):
            assert irax.default_backend() == "cpu"
            assert float(irax.jit(lambda x: x + 1)(1.0)) == 2.0
    with irax.config.override("jax_platforms", "cuda,rocm"):
        with pytest.raises(RuntimeError, match=r"none of the platforms in jax_platforms "
                                               r"\(cuda, rocm\) is available"):
            irax.default_backend()
    with pytest.raises(RuntimeError, match="backend 'cuda' is not available"):
        irax.jit(lambda x: x, backend="cuda")(1.0)
    irax.clear_caches()     # the fallback's record in the device table is no device


def test_the_host_target_computes_what_jit_computes_bit_for_bit(rng):
    """"cpu" is portable code (another instruction selection: last-bit differences);
    "host" is what jit compiles, so its results are jit's exactly."""
    params, batch = _data(rng)
    exp = irax.export.export(irax.jit(_step, donate_argnums=0), targets=["host"])(params,
                                                                                 batch)
    got = irax.export.deserialize(exp.serialize())(params, batch)
    want = irax.jit(_step)(params, batch)
    for a, b in zip(irax.tree.leaves(got), irax.tree.leaves(want)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
