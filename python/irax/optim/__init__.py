"""irax.optim: gradient transformations, optimizers, losses and schedules with Optax's
design, names, state pytrees and numerics.

With ``import irax.optim as optim``::

    opt = optim.adam(1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optim.apply_updates(params, updates)

Everything is a pure function over pytrees built from ``irax.numpy``/``irax.lax``, so it
runs eagerly and under ``irax.jit``, ``irax.grad`` and ``irax.vmap``. (Optax itself cannot
run on irax by swapping imports; ``tests/optim`` checks these against real Optax.)
"""

from irax.optim import losses, schedules  # noqa: F401
from irax.optim._base import *  # noqa: F401,F403
from irax.optim._losses import *  # noqa: F401,F403
from irax.optim._optimizers import *  # noqa: F401,F403
from irax.optim._schedules import *  # noqa: F401,F403
from irax.optim._transforms import *  # noqa: F401,F403
from irax.optim._wrappers import *  # noqa: F401,F403
