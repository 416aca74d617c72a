"""Biathlon Blast rule functions: pure computations on the compiled tables and a race state.

Chance is an input: functions take the dice as they show; the engine rolls them. Interpretations
follow docs/rules.md; switches are read from `tb.rules`.
"""
import numpy as np
from ..jit import inline, splice
from ..nolit import unliteral_calls

from .consts import (
    DOWNHILL, R_BAND_LOW, R_BAND_MEDIUM, R_CROSSWIND_HITS, R_DRAFTING, R_HEADWIND,
    R_MAX_HITS, R_MIXED_LANE_DRAFTING, R_N_DICE, R_RANGE_DRAFTING, R_TAILWIND, R_WINDSTILL_HITS,
    SRC_HITS, STILL, UPHILL, VAL_BASE, VAL_MULT, VAL_SRC,
)
from .events import STATUS_RACING
from .state import (
    SEAT_LANE, SEAT_POS, SEAT_STATUS,
)
from .state import G_N, G_WIND


@splice
def value_nb(triple, dice, hits):
    """A card value: base + mult * (die face | hits). `triple` is (base, source, mult)."""
    src = triple[VAL_SRC]
    if src == -1:
        return np.int64(triple[VAL_BASE])
    if src == SRC_HITS:
        return np.int64(triple[VAL_BASE] + triple[VAL_MULT] * hits)
    return np.int64(triple[VAL_BASE] + triple[VAL_MULT] * dice[src])


@inline
def initiative_nb(tb, card, dice):
    return value_nb(tb.card_init[card], dice, 0)


@splice
def reach_route_nb(terrain, is_range, n_route, start, up, flat, down):
    """The furthest position reachable from `start` with the given steps, on one trail's arrays.

    Each entered space takes the least versatile step that may enter it (downhill, then flat, then
    uphill), which reaches every space any other assignment could. The range and the run-out stop
    a move. Every position between start and the result is passed through (docs/rules.md 4.1).
    The rule as written: the kernels use reach_from_nb, the same result from per-trail lookups
    (tests/test_blast_reach.py compares the two on every trail, start and steps).
    """
    q = start
    last = n_route - 1
    while q < last:
        if q > start and is_range[q] == 1:
            break
        nxt = q + 1
        t = terrain[nxt]
        if t == DOWNHILL and down > 0:
            down -= 1
        elif t != UPHILL and flat > 0:
            flat -= 1
        elif up > 0:
            up -= 1
        else:
            break
        q = nxt
    return q


@splice
def reach_from_nb(up_at, up_flat_at, start, ahead, n_up, n_up_flat, up, flat, down):
    """reach_route_nb's result without the walk, from the trail's lookups (BlastTables.up_count ..):
    the furthest j within `ahead` (stop_ahead[start]: the range or the run-out stops a move) with at
    most `up` uphill spaces, up + flat uphill-or-flat ones and up + flat + down in all among
    start + 1 .. start + j. That is where the walk ends: the least versatile step never takes a
    space that another could take in its stead. n_up, n_up_flat: up_count and up_flat_count at
    start; up_at, up_flat_at: the trail's rows. A negative count of steps moves as 0 does."""
    up = max(up, 0)
    flat = max(flat, 0)
    down = max(down, 0)
    top = up_at.shape[0] - 1
    j = min(ahead, up + flat + down)
    j = min(j, np.int64(up_at[min(n_up + up, top)]) - 1 - start)
    j = min(j, np.int64(up_flat_at[min(n_up_flat + up + flat, top)]) - 1 - start)
    return start + j


@inline
def reach_nb(tb, trail, start, up, flat, down):
    """reach_route_nb on trail `trail`, from its lookups (reach_from_nb)."""
    return reach_from_nb(tb.up_at[trail], tb.up_flat_at[trail], start, np.int64(tb.stop_ahead[trail, start]),
                         np.int64(tb.up_count[trail, start]), np.int64(tb.up_flat_count[trail, start]), up, flat,
                         down)


@splice
def in_line_nb(lanes_a, lanes_n, range_a, range_n, lane_a, mask_n, mixed_sw, range_sw):
    """Is any racer of the neighbouring space directly in line with a racer in lane `lane_a`?

    The neighbour is the space right after (drafting) or right before (tailwind blocking) on the
    racer's own route; `mask_n` has bit k set for a racer in lane k there (see occupant_mask_nb).
    Two double-lane spaces: the same lane only (diagonal does not count); two single-lane spaces:
    always; a single- and a double-lane space: the `mixed_lane_drafting` switch. The range takes
    part only with the `range_drafting` switch; the run-out has no lanes.
    """
    if mask_n == 0:
        return False
    if range_a == 1 or range_n == 1:
        return range_sw == 1
    if lanes_a == 2 and lanes_n == 2:
        return ((mask_n >> lane_a) & 1) == 1
    if lanes_a == 1 and lanes_n == 1:
        return True
    if lanes_a > 2 or lanes_n > 2:
        return True
    return mixed_sw == 1


@splice
def occupant_mask_nb(physical, status, spos, slane, n, me, phys):
    """Bit k set if a racing seat other than `me` is in lane k of physical space `phys`.

    Occupancy is physical, so a racer on another lap of a shared segment counts. A racer off the
    mat on the range (lane -1) sets bit 6.
    """
    mask = 0
    for s in range(n):
        if s == me or status[s] != STATUS_RACING:
            continue
        if physical[spos[s]] == phys:
            ln = slane[s]
            mask |= 1 << (ln if ln >= 0 else 6)
    return mask


@inline
def facing_nb(tb, trail, pos, on_mat):
    """The way a racer faces: its space's heading; on the range off the mat, the next space's."""
    if tb.is_range[trail, pos] == 1 and on_mat == 0 and pos + 1 < tb.route_len[trail]:
        return np.int64(tb.heading[trail, pos + 1])
    return np.int64(tb.heading[trail, pos])


@splice
def wind_adjust_nb(wind, facing, drafting, behind, headwind, tailwind):
    """Headwind (facing into it, not drafting) or tailwind (wind at the back, nobody behind)."""
    if wind == STILL:
        return np.int64(0)
    if wind == facing:
        return np.int64(0) if drafting else np.int64(headwind)
    if wind == (facing + 2) % 4:
        return np.int64(0) if behind else np.int64(tailwind)
    return np.int64(0)


@inline
def pulse_adjust_nb(st, tb, trail, me, pos, lane, on_mat, out):
    """Drafting and wind adjustments for `me` ending at (pos, lane): out[0] drafting, out[1] wind.

    Drafting: someone directly ahead on `me`'s route (in line, see in_line_nb). Headwind when facing
    into the wind and not drafting; tailwind with the wind at the back and nobody directly behind.
    (A thin layer over adjust_arrays_nb: numba runs the work far faster on plain array arguments
    than on arrays taken out of the tables and state inside the same function.)
    """
    adjust_arrays_nb(tb.physical[trail], tb.lanes[trail], tb.is_range[trail], tb.heading[trail],
                     tb.route_len[trail], tb.rules, st.seat[SEAT_STATUS], st.seat[SEAT_POS],
                     st.seat[SEAT_LANE], st.g[G_N], st.g[G_WIND], me, pos, lane, on_mat, out)


@inline
def adjust_arrays_nb(physical, lanes, is_range, heading, n_route, rules, status, spos, slane, n, wind,
                     me, pos, lane, on_mat, out):
    mixed = rules[R_MIXED_LANE_DRAFTING]
    range_sw = rules[R_RANGE_DRAFTING]
    drafting = False
    if pos + 1 < n_route:
        mask = occupant_mask_nb(physical, status, spos, slane, n, me, physical[pos + 1])
        drafting = in_line_nb(lanes[pos], lanes[pos + 1], is_range[pos], is_range[pos + 1], lane, mask,
                              mixed, range_sw)
    behind = False
    if pos >= 1:
        mask = occupant_mask_nb(physical, status, spos, slane, n, me, physical[pos - 1])
        behind = in_line_nb(lanes[pos], lanes[pos - 1], is_range[pos], is_range[pos - 1], lane, mask,
                            mixed, range_sw)
    if is_range[pos] == 1 and on_mat == 0 and pos + 1 < n_route:
        facing = heading[pos + 1]
    else:
        facing = heading[pos]
    out[0] = rules[R_DRAFTING] if drafting else 0
    out[1] = wind_adjust_nb(wind, facing, drafting, behind, rules[R_HEADWIND], rules[R_TAILWIND])


@splice
def band_threshold_nb(accuracy_row, band_low, band_medium, pulse):
    """The accuracy threshold for a pulse: low, medium or high band of a biathlete's tile."""
    if pulse <= band_low:
        return np.int64(accuracy_row[0])
    if pulse <= band_medium:
        return np.int64(accuracy_row[1])
    return np.int64(accuracy_row[2])


@inline
def threshold_nb(tb, biathlete, pulse):
    return band_threshold_nb(tb.accuracy[biathlete], tb.rules[R_BAND_LOW], tb.rules[R_BAND_MEDIUM], pulse)


@inline
def dice_hits_nb(tb, dice, threshold):
    h = 0
    for i in range(tb.rules[R_N_DICE]):  # five dice: no loop to speak of
        if dice[i] >= threshold:
            h += 1
    return np.int64(h)


@inline
def shot_wind_nb(tb, wind, facing):
    """The hit adjustment the wind gives a shooter facing `facing`: windstill, crosswind or 0."""
    if wind == STILL:
        return np.int64(tb.rules[R_WINDSTILL_HITS])
    if wind != facing and wind != (facing + 2) % 4:
        return np.int64(tb.rules[R_CROSSWIND_HITS])
    return np.int64(0)


@inline
def apply_shot_wind_nb(tb, hits, adj):
    """Hits after the wind: never below 0 nor above max_hits."""
    h = hits + adj
    if h < 0:
        h = 0
    if h > tb.rules[R_MAX_HITS]:
        h = tb.rules[R_MAX_HITS]
    return np.int64(h)


@inline
def shot_hits_nb(tb, biathlete, pulse, dice, wind, facing):
    """A shot before bullets: (dice meeting the accuracy, hits after the wind adjustment).

    Accuracy by the pulse band at the moment of shooting; crosswind (wind from the shooter's left or
    right) and windstill adjust the count, never below 0 nor above max_hits.
    """
    dh = dice_hits_nb(tb, dice, threshold_nb(tb, biathlete, pulse))
    return dh, apply_shot_wind_nb(tb, dh, shot_wind_nb(tb, wind, facing))


@splice
def pulse_total_nb(before, cost, reduction, drafting, wind, each_part):
    """Pulse after an action: cost less blue reductions, drafting and wind. Switch `pulse_floor`:
    "total" (each_part 0) floors the sum at 0 once; "each_part" (1) adds the parts in the book's
    order (cost, drafting, wind) and floors at 0 after each."""
    if each_part == 0:
        after = before + cost - reduction + drafting + wind
        return after if after > 0 else 0
    after = before + cost - reduction
    if after < 0:
        after = 0
    after += drafting
    if after < 0:
        after = 0
    after += wind
    return after if after > 0 else 0


unliteral_calls(globals())   # one compiled version per helper, not one per constant (kernels/nolit.py)
