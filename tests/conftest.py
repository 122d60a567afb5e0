import numpy as np
import pytest


@pytest.fixture
def x64():
    """Runs a test with 64-bit types enabled."""
    from irax.config import config

    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


#: test folders whose eager ``vmap`` and eager control flow run on the reference
#: interpreter: their batching rules and loops are the dialect's, whose compiled form the
#: jitted tests of each family check (tests/control checks eager compiled control flow)
_INTERPRETED_EAGER_VMAP = ("tests/lax/", "tests/nn/", "tests/scipy/")


@pytest.fixture(autouse=True)
def _eager_vmap_interpreted_in_library_tests(request):
    from irax.config import config

    path = str(request.node.path).replace("\\", "/")
    if not any(part in path for part in _INTERPRETED_EAGER_VMAP):
        yield
        return
    config.update("irax_eager_vmap_compiled", False)
    config.update("irax_eager_control_flow_compiled", False)
    try:
        yield
    finally:
        config.update("irax_eager_vmap_compiled", True)
        config.update("irax_eager_control_flow_compiled", True)
