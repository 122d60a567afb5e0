"""New-style pytree names, like ``jax.tree``: thin aliases of :mod:`irax.tree_util`.

>>> from irax import tree
>>> tree.map(lambda x: x * 2, {'a': [1, 2], 'b': None})
{'a': [2, 4], 'b': None}
>>> tree.leaves({'b': 1, 'a': [2, 3]})
[2, 3, 1]
"""

from irax.tree_util import tree_all as all
from irax.tree_util import tree_flatten as flatten
from irax.tree_util import tree_flatten_with_path as flatten_with_path
from irax.tree_util import tree_leaves as leaves
from irax.tree_util import tree_leaves_with_path as leaves_with_path
from irax.tree_util import tree_map as map
from irax.tree_util import tree_map_with_path as map_with_path
from irax.tree_util import tree_reduce as reduce
from irax.tree_util import tree_structure as structure
from irax.tree_util import tree_transpose as transpose
from irax.tree_util import tree_unflatten as unflatten

__all__ = [
    "all", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "structure", "transpose", "unflatten",
]
