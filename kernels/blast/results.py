"""Blast's records: the shared seat and visit records (kernels/records.py) with Blast's own fields,
which the race kernel fills directly (kernels.blast.engine.write_results_nb).

Blast's own module (kernels/blast/, so an edit recompiles Blast's kernels alone). The core fields
Blast has no use for: team = seat, leg = 0, finished = won (a Blast race ends when its winner
crosses the line), penalty_laps = 0 (misses cost no laps in Blast). -1 means "did not happen" (no
shot at a range visit, never arrived).

A visits row for each of the first RANGE_VISITS range visits a racer reached: shots = the dice
rolled if the racer shot there, else 0; hits = the final hits (bullets included) if it shot, else
0; misses = shots - hits; penalties = 0. What happened at a visit is there alone: the seat record
keeps only the totals over every visit (waits, bullets_hits ...). Results written before
2026-11-28 also held the first two visits as paired seat columns (shots_1, shots_2, hits_1 ...).
"""
import numpy as np

from ..records import seat_dtype, visit_dtype
from .consts import MAX_RACERS

#: range visits with a visits row each; later visits count in the seat record's totals (waits,
#: bullets_hits ...) only
RANGE_VISITS = 2

SEAT_EXTRA = (
    ("colour", "i2"),            # ski colour id (red 0 .. white 5)
    ("biathlete", "i2"),         # biathlete id of the compiled bundle
    ("elim_round", "i2"),
    ("final_pulse", "i2"),
    ("max_pulse", "i2"),
    ("waits", "i2"),
    ("bullets_pickup", "i2"), ("bullets_hits", "i2"), ("coach_bullets", "i2"),
    ("wax_black", "i2"), ("wax_yellow", "i2"), ("wax_green", "i2"), ("wax_blue", "i2"), ("wax_white", "i2"),
    ("motivation", "i2"),        # Motivation cards taken
    ("icy", "i2"),               # icy actions used (cards removed)
    ("icy_lap_1", "i2"), ("icy_lap_2", "i2"), ("icy_lap_3", "i2"),
    ("turns", "i2"), ("boosts", "i2"), ("wind_changes", "i2"),
    ("bullets_left", "i2"), ("wax_left", "i2"),
)

VISIT_EXTRA = (
    ("dice_hits", "i2"),         # hits from the dice alone (-1 if no shot)
    ("shot_pulse", "i2"),        # pulse when shooting (-1 if no shot)
    ("arrive_pulse", "i2"),      # pulse after the turn that reached the range
    ("arrive_round", "i2"),
    ("shot_wind", "i2"),         # wind at the shot: 0 still, 1 crosswind, 2 head, 3 tail (0 if no shot)
    ("biathlete", "i2"), ("colour", "i2"),
)

SEAT_DTYPE = seat_dtype(SEAT_EXTRA, scenario="trail")
VISIT_DTYPE = visit_dtype(VISIT_EXTRA)


def buffers(races: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed records for the kernel to fill for `races` races: seats (row i * MAX_RACERS + seat for
    races[i]; rows of absent seats stay zero) and visits (row (i * MAX_RACERS + seat) * RANGE_VISITS
    + visit - 1; `visit` 0 where the racer never reached that visit)."""
    return (np.zeros(races * MAX_RACERS, SEAT_DTYPE),
            np.zeros(races * MAX_RACERS * RANGE_VISITS, VISIT_DTYPE))


def reached(visits: np.ndarray) -> np.ndarray:
    """The visits rows of visits reached, in the kernel's order (race, seat, visit)."""
    return visits[visits["visit"] > 0]


__all__ = ["RANGE_VISITS", "SEAT_EXTRA", "VISIT_EXTRA", "SEAT_DTYPE", "VISIT_DTYPE", "buffers", "reached"]
