"""The kernel's races, replayed by the independent referee (sim/blast/referee.py).

The referee was written from the rulebook and docs alone and shares no rule code with the kernel,
so a race it accepts was played by the rules as documented, decision by decision.
"""
from collections import Counter

import numpy as np

from blastrace import flipped_bundle, random_setups
from kernels.blast import events as E
from sim.blast import load_bundle
from sim.blast.play import play_one
from sim.blast.eventlog import render_log
from sim.blast.referee import referee_race

N_DEFAULT = 1500
N_FLIPPED = 500


def referee_many(bundle, n, seed):
    setups = random_setups(bundle, n, np.random.default_rng(seed))
    t = bundle.tables
    range_positions = {k: set(t.range_pos[k].tolist()) for k in range(len(bundle.trail_names))}
    range_zone_trails = {k for k, ps in range_positions.items() if any(t.coach_colour[k, p] >= 0 for p in ps)}
    seen = Counter()
    trails = Counter()
    sizes = Counter()
    for i, setup in enumerate(setups):
        log = play_one(bundle, setup, seed, i)
        report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), log.events)
        assert report.ok, f"race {i} (seed {seed}, {setup}): {report.message}"
        kinds = log.events[:, 2]
        seen.update(E.KIND_NAMES[k] for k in kinds)
        ev = log.events
        # finer coverage: each kind of pick-up, elimination cause, wax colour, Motivation choice
        for row in ev[kinds == E.PICKUP]:
            seen[f"pickup {row[3]}"] += 1
        for row in ev[kinds == E.ELIMINATED]:
            seen[f"eliminated {row[3]}"] += 1
        for row in ev[kinds == E.ACTION]:
            for c in range(5):
                if row[5 + c] > 0:
                    seen[f"wax {c + 1}"] += 1
        for row in ev[kinds == E.MOTIVATION]:
            seen[f"motivation {row[3]}"] += 1
        for row in ev[kinds == E.HITS]:
            if row[5] > 0:
                seen["bullets for hits"] += 1
            if row[6] > 0:
                seen["coach bullets for hits"] += 1
        for row in ev[kinds == E.BOOST]:
            seen[f"boost colour {row[3]}"] += 1
        for row in ev[kinds == E.WAX]:
            if row[3:8].any():
                seen["wax after the hits"] += 1
        # the readings of pulse_floor and last_racer_wins: where the value taken made a difference
        p = ev[kinds == E.PULSE][:, 3:9].astype(np.int64)     # before, after, cost, blue, drafting, wind
        seen["floored part by part"] += int((p[:, 1] != np.maximum(0, p[:, 0] + p[:, 2] - p[:, 3] + p[:, 4]
                                                                   + p[:, 5])).sum())
        for row in ev[kinds == E.WIN]:
            if row[3] != t.finish_pos[setup.trail]:
                seen["last racer left wins"] += 1
                seen.setdefault("a last racer's race", (i, setup, log))
        moves = np.flatnonzero(kinds == E.MOVE)
        for i in moves:
            j = i + 1
            while j < len(ev) and kinds[j] in (E.MOTIVATION, E.FACE_UP):
                j += 1
            if j < len(ev) and kinds[j] == E.BOOST:
                zero = ev[i, 3] == ev[i, 4]
                seen["boost after zero steps" if zero else "boost after a move"] += 1
                if setup.trail in range_zone_trails and ev[i, 4] in range_positions[setup.trail]:
                    seen["boost at the range"] += 1
        trails[setup.trail] += 1
        sizes[setup.n] += 1
    return seen, trails, sizes


def assert_covered(seen, trails, sizes, bundle):
    assert set(trails) == set(range(len(bundle.trail_names)))
    assert set(sizes) == {2, 3, 4, 5, 6}
    must = ["ROLL", "HITS", "MOTIVATION", "FACE_UP", "BOOST", "BOOST_LOST", "WIND", "WIN", "ELIMINATED",
            "pickup 0", "pickup 1", "pickup 2", "eliminated 2", "wax 1", "wax 2", "wax 3", "wax 4", "wax 5",
            "motivation 0", "motivation 1", "motivation 2", "bullets for hits",
            "boost colour 0", "boost colour 1", "boost colour 2", "boost colour 3", "boost colour 4",
            "boost colour 5", "WAX", "wax after the hits", "boost after zero steps", "boost at the range"]
    missing = [m for m in must if seen[m] == 0]
    assert not missing, f"not exercised: {missing}"


def test_referee_accepts_every_race_default_switches():
    bundle = load_bundle()
    seen, trails, sizes = referee_many(bundle, N_DEFAULT, seed=2026)
    assert_covered(seen, trails, sizes, bundle)
    assert seen["floored part by part"] == 0 and seen["last racer left wins"] == 0   # pulse_floor, last_racer_wins


def test_referee_accepts_every_race_flipped_switches(tmp_path):
    bundle = flipped_bundle(tmp_path)
    seen, trails, sizes = referee_many(bundle, N_FLIPPED, seed=11)
    assert seen["ROLL"] > 0 and seen["MOTIVATION"] > 0 and seen["BOOST"] > 0
    assert seen["boost after zero steps"] == 0          # zero_step_boost = false
    # pulse_floor = "each_part" and last_racer_wins = true made a difference in some races, and the
    # referee accepted them; without its WIN row the last racer's race is refused
    assert seen["floored part by part"] > 0 and seen["last racer left wins"] > 0
    i, setup, log = seen["a last racer's race"]
    ev = log.events
    win = np.flatnonzero(ev[:, 2] == E.WIN)[0]
    report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), np.delete(ev, win, axis=0))
    assert not report.ok and "last_racer_wins" in report.message, report.message
    assert "WINS: the last racer left in the race" in render_log(bundle, log)     # the readable log says so


def test_referee_rejects_a_tampered_race():
    """The check above can fail: one changed number in a real log is caught."""
    bundle = load_bundle()
    setup = random_setups(bundle, 1, np.random.default_rng(5), players=("heuristic",))[0]
    log = play_one(bundle, setup, 5, 0)
    for kind, col in ((E.PULSE, 4), (E.MOVE, 4), (E.TURN, 3), (E.STATE, 6), (E.STEPS, 4)):
        events = log.events.copy()
        rows = np.flatnonzero(events[:, 2] == kind)
        events[rows[len(rows) // 2], col] += 1
        report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), events)
        assert not report.ok, E.KIND_NAMES[kind]
