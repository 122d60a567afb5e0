"""``irax.experimental.shard_map.shard_map``: the older spelling of ``irax.shard_map``
(``check_rep`` for ``check_vma``)."""

from irax.transforms.shard_map import shard_map  # noqa: F401
