"""Sharding as a function transformation over irax IR: ``split.py`` expands a pmap
into per-device code joined by ``irax.transfer`` ops."""
