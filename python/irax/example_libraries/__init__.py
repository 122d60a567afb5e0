"""irax.example_libraries: ``jax.example_libraries``' two small libraries, on irax.

With ``from irax.example_libraries import optimizers, stax``::

    init_fun, apply_fun = stax.serial(stax.Dense(32), stax.Relu, stax.Dense(10))
    opt_init, opt_update, get_params = optimizers.adam(1e-3)

``stax`` builds networks from ``(init_fun, apply_fun)`` pairs and ``optimizers`` gives
``(init_fun, update_fun, get_params)`` triples, with JAX's names, parameter layouts and
numerics, so a program written for ``jax.example_libraries`` runs by changing its
imports. Both are example libraries (as JAX's are): ``irax.optim`` is the full optimizer
library.
"""
