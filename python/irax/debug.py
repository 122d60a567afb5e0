"""``irax.debug``: printing and host callbacks from inside compiled code, as
``jax.debug``.

    @irax.jit
    def f(x):
        irax.debug.print("x = {x}", x=x)     # prints when f runs, with x's value
        return x * 2
"""

from irax.frontend.host_callback import debug_callback as callback  # noqa: F401
from irax.frontend.host_callback import debug_print as print  # noqa: F401, A001 - JAX's name
