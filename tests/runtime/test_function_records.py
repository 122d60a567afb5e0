"""Function records (``frontend/function_record.py``): a jitted function compiled in an
earlier process runs in a new one without being traced; the fingerprint of a function
(``frontend/fingerprint.py``) changes with everything its trace reads, and is unknown
(None: trace as before) where irax cannot know that."""

import functools
import json
import math
import os
import subprocess
import sys
import textwrap
import types

import numpy as np

import irax
import irax.numpy as jnp
from irax.frontend.fingerprint import fingerprint, value_digest

SCALE = 2.0


def _module(source: str, name: str = "user_mod") -> types.ModuleType:
    """A fresh module made of ``source`` (one file name for every version of it)."""
    mod = types.ModuleType(name)
    exec(compile(textwrap.dedent(source), f"/tmp/{name}.py", "exec"), mod.__dict__)
    return mod


def test_the_fingerprint_follows_code_closures_globals_and_helpers():
    def make(c):
        return lambda x: jnp.sin(x) * c + SCALE

    assert fingerprint(make(1.5)) == fingerprint(make(1.5))
    assert fingerprint(make(1.5)) != fingerprint(make(2.5))
    src = """
        import irax.numpy as jnp
        K = {k}
        def helper(x):
            return x * {h}
        def f(x):
            return helper(jnp.cos(x)) + K
        """
    base = fingerprint(_module(src.format(k=1, h=2)).f)
    assert base == fingerprint(_module(src.format(k=1, h=2)).f)
    assert base != fingerprint(_module(src.format(k=3, h=2)).f)     # a global's value
    assert base != fingerprint(_module(src.format(k=1, h=5)).f)     # a helper's code
    mod = _module(src.format(k=1, h=2))
    mod.K = 4
    assert fingerprint(mod.f) != base                               # rebound later
    # values of every kind it digests by content, libraries by name
    w = np.arange(6.0).reshape(2, 3)
    ok = [lambda x: x @ w, lambda x: math.sin(1.0) * np.float32(2) * x,
          lambda x: x.astype(np.float32), functools.partial(jnp.sum, axis=0),
          lambda x: jnp.where(x > 0, x, {"a": (1, 2)}["a"][0]), lambda x: np.sin(x),
          lambda k: irax.random.normal(k, (3,), np.float32)]   # irax's random: a function
    assert all(fingerprint(f) is not None for f in ok)
    w2 = w.copy()
    w2[1, 2] = 7.0
    assert fingerprint(lambda x: x @ w) != fingerprint(lambda x: x @ w2)
    # a library's closures by what they close over (the step size of an optimizer)
    from irax import optim
    adam = fingerprint(optim.adam(0.1).update)
    assert adam is not None and adam == fingerprint(optim.adam(0.1).update)
    assert adam != fingerprint(optim.adam(0.2).update)
    assert value_digest((1, "a", None)) == value_digest((1, "a", None))
    assert value_digest((1, "a")) != value_digest((1.0, "a"))


def test_the_fingerprint_is_unknown_where_a_skipped_trace_could_differ():
    class Model:
        w = 2.0

    m, seen, names = Model(), [], {"a", "b"}
    rng_mod = _module("""
        import numpy as np
        def f(x):
            return x + np.random.uniform()
        """)
    counter = _module("""
        N = 0
        def f(x):
            global N
            N += 1
            return x
        """)
    unknown = [lambda x: x * m.w,                      # an object of a user class
               lambda x: print(x) or x,                # an effect while tracing
               lambda x: seen.append(1) or x,          # mutates what it reads
               lambda x: x + len(names),               # a set of strings
               rng_mod.f, counter.f,                   # numpy.random, assigns a global
               lambda x: x + os.getpid(),              # a module of no library
               m.__init__]                             # a bound method
    for f in unknown:
        assert fingerprint(f) is None, f


_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import irax, irax.numpy as jnp
    from irax.frontend import function_record
    K = {k}

    def body(x, n):
        for i in range(n):
            x = jnp.tanh(x * K + i)
        return {{"y": x, "s": (x.sum(), None), "w": jnp.asarray(K) * 2}}

    f = irax.jit(body, static_argnums=1)
    out = f(np.linspace(-1, 1, 8, dtype=np.float32), 3)
    traced_module = "iree.compiler" in sys.modules   # MLIR's bindings: only to trace
    lowered = f.lower(np.zeros(8, np.float32), 3) if {lower} else None
    text = lowered.as_text() if lowered else ""
    kept = lowered is None or lowered._entry.executable is not None
    g = irax.jit(lambda x: irax.debug.callback(lambda v: None, x) or x + 1.0)
    g(np.ones(2, np.float32))
    print(json.dumps({{"y": np.asarray(out["y"]).tolist(), "s": float(out["s"][0]),
                      "stats": function_record.stats, "traced": traced_module,
                      "lowered": "func.func" in text, "kept": kept,
                      "weak": bool(out["w"].aval.weak_type)}}))
""")


def _run(cache_dir, k=0.5, lower=False, **env):
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=str(cache_dir),
               IRAX_ENABLE_COMPILATION_CACHE="1", **env)
    proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(k=k, lower=lower)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_later_process_runs_the_program_without_tracing(tmp_path):
    first = _run(tmp_path)
    assert first["traced"] and first["stats"] == {"hits": 0, "stored": 1}  # not g: callback
    again = _run(tmp_path, lower=True)
    assert not again["traced"] and again["stats"] == {"hits": 1, "stored": 0}
    assert again["y"] == first["y"] and again["s"] == first["s"]
    assert first["weak"] and again["weak"]      # a weakly typed result stays weak
    assert again["lowered"] and again["kept"]   # lower() traces; the program stays loaded
    other = _run(tmp_path, k=0.75)              # another value of a global: traced again
    assert other["traced"] and other["stats"]["hits"] == 0
    want = np.linspace(-1, 1, 8, dtype=np.float32)
    for i in range(3):
        want = np.tanh(want * np.float32(0.75) + i)
    np.testing.assert_allclose(other["y"], want, rtol=1e-6)
    off = _run(tmp_path, IRAX_FUNCTION_RECORDS="0")
    assert off["traced"] and off["stats"] == {"hits": 0, "stored": 0}
    assert off["y"] == first["y"]


def test_no_record_without_the_persistent_cache():
    from irax.frontend import function_record
    old = irax.config.irax_enable_compilation_cache
    irax.config.update("irax_enable_compilation_cache", False)
    try:
        before = dict(function_record.stats)
        out = irax.jit(lambda x: x * 3.0 + 1.0)(np.ones(3, np.float32))
        np.testing.assert_array_equal(np.asarray(out), [4.0, 4.0, 4.0])
        assert function_record.stats == before
    finally:
        irax.config.update("irax_enable_compilation_cache", old)
