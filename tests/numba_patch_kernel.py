"""A small kernel in the shape of the race kernels, for tests/test_numba_patches.py: nested spliced
helpers (numba IR inlining, `inline="always"`, the path patch 1 of kernels.numba_patches changes)
with loops, early returns, tuples of arrays and a random stream, and compiled helpers without
wrappers, one that LLVM inlines and one called (kernels.jit's `inline` and `outline`, which patch 2
leaves to their callers), with floating point, under one entry point. Compiled without a disk
cache, so each process compiles it in its own mode."""
from collections import namedtuple

import numpy as np
from numba import njit

Tables = namedtuple("Tables", "cost gain")
State = namedtuple("State", "pos ct")


HELPER = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)


@njit(forceinline=True, **HELPER)
def gain_nb(tb, p, k):
    return tb.gain[p] * k


@njit(forceinline=False, **HELPER)
def score_nb(ct):
    s = 0.0
    for i in range(ct.shape[0]):
        s += np.sqrt(ct[i] + 0.5) / (i + 1.0)
    return s


@njit(inline="always")
def step_nb(tb, st, s, roll):
    p = st.pos[s]
    for k in range(roll):
        if p + 1 >= tb.cost.shape[0]:
            return p
        if tb.cost[p + 1] > roll - k:
            return p
        p += 1
    return p


@njit(inline="always")
def turn_nb(tb, st, s, rng):
    roll = 1 + (rng[0] >> np.uint64(33)) % np.uint64(6)
    rng[0] = rng[0] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    p = step_nb(tb, st, s, np.int64(roll))
    if roll == 6:                       # a second splice of the same helper in one caller
        st.pos[s] = p
        p = step_nb(tb, st, s, np.int64(2))
    st.ct[s] += gain_nb(tb, p, 1)
    st.pos[s] = p
    return p == tb.cost.shape[0] - 1


@njit(inline="always")
def round_nb(tb, st, rng):
    for s in range(st.pos.shape[0]):
        if turn_nb(tb, st, s, rng):
            return s
    return -1


@njit
def play_nb(tb, st, seed, rounds):
    rng = np.array([np.uint64(seed) * np.uint64(2) + np.uint64(1)], np.uint64)
    winners = np.full(rounds, -1, np.int64)
    scores = np.zeros(rounds)
    for r in range(rounds):
        w = round_nb(tb, st, rng)
        winners[r] = w
        scores[r] = score_nb(st.ct)
        if w >= 0:
            st.pos[:] = 0
    return winners, scores


def play(seed: int = 7, rounds: int = 400, racers: int = 4):
    """(winners per round, final positions, counters, a float score per round) of a fixed little
    race."""
    cost = np.array([0, 1, 2, 1, 3, 1, 1, 4, 2, 1, 2, 5, 1, 1, 2, 3], np.int64)
    gain = (np.arange(cost.shape[0]) * 7) % 5
    st = State(np.zeros(racers, np.int64), np.zeros(racers, np.int64))
    winners, scores = play_nb(Tables(cost, gain), st, seed, rounds)
    return winners.tolist(), st.pos.tolist(), st.ct.tolist(), scores.tolist()
