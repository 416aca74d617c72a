"""Invariants over thousands of races: pulse bounds, cards conserved, lane capacity, rankings."""
import numpy as np
import pandas as pd
import pytest

from blastrace import random_setups
from kernels.blast import consts as C
from kernels.blast import events as E
from sim.blast import load_bundle
from sim.blast.play import play_block, play_one


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def check_log(bundle, setup, events):
    """Walk one race's log and check the invariants at every STATE row."""
    tb = bundle.tables
    t = setup.trail
    limit = tb.rules[C.R_PULSE_LIMIT]
    deck = tb.deck.shape[1]
    n = setup.n
    pos = np.zeros(n, int)
    lane = np.zeros(n, int)
    mat = np.zeros(n, int)
    racing = np.ones(n, bool)
    removed = np.zeros(n, int)
    motivation = np.zeros(n, int)
    in_play = np.zeros(n, int)
    for row in events:
        kind, seat, a = row[E.COL_KIND], row[E.COL_SEAT], row[E.COL_ARG:]
        if kind == E.GRID:
            pos[seat], lane[seat] = a[1], a[2]
        elif kind == E.ELIMINATED:
            racing[seat] = False
        elif kind == E.CHOOSE:
            in_play[seat] = 1
        elif kind == E.CARD_END:
            in_play[seat] = 0
            removed[seat] += a[1]
        elif kind == E.MOTIVATION:
            motivation[seat] += 1
        elif kind == E.STATE:
            pos[seat], lane[seat], mat[seat] = a[0], a[1], a[2]
            assert 0 <= a[3] <= limit, f"pulse {a[3]} of a racing seat"
            assert a[4] >= 0 and (a[5:10] >= 0).all(), "tokens never negative"
            assert a[10] + a[11] + removed[seat] + in_play[seat] == deck + motivation[seat], \
                "cards conserved across hand, discard pile, removed cards and the card in play"
            # lane capacity: no two racing seats share a lane of a physical space; mats are distinct
            phys = tb.physical[t]
            occupied = {}
            for s in np.flatnonzero(racing):
                p = pos[s]
                if tb.is_range[t, p]:
                    if mat[s]:
                        key = ("mat", phys[p], lane[s])
                    else:
                        continue
                elif p == tb.finish_pos[t]:
                    continue
                else:
                    assert 0 <= lane[s] < tb.lanes[t, p], f"lane {lane[s]} on a {tb.lanes[t, p]}-lane space"
                    key = ("lane", phys[p], lane[s])
                assert key not in occupied, f"seats {occupied.get(key)} and {s} share {key}"
                occupied[key] = s


def test_invariants_along_logged_races(bundle):
    rng = np.random.default_rng(99)
    for i, setup in enumerate(random_setups(bundle, 400, rng)):
        log = play_one(bundle, setup, 99, i)
        check_log(bundle, setup, log.events)


def test_invariants_over_thousands_of_races(bundle):
    setups = random_setups(bundle, 4000, np.random.default_rng(3))
    seats, visits = play_block(bundle, setups, 3, np.arange(len(setups)), visits=True)
    df = pd.DataFrame(seats)
    limit = bundle.data.rules.pulse_limit
    by_race = df.groupby("race")
    # places are a permutation of 1..n
    assert (by_race.place.apply(lambda p: sorted(p) == list(range(1, len(p) + 1)))).all()
    winners = by_race.won.sum()
    stalled = by_race.stalled.first().astype(bool)
    all_out = by_race.eliminated.all()
    assert ((winners == 1) | stalled | all_out).all()
    assert (winners[stalled | all_out] == 0).all()
    # the winner is placed first; eliminated racers below everyone still racing
    assert (df[df.won == 1].place == 1).all()
    worst_racing = df[df.eliminated == 0].groupby("race").place.max()
    best_out = df[df.eliminated == 1].groupby("race").place.min()
    both = worst_racing.index.intersection(best_out.index)
    assert (worst_racing[both] < best_out[both]).all()
    # pulse bounds: only those eliminated for pulse ever went above the limit
    assert (df[df.elim_cause != 2].max_pulse <= limit).all()
    assert (df[df.elim_cause == 2].max_pulse > limit).all()
    assert (df.final_pulse[df.eliminated == 0] <= limit).all() and (df.final_pulse >= 0).all()
    # tokens: spent plus left equals the gear of the ski colour
    tb = bundle.tables
    wax_spent = df[["wax_black", "wax_yellow", "wax_green", "wax_blue", "wax_white"]].sum(axis=1)
    assert (wax_spent + df.wax_left == tb.gear_wax.sum(axis=1)[df.colour]).all()
    assert (df.bullets_pickup + df.bullets_hits + df.bullets_left == tb.gear_bullets[df.colour]).all()
    # at most the start-line crossings' worth of Motivation cards; hits within 0..5
    assert (df.motivation <= bundle.data.rules.start_line_crossings).all()
    assert ((visits["hits"] >= 0) & (visits["hits"] <= 5)).all()
    # a winner crossed the finish: no distance left
    assert (df[df.won == 1].distance_left == 0).all()
