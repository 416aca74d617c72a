"""The state of one Biathlon Blast race: a NamedTuple of small arrays, reused race after race.

Axis convention: seat first (0 .. n_seats-1, at most MAX_RACERS), then whatever follows (cards,
wax colours, statistics). All integers are int64 so kernels never mix widths.
"""
from typing import NamedTuple

import numpy as np

from .consts import MAX_RACERS, N_COLOURS
from .events import N_COLS

# --- g: race-wide scalars --------------------------------------------------------------------
G_ROUND = 0         # current round (0 during set-up)
G_WIND = 1          # where the wind blows from: NORTH..WEST or STILL
G_MTOP = 2          # index in mdeck of the next Motivation card to draw
G_MN = 3            # cards in the Motivation deck
G_FACE0 = 4         # face-up Motivation card in slot 0 (-1 empty); slot k is G_FACE0 + k
G_N = 6             # seats in the race
G_TRAIL = 7         # trail id
G_WINNER = 8        # winning seat, -1 if none
G_STALLED = 9       # 1 if the round cap ended the race
G_ELIM = 10         # elimination stamp counter
G_LOG_N = 11        # events written
G_LOG_CAP = 12      # log capacity (0: logging off)
G_LOG_OVERFLOW = 13  # 1 if the log ran out of room (the race is still played correctly)
G_LEADER = 14       # seat leading at the end of the last turn (lead-change counting)
G_LEAD_CHANGES = 15
G_LEADER_AFTER_RANGE = 16   # leader when the first racer left its last range visit (-1 none yet)
N_G = 17

# --- capacities: the fixed sizes of the state's arrays. Each is at least what any data set the
# validator accepts needs (sim/blast/load.py refuses data beyond them, naming file, entry and field),
# and `sim.blast.compile.capacity_problems` checks a compiled data set against every one of them,
# so a kernel never indexes past an array whatever the data. ---------------------------------------
MAX_FACE_UP = 2      # face-up Motivation slots (g[G_FACE0 + k]); rules.face_up_motivation <= this
MAX_AHEAD = 500      # spaces ahead choose_card_nb looks at (no move goes that far: about 215 steps)
MAX_ENDS = 1024      # legal ends of one move: 2 lanes x (steps + 1); the data allows about 215 steps
MAX_HAND = 64        # a hand or discard pile: the deck (common_cards + unique_cards <= 40) plus one
                     # Motivation card per start-line crossing (<= 10)
MAX_MOTIVATION = 64  # cards in the Motivation deck, copies counted
MAX_DICE = 8         # shooting dice (rules.dice lists at most the 6 colours); event rows log 8 faces
MAX_VISITS = 10      # range visits with their own statistics (rules.range_visits <= this)
N_SCRATCH = 64       # decisions handed from players to the engine (13 used: players.SCRATCH_SHOOT_END)

# --- work offsets: three-element step or decision vectors used during a turn -------------------
W_BOOST = 0          # coach boost steps by terrain class
W_WAX = 3            # wax spent, by colour (6)
W_STEPS = 9          # steps of the move
W_OUT = 12           # chosen end: position, lane, on mat
W_ADJ = 15           # drafting, wind adjustments
W_MOST = 17          # the heuristic: most steps any variant may have
W_EXTRA = 20         # the heuristic: wax steps tried
W_ACT = 23           # the heuristic: steps of both actions (2 x 3)
W_PLACED = 29        # set-up: seats already on the grid (6)
W_RED = 35           # a red coach boost usable this round, by seat (6)
W_LOOKAHEAD = 41     # cards chosen by LOOKAHEAD seats this round, by seat (6; -1 none)
N_WORK = 48
N_SCRIPT = 16        # see players.SC_*
N_END_COLS = 8       # columns of `cand`: players.E_*

# --- seat: per-seat scalars, row SEAT_* of RaceState.seat (one array: numba passes every array a
# NamedTuple holds as separate values, which costs compile time in every function that takes the
# state, so the state keeps few arrays) ---------------------------------------------------------
SEAT_POS = 0  # route position
SEAT_LANE = 1  # lane (mat number on the range; -1 off the mat there)
SEAT_ON_MAT = 2  # 1 while on a shooting mat (has not shot yet this visit)
SEAT_PULSE = 3  # pulse
SEAT_BULLETS = 4  # bullets held
SEAT_STATUS = 5  # events.STATUS_*
SEAT_BIATHLETE = 6  # biathlete id
SEAT_COLOUR = 7  # ski colour id
SEAT_PLAYER = 8  # player kind
SEAT_CHOSEN = 9  # card chosen this round (-1 none)
SEAT_PLAYED = 10 # 1 once the seat has had its turn this round
SEAT_ELIM_STAMP = 11 # when eliminated (higher = later)
SEAT_BOOST_C = 12 # pending next-turn coach boost colour (-1 none)
SEAT_BOOST_S = 13 # its strength
SEAT_BOOST_ROUND = 14 # round it was gained
SEAT_WAITS = 15 # Waits at the current range visit
SEAT_HAND_N = 16 # cards in hand
SEAT_DISC_N = 17 # cards in the discard pile
SEAT_REMOVED_N = 18 # cards removed from the game
SEAT_SECRET = 19 # Motivation cards this racer drew blind into its hand and has not played yet, as a
                 # bit mask over their places in mdeck (bit i: mdeck[i]): what the others cannot see
N_SEAT = 20

# --- stats: per-seat counters that become result columns ---------------------------------------
S_WAITS = 0         # Wait actions taken
S_BULLETS_PICKUP = 1
S_BULLETS_HITS = 2
S_COACH_BULLETS = 3    # red coach boosts spent
S_WAX0 = 4          # wax spent, black .. white: S_WAX0 + colour - 1
S_MOTIVATION = 9    # Motivation cards taken
S_ICY = 10          # icy actions used (cards removed)
S_MAX_PULSE = 11
S_ELIM_ROUND = 12   # round of elimination (0 if none)
S_ELIM_CAUSE = 13
S_PLACE = 14
S_ICY_LAP0 = 15     # icy actions on laps 1, 2, 3 (and later): S_ICY_LAP0 + min(lap, 3) - 1
S_TURNS = 18
S_BOOSTS = 19       # coach zone boosts received
S_WIND_CHANGES = 20
# per range visit v (0 .. MAX_VISITS-1): the counter's first column plus v
S_SHOTS0 = 21                             # shots at the visit (0 or 1)
S_HITS0 = S_SHOTS0 + MAX_VISITS           # final hits (-1 if no shot)
S_DICE_HITS0 = S_HITS0 + MAX_VISITS       # hits from the dice alone (-1 if no shot)
S_ARRIVE_PULSE0 = S_DICE_HITS0 + MAX_VISITS  # pulse after the turn that reached the range (-1 never)
S_SHOT_PULSE0 = S_ARRIVE_PULSE0 + MAX_VISITS  # pulse when shooting (-1 no shot)
S_CROSSWIND0 = S_SHOT_PULSE0 + MAX_VISITS  # wind at the shot: 0 still or no shot, 1 cross, 2 head, 3 tail
S_ARRIVE_ROUND0 = S_CROSSWIND0 + MAX_VISITS  # round the racer reached the range (-1 never)
N_STATS = S_ARRIVE_ROUND0 + MAX_VISITS

assert MAX_DICE >= N_COLOURS
assert MAX_MOTIVATION <= 64       # SEAT_SECRET is a 64-bit mask over mdeck places


class RaceState(NamedTuple):
    g: np.ndarray           # int64[N_G]
    dice: np.ndarray        # int64[MAX_DICE]: faces showing, the first n_dice real
    seat: np.ndarray        # int64[N_SEAT, S]: per-seat scalars, one row per SEAT_* field
    wax: np.ndarray         # int64[S, 6]: wax tokens by colour (red column unused)
    hand: np.ndarray        # int64[S, MAX_HAND]: card ids, first hand_n valid
    disc: np.ndarray        # int64[S, MAX_HAND]: discard pile
    mdeck: np.ndarray       # int64[MAX_MOTIVATION]: shuffled Motivation deck
    mworth: np.ndarray      # float64[MAX_MOTIVATION]: each mdeck card's worth by the default worth weights
    stats: np.ndarray       # int64[S, N_STATS]
    params: np.ndarray      # float64[S, n_params]: player weights
    scratch: np.ndarray     # int64[N_SCRATCH]: decisions handed from players to the engine
    rng: np.ndarray         # uint64[2]: chance stream, player stream
    log: np.ndarray         # int16[cap, N_COLS]
    script: np.ndarray      # int64[S, N_SCRIPT]: decisions of SCRIPTED seats (kernels.blast.players)
    # work space, so that no turn allocates memory (allocations were a tenth of the running time)
    work: np.ndarray        # int64[N_WORK]: small per-turn arrays, at the W_* offsets
    cand: np.ndarray        # int64[MAX_ENDS, N_END_COLS]: the legal ends of a move (players.MoveContext)
    masks: np.ndarray       # int64[MAX_ENDS]: lane occupancy masks of the stretch ahead


def new_state(n_params: int, log_cap: int = 0) -> RaceState:
    """Allocate a race state (for up to MAX_RACERS seats) and, if log_cap > 0, an event log."""
    S = MAX_RACERS
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    return RaceState(
        g=z(N_G), dice=z(MAX_DICE), seat=z(N_SEAT, S),
        wax=z(S, N_COLOURS), hand=z(S, MAX_HAND), disc=z(S, MAX_HAND),
        mdeck=z(MAX_MOTIVATION), mworth=np.zeros(MAX_MOTIVATION), stats=z(S, N_STATS),
        params=np.zeros((S, max(n_params, 1)), np.float64), scratch=z(N_SCRATCH),
        rng=np.zeros(2, np.uint64), log=np.zeros((max(log_cap, 1), N_COLS), np.int16),
        script=np.full((S, N_SCRIPT), -1, np.int64),
        work=z(N_WORK), cand=z(MAX_ENDS, N_END_COLS), masks=z(MAX_ENDS),
    )
