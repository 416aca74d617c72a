"""The compiled Biathlon Blast data the kernels read: one NamedTuple of numpy arrays.

Built by `sim.blast.compile.compile_data`; kernels never see files or names. Axis conventions:
cards are indexed by a global card id; trails by trail id, then route position (padded to the
longest route with zeros; `route_len` says how much of each row is real).

Values (initiative, steps) are (base, source, mult) triples, see `consts.VAL_*`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class BlastTables(NamedTuple):
    rules: np.ndarray            # int64[N_RULES]: rule constants and switches, indexed by consts.R_*
    dice_colour: np.ndarray      # int8[n_dice]: colour of each shooting die

    # cards, by global card id (common, then unique by biathlete, then Motivation, then range)
    card_kind: np.ndarray        # int8[n_cards]: consts.KIND_*
    card_init: np.ndarray        # int16[n_cards, 3]: initiative value triple
    card_steps: np.ndarray       # int16[n_cards, 2, 3, 3]: [card, TOP/BOTTOM, terrain class, value triple]
    card_pulse: np.ndarray       # int16[n_cards, 2]: action cost
    card_wind: np.ndarray        # int8[n_cards, 2]: 1 if the action shows the wind symbol
    card_icy: np.ndarray         # int8[n_cards, 2]: 1 if the card is removed after the action
    card_worth: np.ndarray       # float64[n_cards]: the card's worth by the default worth weights
                                 # (players.worth_nb at DEFAULT_PARAMS: card_worth_nb reads it)

    # biathletes, by biathlete id (data order)
    accuracy: np.ndarray         # int8[n_biathletes, 3]: hit thresholds at low, medium, high pulse
    flags: np.ndarray            # int8[n_biathletes, 6]: flag rating per skill colour
    deck: np.ndarray             # int16[n_biathletes, deck_size]: card ids (common first)

    motivation: np.ndarray       # int16[n_motivation]: the Motivation deck's card ids, copies expanded

    # gear, by ski colour id
    ski_rank: np.ndarray         # int8[6]: place of each ski colour in the ski colour order (0 first)
    ski_order: np.ndarray        # int8[6]: ski colour ids in ski colour order
    gear_bullets: np.ndarray     # int8[6]: bullets per ski colour
    gear_wax: np.ndarray         # int8[6, 6]: wax per ski colour and wax colour (red column 0)

    # trails, by trail id, then route position
    route_len: np.ndarray        # int32[n_trails]: spaces on the route, run-out included
    terrain: np.ndarray          # int8[n_trails, max_len]: consts.UPHILL/FLAT/DOWNHILL
    lanes: np.ndarray            # int8[n_trails, max_len]: racers a space holds (range: mats; run-out: 6)
    heading: np.ndarray          # int8[n_trails, max_len]: consts.NORTH..WEST
    physical: np.ndarray         # int16[n_trails, max_len]: physical space id (repeated segments share)
    coach_colour: np.ndarray     # int8[n_trails, max_len]: colour of a coach zone or consts.NO_COACH
    coach_strength: np.ndarray   # int8[n_trails, max_len]: tokens the zone is worth
    start_line: np.ndarray       # int8[n_trails, max_len]: 1 if entering the space crosses the start line
    is_range: np.ndarray         # int8[n_trails, max_len]: 1 on the shooting range
    lap: np.ndarray              # int8[n_trails, max_len]: start-line crossings needed to reach the space
    finish_pos: np.ndarray       # int32[n_trails]: the run-out position (entering it finishes)
    range_pos: np.ndarray        # int32[n_trails, range_visits]: positions of the range
    grid_slots: np.ndarray       # int32[n_trails, n_slots, 2]: (position, lane) in placement order
    n_grid_slots: np.ndarray     # int32[n_trails]
    range_card: np.ndarray       # int16[n_trails]: pseudo-card id; action WAIT is Wait, SHOOT is Shoot

    # derived from the trail arrays above (sim.blast.compile.trail_lookups), so that the heuristic's
    # card choice finds where a card's steps end and how far the range is without walking the route
    up_count: np.ndarray         # int32[n_trails, max_len]: uphill spaces at positions 0 .. q
    up_flat_count: np.ndarray    # int32[n_trails, max_len]: uphill or flat spaces at positions 0 .. q
    up_at: np.ndarray            # int32[n_trails, max_len + 1]: position of the route's k-th uphill
                                 # space (k from 0); then FAR_AWAY
    up_flat_at: np.ndarray       # int32[n_trails, max_len + 1]: the same for uphill or flat spaces
    stop_ahead: np.ndarray       # int32[n_trails, max_len]: spaces from q to the first range position
                                 # after it, or to the run-out (where every move from q stops)
    next_range: np.ndarray       # int32[n_trails, max_len + 1]: the first range position >= q (-1 none)


FAR_AWAY = 1 << 30   # up_at, up_flat_at past the route's last such space
