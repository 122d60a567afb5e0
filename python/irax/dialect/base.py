"""The op definition machinery: one class per op, carrying every rule of that op.

An op class states its name, operands, attributes and rules; a family base class
supplies what its members share. The registry maps op names to classes so that passes,
the verifier, the interpreter and the lowering dispatch on classes, never on strings.

    class Neg(ElementwiseUnary):
        '''%y = "irax.neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>'''
        name = "irax.neg"
        lowers_to = "stablehlo.negate"
        evaluate = staticmethod(np.negative)

Rules (all classmethods, all receive decoded attribute values as keywords):
- ``infer(*avals, **attrs)``: result abstract value(s); raises ``OpError`` with an MLIR-style
  message body ("expected ...") for invalid operands.
- ``evaluate(*arrays, **attrs)``: the NumPy reference semantics.
- ``lower(lb, *operands, **attrs)``: StableHLO values, built with a ``LoweringBuilder``.
- ``jvp(b, primals, tangents, outs, **attrs)``: output tangent(s) given operand tangents
  (``None`` is a symbolic zero; at least one is not None). ``b`` is an ``ADBuilder``.
- ``transpose(b, ct, *operands, **attrs)``: for ops that are linear in some operands, the
  cotangent of each operand (``None`` for non-linear ones) given the result's cotangent;
  linear operands arrive as ``Lin`` placeholders (``b.is_linear(x)``).
- ``batch(b, args, dims, **attrs)``: the vmap rule.
- ``shard(specs, avals, out_avals, mesh, **attrs)``: the sharding rule of ``irax-partition``
  (``dialect/sharding.py``): the sharding each operand needs, each result's, and the
  collectives completing partial results.
- ``fold(operands, consts, results, **attrs)``: what the op computes when some operands
  are constants (MLIR's fold): an existing value or a constant per result, or None. The
  default folds an op whose operands are all constants with its ``evaluate`` rule.
- ``canonicalize(op, **attrs)``: an in-place rewrite beyond a fold (a branch inlined, loop
  invariants hoisted); True when it changed the IR.
- ``differentiable = False`` marks an op whose outputs carry no tangent (comparisons,
  integer-valued ops); ``no_rules`` names the rules an op deliberately lacks, with why.

The signatures are written once, as Protocols, in ``dialect/rules.py``.
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.attrs import AttrKind

REGISTRY: dict[str, type[Op]] = {}
#: the start of a diagnostic that names its op: ``'irax.add' op ...``
_OP_PREFIX = re.compile(r"'[\w.$-]+' op ")
_BY_METHOD: dict[str, type[Op]] = {}


class OpError(Exception):
    """An op's rule rejected its operands; ``str`` is the diagnostic body."""


class Op:
    """Base class of every irax op. Subclasses with a ``name`` are registered."""

    name: ClassVar[str] = ""
    #: Python-level attribute name -> kind. Optional attributes list their default.
    attributes: ClassVar[dict[str, AttrKind]] = {}
    defaults: ClassVar[dict[str, object]] = {}
    #: number of operands, or None for variadic
    num_operands: ClassVar[int | None] = None
    num_regions: ClassVar[int | None] = 0
    #: ops with isolated regions (``irax.while``): interpreted with ``evaluate_regions``,
    #: checked with ``verify_regions``, lowered with ``lower_regions``
    region_op: ClassVar[bool] = False
    #: False marks ops whose results have no tangent (comparisons, integer ops, argmax)
    differentiable: ClassVar[bool] = True
    #: operands whose derivative is defined along Hermitian perturbations only (the rule
    #: takes the tangent as Hermitian, as JAX's cholesky and eigh do): tests symmetrize them
    hermitian_tangents: ClassVar[tuple[int, ...]] = ()
    #: True where the derivative rules are a surrogate by definition, not the function's
    #: own (JAX's straight-through ``reduce_precision``): finite differences do not apply
    surrogate_derivative: ClassVar[bool] = False
    #: the builder method name (``b.add``); defaults to the op name without "irax."
    method: ClassVar[str] = ""
    #: False when result types cannot be inferred from operands alone (``irax.call``):
    #: builders then pass ``result_avals``
    infers_results: ClassVar[bool] = True
    #: the op ends a block (``irax.return``)
    terminator: ClassVar[bool] = False
    #: a call of a function without derivative rules of its own (``irax.call``)
    plain_call: ClassVar[bool] = False
    #: MLIR's ConstantLike: the op has no operands and its ``value`` attribute is its
    #: result (folding and raising read constants through it)
    constant_like: ClassVar[bool] = False

    #: MLIR's side-effect interface reduced to one bit: an op with side effects is never
    #: erased when unused, merged with an equal op, hoisted out of a loop or folded
    has_side_effects: ClassVar[bool] = False
    #: about how many StableHLO ops lowering and irax-legalize-iree make of one (weights
    #: the body sizes that bound loop unrolling: ``control_flow/unroll.py``)
    lowered_size: ClassVar[int] = 1
    #: rules this op deliberately lacks, each with the reason (the registry meta-test
    #: accepts them where it would reject the base class's None)
    no_rules: ClassVar[dict[str, str]] = {}

    # Rules an op may define; None means "not defined" (see ``no_rules``).
    jvp = None
    #: ``shard(specs, avals, out_avals, mesh, **attrs) -> ShardPlan`` (dialect/sharding.py)
    shard = None
    #: ``shard_regions(p, **attrs) -> RegionPlan``: a region op partitioned region by
    #: region (loops, branches: shard/regions.py); None: ``shard`` alone decides
    shard_regions = None
    transpose = None
    batch = None
    canonicalize = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "name" not in cls.__dict__ or not cls.name:
            return
        if cls.name in REGISTRY:
            raise ValueError(f"duplicate irax op {cls.name}")
        REGISTRY[cls.name] = cls
        cls.method = cls.__dict__.get("method") or cls.name.split(".", 1)[1]
        _BY_METHOD[cls.method] = cls

    #: call-like ops (``irax.call``, custom rules, checkpoint) name the function they run
    callee_of = None
    #: matrix products and convolutions: ``multiply_adds(avals, outs, **attrs) -> int``,
    #: the multiply-adds one execution performs (the pool pays for those; the
    #: irax-level twin of ``lowering/work.py``'s count, which reads lowered programs)
    multiply_adds = None
    #: True for ops that join the trace being recorded even on concrete operands (host
    #: callbacks: they run when the program runs, not while it is traced)
    joins_trace: ClassVar[bool] = False
    #: host callbacks: ``host_import(op) -> (symbol, input types, result types)``, the
    #: imported function the lowering declares for the op (``dialect/callback.py``)
    host_import = None
    #: ops whose derivative rule computes the outputs too: ``jvp_full(b, ins, dins,
    #: out_avals, **attrs) -> (outs, tangents)`` replaces copying the op plus ``jvp``
    jvp_full = None

    # ---- rules -------------------------------------------------------------------------
    @classmethod
    def infer(cls, *avals: ShapedArray, **attrs):
        raise NotImplementedError(f"{cls.name} has no type inference")

    @classmethod
    def evaluate(cls, *arrays: np.ndarray, **attrs):
        raise NotImplementedError(f"{cls.name} has no reference evaluation")

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        raise NotImplementedError(f"{cls.name} has no StableHLO lowering")

    @classmethod
    def fold(cls, operands, consts, results, **attrs):
        """Constant folding: an op whose operands are all constants is its NumPy rule's
        value (ops without operands, with side effects or regions do not fold)."""
        if not consts or any(c is None for c in consts) or cls.has_side_effects or \
                cls.region_op:
            return None
        return cls.evaluate_list(list(consts), attrs, [mlir.aval_of(r) for r in results])

    # ---- helpers shared by builder, verifier and interpreter -------------------------------
    @classmethod
    def diag(cls, message: str) -> str:
        """``'irax.x' op <message>``; a message that already names its op (an ``OpError``
        a builder re-raised) is kept as it is, so the prefix appears once."""
        if _OP_PREFIX.match(message):
            return message
        return f"'{cls.name}' op {message}"

    @classmethod
    def check_arity(cls, n: int) -> None:
        if cls.num_operands is not None and n != cls.num_operands:
            raise OpError(f"expected {cls.num_operands} operands, but got {n}")

    @classmethod
    def normalize_attrs(cls, attrs: dict) -> dict:
        out = {}
        for key, kind in cls.attributes.items():
            if key in attrs:
                out[key] = kind.normalize(attrs[key])
            elif key in cls.defaults:
                out[key] = cls.defaults[key]
            else:
                raise OpError(f"requires attribute '{key}'")
        extra = set(attrs) - set(cls.attributes)
        if extra:
            raise OpError(f"got unknown attribute(s) {sorted(extra)}")
        return out

    @classmethod
    def encode_attrs(cls, attrs: dict) -> dict:
        return {k: cls.attributes[k].encode(v) for k, v in attrs.items()
                if not (k in cls.defaults and cls.defaults[k] == v)}

    @classmethod
    def decode_attrs(cls, operation) -> dict:
        named = operation.attributes
        out = {}
        for key, kind in cls.attributes.items():
            if key in named:
                try:
                    out[key] = kind.decode_from(operation, key)
                except (ValueError, TypeError):
                    raise OpError(f"attribute '{key}' has the wrong kind"
                                  f"{_attr_text(named, key)}") from None
            elif key in cls.defaults:
                out[key] = cls.defaults[key]
            else:
                raise OpError(f"requires attribute '{key}'")
        return out

    @classmethod
    def infer_list(cls, avals, attrs) -> list[ShapedArray]:
        cls.check_arity(len(avals))
        out = cls.infer(*avals, **attrs)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    @classmethod
    def evaluate_list(cls, arrays, attrs, out_avals) -> list[np.ndarray]:
        out = cls.evaluate(*arrays, **attrs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return [np.asarray(o).astype(a.dtype, copy=False).reshape(a.shape)
                for o, a in zip(outs, out_avals)]


def _attr_text(named, key: str) -> str:
    """``: <attribute>``, or nothing for an attribute the bindings cannot wrap (a dense
    array of i24: reading it raises)."""
    try:
        return f": {named[key]}"
    except (TypeError, ValueError):
        return ""


class Linear:
    """Mixin for ops linear in every operand (reshape, transpose, concatenate, ...): the
    tangent is the op applied to the tangents (symbolic zeros instantiated)."""

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        ts = [b.instantiate(t, b.aval(p)) for t, p in zip(tangents, primals)]
        return b.emit(cls, ts, **attrs)


def lookup(name: str) -> type[Op] | None:
    return REGISTRY.get(name)


def by_method(method: str) -> type[Op] | None:
    return _BY_METHOD.get(method)


def weak_of(*avals: ShapedArray) -> bool:
    """JAX's rule: a result is weakly typed when every operand is."""
    return all(a.weak_type for a in avals) if avals else False


def check_rank(cls_name_op, aval, dims, what="dimension"):
    for d in dims:
        if not 0 <= d < aval.ndim:
            raise OpError(f"{what} {d} is out of range for rank {aval.ndim}")
