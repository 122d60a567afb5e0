"""irax.debug.print and irax.debug.callback inside compiled code, as JAX's: prints appear
when the program runs, with the values it computed, in program order; once per example
under vmap, with primal values once under grad; in loop and branch bodies each time they
run; per device under pmap. Each case is checked against real JAX's output where JAX
runs it on one CPU."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import irax
import irax.numpy as jnp


def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def _jax_lines(capsys, fn, *args) -> list[str]:
    capsys.readouterr()
    jax.block_until_ready(fn(*args))
    jax.effects_barrier()
    return _lines(capsys)


def _irax_lines(capsys, fn, *args) -> list[str]:
    capsys.readouterr()
    irax.block_until_ready(fn(*args))
    return _lines(capsys)


def _both(capsys, make, *args, transform=lambda f: f):
    """The lines printed by ``transform(make(lib))`` run on ``args``, for irax and JAX
    (``make(lib)`` builds the function from ``lib.numpy``, ``lib.debug``, ``lib.lax``)."""
    ours = _irax_lines(capsys, transform(make(irax), irax), *args)
    theirs = _jax_lines(capsys, transform(make(jax), jax), *args)
    return ours, theirs


def _model(lib):
    np_ = lib.numpy

    def f(x, scale):
        lib.debug.print("x = {}", x)
        y = x * x * scale + 0.25    # exact in float32: every library prints the same
        lib.debug.print("y = {y} scale = {s}", y=y, s=scale)
        return np_.sum(y)

    return f


def test_print_inside_jit_shows_values_in_order_like_jax(capsys):
    x = np.array([0.0, 1.0, 2.0], np.float32)
    ours, theirs = _both(capsys, _model, x, np.float32(2.0), transform=lambda f, lib: lib.jit(f))
    assert ours == theirs
    assert ours[0] == "x = [0. 1. 2.]" and len(ours) == 2
    assert ours[1] == "y = [0.25 2.25 8.25] scale = 2.0"
    # the program runs again: so do its prints
    f = irax.jit(_model(irax))
    f(x, 1.0)
    f(x, 1.0)
    assert len(_lines(capsys)) == 4


def test_print_eagerly_prints_at_once(capsys):
    irax.debug.print("hello {} and {name}", 1, name="there")
    irax.debug.print("no placeholders", jnp.arange(2), skip_format_check=True)
    assert _lines(capsys) == ["hello 1 and there", "no placeholders [0 1]"]


def test_print_under_vmap_prints_each_example_like_jax(capsys):
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    for lib_transform in (lambda f, lib: lib.vmap(f, in_axes=(0, None)),
                          lambda f, lib: lib.jit(lib.vmap(f, in_axes=(0, None)))):
        ours, theirs = _both(capsys, _model, xs, np.float32(1.0), transform=lib_transform)
        assert ours == theirs
        assert ours[0] == "x = [0. 1. 2.]" and ours[1] == "x = [3. 4. 5.]"


def test_print_under_grad_prints_primals_once_like_jax(capsys):
    x = np.array([0.5, 1.0], np.float32)
    for transform in (lambda f, lib: lib.grad(f), lambda f, lib: lib.jit(lib.grad(f))):
        ours, theirs = _both(capsys, _model, x, np.float32(3.0), transform=transform)
        assert ours == theirs
        assert len(ours) == 2 and ours[0] == "x = [0.5 1. ]"


def test_print_in_scan_while_and_cond_bodies_like_jax(capsys):
    def make(lib):
        def f(xs, flag):
            def step(c, x):
                lib.debug.print("step c={} x={}", c, x)
                return c + x, c * x

            total, _ = lib.lax.scan(step, 0.0, xs)

            def body(c):
                lib.debug.print("loop {}", c)
                return c * 2

            big = lib.lax.while_loop(lambda c: c < 10.0, body, total)

            def yes(v):
                lib.debug.print("yes {}", v)
                return v + 1

            def no(v):
                lib.debug.print("no {}", v)
                return v - 1

            return lib.lax.cond(flag, yes, no, big)
        return f

    xs = np.array([1.0, 2.0, 0.5], np.float32)
    for flag in (True, False):
        ours, theirs = _both(capsys, make, xs, flag, transform=lambda f, lib: lib.jit(f))
        assert ours == theirs
    assert ours[:3] == ["step c=0.0 x=1.0", "step c=1.0 x=2.0", "step c=3.0 x=0.5"]
    assert ours[3:] == ["loop 3.5", "loop 7.0", "no 14.0"]


def test_ordered_prints_and_callbacks_keep_program_order(capsys):
    seen = []

    @irax.jit
    def f(x):
        irax.debug.print("first {}", x, ordered=True)
        irax.debug.callback(lambda v: seen.append(("cb", float(v))), x * 2, ordered=True)
        y = irax.experimental.io_callback(
            lambda v: (seen.append(("io", float(v))), np.float32(v + 1))[1],
            irax.ShapeDtypeStruct((), np.float32), x * 3, ordered=True)
        irax.debug.print(ordered=True)("then {}", y)
        return y

    assert float(f(np.float32(1.0))) == 4.0
    assert _lines(capsys) == ["first 1.0", "then 4.0"]
    assert seen == [("cb", 2.0), ("io", 3.0)]


def test_debug_callback_gets_arrays_and_static_arguments():
    got = []

    def record(a, tag, b=None):
        got.append((type(a).__name__, np.asarray(a).tolist(), tag, np.asarray(b).tolist()))

    @irax.jit
    def f(x):
        irax.debug.callback(record, x, "tag", b=x + 1)
        return x

    f(jnp.arange(2.0))
    record_jax = []
    jax.jit(lambda x: jax.debug.callback(
        lambda a, tag, b=None: record_jax.append((np.asarray(a).tolist(), tag,
                                                  np.asarray(b).tolist())),
        x, "tag", b=x + 1))(jjnp.arange(2.0))
    jax.effects_barrier()
    assert got == [("Array", [0.0, 1.0], "tag", [1.0, 2.0])]
    assert [g[1:] for g in got] == record_jax


def test_print_inside_pmap_prints_per_device(capsys):
    with irax.config.override("jax_num_cpu_devices", 2):
        def f(x):
            irax.debug.print("shard {}", x)
            return x * 2

        out = irax.pmap(f)(np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_array_equal(out, [[0, 2], [4, 6]])
    assert sorted(_lines(capsys)) == ["shard [0. 1.]", "shard [2. 3.]"]


def test_print_uses_numpy_print_options(capsys):
    @irax.jit
    def f(x):
        irax.debug.print("{}", x)
        return x

    with np.printoptions(precision=2):
        irax.jit(lambda x: (irax.debug.print("{}", x), x)[1])(np.float32([1 / 3]))
    f(np.float32([1 / 3]))
    assert _lines(capsys) == ["[0.33]", "[0.33333334]"]


def test_format_errors_name_the_format_string():
    with pytest.raises(ValueError, match=r"irax.debug.print: the format string '\{\} \{\}' "
                                         r"names an argument that was not given"):
        irax.debug.print("{} {}", 1.0)
    with pytest.raises(ValueError, match=r"irax.debug.print: unused keyword arguments for "
                                         r"the format string 'x=1.0': \['x'\]. You may be "
                                         r"passing an f-string"):
        irax.debug.print(f"x={1.0}", x=2.0)
    with pytest.raises(ValueError, match="unused positional arguments for the format "
                                         r"string 'a': \[2.0\]"):
        irax.debug.print("a", 2.0)
    # a format spec is checked when the value is formatted, as in JAX: at run time
    f = irax.jit(lambda x: (irax.debug.print("{:q}", x), x)[1])
    with pytest.raises(ValueError, match=r"irax.debug.print: cannot format '\{:q\}' with "
                                         r"its values: Unknown format code 'q'"):
        f(np.float32(1.0))
    with pytest.raises(TypeError, match="irax.debug.print: the format must be a str, got int"):
        irax.debug.print(3)
    with pytest.raises(TypeError, match="first argument to irax.debug.callback must be "
                                        "callable"):
        irax.debug.callback(3, 1.0)


def test_print_in_the_traced_ir():
    text = irax.jit(lambda x: (irax.debug.print("v {}", x), x + 1)[1]).lower(
        np.float32(1.0)).as_text("stablehlo")
    assert "call @irax_host.cb" in text and "__ifloat32(" in text


def test_prints_in_loop_and_branch_bodies_under_grad_run_forward_only(capsys):
    """The backward sweep of scan, while and cond runs their bodies' VJPs (a while loop
    also recomputes its carries): without their prints, which ran forward, once a trip."""
    def make(lib):
        def f(x):
            def step(c, _):
                lib.debug.print("scan {}", c)
                return c * 1.5, c

            y, _ = lib.lax.scan(step, x, None, length=3)
            return lib.lax.cond(y > 1.0, lambda v: (lib.debug.print("big {}", v), v * v)[1],
                                lambda v: v, y)
        return f

    for transform in (lambda f, lib: lib.grad(f), lambda f, lib: lib.jit(lib.grad(f))):
        ours, theirs = _both(capsys, make, np.float32(1.0), transform=transform)
        assert ours == theirs == ["scan 1.0", "scan 1.5", "scan 2.25", "big 3.375"]

    def w(x):       # reverse mode through while_loop (JAX has none)
        def body(c):
            irax.debug.print("trip {}", c)
            return c * 2.0
        return irax.lax.while_loop(lambda c: c < 5.0, body, x)

    for g in (irax.grad(w), irax.jit(irax.grad(w))):
        assert float(_irax_value(capsys, g, np.float32(1.0))) == 8.0
        assert _lines(capsys) == ["trip 1.0", "trip 2.0", "trip 4.0"]


def _irax_value(capsys, fn, *args):
    capsys.readouterr()
    return fn(*args)
