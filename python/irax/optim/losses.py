"""``irax.optim.losses`` (``optax.losses``): the loss functions."""

from irax.optim._losses import *  # noqa: F401,F403
from irax.optim._losses import __all__  # noqa: F401
