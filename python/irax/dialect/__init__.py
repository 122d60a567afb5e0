"""The irax dialect: op classes (one file per family), registry, verifier, interpreter.

Importing this package registers every op family.
"""

from irax.dialect import autodiff_ops, constant, control, elementwise, transform  # noqa: F401
from irax.dialect.base import REGISTRY, Op, OpError, lookup  # noqa: F401

for _family in ("shape", "reduction", "linalg", "indexing", "scatter", "collective", "random"):
    try:
        __import__(f"irax.dialect.{_family}")
    except ModuleNotFoundError as _e:  # a family not written yet
        if _e.name != f"irax.dialect.{_family}":
            raise
