"""``irax.ad_checkpoint``: rematerialization, named like ``jax.ad_checkpoint``.

    ad = irax.ad_checkpoint
    policy = ad.checkpoint_policies.save_only_these_names("attention")
    layer = ad.checkpoint(layer, policy=policy)   # inside: ad.checkpoint_name(h, "attention")
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
