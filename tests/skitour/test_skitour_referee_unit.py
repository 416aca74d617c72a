"""Unit tests of the independent Ski Tour referee on small hand-written event logs.

The logs are written row by row from docs/skitour/event-log.md (int16 rows: round, seat, kind,
a0..a12) on tiny courses patched into the referee's own reading of the shipped data. No kernel
is needed: the referee module is loaded from its file, so not even the sim.skitour package (whose
__init__ reaches into kernels/) is imported.

Each scenario has a correct log, which the referee accepts, and broken copies, which it refuses
with a message naming what was wrong.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "sim" / "skitour" / "referee.py"
_spec = importlib.util.spec_from_file_location("skitour_referee_under_test", _PATH)
ref = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ref
_spec.loader.exec_module(ref)

(RACE, SEAT, WAXROW, ROUND, ROLL, BLUE, SIX, BOARD, TURN, WAX, TAKE, PAY, FLIPBACK, COUNT, LIFT,
 LAP, STEP, BONUS, DRAFT, ARRIVE, SHOT, RESHOT, LAPS, FINISH, COLLAPSE, END) = range(1, 27)

NORWAY, GERMANY = 5, 3          # nation ids: nation files in file-name order
GREEN = 0                       # die id: game.toml order
HIT, MISS = 0, 5                # face indices of the shipped green die "H H H H H M"


def R(rnd, seat, kind, *args):
    row = [rnd, seat, kind] + list(args)
    return row + [0] * (16 - len(row))


# A course with one range: start side (rows 0-2, row 1 lane 1 green), range side (row 3 white,
# row 4 the shooting row), goal side (row 5).
RANGE_COURSE = [
    ("courses.toml", "course.0.tiles", ["1a", "3a", "2a"]),
    ("tiles.toml", "tile.0.a.rows", [". . .", "G . .", ". . ."]),
    ("tiles.toml", "tile.2.a.rows", ["W W W", "S S S"]),
    ("tiles.toml", "tile.1.a.rows", [". . ."]),
]
# A course without range: rows 0-1 start side, row 2 goal side.
SHORT_COURSE = [
    ("courses.toml", "course.0.tiles", ["1a", "2a"]),
    ("tiles.toml", "tile.0.a.rows", [". . .", "G . ."]),
    ("tiles.toml", "tile.1.a.rows", [". . ."]),
]


@pytest.fixture(scope="module")
def range_game():
    return ref.load_game(patches=RANGE_COURSE)


@pytest.fixture(scope="module")
def short_game():
    return ref.load_game(patches=SHORT_COURSE)


SETUP2 = dict(course="Starter", nations=["Norway", "Germany"], variant="standard",
              rules={"round_cap": 2})
SETUP_SHORT = dict(course="Starter", nations=["Norway", "Germany"], variant="standard")


def header(rows, ranges, cap):
    # Norway row: plus_one, sprint, free_column, reroll_one, reroll_all, reroll_shot
    # Germany row: sprint, free_column, reroll_one, plus_one, minus_one, reroll_shot
    return [R(0, -1, RACE, 0, 2, 0, 1, cap, rows, ranges),
            R(0, 0, SEAT, NORWAY, 0, 0), R(0, 1, SEAT, GERMANY, 1, 0),
            R(0, 0, WAXROW, 5, 1, 2, 3, 4, 0), R(0, 1, WAXROW, 2, 3, 4, 5, 6, 0)]


def base_log(six_to_box=False):
    """Two rounds on RANGE_COURSE (round cap 2). Round 1: Norway runs 5 steps into the range;
    Germany uses its sprint token and runs 4 (3 with its six in a box). Round 2: Germany takes
    an additional column for one stamina (column 1 pays: all markers equal, leftmost) and
    enters the range; Norway shoots 5: 3 misses -> 2 penalty laps."""
    log = header(6, 1, 2)
    log += [R(1, -1, ROUND, 1, 0),
            R(1, 0, ROLL, 0, 5, 1, 1, 1, 1, 6), R(1, 0, SIX, 0, 0),
            R(1, 0, BOARD, 4, 0, 0, 0, 0, 1, 0, 0, 0, 5, 5),
            R(1, 1, ROLL, 0, 5, 2, 2, 3, 5, 6)]
    if six_to_box:
        log += [R(1, 1, SIX, 0, 1), R(1, 1, BOARD, 0, 3, 1, 0, 0, 0, 1, 0, 0, 5, 5)]
    else:
        log += [R(1, 1, SIX, 0, 4), R(1, 1, BOARD, 0, 3, 1, 0, 1, 0, 0, 0, 0, 5, 5)]
    # Norway: column 1 is full, its box's six counts: 5 steps, the last into the range
    log += [R(1, 0, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 0, TAKE, 0, 0, 0, 0, 5, 0),
            R(1, 0, COUNT, 5, 0, 0, 0, 0, 5, 0),
            R(1, 0, STEP, 0, 3, 0, 0, 0, 0, 0), R(1, 0, STEP, 0, 0, 1, 0, 0, 0, 0),
            R(1, 0, STEP, 0, 0, 2, 0, 0, 0, 0), R(1, 0, STEP, 0, 0, 3, 0, 0, 0, 0),
            R(1, 0, STEP, 0, 0, 4, 0, 0, 0, 0), R(1, 0, ARRIVE, 0, 4, 0)]
    # Germany: sprint token at moment A (sprint moves = dice in the sprint column)
    sprint = 0 if six_to_box else 1
    log += [R(1, 1, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 1, WAX, 0, 0, 2, 2, 0),
            R(1, 1, TAKE, 1, 0, 0, 0, 3, 0), R(1, 1, COUNT, 3, 0, 0, sprint, 0, 3 + sprint, 1),
            R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 0, 1, 1, 0, 0, 0),
            R(1, 1, STEP, 0, 0, 2, 1, 0, 0, 0)]
    if not six_to_box:
        log += [R(1, 1, STEP, 0, 0, 3, 1, 0, 0, 0)]
    g_row = 2 if six_to_box else 3
    log += [R(2, -1, ROUND, 2, 1),
            R(2, 0, ROLL, 0, 5, 1, 1, 1, 1, 6), R(2, 0, SIX, 0, 0),
            R(2, 0, BOARD, 4, 0, 0, 0, 0, 1, 0, 0, 0, 5, 5)]
    if six_to_box:   # 9 available: roll 5
        log += [R(2, 1, ROLL, 0, 5, 4, 4, 3, 2, 1),
                R(2, 1, BOARD, 1, 1, 2, 2, 0, 0, 0, 0, 0, 4, 5)]
    else:            # 8 available: roll 4
        log += [R(2, 1, ROLL, 0, 4, 4, 4, 3, 2),
                R(2, 1, BOARD, 0, 1, 2, 2, 1, 0, 0, 0, 0, 4, 4)]
    log += [R(2, 1, TURN, 0, g_row, 1, 0, 0, 0, 0), R(2, 1, TAKE, 2, 8, 0, 0, 4, 1),
            R(2, 1, PAY, 0, 2, 1, 0), R(2, 1, COUNT, 4, 0, 0, 0, 0, 4, 0)]
    if six_to_box:
        log += [R(2, 1, STEP, 0, 0, 3, 1, 0, 0, 0)]
    log += [R(2, 1, STEP, 0, 0, 4, 1, 0, 0, 0), R(2, 1, ARRIVE, 0, 4, 1)]
    log += [R(2, 0, TURN, 1, 4, 0, 0, 0, 0, 0), R(2, 0, TAKE, 0, 0, 0, 0, 5, 0),
            R(2, 0, COUNT, 5, 0, 0, 0, 0, 5, 0),
            R(2, 0, SHOT, 0, GREEN, MISS, 0), R(2, 0, SHOT, 1, GREEN, MISS, 0),
            R(2, 0, SHOT, 2, GREEN, HIT, 1), R(2, 0, SHOT, 3, GREEN, MISS, 0),
            R(2, 0, SHOT, 4, GREEN, HIT, 1), R(2, 0, LAPS, 3, 2),
            R(2, -1, END, 2, 1, -1)]
    return log


def draft_log(sprint=False, draft_anyway=False):
    """Round 1: Norway to (1,0), Germany to (2,0) (forward twice, passing Norway, then one
    sideways step). Round 2: Germany leads into the range; Norway, directly behind, drafts on it
    unless Germany sprints (the sprint column as an additional column)."""
    log = header(6, 1, 2)
    log += [R(1, -1, ROUND, 1, 0),
            R(1, 0, ROLL, 0, 5, 2, 2, 3, 3, 4), R(1, 0, BOARD, 0, 2, 2, 1, 0, 0, 0, 0, 0, 5, 5),
            R(1, 1, ROLL, 0, 5, 4, 4, 4, 4, 1), R(1, 1, BOARD, 1, 0, 0, 4, 0, 0, 0, 0, 0, 5, 5),
            R(1, 0, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 0, TAKE, 1, 0, 0, 0, 2, 0),
            R(1, 0, COUNT, 2, 0, 0, 0, 0, 2, 0),
            R(1, 0, STEP, 0, 3, 0, 0, 0, 0, 0), R(1, 0, STEP, 0, 0, 1, 0, 0, 0, 0),
            R(1, 1, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 1, TAKE, 3, 0, 0, 0, 4, 0),
            R(1, 1, COUNT, 4, 0, 0, 0, 0, 4, 0),
            R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 0, 1, 1, 0, 0, 0),
            R(1, 1, STEP, 0, 0, 2, 1, 0, 0, 1), R(1, 1, STEP, 0, 1, 2, 0, 0, 0, 0),
            R(2, -1, ROUND, 2, 1),
            R(2, 0, ROLL, 0, 4, 3, 3, 1, 1), R(2, 0, BOARD, 2, 0, 4, 1, 0, 0, 0, 0, 0, 3, 4),
            R(2, 1, ROLL, 0, 5, 1, 2, 2, 6, 6), R(2, 1, SIX, 0, 4), R(2, 1, SIX, 1, 4),
            R(2, 1, BOARD, 2, 2, 0, 0, 2, 0, 0, 0, 0, 4, 5),
            R(2, 1, TURN, 0, 2, 0, 0, 0, 0, 0)]
    if sprint:
        log += [R(2, 1, TAKE, 0, 16, 0, 0, 4, 1), R(2, 1, PAY, 0, 2, 1, 0),
                R(2, 1, COUNT, 4, 0, 0, 0, 0, 4, 1)]
    else:
        log += [R(2, 1, TAKE, 0, 0, 0, 0, 2, 0), R(2, 1, COUNT, 2, 0, 0, 0, 0, 2, 0)]
    log += [R(2, 1, STEP, 0, 0, 3, 0, 0, 0, 0), R(2, 1, STEP, 0, 0, 4, 0, 0, 0, 0),
            R(2, 1, ARRIVE, 0, 4, 0)]
    if not sprint or draft_anyway:
        log += [R(2, 0, DRAFT, 1, 1, 2, 0, 1),
                R(2, 0, STEP, 2, 0, 2, 0, 0, 0, 0), R(2, 0, STEP, 2, 0, 3, 0, 0, 0, 0),
                R(2, 0, TURN, 0, 3, 0, 0, 0, 0, 0), R(2, 0, TAKE, 3, 0, 0, 0, 1, 0),
                R(2, 0, COUNT, 1, 0, 0, 0, 0, 1, 0),
                R(2, 0, STEP, 0, 0, 4, 0, 1, 0, 0), R(2, 0, ARRIVE, 0, 4, 0)]
    else:
        log += [R(2, 0, TURN, 0, 1, 0, 0, 0, 0, 0), R(2, 0, TAKE, 3, 0, 0, 0, 1, 0),
                R(2, 0, COUNT, 1, 0, 0, 0, 0, 1, 0),
                R(2, 0, STEP, 0, 0, 2, 0, 0, 0, 0)]
    log += [R(2, -1, END, 2, 1, -1)]
    return log


def finish_log(seat1_steps=None):
    """One round on SHORT_COURSE: both racers take four dice and cross the line, Norway first."""
    log = header(3, 0, 80)
    log += [R(1, -1, ROUND, 1, 0),
            R(1, 0, ROLL, 0, 5, 4, 4, 4, 4, 2), R(1, 0, BOARD, 0, 1, 0, 4, 0, 0, 0, 0, 0, 5, 5),
            R(1, 1, ROLL, 0, 5, 4, 4, 4, 4, 2), R(1, 1, BOARD, 0, 1, 0, 4, 0, 0, 0, 0, 0, 5, 5),
            R(1, 0, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 0, TAKE, 3, 0, 0, 0, 4, 0),
            R(1, 0, COUNT, 4, 0, 0, 0, 0, 4, 0),
            R(1, 0, STEP, 0, 3, 0, 0, 0, 0, 0), R(1, 0, STEP, 0, 0, 1, 0, 0, 0, 0),
            R(1, 0, STEP, 0, 0, 2, 0, 0, 0, 0), R(1, 0, STEP, 0, 4, 3, 0, 0, 0, 0),
            R(1, 0, FINISH, 1),
            R(1, 1, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 1, TAKE, 3, 0, 0, 0, 4, 0),
            R(1, 1, COUNT, 4, 0, 0, 0, 0, 4, 0)]
    log += seat1_steps or [
        R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 0, 1, 1, 0, 0, 0),
        R(1, 1, STEP, 0, 0, 2, 1, 0, 0, 0), R(1, 1, STEP, 0, 4, 3, 1, 0, 0, 0)]
    log += [R(1, 1, FINISH, 2), R(1, -1, END, 1, 0, 0)]
    return log


def find(log, rnd, seat, kind, nth=0):
    hits = [i for i, r in enumerate(log) if r[0] == rnd and r[1] == seat and r[2] == kind]
    return hits[nth]


def refused(game, setup, log, *words):
    rep = ref.referee_race(game, setup, log)
    assert not rep.ok, "a broken log was accepted"
    for w in words:
        assert w in rep.message, rep.message
    return rep.message


# -- correct logs ---------------------------------------------------------------------------

def test_correct_range_log_is_accepted(range_game):
    rep = ref.referee_race(range_game, SETUP2, base_log())
    assert rep.ok, rep.message
    c = rep.coverage
    assert c["arrive"] == 2 and c["shots"] == 5 and c["penalty_misses:3"] == 1
    assert c["wax:sprint"] == 1 and c["pay_reason:1"] == 1 and c["stalled"] == 1


def test_correct_log_with_a_six_in_a_box_is_accepted(range_game):
    rep = ref.referee_race(range_game, SETUP2, base_log(six_to_box=True))
    assert rep.ok, rep.message
    assert rep.coverage["box_six_back"] == 1


def test_correct_drafting_log_is_accepted(range_game):
    rep = ref.referee_race(range_game, SETUP2, draft_log())
    assert rep.ok, rep.message
    assert rep.coverage["draft"] == 1 and rep.coverage["draft_steps"] == 2


def test_correct_sprint_log_without_drafting_is_accepted(range_game):
    rep = ref.referee_race(range_game, SETUP2, draft_log(sprint=True))
    assert rep.ok, rep.message
    assert rep.coverage["no_draft_behind_sprinter"] == 1


def test_correct_finish_log_is_accepted(short_game):
    rep = ref.referee_race(short_game, SETUP_SHORT, finish_log())
    assert rep.ok, rep.message
    assert rep.coverage["finish"] == 2


def test_trailing_zero_rows_are_ignored(short_game):
    rep = ref.referee_race(short_game, SETUP_SHORT, finish_log() + [[0] * 16] * 5)
    assert rep.ok, rep.message


# -- broken logs ----------------------------------------------------------------------------

def test_die_placed_in_the_wrong_column(range_game):
    log = base_log()
    # Germany rolled 2, 2, 3, 5: the five belongs to column 2 (most dice), not column 3
    log[find(log, 1, 1, BOARD)] = R(1, 1, BOARD, 0, 2, 2, 0, 1, 0, 0, 0, 0, 5, 5)
    msg = refused(range_game, SETUP2, log, "board after placing", "expected [0, 3, 1, 0")
    assert "round 1, seat 1, BOARD" in msg


def test_six_counted_from_a_column_that_is_not_full(range_game):
    log = base_log(six_to_box=True)
    i = find(log, 1, 1, TAKE)
    log[i] = R(1, 1, TAKE, 1, 0, 0, 0, 4, 0)   # 3 dice + the box's six, column 2 not full
    refused(range_game, SETUP2, log, "dice taken: expected 3, logged 4", "TAKE")


def test_six_placed_where_no_legal_place_exists(range_game):
    log = base_log()
    # Germany's six into the box above column 1, which holds no die
    log[find(log, 1, 1, SIX)] = R(1, 1, SIX, 0, 0)
    refused(range_game, SETUP2, log, "six destination 0", "expected one of [1, 2, 4]")


def test_a_tie_for_the_highest_stamina_is_the_players_choice(range_game):
    """rules.md §4.2: every marker shows the same value, so any column may pay (the log's
    column 3 instead of the leftmost), but its marker must move one slot down."""
    log = base_log()
    log[find(log, 2, 1, PAY)] = R(2, 1, PAY, 3, 2, 1, 0)
    rep = ref.referee_race(range_game, SETUP2, log)
    assert rep.ok, rep.message
    assert rep.coverage["pay_tie"] == 1
    log[find(log, 2, 1, PAY)] = R(2, 1, PAY, 3, 3, 1, 0)
    refused(range_game, SETUP2, log, "expected its marker to slot 2, logged 3",
            "round 2, seat 1, PAY")


def test_stamina_paid_from_a_column_below_the_highest(range_game):
    """After Germany's first payment from column 0 the other columns show more: a second payment
    logged from column 0 is refused."""
    log = base_log()
    i = find(log, 2, 1, PAY)
    log[i + 1:i + 1] = [R(2, 1, PAY, 0, 3, 1, 0)]
    log[find(log, 2, 1, TAKE)] = R(2, 1, TAKE, 2, 8 | 2, 0, 0, 5, 2)   # columns 3 and 1 paid
    refused(range_game, SETUP2, log, "stamina paid from column 0: expected one of [1, 2, 3, 4]")


def test_diagonal_step_into_a_space_that_is_not_white(short_game):
    steps = [R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 2, 1, 2, 0, 0, 0),
             R(1, 1, STEP, 0, 0, 2, 2, 0, 0, 0), R(1, 1, STEP, 0, 4, 3, 2, 0, 0, 0)]
    refused(short_game, SETUP_SHORT, finish_log(steps), "move step (2, 1, 2)",
            "not a legal step")


def test_second_sideways_step_without_passing(short_game):
    steps = [R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 1, 0, 2, 0, 0, 0),
             R(1, 1, STEP, 0, 1, 0, 1, 0, 0, 0), R(1, 1, STEP, 0, 0, 1, 1, 0, 0, 0)]
    refused(short_game, SETUP_SHORT, finish_log(steps), "move step (1, 0, 1)",
            "not a legal step")


def test_drafting_behind_a_sprinter(range_game):
    refused(range_game, SETUP2, draft_log(sprint=True, draft_anyway=True),
            "DRAFT logged but nobody may draft on seat 1", "it sprints")


def test_wrong_penalty_lap_count(range_game):
    log = base_log()
    log[find(log, 2, 0, LAPS)] = R(2, 0, LAPS, 3, 1)
    refused(range_game, SETUP2, log, "LAPS", "a1 (penalty laps): expected 2, logged 1")


def test_sprint_token_without_its_moves(range_game):
    log = base_log()
    log[find(log, 1, 1, COUNT)] = R(1, 1, COUNT, 3, 0, 0, 0, 0, 3, 1)
    refused(range_game, SETUP2, log, "COUNT", "a3 (count): expected 1, logged 0")


def test_wax_token_that_is_not_outermost(range_game):
    log = base_log()
    log[find(log, 1, 1, WAX)] = R(1, 1, WAX, 0, 1, 3, 4, 0)   # free_column, position 1
    refused(range_game, SETUP2, log, "not an outermost face-up token")


def test_shot_marked_hit_on_a_miss_face(range_game):
    log = base_log()
    log[find(log, 2, 0, SHOT)] = R(2, 0, SHOT, 0, GREEN, MISS, 1)
    refused(range_game, SETUP2, log, "shot at target 0", "is a miss, logged hit")


def test_wrong_place_order(short_game):
    log = finish_log()
    log[find(log, 1, 0, FINISH)] = R(1, 0, FINISH, 2)
    refused(short_game, SETUP_SHORT, log, "finish place: expected 1", "logged 2")


def test_wrong_winner(short_game):
    log = finish_log()
    log[-1] = R(1, -1, END, 1, 0, 1)
    refused(short_game, SETUP_SHORT, log, "END", "expected 0, logged 1")


def test_mandatory_column_empty_while_others_hold_dice(short_game):
    log = finish_log()
    i = find(log, 1, 0, TAKE)
    log[i] = R(1, 0, TAKE, 0, 0, 0, 0, 0, 0)
    refused(short_game, SETUP_SHORT, log, "mandatory column 1 is empty")


def test_roll_of_the_wrong_number_of_dice(short_game):
    log = finish_log()
    log[find(log, 1, 0, ROLL)] = R(1, 0, ROLL, 0, 4, 4, 4, 4, 4)
    refused(short_game, SETUP_SHORT, log, "ROLL", "a1 (roll purpose 0): expected 5, logged 4")


# -- markers on blue ------------------------------------------------------------------------

# Norway with two-slot stamina columns: a short race starts on the second slot, the blue one,
# so all five markers are on blue from the start.
BLUE_NORWAY = SHORT_COURSE + [
    ("nations/norway.toml", "stamina.slots", ["6G  6G  6G  6G  6G", "1B  1B  1B  1B  1B"])]


@pytest.fixture(scope="module")
def blue_game():
    return ref.load_game(patches=BLUE_NORWAY)


def blue_log(remove=True):
    log = finish_log()
    i = find(log, 1, 0, ROLL)
    if remove:   # five markers on blue: the rolled six goes back to the available dice
        log[i:i + 2] = [R(1, 0, ROLL, 0, 5, 4, 4, 4, 4, 6), R(1, 0, BLUE, 5, 0, 1),
                        R(1, 0, BOARD, 0, 0, 0, 4, 0, 0, 0, 0, 0, 6, 4)]
    else:        # the six kept in the sprint column
        log[i:i + 2] = [R(1, 0, ROLL, 0, 5, 4, 4, 4, 4, 6), R(1, 0, SIX, 0, 4),
                        R(1, 0, BOARD, 0, 0, 0, 4, 1, 0, 0, 0, 0, 5, 5)]
    return log


def test_blue_removal_log_is_accepted(blue_game):
    rep = ref.referee_race(blue_game, SETUP_SHORT, blue_log())
    assert rep.ok, rep.message
    assert rep.coverage["blue_removal"] == 1


def test_six_kept_although_markers_on_blue_remove_it(blue_game):
    refused(blue_game, SETUP_SHORT, blue_log(remove=False), "expected BLUE (blue removal)",
            "logged SIX")


def test_patch_by_name_as_in_sim_validation():
    game = ref.load_game(patches=[("courses.toml", "course[long].tiles", ["1a", "2a"])])
    assert dict(game.courses)["Long"] == ["1a", "2a"]


# -- collapse -------------------------------------------------------------------------------

# Row 1 has one space (white, lane 2): every move of three steps from behind the line enters it.
NARROW = [
    ("courses.toml", "course.0.tiles", ["1a", "2a"]),
    ("tiles.toml", "tile.0.a.rows", [". . .", "- W -"]),
    ("tiles.toml", "tile.1.a.rows", [". . ."]),
    ("nations/norway.toml", "stamina.slots", ["6G  6G  6G  6G  6G", "1B  1B  1B  1B  1B"]),
]
SETUP_NARROW = dict(course="Starter", nations=["Germany", "Norway"], variant="standard",
                    rules={"round_cap": 1})


def collapse_log(last=None):
    log = [R(0, -1, RACE, 0, 2, 0, 1, 1, 3, 0),
           R(0, 0, SEAT, GERMANY, 0, 0), R(0, 1, SEAT, NORWAY, 1, 0),
           R(0, 0, WAXROW, 2, 3, 4, 5, 6, 0), R(0, 1, WAXROW, 5, 1, 2, 3, 4, 0),
           R(1, -1, ROUND, 1, 0),
           R(1, 0, ROLL, 0, 5, 2, 2, 3, 3, 4), R(1, 0, BOARD, 0, 2, 2, 1, 0, 0, 0, 0, 0, 5, 5),
           R(1, 1, ROLL, 0, 5, 3, 3, 3, 1, 1), R(1, 1, BOARD, 2, 0, 3, 0, 0, 0, 0, 0, 0, 5, 5),
           R(1, 0, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 0, TAKE, 1, 0, 0, 0, 2, 0),
           R(1, 0, COUNT, 2, 0, 0, 0, 0, 2, 0),
           R(1, 0, STEP, 0, 3, 0, 1, 0, 0, 0), R(1, 0, STEP, 0, 0, 1, 1, 0, 0, 0),
           R(1, 1, TURN, 0, -1, 0, 0, 0, 0, 0), R(1, 1, TAKE, 2, 0, 0, 0, 3, 0),
           R(1, 1, COUNT, 3, 0, 0, 0, 0, 3, 0),
           R(1, 1, STEP, 0, 3, 0, 1, 0, 0, 0)]
    # the second step must enter Germany's space: a forced payment, every marker on blue
    log += last or [R(1, 1, STEP, 0, 0, 1, 1, 1, 1, 0), R(1, 1, COLLAPSE, 3)]
    log += [R(1, -1, END, 1, 1, -1)]
    return log


@pytest.fixture(scope="module")
def narrow_game():
    return ref.load_game(patches=NARROW)


def test_collapse_log_is_accepted(narrow_game):
    rep = ref.referee_race(narrow_game, SETUP_NARROW, collapse_log())
    assert rep.ok, rep.message
    assert rep.coverage["collapse"] == 1


def test_payment_logged_where_the_racer_must_collapse(narrow_game):
    log = collapse_log([R(1, 1, STEP, 0, 0, 1, 1, 1, 1, 0), R(1, 1, PAY, 0, 1, 3, 1)])
    refused(narrow_game, SETUP_NARROW, log, "expected COLLAPSE")


def test_occupied_space_entered_without_paying(narrow_game):
    log = collapse_log([R(1, 1, STEP, 0, 0, 1, 1, 1, 0, 0)])
    refused(narrow_game, SETUP_NARROW, log, "step into (1, 1)", "paid 1")
