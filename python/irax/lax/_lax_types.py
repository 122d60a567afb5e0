"""``irax.lax``'s configuration types: precisions, dot algorithms, accuracy, random
algorithms and dimension-number containers (``jax.lax.Precision`` and friends).

irax computes every float32 contraction in float32 whatever the precision asked for, and
accepts these values where JAX does so that code written for JAX runs unchanged.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple, Sequence, Union


class Precision(enum.Enum):
    """Precision of matrix-multiply-like ops on accelerators (``jax.lax.Precision``); no
    effect on irax's results. Strings ``'default'``/``'fastest'``/``'bfloat16'``,
    ``'high'``/``'tensorfloat32'`` and ``'highest'``/``'float32'`` are accepted."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name


_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}


class DotAlgorithm(NamedTuple):
    """A dot product algorithm: operand and accumulation types (``jax.lax.DotAlgorithm``)."""

    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """Named dot product algorithms (``jax.lax.DotAlgorithmPreset``)."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name


class AccuracyMode(enum.Enum):
    """Accuracy of transcendental functions on accelerators (``jax.lax.AccuracyMode``)."""

    HIGHEST = 1
    DEFAULT = 2


@dataclass(frozen=True)
class Tolerance:
    """An accuracy request for a transcendental function (``jax.lax.Tolerance``)."""

    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0

    def __post_init__(self):
        if self.atol < 0 or self.rtol < 0 or self.ulps < 0:
            raise ValueError("Tolerances must be non-negative.")
        if self.atol == 0 and self.rtol == 0 and self.ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")


class RandomAlgorithm(enum.IntEnum):
    """The bit generator of ``rng_bit_generator`` (``jax.lax.RandomAlgorithm``)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    __str__ = __repr__


#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
#: what a ``precision=`` argument accepts (``jax.lax.PrecisionLike``)
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]


@dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Dimension numbers of ``ragged_dot_general``: the dot's dimension numbers, the lhs
    ragged dims and the rhs group dims (``jax.lax.RaggedDotDimensionNumbers``)."""

    dot_dimension_numbers: DotDimensionNumbers
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __post_init__(self):
        (lc, rc), (lb, rb) = self.dot_dimension_numbers
        object.__setattr__(self, "dot_dimension_numbers",
                           ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(self.lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(self.rhs_group_dimensions))


def canonicalize_precision(precision):
    """``precision`` checked (a value or a pair), as JAX accepts it; irax ignores it."""
    if precision is None or isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        return tuple(Precision(p) for p in precision)
    return Precision(precision)

