"""Ski Tour: Biathlon: the rulebook's worked examples and the rules of the preparation phase, the
column step, stamina and the penalty table, played by the kernel's rule functions.

Each example is set up as the book describes it (docs/skitour/rules.md says how the pictures that
did not survive were reconstructed). Faces and decisions are arguments: no dice are rolled here.
"""
import numpy as np
import pytest

from kernels.jit import python_callable
from kernels.skitour import consts as C
from kernels.skitour import rules as R
from sim.skitour import load_bundle

roll_count = python_callable(R.roll_count_nb)
place_roll = python_callable(R.place_roll_nb)
six_legal = python_callable(R.six_place_legal_nb)
take_column = python_callable(R.take_column_nb)
take_dice = python_callable(R.take_dice_nb)
pay_stamina = python_callable(R.pay_stamina_nb)
on_blue = python_callable(R.markers_on_blue_nb)
move_count = python_callable(R.move_count_nb)
penalty_laps = python_callable(R.penalty_laps_nb)
shot_die = python_callable(R.shot_die_nb)
is_hit = python_callable(R.is_hit_nb)
lift_one = python_callable(R.lift_one_nb)
lift_all = python_callable(R.lift_all_nb)

NONE = np.zeros(0, np.int64)
NO_FLIPS = np.zeros(4, np.int64)
AUTO = -1


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


@pytest.fixture(scope="module")
def unbalanced():
    """The set shipped before issue 31's balance search (example skitour-unbalanced): its Finland
    has the uneven columns and the three-way tie at the top that the rule tests below need."""
    return load_bundle("skitour-unbalanced")


def nation(bundle, name):
    """The nation's rows of the tables, as the kernel would index them."""
    t, i = bundle.tables, bundle.nation_id(name)
    return dict(capacity=t.capacity[i], full_at=t.full_at[i], box=t.box[i],
                sprint=int(t.sprint_capacity[i]), slot_value=t.slot_value[i], slot_die=t.slot_die[i],
                n_slots=t.n_slots[i])


def board(cols=(0, 0, 0, 0), sprint=0, stars=(0, 0, 0, 0), available=None, race_dice=10):
    b = np.zeros(C.N_BOARD, np.int64)
    b[C.B_COL:C.B_COL + 4] = cols
    b[C.B_SPRINT] = sprint
    b[C.B_STAR:C.B_STAR + 4] = stars
    b[C.B_AVAILABLE] = race_dice - sum(cols) - sprint - sum(stars) if available is None else available
    return b


def dice_on(b):
    return int(b[:C.B_AVAILABLE].sum())


def place(b, faces, six_dest=(), nat=None, blue=0):
    return place_roll(b, np.array(faces, np.int64), np.array(list(six_dest) or [C.SIX_SPRINT], np.int64),
                      nat["capacity"], nat["sprint"], blue)


# --- the book's example of the preparation phase -----------------------------------------------

def tobias_board():
    """Tobias has 7 available dice of 10, so 3 are on his board. The book's result fixes them: the
    5 goes "above the 3s" although column 1 gets two dice (a tie of 2 and 2, broken towards the
    higher number), and the 6 may go to the sprint column or the star box above the 1s, not above
    the 3s: so column 3 holds two 3s and its star box already a 6."""
    return board(cols=(0, 0, 2, 0), stars=(0, 0, 1, 0))


@pytest.mark.parametrize("choice", ["sprint", "star box above the 1s"])
def test_tobias_roll(bundle, choice):
    nat = nation(bundle, "Norway")
    b = tobias_board()
    assert b[C.B_AVAILABLE] == 7
    assert roll_count(7) == 4                                   # half of 7, rounded up
    faces = [1, 1, 5, 6]
    # where may the 6 go once the 1s and the 5 are placed? sprint, or the box above the 1s only
    after_1s_and_5 = board(cols=(2, 0, 3, 0), stars=(0, 0, 1, 0))
    legal = [d for d in range(5) if six_legal(after_1s_and_5, d, nat["sprint"])]
    assert legal == [0, C.SIX_SPRINT]
    dest = C.SIX_SPRINT if choice == "sprint" else 0
    placed = place(b, faces, [dest], nat)
    assert placed == 4
    assert list(b[C.B_COL:C.B_COL + 4]) == [2, 0, 3, 0]       # two 1s; the 5 above the 3s
    if choice == "sprint":                                     # what Tobias did
        assert b[C.B_SPRINT] == 1 and list(b[C.B_STAR:C.B_STAR + 4]) == [0, 0, 1, 0]
    else:
        assert b[C.B_SPRINT] == 0 and list(b[C.B_STAR:C.B_STAR + 4]) == [1, 0, 1, 0]
    assert b[C.B_AVAILABLE] == 3 and dice_on(b) == 7


def test_six_may_not_go_to_an_occupied_box_or_above_an_empty_column(bundle):
    nat = nation(bundle, "Norway")
    with pytest.raises(ValueError):
        place(tobias_board(), [1, 1, 5, 6], [2], nat)           # the box above the 3s is taken
    with pytest.raises(ValueError):
        place(tobias_board(), [1, 1, 5, 6], [1], nat)           # column 2 holds no dice


# --- the book's example of the race phase ------------------------------------------------------

def hanna_board():
    """Column 2 is not full (three 2s) and has a 6 in its star box; column 4 holds two dice. The
    picture is lost; these counts give the book's total of 5 (3 + 2)."""
    return board(cols=(1, 3, 0, 2), stars=(0, 1, 0, 0))


def test_hanna_turn(bundle):
    nat = nation(bundle, "Norway")
    b = hanna_board()
    avail = b[C.B_AVAILABLE]
    markers = np.ones(5, np.int64)                               # a short race: second-top slots
    status, dice, sprint, traded, paid = take_dice(
        b, markers, 1, np.array([3]), 0, NO_FLIPS, nat["full_at"], nat["box"], nat["slot_value"],
        nat["n_slots"], False, 0, C.RANGE_PAY_HIGHEST_UNSHOT, np.array([AUTO]))
    assert status == C.TAKE_OK
    assert dice == 5                                             # 3 from column 2 + 2 from column 4
    assert (sprint, traded, paid) == (0, 0, 1)
    assert list(markers) == [2, 1, 1, 1, 1]                      # the highest value pays; ties: leftmost
    assert list(b[:C.B_AVAILABLE]) == [1, 0, 0, 0, 0, 0, 0, 0, 0]   # the 6 left the box ...
    assert b[C.B_AVAILABLE] == avail + 3 + 1 + 2                # ... back to the available dice


def test_hanna_column_2_alone_sends_the_six_back(bundle):
    nat = nation(bundle, "Norway")
    b = hanna_board()
    dice, six = take_column(b, 1, nat["full_at"], nat["box"], False)
    assert (dice, six) == (3, C.SIX_RETURNED)


def test_hanna_on_austria_column_2_is_full_at_three(bundle):
    """The same turn on Austria, whose column 2 counts as full at three dice: the 6 counts."""
    nat = nation(bundle, "Austria")
    assert nat["full_at"][1] == 3
    b = hanna_board()
    markers = np.ones(5, np.int64)
    status, dice, *_ = take_dice(
        b, markers, 1, np.array([3]), 0, NO_FLIPS, nat["full_at"], nat["box"], nat["slot_value"],
        nat["n_slots"], False, 0, C.RANGE_PAY_HIGHEST_UNSHOT, np.array([AUTO]))
    assert status == C.TAKE_OK and dice == 6


# --- more of the preparation phase -----------------------------------------------------------

def test_fives_go_to_column_4_when_all_are_empty(bundle):
    nat = nation(bundle, "Norway")
    b = board()
    assert place(b, [5, 5, 5, 5, 5], nat=nat) == 4             # the fifth 5 finds column 4 full
    assert list(b[:4]) == [0, 0, 0, 4] and b[C.B_AVAILABLE] == 6


def test_five_has_no_place_when_the_fullest_column_is_full(bundle):
    nat = nation(bundle, "Norway")
    b = board(cols=(4, 3, 0, 0))
    assert place(b, [5], nat=nat) == 0                          # not redirected to column 2
    assert list(b[:4]) == [4, 3, 0, 0]


def test_number_into_a_full_column_goes_back(bundle):
    nat = nation(bundle, "Norway")
    b = board(cols=(0, 4, 0, 0))
    assert place(b, [2, 3], nat=nat) == 1
    assert list(b[:4]) == [0, 4, 1, 0]


def test_ones_are_placed_before_fives(bundle):
    """Rolled numbers are placed first, so they count when a 5 looks for the fullest column."""
    nat = nation(bundle, "Norway")
    b = board(cols=(0, 0, 0, 1))
    place(b, [5, 1, 1], nat=nat)
    assert list(b[:4]) == [3, 0, 0, 1]


def test_blue_markers_remove_fives_first_then_sixes(bundle):
    nat = nation(bundle, "Norway")
    markers = np.array([5, 5, 1, 1, 1])                          # two markers on blue (slot 6 of 6)
    blue = on_blue(markers, nat["n_slots"])
    assert blue == 2
    b = board(cols=(1, 0, 0, 0))
    placed = place(b, [5, 6, 6, 2], [C.SIX_SPRINT], nat, blue)
    assert placed == 2                                           # the 5 and one 6 went back
    assert list(b[:5]) == [1, 1, 0, 0, 1] and b[C.B_AVAILABLE] == 10 - 3


def test_six_with_no_legal_place_goes_back(bundle):
    nat = nation(bundle, "USA")                                 # a sprint column of 3 slots
    b = board(sprint=3)
    assert place(b, [6], [C.SIX_SPRINT], nat) == 0              # sprint full, no column holds dice
    assert b[C.B_SPRINT] == 3 and b[C.B_AVAILABLE] == 7


def test_roll_count_is_half_rounded_up():
    assert [roll_count(n) for n in range(11)] == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_reroll_lifts_dice_back_to_the_available_dice():
    b = board(cols=(1, 2, 0, 0), sprint=1, stars=(1, 0, 0, 0))
    assert lift_one(b, C.B_STAR + 0) == 1 and b[C.B_STAR] == 0 and b[C.B_AVAILABLE] == 6
    assert lift_one(b, 2) == 0                                   # column 3 is empty
    assert lift_all(b) == 4 and dice_on(b) == 0 and b[C.B_AVAILABLE] == 10


# --- more of the column step ------------------------------------------------------------------

def run_take(nat, b, markers, first, extras=(), free=0, flips=NO_FLIPS, at_range=False, shots=0,
             mode=C.RANGE_PAY_HIGHEST_UNSHOT, choice=None):
    extras = np.array(extras, np.int64)
    choice = np.array(choice if choice is not None else [AUTO] * len(extras), np.int64)
    return take_dice(b, markers, first, extras, free, np.array(flips, np.int64), nat["full_at"], nat["box"],
                     nat["slot_value"], nat["n_slots"], at_range, shots, mode, choice)


def test_empty_first_column_only_when_all_are_empty(bundle):
    nat = nation(bundle, "Norway")
    m = np.zeros(5, np.int64)
    assert run_take(nat, board(cols=(0, 1, 0, 0)), m, 0)[0] == C.TAKE_ILLEGAL_FIRST
    b = board(sprint=2)
    status, dice, sprint, _, paid = run_take(nat, b, m, 0, [C.PICK_SPRINT])
    assert (status, dice, sprint, paid) == (C.TAKE_OK, 2, 1, 1)


def test_full_column_takes_its_star_six(bundle):
    nat = nation(bundle, "Norway")
    b = board(cols=(0, 0, 4, 0), stars=(0, 0, 1, 0))
    assert take_column(b, 2, nat["full_at"], nat["box"], False) == (5, C.SIX_TAKEN)


def test_flip_box_trades_the_six_for_a_token(bundle):
    nat = nation(bundle, "Italy")                                # a flip box above column 1
    assert nat["box"][0] == C.BOX_FLIP
    b = board(cols=(4, 0, 0, 0), stars=(1, 0, 0, 0))
    assert take_column(b, 0, nat["full_at"], nat["box"], True) == (4, C.SIX_FLIPPED)
    b = board(cols=(4, 0, 0, 0), stars=(1, 0, 0, 0))
    assert take_column(b, 0, nat["full_at"], nat["box"], False) == (5, C.SIX_TAKEN)


def test_extra_columns_must_hold_dice_and_differ(bundle):
    nat = nation(bundle, "Norway")
    m = np.zeros(5, np.int64)
    b = board(cols=(1, 1, 0, 0))
    assert run_take(nat, b, m, 0, [2])[0] == C.TAKE_ILLEGAL_EXTRA     # empty
    assert run_take(nat, b, m, 0, [0])[0] == C.TAKE_ILLEGAL_EXTRA     # the first column again
    assert run_take(nat, b, m, 0, [1, 1])[0] == C.TAKE_ILLEGAL_EXTRA  # twice
    assert list(m) == [0] * 5 and dice_on(b) == 2


def test_free_column_from_a_wax_token_costs_no_stamina(bundle):
    nat = nation(bundle, "Norway")
    m = np.zeros(5, np.int64)
    status, dice, _, _, paid = run_take(nat, board(cols=(1, 1, 1, 0)), m, 0, [1, 2], free=1)
    assert (status, dice, paid) == (C.TAKE_OK, 3, 1) and list(m) == [1, 0, 0, 0, 0]


def test_extra_column_refused_when_every_marker_is_blue(bundle):
    nat = nation(bundle, "Norway")
    m = np.full(5, 5, np.int64)
    b = board(cols=(1, 1, 0, 0))
    assert run_take(nat, b, m, 0, [1])[0] == C.TAKE_REFUSED
    assert list(b[:4]) == [1, 1, 0, 0] and list(m) == [5] * 5


def test_a_refused_second_payment_undoes_the_first(bundle):
    """Two extra columns, stamina for one: the first payment is made, the second refused, and
    the turn changes nothing (the kernel pays in place and takes the first payment back)."""
    nat = nation(bundle, "Norway")
    m = np.full(5, 5, np.int64)                                  # every column on blue ...
    m[2] = nat["n_slots"][2] - 2                                 # ... but one payment in column 3
    before = m.copy()
    b = board(cols=(1, 1, 1, 0))
    assert run_take(nat, b, m, 0, [1, 2])[0] == C.TAKE_REFUSED
    assert list(m) == list(before) and list(b[:4]) == [1, 1, 1, 0]
    assert run_take(nat, b, m, 0, [1])[0] == C.TAKE_OK and m[2] == before[2] + 1


# --- stamina ----------------------------------------------------------------------------------

def pay(nat, m, at_range=False, shots=0, mode=C.RANGE_PAY_HIGHEST_UNSHOT, choice=AUTO, forced=False):
    return pay_stamina(m, nat["slot_value"], nat["n_slots"], at_range, shots, mode, choice, forced)


def test_stamina_pays_from_the_highest_value(bundle):
    nat = nation(bundle, "Norway")
    m = np.array([2, 1, 3, 1, 1])
    assert pay(nat, m) == 1 and list(m) == [2, 2, 3, 1, 1]


def test_stamina_at_the_range_pays_from_a_column_not_yet_shot(bundle):
    nat = nation(bundle, "Norway")
    m = np.array([0, 0, 2, 1, 1])
    assert pay(nat, m, at_range=True, shots=2) == 3            # columns 1-2 are shot; 3 is lower
    assert list(m) == [0, 0, 2, 2, 1]
    m = np.array([0, 0, 2, 1, 1])
    assert pay(nat, m, True, 2, C.RANGE_PAY_CHOICE, 4) == 4    # the "choice" switch
    with pytest.raises(ValueError):
        pay(nat, np.array([0, 0, 2, 1, 1]), True, 2, C.RANGE_PAY_CHOICE, 0)


def test_stamina_at_the_range_refused_when_unshot_columns_are_blue(bundle):
    nat = nation(bundle, "Norway")
    m = np.array([0, 0, 0, 5, 5])
    assert pay(nat, m, at_range=True, shots=3) == C.PAY_REFUSED and list(m) == [0, 0, 0, 5, 5]


def test_collapse_when_forced_to_pay_with_every_marker_blue(bundle):
    nat = nation(bundle, "Norway")
    m = np.full(5, 5, np.int64)
    assert pay(nat, m, forced=True) == C.PAY_COLLAPSE
    assert pay(nat, m, forced=False) == C.PAY_REFUSED
    m = np.array([5, 5, 5, 5, 4])
    assert pay(nat, m, forced=True) == 4 and on_blue(m, nat["n_slots"]) == 5


def test_uneven_columns_pay_by_value_not_by_slot(unbalanced):
    """Finland's outer columns start one slot lower: equal slot index, lower value."""
    nat = nation(unbalanced, "Finland")
    assert list(nat["n_slots"]) == [5, 6, 6, 6, 5]
    m = np.zeros(5, np.int64)                                   # long race: every marker on its top
    assert pay(nat, m) == 1                                      # 6 beats the outer 5s; leftmost 6


# --- moves, shots and the penalty table -----------------------------------------------------------

def test_move_count():
    assert move_count(4, 0, 0, 0, False, 1) == 4
    assert move_count(4, 1, 0, 2, False, 1) == 7                # +1 token, sprint token with 2 sixes
    assert move_count(4, 0, 0, 0, True, 1) == 3                 # starting on red
    assert move_count(1, 0, 0, 0, True, 1) == 1                 # never below 1 by the uphill
    assert move_count(1, 0, 1, 0, False, 1) == 0                # the -1 token may leave nothing


def test_shot_uses_the_die_under_the_marker(bundle):
    nat = nation(bundle, "Norway")
    t = bundle.tables
    m = np.array([0, 2, 4, 5, 1])
    names = [bundle.die_names[shot_die(m, nat["slot_die"], k)] for k in range(5)]
    assert names == ["green", "yellow", "red", "blue", "green"]
    blue = bundle.die_id("blue")
    assert [is_hit(t.die_faces, blue, f) for f in range(6)] == [True, True, False, False, False, False]


@pytest.mark.parametrize("row,misses,laps", [
    ("0 misses: no lap", [0], 0),
    ("1-2 misses: one lap", [1, 2], 1),
    ("3-4 misses: two laps", [3, 4], 2),
    ("5 misses: three laps", [5], 3),
])
def test_penalty_table_row(bundle, row, misses, laps):
    for m in misses:
        assert penalty_laps(m, bundle.tables.penalty_laps) == laps, row


def test_every_placed_six_needs_a_decision(bundle):
    nat = nation(bundle, "Norway")
    b = board(cols=(1, 0, 0, 0))
    with pytest.raises(ValueError):
        place_roll(b, np.array([6, 6]), np.array([C.SIX_SPRINT]), nat["capacity"], nat["sprint"], 0)


def test_a_tie_for_the_highest_value_is_the_players_choice(unbalanced):
    """§4.2: the highest value pays; among equal highest markers the player picks (a `choice` that
    is one of them), and a choice that is not one of them changes nothing (the leftmost pays)."""
    nat = nation(unbalanced, "Finland")                         # long race: columns 2-4 tie at 6
    for choice, paid in ((3, 3), (2, 2), (AUTO, 1), (0, 1), (4, 1)):
        m = np.zeros(5, np.int64)
        assert pay(nat, m, choice=choice) == paid
        assert m[paid] == 1 and m.sum() == 1
    for choice, paid in ((1, 2), (3, 3)):                       # at the range after two shots:
        m = np.zeros(5, np.int64)                                # columns 3 and 4 tie, column 2
        assert pay(nat, m, at_range=True, shots=2, choice=choice) == paid   # is shot already
