import os

import numpy as np
import pytest

# jit compiles before a function's first call in the tests (and in the processes they
# start), so that every jitted test checks the compiled program; the tiered first calls
# (the library's default) are tests/runtime/test_tiered_jit.py's
os.environ["IRAX_TIERED_JIT"] = "0"


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


#: test folders whose eager ``vmap`` runs on the reference interpreter: their batching
#: rules are the dialect's, whose compiled form the jitted tests of each family check
#: (tests/random: jit(vmap) of every sampler family, over keys and with batched loops)
_INTERPRETED_EAGER_VMAP = ("tests/lax/", "tests/nn/", "tests/scipy/", "tests/random/")
#: the folders whose eager control flow runs compiled (the library's default): the other
#: tests run it on the reference interpreter, as before it was compiled, so that each of
#: their eager loops does not cost a compilation (compiled, it is the program jit runs,
#: which their jitted tests check)
_COMPILED_EAGER_CONTROL_FLOW = ("tests/control/", "tests/runtime/", "tests/autodiff/")


@pytest.fixture(autouse=True)
def _eager_modes_of_library_tests(request):
    from irax.config import config

    path = str(request.node.path).replace("\\", "/")
    vmap_interpreted = any(part in path for part in _INTERPRETED_EAGER_VMAP)
    loops_interpreted = not any(part in path for part in _COMPILED_EAGER_CONTROL_FLOW)
    if vmap_interpreted:
        config.update("irax_eager_vmap_compiled", False)
    if loops_interpreted:
        config.update("irax_eager_control_flow_compiled", False)
    try:
        yield
    finally:
        config.update("irax_eager_vmap_compiled", True)
        config.update("irax_eager_control_flow_compiled", True)
