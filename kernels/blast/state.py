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

MAX_FACE_UP = 2
N_SCRIPT = 16        # see players.SC_*
MAX_HAND = 32        # deck (9) plus Motivation cards, with room to spare
MAX_MOTIVATION = 64

# --- stats: per-seat counters that become result columns ---------------------------------------
S_SHOTS0 = 0        # shots at range visit 1 (0 or 1)
S_SHOTS1 = 1        # shots at range visit 2
S_HITS0 = 2         # final hits at visit 1 (-1 if no shot)
S_HITS1 = 3
S_DICE_HITS0 = 4    # hits from the dice alone at visit 1 (-1 if no shot)
S_DICE_HITS1 = 5
S_ARRIVE_PULSE0 = 6  # pulse after the turn that reached the range, visit 1 (-1 never arrived)
S_ARRIVE_PULSE1 = 7
S_SHOT_PULSE0 = 8   # pulse when shooting at visit 1 (-1 no shot)
S_SHOT_PULSE1 = 9
S_WAITS = 10        # Wait actions taken
S_BULLETS_PICKUP = 11
S_BULLETS_HITS = 12
S_COACH_BULLETS = 13   # red coach boosts spent
S_WAX0 = 14         # wax spent, black .. white: S_WAX0 + colour - 1
S_MOTIVATION = 19   # Motivation cards taken
S_ICY = 20          # icy actions used (cards removed)
S_MAX_PULSE = 21
S_ELIM_ROUND = 22   # round of elimination (0 if none)
S_ELIM_CAUSE = 23
S_PLACE = 24
S_ICY_LAP0 = 25     # icy actions on laps 1, 2, 3: S_ICY_LAP0 + lap - 1
S_TURNS = 28
S_BOOSTS = 29       # coach zone boosts received
S_WIND_CHANGES = 30
S_CROSSWIND0 = 31   # wind at the shot relative to the range: 0 none/still, 1 crosswind, 2 head, 3 tail; +1 offset
S_CROSSWIND1 = 32
S_ARRIVE_ROUND0 = 33
S_ARRIVE_ROUND1 = 34
N_STATS = 35


class RaceState(NamedTuple):
    g: np.ndarray           # int64[N_G]
    dice: np.ndarray        # int64[n_dice]: faces showing
    pos: np.ndarray         # int64[S]: route position
    lane: np.ndarray        # int64[S]: lane (mat number on the range)
    on_mat: np.ndarray      # int64[S]: 1 while on a shooting mat (has not shot yet this visit)
    pulse: np.ndarray       # int64[S]
    bullets: np.ndarray     # int64[S]
    status: np.ndarray      # int64[S]: events.STATUS_*
    biathlete: np.ndarray   # int64[S]
    colour: np.ndarray      # int64[S]: ski colour
    player: np.ndarray      # int64[S]: player kind (kernels.blast.players)
    chosen: np.ndarray      # int64[S]: card chosen this round (-1 none)
    played: np.ndarray      # int64[S]: 1 once the seat has had its turn this round
    elim_stamp: np.ndarray  # int64[S]: when eliminated (higher = later)
    boost_c: np.ndarray     # int64[S]: pending next-turn coach boost colour (-1 none)
    boost_s: np.ndarray     # int64[S]: its strength
    boost_round: np.ndarray  # int64[S]: round it was gained
    waits: np.ndarray       # int64[S]: Waits at the current range visit
    wax: np.ndarray         # int64[S, 6]: wax tokens by colour (red column unused)
    hand: np.ndarray        # int64[S, MAX_HAND]: card ids, first hand_n valid
    hand_n: np.ndarray      # int64[S]
    disc: np.ndarray        # int64[S, MAX_HAND]: discard pile
    disc_n: np.ndarray      # int64[S]
    removed_n: np.ndarray   # int64[S]: cards removed from the game
    mdeck: np.ndarray       # int64[MAX_MOTIVATION]: shuffled Motivation deck
    stats: np.ndarray       # int64[S, N_STATS]
    params: np.ndarray      # float64[S, n_params]: player weights
    scratch: np.ndarray     # int64[64]: decisions handed from players to the engine
    rng: np.ndarray         # uint64[2]: chance stream, player stream
    log: np.ndarray         # int16[cap, N_COLS]
    script: np.ndarray      # int64[S, N_SCRIPT]: decisions of SCRIPTED seats (kernels.blast.players)


def new_state(n_params: int, log_cap: int = 0) -> RaceState:
    """Allocate a race state (for up to MAX_RACERS seats) and, if log_cap > 0, an event log."""
    S = MAX_RACERS
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    return RaceState(
        g=z(N_G), dice=z(8), pos=z(S), lane=z(S), on_mat=z(S), pulse=z(S), bullets=z(S),
        status=z(S), biathlete=z(S), colour=z(S), player=z(S), chosen=z(S), played=z(S),
        elim_stamp=z(S), boost_c=z(S), boost_s=z(S), boost_round=z(S), waits=z(S),
        wax=z(S, N_COLOURS), hand=z(S, MAX_HAND), hand_n=z(S), disc=z(S, MAX_HAND), disc_n=z(S),
        removed_n=z(S), mdeck=z(MAX_MOTIVATION), stats=z(S, N_STATS),
        params=np.zeros((S, max(n_params, 1)), np.float64), scratch=z(64),
        rng=np.zeros(2, np.uint64), log=np.zeros((max(log_cap, 1), N_COLS), np.int16),
        script=np.full((S, N_SCRIPT), -1, np.int64),
    )
