"""``irax.aot``: run exported programs (``irax.export``) with the IREE runtime alone.

    f = irax.aot.load("predict.vmfb")      # no iree.compiler needed
    y = f(params, x)
"""

from irax.export._loader import Loaded, load  # noqa: F401
