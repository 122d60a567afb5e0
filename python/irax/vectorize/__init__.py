"""Vectorization (vmap) as a function transformation over irax IR: ``batch.py`` builds
the batched version of a ``func.func`` from each op's ``batch`` rule."""
