"""Counter-based random streams inside the kernel: one per (seed, race index, purpose).

SplitMix64 (Steele, Lea & Flood 2014): a 64-bit state advanced by a constant and mixed on output.
A race's streams are derived by hashing (seed, race index, stream number), so any race can be
replayed alone and results never depend on how races are grouped into chunks or workers.
Never touches numpy's or Python's global random state.
"""
import numpy as np
from .jit import inline

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
RACE_MULT = np.uint64(0xD1B54A32D192ED03)

STREAM_CHANCE = 0   # dice, shuffles, set-up draws: the game's chance
STREAM_PLAYER = 1   # the players' own randomness (random player, tie-breaks)


@inline
def mix64_nb(z):
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@inline
def seed_stream_nb(state, seed, race, stream):
    """Set `state` (uint64[1]) to the stream for (seed, race index, stream number)."""
    s = mix64_nb(np.uint64(seed) + GOLDEN)
    s = mix64_nb(s ^ (np.uint64(race) * RACE_MULT + np.uint64(stream) * GOLDEN))
    state[0] = s


@inline
def next_u64_nb(state):
    state[0] += GOLDEN
    return mix64_nb(state[0])


@inline
def below_nb(state, n):
    """A uniform whole number in [0, n), n >= 1 (multiply-shift; bias below n / 2**32)."""
    x = next_u64_nb(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@inline
def uniform_nb(state):
    """A uniform float in [0, 1)."""
    return (next_u64_nb(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
