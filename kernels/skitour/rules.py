"""Ski Tour: Biathlon rule functions: pure computations on a racer's board and stamina markers.

Chance is an input: every function takes the faces as rolled; a thin layer rolls them. Decisions
are inputs too (where a six goes, which columns to take). Section numbers (§) refer to
docs/skitour/rules.md, which every function follows.

Arrays (one racer):
- `board`: int[N_BOARD], packed as `consts.B_*`: dice in columns 1-4, in the sprint column, a six
  in each star box (0/1), and the available dice. Modified in place.
- `markers`: int[targets]: the slot index (0 = top) of the stamina marker of each stamina column.
- `slot_value`, `slot_die`: the racer's nation's rows of the tables (int[targets, max_slots]),
  `n_slots`: int[targets]; `capacity`, `full_at`, `box`: int[4] of the nation.

Columns are 0-based in code: column c holds the dice of the printed column c + 1.
"""
import numpy as np

from ..jit import inline
from kernels.nolit import unliteral_calls
from .consts import (
    B_AVAILABLE, B_COL, B_SPRINT, B_STAR, BOX_FLIP, FACE_HIT, N_COLUMNS, PAY_COLLAPSE, PAY_REFUSED,
    PICK_SPRINT, SIX_FLIPPED, SIX_NONE, SIX_RETURNED, SIX_SPRINT, SIX_TAKEN, TAKE_ILLEGAL_EXTRA,
    TAKE_ILLEGAL_FIRST, TAKE_OK, TAKE_REFUSED, RANGE_PAY_CHOICE,
)

# ---------------------------------------------------------------------------------------------
# Preparation phase (§3)
# ---------------------------------------------------------------------------------------------


@inline
def roll_count_nb(available):
    """Race dice to roll: half the available dice, rounded up (§3 step 1)."""
    return (available + 1) // 2


@inline
def markers_on_blue_nb(markers, n_slots):
    """Stamina markers on their column's lowest (blue) slot."""
    n = 0
    for c in range(markers.shape[0]):
        if markers[c] == n_slots[c] - 1:
            n += 1
    return n


@inline
def six_place_legal_nb(board, dest, sprint_capacity):
    """Can a six go to `dest` (SIX_SPRINT, or 0..3: the star box above column 1..4)? (§3 step 4)"""
    if dest == SIX_SPRINT:
        return board[B_SPRINT] < sprint_capacity
    if dest < 0 or dest >= N_COLUMNS:
        return False
    return board[B_STAR + dest] == 0 and board[B_COL + dest] > 0


@inline
def six_has_place_nb(board, sprint_capacity):
    for dest in range(N_COLUMNS + 1):
        if six_place_legal_nb(board, dest, sprint_capacity):
            return True
    return False


@inline
def five_column_nb(board):
    """The column a five goes to: the 1-4 column with the most dice, ties to the highest number
    (§3 step 3). Whether it has room is the caller's question."""
    best = N_COLUMNS - 1
    for c in range(N_COLUMNS - 2, -1, -1):
        if board[B_COL + c] > board[B_COL + best]:
            best = c
    return best


@inline
def place_roll_nb(board, faces, six_dest, capacity, sprint_capacity, on_blue):
    """Place a roll of race dice on the board, as the preparation phase does (§3).

    faces: int[n] rolled faces 1..6; the n dice are taken from the available dice here.
    six_dest: int[>= sixes]: for each six still to place after the blue removal, in roll order,
    SIX_SPRINT or a column 0..3 (its star box). A six with no legal place at all goes back
    whatever its entry says; an illegal choice while a legal place exists raises ValueError.
    on_blue: stamina markers on blue: that many fives, then sixes, go back before placing.
    Returns the number of dice placed; the others are back among the available dice.
    """
    n = faces.shape[0]
    board[B_AVAILABLE] -= n
    fives = 0
    sixes = 0
    for i in range(n):
        if faces[i] == 5:
            fives += 1
        elif faces[i] == 6:
            sixes += 1
    drop5 = min(on_blue, fives)
    drop6 = min(on_blue - drop5, sixes)
    fives -= drop5
    sixes -= drop6
    back = drop5 + drop6
    # step 2: each 1-4 to its own column, if it has room
    for i in range(n):
        f = faces[i]
        if 1 <= f <= 4:
            c = f - 1
            if board[B_COL + c] < capacity[c]:
                board[B_COL + c] += 1
            else:
                back += 1
    # step 3: each 5 to the column with the most dice (ties: highest number); none if it is full
    for _ in range(fives):
        c = five_column_nb(board)
        if board[B_COL + c] < capacity[c]:
            board[B_COL + c] += 1
        else:
            back += 1
    # step 4: each 6 to the sprint column or an empty star box above a column holding dice
    for k in range(sixes):
        if not six_has_place_nb(board, sprint_capacity):
            back += 1
            continue
        if k >= six_dest.shape[0]:
            raise ValueError("six_dest has fewer entries than sixes to place")
        dest = six_dest[k]
        if not six_place_legal_nb(board, dest, sprint_capacity):
            raise ValueError("illegal place for a six while a legal one exists")
        if dest == SIX_SPRINT:
            board[B_SPRINT] += 1
        else:
            board[B_STAR + dest] = 1
    board[B_AVAILABLE] += back
    return n - back


@inline
def lift_all_nb(board):
    """Every die on the board back to the available dice (a reroll of all, §10); returns the count."""
    n = 0
    for i in range(B_AVAILABLE):
        n += board[i]
        board[i] = 0
    board[B_AVAILABLE] += n
    return n


@inline
def lift_one_nb(board, where):
    """One die from the board back to the available dice (a reroll of one, §10): `where` is a
    column 0..3, PICK_SPRINT, or B_STAR + c for the six in the star box above column c. Returns
    1, or 0 if there is no die there."""
    if where < 0 or where >= B_AVAILABLE or board[where] == 0:
        return 0
    board[where] -= 1
    board[B_AVAILABLE] += 1
    return 1


# ---------------------------------------------------------------------------------------------
# Stamina (§4.2)
# ---------------------------------------------------------------------------------------------


@inline
def payment_column_nb(markers, slot_value, n_slots, at_range, shots_made, range_mode, choice):
    """The stamina column a payment comes from, or PAY_REFUSED if no column may pay.

    Away from a shooting turn: the column whose marker shows the highest value. On a shooting
    turn (`at_range`): only columns not yet shot with this visit (column index >= shots_made) and
    not on blue; the highest value, or with RANGE_PAY_CHOICE the player's `choice` if it is one of
    them. Where several columns share the highest value the player chooses (rules.md §4.2):
    `choice` if it is one of them, else the leftmost (choice = -1). Blue markers never pay: every
    bottom slot has the board's lowest value, so the highest marker is on blue only when all are.
    """
    if at_range and range_mode == RANGE_PAY_CHOICE and choice >= 0:
        if choice >= shots_made and choice < markers.shape[0] and markers[choice] < n_slots[choice] - 1:
            return choice
        raise ValueError("stamina payment: the chosen column may not pay")
    best = PAY_REFUSED
    for c in range(markers.shape[0]):
        if markers[c] >= n_slots[c] - 1:
            continue
        if at_range and c < shots_made:
            continue
        if best == PAY_REFUSED or slot_value[c, markers[c]] > slot_value[best, markers[best]]:
            best = c
    if best >= 0 and choice >= 0 and choice != best and choice < markers.shape[0]:
        ok = markers[choice] < n_slots[choice] - 1 and not (at_range and choice < shots_made)
        if ok and slot_value[choice, markers[choice]] == slot_value[best, markers[best]]:
            return choice
    return best


@inline
def pay_stamina_nb(markers, slot_value, n_slots, at_range, shots_made, range_mode, choice, forced):
    """Pay one stamina (§4.2): lower one marker by one slot and return its column.

    With every marker on blue, a forced payment (one the rules impose: entering an occupied
    space with no other way to move) returns PAY_COLLAPSE: the racer is out (§4.3). A voluntary
    payment that no column may make returns PAY_REFUSED and changes nothing: the action that
    needed it may not be taken.
    """
    c = payment_column_nb(markers, slot_value, n_slots, at_range, shots_made, range_mode, choice)
    if c == PAY_REFUSED:
        if forced and markers_on_blue_nb(markers, n_slots) == markers.shape[0]:
            return PAY_COLLAPSE
        return PAY_REFUSED
    markers[c] += 1
    return c


# ---------------------------------------------------------------------------------------------
# Race phase: taking columns (§4.1)
# ---------------------------------------------------------------------------------------------


@inline
def first_column_legal_nb(board, col):
    """May column `col` (0..3) be the turn's mandatory column? Not an empty one, unless every 1-4
    column is empty."""
    if col < 0 or col >= N_COLUMNS:
        return False
    if board[B_COL + col] > 0:
        return True
    for c in range(N_COLUMNS):
        if board[B_COL + c] > 0:
            return False
    return True


@inline
def take_column_nb(board, col, full_at, box, flip):
    """Take every die of column `col` (0..3) and settle its box's six (§4.1).

    A column holding at least `full_at[col]` dice is full: its box's six counts as one of the
    dice taken, except that a flip box (BOX_FLIP) with `flip` true trades it for flipping back a
    used wax token (the six goes back). A column that is not full sends its six back uncounted.
    Taken dice return to the available dice at once (only their number matters).
    Returns (dice counted, SIX_* outcome).
    """
    n = board[B_COL + col]
    six = board[B_STAR + col]
    board[B_COL + col] = 0
    board[B_STAR + col] = 0
    board[B_AVAILABLE] += n + six
    if six == 0:
        return n, SIX_NONE
    if n >= full_at[col]:
        if box[col] == BOX_FLIP and flip:
            return n, SIX_FLIPPED
        return n + 1, SIX_TAKEN
    return n, SIX_RETURNED


@inline
def take_sprint_nb(board):
    """Take every die of the sprint column; returns their number."""
    n = board[B_SPRINT]
    board[B_SPRINT] = 0
    board[B_AVAILABLE] += n
    return n


@inline
def take_dice_nb(board, markers, first, extras, free, flips, full_at, box, slot_value, n_slots,
                 at_range, shots_made, range_mode, pay_choice):
    """The column step of a turn (§4.1): the mandatory column, then the additional ones.

    first: column 0..3. extras: int[k]: additional picks (0..3 or PICK_SPRINT), each holding dice,
    none twice, none equal to `first`. free: additional columns paid by a wax token instead of
    stamina (the first `free` of `extras`). flips: int[4]: 1 to trade a full flip-box column's
    six for a token. pay_choice: int[k] column choices for RANGE_PAY_CHOICE (PAY_AUTO = -1).
    Stamina is paid per additional column (§4.2); if any payment is refused nothing changes.
    Returns (TAKE_* status, dice taken, 1 if the sprint column was taken, sixes traded for a
    token flip, stamina paid).
    """
    if not first_column_legal_nb(board, first):
        return TAKE_ILLEGAL_FIRST, 0, 0, 0, 0
    k = extras.shape[0]
    for i in range(k):
        e = extras[i]
        if e == first or e < 0 or e > PICK_SPRINT:
            return TAKE_ILLEGAL_EXTRA, 0, 0, 0, 0
        for j in range(i):
            if extras[j] == e:
                return TAKE_ILLEGAL_EXTRA, 0, 0, 0, 0
        held = board[B_SPRINT] if e == PICK_SPRINT else board[B_COL + e]
        if held == 0:
            return TAKE_ILLEGAL_EXTRA, 0, 0, 0, 0
    paying = max(k - free, 0)
    # paid in place, each column's count kept in 6 bits of `paid` to undo a refusal (no copy: the
    # race kernel allocates nothing, kernels/jit.py `entry_hot`); at most 4 extras are distinct
    if markers.shape[0] > 10 or paying > 63:
        raise ValueError("take_dice: more than 10 stamina columns or 63 payments")
    paid = 0
    for i in range(paying):
        c = pay_stamina_nb(markers, slot_value, n_slots, at_range, shots_made, range_mode,
                           pay_choice[free + i], False)
        if c < 0:
            for j in range(markers.shape[0]):
                markers[j] -= (paid >> (6 * j)) & 63
            return TAKE_REFUSED, 0, 0, 0, 0
        paid += 1 << (6 * c)
    dice, six = take_column_nb(board, first, full_at, box, flips[first] == 1)
    traded = 1 if six == SIX_FLIPPED else 0
    sprint = 0
    for i in range(k):
        e = extras[i]
        if e == PICK_SPRINT:
            dice += take_sprint_nb(board)
            sprint = 1
        else:
            n, six = take_column_nb(board, e, full_at, box, flips[e] == 1)
            dice += n
            if six == SIX_FLIPPED:
                traded += 1
    return TAKE_OK, dice, sprint, traded, paying


@inline
def move_count_nb(dice, plus, minus, sprint_moves, start_red, uphill_penalty):
    """Moves of a moving turn (§4.4, §5.2): dice taken with the wax +1/-1 (never below 0), plus
    the sprint token's moves, less the uphill penalty when the move starts on red (never below 1
    by that penalty)."""
    n = max(dice + plus - minus, 0) + sprint_moves
    if start_red and n > 1:
        n = max(n - uphill_penalty, 1)
    return n


# ---------------------------------------------------------------------------------------------
# Shooting and penalty laps (§4.5, §6)
# ---------------------------------------------------------------------------------------------


@inline
def shot_die_nb(markers, slot_die, target):
    """The shooting die (id) for a target: the colour under that stamina column's marker."""
    return slot_die[target, markers[target]]


@inline
def is_hit_nb(die_faces, die, face):
    """Is `face` (0-based face index) of die `die` a hit?"""
    return die_faces[die, face] == FACE_HIT


@inline
def penalty_laps_nb(misses, penalty_laps):
    """Penalty laps owed after the last shot of a visit (§6.2): `penalty_laps[misses]`; the book's
    table is 0 misses 0 laps, 1-2 one, 3-4 two, 5 three."""
    m = min(max(misses, 0), penalty_laps.shape[0] - 1)
    return np.int64(penalty_laps[m])


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
