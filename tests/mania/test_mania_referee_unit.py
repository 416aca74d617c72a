"""Unit tests of the Biathlon Mania referee (sim/mania/referee.py), without the kernel.

Two legal races are written out row by row in tests/mania/referee_logs/*.log, every value worked
out by hand from docs/mania/rules.md and docs/mania/event-log.md (the comments in the files show
the arithmetic), on the small data set tests/mania/referee_logs/data/:

* sprint_mini.log: two racers on "mini": a shared penalty exit square and a shared entry
  square, X first (a skipped turn) and X last (an extra move), the group rule in front of a
  racer, a trainer jump into a taken square, a calibre hit and a calibre miss, a penalty loop,
  the range lines, a push into the finish area, the places;
* relay_flat.log: one team of two legs on "flat": two ordinary misses, two spare shots (a calibre
  hit and a miss), the penalty loop that is left, the handover, the team's place.

Each broken variant changes one thing and must be refused with a message that names it. Logs the
referee writes itself (`simulate`) for random dice, every format and switch, must be accepted,
and random single-value corruptions of them refused.
"""
import random
import re
from pathlib import Path

import numpy as np
import pytest

from sim.mania.referee import (EVENT_NAMES, EV_MOVE, EV_PLACE, EV_ROLL, EV_SHOT, EV_STATE,
                               FIELD_NAMES, RANGE, WAITING, Referee, load_game, referee_race,
                               simulate)

HERE = Path(__file__).parent / "referee_logs"
KINDS = {v: k for k, v in EVENT_NAMES.items()}
SPRINT = dict(track="mini", format="sprint", racers=2, track_id=1)
RELAY = dict(track="flat", format="relay", teams=1, legs=2, track_id=0)
SHIPPED = Path(__file__).parents[2] / "sim" / "data" / "mania"


def parse_log(path):
    """Rows `round seat KIND a0 a1 ...` (comments after #) as int16[n, 13]."""
    rows = []
    for line in Path(path).read_text().splitlines():
        tok = line.split("#")[0].split()
        if tok:
            row = [int(tok[0]), int(tok[1]), KINDS[tok[2]]] + [int(t) for t in tok[3:]]
            rows.append(row + [0] * (13 - len(row)))
    return np.array(rows, dtype=np.int16)


@pytest.fixture(scope="module")
def game():
    return load_game(HERE / "data")


@pytest.fixture(scope="module")
def sprint_log():
    return parse_log(HERE / "sprint_mini.log")


@pytest.fixture(scope="module")
def relay_log():
    return parse_log(HERE / "relay_flat.log")


def find(log, rnd, seat, kind, nth=0):
    """Index of the nth row of `kind` for `seat` in round `rnd`."""
    hits = [i for i, r in enumerate(log) if r[0] == rnd and r[1] == seat and r[2] == KINDS[kind]]
    return hits[nth]


def dice_of(log):
    """The chance outcomes of a log, in the order rolled (for `simulate`)."""
    out = []
    for r in log:
        if r[2] == EV_ROLL:
            out.append(int(r[5]))
            if r[4] == 2:
                out.append(int(r[6]))
        elif r[2] == EV_SHOT:
            out.append(int(r[5]))
            if r[7] >= 0:
                out.append(int(r[7]))
    return out


# ---------------------------------------------------------------------------------------------
# the hand-written logs are accepted


def test_hand_sprint_log_accepted(game, sprint_log):
    rep = referee_race(game, SPRINT, sprint_log)
    assert rep.ok, rep.message
    assert rep.rows == len(sprint_log)
    cov = rep.coverage
    for key in ("group_push", "group_to_front", "T", "T_then_group", "X_first", "skip", "X_last",
                "roll_purpose_1", "two_on_penalty_entry_square", "two_on_penalty_exit_square",
                "calibre_hit", "calibre_miss", "penalty_loop_entered", "penalty_loop_left",
                "range_line_beside_another", "exit_move", "finish", "last_range", "lead_change",
                "move_zone_b", "move_zone_g"):
        assert cov[key] > 0, key
    assert cov["lead_change"] == 6


def test_hand_relay_log_accepted(game, relay_log):
    rep = referee_race(game, RELAY, relay_log)
    assert rep.ok, rep.message
    cov = rep.coverage
    for key in ("spare_shot", "spare_hit", "handover", "relay_team_finish", "shooting_clean",
                "shooting_with_penalties", "penalty_loop_entered", "last_range"):
        assert cov[key] > 0, key
    assert cov["spare_shot"] == 2


@pytest.mark.parametrize("name, setup", [("sprint_mini", SPRINT), ("relay_flat", RELAY)])
def test_referee_writes_the_hand_log(game, name, setup):
    """The referee as a log writer, given the hand log's dice, writes the hand log (up to the
    values the docs leave open: STATE a4..a6 away from the range, the HANDOVER seat column)."""
    hand = parse_log(HERE / f"{name}.log")
    mine = simulate(game, setup, dice_of(hand))
    assert mine.shape == hand.shape
    for i, (a, b) in enumerate(zip(mine, hand)):
        a, b = list(a), list(b)
        if a[2] == EV_STATE and a[4] != RANGE:
            a[7:10] = b[7:10]
        if a[2] == KINDS["HANDOVER"]:
            a[1] = b[1]
        assert a == b, (i, a, b)


# ---------------------------------------------------------------------------------------------
# broken logs are refused with a message saying what is wrong


def _set(log, idx, **args):
    for k, v in args.items():
        log[idx, 3 + int(k[1:])] = v


def wrong_move(log):
    i = find(log, 1, 0, "MOVE")                 # A rolled 3 from START: square 2, not 3
    _set(log, i, a3=4, a6=3)
    return log


def wrong_group_square(log):
    i = find(log, 3, 0, "GROUP")                # in front of B is square 5, not 6
    _set(log, i, a0=2, a3=6)
    return log


def group_rule_ignored(log):
    i = find(log, 3, 0, "GROUP")                # A left on B's square
    log = np.delete(log, i, axis=0)
    j = find(log, 3, 0, "STATE")
    _set(log, j, a2=4, a8=17)
    return log


def pushed_off_shared_square(log):
    i = find(log, 2, 0, "MOVE")                 # the penalty exit square holds two
    row = np.array([[2, 0, KINDS["GROUP"], 1, 1, 1, 4, 0, 0, 0, 0, 0, 0]], dtype=np.int16)
    return np.insert(log, i + 1, row, axis=0)


def miss_not_penalised(log):
    i = find(log, 7, 0, "SHOOT_END")            # 1 target standing, logged as 0 penalty loops
    _set(log, i, a3=0)
    return log


def penalty_loop_not_skied(log):
    i = find(log, 9, 1, "MOVE")                 # B owes a loop: square 2 leads into it
    _set(log, i, a5=1, a6=3)
    return log


def wrong_finish_place(log):
    i = find(log, 14, 1, "FINISH")              # B crossed second
    _set(log, i, a0=1)
    return log


def wrong_place_order(log):
    i, j = find(log, 14, 0, "PLACE"), find(log, 14, 1, "PLACE")
    log[[i, j]] = log[[j, i]]                   # B listed first, with place 1
    _set(log, i, a0=1)
    _set(log, j, a0=2)
    return log


def skip_not_skipped(log):
    i = find(log, 3, 1, "SKIP")                 # B stood first on X: its next turn is skipped
    log[i] = [3, 1, KINDS["ROLL"], 0, 1, 0, -1, 1, 0, 1, 0, 0, 0]
    return log


def skip_not_earned(log):
    i = find(log, 2, 1, "X")                    # B first of the standing, logged as nothing
    _set(log, i, a0=0)
    return log


def extra_move_denied(log):
    i = find(log, 11, 1, "X")                   # B last of the standing: an extra move
    _set(log, i, a0=0)
    return log


def calibre_misjudged(log):
    i = find(log, 6, 1, "SHOT")                 # calibre then calibre is a miss
    _set(log, i, a6=1, a7=1, a8=1)
    return log


def wrong_distance(log):
    i = find(log, 4, 0, "STATE")
    _set(log, i, a8=14)
    return log


def wrong_leader(log):
    i = find(log, 3, -1, "LEADER")
    _set(log, i, a0=1)
    return log


def wrong_turn_order(log):
    a0, a1 = find(log, 1, 0, "ROLL"), find(log, 1, -1, "LEADER")
    b0, b1 = find(log, 1, 1, "ROLL"), find(log, 1, -1, "LEADER", 1)
    return np.concatenate([log[:a0], log[b0:b1 + 1], log[a0:a1 + 1], log[b1 + 1:]])


def wrong_range_line(log):
    i = find(log, 5, 1, "MOVE")                 # line 8 is A's: B takes 7
    _set(log, i, a6=8)
    return log


def wrong_trainer_target(log):
    i = find(log, 4, 0, "T")
    _set(log, i, a1=9, a2=3)
    return log


def die_value_mismatch(log):
    i = find(log, 1, 0, "ROLL")                 # face index 2 of [1..6] is 3
    _set(log, i, a4=4, a6=4)
    return log


def truncated(log):
    return log[:-1]


def extra_row(log):
    return np.concatenate([log, log[-1:]])


SPRINT_BREAKS = [
    (wrong_move, ["row 7", "round 1", "seat 0", "MOVE", "steps", "expected 3, logged 4"]),
    (wrong_group_square, ["round 3", "seat 0", "GROUP", "squares gained", "expected 5"]),
    (group_rule_ignored, ["round 3", "expected GROUP of seat 0", "logged STATE"]),
    (pushed_off_shared_square, ["round 2", "expected STATE of seat 0", "logged GROUP"]),
    (miss_not_penalised, ["round 7", "SHOOT_END", "targets standing", "expected 1, logged 0"]),
    (penalty_loop_not_skied, ["round 9", "seat 1", "MOVE", "to stage", "expected 2, logged 1"]),
    (wrong_finish_place, ["round 14", "seat 1", "FINISH", "place", "expected 2, logged 1"]),
    (wrong_place_order, ["PLACE of seat 0", "logged PLACE of seat 1"]),
    (skip_not_skipped, ["round 3", "expected SKIP of seat 1", "logged ROLL"]),
    (skip_not_earned, ["round 2", "seat 1", "X", "outcome", "expected 1, logged 0"]),
    (extra_move_denied, ["round 11", "seat 1", "X", "outcome", "expected 2, logged 0"]),
    (calibre_misjudged, ["round 6", "seat 1", "SHOT", "hit", "expected 0, logged 1"]),
    (wrong_distance, ["round 4", "seat 0", "STATE", "distance left", "expected 13, logged 14"]),
    (wrong_leader, ["round 3", "LEADER", "leader team", "expected 0, logged 1"]),
    (wrong_turn_order, ["round 1", "expected ROLL of seat 0", "logged ROLL of seat 1"]),
    (wrong_range_line, ["round 5", "seat 1", "MOVE", "to square", "expected 7, logged 8"]),
    (wrong_trainer_target, ["round 4", "T", "green square", "expected 8, logged 9"]),
    (die_value_mismatch, ["round 1", "ROLL", "value 1", "expected 3, logged 4"]),
    (truncated, ["log ends", "PLACE"]),
    (extra_row, ["the race is over", "goes on"]),
]


@pytest.mark.parametrize("corrupt, words", SPRINT_BREAKS, ids=[f.__name__ for f, _ in SPRINT_BREAKS])
def test_broken_sprint_refused(game, sprint_log, corrupt, words):
    rep = referee_race(game, SPRINT, corrupt(sprint_log.copy()))
    assert not rep.ok
    for w in words:
        assert w in rep.message, (w, rep.message)


def no_handover(log):
    return np.delete(log, find(log, 8, 1, "HANDOVER"), axis=0)


def spare_not_fired(log):
    i = find(log, 5, 0, "SHOT")                 # 2 targets stand after the ordinary shots
    log[i] = [5, 0, KINDS["ROLL"], 3, 1, 5, -1, 6, 0, 6, 0, 0, 0]
    return log


def spare_flag_wrong(log):
    _set(log, find(log, 5, 0, "SHOT"), a1=0)
    return log


def spares_not_counted(log):
    _set(log, find(log, 6, 0, "SHOOT_END"), a4=0)
    return log


def team_place_missing(log):
    _set(log, find(log, 14, 1, "FINISH"), a0=0)
    return log


def first_leg_given_place(log):
    _set(log, find(log, 8, 0, "FINISH"), a0=1)
    return log


def next_leg_plays_at_once(log):
    i = find(log, 8, 0, "STATE")                # leg 1 rolls in the round of the handover
    row = np.array([[8, 1, KINDS["ROLL"], 0, 1, 5, -1, 6, 0, 6, 0, 0, 0]], dtype=np.int16)
    return np.insert(log, i + 1, row, axis=0)


def waiting_leg_moves(log):
    i = find(log, 1, 0, "ROLL")                 # round 1: the team's turn is leg 0's
    log[i, 1] = 1
    return log


RELAY_BREAKS = [
    (no_handover, ["round 8", "expected HANDOVER", "logged STATE"]),
    (spare_not_fired, ["round 5", "expected SHOT of seat 0", "logged ROLL"]),
    (spare_flag_wrong, ["round 5", "SHOT", "spare", "expected 1, logged 0"]),
    (spares_not_counted, ["round 6", "SHOOT_END", "spare shots used", "expected 2, logged 0"]),
    (team_place_missing, ["round 14", "seat 1", "FINISH", "place", "expected 1, logged 0"]),
    (first_leg_given_place, ["round 8", "seat 0", "FINISH", "expected 0, logged 1"]),
    (next_leg_plays_at_once, ["round 9", "expected ROUND", "logged ROLL of seat 1"]),
    (waiting_leg_moves, ["round 1", "expected ROLL of seat 0", "logged ROLL of seat 1"]),
]


@pytest.mark.parametrize("corrupt, words", RELAY_BREAKS, ids=[f.__name__ for f, _ in RELAY_BREAKS])
def test_broken_relay_refused(game, relay_log, corrupt, words):
    rep = referee_race(game, RELAY, corrupt(relay_log.copy()))
    assert not rep.ok
    for w in words:
        assert w in rep.message, (w, rep.message)


def test_message_names_row_round_seat_event(game, sprint_log):
    rep = referee_race(game, SPRINT, wrong_move(sprint_log.copy()))
    assert re.match(r"row \d+, round 1, seat 0, MOVE", rep.message), rep.message
    assert "expected row" in rep.message and "logged" in rep.message


# ---------------------------------------------------------------------------------------------
# logs written by the referee for random dice: accepted, and any single corruption refused

SWITCH_VALUES = dict(halve_rounding=["up", "down"], zone_rule=["start", "steps"],
                     exit_roll=["next_turn", "same_turn"], exit_from=["range", "exit_square"],
                     specials_after_push=[True, False], chain_extra_rolls=[True, False])


def random_setup(rng, game, small=False):
    fmt = rng.choice(["sprint", "mass_start", "relay"])
    setup = dict(track=rng.choice(sorted(game.tracks)), format=fmt,
                 number_dice=rng.choice([1, 2]), shooting_dice=rng.choice([1, 2]),
                 switches={k: rng.choice(v) for k, v in SWITCH_VALUES.items()}, track_id=0)
    setup["track_id"] = sorted(game.tracks).index(setup["track"])
    if rng.random() < 0.2:
        setup["shooting_die"] = rng.choice(["individual", "relay"])
    if fmt == "relay":
        setup.update(teams=rng.randint(1, 4 if small else 8), legs=rng.randint(1, 4))
    else:
        setup["racers"] = rng.randint(1, 4 if small else 8)
    return setup


def random_dice(rng):
    while True:
        yield rng.randrange(6)


def test_simulated_races_accepted_and_distances_consistent():
    game = load_game(SHIPPED)
    rng = random.Random(2026)
    total = 0
    for _ in range(40):
        setup = random_setup(rng, game)
        ref = Referee(game, setup, dice=random_dice(rng))
        ref.run()
        # distance left by the formula of rules.md section 12 = steps walked along the route
        for r in ref.racers:
            if r.stage != WAITING:
                assert ref.dist(r) == ref.route_dist(r)
        log = np.array(ref.rows, dtype=np.int16)
        rep = referee_race(game, setup, log)
        assert rep.ok, (setup, rep.message)
        total += rep.coverage["finish"]
    assert total > 0


def test_distance_formula_matches_route_everywhere(game):
    """Every position of a racer's route, walked from START: the formula equals the walk."""
    for track in game.tracks:
        for fmt in ("sprint", "relay"):
            ref = Referee(game, dict(track=track, format=fmt, teams=1, legs=1, racers=1),
                          dice=iter(()))
            r = ref.racers[0]
            for owed_at_range in (0, 2):
                r.lap, r.stage, r.sq, r.owed = 1, 0, 0, 0
                n = ref.dist(r)
                while r.stage != 5:
                    assert ref.dist(r) == ref.route_dist(r) == n, (track, fmt, r)
                    if r.stage == RANGE:
                        r.owed = owed_at_range
                        n = ref.dist(r)
                        assert n == ref.route_dist(r)
                    r.lap, r.stage, r.sq, r.owed = ref.next_pos(r.lap, r.stage, r.sq, r.owed)
                    n -= 1


# The values a corruption may leave legal: chance faces (another face of the same kind is an
# equally legal outcome), the values the docs leave open (a WAITING leg's distance, relay PLACE
# a1/a2, the lap of a START position). STATE a4..a6 away from the range are open too, but only
# to three patterns, which a change of 1 leaves.
def strict_cells(log, relay):
    cells = []
    for i, r in enumerate(log):
        kind = int(r[2])
        for a in range(10):
            if kind == EV_ROLL and a in (2, 3):
                continue
            if kind == EV_SHOT and a in (2, 4):
                continue
            if kind == EV_STATE and a == 8 and r[4] == WAITING:
                continue
            if kind == EV_PLACE and relay and a in (1, 2):
                continue
            cells.append((i, a))
    return cells


def start_lap_cell(log, i, a):
    """The lap of a START position (0 and 1 both read as the START area's lap)."""
    r = log[i]
    if r[2] == EV_STATE and a == 0 and r[4] == 0:
        return True
    if r[2] == EV_MOVE and a == 0 and r[4] == 0:
        return True
    return False


def test_random_corruptions_refused():
    game = load_game(SHIPPED)
    rng = random.Random(7)
    refused = 0
    for _ in range(12):
        setup = random_setup(rng, game, small=True)
        log = simulate(game, setup, random_dice(rng))
        cells = [c for c in strict_cells(log, setup["format"] == "relay")
                 if not start_lap_cell(log, *c)]
        for i, a in rng.sample(cells, min(25, len(cells))):
            bad = log.copy()
            bad[i, 3 + a] += rng.choice([-1, 1])
            rep = referee_race(game, setup, bad)
            assert not rep.ok, (setup, i, a, list(log[i]))
            assert "expected" in rep.message and "logged" in rep.message, rep.message
            refused += 1
    assert refused > 200


def test_field_names_cover_every_event():
    assert set(FIELD_NAMES) == set(EVENT_NAMES)
