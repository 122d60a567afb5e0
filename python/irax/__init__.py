"""irax: JAX's programming model on MLIR and IREE.

    import irax
    import irax.numpy as jnp

    f = irax.jit(lambda x: jnp.sin(x) * 2.0)
"""

from irax import (  # noqa: F401
    ad_checkpoint,
    aot,
    debug,
    dtypes,
    errors,
    experimental,
    export,
    ir,
    nn,
    random,
    scipy,
    sharding,
    tree,
    tree_util,
    typing,
)
from irax import dialect as _dialect  # noqa: F401 - registers the op families
from irax.config import config  # noqa: F401
from irax.core.abstract import ShapeDtypeStruct  # noqa: F401
from irax.core.config import debug_infs, debug_nans, log_compiles  # noqa: F401
from irax.frontend.host_callback import pure_callback  # noqa: F401
from irax.frontend.source_info import named_call, named_scope  # noqa: F401
from irax.runtime.array import Array  # noqa: F401
from irax.runtime.compiler import stats
from irax.runtime.devices import (  # noqa: F401
    Device,  # noqa: F401
    default_backend,
    device_count,
    devices,
)
from irax.runtime.devices import default_device_scope as default_device  # noqa: F401
from irax.runtime.make_array import (  # noqa: F401
    live_arrays,
    make_array_from_callback,
    make_array_from_process_local_data,
    make_array_from_single_device_arrays,
    process_count,
    process_index,
    process_indices,
)
from irax.runtime.mesh import (  # noqa: F401
    NamedSharding,
    PartitionSpec,
    Shard,
    make_mesh,
    set_mesh,
)
from irax.transforms import eager_sharded as _eager_sharded  # noqa: F401 - eager sharded ops
from irax.transforms.autodiff import (  # noqa: F401
    grad,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
)
from irax.transforms.checkpoint import checkpoint, checkpoint_policies, remat  # noqa: F401
from irax.transforms.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from irax.transforms.jit import (  # noqa: F401
    disable_jit,
    eval_shape,
    jit,
    make_mlir,
    typeof,
)
from irax.transforms.placement import (  # noqa: F401
    block_until_ready,
    copy_to_host_async,
    device_get,
    device_put,
    reshard,
)
from irax.transforms.shard import pmap  # noqa: F401
from irax.transforms.shard_map import shard_map  # noqa: F401
from irax.transforms.specializations import clear_caches  # noqa: F401
from irax.transforms.vectorize import vmap  # noqa: F401

__version__ = "0.1.0"

jacobian = jacrev  # JAX's alias
P = PartitionSpec


def compile_stats() -> dict:
    """Counts of IREE compilations and compile-cache hits (memory, disk) in this process."""
    return dict(stats)


def local_devices(backend=None):
    return devices(backend)


def local_device_count(backend=None) -> int:
    return device_count(backend)
