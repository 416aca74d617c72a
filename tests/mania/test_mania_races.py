"""Invariants over many random races, and reproducibility (seed, blocks, replay alone)."""
from __future__ import annotations

import numpy as np
import pytest

from kernels.mania import consts as C
from sim.mania import play_block, play_one

CASES = [
    ("red", "sprint", 6, {}),
    ("yellow", "mass_start", 8, {}),
    ("red", "sprint", 2, {"number_dice": 2, "shooting_dice": 2}),
    ("red", "relay", 8, {"legs": 2}),
    ("yellow", "relay", 12, {"legs": 4, "number_dice": 2}),
    ("red", "relay", 6, {"legs": 3, "shooting_die": "individual"}),
    ("red", "sprint", 1, {}),
]


def _by_race(seats, n):
    return seats.reshape(-1, n)


@pytest.mark.parametrize("track,fmt,n,opts", CASES)
def test_invariants(shipped, track, fmt, n, opts):
    races = 400
    seats, visits = play_block(shipped, track, fmt, n, 11, np.arange(races), **opts)
    legs = opts.get("legs", 1)
    teams = n // legs
    f = shipped.data.format(fmt)
    shootings = len(f.shootings)
    assert len(seats) == races * n
    assert (seats["stalled"] == 0).all()
    assert (seats["finished"] == 1).all()                # every racer finishes unless stalled
    assert (seats["distance_left"] == 0).all()
    assert (seats["won"] == (seats["place"] == 1)).all()
    assert (seats["n_racers"] == n).all()
    assert (seats["eliminated"] == 0).all()
    for r in _by_race(seats, n):
        assert r["seat"].tolist() == list(range(n))
        assert r["team"].tolist() == [s // legs for s in range(n)]
        assert r["leg"].tolist() == [s % legs for s in range(n)]
        team_place = r["place"].reshape(teams, legs)
        assert (team_place == team_place[:, :1]).all()  # a team's legs share its place
        assert sorted(team_place[:, 0].tolist()) == list(range(1, teams + 1))
        assert len(set(r["lead_changes"].tolist())) == 1
        assert len(set(r["rounds"].tolist())) == 1
        last = r["finish_round"].reshape(teams, legs)
        assert (np.diff(last, axis=1) > 0).all()        # legs run one after another
        # places follow the crossing order: round, then turn order (team)
        order = sorted(range(teams), key=lambda t: (last[t, -1], t))
        assert [team_place[t, 0] for t in order] == list(range(1, teams + 1))
        assert r["rounds"][0] == last.max()
        if n > 1:
            marked = r["leader_after_range"].reshape(teams, legs)
            assert marked.sum() == legs and (marked == marked[:, :1]).all()
    # penalties: one loop per target left standing, all skied by the finish
    assert (seats["penalty_laps"] == seats["misses"]).all()
    assert len(visits) == races * n * shootings
    assert (visits["penalties"] == visits["misses"]).all()
    assert (visits["hits"] + visits["misses"] == 5).all()
    if f.spare_shots:
        assert (visits["shots"] - 5 == visits["spare_shots"]).all()
        assert (visits["spare_shots"] <= 3).all()
        assert ((visits["spare_shots"] < 3) <= (visits["misses"] == 0)).all()
    else:
        assert (visits["shots"] == 5).all() and (visits["spare_shots"] == 0).all()
    assert set(visits["line"].tolist()) <= set(range(1, 9))
    assert (visits["line"] > 8 - min(teams, 8)).all()
    assert (seats["turns"] > 0).all()


def test_switch_variants_keep_the_invariants(make_bundle):
    for switches in ({"zone_rule": "steps"}, {"halve_rounding": "down", "chain_extra_rolls": False},
                     {"exit_roll": "same_turn", "exit_from": "exit_square",
                      "specials_after_push": False}):
        b = make_bundle(**switches)
        seats, visits = play_block(b, "test", "sprint", 5, 3, np.arange(200))
        assert (seats["finished"] == 1).all(), switches
        assert (seats["penalty_laps"] == seats["misses"]).all(), switches
        for r in _by_race(seats, 5):
            assert sorted(r["place"].tolist()) == [1, 2, 3, 4, 5]


def test_corridors_and_group_rule_are_exercised(shipped):
    seats, _ = play_block(shipped, "red", "mass_start", 8, 5, np.arange(300))
    for field in ("skips", "x_rolls", "o_rolls", "t_jumps", "group_squares", "calibres"):
        assert seats[field].sum() > 0, field


def test_stalled_race_places_by_distance(shipped, tmp_path):
    from maniadata import copy_shipped
    from sim.mania import load_bundle
    from sim.validation import Patch

    root = copy_shipped(tmp_path / "d")
    b = load_bundle(root, [Patch("game.toml", "rules.round_cap", 20)])
    seats, _ = play_block(b, "red", "sprint", 4, 1, np.arange(50))
    assert (seats["stalled"] == 1).all() and (seats["rounds"] == 20).all()
    for r in _by_race(seats, 4):
        assert sorted(r["place"].tolist()) == [1, 2, 3, 4]
        order = sorted(range(4), key=lambda s: (r["distance_left"][s], s))
        assert [r["place"][s] for s in order] == [1, 2, 3, 4]
        assert (r["finished"] == 0).all()


# --- reproducibility -------------------------------------------------------------------------------
def test_same_seed_same_records(shipped):
    a, va = play_block(shipped, "red", "sprint", 6, 42, np.arange(100))
    b, vb = play_block(shipped, "red", "sprint", 6, 42, np.arange(100))
    assert np.array_equal(a, b) and np.array_equal(va, vb)
    c, _ = play_block(shipped, "red", "sprint", 6, 43, np.arange(100))
    assert not np.array_equal(a, c)


def test_records_do_not_depend_on_blocks(shipped):
    whole, _ = play_block(shipped, "yellow", "relay", 6, 9, np.arange(60), legs=3)
    parts = [play_block(shipped, "yellow", "relay", 6, 9, np.arange(lo, hi), legs=3)[0]
             for lo, hi in ((0, 7), (7, 31), (31, 60))]
    assert np.array_equal(whole, np.concatenate(parts))
    backwards, _ = play_block(shipped, "yellow", "relay", 6, 9, np.arange(59, -1, -1), legs=3)
    assert np.array_equal(whole.reshape(60, 6), backwards.reshape(60, 6)[::-1])


def test_a_race_replays_alone(shipped):
    block, visits = play_block(shipped, "red", "mass_start", 5, 17, np.arange(30))
    for race in (0, 13, 29):
        seats, v, log = play_one(shipped, "red", "mass_start", 5, seed=17, race=race)
        assert np.array_equal(seats, block[race * 5:(race + 1) * 5])
        assert np.array_equal(v, visits[visits["race"] == race])
        assert log[-1, 2] == C.EV_PLACE


def test_event_log_overflow_raises(shipped):
    from sim.mania import EventLogOverflow

    with pytest.raises(EventLogOverflow, match="log_rows"):
        play_one(shipped, "red", "sprint", 6, seed=1, log_rows=50)


def test_bad_setups_are_refused(shipped):
    with pytest.raises(ValueError):
        play_block(shipped, "red", "sprint", 9, 1, np.arange(2))
    with pytest.raises(ValueError):
        play_block(shipped, "red", "relay", 10, 1, np.arange(2), legs=5)
    with pytest.raises(ValueError):
        play_block(shipped, "red", "relay", 7, 1, np.arange(2), legs=2)
    with pytest.raises(ValueError):
        play_block(shipped, "red", "sprint", 4, 1, np.arange(2), number_dice=3)
    with pytest.raises(KeyError):
        play_block(shipped, "green", "sprint", 4, 1, np.arange(2))


def test_colours_have_no_effect(shipped):
    races = np.arange(50)
    rng = np.random.default_rng(0)
    cols = rng.permutation(np.tile(np.arange(8), (50, 1)).T).T[:, :6].astype(np.int16)
    a, va = play_block(shipped, "red", "sprint", 6, 5, races, colours=cols)
    b, vb = play_block(shipped, "red", "sprint", 6, 5, races)
    assert np.array_equal(a["colour"].reshape(50, 6), cols)
    for f in a.dtype.names:
        if f != "colour":
            assert np.array_equal(a[f], b[f])
    assert np.array_equal(va, vb)
