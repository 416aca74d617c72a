"""The Ski Tour: Biathlon race kernel: plays a block of races and fills the seat and visit records.

Rules: docs/skitour/rules.md (section numbers §). Log: docs/skitour/event-log.md. Records:
docs/skitour/records.md.

Every die goes through `draw_nb` (scripted faces first, then the race's chance stream); every
decision through `kernels.skitour.players.choose_nb`. Each race owns its streams
(`seed_stream_nb(rng, seed, race, STREAM_CHANCE)` and `STREAM_PLAYER`), so a race's records do
not depend on the block it was played in. The state is one int32 table `st[seat, S_*]`; the
tables and work arrays travel as two NamedTuples of borrowed views (kernels/borrow.py).

How it compiles (kernels/jit.py): every helper is `inline` (compiled once, inlined by LLVM) or,
where it runs rarely or searches, outlined; and every helper is compiled for the plain types of
its arguments, not once per constant or integer width a caller passes (kernels/nolit.py). The
parts of a turn that have one caller each (turn_nb, wax_row_nb, column_step_nb, move_nb,
best_first_step_nb, drafting_nb, shot_nb, shooting_done_nb) were `splice`d into the entry point
at numba's IR level until 2026-11-29: with kernels/numba_patches.py's patch 2 (helpers optimised
only at the entry point) that saved nothing, and it made the entry point one function so large
that LLVM's function passes on it took 12.9 CPU s, superlinear in its size; as `inline`
functions, 1.3 s (the race kernel's first compile, checked as CI compiles it: 36 against 52 CPU s,
benchmarks/compile_time.py skitour race, one after the other, the same tables). Only prepare_nb (four lines) is
spliced.
The entry point allocates nothing and is compiled without reference counting (`entry_hot`), so a
helper that allocates would not compile here.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kernels.arrays import copy1_nb, copy2_nb
from kernels.borrow import borrow_nb
from kernels.jit import entry_hot, inline, outline, outline_hot, splice
from kernels.nolit import unliteral_calls
from kernels.rng import STREAM_CHANCE, STREAM_PLAYER, below_nb, mix64_nb, seed_stream_nb

from .consts import (
    B_AVAILABLE, B_COL, B_SPRINT, B_STAR, BOX_FLIP, COLLAPSED, EV_ARRIVE, EV_BLUE, EV_BOARD,
    EV_BONUS, EV_COLLAPSE, EV_COUNT, EV_DRAFT, EV_END, EV_FINISH, EV_FLIPBACK, EV_LAP, EV_LAPS,
    EV_LIFT, EV_PAY, EV_RACE, EV_RESHOT, EV_ROLL, EV_ROUND, EV_SEAT, EV_SHOT, EV_SIX, EV_STEP,
    EV_TAKE, EV_TURN, EV_WAX, EV_WAXROW, FINISHED, MOMENT_A, MOMENT_B, MOMENT_C,
    N_COLUMNS, NO_WAX, PAY_BONUS, PAY_COLLAPSE, PAY_DRAFT, PAY_EXTRA, PAY_MOVE, PAY_REFUSED,
    PAY_TOKEN, PHASE_BONUS, PHASE_DRAFT, PHASE_MOVE, PICK_SPRINT, PLAYER_LOOKAHEAD, PLAYER_RANDOM,
    PLAYER_REFERENCE,
    R_COLLAPSE_ANY, R_DIAGONAL_IS_SIDEWAYS, R_FIRST_PLAYER, R_RESHOT_SCOPE, R_SPRINT_ICON_COLUMN, R_TWO_PLAYER_SEATS,
    FIRST_DRAWN, RESHOT_VISIT, SEATS_TOGETHER, STREAM_FIRST,
    R_DOWNHILL_MOVES, R_DOWNHILL_PASSES, R_DRAFT_FOLLOWS_BONUS, R_DRAFTER_BONUS, R_LANES,
    R_RACE_DICE, R_RANGE_PAYMENT, R_REROLL_BLUE_REMOVAL, R_ROUND_CAP, R_TARGETS, R_UPHILL_PENALTY,
    R_WAX_ROW, R_WAX_TOKENS, RACING, RANGE_PAY_CHOICE, ROLL_ALL, ROLL_ONE, ROLL_PREP, SIX_SPRINT,
    SPACE_GREEN, SPACE_NONE, SPACE_RED, SPACE_SHOOT, SPACE_WHITE, STEP_DIAG, STEP_ENTRY,
    STEP_FINISH, STEP_FORWARD, STEP_SIDE, TAKE_OK, TARGET_HIT, TARGET_MISS, TARGET_OPEN,
    VARIANT_TWO_PLAYER, WAX_ALL, WAX_FREE_COLUMN, WAX_MINUS_ONE, WAX_ONE_OF, WAX_PLUS_ONE,
    WAX_REROLL_ALL, WAX_REROLL_ONE, WAX_REROLL_SHOT, WAX_SPRINT, WAX_STAMINA,
)
from .players import (
    P_BONUS, P_DRAFT_PAY, P_EXTRA_MIN, P_FLIP, P_GREEN, P_OCCUPIED, P_RANGE_EXTRA, P_RED,
    P_ICON_FREE, P_ICON_REROLL_ALL, P_ICON_REROLL_ONE, P_ICON_SHOT, P_ICON_STAMINA, P_PLAN,
    P_TIE_RIGHT,
    P_RESERVE, P_SIX_BOX, P_SIX_SPRINT, P_SPRINT_MIN, P_TOKEN, P_WAX_PRICE, choose_nb,
    P_CONFIDENCE, P_DECISIONS, P_HORIZON, P_PLACE_CREDIT, P_ROLLOUTS, P_PACE, P_EXTRA_SURPLUS,
    P_STAMINA_SURPLUS, P_FIRST_WASTE, P_PACE_SHARE, P_FIRST_HIGH, P_STAMINA_ROWS, P_STAMINA_CAP,
    P_DRAFT_SPOT, P_LOOK_EXTRA, P_LOOK_FIRST, P_DRAFT_NEXT, P_BONUS_STAY,
    P_LAST_SPEND, P_OCCUPIED_CUT,
)
from .rules import (
    first_column_legal_nb, five_column_nb, is_hit_nb, lift_all_nb, lift_one_nb, markers_on_blue_nb,
    move_count_nb, pay_stamina_nb, payment_column_nb, penalty_laps_nb, place_roll_nb, roll_count_nb,
    shot_die_nb, six_has_place_nb, six_place_legal_nb, take_dice_nb,
)

# --- sizes ---------------------------------------------------------------------------------------
MAX_TARGETS = 10
MAX_ROW = 16
MAX_K = 40           # most steps one move may ask for (checked)
MAX_TRAIL = 64
LOOK_NODES = 3000    # steps the look-ahead player's move search visits at most
MAX_SEARCHED = 16    # decisions of one turn the strength reference searches at most
MAX_ROLLOUTS = 256   # rollouts per option at most
SEARCH_POINT = -2    # a rollout's scripted decision: SEARCH_POINT the heuristic's own pick,
                     # SEARCH_POINT - 1 - k option k; then sampled dice
KEY = np.uint64(0x9E3779B97F4A7C15)
KEY2 = np.uint64(0x632BE59BD9B4E019)
KEY_ROUND = np.uint64(0xD1B54A32D192ED03)
KEY_SEAT = np.uint64(0x8CB92BA72F3D8DD7)
KEY_DECISION = np.uint64(0xA0761D6478BD642F)

# --- the state table st[seat, S_*] ----------------------------------------------------------------
S_BOARD = 0          # 0..9: the board, packed as consts.B_*
S_MK = 10            # stamina markers (slot index, 0 = the column's first slot)
S_TG = 20            # targets: TARGET_OPEN / HIT / MISS
S_TD = 30            # the die each target was shot with (for reroll_shot)
S_WR = 40            # wax row: token ids, left to right
S_WLO = 56           # the face-up block is wr[lo .. hi] (empty when lo > hi)
S_WHI = 57
S_NAT = 58
S_SIDE = 59          # the player side (team)
S_PLAYER = 60        # index into the players' kinds and weights
S_STATUS = 61        # RACING / FINISHED / COLLAPSED
S_ROW = 62           # -1 behind the start line; n_rows across the finish line
S_LANE = 63
S_SHOTS = 64         # shots made at this range visit
S_LAPS = 65          # penalty laps still owed
S_LAPMV = 66         # moves made towards the current lap
S_INLANE = 67        # 1 while in the penalty lane
S_DONE = 68          # 1 once the visit's last shot is made
S_VISIT = 69         # range visits so far
S_VROW = 70          # row of the current visit record
S_PLACE = 71
S_TLEN = 72          # steps of this racer's trail this turn-chain
S_SROW = 73          # where its move (or follow) started
S_SLANE = 74
S_MOVED = 75         # 1 once it moved in the current chain (leader or drafter)
C_STAMINA = 76
C_COLLAPSE_ROUND = 77
C_FINISH_ROUND = 78
C_TURNS = 79
C_MOVES = 80
C_EXTRA = 81
C_SPRINT_TAKEN = 82
C_SPRINT_USES = 83
C_OCC = 84
C_DRAFTS = 85
C_DRAFT_STEPS = 86
C_BONUSES = 87
C_BONUS_STEPS = 88
C_WAX = 89           # 89..96: icons used, by bit index
C_WAX_TOKENS = 97
C_PRINTED = 98
C_FLIPS = 99
C_SHOTS = 100
C_HITS = 101
C_LAPS = 102
C_LAPS_R = 103       # 103..106
V_TURNS = 107
V_PAID = 108
V_RESHOTS = 109
V_LEAVE = 110
S_N = 111

# --- turn variables tv[TV_*] ----------------------------------------------------------------------
TV_ROWUSED = 0
TV_PRINTUSED = 1
TV_PLUS = 2
TV_MINUS = 3
TV_SPRINT = 4
TV_SPRINTMV = 5
TV_FREE = 6
TV_SHOOTING = 7
TV_FIRST_SHOT = 8
TV_SEAT = 9
TV_ROUND = 10
TV_STAMP = 11
TV_NEXT_PLACE = 12
TV_OVER = 13          # two-player race decided
TV_WINNER = 14
TV_LAST_RANGE_SEAT = 15
TV_DICE = 16          # dice taken this turn, once the column step is done (-1 before it)
TV_FIRST = 17         # the seat that opened this round (the first player marker's holder)
TV_PLAN = 18          # 18..20: this turn's memo stamp of the planned move's values (move_value_nb)
                      # for each of the three costs of a paid entry (OCC_*); 0: none yet
TV_NEED = 21          # this turn's memo stamp of need_nb's searches; 0: none yet
TV_N = 22

# --- counters ct[CT_*] ----------------------------------------------------------------------------
CT_LOG_N = 0
CT_LOG_OVERFLOW = 1
CT_SCRIPT = 2
CT_VISITS = 3
CT_SAMPLE = 4        # a rollout's own chance seed, taken up at its search point
CT_NOPT = 5          # options of the decision a rollout searched (0: the turn had none left)
CT_ROLLOUTS = 6      # rollouts played (the race board's count: the strength reference's budget)
CT_HPICK = 7         # the option the heuristic picks at a rollout's searched decision
CT_DKIND = 8         # the kind (DK_*) of the decision a rollout searched
CT_SEARCH = 9        # CT_SEARCH + SEARCH_STATS * DK_*: the strength reference's searched decisions
                     # of each kind: searched, changed from the heuristic's pick, changed to the
                     # first option (stop / no token / decline) from another, from the first to
                     # another (benchmarks/skitour_reference_decisions.py)
SEARCH_STATS = 4
# the decision kinds (the pick_nb call sites)
DK_PAY = 0           # the column a range payment comes from (range_payment = choice)
DK_SIX = 1           # where a six goes
DK_STEP = 2          # a step of the own move
DK_BONUS = 3         # a downhill bonus step (or stop)
DK_DRAFT = 4         # drafting: decline or follow
DK_LIFT = 5          # reroll_one's die
DK_RESHOT = 6        # reroll_shot's shot
DK_WAX = 7           # a wax moment: no token or which token (and action)
DK_FIRST = 8         # the mandatory column
DK_EXTRA = 9         # an additional column (or stop)
DK_FLIP = 10         # a flip box: count the six or trade it
DK_FLIPBACK = 11     # which used token a flip trade turns face up
N_DK = 12
DK_NAMES = ("range payment column", "six", "step", "bonus step", "draft", "reroll_one die",
            "reroll_shot shot", "wax moment", "mandatory column", "additional column", "flip box",
            "flip-back token")
CT_N = CT_SEARCH + SEARCH_STATS * N_DK

# --- set-up su[SU_*] ------------------------------------------------------------------------------
SU_N = 0             # racers
SU_VARIANT = 1
SU_COURSE = 2
SU_START_SLOT = 3
SU_LOG = 4
SU_ROWS = 5
SU_RANGES = 6
SU_INIT = 7          # 1: overwrite the set-up state from `init` (tests)
SU_LAST_RANGE_ROW = 8
SU_LEN = 9

# --- course table crs[row, CR_*] ------------------------------------------------------------------
CR_FREE = 0          # 1: entering an occupied space is free (start tile)
CR_PEN = 1           # moves per penalty lap (shooting rows)
CR_RANGE = 2         # range index of a shooting row, else -1
CR_SPACE = 3         # 3 .. 3 + lanes - 1: space kinds


class Tab(NamedTuple):
    rl: np.ndarray
    pen: np.ndarray
    dief: np.ndarray
    dien: np.ndarray
    sv: np.ndarray
    sd: np.ndarray
    ns: np.ndarray
    cap: np.ndarray
    fat: np.ndarray
    bx: np.ndarray
    spc: np.ndarray
    wi: np.ndarray
    wm: np.ndarray
    pi: np.ndarray
    pm: np.ndarray
    crs: np.ndarray
    su: np.ndarray
    pk: np.ndarray
    pw: np.ndarray


class Work(NamedTuple):
    st: np.ndarray       # int32[n, S_N]
    tv: np.ndarray       # int32[TV_N]
    ct: np.ndarray       # int64[CT_N]
    rng: np.ndarray      # uint64[1]
    prng: np.ndarray     # uint64[1]
    script: np.ndarray   # int64[k]: scripted die faces (0-based indices)
    dsc: np.ndarray      # int64[n, m]: scripted decisions
    dsi: np.ndarray      # int64[n]
    log: np.ndarray      # int16[rows, LOG_COLS]
    memo: np.ndarray     # int32[rows + 2, lanes, 2, MAX_K + 1]
    stk: np.ndarray      # int32[MAX_K + 2, 5]
    trail: np.ndarray    # int32[n, MAX_TRAIL, 2]
    opt: np.ndarray      # int32[MAX_OPTIONS, 4]
    sc: np.ndarray       # float64[MAX_OPTIONS]
    fb: np.ndarray       # int64[48]: faces and small lists
    tmp: np.ndarray      # int32[32]: trial markers and lists
    q: np.ndarray        # int32[64]: the drafting queue
    visits: np.ndarray   # VISIT records
    lk: np.ndarray       # int32[MAX_K + 2, 7]: the move searches' stack
    lv: np.ndarray       # float64[MAX_K + 2]: their path values
    dv: np.ndarray       # float64[rows + 2, lanes, 2, MAX_K + 1]: best value of the rest of a move
    ds: np.ndarray       # int32[same]: the stamp under which dv holds (as memo)
    sx: np.ndarray       # int64[5, 8]: the step options from one space (steps_out_nb)


# =================================================================================================
# chance, log, small helpers
# =================================================================================================
@inline
def draw_nb(W, n):
    """A face index in [0, n): the next scripted face while the script lasts, then the stream."""
    i = W.ct[CT_SCRIPT]
    if i < W.script.shape[0]:
        W.ct[CT_SCRIPT] = i + 1
        f = W.script[i]
        if f < 0 or f >= n:
            raise ValueError("scripted die face out of range for this die")
        return f
    return below_nb(W.rng, n)


@inline
def ev_nb(T, W, seat, kind, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):
    if T.su[SU_LOG] != 0:
        i = np.int64
        ev_write_nb(W.log, W.ct, i(W.tv[TV_ROUND]), i(seat), i(kind), i(a0), i(a1), i(a2), i(a3), i(a4),
                    i(a5), i(a6), i(a7), i(a8), i(a9), i(a10), i(a11), i(a12))


@outline
def ev_write_nb(log, ct, rnd, seat, kind, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):
    """One row of the event log: its only writer, one compiled copy (int64 arguments: one signature),
    called only where the race is logged."""
    i = ct[CT_LOG_N]
    if i >= log.shape[0]:
        ct[CT_LOG_OVERFLOW] = 1
        return
    log[i, 0] = rnd
    log[i, 1] = seat
    log[i, 2] = kind
    log[i, 3] = a0
    log[i, 4] = a1
    log[i, 5] = a2
    log[i, 6] = a3
    log[i, 7] = a4
    log[i, 8] = a5
    log[i, 9] = a6
    log[i, 10] = a7
    log[i, 11] = a8
    log[i, 12] = a9
    log[i, 13] = a10
    log[i, 14] = a11
    log[i, 15] = a12
    ct[CT_LOG_N] = i + 1


@inline
def ev4_nb(T, W, seat, kind, a0, a1, a2, a3):
    ev_nb(T, W, seat, kind, a0, a1, a2, a3, 0, 0, 0, 0, 0, 0, 0, 0, 0)


@inline
def pick_nb(T, W, seat, n, dk):
    """The seat's choice among the n options of a decision of kind dk (DK_*)."""
    st = W.st
    k = choose_nb(T.pk[st[seat, S_PLAYER]], seat, W.sc, n, W.prng, W.dsc, W.dsi)
    if k < 0:
        k = search_point_nb(W.rng, W.prng, W.ct, W.script.shape[0], k, n, W.sc, dk)
    return k


@outline
def search_point_nb(rng, prng, ct, n_script, code, n, sc, dk):
    """A rollout reaches the decision it searches (code: SEARCH_POINT for the option the heuristic
    scores best, sc[:n], as choose_nb picks it; SEARCH_POINT - 1 - k for option k): the option is
    taken, and from here on the rollout's chance (and any random player's) comes from its own seed
    ct[CT_SAMPLE], never from the race's stream, which holds the dice to come; scripted test faces
    are over too. Records the number of options in ct[CT_NOPT] and the heuristic's pick in
    ct[CT_HPICK], and the decision's kind in ct[CT_DKIND]. One compiled body, called only in
    rollouts."""
    if code == SEARCH_POINT:
        k = 0
        for i in range(1, n):
            if sc[i] > sc[k]:
                k = i
        ct[CT_HPICK] = k
    else:
        k = SEARCH_POINT - 1 - code
    if k >= n:
        raise ValueError("a rollout's option out of range of the legal options")
    ct[CT_NOPT] = n
    ct[CT_DKIND] = dk
    rng[0] = np.uint64(ct[CT_SAMPLE])
    prng[0] = mix64_nb(rng[0] ^ KEY2)
    ct[CT_SCRIPT] = n_script
    return k


@inline
def is_random_nb(T, W, seat):
    return T.pk[W.st[seat, S_PLAYER]] == PLAYER_RANDOM


@inline
def wt_nb(T, W, seat, k):
    return T.pw[W.st[seat, S_PLAYER], k]


@inline
def space_nb(T, r, l):
    crs = T.crs
    if r < 0 or r >= crs.shape[0] or l < 0 or l >= T.rl[R_LANES]:
        return SPACE_NONE
    return crs[r, CR_SPACE + l]


@inline
def on_course_nb(st, s):
    return st[s, S_STATUS] == RACING and st[s, S_ROW] >= 0 and st[s, S_INLANE] == 0


@inline
def occupants_nb(st, seat, r, l):
    """Racers other than `seat` on the course at (r, l). (The position is tested first: it rules
    out most racers, and the steps of the move searches count thousands of times a race.)"""
    n = 0
    for s in range(st.shape[0]):
        if st[s, S_ROW] == r and st[s, S_LANE] == l and s != seat and on_course_nb(st, s):
            n += 1
    return n


@inline
def occupants_at_nb(st, seat, r, l, rows):
    """`occupants_nb` where `rows` (rows_held_nb: the rows other racers hold, a bit each; -1 count
    at each step) says first whether any other racer is on row r at all: a search's steps mostly
    enter rows nobody else holds."""
    if rows >= 0 and ((rows >> r) & 1) == 0:
        return 0
    return occupants_nb(st, seat, r, l)


@inline
def on_row_nb(st, seat, r):
    n = 0
    for s in range(st.shape[0]):
        if st[s, S_ROW] == r and s != seat and on_course_nb(st, s):
            n += 1
    return n


@inline
def rows_held_nb(T, st, seat):
    """The rows other racers on the course hold, bit r for row r; -1 (count them at each step)
    where the course has more rows than the bits hold. A search's steps read it while nobody
    else moves."""
    if T.crs.shape[0] > 62:
        return np.int64(-1)
    rows = np.int64(0)
    for s in range(st.shape[0]):
        if s != seat and on_course_nb(st, s):
            rows |= np.int64(1) << st[s, S_ROW]
    return rows


@inline
def pays_nb(T, r, l, occ):
    """Does entering (r, l) holding `occ` others cost a stamina? (§4.4)"""
    if occ == 0 or r < 0 or r >= T.crs.shape[0]:
        return False
    if T.crs[r, CR_FREE] != 0:
        return False
    return T.crs[r, CR_SPACE + l] != SPACE_SHOOT


@inline
def can_pay_nb(T, W, seat, k, at_range):
    """Can the racer make k voluntary payments (on a shooting turn by the range rule)?"""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    # each payment lowers a marker of a column that may pay (not on blue; on a shooting turn not
    # yet shot) by one slot: k payments can be made while the slots left above blue number k
    left = 0
    for c in range(nt):
        if not (at_range and c < st[seat, S_SHOTS]):
            left += T.ns[nat, c] - 1 - st[seat, S_MK + c]
    if left >= k:
        return True
    return can_pay_slow_nb(PayTab(T.rl, T.sv, T.ns, T.pk), PayWork(st, W.tmp), np.int64(seat),
                           np.int64(k), np.bool_(at_range))


class PayTab(NamedTuple):
    """The tables `can_pay_slow_nb` reads."""
    rl: np.ndarray
    sv: np.ndarray
    ns: np.ndarray
    pk: np.ndarray


class PayWork(NamedTuple):
    """The state `can_pay_slow_nb` reads (and its scratch row)."""
    st: np.ndarray
    tmp: np.ndarray


@outline_hot
def can_pay_slow_nb(T, W, seat, k, at_range):
    """`can_pay_nb` where the slots left above blue do not settle it (a racer near the end of its
    stamina: rare): each payment tried in turn. One outlined body instead of a copy in each of
    `can_pay_nb`'s twelve inlined copies, called with the five arrays it reads."""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    tmp = W.tmp[0:nt]
    for c in range(nt):
        tmp[c] = st[seat, S_MK + c]
    for _ in range(k):
        c = payment_column_nb(tmp, T.sv[nat], T.ns[nat], at_range, st[seat, S_SHOTS], 0, -1)
        if c < 0:
            # collapse_on = any: the action stays open and the payment collapses the racer (§4.3);
            # only the random player takes it (a player at the table never chooses to leave)
            return (T.rl[R_COLLAPSE_ANY] != 0 and is_random_nb(T, W, seat)
                    and markers_on_blue_nb(tmp, T.ns[nat]) == nt)
        tmp[c] += 1
    return True


@inline
def pay_nb(T, W, seat, reason, forced, at_range):
    """One stamina payment, logged. Returns the column, PAY_REFUSED or PAY_COLLAPSE (the racer is
    then out). With range_payment = choice on a shooting turn the player picks the column."""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    mk = st[seat, S_MK:S_MK + nt]
    choice = -1
    if at_range and T.rl[R_RANGE_PAYMENT] == RANGE_PAY_CHOICE:
        choice = range_choice_nb(T, W, np.int64(seat))
    if choice < 0 and not is_random_nb(T, W, seat) and wt_nb(T, W, seat, P_TIE_RIGHT) > 0.5:
        # a tie for the highest value is the player's: this one pays from the rightmost
        top = -1
        for c in range(nt):
            if mk[c] < T.ns[nat, c] - 1 and not (at_range and c < st[seat, S_SHOTS]):
                v = T.sv[nat, c, mk[c]]
                if v >= top:
                    top = v
                    choice = c
    c = pay_stamina_nb(mk, T.sv[nat], T.ns[nat], at_range, st[seat, S_SHOTS], T.rl[R_RANGE_PAYMENT],
                       choice, forced or T.rl[R_COLLAPSE_ANY] != 0)
    if c >= 0:
        st[seat, C_STAMINA] += 1
        if at_range:
            st[seat, V_PAID] += 1
            W.visits[st[seat, S_VROW]].range_paid = st[seat, V_PAID]   # also if the turn collapses
        ev4_nb(T, W, seat, EV_PAY, c, mk[c], reason, 1 if forced else 0)
    elif c == PAY_COLLAPSE:
        ev4_nb(T, W, seat, EV_PAY, -1, 0, reason, 1 if forced else 0)
    return c


@outline_hot
def range_choice_nb(T, W, seat):
    """The column the player picks for a payment on a shooting turn with range_payment = choice
    (-1: none may pay). A switch the default rules leave off: one outlined body, not one in each
    of `pay_nb`'s six inlined copies."""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    mk = st[seat, S_MK:S_MK + nt]
    n = 0
    for c in range(st[seat, S_SHOTS], nt):
        if mk[c] < T.ns[nat, c] - 1:
            W.opt[n, 0] = c
            W.sc[n] = T.sv[nat, c, mk[c]]
            n += 1
    if n > 0:
        return W.opt[pick_nb(T, W, seat, n, DK_PAY), 0]
    return -1


@inline
def pay_entry_nb(T, W, seat, reason, r, l):
    """The payment of a chosen entry into an occupied space (bonus, drafting step): True once paid;
    False if it collapsed the racer (collapse_on = any), which is then out where it stepped."""
    c = pay_nb(T, W, seat, reason, False, False)
    if c == PAY_COLLAPSE:
        W.st[seat, S_ROW] = r
        W.st[seat, S_LANE] = l
        collapse_nb(T, W, seat, reason)
        return False
    if c < 0:
        raise ValueError("a voluntary payment was refused after being offered")
    W.st[seat, C_OCC] += 1
    return True


@inline
def collapse_nb(T, W, seat, reason):
    st = W.st
    st[seat, S_STATUS] = COLLAPSED
    st[seat, C_COLLAPSE_ROUND] = W.tv[TV_ROUND]
    ev4_nb(T, W, seat, EV_COLLAPSE, reason, 0, 0, 0)


# =================================================================================================
# the preparation phase and rerolls (§3, §10)
# =================================================================================================
@inline
def log_board_nb(T, W, seat, placed):
    b = W.st[seat]
    ev_nb(T, W, seat, EV_BOARD, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
          placed, 0, 0)


@inline
def roll_place_nb(T, W, seat, m, purpose, blue):
    """Roll m of the available dice and place them as in the preparation phase (§3); log it.
    blue: apply the removal of fives and sixes for markers on blue."""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    board = st[seat, S_BOARD:S_BOARD + 10]
    fb = W.fb
    for i in range(m):
        fb[i] = draw_nb(W, 6) + 1
    ev_nb(T, W, seat, EV_ROLL, purpose, m, fb[0] if m > 0 else 0, fb[1] if m > 1 else 0,
          fb[2] if m > 2 else 0, fb[3] if m > 3 else 0, fb[4] if m > 4 else 0,
          fb[5] if m > 5 else 0, fb[6] if m > 6 else 0, fb[7] if m > 7 else 0,
          fb[8] if m > 8 else 0, fb[9] if m > 9 else 0, 0)
    on_blue = 0
    if blue:
        on_blue = markers_on_blue_nb(st[seat, S_MK:S_MK + nt], T.ns[nat])
    fives = 0
    sixes = 0
    k = 0
    for i in range(m):
        if fb[i] == 6:
            sixes += 1
        else:
            if fb[i] == 5:
                fives += 1
            fb[16 + k] = fb[i]
            k += 1
    drop5 = min(on_blue, fives)
    drop6 = min(on_blue - drop5, sixes)
    if on_blue > 0 and (fives > 0 or sixes > 0):
        ev4_nb(T, W, seat, EV_BLUE, on_blue, drop5, drop6, 0)
    placed = place_roll_nb(board, fb[16:16 + k], fb[0:0], T.cap[nat], T.spc[nat], drop5)
    # the sixes: drop6 go back, then each is placed by the player where legal (§3.4)
    board[B_AVAILABLE] -= sixes - drop6
    for j in range(sixes - drop6):
        if not six_has_place_nb(board, T.spc[nat]):
            board[B_AVAILABLE] += 1
            ev4_nb(T, W, seat, EV_SIX, j, -1, 0, 0)
            continue
        n = 0
        for d in range(N_COLUMNS + 1):
            if six_place_legal_nb(board, d, T.spc[nat]):
                W.opt[n, 0] = d
                if d == SIX_SPRINT:
                    W.sc[n] = wt_nb(T, W, seat, P_SIX_SPRINT)
                else:
                    W.sc[n] = wt_nb(T, W, seat, P_SIX_BOX) * board[B_COL + d] / max(T.fat[nat, d], 1)
                n += 1
        d = W.opt[pick_nb(T, W, seat, n, DK_SIX), 0]
        if d == SIX_SPRINT:
            board[B_SPRINT] += 1
        else:
            board[B_STAR + d] = 1
        placed += 1
        ev4_nb(T, W, seat, EV_SIX, j, d, 0, 0)
    log_board_nb(T, W, seat, placed)


@splice
def prepare_nb(T, W, seat):
    st = W.st
    m = roll_count_nb(st[seat, S_BOARD + B_AVAILABLE])
    roll_place_nb(T, W, seat, m, ROLL_PREP, True)


# =================================================================================================
# steps and the feasibility of a move (§4.4)
# =================================================================================================
@inline
def step_nb(T, W, seat, r, l, so, o, out, rows):
    """Step option o from (r, l) with sideways allowance `so` (`step_t_nb`): fills out = (row,
    lane, so, kind, ends, passes, occ) and returns True if the step is legal (out untouched if
    not)."""
    ok, r2, l2, so2, kind, ends, p, occ = step_t_nb(T, W, seat, r, l, so, o, rows)
    if not ok:
        return False
    out[0] = r2
    out[1] = l2
    out[2] = so2
    out[3] = kind
    out[4] = ends
    out[5] = p
    out[6] = occ
    return True


@inline
def step_t_nb(T, W, seat, r, l, so, o, rows):
    """Step option o from (r, l) with sideways allowance `so`. Behind the start line (r = -1)
    option o enters lane o of row 0. Otherwise o: 0 forward, 1 sideways left, 2 sideways right,
    3 diagonal left, 4 diagonal right. Returns (legal, row, lane, so, kind, ends, passes, occ):
    the searches keep them in registers, where an array `out` is stored and read back at every
    step. rows: -1 (count the passes), or the rows other racers hold, a bit each
    (`rows_held_nb`), for a search, which reads the passes only as whether there are any (the
    side allowance): they are then 1 where any are."""
    st = W.st
    lanes = T.rl[R_LANES]
    nrows = T.crs.shape[0]
    no = (False, 0, 0, 0, 0, 0, 0, 0)
    if r < 0:
        if o >= lanes or space_nb(T, 0, o) == SPACE_NONE:
            return no
        return (True, 0, o, so, STEP_ENTRY, 1 if space_nb(T, 0, o) == SPACE_SHOOT else 0, 0,
                occupants_at_nb(st, seat, 0, o, rows))
    if o == 0:
        if r == nrows - 1:
            p = on_row_nb(st, seat, r) if rows < 0 else (rows >> r) & 1
            return True, nrows, l, 1 if p > 0 else so, STEP_FINISH, 1, p, 0
        sp = space_nb(T, r + 1, l)
        if sp == SPACE_NONE:
            return no
        p = on_row_nb(st, seat, r) if rows < 0 else (rows >> r) & 1
        return (True, r + 1, l, 1 if p > 0 else so, STEP_FORWARD, 1 if sp == SPACE_SHOOT else 0,
                p, occupants_at_nb(st, seat, r + 1, l, rows))
    if o <= 2:
        if so == 0 or space_nb(T, r, l) == SPACE_SHOOT:
            return no
        l2 = l - 1 if o == 1 else l + 1
        sp = space_nb(T, r, l2)
        if sp == SPACE_NONE or sp == SPACE_SHOOT:
            return no
        return True, r, l2, 0, STEP_SIDE, 0, 0, occupants_at_nb(st, seat, r, l2, rows)
    l2 = l - 1 if o == 3 else l + 1
    if space_nb(T, r + 1, l2) != SPACE_WHITE:
        return no
    diag_side = T.rl[R_DIAGONAL_IS_SIDEWAYS] != 0
    if diag_side and so == 0:
        return no
    p = on_row_nb(st, seat, r) if rows < 0 else (rows >> r) & 1
    return (True, r + 1, l2, 0 if diag_side else (1 if p > 0 else so), STEP_DIAG, 0, p,
            occupants_at_nb(st, seat, r + 1, l2, rows))


class Racers(NamedTuple):
    """The state a step reads: the racers' table."""
    st: np.ndarray


@inline
def steps_call_nb(T, W, seat, r, l, so, lo, hi):
    """Step options lo .. hi - 1 from (r, l): W.sx[o, 0:7] as `step_nb`'s out, W.sx[o, 7] 1 if the
    step is legal. One outlined body (`steps_out_nb`) for the callers that step rarely (the move,
    the bonus: all five options of a step in one call, the chosen one read back; the look-ahead
    search), called with the four arrays it reads; the searches that step thousands of times a
    race (`feasible_dfs_nb`, `move_value_nb`) keep their own copy."""
    steps_out_nb(Course(T.rl, T.crs), Racers(W.st), np.int64(seat), np.int64(r), np.int64(l),
                 np.int64(so), np.int64(lo), np.int64(hi), W.sx)


@outline_hot
def steps_out_nb(T, W, seat, r, l, so, lo, hi, sx):
    for o in range(lo, hi):
        sx[o, 7] = 1 if step_nb(T, W, seat, r, l, so, o, sx[o], -1) else 0


@inline
def step_call_nb(T, W, seat, r, l, so, o, out):
    """One step option (`steps_call_nb`) into out; True if legal."""
    steps_call_nb(T, W, seat, r, l, so, o, o + 1)
    for i in range(7):
        out[i] = W.sx[o, i]
    return W.sx[o, 7] == 1


@inline
def new_stamp_nb(W):
    """A fresh stamp (new_stamps_nb's one)."""
    return new_stamps_nb(W, 1)


@inline
def new_stamps_nb(W, n):
    """n consecutive fresh stamps for the memos (W.memo, W.ds); returns the first. Near the int32
    limit the memos are cleared and the stamps start again from 1."""
    if W.tv[TV_STAMP] + n > 2000000000:
        W.memo[:] = 0
        W.ds[:] = 0
        W.tv[TV_STAMP] = 0
    W.tv[TV_STAMP] += n
    return W.tv[TV_STAMP] - n + 1


class Course(NamedTuple):
    """The tables a feasibility search reads."""
    rl: np.ndarray
    crs: np.ndarray


class Search(NamedTuple):
    """The state a feasibility search reads and writes."""
    st: np.ndarray
    memo: np.ndarray
    stk: np.ndarray


@inline
def feasible_nb(T, W, seat, r0, l0, so0, k0, clear, stamp, stop_only):
    """`feasible_dfs_nb`, one body for its seven callers (see kernels/jit.py, `outline_hot`):
    called with the five arrays it reads, as a call copies every array it is passed, and with the
    integers as int64 and the flags as booleans (the same values: the search keeps them in int32
    arrays), so that every caller shares one signature."""
    if k0 <= 0:
        return not stop_only
    known = W.memo[r0 + 1, l0, so0, k0]
    if known == stamp:
        return False
    if known == -stamp:
        return True
    if not clear and r0 >= 0 and straight_nb(T, r0, l0, k0, stop_only):
        return True
    return feasible_dfs_nb(Course(T.rl, T.crs), Search(W.st, W.memo, W.stk), np.int64(seat),
                           np.int64(r0), np.int64(l0), np.int64(so0), np.int64(k0), np.bool_(clear),
                           np.int64(stamp), np.bool_(stop_only))


@inline
def straight_nb(T, r0, l0, k0, stop_only):
    """Whether going straight forward from (r0, l0) on the course (r0 >= 0) is a way of making the
    k0 steps (with `stop_only`, of ending early within them): the feasibility search's first way
    (forward first), and most searches' answer, found here without the call. A forward step is
    legal wherever the row ahead has the lane (entering an occupied space is, without `clear`)."""
    nrows = T.crs.shape[0]
    for j in range(1, k0 + 1):
        r = r0 + j
        if r >= nrows:
            return True          # across the finish line: the move ends
        sp = T.crs[r, CR_SPACE + l0]
        if sp == SPACE_NONE:
            return False         # not this way: the search looks further
        if sp == SPACE_SHOOT:
            return True          # a shooting space: the move ends
    return not stop_only


@outline_hot
def feasible_dfs_nb(T, W, seat, r0, l0, so0, k0, clear, stamp, stop_only):
    """Is there a legal way to make exactly k0 steps from (r0, l0, so0) (a move may end early only
    by entering a shooting space or crossing the finish line)? With `clear`, one that enters no
    occupied space that costs stamina; with `stop_only`, one that ends early that way within the
    k0 steps. Depth-first, forward first; failed states are remembered in W.memo as `stamp`, the
    start of a search that found a way as -stamp (valid while no other racer moves), and a state
    found either way is not searched again: `feasible_nb` reads the memo before it calls. (Marking
    every state on the way found was slower: 0.97 times as fast, CPU time, same tables.)"""
    if k0 <= 0:
        return not stop_only
    memo = W.memo
    stk = W.stk
    rows = rows_held_nb(T, W.st, seat)
    d = 0
    stk[0, 0] = r0
    stk[0, 1] = l0
    stk[0, 2] = so0
    stk[0, 3] = k0
    stk[0, 4] = 0
    while d >= 0:
        r = stk[d, 0]
        l = stk[d, 1]
        so = stk[d, 2]
        k = stk[d, 3]
        o = stk[d, 4]
        if o >= 5:
            memo[r + 1, l, so, k] = stamp
            d -= 1
            continue
        stk[d, 4] = o + 1
        ok, r2, l2, so2, _, ends, _, occ = step_t_nb(T, Racers(W.st), seat, r, l, so, o, rows)
        if not ok:
            continue
        if clear and pays_nb(T, r2, l2, occ):
            continue
        if ends == 1 or (k == 1 and not stop_only):
            memo[r0 + 1, l0, so0, k0] = -stamp
            return True
        if k == 1:
            continue
        known = memo[r2 + 1, l2, so2, k - 1]
        if known == stamp:
            continue
        if known == -stamp:
            memo[r0 + 1, l0, so0, k0] = -stamp
            return True
        d += 1
        stk[d, 0] = r2
        stk[d, 1] = l2
        stk[d, 2] = so2
        stk[d, 3] = k - 1
        stk[d, 4] = 0
    return False


@inline
def enter_nb(T, W, seat, r2, l2):
    """Put the racer on (r2, l2); a shooting space starts a range visit, the finish a place."""
    st = W.st
    nrows = T.crs.shape[0]
    st[seat, S_ROW] = r2
    st[seat, S_LANE] = l2
    if r2 >= nrows:
        st[seat, S_STATUS] = FINISHED
        st[seat, S_PLACE] = W.tv[TV_NEXT_PLACE]
        W.tv[TV_NEXT_PLACE] += 1
        st[seat, C_FINISH_ROUND] = W.tv[TV_ROUND]
        ev4_nb(T, W, seat, EV_FINISH, st[seat, S_PLACE], 0, 0, 0)
        if T.su[SU_VARIANT] == VARIANT_TWO_PLAYER and W.tv[TV_OVER] == 0:
            W.tv[TV_OVER] = 1
            W.tv[TV_WINNER] = seat
        return
    if T.crs[r2, CR_SPACE + l2] == SPACE_SHOOT:
        arrive_nb(T, W, seat, r2, l2)


@inline
def arrive_nb(T, W, seat, r2, l2):
    st = W.st
    nt = T.rl[R_TARGETS]
    st[seat, S_SHOTS] = 0
    st[seat, S_DONE] = 0
    st[seat, S_LAPS] = 0
    st[seat, S_LAPMV] = 0
    st[seat, S_INLANE] = 0
    for c in range(nt):
        st[seat, S_TG + c] = TARGET_OPEN
        st[seat, S_TD + c] = -1
    st[seat, S_VISIT] += 1
    if st[seat, S_VISIT] <= 4:
        st[seat, C_LAPS_R + st[seat, S_VISIT] - 1] = 0     # reached: 0 laps until the fifth shot says more
    st[seat, V_TURNS] = 0
    st[seat, V_PAID] = 0
    st[seat, V_RESHOTS] = 0
    st[seat, V_LEAVE] = 0
    row = W.ct[CT_VISITS]
    W.ct[CT_VISITS] = row + 1
    st[seat, S_VROW] = row
    v = W.visits[row]
    v.race = 0
    v.seat = seat
    v.visit = st[seat, S_VISIT]
    v.shots = 0
    v.hits = 0
    v.misses = 0
    v.penalties = 0
    v.arrive_round = W.tv[TV_ROUND]
    v.shoot_turns = 0
    v.range_paid = 0
    v.reshots = 0
    v.leave_round = -1
    ev4_nb(T, W, seat, EV_ARRIVE, T.crs[r2, CR_RANGE], r2, l2, 0)


@inline
def trail_add_nb(W, seat, r, l):
    st = W.st
    i = st[seat, S_TLEN]
    if i >= MAX_TRAIL:
        raise ValueError("trail longer than MAX_TRAIL")
    W.trail[seat, i, 0] = r
    W.trail[seat, i, 1] = l
    st[seat, S_TLEN] = i + 1


@inline
def end_score_nb(T, W, seat, r2, l2):
    """Heuristic value of ending a move on (r2, l2): green behind a racer, red, and a space
    directly behind a racer who may be drafted on when it next moves (§4.4)."""
    return end_value_nb(T, W, seat, r2, l2, wt_nb(T, W, seat, P_RED), wt_nb(T, W, seat, P_GREEN),
                        wt_nb(T, W, seat, P_DRAFT_SPOT), wt_nb(T, W, seat, P_DRAFT_NEXT), -1)


@inline
def end_value_nb(T, W, seat, r2, l2, red, green, ds, dn, rows):
    """`end_score_nb` with the weights red, green, draft_spot and draft_next read once by a search
    that values many ends, and the rows others hold (`occupants_at_nb`)."""
    sp = space_nb(T, r2, l2)
    v = 0.0
    if sp == SPACE_RED:
        v -= 10.0 * red
    draft = ((ds != 0.0 or dn != 0.0) and sp != SPACE_SHOOT
             and space_nb(T, r2 + 1, l2) != SPACE_SHOOT)
    if (sp == SPACE_GREEN or draft) and occupants_at_nb(W.st, seat, r2 + 1, l2, rows) > 0:
        if sp == SPACE_GREEN:
            v += 10.0 * green
        if draft:
            v += 10.0 * ds
            if dn != 0.0 and moves_before_nb(W, seat, r2 + 1, l2):
                v += 10.0 * dn
    return v


@inline
def moves_before_nb(W, seat, r, l):
    """Whether a racer on the course at (r, l) makes a move before `seat`'s next turn, so that a
    racer directly behind it drafts then (§4.4): it has yet to take its turn this round, or it
    took it and did not open the round (the next round opens one seat on: it comes before `seat`
    again). Called on `seat`'s own turn."""
    st = W.st
    for s in range(st.shape[0]):
        if st[s, S_ROW] == r and st[s, S_LANE] == l and s != seat and on_course_nb(st, s):
            if st[s, C_TURNS] < st[seat, C_TURNS] or s != W.tv[TV_FIRST]:
                return True
    return False


class PlanTab(NamedTuple):
    """The tables a planned move's search reads (`move_value_dfs_nb`)."""
    rl: np.ndarray
    crs: np.ndarray
    pw: np.ndarray


class Plan(NamedTuple):
    """The state a planned move's search reads and writes."""
    st: np.ndarray
    tv: np.ndarray
    lk: np.ndarray
    lv: np.ndarray
    dv: np.ndarray
    ds: np.ndarray


@inline
def move_value_nb(T, W, seat, r0, l0, so0, k0, vs, occw, p0):
    """The planning player's value of making exactly k0 more steps from (r0, l0) with side
    allowance so0 (a move ends early only by entering a shooting space or crossing the finish
    line): the best over the legal ways of 10 * the end row + the end space's value, less `occw`
    per paid entry while the racer can still pay (p0 payments to begin with: pay_count_nb), 1e6
    per paid entry beyond them (the move makes it only where it is forced); -1e18 when there is
    no legal way. Memoised in W.dv under stamp `vs` + the payments left (at most the steps left:
    vs is the first of a block of MAX_K + 1, plan_stamp_nb; valid while no other racer moves):
    read here, searched by one outlined body (`move_value_dfs_nb`, as `feasible_nb`: its nine
    inlined copies were a fifth of the race kernel's code), called with the nine arrays it reads
    and the integers as int64 (one signature)."""
    if W.ds[r0 + 1, l0, so0, k0] == vs + min(p0, k0):
        return W.dv[r0 + 1, l0, so0, k0]
    i = np.int64
    return move_value_dfs_nb(PlanTab(T.rl, T.crs, T.pw),
                             Plan(W.st, W.tv, W.lk, W.lv, W.dv, W.ds), i(seat), i(r0), i(l0),
                             i(so0), i(k0), i(vs), np.float64(occw), i(p0))


@outline_hot
def move_value_dfs_nb(T, W, seat, r0, l0, so0, k0, vs, occw, p0):
    """`move_value_nb`'s search, depth first with an explicit stack (W.lk, W.lv; column 6 the
    payments the racer can still make)."""
    stk = W.lk
    bv = W.lv
    nrows = T.crs.shape[0]
    C = Course(T.rl, T.crs)     # the step's tables and racers as the other searches pass them:
    R = Racers(W.st)            # one compiled step_nb for all three
    rows = rows_held_nb(C, W.st, seat)
    red = wt_nb(T, W, seat, P_RED)
    green = wt_nb(T, W, seat, P_GREEN)
    dspot = wt_nb(T, W, seat, P_DRAFT_SPOT)
    dnext = wt_nb(T, W, seat, P_DRAFT_NEXT)
    d = 0
    stk[0, 0] = r0
    stk[0, 1] = l0
    stk[0, 2] = so0
    stk[0, 3] = k0
    stk[0, 4] = 0
    stk[0, 5] = 0
    stk[0, 6] = min(p0, k0)
    bv[0] = -1.0e18
    while d >= 0:
        r = stk[d, 0]
        l = stk[d, 1]
        so = stk[d, 2]
        k = stk[d, 3]
        o = stk[d, 4]
        p = stk[d, 6]
        if o >= 5:
            val = bv[d]
            W.ds[r + 1, l, so, k] = vs + p
            W.dv[r + 1, l, so, k] = val
            paid = stk[d, 5]
            d -= 1
            if d >= 0 and val > -1.0e17:
                c = val - ((occw if stk[d, 6] > 0 else 1.0e6) if paid != 0 else 0.0)
                if c > bv[d]:
                    bv[d] = c
            continue
        stk[d, 4] = o + 1
        ok, r2, l2, so2, _, ends, _, occ = step_t_nb(C, R, seat, r, l, so, o, rows)
        if not ok:
            continue
        pay = pays_nb(C, r2, l2, occ)
        # an entry beyond the payments the racer can still make is one it cannot choose to make
        # (move_nb offers it only where no free way remains): priced as OCC_FORCED prices all
        cost = (occw if p > 0 else 1.0e6) if pay else 0.0
        if ends == 1 or k == 1:
            v = 10.0 * r2 - cost
            if r2 < nrows:
                v += end_value_nb(T, W, seat, r2, l2, red, green, dspot, dnext, rows)
            if v > bv[d]:
                bv[d] = v
            continue
        p2 = min(p - 1 if (pay and p > 0) else p, k - 1)
        if W.ds[r2 + 1, l2, so2, k - 1] == vs + p2:
            cv = W.dv[r2 + 1, l2, so2, k - 1]
            if cv > -1.0e17 and cv - cost > bv[d]:
                bv[d] = cv - cost
            continue
        d += 1
        stk[d, 0] = r2
        stk[d, 1] = l2
        stk[d, 2] = so2
        stk[d, 3] = k - 1
        stk[d, 4] = 0
        stk[d, 5] = 1 if pay else 0
        stk[d, 6] = p2
        bv[d] = -1.0e18
    return W.dv[r0 + 1, l0, so0, k0]


@inline
def best_first_step_nb(T, W, seat, r0, l0, so0, k0, sa):
    """The look-ahead player's move: search the ways of making the k0 remaining steps (at most
    LOOK_NODES steps visited) and return the first step option of the best one, valued as the
    heuristic values a whole move: ten per row gained, less `occupied` per paid entry, plus the
    value of the last space. -1 when the search found nothing."""
    stk = W.lk
    val = W.lv
    out = W.fb[32:39]
    occw = 10.0 * wt_nb(T, W, seat, P_OCCUPIED)
    best = -1.0e18
    best_o = -1
    d = 0
    stk[0, 0] = r0
    stk[0, 1] = l0
    stk[0, 2] = so0
    stk[0, 3] = k0
    stk[0, 4] = 0
    stk[0, 5] = -1
    val[0] = 0.0
    nodes = 0
    while d >= 0 and nodes < LOOK_NODES:
        o = stk[d, 4]
        if o >= 5:
            d -= 1
            continue
        stk[d, 4] = o + 1
        r = stk[d, 0]
        l = stk[d, 1]
        k = stk[d, 3]
        if not step_call_nb(T, W, seat, r, l, stk[d, 2], o, out):
            continue
        nodes += 1
        v = val[d]
        if pays_nb(T, out[0], out[1], out[6]):
            v -= occw
        first = o if d == 0 else stk[d, 5]
        if out[4] == 1 or k == 1:
            v += 10.0 * (out[0] - r0)
            if out[4] == 0 or out[0] < T.crs.shape[0]:
                v += end_score_nb(T, W, seat, out[0], out[1])
            if v > best:
                best = v
                best_o = first
            continue
        if W.memo[out[0] + 1, out[1], out[2], k - 1] == sa:
            continue
        if not feasible_nb(T, W, seat, out[0], out[1], out[2], k - 1, False, sa, False):
            continue
        d += 1
        stk[d, 0] = out[0]
        stk[d, 1] = out[1]
        stk[d, 2] = out[2]
        stk[d, 3] = k - 1
        stk[d, 4] = 0
        stk[d, 5] = first
        val[d] = v
    return best_o


# what a paid entry costs a planned move (occupied_class_nb)
OCC_FORCED = 0       # 1e6: planning with no stamina to spare, a paid entry only where forced
OCC_FULL = 1         # the `occupied` weight
OCC_CUT = 2          # the `occupied` weight less its `occupied_cut` share


@inline
def occupied_class_nb(T, W, seat, planning):
    """Which cost (OCC_*) entering an occupied space that costs stamina counts against a move:
    the `occupied` weight, or, when planning with no stamina to spare, 1e6: a paid entry only
    where it is forced."""
    if planning and not can_pay_nb(T, W, seat, 1, False):
        return OCC_FORCED
    cut = wt_nb(T, W, seat, P_OCCUPIED_CUT)
    # stamina to spare: a paid entry costs less (never nothing), where the racer can pay an entry
    # into every other racer's space (a cheap plan through more entries than it can pay for would
    # stop short of where a free route reaches)
    if (cut != 0.0 and ahead_of_pace_nb(T, W, seat, 1)
            and can_pay_nb(T, W, seat, W.st.shape[0] - 1, False)):
        return OCC_CUT
    return OCC_FULL


@inline
def occupied_weight_nb(T, W, seat, cls):
    """The cost of a paid entry of class cls (OCC_*): `move_value_nb`'s occw."""
    if cls == OCC_FORCED:
        return 1.0e6
    occ = 10.0 * wt_nb(T, W, seat, P_OCCUPIED)
    if cls == OCC_CUT:
        occ *= 1.0 - wt_nb(T, W, seat, P_OCCUPIED_CUT)
    return occ


@inline
def plan_memo_nb(T, W, seat):
    """The planning racer's memo stamp for the planned move's values this turn (plan_stamp_nb) and
    the cost of a paid entry they count (occw), for its stamina now."""
    cls = occupied_class_nb(T, W, seat, True)
    return plan_stamp_nb(W, cls), occupied_weight_nb(T, W, seat, cls)


@inline
def plan_stamp_nb(W, cls):
    """The memo stamp of the planned move's values (move_value_nb) with paid entries of class cls
    this turn. Those values read the other racers' places, the turn's count (moves_before_nb) and
    the cost, none of which change between the turn's start and its move (the racer's own place
    is not read), so the turn's decisions (wax moments, columns, the move's steps) share one memo
    for each cost: turn_nb starts the turn with none."""
    vs = W.tv[TV_PLAN + cls]
    if vs == 0:
        # one stamp for each count of payments the racer can still make (0 to MAX_K)
        vs = new_stamps_nb(W, MAX_K + 1)
        W.tv[TV_PLAN + cls] = vs
    return vs


@inline
def pay_count_nb(T, W, seat, spent, k):
    """How many voluntary payments of a move the racer can make (at most k), beyond `spent`
    payments already committed this turn (the additional columns chosen so far)."""
    st = W.st
    nat = st[seat, S_NAT]
    left = -spent
    for c in range(T.rl[R_TARGETS]):
        left += T.ns[nat, c] - 1 - st[seat, S_MK + c]
    if left >= k:
        return k                  # the slots left above blue settle it (can_pay_nb's fast test)
    j = 0
    while j < k and can_pay_nb(T, W, seat, spent + j + 1, False):
        j += 1
    return j


@inline
def racer_near_nb(st, seat, r, k):
    """Whether another racer stands on the course on the rows a move of k steps from row r can
    reach, or the one ahead of them: elsewhere no entry pays and no end is behind a racer."""
    for s2 in range(st.shape[0]):
        if s2 != seat and on_course_nb(st, s2) and r <= st[s2, S_ROW] <= r + k + 1:
            return True
    return False


@inline
def move_nb(T, W, seat, k):
    """The racer's own move of k steps (§4.4). Returns (steps made, side allowance, 0 ok /
    1 ended at a shooting space or the finish / 2 collapsed)."""
    st = W.st
    opt = W.opt
    sc = W.sc
    r = st[seat, S_ROW]
    l = st[seat, S_LANE]
    so = 1
    if k > MAX_K:
        raise ValueError("a move longer than MAX_K steps")
    sa = new_stamp_nb(W)
    scl = new_stamp_nb(W)
    if not feasible_nb(T, W, seat, r, l, so, k, False, sa, False):
        while k > 0 and not feasible_nb(T, W, seat, r, l, so, k, False, sa, False):
            k -= 1
    steps = 0
    heur = not is_random_nb(T, W, seat)
    look = T.pk[st[seat, S_PLAYER]] == PLAYER_LOOKAHEAD
    plan = heur and not look and wt_nb(T, W, seat, P_PLAN) > 0.5
    if plan:
        # with no other racer on the rows this move can reach (or the one ahead of them), no
        # entry pays and no end is behind a racer: stepping forward greedily is the plan, and
        # far cheaper than searching it
        plan = racer_near_nb(st, seat, r, k)
    vs = 0
    occw = 0.0
    if plan:
        vs, occw = plan_memo_nb(T, W, seat)
    while steps < k:
        rem = k - steps
        # can the rest be made without a paid entry? Asked only once an option pays: only then
        # is the answer read (-1: not yet asked)
        clear = -1
        bo = best_first_step_nb(T, W, seat, r, l, so, rem, sa) if look else -1
        n = 0
        payable = -1              # can_pay_nb(1): the same for every option (-1 not yet asked)
        pcount = -1               # pay_count_nb: the payments the rest can make (-1 not yet)
        steps_call_nb(T, W, seat, r, l, so, 0, 5)
        for o in range(5):
            out = W.sx[o]
            if out[7] == 0:
                continue
            rest = 0.0
            if out[4] == 0 and rem > 1:
                if plan:
                    # the rest's value is -1e18 exactly where it has no legal way: the same test
                    # as the feasibility search's, and one search instead of two
                    if pcount < 0:
                        pcount = pay_count_nb(T, W, seat, 0, rem)
                    rest = move_value_nb(T, W, seat, out[0], out[1], out[2], rem - 1, vs, occw,
                                         max(pcount - 1, 0) if pays_nb(T, out[0], out[1], out[6])
                                         else pcount)
                    if rest < -1.0e17:
                        continue
                elif not feasible_nb(T, W, seat, out[0], out[1], out[2], rem - 1, False, sa, False):
                    continue
            pay = pays_nb(T, out[0], out[1], out[6])
            if pay and clear < 0:
                clear = 1 if feasible_nb(T, W, seat, r, l, so, rem, True, scl, False) else 0
            if pay and clear == 1:
                if payable < 0:
                    payable = 1 if can_pay_nb(T, W, seat, 1, False) else 0
                if payable == 0:
                    continue
            opt[n, 0] = o
            opt[n, 1] = 1 if pay else 0
            opt[n, 2] = 1 if clear == 0 else 0    # forced: read only where the option pays
            s = 10.0 * (out[0] - r)
            if pay:
                s -= 10.0 * wt_nb(T, W, seat, P_OCCUPIED)
            if plan:
                # the whole move planned: the best end reachable through this step, less the
                # entries it pays for (move_value_nb)
                s = -occw if pay else 0.0
                if rem == 1 or out[4] == 1:
                    s += 10.0 * out[0]
                    if out[0] < T.crs.shape[0]:
                        s += end_score_nb(T, W, seat, out[0], out[1])
                else:
                    s += rest
                if out[3] == STEP_SIDE:
                    s -= 0.01 * o
            elif heur:
                if out[4] == 0 and rem > 1 and not feasible_nb(T, W, seat, out[0], out[1], out[2],
                                                               rem - 1, True, scl, False):
                    s -= 5.0 * wt_nb(T, W, seat, P_OCCUPIED)
                if rem == 1 or out[4] == 1:
                    s += end_score_nb(T, W, seat, out[0], out[1])
                if out[3] == STEP_SIDE:
                    s -= 0.01 * o
                if look and bo >= 0:
                    s = 1.0 if o == bo else 0.0
            sc[n] = s
            n += 1
        if n == 0:
            raise ValueError("move: no step keeps the move possible")
        j = pick_nb(T, W, seat, n, DK_STEP)
        o = opt[j, 0]
        pay = opt[j, 1] == 1
        forced = opt[j, 2] == 1
        out = W.sx[o]             # the chosen step, as stepped above
        r2 = out[0]
        l2 = out[1]
        so = out[2]
        kind = out[3]
        ends = out[4]
        ev_nb(T, W, seat, EV_STEP, PHASE_MOVE, kind, r2, l2, out[6], 1 if pay else 0, out[5],
              0, 0, 0, 0, 0, 0)
        steps += 1
        st[seat, C_MOVES] += 1
        trail_add_nb(W, seat, r2, l2)
        if pay:
            c = pay_nb(T, W, seat, PAY_MOVE, forced, False)
            if c == PAY_COLLAPSE:
                st[seat, S_ROW] = r2
                st[seat, S_LANE] = l2
                collapse_nb(T, W, seat, PAY_MOVE)
                return steps, so, 2
            if c < 0:
                raise ValueError("move: a voluntary payment was refused after being offered")
            st[seat, C_OCC] += 1
        last = T.su[SU_LAST_RANGE_ROW]
        if r == last and r2 > last and W.tv[TV_LAST_RANGE_SEAT] < 0:
            W.tv[TV_LAST_RANGE_SEAT] = seat
        enter_nb(T, W, seat, r2, l2)
        r = r2
        l = l2
        if ends:
            return steps, so, 1
    return steps, so, 0


@inline
def bonus_nb(T, W, seat, so, record):
    """The downhill bonus (§5.1) if earned where the racer stands: up to downhill_moves steps,
    passing at most downhill_passes racers, the first entry into a space held by exactly one
    racer free. Returns the steps taken, or -1 if no bonus was earned."""
    st = W.st
    if st[seat, S_STATUS] != RACING:
        return -1
    r = st[seat, S_ROW]
    l = st[seat, S_LANE]
    if space_nb(T, r, l) != SPACE_GREEN or occupants_nb(st, seat, r + 1, l) == 0:
        return -1
    st[seat, C_BONUSES] += 1
    opt = W.opt
    sc = W.sc
    passes_left = T.rl[R_DOWNHILL_PASSES]
    free_used = 0
    steps = 0
    take = wt_nb(T, W, seat, P_BONUS) > 0.5
    stay = wt_nb(T, W, seat, P_BONUS_STAY)
    while steps < T.rl[R_DOWNHILL_MOVES]:
        opt[0, 0] = -1
        sc[0] = 0.0
        if (stay != 0.0 and space_nb(T, r, l) != SPACE_SHOOT
                and space_nb(T, r + 1, l) != SPACE_SHOOT and moves_before_nb(W, seat, r + 1, l)):
            sc[0] = 10.0 * stay   # stopping here: a draft on the racer ahead before the next turn
        n = 1
        steps_call_nb(T, W, seat, r, l, so, 0, 5)
        for o in range(5):
            out = W.sx[o]
            if out[7] == 0:
                continue
            if out[5] > passes_left:
                continue
            free = free_used == 0 and out[6] == 1
            pay = pays_nb(T, out[0], out[1], out[6]) and not free
            if pay and not can_pay_nb(T, W, seat, 1, False):
                continue
            opt[n, 0] = o
            opt[n, 1] = 1 if pay else 0
            s = 10.0 * (out[0] - r) - 1.0
            if pay:
                s -= 10.0 * wt_nb(T, W, seat, P_OCCUPIED)
            if not take:
                s = -1.0
            sc[n] = s
            n += 1
        j = pick_nb(T, W, seat, n, DK_BONUS)
        o = opt[j, 0]
        if o < 0:
            break
        pay = opt[j, 1] == 1
        out = W.sx[o]             # the chosen step, as stepped above
        if out[6] == 1 and free_used == 0 and pays_nb(T, out[0], out[1], out[6]):
            free_used = 1
        passes_left -= out[5]
        r2 = out[0]
        l2 = out[1]
        so = out[2]
        ev_nb(T, W, seat, EV_STEP, PHASE_BONUS, out[3], r2, l2, out[6], 1 if pay else 0, out[5],
              0, 0, 0, 0, 0, 0)
        steps += 1
        st[seat, C_BONUS_STEPS] += 1
        if record:
            trail_add_nb(W, seat, r2, l2)
        if pay and not pay_entry_nb(T, W, seat, PAY_BONUS, r2, l2):
            break
        last = T.su[SU_LAST_RANGE_ROW]
        if r == last and r2 > last and W.tv[TV_LAST_RANGE_SEAT] < 0:
            W.tv[TV_LAST_RANGE_SEAT] = seat
        enter_nb(T, W, seat, r2, l2)
        r = r2
        l = l2
        if W.tv[TV_OVER] != 0:
            return steps           # a two-player race ends at its first finish: END comes next
        if out[4] == 1:
            break
    ev4_nb(T, W, seat, EV_BONUS, steps, 0, 0, 0)
    return steps


@inline
def draftable_nb(T, W, s):
    """May racer s be drafted on, having moved in this chain? (§4.4)"""
    st = W.st
    if st[s, S_STATUS] == COLLAPSED or st[s, S_MOVED] == 0 or st[s, S_TLEN] == 0:
        return False
    r = st[s, S_SROW]
    if r <= 0:
        return False
    return space_nb(T, r, st[s, S_SLANE]) != SPACE_SHOOT


@inline
def drafting_nb(T, W, leader, first_seat):
    """Drafters follow the leader's trail, then drafters of drafters, front to back (§4.4)."""
    st = W.st
    n = st.shape[0]
    q = W.q
    out = W.fb[24:31]
    q[0] = leader
    qn = 1
    head = 0
    follows_bonus = T.rl[R_DRAFT_FOLLOWS_BONUS] != 0
    while head < qn:
        if W.tv[TV_OVER] != 0:
            return                 # a two-player race is over: nobody moves after the finish
        L = q[head]
        head += 1
        if not draftable_nb(T, W, L):
            continue
        if L == leader and W.tv[TV_SPRINT] != 0:
            continue
        br = st[L, S_SROW] - 1
        bl = st[L, S_SLANE]
        tl = st[L, S_TLEN]
        for j in range(n):
            c = (first_seat + j) % n
            if c == L or st[c, S_MOVED] != 0 or not on_course_nb(st, c):
                continue
            if st[c, S_ROW] != br or st[c, S_LANE] != bl:
                continue
            if space_nb(T, br, bl) == SPACE_SHOOT:
                continue
            if W.tv[TV_OVER] != 0:
                return
            # the path: the leader's start, then its trail but the last space
            need = 0
            for i in range(tl):
                if i == 0:
                    pr = st[L, S_SROW]
                    pl = bl
                else:
                    pr = W.trail[L, i - 1, 0]
                    pl = W.trail[L, i - 1, 1]
                if pays_nb(T, pr, pl, occupants_nb(st, c, pr, pl)):
                    need += 1
            offered = can_pay_nb(T, W, c, need, False)
            follow = 0
            if offered:
                W.opt[0, 0] = 0
                W.sc[0] = 0.0
                W.opt[1, 0] = 1
                W.sc[1] = 1.0 if need <= wt_nb(T, W, c, P_DRAFT_PAY) else -1.0
                follow = W.opt[pick_nb(T, W, c, 2, DK_DRAFT), 0]
            ev_nb(T, W, c, EV_DRAFT, L, follow, tl, need, 1 if offered else 0, 0, 0, 0, 0, 0, 0,
                  0, 0)
            if follow == 0:
                continue
            st[c, S_MOVED] = 1
            st[c, S_SROW] = st[c, S_ROW]
            st[c, S_SLANE] = st[c, S_LANE]
            st[c, S_TLEN] = 0
            st[c, C_DRAFTS] += 1
            for i in range(tl):
                if i == 0:
                    pr = st[L, S_SROW]
                    pl = bl
                else:
                    pr = W.trail[L, i - 1, 0]
                    pl = W.trail[L, i - 1, 1]
                r0 = st[c, S_ROW]
                l0 = st[c, S_LANE]
                kind = STEP_FORWARD
                if pr == r0:
                    kind = STEP_SIDE
                elif pl != l0:
                    kind = STEP_DIAG
                occ = occupants_nb(st, c, pr, pl)
                pay = pays_nb(T, pr, pl, occ)
                ev_nb(T, W, c, EV_STEP, PHASE_DRAFT, kind, pr, pl, occ, 1 if pay else 0,
                      on_row_nb(st, c, r0) if pr > r0 else 0, 0, 0, 0, 0, 0, 0)
                st[c, C_DRAFT_STEPS] += 1
                trail_add_nb(W, c, pr, pl)
                if pay and not pay_entry_nb(T, W, c, PAY_DRAFT, pr, pl):
                    break
                last = T.su[SU_LAST_RANGE_ROW]
                if r0 == last and pr > last and W.tv[TV_LAST_RANGE_SEAT] < 0:
                    W.tv[TV_LAST_RANGE_SEAT] = c
                st[c, S_ROW] = pr
                st[c, S_LANE] = pl
            if st[c, S_STATUS] != RACING:
                continue              # collapsed while following (collapse_on = any)
            if T.rl[R_DRAFTER_BONUS] != 0:
                bonus_nb(T, W, c, 1, follows_bonus)
            if st[c, S_STATUS] == COLLAPSED:
                continue
            if qn < q.shape[0]:
                q[qn] = c
                qn += 1


# =================================================================================================
# wax tokens (§4.6, §10)
# =================================================================================================
@inline
def need_nb(T, W, seat, most):
    """What this turn can still use: shots left on a shooting turn; on a moving turn the fewest
    steps to the next shooting space or across the finish line (steps beyond are lost: the move
    ends there). `most + 1` (nothing is lost) when that is more than `most`, or in the penalty
    lane."""
    st = W.st
    if W.tv[TV_SHOOTING] != 0:
        return T.rl[R_TARGETS] - st[seat, S_SHOTS]
    if st[seat, S_INLANE] != 0 or most > MAX_K:
        return most + 1
    m = max(dist_to_stop_nb(T, W, seat), 1)
    r = st[seat, S_ROW]
    l = st[seat, S_LANE]
    # one memo for every m and every call of the turn (before its move nobody moves): a state's
    # answer (an early end within its steps left or none) is the same whatever m it was met for
    sn = W.tv[TV_NEED]
    if sn == 0:
        sn = new_stamp_nb(W)
        W.tv[TV_NEED] = sn
    while m <= most:
        if feasible_nb(T, W, seat, r, l, 1, m, False, sn, True):
            return m
        m += 1
    return most + 1


@inline
def count_bound_nb(T, W, seat):
    """At most how many moves (or shots) this turn can still come to: every die on the board,
    the tokens used and two more (a bound for need_nb's search)."""
    st = W.st
    n = st[seat, S_BOARD + B_SPRINT] * 2 + W.tv[TV_PLUS] + W.tv[TV_SPRINTMV] + 2
    for c in range(N_COLUMNS):
        n += st[seat, S_BOARD + B_COL + c] + st[seat, S_BOARD + B_STAR + c]
    return min(n, MAX_K)


@inline
def turn_count_nb(T, W, seat, dice, plus, minus, sprint_moves):
    """Moves (or shots, on a shooting turn) that `dice` taken with these token effects give."""
    st = W.st
    if W.tv[TV_SHOOTING] != 0:
        return max(dice + plus - minus, 0)
    r = st[seat, S_ROW]
    red = (r >= 0 and st[seat, S_INLANE] == 0 and space_nb(T, r, st[seat, S_LANE]) == SPACE_RED)
    return move_count_nb(dice, plus, minus, sprint_moves, red, T.rl[R_UPHILL_PENALTY])


@inline
def count_gain_nb(T, W, seat, dice, dplus, dminus, dsprint, need):
    """What a change of the turn's count (dplus / dminus / dsprint more) gains, in moves or shots
    this turn can use (`need`: need_nb)."""
    tv = W.tv
    a = turn_count_nb(T, W, seat, dice, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV])
    b = turn_count_nb(T, W, seat, dice, tv[TV_PLUS] + dplus, tv[TV_MINUS] + dminus,
                      tv[TV_SPRINTMV] + dsprint)
    return 1.0 * (min(b, need) - min(a, need))


@inline
def look_gain_nb(T, W, seat, dice, dplus, dminus, dsprint, need):
    """count_gain_nb in rows of the planned move (move_value_nb, the end space's value counted):
    what a change of the moving turn's count gains; count_gain_nb's moves where either count has
    no legal way of being made in full."""
    tv = W.tv
    a = turn_count_nb(T, W, seat, dice, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV])
    b = turn_count_nb(T, W, seat, dice, tv[TV_PLUS] + dplus, tv[TV_MINUS] + dminus,
                      tv[TV_SPRINTMV] + dsprint)
    vs, occw = plan_memo_nb(T, W, seat)
    va = planned_value_nb(T, W, seat, a, vs, occw, 0)
    vb = planned_value_nb(T, W, seat, b, vs, occw, 0)
    if va > -1.0e17 and vb > -1.0e17:
        return 0.1 * (vb - va)
    return 1.0 * (min(b, need) - min(a, need))


@inline
def icon_value_nb(T, W, seat, bit, moment, shooting, miss_now, need):
    """Heuristic value (in dice) of one icon used now. A +1, -1 or sprint is worth the moves (or
    shots) it changes that this turn can use: nothing once the move reaches the range or the
    finish without it. Before the columns are taken (moment A) the dice are not known: +1 and -1
    wait for moment B, and a sprint is valued against the fullest column."""
    st = W.st
    b = st[seat]
    dice = W.tv[TV_DICE]
    # with look_extra, at moment B of a moving turn a count's change is worth the rows (and the
    # end space's value) the planned move gains with it
    look = (moment == MOMENT_B and dice >= 0 and not shooting and b[S_INLANE] == 0
            and wt_nb(T, W, seat, P_LOOK_EXTRA) > 0.5 and wt_nb(T, W, seat, P_PLAN) > 0.5
            and racer_near_nb(st, seat, b[S_ROW], count_bound_nb(T, W, seat) + dice + 1))
    if bit == WAX_PLUS_ONE or bit == WAX_MINUS_ONE:
        if moment != MOMENT_B or dice < 0:
            return 0.0 if bit == WAX_PLUS_ONE else -1.0
        if look:
            return look_gain_nb(T, W, seat, dice, 1 if bit == WAX_PLUS_ONE else 0,
                                1 if bit == WAX_MINUS_ONE else 0, 0, need)
        if bit == WAX_PLUS_ONE:
            return count_gain_nb(T, W, seat, dice, 1, 0, 0, need)
        return count_gain_nb(T, W, seat, dice, 0, 1, 0, need)
    if bit == WAX_SPRINT:
        if moment == MOMENT_C or shooting or W.tv[TV_SPRINT] != 0:
            return 0.0
        if b[B_SPRINT] < wt_nb(T, W, seat, P_SPRINT_MIN):
            return 0.0
        if moment == MOMENT_A or dice < 0:
            est = 0
            for c in range(N_COLUMNS):
                est = max(est, col_dice_nb(T, b, b[S_NAT], c))
            return count_gain_nb(T, W, seat, est, 0, 0, b[B_SPRINT], need)
        if look:
            return look_gain_nb(T, W, seat, dice, 0, 0, b[B_SPRINT], need)
        return count_gain_nb(T, W, seat, dice, 0, 0, b[B_SPRINT], need)
    if bit == WAX_FREE_COLUMN:
        if moment != MOMENT_A or (shooting and wt_nb(T, W, seat, P_RANGE_EXTRA) < 0.5):
            return 0.0
        best = 0
        second = 0
        for c in range(N_COLUMNS + 1):
            v = b[B_SPRINT] if c == N_COLUMNS else col_dice_nb(T, b, b[S_NAT], c)
            if v > best:
                second = best
                best = v
            elif v > second:
                second = v
        # the second-fullest column taken with the fullest: what of it the turn can use
        return count_gain_nb(T, W, seat, best, second, 0, 0, need) + wt_nb(T, W, seat, P_ICON_FREE)
    if bit == WAX_REROLL_SHOT:
        return wt_nb(T, W, seat, P_ICON_SHOT) if miss_now else 0.0
    if bit == WAX_REROLL_ONE:
        return wt_nb(T, W, seat, P_ICON_REROLL_ONE)
    if bit == WAX_REROLL_ALL:
        tot = 0
        for c in range(N_COLUMNS):
            tot += b[B_COL + c]
        x = wt_nb(T, W, seat, P_ICON_REROLL_ALL)
        return x if (moment == MOMENT_B and tot <= 2 and b[B_AVAILABLE] >= 6) else -0.5 * x
    if bit == WAX_STAMINA:
        if ahead_of_pace_nb(T, W, seat, 1):
            return wt_nb(T, W, seat, P_STAMINA_SURPLUS)
        return wt_nb(T, W, seat, P_ICON_STAMINA)
    return 0.0


@inline
def ahead_of_pace_nb(T, W, seat, paying):
    """Whether the racer, after `paying` more stamina, still holds at least the stamina it keeps
    for the rows it has to go: `pace` per row plus `pace_share` times the race's own pace (its
    stamina at the start over the course's rows). Stamina left at the finish is worth nothing:
    ahead of the pace it spends more readily. Never ahead when both weights are 0."""
    st = W.st
    pace = wt_nb(T, W, seat, P_PACE)
    share = wt_nb(T, W, seat, P_PACE_SHARE)
    if pace <= 0.0 and share <= 0.0:
        return False
    nat = st[seat, S_NAT]
    left = -paying
    start = 0
    for c in range(T.rl[R_TARGETS]):
        left += T.ns[nat, c] - 1 - st[seat, S_MK + c]
        start += T.ns[nat, c] - 1 - T.su[SU_START_SLOT]
    nrows = T.crs.shape[0]
    r = st[seat, S_ROW]
    rows = nrows + 1 if r < 0 else nrows - r
    keep = (pace + share * start / nrows) * rows
    last = wt_nb(T, W, seat, P_LAST_SPEND)
    if last != 0.0 and r > T.su[SU_LAST_RANGE_ROW]:
        keep *= 1.0 - last        # past the last range no shot is to come: stamina buys rows only
    return left >= keep


@inline
def token_options_nb(T, W, seat, n, pos, icons, mode, shooting, iv):
    """Add the options of one token (a row position, or -1 for the printed token), valued by the
    icons' values iv[bit index] (icon_value_nb, once per moment). A blank token (no icon bits) is
    one option that does nothing but flip it."""
    if (icons & WAX_STAMINA) != 0 and not can_pay_nb(T, W, seat, 1, shooting):
        return n
    base = 0.0
    if (icons & WAX_STAMINA) != 0:
        base = iv[7]
    price = wt_nb(T, W, seat, P_WAX_PRICE)
    if mode == WAX_ONE_OF:
        for i in range(7):
            bit = 1 << i
            if (icons & bit) != 0:
                W.opt[n, 0] = pos
                W.opt[n, 1] = bit
                W.sc[n] = base + iv[i] - price
                n += 1
    else:
        v = base
        for i in range(7):
            if (icons & (1 << i)) != 0:
                v += iv[i]
        W.opt[n, 0] = pos
        W.opt[n, 1] = 0
        W.sc[n] = v - price
        n += 1
    return n


@inline
def do_icon_nb(T, W, seat, bit, shooting):
    st = W.st
    tv = W.tv
    nat = st[seat, S_NAT]
    st[seat, C_WAX + ilog2_nb(bit)] += 1
    roll = -1                 # dice the rerolls roll again: one roll_place_nb call for both
    purpose = ROLL_ONE
    if bit == WAX_PLUS_ONE:
        tv[TV_PLUS] += 1
    elif bit == WAX_MINUS_ONE:
        tv[TV_MINUS] += 1
    elif bit == WAX_FREE_COLUMN:
        tv[TV_FREE] += 1
    elif bit == WAX_SPRINT:
        if tv[TV_SPRINT] == 0:
            st[seat, C_SPRINT_USES] += 1
        tv[TV_SPRINT] = 1
        tv[TV_SPRINTMV] += st[seat, S_BOARD + B_SPRINT]
    elif bit == WAX_REROLL_ONE:
        n = 0
        for cell in range(B_AVAILABLE):
            if st[seat, S_BOARD + cell] > 0:
                W.opt[n, 0] = cell
                v = 0.0
                if cell < N_COLUMNS:
                    v = 10.0 - st[seat, S_BOARD + cell]
                W.sc[n] = v
                n += 1
        if n > 0:
            cell = W.opt[pick_nb(T, W, seat, n, DK_LIFT), 0]
            ev4_nb(T, W, seat, EV_LIFT, cell, 0, 0, 0)
            lift_one_nb(st[seat, S_BOARD:S_BOARD + 10], cell)
            roll = 1
            purpose = ROLL_ONE
    elif bit == WAX_REROLL_ALL:
        roll = lift_all_nb(st[seat, S_BOARD:S_BOARD + 10])
        purpose = ROLL_ALL
    elif bit == WAX_REROLL_SHOT:
        first = tv[TV_FIRST_SHOT]
        if T.rl[R_RESHOT_SCOPE] == RESHOT_VISIT and shooting:
            first = 0             # any shot of this range visit (§10, switch reroll_shot_scope)
        if first >= 0 and st[seat, S_SHOTS] > first:
            n = 0
            for t in range(first, st[seat, S_SHOTS]):
                W.opt[n, 0] = t
                W.sc[n] = 1.0 if st[seat, S_TG + t] == TARGET_MISS else 0.0
                n += 1
            t = W.opt[pick_nb(T, W, seat, n, DK_RESHOT), 0]
            die = st[seat, S_TD + t]
            face = draw_nb(W, T.dien[die])
            hit = is_hit_nb(T.dief, die, face)
            old = st[seat, S_TG + t]
            st[seat, S_TG + t] = TARGET_HIT if hit else TARGET_MISS
            if old == TARGET_HIT and not hit:
                st[seat, C_HITS] -= 1
            elif old == TARGET_MISS and hit:
                st[seat, C_HITS] += 1
            st[seat, V_RESHOTS] += 1
            ev4_nb(T, W, seat, EV_RESHOT, t, die, face, 1 if hit else 0)
            v = W.visits[st[seat, S_VROW]]
            v.hits = visit_hits_nb(T, W, seat)
            v.misses = v.shots - v.hits
            v.reshots = st[seat, V_RESHOTS]
    if roll >= 0:
        roll_place_nb(T, W, seat, roll, purpose, T.rl[R_REROLL_BLUE_REMOVAL] != 0)


@inline
def ilog2_nb(bit):
    i = 0
    while (1 << (i + 1)) <= bit:
        i += 1
    return i


@inline
def visit_hits_nb(T, W, seat):
    h = 0
    for t in range(T.rl[R_TARGETS]):
        if W.st[seat, S_TG + t] == TARGET_HIT:
            h += 1
    return h


@inline
def wax_moment_nb(T, W, seat, moment):
    """Offer the racer its tokens at a moment (§4.6): an outermost face-up row token if none was
    used this turn, and Finland's printed token on a shooting turn if not used this turn."""
    st = W.st
    tv = W.tv
    nat = st[seat, S_NAT]
    shooting = tv[TV_SHOOTING] != 0
    miss_now = False
    if moment == MOMENT_C:
        s = st[seat, S_SHOTS]
        miss_now = s > 0 and st[seat, S_TG + s - 1] == TARGET_MISS
    if shooting and T.rl[R_RESHOT_SCOPE] == RESHOT_VISIT:
        for t in range(st[seat, S_SHOTS]):
            if st[seat, S_TG + t] == TARGET_MISS:
                miss_now = True
    W.opt[0, 0] = -2
    W.opt[0, 1] = 0
    W.sc[0] = 0.0
    n = 1
    lo = st[seat, S_WLO]
    hi = st[seat, S_WHI]
    row = tv[TV_ROWUSED] == 0 and lo <= hi
    printed = shooting and tv[TV_PRINTUSED] == 0 and T.pi[nat] != NO_WAX
    if not row and not printed:
        return
    need = MAX_K + 1
    if moment != MOMENT_C and not is_random_nb(T, W, seat):
        need = need_nb(T, W, seat, count_bound_nb(T, W, seat) + W.tv[TV_DICE] + 1)
    # each icon's value now, by bit index (options use sc[0:32]), for the icons on offer
    offer = 0
    if row:
        offer |= T.wi[nat, st[seat, S_WR + lo]] | T.wi[nat, st[seat, S_WR + hi]]
    if printed:
        offer |= T.pi[nat]
    iv = W.sc[32:40]
    for i in range(8):
        iv[i] = 0.0
        if (offer >> i) & 1:
            iv[i] = icon_value_nb(T, W, seat, 1 << i, moment, shooting, miss_now, need)
    if row:
        tid = st[seat, S_WR + lo]
        n = token_options_nb(T, W, seat, n, lo, T.wi[nat, tid], T.wm[nat, tid], shooting, iv)
        if hi != lo:
            tid = st[seat, S_WR + hi]
            n = token_options_nb(T, W, seat, n, hi, T.wi[nat, tid], T.wm[nat, tid], shooting, iv)
    if printed:
        n = token_options_nb(T, W, seat, n, -1, T.pi[nat], T.pm[nat], shooting, iv)
    if n == 1:
        return
    j = pick_nb(T, W, seat, n, DK_WAX)
    pos = W.opt[j, 0]
    if pos == -2:
        return
    action = W.opt[j, 1]
    if pos >= 0:
        tid = st[seat, S_WR + pos]
        icons = T.wi[nat, tid]
        mode = T.wm[nat, tid]
        tv[TV_ROWUSED] = 1
        st[seat, C_WAX_TOKENS] += 1
        if pos == lo:
            st[seat, S_WLO] = lo + 1
        else:
            st[seat, S_WHI] = hi - 1
    else:
        tid = -1
        icons = T.pi[nat]
        mode = T.pm[nat]
        tv[TV_PRINTUSED] = 1
        st[seat, C_PRINTED] += 1
    ev_nb(T, W, seat, EV_WAX, moment, pos, tid, icons, action, 0, 0, 0, 0, 0, 0, 0, 0)
    if (icons & WAX_STAMINA) != 0:
        st[seat, C_WAX + 7] += 1
        tc = pay_nb(T, W, seat, PAY_TOKEN, False, shooting)
        if tc == PAY_COLLAPSE:
            collapse_nb(T, W, seat, PAY_TOKEN)
            return
        if tc < 0:
            raise ValueError("wax: a stamina icon could not be paid after being checked")
    # a "/" token does the one icon chosen (a single bit of its icons), any other token each of
    # its icons in order: one loop, so the icons' code is compiled once
    use = action if mode == WAX_ONE_OF else icons
    for i in range(7):
        bit = 1 << i
        if (use & bit) != 0:
            do_icon_nb(T, W, seat, bit, shooting)


# =================================================================================================
# the column step (§4.1)
# =================================================================================================
@inline
def col_dice_nb(T, b, nat, c):
    """Dice a column would count if taken now (its box's six when full)."""
    if c == PICK_SPRINT:
        return b[B_SPRINT]
    v = b[B_COL + c]
    if b[B_STAR + c] != 0 and v >= T.fat[nat, c]:
        v += 1
    return v


@inline
def dist_to_stop_nb(T, W, seat):
    """Rows from the racer to the next shooting row or the finish line."""
    st = W.st
    r = st[seat, S_ROW]
    nrows = T.crs.shape[0]
    for rr in range(max(r + 1, 0), nrows):
        if T.crs[rr, CR_RANGE] >= 0:
            return rr - r
    return nrows - r


@inline
def planned_value_nb(T, W, seat, k, vs, occw, spent):
    """The planning player's value (move_value_nb) of a move of k steps from where the racer
    stands, `spent` payments of this turn's additional columns committed; -1e18 when no legal way
    makes them all."""
    st = W.st
    if k <= 0:
        return 10.0 * st[seat, S_ROW]
    k = min(k, MAX_K)
    return move_value_nb(T, W, seat, st[seat, S_ROW], st[seat, S_LANE], 1, k, vs, occw,
                         pay_count_nb(T, W, seat, spent, k))


@inline
def column_step_nb(T, W, seat):
    """Take the columns (§4.1): mandatory column, additional ones, flip choices; log; return the
    dice taken."""
    st = W.st
    tv = W.tv
    nat = st[seat, S_NAT]
    b = st[seat, S_BOARD:S_BOARD + 10]
    shooting = tv[TV_SHOOTING] != 0
    heur = not is_random_nb(T, W, seat)
    nt = T.rl[R_TARGETS]
    if shooting:
        useful = nt - st[seat, S_SHOTS]
    else:
        useful = dist_to_stop_nb(T, W, seat) + 1
        if st[seat, S_INLANE] != 0:
            useful = 99
    plan = heur and wt_nb(T, W, seat, P_PLAN) > 0.5
    need = need_nb(T, W, seat, count_bound_nb(T, W, seat)) if plan else MAX_K + 1
    # the planned move's value for each count (look_extra): a moving turn on the course
    # (with no racer near, the move steps greedily and the moves it adds are what it gains)
    onc = (plan and not shooting and st[seat, S_INLANE] == 0
           and racer_near_nb(st, seat, st[seat, S_ROW], count_bound_nb(T, W, seat)))
    look = onc and wt_nb(T, W, seat, P_LOOK_EXTRA) > 0.5
    look1 = onc and wt_nb(T, W, seat, P_LOOK_FIRST) > 0.5
    vs = 0
    occw = 0.0
    if look or look1:
        vs, occw = plan_memo_nb(T, W, seat)
    # the mandatory column
    n = 0
    waste = wt_nb(T, W, seat, P_FIRST_WASTE) if heur else 0.0
    for c in range(N_COLUMNS):
        if first_column_legal_nb(b, c):
            W.opt[n, 0] = c
            d = col_dice_nb(T, b, nat, c)
            W.sc[n] = 1.0 * min(d, useful) + 0.01 * c * (wt_nb(T, W, seat, P_FIRST_HIGH)
                                                         if heur else 1.0)
            if look1:
                # the rows (and the end space's value) the planned move makes with it
                x = turn_count_nb(T, W, seat, d, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV])
                v1 = planned_value_nb(T, W, seat, x, vs, occw, 0)
                if v1 > -1.0e17:
                    W.sc[n] += 0.1 * v1 - st[seat, S_ROW] - min(d, useful)
            if waste != 0.0 and d > need:
                # dice the turn cannot use: left on the board they would serve a later turn
                W.sc[n] -= waste * (d - need)
            n += 1
    first = W.opt[pick_nb(T, W, seat, n, DK_FIRST), 0]
    total = col_dice_nb(T, b, nat, first)
    # additional columns, one decision at a time
    extras = W.fb[0:0]
    ne = 0
    mask = 0
    free = tv[TV_FREE]
    tmp_ex = W.q[32:40]
    while True:
        W.opt[0, 0] = -1
        top = 0
        for c in range(nt):
            v = T.sv[nat, c, st[seat, S_MK + c]]
            if v > top:
                top = v
        W.sc[0] = 0.0
        n = 1
        paying = max(ne + 1 - free, 0)
        payable = -1          # can_pay_nb, ahead_of_pace_nb: the same for every column (-1 not yet)
        ahead = -1
        for c in range(N_COLUMNS + 1):
            if c == first or (mask >> c) & 1:
                continue
            held = b[B_SPRINT] if c == PICK_SPRINT else b[B_COL + c]
            if held == 0:
                continue
            if c == PICK_SPRINT and tv[TV_SPRINT] != 0 and T.rl[R_SPRINT_ICON_COLUMN] == 0:
                continue          # a sprint icon counted these dice this turn (§10)
            if paying > 0:
                if payable < 0:
                    payable = 1 if can_pay_nb(T, W, seat, paying, shooting) else 0
                if payable == 0:
                    continue
            W.opt[n, 0] = c
            if heur:
                d = col_dice_nb(T, b, nat, c)
                if plan:
                    # the moves (shots) the column adds that the turn can use: none beyond the
                    # range or the finish line, the tokens already used and the uphill counted
                    x0 = turn_count_nb(T, W, seat, total, tv[TV_PLUS], tv[TV_MINUS],
                                       tv[TV_SPRINTMV])
                    x1 = turn_count_nb(T, W, seat, total + d, tv[TV_PLUS], tv[TV_MINUS],
                                       tv[TV_SPRINTMV])
                    gain = min(x1, need) - min(x0, need)
                    if look:
                        # rows (and the end space's value) the planned move gains with it
                        v0 = planned_value_nb(T, W, seat, x0, vs, occw, max(ne - free, 0))
                        v1 = planned_value_nb(T, W, seat, x1, vs, occw, paying)
                        if v0 > -1.0e17 and v1 > -1.0e17:
                            gain = 0.1 * (v1 - v0)
                            # a column that would leave one already taken without use (the move
                            # as good without that one's dice) is worth nothing: taken one at a
                            # time, the columns must not pay for dice the move leaves over
                            for i in range(ne):
                                xp = turn_count_nb(T, W, seat,
                                                   total + d - col_dice_nb(T, b, nat, tmp_ex[i]),
                                                   tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV])
                                if planned_value_nb(T, W, seat, xp, vs, occw,
                                                    max(ne - free, 0)) >= v1:
                                    gain = -MAX_K
                else:
                    gain = min(total + d, useful) - min(total, useful)
                thr = wt_nb(T, W, seat, P_EXTRA_MIN)
                if ahead < 0:
                    ahead = 1 if ahead_of_pace_nb(T, W, seat, paying) else 0
                if ahead == 1:
                    thr = wt_nb(T, W, seat, P_EXTRA_SURPLUS)
                s = gain - thr + 0.5
                if ne + 1 > free:
                    if top <= wt_nb(T, W, seat, P_RESERVE):
                        s = -1.0
                    if shooting and wt_nb(T, W, seat, P_RANGE_EXTRA) < 0.5:
                        s = -1.0
                else:
                    s = gain - 0.5
                W.sc[n] = s
            else:
                W.sc[n] = 0.0
            n += 1
        if n == 1:
            break
        c = W.opt[pick_nb(T, W, seat, n, DK_EXTRA), 0]
        if c < 0:
            break
        tmp_ex[ne] = c
        ne += 1
        mask |= 1 << c
        total += col_dice_nb(T, b, nat, c)
    # flip boxes: a full column's six traded for a used token turned face up again
    flips = W.tmp[16:20]
    flips[:] = 0
    flipmask = 0
    wrow = T.rl[R_WAX_ROW]
    for c in range(N_COLUMNS):
        if c != first and ((mask >> c) & 1) == 0:
            continue
        if T.bx[nat, c] != BOX_FLIP or b[B_STAR + c] == 0 or b[B_COL + c] < T.fat[nat, c]:
            continue
        lo = st[seat, S_WLO]
        hi = st[seat, S_WHI]
        if lo == 0 and hi == wrow - 1:
            continue          # no used token to turn back
        W.opt[0, 0] = 0
        W.sc[0] = 0.0
        W.opt[1, 0] = 1
        W.sc[1] = 1.0 if wt_nb(T, W, seat, P_FLIP) > 0.5 else -1.0
        if pick_nb(T, W, seat, 2, DK_FLIP) == 1:
            flips[c] = 1
            flipmask |= 1 << c
    # sort the extras (column order, sprint last) and pay
    for i in range(1, ne):
        x = tmp_ex[i]
        j = i - 1
        while j >= 0 and tmp_ex[j] > x:
            tmp_ex[j + 1] = tmp_ex[j]
            j -= 1
        tmp_ex[j + 1] = x
    ex = W.fb[0:ne]
    for i in range(ne):
        ex[i] = tmp_ex[i]
    used_free = 1 if (free > 0 and ne > 0) else 0
    paying = max(ne - free, 0)
    expect = total - popcount_nb(flipmask)
    ev_nb(T, W, seat, EV_TAKE, first, mask, flipmask, used_free, expect, paying, 0, 0, 0, 0, 0, 0,
          0)
    for i in range(paying):
        xc = pay_nb(T, W, seat, PAY_EXTRA, False, shooting)
        if xc == PAY_COLLAPSE:
            collapse_nb(T, W, seat, PAY_EXTRA)
            return 0
        if xc < 0:
            raise ValueError("column step: a payment was refused after being checked")
    pc = W.fb[16:16 + ne]
    pc[:] = -1
    status, dice, sprint, traded, paid = take_dice_nb(
        b, st[seat, S_MK:S_MK + nt], first, ex, ne, flips, T.fat[nat], T.bx[nat], T.sv[nat],
        T.ns[nat], shooting, st[seat, S_SHOTS], T.rl[R_RANGE_PAYMENT], pc)
    if status != TAKE_OK or dice != expect:
        raise ValueError("column step: take_dice_nb refused a checked choice")
    st[seat, C_EXTRA] += ne
    if sprint:
        st[seat, C_SPRINT_TAKEN] += 1
        if tv[TV_SPRINT] == 0:
            st[seat, C_SPRINT_USES] += 1
        tv[TV_SPRINT] = 1
    # the flip trades: each turns an innermost used token face up
    for c in range(N_COLUMNS):
        if flips[c] == 0:
            continue
        st[seat, C_FLIPS] += 1
        lo = st[seat, S_WLO]
        hi = st[seat, S_WHI]
        n = 0
        if lo > hi:
            for p in range(wrow):
                W.opt[n, 0] = p
                W.sc[n] = 0.0
                n += 1
        else:
            if lo > 0:
                W.opt[n, 0] = lo - 1
                W.sc[n] = 0.0
                n += 1
            if hi < wrow - 1:
                W.opt[n, 0] = hi + 1
                W.sc[n] = 0.0
                n += 1
        p = W.opt[pick_nb(T, W, seat, n, DK_FLIPBACK), 0]
        if lo > hi:
            st[seat, S_WLO] = p
            st[seat, S_WHI] = p
        elif p < lo:
            st[seat, S_WLO] = p
        else:
            st[seat, S_WHI] = p
        ev4_nb(T, W, seat, EV_FLIPBACK, p, 0, 0, 0)
    return dice


@inline
def popcount_nb(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


# =================================================================================================
# a turn (§4.8)
# =================================================================================================
@inline
def shot_nb(T, W, seat):
    """One shot at the racer's next target (§4.4), before its moment C."""
    st = W.st
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    t = st[seat, S_SHOTS]
    die = shot_die_nb(st[seat, S_MK:S_MK + nt], T.sd[nat], t)
    face = draw_nb(W, T.dien[die])
    hit = is_hit_nb(T.dief, die, face)
    st[seat, S_TG + t] = TARGET_HIT if hit else TARGET_MISS
    st[seat, S_TD + t] = die
    st[seat, S_SHOTS] = t + 1
    st[seat, C_SHOTS] += 1
    if hit:
        st[seat, C_HITS] += 1
    ev4_nb(T, W, seat, EV_SHOT, t, die, face, 1 if hit else 0)
    v = W.visits[st[seat, S_VROW]]
    v.shots = t + 1
    v.hits = visit_hits_nb(T, W, seat)
    v.misses = v.shots - v.hits


@inline
def shooting_done_nb(T, W, seat):
    """After a shooting turn's last shot: the penalty laps once every target is shot."""
    st = W.st
    nt = T.rl[R_TARGETS]
    if st[seat, S_SHOTS] >= nt and st[seat, S_DONE] == 0:
        hits = visit_hits_nb(T, W, seat)
        misses = nt - hits
        laps = penalty_laps_nb(misses, T.pen)
        st[seat, S_DONE] = 1
        st[seat, S_LAPS] = laps
        st[seat, S_LAPMV] = 0
        st[seat, S_INLANE] = 1 if laps > 0 else 0
        st[seat, C_LAPS] += laps
        vi = st[seat, S_VISIT] - 1
        if vi < 4:
            st[seat, C_LAPS_R + vi] = laps
        ev4_nb(T, W, seat, EV_LAPS, misses, laps, 0, 0)
        v = W.visits[st[seat, S_VROW]]
        v.penalties = laps


@inline
def turn_nb(T, W, seat):
    st = W.st
    tv = W.tv
    nat = st[seat, S_NAT]
    nt = T.rl[R_TARGETS]
    for i in range(TV_SHOOTING + 2):
        tv[i] = 0
    for i in range(TV_PLAN, TV_NEED + 1):
        tv[i] = 0             # the turn's memos of planned moves and of need_nb: none yet
    tv[TV_FIRST_SHOT] = -1
    tv[TV_DICE] = -1
    r = st[seat, S_ROW]
    l = st[seat, S_LANE]
    shooting = (r >= 0 and space_nb(T, r, l) == SPACE_SHOOT and st[seat, S_DONE] == 0
                and st[seat, S_SHOTS] < nt)
    tv[TV_SHOOTING] = 1 if shooting else 0
    st[seat, C_TURNS] += 1
    if shooting:
        st[seat, V_TURNS] += 1
        W.visits[st[seat, S_VROW]].shoot_turns = st[seat, V_TURNS]
    elif (r >= 0 and space_nb(T, r, l) == SPACE_SHOOT and st[seat, S_INLANE] == 0
          and st[seat, V_LEAVE] == 0):
        st[seat, V_LEAVE] = 1
        W.visits[st[seat, S_VROW]].leave_round = tv[TV_ROUND]
    ev_nb(T, W, seat, EV_TURN, 1 if shooting else 0, r, l, st[seat, S_INLANE], st[seat, S_LAPS],
          st[seat, S_LAPMV], st[seat, S_SHOTS], 0, 0, 0, 0, 0, 0)
    # The wax moments (§4.6): A before the column step, B after it, and on a shooting turn C
    # after each shot. One loop with one call site, so the moment's code (over half of the
    # turn's) is compiled once, not once per moment.
    dice = 0
    left = 0                  # shots still to fire this turn
    moment = MOMENT_A
    while True:
        wax_moment_nb(T, W, seat, moment)
        if st[seat, S_STATUS] != RACING:
            if moment == MOMENT_C:
                W.visits[st[seat, S_VROW]].range_paid = st[seat, V_PAID]
            return            # collapsed paying a token (collapse_on = any)
        if moment == MOMENT_A:
            dice = column_step_nb(T, W, seat)
            if st[seat, S_STATUS] != RACING:
                return
            tv[TV_DICE] = dice
            moment = MOMENT_B
            continue
        if moment == MOMENT_B:
            if not shooting:
                break
            shots = max(dice + tv[TV_PLUS] - tv[TV_MINUS], 0)
            ev_nb(T, W, seat, EV_COUNT, dice, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV], 0, shots,
                  tv[TV_SPRINT], 0, 0, 0, 0, 0, 0)
            tv[TV_FIRST_SHOT] = st[seat, S_SHOTS]
            left = min(shots, nt - st[seat, S_SHOTS])
            moment = MOMENT_C
        if left <= 0:
            break
        left -= 1
        shot_nb(T, W, seat)
    if shooting:
        shooting_done_nb(T, W, seat)
        W.visits[st[seat, S_VROW]].range_paid = st[seat, V_PAID]
        return
    # a moving turn
    red = (r >= 0 and st[seat, S_INLANE] == 0 and space_nb(T, r, l) == SPACE_RED)
    moves = move_count_nb(dice, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV], red,
                          T.rl[R_UPHILL_PENALTY])
    ev_nb(T, W, seat, EV_COUNT, dice, tv[TV_PLUS], tv[TV_MINUS], tv[TV_SPRINTMV], 1 if red else 0,
          moves, tv[TV_SPRINT], 0, 0, 0, 0, 0, 0)
    if st[seat, S_INLANE] != 0:
        per = T.crs[r, CR_PEN]
        spent = 0
        while moves > 0 and st[seat, S_LAPS] > 0:
            moves -= 1
            spent += 1
            st[seat, S_LAPMV] += 1
            if st[seat, S_LAPMV] >= per:
                st[seat, S_LAPS] -= 1
                st[seat, S_LAPMV] = 0
        if st[seat, S_LAPS] == 0:
            st[seat, S_INLANE] = 0
            st[seat, V_LEAVE] = 1
            W.visits[st[seat, S_VROW]].leave_round = tv[TV_ROUND]
        ev4_nb(T, W, seat, EV_LAP, spent, st[seat, S_LAPS], st[seat, S_LAPMV], 0)
        if st[seat, S_INLANE] != 0 or moves == 0:
            return
    # drafters are those in place now; the leader's start and trail
    for s in range(st.shape[0]):
        st[s, S_MOVED] = 0
        st[s, S_TLEN] = 0
    st[seat, S_MOVED] = 1
    st[seat, S_SROW] = st[seat, S_ROW]
    st[seat, S_SLANE] = st[seat, S_LANE]
    steps, so, res = move_nb(T, W, seat, moves)
    if res == 2:
        return
    if res == 0 and steps > 0:
        bonus_nb(T, W, seat, so, T.rl[R_DRAFT_FOLLOWS_BONUS] != 0)
    if steps > 0 and st[seat, S_STATUS] != COLLAPSED:
        drafting_nb(T, W, seat, seat)


# =================================================================================================
# set-up: the wax row (§2.3 item 6)
# =================================================================================================
@inline
def wax_row_nb(T, W, seat, fixed):
    """The racer's six tokens and their order: `fixed` (ids, -1 = let the player choose) or the
    player's choice: random (a random ordered choice) or by persona values, best at the ends."""
    st = W.st
    nat = st[seat, S_NAT]
    nw = T.rl[R_WAX_TOKENS]
    wrow = T.rl[R_WAX_ROW]
    if fixed[0] >= 0:
        for p in range(wrow):
            st[seat, S_WR + p] = fixed[p]
    elif is_random_nb(T, W, seat):
        ids = W.tmp[0:nw]
        for i in range(nw):
            ids[i] = i
        for i in range(nw - 1, 0, -1):
            j = below_nb(W.prng, i + 1)
            x = ids[i]
            ids[i] = ids[j]
            ids[j] = x
        for p in range(wrow):
            st[seat, S_WR + p] = ids[p]
    else:
        val = W.sc[0:nw]
        for i in range(nw):
            icons = T.wi[nat, i]
            v = 0.0
            best = -99.0
            for k in range(8):
                if (icons & (1 << k)) != 0:
                    x = wt_nb(T, W, seat, P_TOKEN + k)
                    if k == 7:
                        v += x
                    elif T.wm[nat, i] == WAX_ONE_OF:
                        best = max(best, x)
                    else:
                        v += x
            if best > -99.0:
                v += best
            val[i] = v
        taken = W.tmp[0:nw]
        taken[:] = 0
        for p in range(wrow):
            bi = -1
            for i in range(nw):
                if taken[i] == 0 and (bi < 0 or val[i] > val[bi]):
                    bi = i
            taken[bi] = 1
            pos = p // 2 if p % 2 == 0 else wrow - 1 - p // 2
            st[seat, S_WR + pos] = bi
    st[seat, S_WLO] = 0
    st[seat, S_WHI] = wrow - 1


# =================================================================================================
# the block entry point
# =================================================================================================
@inline
def progress_nb(T, W, s):
    st = W.st
    if st[s, S_STATUS] == FINISHED:
        return (T.crs.shape[0] + 2) * 16 + (16 - st[s, S_PLACE])
    if st[s, S_STATUS] == COLLAPSED:
        return -1000
    return (st[s, S_ROW] + 1) * 16


@entry_hot
def play_races_nb(rl, pen, dief, dien, sv, sd, ns, cap, fat, bx, spc, wi, wm, pi, pm, crs, su,
                  pk, pw, seed, races, nations, players, waxfix, init, script, dsc, seats_out,
                  visits_out, log, ct, st, tv, dsi, memo, stk, trail, opt, sc, fb, tmp, q, rng,
                  prng, lk, lv, dv, ds, sx, rst, rtv, rct, rrng, rprng, rdsc, rdsi, rlog, rvisits,
                  acc, chosen, pos):
    """Play `races` (int64 indices) of one set-up; fill the records.

    Tables: the compiled SkiTourTables arrays (crs: the course packed as CR_* columns), su the
    set-up (SU_*), pk/pw the players' kinds and weights. nations/players int16[len(races), n]:
    nation id and player index per seat. waxfix int16[len(races), n, MAX_ROW]: a fixed wax row
    (-1 = the player chooses). init int32[n, S_N]: with su[SU_INIT], the state every race starts
    from (tests). script: die faces drawn before the streams; dsc int64[n, m]: scripted decisions.
    seats_out: kernel seat dtype [len(races) * n]; visits_out: visit dtype, ct[CT_VISITS] rows
    written. log int16[rows, LOG_COLS], written when su[SU_LOG]. The rest is work space: from
    rst on, the strength reference's rollout board (state, counters, streams, decision script of
    width >= MAX_SEARCHED and >= dsc's, a scratch log and visit records as large as visits_out),
    the heuristic pick's rollout scores (float64[MAX_ROLLOUTS]), decisions chosen (int64[MAX_SEARCHED]) and the
    boards' places in their rounds (int64[2, 4]).
    """
    T = Tab(borrow_nb(rl), borrow_nb(pen), borrow_nb(dief), borrow_nb(dien), borrow_nb(sv),
            borrow_nb(sd), borrow_nb(ns), borrow_nb(cap), borrow_nb(fat), borrow_nb(bx),
            borrow_nb(spc), borrow_nb(wi), borrow_nb(wm), borrow_nb(pi), borrow_nb(pm),
            borrow_nb(crs), borrow_nb(su), borrow_nb(pk), borrow_nb(pw))
    W = Work(borrow_nb(st), borrow_nb(tv), borrow_nb(ct), borrow_nb(rng), borrow_nb(prng),
             borrow_nb(script), borrow_nb(dsc), borrow_nb(dsi), borrow_nb(log), borrow_nb(memo),
             borrow_nb(stk), borrow_nb(trail), borrow_nb(opt), borrow_nb(sc), borrow_nb(fb),
             borrow_nb(tmp), borrow_nb(q), borrow_nb(visits_out), borrow_nb(lk), borrow_nb(lv),
             borrow_nb(dv), borrow_nb(ds), borrow_nb(sx))
    RW = Work(borrow_nb(rst), borrow_nb(rtv), borrow_nb(rct), borrow_nb(rrng), borrow_nb(rprng),
              W.script, borrow_nb(rdsc), borrow_nb(rdsi), borrow_nb(rlog), W.memo, W.stk, W.trail,
              W.opt, W.sc, W.fb, W.tmp, W.q, borrow_nb(rvisits), W.lk, W.lv, W.dv, W.ds, W.sx)
    acc = borrow_nb(acc)
    chosen = borrow_nb(chosen)
    pos = borrow_nb(pos)
    races = borrow_nb(races)
    nations = borrow_nb(nations)
    players = borrow_nb(players)
    waxfix = borrow_nb(waxfix)
    init = borrow_nb(init)
    seats_out = borrow_nb(seats_out)
    st = W.st
    tv = W.tv
    n = su[SU_N]
    nt = rl[R_TARGETS]
    nrows = crs.shape[0]
    two = su[SU_VARIANT] == VARIANT_TWO_PLAYER
    cap_rounds = rl[R_ROUND_CAP]
    together = rl[R_TWO_PLAYER_SEATS] == SEATS_TOGETHER
    for slot in range(races.shape[0]):
        race = races[slot]
        start = 0
        if rl[R_FIRST_PLAYER] == FIRST_DRAWN:
            seed_stream_nb(W.rng, seed, race, STREAM_FIRST)    # its own stream: the dice stay paired
            start = below_nb(W.rng, su[SU_N])
        seed_stream_nb(W.rng, seed, race, STREAM_CHANCE)
        seed_stream_nb(W.prng, seed, race, STREAM_PLAYER)
        st[:, :] = 0
        stamp = tv[TV_STAMP]       # memo marks stay valid only under fresh stamps: keep counting
        tv[:] = 0
        tv[TV_STAMP] = stamp
        dsi[:] = 0
        vstart = ct[CT_VISITS]
        tv[TV_NEXT_PLACE] = 1
        tv[TV_WINNER] = -1
        tv[TV_LAST_RANGE_SEAT] = -1
        for s in range(n):
            nat = nations[slot, s]
            st[s, S_NAT] = nat
            st[s, S_SIDE] = (s // 2 if together else s % 2) if two else s
            st[s, S_PLAYER] = players[slot, s]
            st[s, S_STATUS] = RACING
            st[s, S_ROW] = -1
            st[s, S_LANE] = 0
            st[s, S_BOARD + B_AVAILABLE] = rl[R_RACE_DICE]
            for c in range(nt):
                st[s, S_MK + c] = su[SU_START_SLOT]
                st[s, S_TD + c] = -1
            st[s, C_COLLAPSE_ROUND] = -1
            st[s, C_FINISH_ROUND] = -1
            for k in range(4):
                st[s, C_LAPS_R + k] = -1
            wax_row_nb(T, W, s, waxfix[slot, s])
        if su[SU_INIT] != 0:
            for s in range(n):
                for k in range(S_N):
                    if init[s, k] != -9999:
                        st[s, k] = init[s, k]
        ev_nb(T, W, -1, EV_RACE, su[SU_COURSE], n, su[SU_VARIANT], su[SU_START_SLOT], cap_rounds,
              nrows, su[SU_RANGES], 0, 0, 0, 0, 0, 0)
        for s in range(n):
            ev4_nb(T, W, s, EV_SEAT, st[s, S_NAT], st[s, S_SIDE], st[s, S_PLAYER], 0)
        for s in range(n):
            w = st[s]
            ev_nb(T, W, s, EV_WAXROW, w[S_WR], w[S_WR + 1], w[S_WR + 2], w[S_WR + 3], w[S_WR + 4],
                  w[S_WR + 5], 0, 0, 0, 0, 0, 0, 0)
        # One loop plays the race's turns and the strength reference's rollouts, on the board X:
        # the race (W) or a rollout (RW); pos[board] = (round, seats of it called, first seat,
        # rounds opened). Every turn is played at the single turn_nb below (compile time).
        leader = -1
        lead_changes = 0
        stalled = 0
        pos[0, 0] = 0
        pos[0, 1] = n
        pos[0, 2] = 0
        srch = -1              # the reference seat whose turn is searched, -1 none
        final = -1             # the seat whose searched turn the race plays next
        mode = 0               # 0: the race; 1: a rollout
        dec = 0                # the decision searched (its index among the turn's decisions)
        idx = 0                # the option tried: 0 the heuristic's pick, then the others
        opt_k = 0              # its index among the decision's options
        ro_r = 0               # the rollout of that option
        n_opt = 0
        h_pick = 0
        dkind = 0
        best_o = 0
        best_m = 0.0
        dsum = 0.0
        dsq = 0.0
        confidence = 0.0
        budget = 0
        horizon = 0
        dmax = 0
        credit = 0.0
        stamp_run = tv[TV_STAMP]
        first_turn = False
        saved = 0
        X = W
        while True:
            if mode == 0:
                X = W
            else:
                X = RW
            if pos[mode, 1] >= n or X.tv[TV_OVER] != 0:
                # a new round on board X, or the end of its race (or of the rollout)
                running = 0
                for s in range(n):
                    if X.st[s, S_STATUS] == RACING:
                        running += 1
                over = running == 0 or X.tv[TV_OVER] != 0
                if not over and pos[mode, 0] >= cap_rounds:
                    over = True
                    if mode == 0:
                        stalled = 1
                if mode == 1 and horizon > 0 and pos[1, 3] >= horizon - 1:
                    over = True
                if over and mode == 0:
                    break
                if over:
                    # the rollout's score, and the next rollout or the end of the search
                    # the options are tried in the order: the heuristic's pick (idx 0), then the
                    # others; each against the pick's score in the same rollout (paired)
                    stamp_run = RW.tv[TV_STAMP]
                    v = rollout_score_nb(T, RW, srch, credit)
                    if idx == 0:
                        acc[ro_r] = v
                    else:
                        dsum += v - acc[ro_r]
                        dsq += (v - acc[ro_r]) * (v - acc[ro_r])
                    ro_r += 1
                    done = False
                    if ro_r >= budget:
                        ro_r = 0
                        if idx > 0:
                            # an option replaces the pick only where its mean gain over the pick
                            # exceeds `confidence` standard errors
                            m = dsum / budget
                            se = np.sqrt(max(dsq / budget - m * m, 0.0) / budget)
                            if m - confidence * se > 0.0 and m > best_m:
                                best_m = m
                                best_o = opt_k
                        dsum = 0.0
                        dsq = 0.0
                        idx += 1
                        if idx >= n_opt:
                            chosen[dec] = best_o
                            sk = CT_SEARCH + SEARCH_STATS * dkind
                            W.ct[sk] += 1
                            if best_o != h_pick:
                                W.ct[sk + 1] += 1
                                if best_o == 0:
                                    W.ct[sk + 2] += 1
                                elif h_pick == 0:
                                    W.ct[sk + 3] += 1
                            dec += 1
                            idx = 0
                            done = dec >= dmax
                    if done:
                        mode = 0
                        final = srch
                    else:
                        code = SEARCH_POINT
                        if idx > 0:
                            opt_k = idx - 1 if idx - 1 < h_pick else idx
                            code = SEARCH_POINT - 1 - opt_k
                        begin_rollout_nb(W, RW, srch, dec, code, ro_r, chosen, pos, stamp_run)
                        first_turn = True
                    continue
                rnd = pos[mode, 0] + 1
                pos[mode, 0] = rnd
                pos[mode, 1] = 0
                pos[mode, 2] = (start + rnd - 1) % n
                pos[mode, 3] += 1
                X.tv[TV_ROUND] = rnd
                X.tv[TV_FIRST] = pos[mode, 2]
                ev4_nb(T, X, -1, EV_ROUND, rnd, pos[mode, 2], 0, 0)
                for s in range(n):
                    if X.st[s, S_STATUS] == RACING:
                        prepare_nb(T, X, s)
            j = pos[mode, 1]
            s = (pos[mode, 2] + j) % n
            pos[mode, 1] = j + 1
            if X.st[s, S_STATUS] != RACING:
                continue
            if mode == 0 and s != final and not two and T.pk[st[s, S_PLAYER]] == PLAYER_REFERENCE:
                budget = min(np.int64(T.pw[st[s, S_PLAYER], P_ROLLOUTS]), MAX_ROLLOUTS)
                dmax = min(np.int64(T.pw[st[s, S_PLAYER], P_DECISIONS]), MAX_SEARCHED)
                if budget > 0 and dmax > 0:
                    # search this turn's decisions first: rollouts from the turn's start
                    horizon = np.int64(T.pw[st[s, S_PLAYER], P_HORIZON])
                    credit = T.pw[st[s, S_PLAYER], P_PLACE_CREDIT]
                    confidence = T.pw[st[s, S_PLAYER], P_CONFIDENCE]
                    pos[0, 1] = j
                    srch = s
                    dec = 0
                    idx = 0
                    ro_r = 0
                    n_opt = 0
                    dsum = 0.0
                    dsq = 0.0
                    stamp_run = tv[TV_STAMP]
                    begin_rollout_nb(W, RW, s, 0, SEARCH_POINT, 0, chosen, pos, stamp_run)
                    first_turn = True
                    mode = 1
                    continue
            if mode == 0 and s == final:
                # the searched turn, for real: its decisions scripted, the race's own dice
                for i in range(W.dsc.shape[1]):
                    W.dsc[s, i] = chosen[i] if i < dec else -1
                saved = W.dsi[s]
                W.dsi[s] = 0
                tv[TV_STAMP] = stamp_run
            turn_nb(T, X, s)
            if mode == 1:
                if s == srch and first_turn:
                    # the searched racer's first rollout turn is over: did it reach the decision?
                    first_turn = False
                    RW.dsi[s] = RW.dsc.shape[1]          # its script is over
                    if ro_r == 0 and idx == 0:
                        n_opt = RW.ct[CT_NOPT]
                        h_pick = RW.ct[CT_HPICK]
                        dkind = RW.ct[CT_DKIND]
                        best_o = h_pick
                        best_m = 0.0
                        if n_opt == 0:
                            # the turn has no decision left: the search is over
                            mode = 0
                            final = srch
                            stamp_run = RW.tv[TV_STAMP]
                            continue
                    W.ct[CT_ROLLOUTS] += 1
                    for o in range(n):
                        RW.st[o, S_PLAYER] = RW.st[s, S_PLAYER]
                    if RW.st[s, S_STATUS] != RACING:
                        RW.tv[TV_OVER] = 1
                elif RW.st[srch, S_STATUS] != RACING:
                    RW.tv[TV_OVER] = 1                    # its place is settled
                continue
            if s == final:
                for i in range(W.dsc.shape[1]):
                    W.dsc[s, i] = -1
                W.dsi[s] = saved
                final = -1
                srch = -1
            # the leader
            best = leader
            for x in range(n):
                if best < 0 or progress_nb(T, W, x) > progress_nb(T, W, best):
                    best = x
            if best != leader:
                if leader >= 0:
                    lead_changes += 1
                leader = best
        rnd = pos[0, 0]
        ev4_nb(T, W, -1, EV_END, rnd, stalled, tv[TV_WINNER] if two else first_place_nb(st),
               0)
        # places
        if two:
            win_side = st[tv[TV_WINNER], S_SIDE] if tv[TV_WINNER] >= 0 else -1
            for s in range(n):
                if win_side < 0:
                    st[s, S_PLACE] = 0
                else:
                    st[s, S_PLACE] = 1 if st[s, S_SIDE] == win_side else 2
            if win_side < 0:
                # stalled: the side furthest along in total leads
                d0 = 0
                d1 = 0
                for s in range(n):
                    if st[s, S_SIDE] == 0:
                        d0 += progress_nb(T, W, s)
                    else:
                        d1 += progress_nb(T, W, s)
                for s in range(n):
                    st[s, S_PLACE] = 1 if (st[s, S_SIDE] == 0) == (d0 >= d1) else 2
        else:
            nxt = tv[TV_NEXT_PLACE]
            for _ in range(n):
                bs = -1
                for s in range(n):
                    if st[s, S_STATUS] == FINISHED or st[s, S_PLACE] > 0:
                        continue
                    if bs < 0 or dist_left_nb(T, st, s) < dist_left_nb(T, st, bs):
                        bs = s
                if bs < 0:
                    break
                st[bs, S_PLACE] = nxt
                nxt += 1
        base = slot * n
        for s in range(n):
            r = seats_out[base + s]
            r.race = race
            r.scenario = su[SU_COURSE]
            r.n_racers = n
            r.seat = s
            r.team = st[s, S_SIDE]
            r.leg = (s % 2 if together else s // 2) if two else 0
            r.player = st[s, S_PLAYER]
            r.place = st[s, S_PLACE]
            r.won = 1 if (st[s, S_PLACE] == 1 and (stalled == 0 or two)) else 0
            if not two:        # only a finisher wins (every racer may collapse: collapse_on = any)
                r.won = 1 if (st[s, S_PLACE] == 1 and st[s, S_STATUS] == FINISHED) else 0
            if two and stalled:
                r.won = 0
            r.finished = 1 if st[s, S_STATUS] == FINISHED else 0
            r.eliminated = 1 if st[s, S_STATUS] == COLLAPSED else 0
            r.elim_cause = 1 if st[s, S_STATUS] == COLLAPSED else 0
            r.rounds = rnd
            r.stalled = stalled
            r.distance_left = dist_left_nb(T, st, s)
            r.penalty_laps = st[s, C_LAPS]
            r.lead_changes = lead_changes
            r.leader_after_range = 1 if s == tv[TV_LAST_RANGE_SEAT] else 0
            r.nation = st[s, S_NAT]
            r.stamina_used = st[s, C_STAMINA]
            left = 0
            for c in range(nt):
                left += ns[st[s, S_NAT], c] - 1 - st[s, S_MK + c]
            r.stamina_left = left
            r.collapse_round = st[s, C_COLLAPSE_ROUND]
            r.finish_round = st[s, C_FINISH_ROUND]
            r.turns = st[s, C_TURNS]
            r.moves = st[s, C_MOVES]
            r.extra_columns = st[s, C_EXTRA]
            r.sprint_taken = st[s, C_SPRINT_TAKEN]
            r.sprint_uses = st[s, C_SPRINT_USES]
            r.occupied_paid = st[s, C_OCC]
            r.drafts = st[s, C_DRAFTS]
            r.draft_steps = st[s, C_DRAFT_STEPS]
            r.bonuses = st[s, C_BONUSES]
            r.bonus_steps = st[s, C_BONUS_STEPS]
            r.wax_reroll_shot = st[s, C_WAX]
            r.wax_sprint = st[s, C_WAX + 1]
            r.wax_free_column = st[s, C_WAX + 2]
            r.wax_reroll_one = st[s, C_WAX + 3]
            r.wax_reroll_all = st[s, C_WAX + 4]
            r.wax_plus_one = st[s, C_WAX + 5]
            r.wax_minus_one = st[s, C_WAX + 6]
            r.wax_stamina = st[s, C_WAX + 7]
            r.wax_tokens = st[s, C_WAX_TOKENS]
            r.printed_uses = st[s, C_PRINTED]
            r.flip_trades = st[s, C_FLIPS]
            r.shots = st[s, C_SHOTS]
            r.hits = st[s, C_HITS]
            r.laps_r1 = st[s, C_LAPS_R]
            r.laps_r2 = st[s, C_LAPS_R + 1]
            r.laps_r3 = st[s, C_LAPS_R + 2]
            r.laps_r4 = st[s, C_LAPS_R + 3]
        for v in range(vstart, ct[CT_VISITS]):
            vr = visits_out[v]
            vr.race = race
            vr.team = st[vr.seat, S_SIDE]
            vr.leg = (vr.seat % 2 if together else vr.seat // 2) if two else 0


# =================================================================================================
# the strength reference (kind "reference"): docs/players.md, "Ski Tour: the strength reference"
# =================================================================================================
@inline
def begin_rollout_nb(W, RW, s, dec, code, r, chosen, pos, stamp):
    """Set up rollout r of seat s's decision `dec` (its turn's decisions counted from 0) on the
    board RW: a copy of the race at the turn's start, whose seat s replays the turn with its
    decisions so far (chosen[:dec]) and the race's own dice up to that decision (those it has
    seen), then takes the option `code` names there (SEARCH_POINT: the heuristic's pick), where the
    rollout's chance switches to a seed of its own (search_point_nb). The seed mixes the racer's
    player stream (never the chance stream), the round, the seat, the decision and r, not the
    option: every option meets the same dice (common random numbers)."""
    copy2_nb(RW.st, W.st)                   # element loops, not slices (kernels/arrays.py)
    copy1_nb(RW.tv, W.tv)
    RW.tv[TV_STAMP] = stamp                 # fresh memo stamps, never one the race used
    for i in range(TV_PLAN, TV_NEED + 1):
        RW.tv[i] = 0
    copy1_nb(RW.ct, W.ct)
    RW.ct[CT_NOPT] = 0
    key = (W.prng[0] ^ (np.uint64(W.tv[TV_ROUND]) * KEY_ROUND) ^ (np.uint64(s + 1) * KEY_SEAT)
           ^ (np.uint64(dec + 1) * KEY_DECISION))
    key = mix64_nb(key + np.uint64(r + 1) * KEY)
    RW.ct[CT_SAMPLE] = np.int64(mix64_nb(key))
    RW.rng[0] = W.rng[0]
    RW.prng[0] = W.prng[0]
    w = W.dsc.shape[1]
    for o in range(W.st.shape[0]):
        for i in range(RW.dsc.shape[1]):
            if o == s:
                if i < dec:
                    RW.dsc[o, i] = chosen[i]
                elif i == dec:
                    RW.dsc[o, i] = code
                else:
                    RW.dsc[o, i] = -1
            else:
                RW.dsc[o, i] = W.dsc[o, i] if i < w else -1
        RW.dsi[o] = W.dsi[o]
    RW.dsi[s] = 0
    pos[1, 0] = pos[0, 0]
    pos[1, 1] = pos[0, 1]
    pos[1, 2] = pos[0, 2]
    pos[1, 3] = 0


@inline
def rollout_score_nb(T, RW, s, credit):
    """Seat s's score at a rollout's end: 1 if it won, plus `credit` times the share of the other
    racers behind it (finished by place, then the racers still racing by rows reached plus
    `stamina_rows` rows per stamina point left, at most `stamina_cap` per row still to go (0: all),
    a finisher ahead of them all; collapsed last; a tie counts half). The weights are the
    searching player's."""
    st = RW.st
    n = st.shape[0]
    pl = st[s, S_PLAYER]
    sval = T.pw[pl, P_STAMINA_ROWS]
    scap = T.pw[pl, P_STAMINA_CAP]
    nrows = T.crs.shape[0]
    for o in range(n):
        p = np.float64(progress_nb(T, RW, o))
        if sval != 0.0 and st[o, S_STATUS] == RACING:
            left = 0
            for c in range(T.rl[R_TARGETS]):
                left += T.ns[st[o, S_NAT], c] - 1 - st[o, S_MK + c]
            r = st[o, S_ROW]
            worth = np.float64(left)
            if scap > 0.0:
                worth = min(worth, scap * (nrows + 1 if r < 0 else nrows - r))
            p += 16.0 * sval * worth
        elif st[o, S_STATUS] == FINISHED:
            p += 1e9                  # ahead of every racer still racing, whatever its stamina
        RW.sc[o] = p                  # scratch: no decision is open at a rollout's end
    me = RW.sc[s]
    behind = 0.0
    for o in range(n):
        if o != s:
            if RW.sc[o] < me:
                behind += 1.0
            elif RW.sc[o] == me:
                behind += 0.5
    v = credit * behind / max(n - 1, 1)
    if st[s, S_STATUS] == FINISHED and st[s, S_PLACE] == 1:
        v += 1.0
    return v


@inline
def dist_left_nb(T, st, s):
    if st[s, S_STATUS] == FINISHED:
        return 0
    nrows = T.crs.shape[0]
    if st[s, S_ROW] < 0:
        return nrows + 1
    return nrows - st[s, S_ROW]


@inline
def first_place_nb(st):
    for s in range(st.shape[0]):
        if st[s, S_STATUS] == FINISHED and st[s, S_PLACE] == 1:
            return s
    return -1


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
