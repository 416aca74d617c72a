"""Balanced blocks, for every game: the line-up rotation and race counts in whole blocks.

A balanced design seats the values of its seat axes (Blast's biathletes and ski colours, Mania's
figure colours, Ski Tour's nations) so that, over a block of races, every value sits in every seat
equally often. `rotation` gives those line-ups; `round_to_blocks` rounds a race count up to whole
blocks and `blocks_needed` counts them (a game's `block(bundle, design)` says how many races one
holds), so that a table never holds part of a block.
"""
from __future__ import annotations

import math

import numpy as np

from .permutations import permutations


def blocks_needed(races: int, block: int) -> int:
    """How many whole blocks of `block` races it takes to hold `races` races (rounded up)."""
    return -(-races // block)


def round_to_blocks(races: int, block: int) -> int:
    """`races` rounded up to a whole number of blocks of `block` races."""
    return blocks_needed(races, block) * block


def rotation(seed: int, races, sizes: tuple[int, ...], offsets, salt: int) -> list[np.ndarray]:
    """The balanced line-ups of these race indices: per seat axis, value ids [race, seat].

    Races come in blocks of prod(sizes). Each block draws one permutation p_i of range(sizes[i])
    per axis, in axis order, from one generator seeded [seed, block, salt], and race r of the block
    seats p_i[(r // (sizes[0] x ... x sizes[i-1]) + offsets[j]) % sizes[i]] at seat j. So every
    value of every axis sits in every seat equally often, and with two axes every pair of values
    meets equally often. `offsets` [seats]: usually range(seats); equal offsets share a value (a
    relay team's legs). The result depends only on the seed and the race index, never on which
    races a chunk holds.
    """
    races = np.asarray(races, np.int64)
    offsets = np.asarray(offsets, np.int64)
    blocks, r = np.divmod(races, math.prod(sizes))
    unique, which = np.unique(blocks, return_inverse=True)
    perms = permutations(seed, unique, salt, sizes)         # (all blocks at once: sim.permutations)
    out, period = [], 1
    for axis, s in enumerate(sizes):
        index = (r[:, None] // period + offsets[None, :]) % s
        out.append(np.take_along_axis(perms[axis][which.reshape(-1)], index, axis=1))
        period *= s
    return out


__all__ = ["blocks_needed", "round_to_blocks", "rotation"]
