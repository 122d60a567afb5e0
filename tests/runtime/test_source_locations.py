"""Source locations: every traced op carries the user's file, line and function (under
named_scope / named_call names); passes keep them, errors of op rules under jit name the
user's line, and the compiled program's cache entry does not depend on line numbers."""

import inspect
import re

import numpy as np
import pytest

import irax
import irax.numpy as jnp

HERE = __file__


def _line_of(fn, text: str) -> int:
    """The line number of the first line of ``fn`` holding ``text``."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _model(x):
    y = jnp.sin(x) * 2.0
    with irax.named_scope("block"):
        with irax.named_scope("inner"):
            z = jnp.tanh(y)
    return z + _helper(z)


@irax.named_call
def _helper(v):
    return jnp.exp(v)


def _locations(text: str) -> dict[str, str]:
    """``#locN`` alias -> its text, from an IR dump with debug info."""
    return dict(re.findall(r"^(#loc\d*) = loc\((.*)\)$", text, re.M))


def _file_of(aliases, alias: str) -> str:
    """The file location a (possibly named) location alias stands for."""
    text = aliases.get(alias, alias)
    named = re.match(r'^"[^"]*"\((#loc\d*)\)$', text)
    return _file_of(aliases, named.group(1)) if named else text


def _op_locations(text: str, op: str) -> list[str]:
    aliases = _locations(text)
    found = re.findall(rf'"{re.escape(op)}".* loc\((#loc\d*)\)', text)
    return [aliases.get(a, a) for a in found]


def test_each_traced_op_names_the_user_line_function_and_scopes():
    text = irax.jit(_model).lower(np.ones(3, np.float32)).as_text("irax", debug_info=True)
    sin_line = _line_of(_model, "jnp.sin")
    tanh_line = _line_of(_model, "jnp.tanh")
    exp_line = _line_of(_helper, "jnp.exp")
    aliases = _locations(text)
    files = {k: v for k, v in aliases.items() if HERE in v}
    assert any(f'"{HERE}":{sin_line}:0' in v for v in files.values()), text
    [sin] = _op_locations(text, "irax.sin")
    assert sin.startswith('"_model"(') and aliases[sin.split("(", 1)[1].rstrip(")")] == \
        f'"{HERE}":{sin_line}:0'
    [tanh] = _op_locations(text, "irax.tanh")
    assert tanh.startswith('"block/inner/_model"(')
    assert aliases[tanh.split("(", 1)[1].rstrip(")")] == f'"{HERE}":{tanh_line}:0'
    [exp] = _op_locations(text, "irax.exp")
    assert exp.startswith('"_helper/_helper"(')
    assert aliases[exp.split("(", 1)[1].rstrip(")")] == f'"{HERE}":{exp_line}:0'
    # every op of the traced function has a location in this file
    for line in text.splitlines():
        if '"irax.' in line:
            alias = re.search(r"loc\((#loc\d*)\)", line).group(1)
            assert HERE in _file_of(aliases, alias), line


def test_locations_survive_autodiff_vmap_and_lowering():
    def loss(x):
        return jnp.sum(jnp.tanh(x) ** 2)

    line = _line_of(loss, "jnp.tanh")
    text = irax.jit(irax.vmap(irax.grad(loss))).lower(
        np.ones((2, 3), np.float32)).as_text("stablehlo", debug_info=True)
    aliases = _locations(text)
    here = [a for a, v in aliases.items() if v == f'"{HERE}":{line}:0']
    assert here, text
    named = {a for a, v in aliases.items() if any(f"(#{h[1:]})" in v or f"({h})" in v
                                                    for h in here)}
    # the tanh and the ops its derivative rule emitted stand at the user's line
    tagged = [ln for ln in text.splitlines()
              if any(f"loc({a})" in ln for a in named)]
    assert any("stablehlo.tanh" in ln for ln in tagged)
    assert any("stablehlo.multiply" in ln or "stablehlo.subtract" in ln for ln in tagged)


def test_an_op_rule_error_under_jit_names_the_user_line():
    def f(x):
        return irax.pure_callback(np.sin, irax.ShapeDtypeStruct((), np.float32), x)

    line = _line_of(f, "pure_callback")
    with pytest.raises(ValueError) as info:
        irax.jit(irax.grad(f))(np.float32(1.0))
    message = str(info.value)
    assert f'"{HERE}":{line}:0' in message
    assert "'irax.pure_callback' op pure callbacks do not support JVP" in message


def test_the_compiled_program_does_not_depend_on_line_numbers():
    def first(x):
        return jnp.cos(x) * 3.0 - 1.0

    def second(x):

        return jnp.cos(x) * 3.0 - 1.0

    x = np.arange(4, dtype=np.float32) + 0.125
    irax.jit(first)(x)
    before = irax.compile_stats()
    irax.jit(second)(x)
    after = irax.compile_stats()
    assert after["compiles"] == before["compiles"]
    assert "loc(\"" not in irax.jit(second).lower(x).as_text("iree", debug_info=True)


def test_named_scope_checks_its_name():
    with pytest.raises(TypeError, match="irax.named_scope: the name must be a str, got int"):
        with irax.named_scope(3):
            pass
    g = irax.named_call(lambda x: x + 1, name="plus")
    text = irax.jit(g).lower(np.float32(1.0)).as_text("irax", debug_info=True)
    assert '"plus/' in text


def test_make_mlir_shows_the_ir_of_a_stage():
    def f(x, n):
        return jnp.sin(x) * n

    text = irax.make_mlir(f, static_argnums=1)(np.float32(1.0), 3)
    assert '"irax.sin"(%arg0)' in text and "dense<3.000000e+00>" in text
    assert text == irax.jit(f, static_argnums=1).lower(np.float32(1.0), 3).as_text("irax")
    lowered = irax.make_mlir(f, stage="stablehlo", static_argnums=1)(np.float32(1.0), 3)
    assert "stablehlo.sine" in lowered
    located = irax.make_mlir(f, debug_info=True, static_argnums=1)(np.float32(1.0), 3)
    assert f'"{HERE}":{_line_of(f, "jnp.sin")}:0' in located
    with pytest.raises(ValueError, match=r"irax.make_mlir: unknown stage 'hlo'"):
        irax.make_mlir(f, stage="hlo")
