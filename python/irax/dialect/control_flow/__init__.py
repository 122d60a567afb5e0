"""Structured control flow: ``irax.while``, ``irax.cond``, ``irax.scan`` (one file each).

Regions are isolated: a region's block takes the values it uses as arguments and ends in
``irax.return``. Operands are laid out as consts first (values the regions read but never
change), then the loop state.

Lowering happens in two steps: each op's ``lower_regions`` replaces it by
``stablehlo.while`` / ``stablehlo.case`` holding the same (still irax) body ops, which the
dialect conversion then lowers with everything else. Derivative and batching rules live
on the op classes; they outline regions into functions and reuse the function-level
transformations.
"""

from irax.dialect.control_flow.cond import Cond  # noqa: F401
from irax.dialect.control_flow.region_op import RegionOp  # noqa: F401
from irax.dialect.control_flow.scan import Scan  # noqa: F401
from irax.dialect.control_flow.while_loop import While  # noqa: F401
