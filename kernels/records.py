"""The records every game's races fill: one row per race and racer (seats), one row per racer and
range visit (visits). Composed, not positional: a game's record dtype is the core fields below plus
the game's own, built with `record_dtype`, and its field names are the columns of the tables.

Core seat fields (every game fills every one; a game without such a thing writes the stated
default):

    race            int32  race index within the run (with the seed, replays the race alone)
    scenario        int16  trail / course / track id of the compiled bundle
    n_racers        int16  racers (seats) in the race; relay: teams x legs
    seat            int16  0 .. n_racers-1, the turn order at the start
    team            int16  team id (0 .. teams-1); without teams, the seat
    leg             int16  leg within the team (0 first); without teams, 0
    player          int16  index of the seat's player in the run's player names
    place           int16  1 = winner; per team where there are teams (every leg of a team
                           carries the team's place)
    won             int16  1 for the winner (the whole winning team)
    finished        int16  1 if the racer crossed the finish line
    eliminated      int16  1 if the racer was taken out of the race
    elim_cause      int16  0 none, else a game code (labels in the manifest)
    rounds          int16  rounds the race lasted
    stalled         int16  1 if the race hit its round cap before every place was decided
    distance_left   int16  spaces to the finish at the end (0 when finished)
    penalty_laps    int16  penalty laps or loops skied (0 in games without penalties)
    lead_changes    int16  race-wide: changes of the leading racer
    leader_after_range int16 1 if this racer led when the leader first left the last range

Core visit fields (one row per racer per range visit that the racer reached):

    race, seat, team, leg   as above
    visit           int16  1-based range visit of this racer (leg)
    shots           int16  shots taken
    hits            int16  targets hit (final, after every re-roll and bullet)
    misses          int16  shots - hits where every shot counts, else targets left standing
    penalties       int16  penalty laps or loops this visit costs (0 where misses cost none)

Games add fields after the core ones (Blast: ski colour, biathlete, pulse, wax; Mania: rolls from
X and O; ...). Every field is a small signed integer (int16; race int32), so arithmetic on a column never
wraps; -1 means "did not happen". The scenario field takes the game's own word as its name
(`seat_dtype(scenario="trail")`): the game's tables say trail, track or course.
"""
from __future__ import annotations

import numpy as np

SEAT_CORE: tuple[tuple[str, str], ...] = (
    ("race", "i4"), ("scenario", "i2"), ("n_racers", "i2"), ("seat", "i2"), ("team", "i2"),
    ("leg", "i2"), ("player", "i2"), ("place", "i2"), ("won", "i2"), ("finished", "i2"),
    ("eliminated", "i2"), ("elim_cause", "i2"), ("rounds", "i2"), ("stalled", "i2"),
    ("distance_left", "i2"), ("penalty_laps", "i2"), ("lead_changes", "i2"),
    ("leader_after_range", "i2"),
)

VISIT_CORE: tuple[tuple[str, str], ...] = (
    ("race", "i4"), ("seat", "i2"), ("team", "i2"), ("leg", "i2"), ("visit", "i2"),
    ("shots", "i2"), ("hits", "i2"), ("misses", "i2"), ("penalties", "i2"),
)

SEAT_CORE_NAMES = tuple(name for name, _ in SEAT_CORE)
VISIT_CORE_NAMES = tuple(name for name, _ in VISIT_CORE)


def record_dtype(core, extra=()) -> np.dtype:
    """A packed structured dtype: the core fields, then the game's own (`extra`: (name, kind)
    pairs). ValueError if a game field repeats a core one."""
    names = [n for n, _ in core]
    clash = [n for n, _ in extra if n in names]
    if clash:
        raise ValueError(f"game fields repeat core fields: {clash}")
    return np.dtype(list(core) + list(extra))


def seat_dtype(extra=(), scenario: str = "scenario") -> np.dtype:
    """The seat record: core fields + `extra`; `scenario` renames the scenario field to the game's
    own word (Blast: trail, Mania: track, Ski Tour: course)."""
    core = tuple((scenario if name == "scenario" else name, kind) for name, kind in SEAT_CORE)
    return record_dtype(core, extra)


def visit_dtype(extra=()) -> np.dtype:
    return record_dtype(VISIT_CORE, extra)


__all__ = ["SEAT_CORE", "VISIT_CORE", "SEAT_CORE_NAMES", "VISIT_CORE_NAMES", "record_dtype",
           "seat_dtype", "visit_dtype"]
