"""Player policies: every choice a racer makes goes through one of these functions.

Kinds: RANDOM (uniform over legal moves, a floor and a rule-coverage tool), HEURISTIC (looks at
what each choice does to distance, pulse, drafting, wind and accuracy before choosing) and
LOOKAHEAD (the heuristic, except that it picks its card by Monte Carlo rollouts; the engine runs
those, see engine.lookahead_card_nb). A player's style is its weight vector `params[seat]`
(indices P_*): personas (sim/data/players/) are named weight vectors.

Every function reads the race state and returns its decision; none changes the state, except the
player random stream and the `scratch` array used to hand multi-part decisions to the engine.
"""
from typing import NamedTuple

import numpy as np
from ..jit import inline, outline_hot, splice
from ..nolit import unliteral_calls
from ..arrays import copy1_nb

from .consts import (
    BLACK, BLUE, DOWNHILL, FLAT, GREEN, MAX_RACERS, N_COLOURS, NO_COACH, R_BAND_LOW, R_BAND_MEDIUM, R_DIE_FACES, R_DRAFTING,
    R_FACE_UP_MOTIVATION, R_HEADWIND, R_MAX_HITS, R_MIXED_LANE_DRAFTING, R_N_DICE, R_PULSE_LIMIT,
    R_PULSE_FLOOR, R_RANGE_DRAFTING, R_START_LINE_CROSSINGS, R_TAILWIND, R_ZERO_STEP_BOOST, SHOOT, SRC_NONE,
    STILL,
    UPHILL, VAL_BASE, VAL_MULT, VAL_SRC, WAIT, WHITE, YELLOW,
)
from .events import MOTIVATION_BLIND, PICKUP_BULLET, PICKUP_COACH, STATUS_RACING
from ..rng import below_nb, uniform_nb
from .rules import (
    reach_from_nb, reach_nb, value_nb, band_threshold_nb, facing_nb, in_line_nb,
    occupant_mask_nb, pulse_adjust_nb, pulse_total_nb, shot_wind_nb, threshold_nb, wind_adjust_nb,
)
from .state import (
    SEAT_BIATHLETE, SEAT_BOOST_C, SEAT_BOOST_ROUND, SEAT_BOOST_S, SEAT_BULLETS, SEAT_DISC_N, SEAT_HAND_N,
    SEAT_LANE, SEAT_ON_MAT, SEAT_PLAYER, SEAT_POS, SEAT_PULSE, SEAT_SECRET, SEAT_STATUS, SEAT_WAITS,
)
from .state import (
    G_FACE0, G_MN, G_MTOP, G_N, G_ROUND, G_WIND, MAX_AHEAD, MAX_ENDS, N_END_COLS, W_ACT, W_ADJ, W_BOOST, W_EXTRA,
    W_MOST, W_OUT,
)

RANDOM = 0
HEURISTIC = 1
SCRIPTED = 2     # tests: decisions read from st.script[seat]; -1 entries fall back to the heuristic;
                 # an illegal scripted decision raises ValueError (the engine refuses it)
LOOKAHEAD = 3    # the heuristic, with its card chosen by rollouts (P_ROLLOUTS per candidate card)
REFERENCE = 4    # the strength reference: its card chosen by determinized rollouts that sample what
                 # it cannot see (kernels.blast_reference); the rest of its turn as the heuristic
PLAYER_KINDS = ("random", "heuristic", "scripted", "lookahead", "reference")

# st.script columns for SCRIPTED seats
SC_CARD = 0          # card id to choose
SC_ACTION = 1        # TOP/BOTTOM, or WAIT/SHOOT on a mat
SC_WAX = 2           # SC_WAX + colour - 1: wax of black .. white to spend (with SC_ACTION; on a
                     # Shoot turn they are spent after the hits, docs/rules.md 5.4)
SC_DEST = 7          # destination position
SC_LANE = 8          # lane there (ignored on the range and the run-out)
SC_WIND = 9          # new wind
SC_MOTIVATION = 10   # 0/1 face-up slot, 2 blind
SC_BULLETS = 11      # own bullets for hits
SC_COACH = 12        # red coach bullets for hits

# st.scratch (not a script column: the SC_* above are st.script's) from choose_shoot_wax_nb: the
# end a Shoot's move is planned to (3 entries, 10..12; 0..9 are the turn's other decisions)
SCRATCH_SHOOT_END = 10

# heuristic weights (params[seat, P_*]); DEFAULT_PARAMS is the balanced default player
P_PROGRESS = 0        # value of one space of progress
P_PULSE = 1           # cost of one point of pulse after the action
P_PULSE_HIGH = 2      # extra cost per squared point of pulse above P_HIGH_FROM
P_HIGH_FROM = 3       # pulse from which the extra cost starts
P_BAND = 4            # cost of one point of accuracy threshold when arriving near the range
P_ICY = 5             # cost of removing a card (icy action) before the last lap
P_WAX = 6             # cost of spending one wax token
P_BULLET_RESERVE = 7  # bullets kept back at the first range visit (for pick-ups)
P_WAIT_GAIN = 8       # expected extra hits that make waiting at the range worth a turn
P_COACH = 9           # value of ending a move in a coach zone, per token of its strength
P_LATE_WAX = 10       # wax price on the last lap, as a share of P_WAX
P_WIND_SPITE = 11     # when setting the wind: weight of the others' tailwind against its own
P_PICKUP_HAND = 12    # pays a bullet to pick up when its hand is down to this many cards
P_ROLLOUTS = 13       # LOOKAHEAD, REFERENCE: rollouts per candidate card (0: choose as the heuristic)
P_PLACE_CREDIT = 14   # LOOKAHEAD, REFERENCE: a rollout scores won + this * (racers - place) / (racers - 1)
P_DEPTH = 15          # REFERENCE: rounds a rollout plays before it is judged (0: to the end of the race)
P_WAIT_MAX = 16       # Waits at most this many turns in a row on a mat
P_PICKUP_DISCARD = 17  # a bullet pick-up needs at least this many cards in the discard pile
P_PICKUP_BULLETS = 18  # ... and at least this many bullets held
P_WHITE_CALM = 19     # spends this many white wax (at most) to calm the wind when a move reaches the range
P_WORTH_UPHILL = 20   # a card's position-free worth (worth_nb: the Motivation choice, feature F_WORTH):
P_WORTH_FLAT = 21     # ... per uphill, flat and downhill step of an action (dice at 2.5),
P_WORTH_DOWNHILL = 22
P_WORTH_PULSE = 23    # ... less this per point of its pulse cost,
P_WORTH_ICY = 24      # ... less this if it is icy,
P_WORTH_WIND = 25     # ... plus this if it shows the wind symbol (the better action counts)
P_WIND_AHEAD = 26     # the wind is judged for the space this many spaces ahead (whole spaces)
P_COACH_FIRST = 27    # 1: a Shoot spends the red coach boost's bullets before its own; 0: its own first
P_BAND_WINDOW = 28    # spaces before the range within which the accuracy band counts (P_BAND)
P_CARD0 = 29          # card choice off a mat: weights of the card features F_WORTH .. F_WIND (7), added
                      # to the move score (a distilled card policy; all 0: the plain heuristic)
P_MAT0 = 36           # card choice on a shooting mat: the same 7 weights, added to -score
P_CARDX0 = 43         # card choice off a mat: weights of the hand and race features F_TOP .. F_LATE_GAIN (3)
P_MATX0 = 46          # card choice on a shooting mat: the same 3 weights
P_CARD_ENDS = 49      # 1: a card off a mat is judged by the best legal end of its better action, as the move
                      # will choose it (occupancy, drafting, wind, coach zones, its pending boost); 0: by the
                      # furthest space it reaches
P_FINISH_FIRST = 50   # 1: when a card (or, on a mat, a Shoot with every hit) can cross the finish, the card of
                      # the highest initiative among those that can (the first to cross wins); 0: as scored
P_SEARCH_FROM = 51    # REFERENCE: searches only while the share of the race run is at least this ...
P_SEARCH_TO = 52      # ... and below this (elsewhere its card is the heuristic's)
P_SEARCH_MAT = 53     # REFERENCE: 0 searches on and off a shooting mat, 1 only off one, 2 only on one
N_PARAMS = 54
PARAM_NAMES = ("progress", "pulse", "pulse_high", "high_from", "band", "icy", "wax", "bullet_reserve",
               "wait_gain", "coach", "late_wax", "wind_spite", "pickup_hand", "rollouts", "place_credit",
               "depth", "wait_max", "pickup_discard", "pickup_bullets", "white_calm",
               "worth_uphill", "worth_flat", "worth_downhill", "worth_pulse", "worth_icy", "worth_wind",
               "wind_ahead", "coach_first", "band_window",
               "card_worth", "card_init", "card_gain", "card_pulse", "card_steps", "card_icy", "card_wind",
               "mat_worth", "mat_init", "mat_gain", "mat_pulse", "mat_steps", "mat_icy", "mat_wind",
               "card_top", "card_late", "card_late_gain", "mat_top", "mat_late", "mat_late_gain",
               "card_ends", "finish_first", "search_from", "search_to", "search_mat")
DEFAULT_PARAMS = np.array([1.0, 0.35, 0.25, 7.0, 0.6, 1.5, 1.0, 1.0, 0.9, 0.3, 0.25, 0.0, 2.0, 0.0, 0.0, 0.0,
                           2.0, 4.0, 2.0, 1.0,
                           1.2, 1.0, 0.6, 0.5, 1.0, 0.3, 3.0, 1.0, 6.0] + [0.0] * 20 + [0.0, 0.0, 0.0, 1.0, 0.0])
assert len(PARAM_NAMES) == N_PARAMS == DEFAULT_PARAMS.shape[0]
assert (P_WORTH_FLAT - P_WORTH_UPHILL, P_WORTH_DOWNHILL - P_WORTH_UPHILL) == (FLAT - UPHILL, DOWNHILL - UPHILL)
N_WORTH = 6           # the worth weights P_WORTH_UPHILL .. P_WORTH_WIND

# The features of a card in hand that the card choice scores (card_features_nb), in the order of the
# weights P_CARD0 + k - 1 and P_MAT0 + k - 1 (F_SCORE has no weight: it is the move score itself),
# then F_TOP .. F_LATE_GAIN, weighted by P_CARDX0 + k - F_TOP and P_MATX0 + k - F_TOP
CARD_FEATURES = ("score", "worth", "init", "gain", "pulse", "steps", "icy", "wind", "top", "late", "late_gain")
F_SCORE = 0   # the heuristic's score of the card's better action at its furthest reach (icy price included)
F_WORTH = 1   # the card's position-free worth by the seat's worth weights (worth_nb, as for Motivation cards)
F_INIT = 2    # its initiative with the dice as they show
F_GAIN = 3    # spaces its better action gains from here
F_PULSE = 4   # pulse cost of its better action
F_STEPS = 5   # steps of its better action (all terrain classes, dice as they show)
F_ICY = 6     # 1 if either action is icy
F_WIND = 7    # 1 if either action shows the wind symbol
F_TOP = 8     # the hand's best card by worth: its worth less the next best card's (0 for every other
              # card, and for a card tied at the top): a weight below 0 keeps the best card
F_LATE = 9    # worth x the share of the race run (position / finish): big cards played late
F_LATE_GAIN = 10  # gain x the share of the race run: the gain counts more near the finish
N_CARD_FEATURES = 8   # the features F_SCORE .. F_WIND (weights P_CARD0 .., P_MAT0 ..)
N_CARD_EXTRA = 3      # the features F_TOP .. F_LATE_GAIN (weights P_CARDX0 .., P_MATX0 ..)

NEG = -1.0e9
FINISH_SCORE = 1.0e6  # the score of crossing the finish within the pulse limit, less the pulse


# --- helpers shared by the heuristic's evaluations ---------------------------------------------
@splice
def score_end_nb(w, moved, dest, pulse_after, limit, finish, to_range, acc_row, band_low, band_medium):
    """Heuristic value of ending `moved` spaces ahead at `dest` with `pulse_after`.

    to_range: spaces from dest to the next range (-1 if none). Every input is a scalar or a small
    array, so judging an end needs nothing from the tables or the state (see MoveContext).
    """
    if pulse_after > limit:
        return NEG + dest
    if dest == finish:
        return FINISH_SCORE - pulse_after
    score = w[P_PROGRESS] * moved - w[P_PULSE] * pulse_after
    over = pulse_after - w[P_HIGH_FROM]
    if over > 0:
        score -= w[P_PULSE_HIGH] * over * over
    window = w[P_BAND_WINDOW]
    if to_range >= 0 and to_range <= window:
        closeness = 1.0 - to_range / (window + 1.0)
        score -= w[P_BAND] * band_threshold_nb(acc_row, band_low, band_medium, pulse_after) * closeness
    return score


# columns of MoveContext.ends
E_POS = 0        # position
E_LANE = 1       # lane (mat on the range; -1 off the mat)
E_MAT = 2        # 1 if on a shooting mat there
E_ADJUST = 3     # drafting and wind adjustment to pulse for ending there
E_TO_RANGE = 4   # spaces to the next range still to shoot at (-1 none)
E_COACH = 5      # strength of a coach zone entered there (0 none)
E_UP = 6         # uphill spaces from the move's start to there (the start's own not counted)
E_UP_FLAT = 7    # uphill or flat spaces from the start to there: with E_UP, whether a move reaches
                 # the end (ends_within_nb)
assert E_UP_FLAT < N_END_COLS
assert MAX_ENDS >= MAX_AHEAD + 3 + 2 * MAX_RACERS   # st.masks: a move's window, then the others (move_context_nb)


class MoveContext(NamedTuple):
    """Every legal end of a racer's move this turn, judged once, for any steps up to a maximum.

    `ends[:n_ends]` lists them in route order (staying put first), with what each end means for
    pulse (drafting and wind), accuracy (distance to the range) and coaching, so that the player
    can compare many step and cost variants (two actions, wax tokens) by a single pass each.
    Built from arrays read out of the tables and state once, so that judging an end reads a few
    small arrays and scalars.
    """
    ends: np.ndarray         # int64[n_ends, N_END_COLS], columns E_*
    n_ends: int
    is_range: np.ndarray
    acc_row: np.ndarray
    w: np.ndarray
    pos: int
    up_at: np.ndarray        # where a move from pos reaches (ctx_reach_nb): the trail's lookups
    up_flat_at: np.ndarray
    ahead: int               # ... stop_ahead, up_count and up_flat_count at pos
    n_up: int
    n_up_flat: int
    band_low: int
    band_medium: int
    limit: int
    finish: int
    pulse: int


@inline
def move_context_nb(st, tb, trail, s, up, flat, down, shooting):
    """The legal ends of seat s's move with at most these steps, judged (see MoveContext)."""
    pos = st.seat[SEAT_POS, s]
    n_route = tb.route_len[trail]
    terrain = tb.terrain[trail]
    is_range = tb.is_range[trail]
    up_at = tb.up_at[trail]
    up_flat_at = tb.up_flat_at[trail]
    ahead = np.int64(tb.stop_ahead[trail, pos])
    n_up0 = np.int64(tb.up_count[trail, pos])
    n_up_flat0 = np.int64(tb.up_flat_count[trail, pos])
    far = reach_from_nb(up_at, up_flat_at, pos, ahead, n_up0, n_up_flat0, up, flat, down)
    physical = tb.physical[trail]
    lanes = tb.lanes[trail]
    heading = tb.heading[trail]
    coach = tb.coach_colour[trail]
    strength = tb.coach_strength[trail]
    next_range = tb.next_range[trail]
    status = st.seat[SEAT_STATUS]
    spos = st.seat[SEAT_POS]
    slane = st.seat[SEAT_LANE]
    on_mat = st.seat[SEAT_ON_MAT]
    n = st.g[G_N]
    rules = tb.rules
    mixed = rules[R_MIXED_LANE_DRAFTING]
    range_sw = rules[R_RANGE_DRAFTING]
    zero_boost = rules[R_ZERO_STEP_BOOST]
    headwind = rules[R_HEADWIND]
    tailwind = rules[R_TAILWIND]
    drafting_adj = rules[R_DRAFTING]
    wind = st.g[G_WIND]
    # the others: each racing seat's physical space (-1 for s and a seat not racing) and its lane's
    # bit (occupant_mask_nb's), in the last 2 * MAX_RACERS entries of st.masks
    o_phys = st.masks[MAX_ENDS - 2 * MAX_RACERS:MAX_ENDS - MAX_RACERS]
    o_bit = st.masks[MAX_ENDS - MAX_RACERS:]
    for o in range(n):
        o_phys[o] = -1
        if o != s and status[o] == STATUS_RACING:
            o_phys[o] = physical[spos[o]]
            o_bit[o] = 1 << (slane[o] if slane[o] >= 0 else 6)
    # lane masks of the occupants of positions base .. top (occupant_mask_nb, from the above)
    base = max(pos - 1, 0)
    top = min(far + 1, n_route - 1)
    masks = st.masks[:top - base + 1]
    for q in range(base, top + 1):
        here = physical[q]
        mask = 0
        for o in range(n):
            if o_phys[o] == here:
                mask |= o_bit[o]
        masks[q - base] = mask
    ends = st.cand
    k = 0
    n_up = 0
    n_up_flat = 0
    for q in range(pos, far + 1):
        if q > pos:
            n_up += 1 if terrain[q] == UPHILL else 0
            n_up_flat += 1 if terrain[q] != DOWNHILL else 0
        if q == pos:
            lane_lo = -1 if shooting else slane[s]
            mat = 0 if shooting else on_mat[s]
        elif is_range[q] == 1:
            # the lowest-numbered free mat of this physical range
            lane_lo = -1
            for m in range(lanes[q]):
                taken = False
                for o in range(n):
                    if o_phys[o] == physical[q] and on_mat[o] == 1 and slane[o] == m:
                        taken = True
                        break
                if not taken:
                    lane_lo = m
                    break
            if lane_lo < 0:
                continue
            mat = 1
        else:
            lane_lo = 0
            mat = 0
        lane_hi = lane_lo + 1
        if q != pos and is_range[q] == 0 and lanes[q] == 2:
            lane_hi = 2
        if is_range[q] == 1 and mat == 0 and q + 1 < n_route:
            facing = heading[q + 1]
        else:
            facing = heading[q]
        # the next range position still to shoot at: from q on, past q itself off its mat
        rp = next_range[q] if mat == 1 or next_range[q] != q else next_range[q + 1]
        to_range = rp - q if rp >= 0 else -1
        zone = strength[q] if ((q != pos or zero_boost == 1) and coach[q] != NO_COACH) else 0
        for lane in range(lane_lo, lane_hi):
            if q != pos and lanes[q] <= 2 and is_range[q] == 0 and ((masks[q - base] >> lane) & 1) == 1:
                continue
            drafting = False
            if q + 1 < n_route:
                drafting = in_line_nb(lanes[q], lanes[q + 1], is_range[q], is_range[q + 1], lane,
                                      masks[q + 1 - base], mixed, range_sw)
            behind = False
            if q - 1 >= 0:
                behind = in_line_nb(lanes[q], lanes[q - 1], is_range[q], is_range[q - 1], lane,
                                    masks[q - 1 - base], mixed, range_sw)
            ends[k, E_POS] = q
            ends[k, E_LANE] = lane
            ends[k, E_MAT] = mat
            ends[k, E_ADJUST] = (drafting_adj if drafting else 0) + \
                wind_adjust_nb(wind, facing, drafting, behind, headwind, tailwind)
            ends[k, E_TO_RANGE] = to_range
            ends[k, E_COACH] = zone
            ends[k, E_UP] = n_up
            ends[k, E_UP_FLAT] = n_up_flat
            k += 1
    return MoveContext(
        ends, k, is_range, tb.accuracy[st.seat[SEAT_BIATHLETE, s]], st.params[s], pos, up_at, up_flat_at, ahead,
        n_up0, n_up_flat0,
        rules[R_BAND_LOW], rules[R_BAND_MEDIUM], rules[R_PULSE_LIMIT], tb.finish_pos[trail],
        st.seat[SEAT_PULSE, s])


@inline
def ctx_reach_nb(c, up, flat, down):
    """The furthest position a move from the context's start reaches with these steps (reach_from_nb)."""
    return reach_from_nb(c.up_at, c.up_flat_at, c.pos, c.ahead, c.n_up, c.n_up_flat, up, flat, down)


@inline
def end_adjust_nb(c, pos, lane):
    """The drafting and wind adjustment to pulse for ending at (pos, lane), one of the context's ends
    (0 if it is none)."""
    for i in range(c.n_ends):
        if c.ends[i, E_POS] == pos and c.ends[i, E_LANE] == lane:
            return c.ends[i, E_ADJUST]
    return 0


@inline
def ends_within_nb(c, up, flat, down):
    """How many of the context's ends (a prefix of them) a move with these steps can reach: those
    whose uphill, uphill-or-flat and all spaces from the start the steps cover (where
    reach_route_nb's least-versatile-step walk ends, as in card_score_nb, without the walk; every
    end lies before the move's stops, the range and the run-out)."""
    up_flat = up + flat
    total = up_flat + down
    ends = c.ends
    k = 0
    while k < c.n_ends and ends[k, E_UP] <= up and ends[k, E_UP_FLAT] <= up_flat \
            and ends[k, E_POS] - c.pos <= total:
        k += 1
    return k


@inline
def best_of_nb(c, up, flat, down, cost, out):
    """The best end for these steps and this action cost (after blue wax): out = (position, lane,
    on a mat); returns its score. The first of equal bests in route order wins."""
    k = ends_within_nb(c, up, flat, down)
    ends = c.ends
    best = 0
    best_score = NEG * 10.0
    for i in range(k):
        p = c.pulse + cost + ends[i, E_ADJUST]
        if p < 0:
            p = 0
        q = ends[i, E_POS]
        sc = score_end_nb(c.w, q - c.pos, q, p, c.limit, c.finish, ends[i, E_TO_RANGE], c.acc_row,
                          c.band_low, c.band_medium) + c.w[P_COACH] * ends[i, E_COACH]
        if i == 0 or sc > best_score:
            best = i
            best_score = sc
    out[0] = ends[best, E_POS]
    out[1] = ends[best, E_LANE]
    out[2] = ends[best, E_MAT]
    return best_score


@inline
def worth_nb(card_steps, card_pulse, card_icy, card_wind, card, w):
    """A position-free worth of a card by the worth weights of w (a seat's params, P_WORTH_*): its
    better action's steps by terrain class (a die-read step counts 2.5, a die's mean), less its
    pulse cost and an icy action's price, plus the wind symbol's value. For choosing Motivation
    cards, and the card choice's feature F_WORTH. Takes the card tables, not `tb`, so that an
    outlined caller is passed four arrays, not every table."""
    best = NEG
    for a in range(2):
        v = 0.0
        for t in range(3):
            tr = card_steps[card, a, t]
            x = tr[VAL_BASE] + (0.0 if tr[VAL_SRC] == SRC_NONE else tr[VAL_MULT] * 2.5)
            v += x * w[P_WORTH_UPHILL + t]
        v -= w[P_WORTH_PULSE] * card_pulse[card, a]
        if card_icy[card, a] == 1:
            v -= w[P_WORTH_ICY]
        if card_wind[card, a] == 1:
            v += w[P_WORTH_WIND]
        if v > best:
            best = v
    return best


@inline
def card_worth_nb(tb, card):
    """A card's worth by the default worth weights (DEFAULT_PARAMS), read from the tables (worth_nb
    there, sim.blast.compile.default_worth): the cache `st.mworth` of the Motivation deck holds
    these, for every seat whose worth weights are the defaults, and so does the card choice's
    F_WORTH for those seats."""
    return tb.card_worth[card]


@inline
def default_worth_nb(w):
    """Whether the worth weights of w are DEFAULT_PARAMS' (so that the deck's cached worth is its)."""
    for k in range(P_WORTH_UPHILL, P_WORTH_UPHILL + N_WORTH):
        if w[k] != DEFAULT_PARAMS[k]:
            return False
    return True


@inline
def prepare_race_nb(st, tb):
    """Once per race, after the Motivation deck is shuffled: each deck card's worth by the default
    weights, so that the blind-draw estimate of a seat with those weights is a sum rather than a walk
    over every card's actions."""
    for i in range(st.g[G_MN]):
        st.mworth[i] = card_worth_nb(tb, st.mdeck[i])


# --- decisions ---------------------------------------------------------------------------------
@inline
def decide_pickup_nb(st, tb, trail, s, coach_ok):
    """At round start with a non-empty hand: 0 no pick-up, PICKUP_BULLET or PICKUP_COACH."""
    can_bullet = st.seat[SEAT_BULLETS, s] > 0
    if st.seat[SEAT_DISC_N, s] == 0 or not (can_bullet or coach_ok):
        return np.int64(0)
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        if uniform_nb(st.rng[1:]) < 0.25:
            if coach_ok and (not can_bullet or uniform_nb(st.rng[1:]) < 0.5):
                return np.int64(PICKUP_COACH)
            return np.int64(PICKUP_BULLET)
        return np.int64(0)
    if coach_ok and st.seat[SEAT_ON_MAT, s] == 0:
        return np.int64(PICKUP_COACH)       # on a mat the red boost is kept for a hit at the shot
    if st.seat[SEAT_HAND_N, s] <= st.params[s, P_PICKUP_HAND] and st.seat[SEAT_DISC_N, s] >= st.params[s, P_PICKUP_DISCARD] \
            and st.seat[SEAT_BULLETS, s] >= st.params[s, P_PICKUP_BULLETS]:
        return np.int64(PICKUP_BULLET)
    return np.int64(0)


@inline
def ahead_nb(tb, trail, pos):
    """The stretch ahead of `pos` that a move from there can cover: up to the range or the run-out,
    where every move stops (BlastTables.stop_ahead), at most MAX_AHEAD spaces."""
    return min(np.int64(tb.stop_ahead[trail, pos]), MAX_AHEAD)


@splice
def within_count_nb(at, count_here, k, pos):
    """The furthest j ahead of `pos` with at most k of a kind of space (uphill, or uphill-or-flat) at
    positions pos + 1 .. pos + j: just before the (k + 1)-th such space after pos. `at`: where the
    route's spaces of that kind lie (BlastTables.up_at or up_flat_at), count_here: how many lie at
    positions 0 .. pos. Negative for k < 0."""
    if k < 0:
        return np.int64(-1)
    return np.int64(at[min(count_here + k, at.shape[0] - 1)]) - 1 - pos


@inline
def card_score_nb(st, tb, trail, s, c, ahead):
    """Card c judged by its better action: its score (the furthest space it reaches from here and
    the pulse it costs, less the price of an icy action before the last lap), and that action's
    spaces gained, pulse cost and steps. Returns (score, gain, pulse cost, steps).

    The furthest space: with u, f, d steps, the furthest j within `ahead` (ahead_nb) with at most u
    uphill spaces, u + f uphill-or-flat ones and u + f + d in all, exactly where the
    least-versatile-step walk of reach_route_nb ends; found in the trail's running counts
    (BlastTables.up_count ..), without a walk."""
    dice = st.dice
    rules = tb.rules
    w = st.params[s]
    pos = st.seat[SEAT_POS, s]
    pulse = st.seat[SEAT_PULSE, s]
    next_range = tb.next_range[trail]
    up_at = tb.up_at[trail]
    up_flat_at = tb.up_flat_at[trail]
    n_up_here = np.int64(tb.up_count[trail, pos])
    n_up_flat_here = np.int64(tb.up_flat_count[trail, pos])
    icy_cost = 0.0 if tb.lap[trail, pos] >= rules[R_START_LINE_CROSSINGS] else w[P_ICY]
    v_card = NEG * 10.0
    gain = 0
    cost = 0
    steps = 0
    for a in range(2):
        up = value_nb(tb.card_steps[c, a, UPHILL], dice, 0)
        fl = value_nb(tb.card_steps[c, a, FLAT], dice, 0)
        dn = value_nb(tb.card_steps[c, a, DOWNHILL], dice, 0)
        j = min(ahead, up + fl + dn)
        if j > 0:
            j = max(0, min(j, within_count_nb(up_at, n_up_here, up, pos),
                           within_count_nb(up_flat_at, n_up_flat_here, up + fl, pos)))
        far = pos + j
        p = max(0, pulse + tb.card_pulse[c, a])
        to_range = next_range[far]
        if to_range >= 0:
            to_range -= far
        sc = score_end_nb(w, far - pos, far, p, rules[R_PULSE_LIMIT], tb.finish_pos[trail], to_range,
                          tb.accuracy[st.seat[SEAT_BIATHLETE, s]], rules[R_BAND_LOW], rules[R_BAND_MEDIUM])
        if tb.card_icy[c, a] == 1:
            sc -= icy_cost
        if sc > v_card:
            v_card = sc
            gain = j
            cost = tb.card_pulse[c, a]
            steps = up + fl + dn
    return v_card, gain, cost, steps


@inline
def hand_worth_nb(tb, w, c, default):
    """Card c's worth F_WORTH by the worth weights of w (the table's where they are the defaults)."""
    return card_worth_nb(tb, c) if default else worth_nb(tb.card_steps, tb.card_pulse, tb.card_icy, tb.card_wind, c, w)


@inline
def card_extra_nb(tb, dice, c, w, k0, gain, cost, steps, default):
    """The distilled part of a card's score: the weights w[k0 .. k0 + 6] times features F_WORTH ..
    F_WIND (card_features_nb). default: whether w's worth weights are the defaults (default_worth_nb),
    so that the card's worth is the table's."""
    icy = 1.0 if (tb.card_icy[c, 0] == 1 or tb.card_icy[c, 1] == 1) else 0.0
    wind = 1.0 if (tb.card_wind[c, 0] == 1 or tb.card_wind[c, 1] == 1) else 0.0
    worth = card_worth_nb(tb, c) if default else worth_nb(tb.card_steps, tb.card_pulse, tb.card_icy, tb.card_wind, c, w)
    return (w[k0] * worth + w[k0 + 1] * value_nb(tb.card_init[c], dice, 0)
            + w[k0 + 2] * gain + w[k0 + 3] * cost + w[k0 + 4] * steps + w[k0 + 5] * icy
            + w[k0 + 6] * wind)


@inline
def hand_top_two_nb(st, tb, w, s, default):
    """The largest and second largest worth (hand_worth_nb) of the cards in seat s's hand (NEG where
    there is none)."""
    first = NEG
    second = NEG
    for i in range(st.seat[SEAT_HAND_N, s]):
        x = hand_worth_nb(tb, w, st.hand[s, i], default)
        if x > first:
            second = first
            first = x
        elif x > second:
            second = x
    return first, second


@inline
def top_margin_nb(worth, first, second):
    """F_TOP: a card's lead in worth over the next best card in hand, if it is the best (0 otherwise,
    and for one card alone or tied at the top)."""
    if worth < first or second == NEG:
        return 0.0
    return worth - second


@inline
def race_share_nb(st, tb, trail, s):
    """The share of the race seat s has run: its position over the finish's (0 at the start, 1 there)."""
    return st.seat[SEAT_POS, s] / tb.finish_pos[trail]


@inline
def card_features_nb(st, tb, trail, s, out):
    """The features CARD_FEATURES of each card i of seat s's hand, into out[i, F_*] (fitting the card
    weights to a reference's choices: benchmarks/blast_distill_fit.py)."""
    ahead = ahead_nb(tb, trail, st.seat[SEAT_POS, s])
    for i in range(st.seat[SEAT_HAND_N, s]):
        c = st.hand[s, i]
        v, gain, cost, steps = card_score_nb(st, tb, trail, s, c, ahead)
        out[i, F_SCORE] = v
        out[i, F_WORTH] = worth_nb(tb.card_steps, tb.card_pulse, tb.card_icy, tb.card_wind, c, st.params[s])
        out[i, F_INIT] = value_nb(tb.card_init[c], st.dice, 0)
        out[i, F_GAIN] = gain
        out[i, F_PULSE] = cost
        out[i, F_STEPS] = steps
        out[i, F_ICY] = 1.0 if (tb.card_icy[c, 0] == 1 or tb.card_icy[c, 1] == 1) else 0.0
        out[i, F_WIND] = 1.0 if (tb.card_wind[c, 0] == 1 or tb.card_wind[c, 1] == 1) else 0.0
    n = st.seat[SEAT_HAND_N, s]
    first, second = hand_top_two_nb(st, tb, st.params[s], s, False)
    late = race_share_nb(st, tb, trail, s)
    for i in range(n):
        out[i, F_TOP] = top_margin_nb(out[i, F_WORTH], first, second)
        out[i, F_LATE] = out[i, F_WORTH] * late
        out[i, F_LATE_GAIN] = out[i, F_GAIN] * late


@inline
def shot_home_nb(st, tb, trail, s):
    """Whether seat s, on a mat, could cross the finish with its Shoot this round: every hit, every
    step wax it holds and its pending boost (P_FINISH_FIRST)."""
    boost = st.work[W_BOOST:W_BOOST + 3]
    pending_steps_nb(st, s, boost)
    rc = tb.range_card[trail]
    hits = tb.rules[R_MAX_HITS]
    wax = st.wax[s]
    far = st.seat[SEAT_POS, s]
    for a in range(2):
        q = reach_nb(tb, trail, st.seat[SEAT_POS, s],
                     value_nb(tb.card_steps[rc, a, UPHILL], st.dice, hits) + boost[UPHILL] + wax[BLACK],
                     value_nb(tb.card_steps[rc, a, FLAT], st.dice, hits) + boost[FLAT] + wax[YELLOW],
                     value_nb(tb.card_steps[rc, a, DOWNHILL], st.dice, hits) + boost[DOWNHILL] + wax[GREEN])
        far = max(far, q)
    return far == tb.finish_pos[trail]


@inline
def pending_steps_nb(st, s, out):
    """The steps by terrain class (out[UPHILL], out[FLAT], out[DOWNHILL]) of seat s's pending
    next-turn coach boost, as the turn this round will add them (engine.play_turn_nb)."""
    c = st.seat[SEAT_BOOST_C, s] if st.seat[SEAT_BOOST_ROUND, s] < st.g[G_ROUND] else -1
    boost_steps_nb(c, st.seat[SEAT_BOOST_S, s], out)


@inline
def boost_steps_nb(colour, strength, out):
    """A coach boost's extra steps by terrain class into out (black uphill, yellow flat, green
    downhill; none for another colour or -1)."""
    out[:] = 0
    if colour == BLACK:
        out[UPHILL] = strength
    elif colour == YELLOW:
        out[FLAT] = strength
    elif colour == GREEN:
        out[DOWNHILL] = strength


@inline
def card_context_nb(st, tb, trail, s):
    """The move context (every legal end, judged) for the longest move any card in seat s's hand
    could make this round, with its pending boost (P_CARD_ENDS)."""
    boost = st.work[W_BOOST:W_BOOST + 3]
    pending_steps_nb(st, s, boost)
    most = st.work[W_MOST:W_MOST + 3]
    most[:] = 0
    for i in range(st.seat[SEAT_HAND_N, s]):
        c = st.hand[s, i]
        for a in range(2):
            for t in range(3):
                most[t] = max(most[t], value_nb(tb.card_steps[c, a, t], st.dice, 0) + boost[t])
    return move_context_nb(st, tb, trail, s, most[UPHILL], most[FLAT], most[DOWNHILL], np.bool_(False))


@inline
def card_end_score_nb(st, tb, trail, s, c, ctx):
    """Card c judged as choose_action_nb judges its two actions before wax: the best legal end of
    each (best_of_nb: pulse with drafting and wind, the coach zone's worth), less an icy action's
    price before the last lap; the better of the two."""
    boost = st.work[W_BOOST:W_BOOST + 3]
    out = st.work[W_OUT:W_OUT + 3]
    last_lap = tb.lap[trail, st.seat[SEAT_POS, s]] >= tb.rules[R_START_LINE_CROSSINGS]
    icy_cost = 0.0 if last_lap else st.params[s, P_ICY]
    best = NEG * 10.0
    for a in range(2):
        v = best_of_nb(ctx, value_nb(tb.card_steps[c, a, UPHILL], st.dice, 0) + boost[UPHILL],
                       value_nb(tb.card_steps[c, a, FLAT], st.dice, 0) + boost[FLAT],
                       value_nb(tb.card_steps[c, a, DOWNHILL], st.dice, 0) + boost[DOWNHILL],
                       np.int64(tb.card_pulse[c, a]), out)
        if tb.card_icy[c, a] == 1:
            v -= icy_cost
        if v > best:
            best = v
    return best


@inline
def choose_card_nb(st, tb, trail, s):
    """The card to play this round (secret and simultaneous: only the round-start state is read).

    Each card is judged by its better action (card_score_nb): the furthest space it reaches from
    here and the pulse it costs, less the price of an icy action before the last lap, plus the
    persona's card weights (P_CARD0 ..) times the card's features (F_WORTH ..: a distilled policy;
    zero for the plain heuristic). On a shooting mat the card counts only for its initiative: the
    least useful card is given up (the score negated), plus the mat weights (P_MAT0 ..).
    """
    n = st.seat[SEAT_HAND_N, s]
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        return st.hand[s, below_nb(st.rng[1:], n)]
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_CARD] >= 0:
        c = st.script[s, SC_CARD]
        for i in range(n):
            if st.hand[s, i] == c:
                return c
        raise ValueError("illegal scripted choice: the card is not in the racer's hand")
    w = st.params[s]
    on_mat = st.seat[SEAT_ON_MAT, s] == 1
    sign = -1.0 if on_mat else 1.0
    k0 = P_MAT0 if on_mat else P_CARD0
    distilled = False
    for k in range(k0, k0 + N_CARD_FEATURES - 1):
        if w[k] != 0.0:
            distilled = True
    kx = P_MATX0 if on_mat else P_CARDX0
    extra = False
    for k in range(kx, kx + N_CARD_EXTRA):
        if w[k] != 0.0:
            extra = True
    default = (distilled or extra) and default_worth_nb(w)
    first = NEG
    second = NEG
    late = 0.0
    if extra:
        # the hand's two best worths (F_TOP) and the share of the race run (F_LATE, F_LATE_GAIN)
        first, second = hand_top_two_nb(st, tb, w, s, default)
        late = race_share_nb(st, tb, trail, s)
    ends = (not on_mat) and w[P_CARD_ENDS] != 0.0
    first_home = w[P_FINISH_FIRST] != 0.0 and (not on_mat or shot_home_nb(st, tb, trail, s))
    if ends:
        ctx = card_context_nb(st, tb, trail, s)
    ahead = ahead_nb(tb, trail, st.seat[SEAT_POS, s])
    best_i = 0
    best_v = NEG * 10.0
    for i in range(n):
        c = st.hand[s, i]
        v_card, gain, cost, steps = card_score_nb(st, tb, trail, s, c, ahead)
        if ends:
            v_card = card_end_score_nb(st, tb, trail, s, c, ctx)
        v_card *= sign
        if distilled:
            v_card += card_extra_nb(tb, st.dice, c, w, k0, gain, cost, steps, default)
        if extra:
            wv = hand_worth_nb(tb, w, c, default)
            v_card += (w[kx] * top_margin_nb(wv, first, second) + w[kx + 1] * wv * late
                       + w[kx + 2] * gain * late)
        if first_home and (on_mat or v_card >= FINISH_SCORE - 1.0e5):
            # it crosses the finish within the pulse limit (off a mat), or a Shoot could (on one):
            # the race ends with the first to cross, so the pulse after it is worth nothing and the
            # order of the turns is everything
            v_card = FINISH_SCORE + 1.0e3 * value_nb(tb.card_init[c], st.dice, 0) + (v_card if on_mat else 0.0)
        if v_card > best_v:
            best_v = v_card
            best_i = i
    return st.hand[s, best_i]


@inline
def random_wax_nb(st, s, p):
    """The random player's wax: each token it holds spent with probability p (into scratch[1..5])."""
    for c in range(1, N_COLOURS):
        for _ in range(st.wax[s, c]):
            if uniform_nb(st.rng[1:]) < p:
                st.scratch[c] += 1


@inline
def scripted_wax_nb(st, s):
    """A SCRIPTED seat's wax, from its script (into scratch[1..5]); more than it holds is refused."""
    for c in range(1, N_COLOURS):
        k = max(st.script[s, SC_WAX + c - 1], 0)
        if k > st.wax[s, c]:
            raise ValueError("illegal scripted choice: more wax of a colour than the racer holds")
        st.scratch[c] = k


@inline
def scripted_action_nb(st, s, wax_now):
    """A SCRIPTED seat's action (into scratch[0]) and, with wax_now, its wax (scratch[1..5])."""
    a = st.script[s, SC_ACTION]
    if a != 0 and a != 1:
        raise ValueError("illegal scripted choice: an action is 0 or 1")
    st.scratch[0] = a
    if wax_now:
        scripted_wax_nb(st, s)


@inline
def greedy_wax_nb(st, s, ctx, up, fl, dn, cost, icy, w_wax, best, out):
    """The heuristic's wax for an action with these steps and cost, whose best end scores `best`:
    terrain wax (black -> uphill, yellow -> flat, green -> downhill), then blue, one token at a
    time while a token gains more than its price w_wax (into scratch[BLACK..BLUE]; the end it
    then reaches into scratch[6..8])."""
    sc = st.scratch
    wax = st.wax[s]
    extra = st.work[W_EXTRA:W_EXTRA + 3]
    extra[:] = 0
    blue = 0
    for colour in (BLACK, YELLOW, GREEN):
        t = colour - BLACK
        while sc[colour] < wax[colour]:
            before = ctx_reach_nb(ctx, up + extra[0], fl + extra[1], dn + extra[2])
            extra[t] += 1
            after = ctx_reach_nb(ctx, up + extra[0], fl + extra[1], dn + extra[2])
            if after == before:
                # the token reaches no new space: the same ends, the same score, no gain
                extra[t] -= 1
                break
            v = best_of_nb(ctx, up + extra[0], fl + extra[1], dn + extra[2], cost - blue, out) - icy
            if v - best > w_wax:
                best = v
                sc[colour] += 1
                copy1_nb(sc[6:9], out)
            else:
                extra[t] -= 1
                break
    while sc[BLUE] < wax[BLUE]:
        if best + icy >= FINISH_SCORE - ctx.limit:
            break       # the best end crosses the finish within the limit (its score less the price of
                        # an icy action, which crossing the last start line on the way leaves): a lower
                        # pulse wins nothing more
        v = best_of_nb(ctx, up + extra[0], fl + extra[1], dn + extra[2], cost - blue - 1, out) - icy
        if v - best > w_wax:
            best = v
            blue += 1
            sc[BLUE] += 1
            copy1_nb(sc[6:9], out)
        else:
            break


@inline
def wind_at_end_nb(st, tb, trail, s, pos, lane, on_mat):
    """The wind choose_wind_nb would set for seat s after a move to (pos, lane, on a mat or not):
    asked on the state with the racer put there for the question, then put back."""
    p0 = st.seat[SEAT_POS, s]
    l0 = st.seat[SEAT_LANE, s]
    m0 = st.seat[SEAT_ON_MAT, s]
    st.seat[SEAT_POS, s] = pos
    st.seat[SEAT_LANE, s] = lane
    st.seat[SEAT_ON_MAT, s] = on_mat
    wind = choose_wind_nb(st, tb, trail, s)
    st.seat[SEAT_POS, s] = p0
    st.seat[SEAT_LANE, s] = l0
    st.seat[SEAT_ON_MAT, s] = m0
    return wind


@inline
def choose_action_nb(st, tb, trail, s, card, boost_steps):
    """Top or bottom, and the wax to spend: scratch[0] action, scratch[1..5] wax black..white.

    The heuristic judges both actions by their best end, then adds wax one token at a time while
    a token gains more than its price (P_WAX, a quarter of it on the last lap). The chosen end is
    kept in scratch[6..8] (scratch[9] = 1): the engine moves there without asking again, since the
    steps of the move will be exactly those judged here.
    """
    sc = st.scratch
    for i in range(10):
        sc[i] = 0
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        sc[0] = below_nb(st.rng[1:], 2)
        random_wax_nb(st, s, 0.15)
        return
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_ACTION] >= 0:
        scripted_action_nb(st, s, True)
        return
    wax = st.wax[s]
    steps = st.work[W_ACT:W_ACT + 6]      # steps[3 * a + t] (a reshape here cost 1.5% of a race)
    most = st.work[W_MOST:W_MOST + 3]
    most[:] = 0
    for a in range(2):
        for t in range(3):
            steps[3 * a + t] = value_nb(tb.card_steps[card, a, t], st.dice, 0) + boost_steps[t]
            most[t] = max(most[t], steps[3 * a + t])
    most[UPHILL] += wax[BLACK]
    most[FLAT] += wax[YELLOW]
    most[DOWNHILL] += wax[GREEN]
    ctx = move_context_nb(st, tb, trail, s, most[UPHILL], most[FLAT], most[DOWNHILL], np.bool_(False))  # not a literal: one compiled version
    out = st.work[W_OUT:W_OUT + 3]
    last_lap = tb.lap[trail, st.seat[SEAT_POS, s]] >= tb.rules[R_START_LINE_CROSSINGS]
    icy_cost = 0.0 if last_lap else st.params[s, P_ICY]
    best_a = 0
    best = NEG * 10.0
    for a in range(2):
        v = best_of_nb(ctx, steps[3 * a], steps[3 * a + 1], steps[3 * a + 2], np.int64(tb.card_pulse[card, a]), out)
        if tb.card_icy[card, a] == 1:
            v -= icy_cost
        if v > best:
            best = v
            best_a = a
            copy1_nb(sc[6:9], out)
    sc[0] = best_a
    icy = icy_cost if tb.card_icy[card, best_a] == 1 else 0.0
    cost = tb.card_pulse[card, best_a]
    w_wax = st.params[s, P_WAX] * (st.params[s, P_LATE_WAX] if last_lap else 1.0)
    greedy_wax_nb(st, s, ctx, steps[3 * best_a], steps[3 * best_a + 1], steps[3 * best_a + 2], cost, icy, w_wax, best, out)
    # the other action, if with the same wax it reaches the planned end for less pulse, or as little
    # and keeps the card, without giving up a wind symbol the turn would use: it dominates (the
    # blunder check's worse_action, docs/players.md). A symbol is used only where the wind chosen at
    # the planned end differs from the wind now.
    o = 1 - best_a
    symbol = tb.card_wind[card, o] < tb.card_wind[card, best_a]
    if symbol and tb.card_icy[card, o] <= tb.card_icy[card, best_a]:
        symbol = wind_at_end_nb(st, tb, trail, s, sc[6], sc[7], sc[8]) != st.g[G_WIND]
    if tb.card_icy[card, o] <= tb.card_icy[card, best_a] and not symbol:
        far = ctx_reach_nb(ctx, steps[3 * o] + sc[BLACK], steps[3 * o + 1] + sc[YELLOW], steps[3 * o + 2] + sc[GREEN])
        if far >= sc[6]:
            # the pulse at the planned end with either action (drafting and wind there, floored at 0)
            adjust = end_adjust_nb(ctx, sc[6], sc[7])
            p_a = max(0, ctx.pulse + cost - sc[BLUE] + adjust)
            p_o = max(0, ctx.pulse + tb.card_pulse[card, o] - sc[BLUE] + adjust)
            if p_o < p_a or (p_o == p_a and tb.card_icy[card, o] < tb.card_icy[card, best_a]):
                best_a = o
                sc[0] = o
    # white wax: calm the wind before shooting if the move reaches the range
    # (only for a wind it will then choose, judged on its mat, not where the range's own white
    # coach zone gives the symbol, and not when the pulse there eliminates it before the wind step:
    # the blunder check's wasted_white)
    if wax[WHITE] > 0 and tb.card_wind[card, best_a] == 0 and st.g[G_WIND] != STILL:
        if tb.is_range[trail, sc[6]] == 1 and sc[6] != st.seat[SEAT_POS, s] and tb.coach_colour[trail, sc[6]] != WHITE \
                and ctx.pulse + tb.card_pulse[card, best_a] - sc[BLUE] + end_adjust_nb(ctx, sc[6], sc[7]) <= ctx.limit:
            new_wind = wind_at_end_nb(st, tb, trail, s, st.seat[SEAT_POS, s], st.seat[SEAT_LANE, s], 1)
            if new_wind != st.g[G_WIND]:
                sc[WHITE] = min(wax[WHITE], np.int64(st.params[s, P_WHITE_CALM]), 1)
    sc[9] = 1


@inline
def choose_destination_nb(st, tb, trail, s, up, flat, down, cost, shooting, out):
    """Where to stop: out[0] position, out[1] lane, out[2] on a mat. The move's context is built
    once for every kind of player (one inlined copy of move_context_nb, not three)."""
    c = move_context_nb(st, tb, trail, s, up, flat, down, shooting)
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_DEST] >= 0:
        # the scripted end must be one of the move's legal ends (reachable with these steps, a
        # space that can hold the racer, a free lane); the lane is the script's where the player
        # chooses it, else the one the rules give (the mat on the range, the run-out's, staying put)
        q = st.script[s, SC_DEST]
        want = st.script[s, SC_LANE]
        k = ends_within_nb(c, up, flat, down)
        pick = -1
        for i in range(k):
            if c.ends[i, E_POS] != q:
                continue
            free_choice = q != c.pos and c.is_range[q] == 0 and q != c.finish
            if not free_choice or c.ends[i, E_LANE] == max(want, 0):
                pick = i
                break
        if pick < 0:
            raise ValueError("illegal scripted choice: the destination is not a legal end of the move")
        out[0] = c.ends[pick, E_POS]
        out[1] = c.ends[pick, E_LANE]
        out[2] = c.ends[pick, E_MAT]
        return
    if st.seat[SEAT_PLAYER, s] != RANDOM:
        best_of_nb(c, up, flat, down, cost, out)
        return
    i = below_nb(st.rng[1:], c.n_ends)
    out[0] = c.ends[i, E_POS]
    out[1] = c.ends[i, E_LANE]
    out[2] = c.ends[i, E_MAT]


@outline_hot      # outlined: called once per move, compiled once, not copied into each turn
def farther_end_nb(st, tb, trail, s, up, flat, down, cost, blue, white, out):
    """The planned end of seat s's move (out: position, lane, on a mat) moved farther where a
    farther end dominates it: a space these steps reach before any start line, the range or the
    run-out, that can hold the racer, with its pulse there (the engine's sum: `cost` less `blue`
    wax and a blue coach zone there, drafting and wind there) no higher and within the limit, while
    the planned end gives no coach zone. Farther at no cost is better by every measure the heuristic
    scores an end by (the blunder check's `stopped_short`, docs/players.md): its estimate counts a
    blue zone by P_COACH, not by the pulse it takes off, and switching a card's action keeps the end
    planned for the other action, so it sometimes stops short. Among the dominating ends it takes
    the one it scores best with the engine's pulse (ties: the farther), until none dominates; an
    end where a spent blue token would lower nothing, or a white zone when white wax was spent, is
    not taken (that would waste the token). Only the heuristic's own ends move: random seats and a
    scripted destination stay as they are."""
    kind = st.seat[SEAT_PLAYER, s]
    if kind == RANDOM or (kind == SCRIPTED and st.script[s, SC_DEST] >= 0):
        return
    is_range = tb.is_range[trail]
    pos = st.seat[SEAT_POS, s]
    far = reach_nb(tb, trail, pos, up, flat, down)
    if out[2] == 1 or far <= out[0]:
        return
    coach = tb.coach_colour[trail]
    strength = tb.coach_strength[trail]
    physical = tb.physical[trail]
    lanes = tb.lanes[trail]
    start_line = tb.start_line[trail]
    range_pos = tb.range_pos[trail]
    rules = tb.rules
    limit = rules[R_PULSE_LIMIT]
    floor = rules[R_PULSE_FLOOR]
    finish = tb.finish_pos[trail]
    before = st.seat[SEAT_PULSE, s]
    w = st.params[s]
    acc_row = tb.accuracy[st.seat[SEAT_BIATHLETE, s]]
    adj = st.work[W_ADJ:W_ADJ + 2]
    while True:
        q0 = out[0]
        if is_range[q0] == 1 or (coach[q0] != NO_COACH and (q0 != pos or rules[R_ZERO_STEP_BOOST] == 1)):
            return          # the range, or a coach zone that a farther end would give up
        pulse_adjust_nb(st, tb, trail, s, q0, out[1], 0, adj)
        bound = min(pulse_total_nb(before, cost, blue, adj[0], adj[1], floor), limit)
        best_q = -1
        best_lane = 0
        best_score = 0.0
        for q in range(q0 + 1, far + 1):
            if start_line[q] == 1 or is_range[q] == 1 or q == finish:
                break
            if white > 0 and coach[q] == WHITE:
                continue
            zone = strength[q] if coach[q] != NO_COACH else 0
            blue_zone = zone if coach[q] == BLUE else 0
            mask = occupant_mask_nb(physical, st.seat[SEAT_STATUS], st.seat[SEAT_POS], st.seat[SEAT_LANE], st.g[G_N],
                                    s, physical[q])
            to_range = -1
            for v in range(range_pos.shape[0]):
                if range_pos[v] > q:
                    to_range = range_pos[v] - q
                    break
            for lane in range(lanes[q]):
                if (mask >> lane) & 1 == 1:
                    continue
                pulse_adjust_nb(st, tb, trail, s, q, lane, 0, adj)
                p = pulse_total_nb(before, cost, blue + blue_zone, adj[0], adj[1], floor)
                if p > bound:
                    continue
                if blue > 0 and pulse_total_nb(before, cost, blue - 1 + blue_zone, adj[0], adj[1], floor) == p:
                    continue
                sc = score_end_nb(w, q - pos, q, p, limit, finish, to_range, acc_row, rules[R_BAND_LOW],
                                  rules[R_BAND_MEDIUM]) + w[P_COACH] * zone
                if best_q < 0 or sc >= best_score:
                    best_q = q
                    best_lane = lane
                    best_score = sc
        if best_q < 0:
            return
        out[0] = best_q
        out[1] = best_lane
        out[2] = 0


@inline
def expected_hits_nb(tb, biathlete, pulse, wind_adj):
    faces = tb.rules[R_DIE_FACES]
    thr = threshold_nb(tb, biathlete, pulse)
    p = (faces - thr) / faces if thr < faces else 0.0
    e = p * tb.rules[R_N_DICE] + wind_adj
    return min(max(e, 0.0), tb.rules[R_MAX_HITS] * 1.0)


@inline
def choose_range_action_nb(st, tb, trail, s):
    """On a mat: scratch[0] WAIT or SHOOT, and for a Wait scratch[1..5] wax (a Shoot's wax is chosen
    after the hits, by choose_shoot_wax_nb)."""
    sc = st.scratch
    for i in range(N_COLOURS):
        sc[i] = 0
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        sc[0] = WAIT if (st.seat[SEAT_WAITS, s] < 3 and uniform_nb(st.rng[1:]) < 0.3) else SHOOT
        if sc[0] == WAIT:
            random_wax_nb(st, s, 0.1)      # a Shoot's wax comes after the hits (choose_shoot_wax_nb)
        return
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_ACTION] >= 0:
        scripted_action_nb(st, s, st.script[s, SC_ACTION] == WAIT)
        return
    rc = tb.range_card[trail]
    facing = facing_nb(tb, trail, st.seat[SEAT_POS, s], 1)
    adj = shot_wind_nb(tb, st.g[G_WIND], facing)
    now = expected_hits_nb(tb, st.seat[SEAT_BIATHLETE, s], st.seat[SEAT_PULSE, s], adj)
    later_pulse = max(0, st.seat[SEAT_PULSE, s] + tb.card_pulse[rc, WAIT])
    later = expected_hits_nb(tb, st.seat[SEAT_BIATHLETE, s], later_pulse, adj)
    if later - now >= st.params[s, P_WAIT_GAIN] and st.seat[SEAT_WAITS, s] < st.params[s, P_WAIT_MAX]:
        sc[0] = WAIT
    else:
        sc[0] = SHOOT


@outline_hot      # outlined: called from the turn and from keep_bullets_nb (kernels/jit.py has the figures)
def choose_shoot_wax_nb(st, tb, trail, s, up, flat, down, cost):
    """A Shoot's wax, chosen once the hits are known: scratch[1..5] wax black..white, and for the
    heuristic the end it then reaches (scratch[SCRATCH_SHOOT_END ..], scratch[9] = 2; the engine
    moves there and clears them, so the scratch is left as the wax choice alone leaves it).

    up, flat, down: the Shoot action's steps with this shot's hits, plus any step boost; cost: its
    pulse cost. The heuristic adds terrain and blue wax as on a card turn (greedy_wax_nb).
    """
    sc = st.scratch
    for i in range(10):
        sc[i] = 0
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        random_wax_nb(st, s, 0.1)
        return
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_ACTION] >= 0:
        scripted_wax_nb(st, s)
        return
    wax = st.wax[s]
    ctx = move_context_nb(st, tb, trail, s, up + wax[BLACK], flat + wax[YELLOW], down + wax[GREEN],
                          np.bool_(True))
    out = st.work[W_OUT:W_OUT + 3]
    best = best_of_nb(ctx, up, flat, down, np.int64(cost), out)
    planned = sc[SCRATCH_SHOOT_END:SCRATCH_SHOOT_END + 3]
    copy1_nb(planned, out)
    last_lap = tb.lap[trail, st.seat[SEAT_POS, s]] >= tb.rules[R_START_LINE_CROSSINGS]
    w_wax = st.params[s, P_WAX] * (st.params[s, P_LATE_WAX] if last_lap else 1.0)
    greedy_wax_nb(st, s, ctx, up, flat, down, np.int64(cost), 0.0, w_wax, best, out)
    # the end planned with exactly the steps and cost the Shoot will have (scratch[SCRATCH_SHOOT_END..],
    # scratch[9] = 2): the engine moves there without choose_destination_nb's search, the same
    # best_of_nb over the same ends; not for a scripted destination. With a wax token spent, the
    # planned end is the one greedy_wax_nb kept in scratch[6..8]
    if sc[BLACK] + sc[YELLOW] + sc[GREEN] + sc[BLUE] > 0:
        copy1_nb(planned, sc[6:9])
    sc[9] = 2
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_DEST] >= 0:
        sc[9] = 0
        planned[:] = 0


@outline_hot      # outlined: its destination search is compiled once, not again in each turn
def hit_reaches_farther_nb(st, tb, trail, s, act_card, action, hits, boost):
    """Whether the Shoot action (card act_card, action) with `hits` hits reaches farther than with
    one hit fewer for some choice of the step wax seat s holds (boost: the step boosts of the turn).
    Every space is reached alike when it does not: a bullet for that hit buys nothing."""
    pos = st.seat[SEAT_POS, s]
    up_at = tb.up_at[trail]
    up_flat_at = tb.up_flat_at[trail]
    ahead = np.int64(tb.stop_ahead[trail, pos])
    n_up = np.int64(tb.up_count[trail, pos])
    n_up_flat = np.int64(tb.up_flat_count[trail, pos])
    u1 = value_nb(tb.card_steps[act_card, action, UPHILL], st.dice, hits) + boost[UPHILL]
    f1 = value_nb(tb.card_steps[act_card, action, FLAT], st.dice, hits) + boost[FLAT]
    d1 = value_nb(tb.card_steps[act_card, action, DOWNHILL], st.dice, hits) + boost[DOWNHILL]
    u0 = value_nb(tb.card_steps[act_card, action, UPHILL], st.dice, hits - 1) + boost[UPHILL]
    f0 = value_nb(tb.card_steps[act_card, action, FLAT], st.dice, hits - 1) + boost[FLAT]
    d0 = value_nb(tb.card_steps[act_card, action, DOWNHILL], st.dice, hits - 1) + boost[DOWNHILL]
    wax = st.wax[s]
    for b in range(wax[BLACK] + 1):
        for y in range(wax[YELLOW] + 1):
            for g in range(wax[GREEN] + 1):
                if reach_from_nb(up_at, up_flat_at, pos, ahead, n_up, n_up_flat, u1 + b, f1 + y, d1 + g) != \
                        reach_from_nb(up_at, up_flat_at, pos, ahead, n_up, n_up_flat, u0 + b, f0 + y, d0 + g):
                    return True
    return False


@outline_hot      # outlined: its destination search is compiled once, not again in each turn
def keep_bullets_nb(st, tb, trail, s, act_card, action, hits, own, boost):
    """The own bullets a Shoot spends once it has planned its move: `own` were chosen on top of
    `hits`; the heuristic plans its wax and its end with all of them (as the engine will ask it
    next) and keeps those whose hits that end does not need (the blunder check's wasted_bullet).
    Where it keeps none, that plan (choose_shoot_wax_nb's scratch) is the Shoot's: the engine does
    not ask again (plans_kept_nb)."""
    kind = st.seat[SEAT_PLAYER, s]
    if kind == RANDOM or kind == SCRIPTED:
        return own
    total = hits + own
    u = value_nb(tb.card_steps[act_card, action, UPHILL], st.dice, total) + boost[UPHILL]
    f = value_nb(tb.card_steps[act_card, action, FLAT], st.dice, total) + boost[FLAT]
    d = value_nb(tb.card_steps[act_card, action, DOWNHILL], st.dice, total) + boost[DOWNHILL]
    choose_shoot_wax_nb(st, tb, trail, s, u, f, d, tb.card_pulse[act_card, action])
    b, y, g = st.scratch[BLACK], st.scratch[YELLOW], st.scratch[GREEN]
    # the end it plans with that wax: choose_destination_nb's, which choose_shoot_wax_nb found (the
    # same best_of_nb over the same ends) and left in the scratch
    end = st.scratch[SCRATCH_SHOOT_END]
    pos = st.seat[SEAT_POS, s]
    while own > 0:
        t = total - 1
        u = value_nb(tb.card_steps[act_card, action, UPHILL], st.dice, t) + boost[UPHILL] + b
        f = value_nb(tb.card_steps[act_card, action, FLAT], st.dice, t) + boost[FLAT] + y
        d = value_nb(tb.card_steps[act_card, action, DOWNHILL], st.dice, t) + boost[DOWNHILL] + g
        if reach_nb(tb, trail, pos, u, f, d) < end:
            break
        own -= 1
        total = t
    return own


@inline
def plans_kept_nb(st, s, own, kept):
    """Whether keep_bullets_nb, asked with `own` bullets, left its Shoot's wax and end in the scratch
    for the hits the Shoot now has: it planned them (a heuristic seat) and kept no bullet back."""
    kind = st.seat[SEAT_PLAYER, s]
    return kept == own and kind != RANDOM and kind != SCRIPTED


@inline
def choose_bullets_nb(st, tb, trail, s, hits, coach_max, visit, act_card, action, boost):
    """Bullets to add hits after the roll: scratch[0] own bullets, scratch[1] red coach bullets.

    coach_max: bullets a pending red coach boost offers (already capped by the room left).
    act_card, action: the Shoot action; boost: the turn's step boosts. The heuristic keeps an own
    bullet whose hit would take the Shoot no farther with any wax it holds (the blunder check's
    `wasted_bullet`, docs/players.md).
    """
    room = tb.rules[R_MAX_HITS] - hits
    sc = st.scratch
    sc[0] = 0
    sc[1] = 0
    if room <= 0:
        if st.seat[SEAT_PLAYER, s] == SCRIPTED and (st.script[s, SC_BULLETS] > 0 or st.script[s, SC_COACH] > 0):
            raise ValueError("illegal scripted choice: bullets for hits when the shot has the most hits")
        return
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        if coach_max > 0:
            sc[1] = below_nb(st.rng[1:], coach_max + 1)
            room -= sc[1]
        sc[0] = below_nb(st.rng[1:], min(room, st.seat[SEAT_BULLETS, s]) + 1)
        return
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_BULLETS] >= 0:
        own = st.script[s, SC_BULLETS]
        coach = max(st.script[s, SC_COACH], 0)
        if own > st.seat[SEAT_BULLETS, s] or coach > coach_max or own + coach > room:
            raise ValueError("illegal scripted choice: more bullets than held, than the red boost "
                             "offers, or than there are hits left to add")
        sc[0] = own
        sc[1] = coach
        return
    # P_COACH_FIRST 1: the red boost's bullets (free, lost if unused) take the room first; 0: its own
    # bullets do, and the boost's fill what room is left
    coach_first = st.params[s, P_COACH_FIRST] >= 0.5
    coach = coach_max if coach_first else 0
    keep = np.int64(st.params[s, P_BULLET_RESERVE]) if visit == 0 else 0
    own = max(0, min(room - coach, st.seat[SEAT_BULLETS, s] - keep))
    while own > 0 and not hit_reaches_farther_nb(st, tb, trail, s, act_card, action, hits + coach + own, boost):
        own -= 1
    sc[0] = own
    sc[1] = coach if coach_first else min(coach_max, room - own)


@inline
def choose_motivation_nb(st, tb, s):
    """0 or 1 for a face-up slot, MOTIVATION_BLIND for the top of the deck; -1 if nothing is left."""
    n_face = tb.rules[R_FACE_UP_MOTIVATION]
    deck_left = st.g[G_MN] - st.g[G_MTOP]
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        n = (1 if deck_left > 0 else 0)
        for k in range(n_face):
            n += 1 if st.g[G_FACE0 + k] >= 0 else 0
        if n == 0:
            return np.int64(-1)
        k = below_nb(st.rng[1:], n)
        for slot in range(n_face):
            if st.g[G_FACE0 + slot] >= 0:
                if k == 0:
                    return np.int64(slot)
                k -= 1
        return np.int64(MOTIVATION_BLIND)
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_MOTIVATION] >= 0:
        m = st.script[s, SC_MOTIVATION]
        if m == MOTIVATION_BLIND:
            if deck_left <= 0:
                raise ValueError("illegal scripted choice: a blind Motivation draw from an empty deck")
        elif m >= n_face or st.g[G_FACE0 + m] < 0:
            raise ValueError("illegal scripted choice: an empty or missing face-up Motivation slot")
        return m
    return motivation_choice_nb(tb.card_steps, tb.card_pulse, tb.card_icy, tb.card_wind, st.mdeck, st.mworth,
                                st.g, st.seat[SEAT_SECRET], s, n_face, st.seat[SEAT_PLAYER, s] == REFERENCE,
                                st.params[s])


@outline_hot      # outlined: a few calls a race, each passed a handful of arrays (not the tables and state)
def motivation_choice_nb(card_steps, card_pulse, card_icy, card_wind, mdeck, mworth, g, secret, s, n_face,
                         reference, w):
    """The heuristic's Motivation card: the face-up card of the highest worth (worth_nb by the seat's
    weights w), unless the blind draw's average worth over the cards it has not seen is higher.

    mworth: the deck's worth by the default weights (prepare_race_nb), used where w's worth weights
    are the defaults (the same figures, without a walk over every card's actions); g, secret: the
    state's g and SEAT_SECRET row; reference: whether the seat is a REFERENCE player."""
    deck_left = g[G_MN] - g[G_MTOP]
    cached = default_worth_nb(w)
    # the blind draw is worth the average of the cards not seen yet
    blind = NEG
    if deck_left > 0:
        tot = 0.0
        for i in range(g[G_MTOP], g[G_MN]):
            tot += mworth[i] if cached else worth_nb(card_steps, card_pulse, card_icy, card_wind, mdeck[i], w)
        blind = tot / deck_left
        if reference:
            # the reference does not know which cards the others drew blind: to it they are
            # as likely to be the next card as those still in the deck
            unseen = deck_left
            for o in range(g[G_N]):
                bits = secret[o]
                if o == s or bits == 0:
                    continue
                for i in range(g[G_MTOP]):
                    if (bits >> np.int64(i)) & 1 == 1:
                        tot += mworth[i] if cached else worth_nb(card_steps, card_pulse, card_icy, card_wind,
                                                                 mdeck[i], w)
                        unseen += 1
            blind = tot / unseen
    best = np.int64(MOTIVATION_BLIND if deck_left > 0 else -1)
    best_v = blind
    for slot in range(n_face):
        c = g[G_FACE0 + slot]
        if c >= 0:
            v = worth_nb(card_steps, card_pulse, card_icy, card_wind, c, w)
            if v >= best_v:
                best_v = v
                best = np.int64(slot)
    return best


@inline
def choose_wind_nb(st, tb, trail, s):
    """The new wind after an action with the wind symbol."""
    if st.seat[SEAT_PLAYER, s] == RANDOM:
        return below_nb(st.rng[1:], 5)
    if st.seat[SEAT_PLAYER, s] == SCRIPTED and st.script[s, SC_WIND] >= 0:
        if st.script[s, SC_WIND] > STILL:
            raise ValueError("illegal scripted choice: the wind is N, E, S, W or still (0..4)")
        return st.script[s, SC_WIND]
    spite = st.params[s, P_WIND_SPITE]
    spaces = np.int64(st.params[s, P_WIND_AHEAD])
    if spite <= 0.0:
        if st.seat[SEAT_ON_MAT, s] == 1:
            return np.int64(STILL)          # about to shoot: windstill gives a hit
        # a tailwind for where it will be skiing next
        ahead = min(st.seat[SEAT_POS, s] + spaces, tb.route_len[trail] - 1)
        return np.int64((tb.heading[trail, ahead] + 2) % 4)
    # each wind judged by what it does for this racer, less `spite` times what it does for the
    # others still racing (a tailwind +1, a headwind -1, windstill on a mat +1)
    best = np.int64(STILL)
    best_v = NEG
    for wind in range(5):
        v = 0.0
        for o in range(st.g[G_N]):
            if st.seat[SEAT_STATUS, o] != STATUS_RACING:
                continue
            g = wind_gain_nb(tb, trail, st, o, wind, spaces)
            v += g if o == s else -spite * g
        if v > best_v:
            best_v = v
            best = np.int64(wind)
    return best


@inline
def wind_gain_nb(tb, trail, st, o, wind, spaces):
    """+1 if `wind` helps racer o next (a tailwind `spaces` ahead, or windstill while on a mat), -1
    if it is a headwind there, 0 otherwise."""
    if st.seat[SEAT_ON_MAT, o] == 1:
        return 1.0 if wind == STILL else 0.0
    if wind == STILL:
        return 0.0
    ahead = min(st.seat[SEAT_POS, o] + spaces, tb.route_len[trail] - 1)
    h = tb.heading[trail, ahead]
    if wind == (h + 2) % 4:
        return 1.0
    if wind == h:
        return -1.0
    return 0.0


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
