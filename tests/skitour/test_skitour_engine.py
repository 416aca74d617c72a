"""The Ski Tour race engine: the rulebook's examples, every wax icon and every penalty-table row
played through the kernel with scripted dice and decisions, advanced nations, the two-player
variant, invariants over many random races and reproducibility (the golden event log: tests/golden/skitour,
through the conformance suite's one golden-log runner).

Scripted races isolate one racer: the other seat starts collapsed (it skips both phases) and the
racer's available dice are 0, so the preparation phase rolls nothing unless a test says so. The
option orders the `decisions` lists index are those of docs/skitour/event-log.md ("Decisions").
"""
from __future__ import annotations


import numpy as np
import pytest

from kernels.skitour import consts as C
from kernels.skitour import engine as E
from sim.skitour import load_bundle
from sim.skitour.play import EventLogOverflow, play_block, play_one

GREEN_HIT, GREEN_MISS = 0, 5          # face indices of the shipped green die ("H H H H H M")
EMPTY_ROW = {"S_WLO": 1, "S_WHI": 0}  # no face-up wax token


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def nid(bundle, name):
    return bundle.nation_id(name)


def board(cols=(0, 0, 0, 0), sprint=0, stars=(0, 0, 0, 0), available=0):
    return list(cols) + [sprint] + list(stars) + [available]


def events(log, kind, seat=None, rnd=None):
    rows = [r for r in log if r[2] == kind and (seat is None or r[1] == seat)
            and (rnd is None or r[0] == rnd)]
    return [[int(x) for x in r[3:]] for r in rows]


def range_rows(bundle, course="Starter"):
    t = bundle.tables
    ci = bundle.course_id(course)
    return [int(r) for r in t.range_row[ci] if r >= 0]


def solo(bundle, nation, state, *, script=(), decisions=(), wax=None, course="Starter",
         players=("balanced",), other="Sweden"):
    """One racer (seat 0) with `state` (engine S_* names), seat 1 collapsed from the start."""
    init = [dict(state), {"S_STATUS": C.COLLAPSED}]
    s, v, log = play_one(bundle, course, [nid(bundle, nation), nid(bundle, other)], seed=1, race=0,
                         players=players, init=init, script=list(script),
                         decisions=[list(decisions), []], wax=[wax, None])
    return s, v, log


# ----------------------------------------------------------------------------------------------
# the rulebook's examples
# ----------------------------------------------------------------------------------------------
def test_tobias_roll_through_the_engine(bundle):
    """§3.5: two 3s in column 3 with a six above, 7 available: rolls 1 1 5 6; the 1s to column 1,
    the 5 to column 3, the 6 to the sprint column (his choice: option 1 of [box 1, sprint])."""
    state = {"S_BOARD": board(cols=(0, 0, 2, 0), stars=(0, 0, 1, 0), available=7), "S_ROW": 2,
             "S_LANE": 1, **EMPTY_ROW}
    _, _, log = solo(bundle, "Norway", state, script=[0, 0, 4, 5], decisions=[1])
    assert events(log, C.EV_ROLL, 0, 1)[0][:6] == [C.ROLL_PREP, 4, 1, 1, 5, 6]
    assert events(log, C.EV_SIX, 0, 1) == [[0, C.SIX_SPRINT] + [0] * 11]
    b = events(log, C.EV_BOARD, 0, 1)[0]
    assert b[:11] == [2, 0, 3, 0, 1, 0, 0, 1, 0, 3, 4]


def test_tobias_may_put_the_six_above_the_ones(bundle):
    state = {"S_BOARD": board(cols=(0, 0, 2, 0), stars=(0, 0, 1, 0), available=7), "S_ROW": 2,
             "S_LANE": 1, **EMPTY_ROW}
    _, _, log = solo(bundle, "Norway", state, script=[0, 0, 4, 5], decisions=[0])
    assert events(log, C.EV_BOARD, 0, 1)[0][:9] == [2, 0, 3, 0, 0, 1, 0, 1, 0]


def hanna_state():
    return {"S_BOARD": board(cols=(1, 3, 0, 2), stars=(0, 1, 0, 0)), "S_ROW": 1, "S_LANE": 1,
            **EMPTY_ROW}


def test_hanna_turn_through_the_engine(bundle):
    """§4.1: column 2 (not full: its six goes back) and column 4 for one stamina: 5 dice, the
    stamina from column 1 (the leftmost of equal markers). Decisions: mandatory [c1, c2, c4] ->
    c2; additional [stop, c1, c4] -> c4; then [stop, c1] -> stop."""
    s, _, log = solo(bundle, "Norway", hanna_state(), decisions=[1, 2, 0])
    take = events(log, C.EV_TAKE, 0, 1)[0]
    assert take[:6] == [1, 1 << 3, 0, 0, 5, 1]
    pay = events(log, C.EV_PAY, 0, 1)[0]
    assert pay[:4] == [0, 2, C.PAY_EXTRA, 0]            # column 1, from slot 1 to slot 2
    count = events(log, C.EV_COUNT, 0, 1)[0]
    assert count[0] == 5 and count[5] == 5
    assert len(events(log, C.EV_STEP, 0, 1)) >= 5


def test_hanna_on_austria_column_2_is_full_at_three(bundle):
    s, _, log = solo(bundle, "Austria", hanna_state(), decisions=[1, 2, 0])
    assert events(log, C.EV_TAKE, 0, 1)[0][4] == 6


# ----------------------------------------------------------------------------------------------
# wax icons, one test each (Norway's tokens: 0 reroll_shot, 1 sprint, 2 free_column, 3 reroll_one,
# 4 reroll_all, 5 plus_one, 6 plus_one / minus_one, 7 stamina + free_column)
# ----------------------------------------------------------------------------------------------
ROW = [0, 1, 2, 3, 4, 5]


def one_token(pos):
    return {"S_WLO": pos, "S_WHI": pos}


def moving(cols=(0, 3, 0, 0), sprint=0, token=None, wax_row=ROW, row=2):
    st = {"S_BOARD": board(cols=cols, sprint=sprint), "S_ROW": row, "S_LANE": 1}
    st.update(one_token(token) if token is not None else EMPTY_ROW)
    return st


def test_wax_plus_one(bundle):
    _, _, log = solo(bundle, "Norway", moving(token=5), decisions=[1], wax=ROW)
    assert events(log, C.EV_WAX, 0, 1)[0][:5] == [C.MOMENT_A, 5, 5, C.WAX_PLUS_ONE, 0]
    c = events(log, C.EV_COUNT, 0, 1)[0]
    assert c[1] == 1 and c[5] == 4


def test_wax_slash_token_chooses_minus_one(bundle):
    row = [6, 1, 2, 3, 4, 5]
    _, _, log = solo(bundle, "France", moving(token=0), decisions=[2], wax=row)   # [none, +1, -1]
    w = events(log, C.EV_WAX, 0, 1)[0]
    assert w[2] == 6 and w[4] == C.WAX_MINUS_ONE
    c = events(log, C.EV_COUNT, 0, 1)[0]
    assert c[2] == 1 and c[5] == 2


def test_wax_sprint(bundle):
    # A: use the sprint token; additional columns [stop, sprint] -> stop (the dice stay)
    _, _, log = solo(bundle, "Norway", moving(sprint=2, token=1), decisions=[1, 0], wax=ROW)
    c = events(log, C.EV_COUNT, 0, 1)[0]
    assert c[3] == 2 and c[6] == 1 and c[5] == 5
    assert events(log, C.EV_BOARD, 0, 2)[0][4] == 2          # the sprint column keeps its dice


def test_wax_free_column(bundle):
    # A: [none, free_column] -> use; mandatory [c2, c4] -> c2; extras [stop, c4] -> c4; [stop]
    _, _, log = solo(bundle, "Norway", moving(cols=(0, 3, 0, 2), token=2), decisions=[1, 0, 1],
                     wax=ROW)
    t = events(log, C.EV_TAKE, 0, 1)[0]
    assert t[:6] == [1, 1 << 3, 0, 1, 5, 0]
    assert events(log, C.EV_PAY, 0, 1) == []


def test_wax_stamina_icon_pays_first(bundle):
    row = [7, 1, 2, 3, 4, 5]
    s, _, log = solo(bundle, "Norway", moving(cols=(0, 3, 0, 2), token=0), decisions=[1, 0, 1],
                     wax=row)
    assert events(log, C.EV_PAY, 0, 1)[0][2] == C.PAY_TOKEN
    assert events(log, C.EV_TAKE, 0, 1)[0][3] == 1
    assert s["wax_stamina"][0] == 1 and s["wax_free_column"][0] == 1


def test_wax_reroll_one(bundle):
    # A: use reroll_one; lift from [c2, c4] -> c4 (cell 3); the die rolls a 2 -> column 2
    _, _, log = solo(bundle, "Norway", moving(cols=(0, 3, 0, 1), token=3), decisions=[1, 1],
                     script=[1], wax=ROW)
    assert events(log, C.EV_LIFT, 0, 1)[0][0] == 3
    assert events(log, C.EV_ROLL, 0, 1)[1][:3] == [C.ROLL_ONE, 1, 2]     # [0]: the 0-die prep roll
    assert events(log, C.EV_BOARD, 0, 1)[1][:4] == [0, 4, 0, 0]


def test_wax_reroll_all(bundle):
    _, _, log = solo(bundle, "Norway", moving(cols=(1, 1, 0, 0), token=4), decisions=[1],
                     script=[3, 3], wax=ROW)
    assert events(log, C.EV_ROLL, 0, 1)[1][:4] == [C.ROLL_ALL, 2, 4, 4]
    assert events(log, C.EV_BOARD, 0, 1)[1][:4] == [0, 0, 0, 2]
    assert events(log, C.EV_TAKE, 0, 1)[0][4] == 2


def at_range_entry(bundle, cols, stars=(0, 0, 0, 0), token=None, course="Starter"):
    """A racer one row before the first range, with column 2 holding one die for the step in."""
    r = range_rows(bundle, course)[0]
    st = {"S_BOARD": board(cols=cols, stars=stars), "S_ROW": r - 1, "S_LANE": 1}
    st.update(one_token(token) if token is not None else EMPTY_ROW)
    return st


def test_wax_reroll_shot(bundle):
    # round 1: [c1, c2] -> c2 (1 step into the range), extras [stop, c1] -> stop; round 2 rolls the
    # die taken (a 2); shooting turn: c1 alone (1 die = 1 shot); at C use reroll_shot (option 1)
    # on [the shot]; A and B of both turns offer the token too: decline them.
    st = at_range_entry(bundle, cols=(1, 1, 0, 0), token=0)
    # round 1: A none, c2, stop, B none, step [forward, left, right] -> forward |
    # round 2: A none, c1, stop, B none, C use
    dec = [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    _, v, log = solo(bundle, "Norway", st, decisions=dec, script=[1, GREEN_MISS, GREEN_HIT],
                     wax=ROW)
    assert events(log, C.EV_ARRIVE, 0)[0][0] == 0
    shot = events(log, C.EV_SHOT, 0, 2)[0]
    assert shot[:4] == [0, 0, GREEN_MISS, 0]
    assert events(log, C.EV_WAX, 0, 2)[0][0] == C.MOMENT_C
    assert events(log, C.EV_RESHOT, 0, 2)[0][:4] == [0, 0, GREEN_HIT, 1]
    assert v["hits"][0] >= 1 and v["reshots"][0] == 1


# ----------------------------------------------------------------------------------------------
# the penalty table, one row each, through the engine
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("misses,laps", [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3)])
def test_penalty_table_row(bundle, misses, laps):
    """Round 1 steps into the range with column 2's die; round 2 rolls that die back (a 2) and
    shoots five with column 1 (four dice and its box's six: full)."""
    st = at_range_entry(bundle, cols=(4, 1, 0, 0), stars=(1, 0, 0, 0))
    faces = [GREEN_MISS] * misses + [GREEN_HIT] * (5 - misses)
    s, v, log = solo(bundle, "Norway", st, decisions=[1, 0], script=[1] + faces)
    assert events(log, C.EV_LAPS, 0, 2)[0][:2] == [misses, laps]
    assert v["shots"][0] == 5 and v["misses"][0] == misses and v["penalties"][0] == laps
    assert s["laps_r1"][0] == laps
    if laps:
        assert events(log, C.EV_TURN, 0, 3)[0][3] == 1          # in the penalty lane


# ----------------------------------------------------------------------------------------------
# advanced nations
# ----------------------------------------------------------------------------------------------
def test_italy_flip_box_trades_the_six_for_a_token(bundle):
    """Italy's column 1 has a flip box: a full column 1 may trade its six to turn the innermost
    used token face up (tokens 1..5 used: token at 0 is face up again... here position 5)."""
    st = {"S_BOARD": board(cols=(4, 0, 0, 0), stars=(1, 0, 0, 0)), "S_ROW": 2, "S_LANE": 1,
          "S_WLO": 0, "S_WHI": 4}
    # A: [none, pos 0, pos 4] -> none; (c1 alone: no decision); flip [count, trade] -> trade;
    # innermost used: pos 5 alone; B: [none, pos 0, pos 5] -> none
    _, _, log = solo(bundle, "Italy", st, decisions=[0, 1, 0], wax=[0, 1, 2, 3, 4, 5])
    t = events(log, C.EV_TAKE, 0, 1)[0]
    assert t[2] == 1 and t[4] == 4
    assert events(log, C.EV_FLIPBACK, 0, 1)[0][0] == 5


def test_finland_printed_token_on_a_shooting_turn(bundle):
    st = at_range_entry(bundle, cols=(1, 1, 0, 0))
    # round 1: c2, stop (no token offered on a moving turn), step forward; round 2 (shooting):
    # A [none, printed] -> none, [c1, c2] -> c1, [stop, c2] -> stop, B -> none, C -> printed
    _, _, log = solo(bundle, "Finland", st, decisions=[1, 0, 0, 0, 0, 0, 0, 1],
                     script=[1, GREEN_MISS, GREEN_HIT])
    w = events(log, C.EV_WAX, 0, 2)
    assert w and w[0][1] == -1 and w[0][0] == C.MOMENT_C
    assert events(log, C.EV_RESHOT, 0, 2)[0][3] == 1


# ----------------------------------------------------------------------------------------------
# the two-player variant, random races, reproducibility
# ----------------------------------------------------------------------------------------------
def test_two_player_race_ends_at_the_first_finisher(bundle):
    nat = [nid(bundle, x) for x in ("Norway", "France", "Russia", "Sweden")]
    s, v, log = play_one(bundle, "Starter", nat, seed=4, race=2, variant="two_player",
                         players=("balanced", "random"))
    assert list(s["team"]) == [0, 1, 0, 1] and list(s["leg"]) == [0, 0, 1, 1]
    assert s["finished"].sum() == 1
    winner = int(np.flatnonzero(s["finished"])[0])
    side = winner % 2
    assert list(s["place"]) == [1 if t == side else 2 for t in s["team"]]
    assert list(s["won"]) == [1 if t == side else 0 for t in s["team"]]
    assert log[-1][2] == C.EV_END and log[-2][2] == C.EV_FINISH
    assert list(s["player"]) == [0, 1, 0, 1]


@pytest.fixture(scope="module")
def random_races(bundle):
    out = []
    for course, n, players, variant in (("Starter", 4, ("random",), "standard"),
                                        ("Long", 5, ("balanced", "random"), "standard"),
                                        ("Starter", 3, ("sprinter", "steady", "sharpshooter"), "standard"),
                                        ("Long", 4, ("random", "balanced"), "two_player")):
        pool = [i for i in range(len(bundle.nation_names))
                if bundle.tables.nation_side[i] == (n % 2)]
        nat = np.array([pool[(j) % len(pool)] for j in range(n)])
        sp = [j % len(players) for j in range(n)]
        s, v = play_block(bundle, course, nat, 11, np.arange(400), players=players,
                          seat_players=sp, variant=variant)
        out.append((n, variant, s, v))
    return out


def test_invariants_over_random_races(bundle, random_races):
    table = bundle.tables.penalty_laps
    for n, variant, s, v in random_races:
        places = s["place"].reshape(-1, n)
        if variant == "standard":
            assert (np.sort(places, axis=1) == np.arange(1, n + 1)).all()
        else:
            assert set(np.unique(places)) <= {1, 2}
        assert (s["stamina_left"] >= 0).all() and (s["stamina_used"] >= 0).all()
        assert (s["hits"] <= s["shots"]).all()
        done = v[v["shots"] == 5]
        assert (done["penalties"] == table[done["misses"]]).all()
        assert (v["shots"] <= 5).all()
        unfinished = v[v["shots"] < 5]
        assert (unfinished["penalties"] == 0).all()
        # every finisher shot five at every range
        ranges = int(bundle.tables.n_ranges[s["scenario"][0]])
        fin = s[s["finished"] == 1]
        assert (fin["shots"] == 5 * ranges).all()
        key = s["race"].astype(np.int64) * 8 + s["seat"]
        pen = {k: 0 for k in key}
        for row in v:
            pen[int(row["race"]) * 8 + int(row["seat"])] += int(row["penalties"])
        assert [pen[k] for k in key] == list(s["penalty_laps"])
        assert (s["stalled"] == 0).all()


def test_default_persona_beats_random(bundle):
    nat = [nid(bundle, x) for x in ("Norway", "France", "Russia", "Sweden")]
    s, _ = play_block(bundle, "Starter", nat, 3, np.arange(600), players=("balanced", "random"),
                      seat_players=[0, 1, 0, 1])
    wins = s["won"].reshape(-1, 4)
    rate = wins[:, [0, 2]].sum() / len(wins)
    assert rate > 0.8, rate


def test_records_do_not_depend_on_block_splitting(bundle):
    nat = np.array([[nid(bundle, "Norway"), nid(bundle, "Russia"), nid(bundle, "Sweden")]] * 30)
    a, va = play_block(bundle, "Long", nat, 7, np.arange(30), players=("random", "balanced"),
                       seat_players=[0, 1, 0])
    parts = [play_block(bundle, "Long", nat[i:i + 4], 7, np.arange(i, min(i + 4, 30)),
                        players=("random", "balanced"), seat_players=[0, 1, 0]) for i in range(0, 30, 4)]
    np.testing.assert_array_equal(a, np.concatenate([p[0] for p in parts]))
    np.testing.assert_array_equal(va, np.concatenate([p[1] for p in parts]))
    alone, _, _ = play_one(bundle, "Long", nat[0], 7, 13, players=("random", "balanced"),
                           seat_players=[0, 1, 0])
    np.testing.assert_array_equal(alone, a[a["race"] == 13])


def test_log_overflow_is_an_error(bundle):
    with pytest.raises(EventLogOverflow):
        play_one(bundle, "Starter", [0, 2], 1, 0, log_rows=50)
