"""The compiled Ski Tour: Biathlon data a kernel reads: one NamedTuple of numpy arrays.

Built by `sim.skitour.compile.compile_data`; kernels never see files or names. Axis conventions:
nations by nation id (data order), then stamina column (= target, left to right), then slot (top
down, padded with -1 past `n_slots`); courses by course id, then row (skiing order, padded past
`n_rows`), then lane position (left to right). Codes are those of `kernels.skitour.consts`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SkiTourTables(NamedTuple):
    rules: np.ndarray            # int64[N_RULES]: rule constants and switches, by consts.R_*
    penalty_laps: np.ndarray     # int8[targets + 1]: laps owed by number of misses

    # shooting dice, by die id (game.toml order)
    die_faces: np.ndarray        # int8[n_dice, max_faces]: FACE_HIT / FACE_MISS, padded with -1
    die_n_faces: np.ndarray      # int8[n_dice]

    # nations (board sides)
    nation_side: np.ndarray      # int8[n_nations]: SIDE_BASIC / SIDE_ADVANCED
    nation_board: np.ndarray     # int8[n_nations]: physical board; one side per board in a race
    slot_value: np.ndarray       # int16[n_nations, targets, max_slots]: printed stamina value, -1 pad
    slot_die: np.ndarray         # int8[n_nations, targets, max_slots]: die id shot with, -1 pad
    n_slots: np.ndarray          # int8[n_nations, targets]: slots per stamina column (bottom = blue)
    capacity: np.ndarray         # int8[n_nations, 4]: slots of dice columns 1-4
    full_at: np.ndarray          # int8[n_nations, 4]: dice that make column 1-4 full
    box: np.ndarray              # int8[n_nations, 4]: BOX_STAR / BOX_FLIP above column 1-4
    sprint_capacity: np.ndarray  # int8[n_nations]: slots of the sprint column
    wax_icons: np.ndarray        # int16[n_nations, wax_tokens]: WAX_* bits (WAX_STAMINA included)
    wax_mode: np.ndarray         # int8[n_nations, wax_tokens]: WAX_ALL / WAX_ONE_OF
    printed_icons: np.ndarray    # int16[n_nations]: the printed token (Finland), NO_WAX if none
    printed_mode: np.ndarray     # int8[n_nations]

    # courses
    n_rows: np.ndarray           # int32[n_courses]
    space: np.ndarray            # int8[n_courses, max_rows, lanes]: SPACE_*; SPACE_NONE past n_rows
    row_side: np.ndarray         # int16[n_courses, max_rows]: index of the row's side in the course
    row_tile: np.ndarray         # int16[n_courses, max_rows]: tile number of the row (for logs)
    free_row: np.ndarray         # int8[n_courses, max_rows]: 1 where sharing a space costs nothing
                                 #   because of the start tile (shooting rows are free anyway)
    penalty_lane: np.ndarray     # int8[n_courses, max_rows]: moves per penalty lap on a shooting row
    n_ranges: np.ndarray         # int8[n_courses]
    range_row: np.ndarray        # int32[n_courses, max_ranges]: shooting rows in order, -1 pad
    start_slot: np.ndarray       # int8[n_courses]: slot index markers start on (0 top, 1 second top)
