"""Counting the page faults of repeated calls (the allocator and storage tests)."""

import resource

import numpy as np


def faults_per_call(call, warm: int = 1, calls: int = 4) -> float:
    """The minor page faults per call of ``call()`` over ``calls`` calls, after ``warm``
    calls whose results are read; every result is dropped at once, so that its buffer
    may serve the next call."""
    for _ in range(warm):
        np.asarray(call())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        call().block_until_ready()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls
