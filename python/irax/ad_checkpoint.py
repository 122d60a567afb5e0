"""``irax.ad_checkpoint``: rematerialization, named like ``jax.ad_checkpoint``.

    from irax.ad_checkpoint import checkpoint, checkpoint_name, checkpoint_policies

    policy = checkpoint_policies.save_only_these_names("attention")
    layer = checkpoint(layer, policy=policy)   # inside: checkpoint_name(h, "attention")
"""

from irax.transforms.checkpoint import (  # noqa: F401
    Offloadable,
    Recompute,
    Saveable,
    checkpoint,
    checkpoint_name,
    checkpoint_policies,
    remat,
)
