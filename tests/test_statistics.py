"""Hit counts at the range against the exact binomial distribution (pinned seeds, stated tolerance)."""
from math import comb

import numpy as np
import pandas as pd
from numba import njit
from scipy import stats

from blastrace import random_setups
from kernels.blast import consts as C
from kernels.rng import below_nb, seed_stream_nb
from kernels.blast.rules import shot_hits_nb
from sim.blast import load_bundle
from sim.blast.play import play_block

#: a test fails only if the observed counts are this unlikely under the exact distribution
P_MIN = 1e-4


def binomial(n, p):
    return np.array([comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)])


def chi_square_p(observed, expected_probs):
    observed = np.asarray(observed, float)
    expected = expected_probs * observed.sum()
    keep = expected > 0
    assert observed[~keep].sum() == 0, "a count the exact distribution calls impossible"
    return stats.chisquare(observed[keep], expected[keep]).pvalue


@njit
def shots(tb, biathlete, pulse, wind, facing, n, seed):
    state = np.zeros(1, np.uint64)
    seed_stream_nb(state, seed, 0, 0)
    dice = np.zeros(8, np.int64)
    counts = np.zeros(6, np.int64)
    for _ in range(n):
        for i in range(5):
            dice[i] = below_nb(state, 6)
        counts[shot_hits_nb(tb, biathlete, pulse, dice, wind, facing)[1]] += 1
    return counts


def test_hits_for_fixed_accuracy_and_wind_match_the_binomial():
    b = load_bundle()
    tb = b.tables
    facing = C.NORTH
    pinto = b.biathlete_id("Pinto")          # 3+ at medium pulse (the rulebook's shooting example)
    assert tb.accuracy[pinto, 1] == 3
    for pulse in (1, 5):
        threshold = int(tb.accuracy[pinto, 0 if pulse <= 2 else 1])
        p = (6 - threshold) / 6
        x = binomial(5, p)
        headwind = x                                         # no change
        crosswind = np.r_[x[0] + x[1], x[2:], 0.0]            # -1, floor 0
        windstill = np.r_[0.0, x[:4], x[4] + x[5]]            # +1, ceiling 5
        for wind, expected in ((C.NORTH, headwind), (C.EAST, crosswind), (C.STILL, windstill)):
            counts = shots(tb, pinto, pulse, wind, facing, 60_000, 1234 + pulse)
            assert chi_square_p(counts, expected) > P_MIN, (pulse, wind, counts)


def test_dice_hits_in_real_races_match_the_binomial():
    """In played races the dice hits at each shot follow Binomial(5, p) for the shooter's
    accuracy band: the decision to shoot never sees the dice."""
    b = load_bundle()
    setups = random_setups(b, 3000, np.random.default_rng(8), players=("heuristic",))
    _, visits = play_block(b, setups, 8, np.arange(len(setups)), visits=True)
    acc = b.tables.accuracy
    shot = visits[visits["shots"] > 0]
    band = np.where(shot["shot_pulse"] <= 2, 0, np.where(shot["shot_pulse"] <= 6, 1, 2))
    shots_df = pd.DataFrame({"threshold": acc[shot["biathlete"], band], "hits": shot["dice_hits"]})
    tested = 0
    for threshold, group in shots_df.groupby("threshold"):
        if len(group) < 500:
            continue
        counts = np.bincount(group.hits, minlength=6)
        assert chi_square_p(counts, binomial(5, (6 - threshold) / 6)) > P_MIN, (threshold, counts)
        tested += 1
    assert tested >= 2
