"""Playing Biathlon Mania races from Python: a block of races, or one race with its event log.

The thin layer between names (track, format, options) and the kernel's numbers. Running many
blocks in parallel, with tables and files, belongs to the shared runner; this module plays and
returns record arrays (dtypes `SEAT_DTYPE`, `VISIT_DTYPE` of kernels/mania/consts.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.mania import consts as C
from kernels.mania.engine import play_races_nb

from .compile import ManiaBundle

#: a race logs ~10 rows per racer per round; 6 racers x 120 rounds fits easily
DEFAULT_LOG_ROWS = 20_000


class EventLogOverflow(RuntimeError):
    """The race wrote more events than the log has rows."""


@dataclass(frozen=True)
class Setup:
    """One race set-up, resolved to numbers: see `make_setup`."""

    track: int
    fmt: int
    seats: int
    teams: int
    legs: int
    number_dice: int
    shooting_dice: int
    die: int
    shootings: int

    def su(self, bundle: ManiaBundle, log: bool) -> np.ndarray:
        f = bundle.formats[self.fmt]
        su = np.zeros(C.SU_LEN, np.int64)
        su[C.SU_TRACK] = self.track
        su[C.SU_FORMAT] = self.fmt
        su[C.SU_LAPS] = f[0]
        su[C.SU_SHOOT_MASK] = f[4]
        su[C.SU_SPARES] = f[2]
        su[C.SU_SEATS] = self.seats
        su[C.SU_TEAMS] = self.teams
        su[C.SU_LEGS] = self.legs
        su[C.SU_NUM_DICE] = self.number_dice
        su[C.SU_SHOOT_DICE] = self.shooting_dice
        su[C.SU_DIE] = self.die
        su[C.SU_LOG] = int(log)
        su[C.SU_SHOOTINGS] = self.shootings
        return su


def make_setup(bundle: ManiaBundle, track, fmt, n_racers: int, *, teams: int | None = None,
               legs: int = 1, number_dice: int = 1, shooting_dice: int = 1,
               shooting_die: str | None = None) -> Setup:
    """Check and resolve a set-up. Individual formats: `n_racers` racers (1 .. max_racers; 1 is a
    time trial). Relay: `teams` teams of `legs` legs, n_racers = teams x legs seats (teams
    defaults to n_racers // legs). `shooting_die` ("individual" / "relay") overrides the
    format's die."""
    t = bundle.track_id(track)
    fi = bundle.format_id(fmt)
    f = bundle.data.formats[fi]
    if f.relay:
        if teams is None:
            if legs < 1 or n_racers % legs:
                raise ValueError(f"{n_racers} seats do not split into legs of {legs}")
            teams = n_racers // legs
        if not 1 <= teams <= f.max_teams:
            raise ValueError(f"a relay takes 1 to {f.max_teams} teams, got {teams}")
        if not 1 <= legs <= f.max_legs:
            raise ValueError(f"a relay team has 1 to {f.max_legs} legs, got {legs}")
        if n_racers != teams * legs:
            raise ValueError(f"n_racers must be teams x legs = {teams * legs}, got {n_racers}")
    else:
        if teams not in (None, n_racers) or legs != 1:
            raise ValueError(f"format {f.name} has no teams or legs")
        mx = bundle.data.rules.max_racers
        if not 1 <= n_racers <= mx:
            raise ValueError(f"format {f.name} takes 1 to {mx} racers, got {n_racers}")
        teams, legs = n_racers, 1
    if number_dice not in (1, 2):
        raise ValueError(f"number_dice must be 1 or 2, got {number_dice}")
    if shooting_dice not in (1, 2):
        raise ValueError(f"shooting_dice must be 1 or 2, got {shooting_dice}")
    die = C.DIE_NAMES.index(shooting_die or f.shooting_die)
    return Setup(t, fi, n_racers, teams, legs, number_dice, shooting_dice, die, len(f.shootings))


def _colours(colours, n_races: int, seats: int) -> np.ndarray:
    if colours is None:
        return np.full((n_races, seats), -1, np.int16)
    arr = np.asarray(colours, dtype=np.int16)
    if arr.ndim == 1:
        arr = np.broadcast_to(arr, (n_races, seats))
    if arr.shape != (n_races, seats):
        raise ValueError(f"colours must have shape ({n_races}, {seats}), got {arr.shape}")
    return np.ascontiguousarray(arr)


def _run(bundle, s: Setup, seed, races, colours, script, log_rows):
    races = np.ascontiguousarray(np.asarray(races, dtype=np.int64))
    seats = np.zeros(len(races) * s.seats, C.SEAT_DTYPE)
    visits = np.zeros(len(races) * s.seats * max(s.shootings, 1), C.VISIT_DTYPE)
    log = np.zeros((log_rows, C.LOG_COLS), np.int16)
    ct = np.zeros(C.CT_N, np.int64)
    script = np.asarray([] if script is None else script, dtype=np.int64)
    laps = int(bundle.formats[s.fmt, 0])
    squares = max(int(bundle.tracks[s.track][C.TR_N]), int(bundle.game[C.G_LINES]) + 1, C.MAX_SUB)
    work = (np.zeros((s.seats, C.ST_N), np.int32),
            np.zeros((len(C.STAGE_NAMES), squares), np.int32),     # racers on each position
            np.zeros((s.teams, C.TM_N), np.int32),
            np.zeros((s.seats, C.CN_N), np.int32), np.zeros((s.seats, C.VS_N), np.int32),
            np.zeros(1, np.uint64), np.zeros(1 + 2 * s.teams + laps + 2, np.int64))
    play_races_nb(np.ascontiguousarray(bundle.tracks[s.track]), bundle.game,
                  s.su(bundle, log_rows > 0), np.int64(seed), races,
                  _colours(colours, len(races), s.seats), script, seats, visits, log, ct, *work)
    if ct[C.CT_LOG_OVERFLOW]:
        raise EventLogOverflow(f"the race wrote more than {log_rows} event rows; "
                               f"pass a larger log_rows")
    return seats, visits[:ct[C.CT_VISITS]], log[:ct[C.CT_LOG_N]], int(ct[C.CT_SCRIPT])


def play_block(bundle: ManiaBundle, track, fmt, n_racers: int, seed: int, races, *,
               teams: int | None = None, legs: int = 1, colours=None, number_dice: int = 1,
               shooting_dice: int = 1, shooting_die: str | None = None):
    """Play the races with indices `races` (int64) of one set-up.

    Returns (seats, visits): `seats` SEAT_DTYPE[len(races) * n_racers], row = i * n_racers + seat
    for races[i]; `visits` VISIT_DTYPE, one row per racer per range visit reached, in the order
    they began. A race's records depend only on (data, set-up, seed, race index).
    colours: optional int array [len(races), n_racers] (or [n_racers]) of figure colours.
    """
    s = make_setup(bundle, track, fmt, n_racers, teams=teams, legs=legs, number_dice=number_dice,
                   shooting_dice=shooting_dice, shooting_die=shooting_die)
    seats, visits, _, _ = _run(bundle, s, seed, races, colours, None, 0)
    return seats, visits


def play_one(bundle: ManiaBundle, track, fmt, n_racers: int, seed: int = 0, race: int = 0, *,
             teams: int | None = None, legs: int = 1, colours=None, number_dice: int = 1,
             shooting_dice: int = 1, shooting_die: str | None = None, script=None,
             log_rows: int = DEFAULT_LOG_ROWS):
    """Play one race with its event log: (seats, visits, log int16[rows, 13]).

    `script`: die face indices drawn before the race's random stream (tests): every number die
    (index into dice.number) and every shooting die and calibre re-roll (index into the die's
    faces), in the order the game rolls them. Raises EventLogOverflow if the log is too small.
    """
    s = make_setup(bundle, track, fmt, n_racers, teams=teams, legs=legs, number_dice=number_dice,
                   shooting_dice=shooting_dice, shooting_die=shooting_die)
    cols = None if colours is None else np.asarray(colours).reshape(1, n_racers)
    seats, visits, log, _ = _run(bundle, s, seed, [race], cols, script, max(1, log_rows))
    return seats, visits, log
