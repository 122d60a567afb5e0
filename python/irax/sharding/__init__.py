"""``irax.sharding``: meshes, partition specs and shardings (``jax.sharding``).

    from irax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = irax.make_mesh((2, 2), ("x", "y"))
    x = irax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("x")))
    x.sharding.spec                      # P('x',)
"""

from irax.runtime.mesh import (  # noqa: F401
    AxisType,
    DuplicateSpecError,
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    get_mesh,
    set_mesh,
)
from irax.transforms.placement import reshard  # noqa: F401,E402

get_abstract_mesh = get_mesh
