"""``irax.optim.schedules`` (``optax.schedules``): the learning-rate schedules."""

from irax.optim._schedules import *  # noqa: F401,F403
from irax.optim._schedules import __all__  # noqa: F401
