"""Whole-array copies for the kernels, as element loops.

`dst[:] = src` compiles numba's broadcasting, shape and memory-overlap checks into every place it
stands: the Blast search kernel's rollout state copy, 13 of them, took 35 s of its first compile
(issue 32). The copies a rollout makes are of arrays of one shape, so a loop does the same work.
Both games' rollout boards (Blast's and Ski Tour's references) copy their state with these.
"""
from .jit import inline


@inline
def copy1_nb(dst, src):
    """dst[:] = src for 1-d arrays of one length."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@inline
def copy2_nb(dst, src):
    """dst[:, :] = src for 2-d arrays of one shape."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]
