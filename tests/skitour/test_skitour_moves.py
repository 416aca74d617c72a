"""Ski Tour movement through the engine: uphill, the downhill bonus, drafting (and not behind a
sprinter), occupied spaces (voluntary, forced, collapse), and the step rules checked over the logs
of random races (directions, white areas, the sideways/passing rule, exact step counts).

Positions are rows and lanes of the Starter course (row 9 red, row 2 green, row 17 "-.-" then
row 18 white). Blockers are racers with an empty board and no available dice: they never move.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels.skitour import consts as C
from sim.skitour import load_bundle
from sim.skitour.play import course_table, play_one

EMPTY_ROW = {"S_WLO": 1, "S_WHI": 0}


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def board(cols=(0, 0, 0, 0), sprint=0):
    return list(cols) + [sprint, 0, 0, 0, 0, 0]


def racer(row, lane, cols=(0, 0, 0, 0), sprint=0, **kw):
    return {"S_BOARD": board(cols, sprint), "S_ROW": row, "S_LANE": lane, **EMPTY_ROW, **kw}


def blocker(row, lane):
    return racer(row, lane)


def events(log, kind, seat=None, rnd=None):
    return [[int(x) for x in r[3:]] for r in log
            if r[2] == kind and (seat is None or r[1] == seat) and (rnd is None or r[0] == rnd)]


def race(bundle, states, decisions=None, nations=("Norway", "France", "Russia", "Sweden", "Germany")):
    n = len(states)
    nat = [bundle.nation_id(x) for x in nations[:n]]
    return play_one(bundle, "Starter", nat, seed=3, race=0, init=states, decisions=decisions)


def test_uphill_start_loses_a_move(bundle):
    _, _, log = race(bundle, [racer(9, 0, cols=(0, 3, 0, 0)), blocker(0, 2)])
    c = events(log, C.EV_COUNT, 0, 1)[0]
    assert c[4] == 1 and c[5] == 2


def test_downhill_bonus_passes_one_racer_for_free(bundle):
    _, _, log = race(bundle, [racer(0, 1, cols=(0, 2, 0, 0)), blocker(3, 1)])
    steps = [e for e in events(log, C.EV_STEP, 0, 1) if e[0] == C.PHASE_BONUS]
    assert [(e[2], e[3]) for e in steps] == [(3, 1), (4, 1), (5, 1)]
    assert steps[0][4] == 1 and steps[0][5] == 0          # shared with the blocker, not paid
    assert steps[1][6] == 1                               # passes it
    assert events(log, C.EV_BONUS, 0, 1)[0][0] == 3
    assert events(log, C.EV_PAY, 0, 1) == []


def test_drafter_follows_the_trail_and_takes_its_own_bonus(bundle):
    _, _, log = race(bundle, [racer(3, 1, cols=(0, 3, 0, 0)), blocker(2, 1)])
    d = events(log, C.EV_DRAFT, 1, 1)[0]
    assert d[:5] == [0, 1, 3, 0, 1]
    steps = [(e[2], e[3]) for e in events(log, C.EV_STEP, 1, 1) if e[0] == C.PHASE_DRAFT]
    assert steps == [(3, 1), (4, 1), (5, 1)]              # one space behind the leader's (6, 1)
    assert events(log, C.EV_BONUS, 1, 1)                  # ends on green behind the leader


def test_nobody_drafts_on_a_sprinter(bundle):
    # the leader's decisions: additional columns [stop, sprint] -> sprint, then [stop] alone
    _, _, log = race(bundle, [racer(3, 1, cols=(0, 3, 0, 0), sprint=1), blocker(2, 1)],
                     decisions=[[1], []])
    assert events(log, C.EV_TAKE, 0, 1)[0][1] == 1 << C.PICK_SPRINT
    assert events(log, C.EV_COUNT, 0, 1)[0][6] == 1
    assert events(log, C.EV_DRAFT, 1, 1) == []


def boxed_in(markers):
    mover = racer(3, 1, cols=(1, 0, 0, 0), S_MK=[markers] * 5)
    return [mover, blocker(4, 1), blocker(3, 0), blocker(3, 2)]


def test_forced_payment_when_every_way_is_occupied(bundle):
    _, _, log = race(bundle, boxed_in(1))
    pay = events(log, C.EV_PAY, 0, 1)[0]
    assert pay[2] == C.PAY_MOVE and pay[3] == 1


def test_collapse_on_a_forced_payment_with_every_marker_on_blue(bundle):
    s, _, log = race(bundle, boxed_in(5))                 # Norway's bottom slot is slot 5
    assert events(log, C.EV_PAY, 0, 1)[0][0] == -1
    assert events(log, C.EV_COLLAPSE, 0, 1)
    assert s["eliminated"][0] == 1 and s["elim_cause"][0] == C.ELIM_COLLAPSE
    assert s["collapse_round"][0] == 1 and s["finished"][0] == 0


def test_voluntary_payment_on_blue_is_refused_and_a_clear_way_taken(bundle):
    states = [racer(3, 1, cols=(1, 0, 0, 0), S_MK=[5] * 5), blocker(4, 1)]
    s, _, log = race(bundle, states)
    step = events(log, C.EV_STEP, 0, 1)[0]
    assert step[1] == C.STEP_SIDE and step[4] == 0
    assert s["eliminated"][0] == 0


def test_narrow_row_needs_a_sideways_step_and_white_allows_a_diagonal(bundle):
    # from (16, 0): row 17 has only lane 1 -> sideways first; then forward into (17, 1); then a
    # diagonal into the white row 18 is legal
    _, _, log = race(bundle, [racer(16, 0, cols=(0, 0, 3, 0)), blocker(0, 2)],
                     decisions=[[1]])        # the only real choice: [forward, diag L, diag R]
    steps = events(log, C.EV_STEP, 0, 1)
    assert [(e[1], e[2], e[3]) for e in steps] == [(C.STEP_SIDE, 16, 1), (C.STEP_FORWARD, 17, 1),
                                                   (C.STEP_DIAG, 18, 0)]


def check_moves(bundle, log):
    """The step rules over one race's log (phase-0 steps of each turn)."""
    crs = course_table(bundle, int(log[0][3]))
    space = crs[:, 3:]
    nrows = crs.shape[0]
    pos = {}
    cur = None
    for r in log:
        kind, seat, a = int(r[2]), int(r[1]), [int(x) for x in r[3:]]
        if kind == C.EV_TURN:
            cur = {"seat": seat, "row": a[1], "lane": a[2], "moves": None, "steps": 0, "side_ok": True,
                   "ended": False, "lap": 0, "shooting": a[0] == 1}
        elif kind == C.EV_COUNT and cur and not cur["shooting"]:
            cur["moves"] = a[5]
        elif kind == C.EV_LAP and cur:
            cur["lap"] = a[0]
        elif kind == C.EV_STEP and cur and a[0] == C.PHASE_MOVE and seat == cur["seat"]:
            r0, l0 = cur["row"], cur["lane"]
            r2, l2, step = a[2], a[3], a[1]
            if step == C.STEP_ENTRY:
                assert r0 == -1 and r2 == 0 and space[0, l2] != C.SPACE_NONE
            elif step == C.STEP_FORWARD:
                assert r2 == r0 + 1 and l2 == l0 and space[r2, l2] != C.SPACE_NONE
            elif step == C.STEP_FINISH:
                assert r0 == nrows - 1 and r2 == nrows
            elif step == C.STEP_DIAG:
                assert r2 == r0 + 1 and abs(l2 - l0) == 1 and space[r2, l2] == C.SPACE_WHITE
            elif step == C.STEP_SIDE:
                assert r2 == r0 and abs(l2 - l0) == 1 and cur["side_ok"]
                assert space[r0, l0] != C.SPACE_SHOOT
                cur["side_ok"] = False
            if a[6] > 0:
                cur["side_ok"] = True
            cur["row"], cur["lane"] = r2, l2
            cur["steps"] += 1
            if r2 >= nrows or space[r2, l2] == C.SPACE_SHOOT:
                cur["ended"] = True
        elif kind in (C.EV_COLLAPSE,) and cur and seat == cur["seat"]:
            cur["ended"] = True
        if kind in (C.EV_TURN, C.EV_ROUND, C.EV_END) and pos.get("prev"):
            p = pos["prev"]
            if p["moves"] is not None and not p["ended"]:
                assert p["steps"] <= p["moves"] - p["lap"]
                pos["short"] = pos.get("short", 0) + (p["steps"] < p["moves"] - p["lap"])
        if kind == C.EV_TURN:
            pos["prev"] = cur
    return pos.get("short", 0)


def test_step_rules_hold_in_random_races(bundle):
    short = 0
    turns = 0
    for seed in range(12):
        for players in (("random",), ("balanced", "random")):
            nat = [bundle.nation_id(x) for x in ("Norway", "France", "Russia", "Sweden", "Germany")]
            _, _, log = play_one(bundle, "Starter" if seed % 2 else "Long", nat, seed=seed, race=seed,
                                 players=players, seat_players=[j % len(players) for j in range(5)])
            short += check_moves(bundle, log)
            turns += sum(1 for r in log if r[2] == C.EV_TURN)
    # a move shorter than its count only where no exact move existed (longest legal move)
    assert short <= turns * 0.02, (short, turns)


def test_a_chain_of_drafters_each_follows_the_one_ahead(bundle):
    # leader (seat 0) at (3, 1) moves 3; seat 1 at (2, 1) drafts on it; seat 2 at (1, 1) drafts on
    # seat 1 and follows seat 1's trail (its draft and, with draft_follows_bonus, its bonus)
    _, _, log = race(bundle, [racer(3, 1, cols=(0, 3, 0, 0)), blocker(2, 1), blocker(1, 1)])
    d1 = events(log, C.EV_DRAFT, 1, 1)[0]
    d2 = events(log, C.EV_DRAFT, 2, 1)[0]
    assert d1[0] == 0 and d1[1] == 1
    assert d2[0] == 1 and d2[1] == 1
    s1 = [(e[2], e[3]) for e in events(log, C.EV_STEP, 1, 1)]
    s2 = [(e[2], e[3]) for e in events(log, C.EV_STEP, 2, 1) if e[0] == C.PHASE_DRAFT]
    assert d2[2] == len(s1) == len(s2)
    assert s2 == [(2, 1)] + s1[:-1]
    # the order: leader's steps, then seat 1 (draft, bonus), then seat 2
    seats = [int(r[1]) for r in log if r[0] == 1 and r[2] in (C.EV_STEP, C.EV_DRAFT)]
    assert seats == sorted(seats)


def test_the_leaders_bonus_is_part_of_its_trail(bundle):
    # the leader ends on green (2, 1) behind a blocker at (3, 1) and takes its bonus; the drafter
    # behind its start follows the move and the bonus (draft_follows_bonus)
    _, _, log = race(bundle, [racer(1, 1, cols=(1, 0, 0, 0)), blocker(3, 1), blocker(0, 1)])
    lead = [(e[2], e[3]) for e in events(log, C.EV_STEP, 0, 1)]
    assert events(log, C.EV_BONUS, 0, 1)[0][0] == len(lead) - 1
    d = events(log, C.EV_DRAFT, 2, 1)[0]
    assert d[0] == 0 and d[2] == len(lead)
