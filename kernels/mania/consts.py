"""Biathlon Mania's integer constants: enums, packed-array layouts, event kinds, record fields.

Every number the kernel, the loader and the event log share is named here once. The rules they
encode are in docs/mania/rules.md; the log in docs/mania/event-log.md.

Packed arrays (all int16 unless said):

- track row `tr` (one per track, `bundle.tracks[t]`): a header of TR_HDR values, then per loop
  square its zone, its mark and its T target, then the penalty and finish squares' zones.
- game row `g` (`bundle.game`): rules, switches and dice faces.
- set-up `su` (int64, built per call): track, format, racers, options.
- race state `st` (int32[seat, ST_N]), team state `tm` (int32[team, TM_N]), per-seat counters
  `cnt` (int32[seat, CN_N]); axis convention: seat (or team) first, then the field.
"""
from __future__ import annotations

import numpy as np

from kernels.records import seat_dtype, visit_dtype

# --- zones and marks of a square -------------------------------------------------------------
WHITE = 0          # flat: the roll as it is
BLUE = 1           # uphill: the roll halved
GREEN = 2          # downhill: the roll doubled
ZONE_LETTERS = "wbg"
ZONE_NAMES = ("white", "blue", "green")

NO_MARK = 0
MARK_X = 1         # first of the standing: next turn skipped; last: extra move
MARK_T = 2         # trainer: forward to the start of the next green zone
MARK_O = 3         # refreshment: extra move
MARK_LETTERS = " XTO"

# --- shooting die faces ----------------------------------------------------------------------
HIT = 0            # white spot
MISS = 1           # black spot
CALIBRE = 2        # black-white spot: roll the die again, white hits
FACE_NAMES = ("white", "black", "calibre")
DIE_INDIVIDUAL = 0
DIE_RELAY = 1
DIE_NAMES = ("individual", "relay")

# --- formats ---------------------------------------------------------------------------------
SPRINT = 0
MASS_START = 1
RELAY = 2
FORMAT_NAMES = ("sprint", "mass_start", "relay")

# --- stages: where a racer is ----------------------------------------------------------------
START = 0          # START area (any number of racers)
LOOP = 1           # loop square
PENALTY = 2        # penalty loop square
RANGE = 3          # on the range; the square is the line 1..range_lines
FINISH_AREA = 4    # finish area square (one racer per corridor)
FINISHED = 5       # crossed the finish line
WAITING = 6        # a relay leg not yet started
STAGE_NAMES = ("start", "loop", "penalty", "range", "finish_area", "finished", "waiting")

# --- roll purposes ---------------------------------------------------------------------------
ROLL_MOVE = 0
ROLL_X = 1
ROLL_O = 2
ROLL_EXIT = 3
ROLL_NAMES = ("move", "X extra", "O extra", "exit")

# --- limits ----------------------------------------------------------------------------------
MAX_RACERS = 8          # individual formats, and teams in a relay
MAX_LEGS = 8
MAX_SEATS = 32
MAX_LOOP = 400
MAX_SUB = 20            # penalty squares, finish squares, die faces

# --- track row layout ------------------------------------------------------------------------
TR_N = 0           # loop squares
TR_EXIT = 1        # range exit square
TR_ENTRY = 2       # penalty entry square (exit = entry + 1)
TR_P = 3           # penalty loop squares
TR_F = 4           # finish area squares
TR_CORR = 5        # finish corridors
TR_HDR = 8
# then: zone[N], mark[N], t_target[N], penalty zone[P], finish zone[F]

# --- game row layout -------------------------------------------------------------------------
G_ROUND_CAP = 0
G_TARGETS = 1
G_LINES = 2
G_HALVE_UP = 3         # switch halve_rounding: 1 up, 0 down
G_ZONE_STEPS = 4       # switch zone_rule: 1 steps, 0 start
G_EXIT_SAME = 5        # switch exit_roll: 1 same_turn, 0 next_turn
G_EXIT_SQUARE = 6      # switch exit_from: 1 exit_square, 0 range
G_SPECIALS_PUSH = 7    # switch specials_after_push
G_CHAIN = 8            # switch chain_extra_rolls
G_NUM_N = 9            # number die: faces
G_SHOOT_N = 10         # shooting dice: faces of die 0 (individual), die 1 (relay) at 10, 11
G_SHOTS_ALL = 12       # switch shots_per_turn: 1 all (the whole shooting in one turn), 0 one
G_TWO_RACERS = 13      # switch two_dice: 1 two_racers (each racer rolls one die of each kind)
G_CALIBRE_SPARE = 14   # switch calibre_uses_spare: a calibre's re-roll on a spare shot uses a spare
G_SPECIALS_PASS = 15   # switch specials_on: 1 passing (every square stepped onto), 0 landing
G_NUM_FACES = 16       # number die face values, MAX_SUB slots
G_SHOOT_FACES = 36     # die d face kinds at 36 + d * MAX_SUB
G_PENALTY_GATE = 76    # switch penalty_gate: 0 two, 1 one, 2 bypass (see GATE_*)
G_FINISH_TIES = 77     # switch finish_ties: 0 turn_order, 1 leftover, 2 shared (see TIES_*)
G_LEN = 80

# values of the switches with more than two values (order = the loader's list of values)
GATE_TWO, GATE_ONE, GATE_BYPASS = 0, 1, 2
GATE_NAMES = ("two", "one", "bypass")
TIES_TURN, TIES_LEFTOVER, TIES_SHARED = 0, 1, 2
TIES_NAMES = ("turn_order", "leftover", "shared")

# --- set-up (int64) --------------------------------------------------------------------------
SU_TRACK = 0
SU_FORMAT = 1
SU_LAPS = 2
SU_SHOOT_MASK = 3      # bit l-1 set: a shooting after lap l
SU_SPARES = 4
SU_SEATS = 5
SU_TEAMS = 6
SU_LEGS = 7
SU_NUM_DICE = 8
SU_SHOOT_DICE = 9
SU_DIE = 10
SU_LOG = 11            # 1: write the event log
SU_SHOOTINGS = 12      # shootings per racer (leg)
SU_LEN = 16

# --- race state per seat (int32[seat, ST_N]) ------------------------------------------------
ST_LAP = 0
ST_STAGE = 1
ST_SQ = 2
ST_OWED = 3            # penalty loops left, counting the one being skied
ST_FIRED = 4           # shots fired this visit (with spares)
ST_HITS = 5
ST_STANDING = 6        # targets standing this visit
ST_SPARES = 7          # spare shots left this visit
ST_SKIP = 8            # 1: next turn skipped
ST_VISIT = 9           # range visits begun
ST_OVER = 10           # 1: the shooting of this visit is over
ST_FROM_PEN = 11       # 1: the racer's last step came out of the penalty loop (penalty_gate bypass)
ST_LEFT = 12           # the roll left unused by the racer's last dice move (finish_ties leftover)
ST_PASS_X = 13         # X squares stepped onto by the last dice move before its end (specials_on passing)
ST_PASS_O = 14         # O squares, likewise
ST_PASS_T = 15         # 1: the last dice move stopped on a T it stepped onto (specials_on passing)
ST_N = 16

# --- per-team state (int32[team, TM_N]) -------------------------------------------------------
TM_LEG = 0             # active leg
TM_DONE = 1            # 1: last leg finished
TM_PLACE = 2           # place (0 until decided)
TM_LEFT = 3            # the unused roll of the last leg's crossing move (finish_ties leftover)
TM_N = 4

# --- per-seat counters (int32[seat, CN_N]), copied into the seat records --------------------
CN_TURNS = 0
CN_SKIPS = 1
CN_X_ROLLS = 2
CN_O_ROLLS = 3
CN_T_JUMPS = 4
CN_T_SQUARES = 5
CN_GROUP = 6
CN_CALIBRES = 7
CN_SPARES = 8
CN_FINISH_ROUND = 9
CN_PEN_LOOPS = 10
CN_MISSES = 11
CN_N = 12

# --- event kinds (docs/mania/event-log.md) ---------------------------------------------------
EV_RACE = 1
EV_SEAT = 2
EV_ROUND = 3
EV_SKIP = 4
EV_ROLL = 5
EV_MOVE = 6
EV_GROUP = 7
EV_ARRIVE = 8
EV_SHOT = 9
EV_SHOOT_END = 10
EV_X = 11
EV_T = 12
EV_O = 13
EV_FINISH = 14
EV_HANDOVER = 15
EV_STATE = 16
EV_LEADER = 17
EV_LAST_RANGE = 18
EV_STALL = 19
EV_PLACE = 20
EVENT_NAMES = {
    EV_RACE: "RACE", EV_SEAT: "SEAT", EV_ROUND: "ROUND", EV_SKIP: "SKIP", EV_ROLL: "ROLL",
    EV_MOVE: "MOVE", EV_GROUP: "GROUP", EV_ARRIVE: "ARRIVE", EV_SHOT: "SHOT",
    EV_SHOOT_END: "SHOOT_END", EV_X: "X", EV_T: "T", EV_O: "O", EV_FINISH: "FINISH",
    EV_HANDOVER: "HANDOVER", EV_STATE: "STATE", EV_LEADER: "LEADER",
    EV_LAST_RANGE: "LAST_RANGE", EV_STALL: "STALL", EV_PLACE: "PLACE",
}
LOG_COLS = 13          # round, seat, kind, a0 .. a9

# --- counters of a block call (int64[CT_N]) ---------------------------------------------------
CT_VISITS = 0          # visit rows written
CT_LOG_N = 1           # log rows written
CT_LOG_OVERFLOW = 2    # 1: the log was full
CT_SCRIPT = 3          # scripted faces used
CT_N = 4

# --- Mania's own record fields ---------------------------------------------------------------
MANIA_SEAT_EXTRA = (
    ("format", "i1"),          # format id
    ("colour", "i2"),          # figure colour (cosmetic), -1 if none given
    ("turns", "i2"),           # turns taken (skipped ones not counted)
    ("skips", "i2"),           # turns skipped because of X (first of the standing)
    ("x_rolls", "i2"),         # extra moves from X (last of the standing)
    ("o_rolls", "i2"),         # extra moves from O
    ("t_jumps", "i2"),         # T jumps
    ("t_squares", "i2"),       # squares gained by T jumps
    ("group_squares", "i2"),   # squares gained by the group rule
    ("calibres", "i2"),        # calibre faces rolled (each re-rolled)
    ("spare_shots", "i2"),     # relay spare shots fired, all visits
    ("misses", "i2"),          # targets left standing, all visits (= penalty loops owed)
    ("finish_round", "i2"),    # round the racer crossed the line, -1 if not
)
MANIA_VISIT_EXTRA = (
    ("line", "i1"),            # range line taken (1 = nearest, range_lines = furthest)
    ("calibres", "i1"),        # calibre faces rolled this visit
    ("spare_shots", "i1"),     # spare shots fired this visit (relay)
    ("spare_hits", "i1"),      # targets knocked down by spare shots
    ("arrive_round", "i2"),    # round the racer reached the range
    ("shoot_turns", "i1"),     # turns spent shooting
)
SEAT_DTYPE = seat_dtype(MANIA_SEAT_EXTRA)
VISIT_DTYPE = visit_dtype(MANIA_VISIT_EXTRA)

# visit scratch columns kept by the kernel while a visit is open (int32[seat, VS_N])
VS_ROW = 0             # row in the visits output, -1 none
VS_CALIBRES = 1
VS_SPARES = 2
VS_SPARE_HITS = 3
VS_TURNS = 4
VS_N = 6

__all__ = [n for n in dir() if n.isupper()] + ["np"]
