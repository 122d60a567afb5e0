"""The registry meta-test: every op has every rule, and jit agrees with the reference.

All samples of all ops are traced into ONE module and compiled once, so the test stays
cheap however many ops there are.
"""

import numpy as np
import pytest
from op_samples import NO_SAMPLE, SAMPLES

import irax
from irax.dialect import REGISTRY, Op, mlir
from irax.dialect.base import Linear
from irax.dialect.interpreter import evaluate_function
from irax.dialect.verifier import collect_diagnostics
from irax.frontend.trace import bind

RULES = ("infer", "evaluate", "lower")
REGION_RULES = ("verify_regions", "evaluate_regions", "lower_regions")


def _defines(cls, rule: str) -> bool:
    """Whether a class other than ``Op`` gives ``rule`` a value (``Op`` sets the derivative
    and batching rules to None, so ``hasattr`` would always hold)."""
    owner = next((k for k in cls.__mro__ if rule in k.__dict__), None)
    return owner is not None and owner is not Op and getattr(cls, rule) is not None


def missing_rules(cls) -> list[str]:
    """The rules ``cls`` lacks without saying why in ``no_rules``: infer, evaluate and lower
    (or their region forms), jvp (or jvp_full) for a differentiable op, transpose for an op
    linear in every operand, batch and shard (irax-partition's sharding rule) for every op;
    and ``no_rules`` entries that name a rule the op has, or give no reason."""
    basic = REGION_RULES if cls.region_op else RULES
    missing = [r for r in basic if not _defines(cls, r)]
    if cls.differentiable and not (_defines(cls, "jvp") or _defines(cls, "jvp_full")):
        missing.append("jvp")
    if issubclass(cls, Linear) and not _defines(cls, "transpose"):
        missing.append("transpose")
    if not _defines(cls, "batch"):
        missing.append("batch")
    if not _defines(cls, "shard"):
        missing.append("shard")
    declared = dict(cls.no_rules)
    has = {r: _defines(cls, r) for r in (*basic, "transpose", "batch", "shard")}
    has["jvp"] = _defines(cls, "jvp") or _defines(cls, "jvp_full")
    wrong = [f"no_rules[{r!r}] for a rule it defines" for r in declared if has.get(r)]
    wrong += [f"no_rules[{r!r}] without a reason" for r, why in declared.items() if not why]
    return [r for r in missing if r not in declared] + wrong


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_op_defines_every_rule(name):
    cls = REGISTRY[name]
    assert missing_rules(cls) == [], f"{name} lacks {missing_rules(cls)}"
    assert cls.__doc__ and cls.__doc__.strip(), f"{name} has no docstring"
    assert isinstance(cls.differentiable, bool)


def test_an_incomplete_op_is_reported():
    class Incomplete(Op):  # no name: not registered
        num_operands = 1

        @classmethod
        def infer(cls, x):
            return x

    assert missing_rules(Incomplete) == ["evaluate", "lower", "jvp", "batch", "shard"]

    class LinearWithoutTranspose(Linear, Incomplete):
        @classmethod
        def evaluate(cls, x):
            return x

        @classmethod
        def lower(cls, lb, x):
            return x

    assert missing_rules(LinearWithoutTranspose) == ["transpose", "batch", "shard"]

    class Excused(Incomplete):
        no_rules = {"evaluate": "runs only compiled", "lower": "", "batch": "never mapped",
                    "jvp": "has none", "shard": "never partitioned"}

        @classmethod
        def jvp(cls, b, primals, tangents, outs):
            return tangents[0]

    assert missing_rules(Excused) == ["no_rules['jvp'] for a rule it defines",
                                      "no_rules['lower'] without a reason"]


def test_every_op_has_a_sample():
    missing = sorted(set(REGISTRY) - set(SAMPLES) - NO_SAMPLE)
    assert not missing, f"ops without a sample in op_samples.py: {missing}"
    unknown = sorted(set(SAMPLES) - set(REGISTRY))
    assert not unknown, f"samples for unregistered ops: {unknown}"


def _cases():
    for name in sorted(SAMPLES):
        for i, (operands, attrs) in enumerate(SAMPLES[name]):
            yield f"{name}#{i}", REGISTRY[name], operands, attrs


def _all_ops(*flat_operands):
    outs = []
    it = iter(flat_operands)
    for _, cls, operands, attrs in _cases():
        args = [next(it) for _ in operands]
        r = bind(cls, *args, **attrs)
        outs.extend(r if isinstance(r, list) else [r])
    return outs


def _flat_operands():
    return [op for _, _, operands, _ in _cases() for op in operands]


def test_jit_matches_reference_evaluation_for_every_op():
    flat = _flat_operands()
    eager = [np.asarray(r) for r in _all_ops(*flat)]
    compiled = [np.asarray(r) for r in irax.jit(_all_ops)(*flat)]
    assert len(eager) == len(compiled)
    names = []
    for name, cls, operands, attrs in _cases():
        out = bind(cls, *operands, **attrs)
        names += [name] * (len(out) if isinstance(out, list) else 1)
    for name, e, c in zip(names, eager, compiled):
        assert e.dtype == c.dtype and e.shape == c.shape, name
        if e.dtype.kind in "fc" or e.dtype.name == "bfloat16":
            np.testing.assert_allclose(c.astype(np.float64) if e.dtype.kind != "c" else c,
                                       e.astype(np.float64) if e.dtype.kind != "c" else e,
                                       rtol=2e-2 if e.dtype.itemsize == 2 else 2e-6,
                                       atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(c, e, err_msg=name)


def test_traced_module_verifies_and_interprets_like_eager():
    flat = _flat_operands()
    lowered = irax.jit(_all_ops).lower(*flat)
    module = lowered.compiler_ir("irax")
    assert collect_diagnostics(module) == []
    interpreted = evaluate_function(module, "main", flat)
    eager = [np.asarray(r) for r in _all_ops(*flat)]
    for a, b in zip(interpreted, eager):
        np.testing.assert_array_equal(a, b)
    stablehlo = lowered.as_text("stablehlo")
    assert '"irax.' not in stablehlo


def test_op_names_and_methods_are_unique():
    methods = [cls.method for cls in REGISTRY.values()]
    assert len(methods) == len(set(methods))
    for name, cls in REGISTRY.items():
        assert name == f"irax.{cls.method}" or cls.method


def test_ir_type_round_trip_for_every_dtype():
    from irax.core import dtypes
    from irax.core.abstract import ShapedArray

    for dt in dtypes.all_dtypes:
        aval = ShapedArray((2, 3), dt)
        assert mlir.aval_of_type(mlir.to_ir_type(aval)) == aval


def test_collectives_run_between_devices_and_between_threads():
    """Every collective has a form between the devices of one program (irax-shard's
    ``between_devices``) and, but ``axis_index`` (arithmetic on the device's position),
    one between devices whose programs run on threads (``between_threads``)."""
    from irax.dialect.collective import AxisIndex, Collective

    found = [cls for cls in REGISTRY.values() if issubclass(cls, Collective)]
    assert len(found) >= 8
    for cls in found:
        assert cls.between_devices is not None, cls.name
        assert (cls.between_threads is not None) == (cls is not AxisIndex), cls.name


def test_region_ops_are_partitioned_region_by_region():
    """Every op with regions (loops, branches) has a ``shard_regions`` rule, which
    irax-partition applies instead of running it whole on every device."""
    from irax.dialect.control_flow.region_op import RegionOp

    found = [cls for cls in REGISTRY.values() if issubclass(cls, RegionOp)]
    assert {cls.name for cls in found} >= {"irax.while", "irax.scan", "irax.cond"}
    for cls in found:
        assert cls.shard_regions is not None, cls.name
