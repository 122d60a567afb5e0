"""``irax.tree_util``: JAX's pytree utilities (defined in :mod:`irax.core.tree_util`)."""

from irax.core.tree_util import *  # noqa: F401,F403
from irax.core.tree_util import __all__  # noqa: F401
