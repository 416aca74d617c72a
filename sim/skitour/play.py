"""Playing Ski Tour: Biathlon races from Python: a block of races, or one race with its event log.

The thin layer between names (course, nations, players, variant) and the kernel's numbers
(kernels/skitour/engine.py). Running many blocks in parallel, with tables and files, belongs to
the shared runner; this module plays and returns record arrays (`SEAT_DTYPE`, `VISIT_DTYPE`).
"""
from __future__ import annotations

import numpy as np

from kernels import records as REC
from kernels.skitour import consts as C
from kernels.skitour import engine as E
from kernels.skitour.players import MAX_OPTIONS, N_PARAMS

from .compile import SkiTourBundle
from .players import PlayerSpec, get_player

#: the kernel's records (the core scenario field keeps its generic name; game.py views it as course)
SEAT_DTYPE = REC.seat_dtype(C.SKITOUR_SEAT_EXTRA)
VISIT_DTYPE = REC.visit_dtype(C.SKITOUR_VISIT_EXTRA)

#: a race logs ~40 rows per racer per round
DEFAULT_LOG_ROWS = 60_000


class EventLogOverflow(RuntimeError):
    """The race wrote more events than the log has rows."""


def course_table(bundle: SkiTourBundle, course: int) -> np.ndarray:
    """The course packed for the kernel: int16[n_rows, 3 + lanes] (engine.CR_* columns)."""
    t = bundle.tables
    n = int(t.n_rows[course])
    lanes = int(t.rules[C.R_LANES])
    crs = np.zeros((n, E.CR_SPACE + lanes), np.int16)
    crs[:, E.CR_FREE] = t.free_row[course, :n]
    crs[:, E.CR_PEN] = t.penalty_lane[course, :n]
    crs[:, E.CR_RANGE] = -1
    for k, r in enumerate(t.range_row[course]):
        if r >= 0:
            crs[r, E.CR_RANGE] = k
    crs[:, E.CR_SPACE:] = t.space[course, :n]
    return crs


def _players(players) -> tuple[np.ndarray, np.ndarray]:
    specs = [p if isinstance(p, PlayerSpec) else get_player(p) for p in players]
    pk = np.array([p.kind for p in specs], np.int64)
    pw = np.array([list(p.weights) for p in specs], np.float64).reshape(len(specs), N_PARAMS)
    return pk, pw


def _as_races(a, n_races: int, n: int, name: str, dtype=np.int16) -> np.ndarray:
    arr = np.asarray(a, dtype=dtype)
    if arr.ndim == 1:
        arr = np.broadcast_to(arr, (n_races, n))
    if arr.shape != (n_races, n):
        raise ValueError(f"{name} must have shape ({n_races}, {n}) or ({n},), got {arr.shape}")
    # always a fresh, writable, contiguous copy: numba compiles the kernel once per argument type,
    # and a broadcast view is read-only (a second compile of the whole kernel for one-race calls)
    return np.array(arr, dtype=dtype, order="C")


def _run(bundle: SkiTourBundle, course, nations, seed, races, *, players=("balanced",),
         seat_players=None, variant="standard", wax=None, init=None, script=None, decisions=None,
         log_rows=0):
    t = bundle.tables
    ci = bundle.course_id(course) if isinstance(course, str) else int(course)
    races = np.ascontiguousarray(np.asarray(races, dtype=np.int64))
    nr = len(races)
    nations = np.asarray(nations)
    if nations.ndim == 1:
        nations = np.broadcast_to(nations, (nr, len(nations)))
    if nations.dtype.kind in "US":
        nations = np.vectorize(bundle.nation_id)(nations)
    n = nations.shape[1]
    nations = _as_races(nations, nr, n, "nations")
    two = variant == "two_player"
    if variant not in C.VARIANT_NAMES:
        raise ValueError(f"variant must be one of {C.VARIANT_NAMES}, got {variant!r}")
    if two and n != 4:
        raise ValueError(f"the two-player variant races 4 nations (two per player), got {n}")
    if not C.MIN_RACERS <= n <= C.MAX_RACERS:
        raise ValueError(f"a race has {C.MIN_RACERS} to {C.MAX_RACERS} nations, got {n}")
    if int(t.rules[C.R_RACE_DICE]) > 10 or int(t.rules[C.R_TARGETS]) > E.MAX_TARGETS \
            or int(t.rules[C.R_WAX_TOKENS]) > E.MAX_ROW:
        raise ValueError("the kernel handles at most 10 race dice, 10 targets and 16 wax tokens")
    pk, pw = _players(players)
    if seat_players is None:
        together = int(t.rules[C.R_TWO_PLAYER_SEATS]) == C.SEATS_TOGETHER
        seat_players = [(player_side(s, together) if two else s) % len(pk) for s in range(n)]
    seat_players = _as_races(seat_players, nr, n, "seat_players")
    waxfix = np.full((nr, n, E.MAX_ROW), -1, np.int16)
    if wax is not None:
        for s, row in enumerate(wax):
            if row is not None:
                waxfix[:, s, :len(row)] = row
    su = np.zeros(E.SU_LEN, np.int64)
    su[E.SU_N] = n
    su[E.SU_VARIANT] = C.VARIANT_NAMES.index(variant)
    su[E.SU_COURSE] = ci
    su[E.SU_START_SLOT] = t.start_slot[ci]
    su[E.SU_LOG] = int(log_rows > 0)
    su[E.SU_ROWS] = t.n_rows[ci]
    su[E.SU_RANGES] = t.n_ranges[ci]
    rr = [int(r) for r in t.range_row[ci] if r >= 0]
    su[E.SU_LAST_RANGE_ROW] = rr[-1] if rr else -5
    init_arr = np.full((n, E.S_N), -9999, np.int32)
    if init is not None:
        su[E.SU_INIT] = 1
        for s, fields in enumerate(init):
            for k, v in (fields or {}).items():
                idx = getattr(E, k) if isinstance(k, str) else int(k)
                if isinstance(v, (list, tuple, np.ndarray)):
                    init_arr[s, idx:idx + len(v)] = v
                else:
                    init_arr[s, idx] = v
    crs = course_table(bundle, ci)
    script = np.asarray([] if script is None else script, dtype=np.int64)
    # the strength reference's turns are played with their searched decisions scripted: a
    # decision script at least MAX_SEARCHED wide, and a rollout board (engine.begin_rollout_nb)
    search = bool(np.any(pk[np.unique(seat_players)] == C.PLAYER_REFERENCE))
    width = max((len(d or ()) for d in decisions or ()), default=0)
    if search:
        if any(decisions[s] for s in range(n) if decisions is not None and s < len(decisions)
               and pk[seat_players[0, s]] == C.PLAYER_REFERENCE):
            raise ValueError("a reference seat takes no scripted decisions (it scripts its own)")
        width = max(width, E.MAX_SEARCHED)
    dsc = np.full((n, width), -1, np.int64)
    for s, d in enumerate(decisions or ()):
        if d:
            dsc[s, :len(d)] = d
    seats = np.zeros(nr * n, SEAT_DTYPE)
    visits = np.zeros(max(nr * n * max(int(t.n_ranges[ci]), 1), 1), VISIT_DTYPE)
    log = np.zeros((max(log_rows, 1), C.LOG_COLS), np.int16)
    ct = np.zeros(E.CT_N, np.int64)
    lanes = int(t.rules[C.R_LANES])
    work = (np.zeros((n, E.S_N), np.int32), np.zeros(E.TV_N, np.int32), np.zeros(n, np.int64),
            np.zeros((crs.shape[0] + 2, lanes, 2, E.MAX_K + 1), np.int32),
            np.zeros((E.MAX_K + 2, 5), np.int32), np.zeros((n, E.MAX_TRAIL, 2), np.int32),
            np.zeros((MAX_OPTIONS, 4), np.int32), np.zeros(MAX_OPTIONS, np.float64),
            np.zeros(48, np.int64), np.zeros(32, np.int32), np.zeros(64, np.int32),
            np.zeros(1, np.uint64), np.zeros(1, np.uint64),
            np.zeros((E.MAX_K + 2, 7), np.int32), np.zeros(E.MAX_K + 2, np.float64),
            np.zeros((crs.shape[0] + 2, lanes, 2, E.MAX_K + 1), np.float64),
            np.zeros((crs.shape[0] + 2, lanes, 2, E.MAX_K + 1), np.int32),
            np.zeros((5, 8), np.int64),
            # the rollout board: state, counters, streams, script, scratch log and visits
            np.zeros((n, E.S_N), np.int32), np.zeros(E.TV_N, np.int32), np.zeros(E.CT_N, np.int64),
            np.zeros(1, np.uint64), np.zeros(1, np.uint64),
            np.full((n, width if search else 0), -1, np.int64), np.zeros(n, np.int64),
            np.zeros((1, C.LOG_COLS), np.int16), np.zeros(len(visits) if search else 1, VISIT_DTYPE),
            np.zeros(E.MAX_ROLLOUTS, np.float64), np.zeros(E.MAX_SEARCHED, np.int64),
            np.zeros((2, 4), np.int64))
    E.play_races_nb(t.rules, t.penalty_laps, t.die_faces, t.die_n_faces, t.slot_value, t.slot_die,
                    t.n_slots, t.capacity, t.full_at, t.box, t.sprint_capacity, t.wax_icons,
                    t.wax_mode, t.printed_icons, t.printed_mode, crs, su, pk, pw, np.int64(seed),
                    races, nations, seat_players, waxfix, init_arr, script, dsc, seats, visits,
                    log, ct, *work)
    if ct[E.CT_LOG_OVERFLOW]:
        raise EventLogOverflow(f"the race wrote more than {log_rows} event rows; pass a larger log_rows")
    return seats, visits[:ct[E.CT_VISITS]], log[:ct[E.CT_LOG_N]], ct


def player_side(seat: int, together: bool) -> int:
    """The player (side 0 or 1) of a seat in the two-player game: seats A, B, A, B, or A, A, B, B
    with `together` (switch two_player_seats, docs/skitour/rules.md §8)."""
    return seat // 2 if together else seat % 2


def play_block(bundle: SkiTourBundle, course, nations, seed: int, races, *, players=("balanced",),
               seat_players=None, variant: str = "standard", wax=None):
    """Play the races with indices `races` of one set-up.

    nations: ids or names per seat ([n]) or per race and seat ([len(races), n]); players: the
    player names (or PlayerSpec) of the run; seat_players: the index into `players` of each seat
    (default: seat i plays players[i % len(players)]; two players: its side, player_side). variant:
    "standard" or "two_player" (4 nations, seats A, B, A, B or A, A, B, B). wax: per seat a fixed wax row of
    token ids (None = the player chooses). Returns (seats, visits); a race's records depend only on
    (data, set-up, seed, race index)."""
    seats, visits, _, _ = _run(bundle, course, nations, seed, races, players=players,
                               seat_players=seat_players, variant=variant, wax=wax)
    return seats, visits


def play_one(bundle: SkiTourBundle, course, nations, seed: int = 0, race: int = 0, *,
             players=("balanced",), seat_players=None, variant: str = "standard", wax=None,
             init=None, script=None, decisions=None, log_rows: int = DEFAULT_LOG_ROWS):
    """One race with its event log: (seats, visits, log int16[rows, LOG_COLS]).

    Tests: `script` die faces (0-based face indices: race die face - 1, shooting die face index)
    drawn before the race's stream; `decisions` per seat a list of option indices (-1 = the
    player decides; the option orders are in docs/skitour/event-log.md); `init` per seat a dict
    {engine S_* constant name or index: value or list} overriding the set-up state. Raises
    EventLogOverflow if the log is too small."""
    seats, visits, log, _ = _run(bundle, course, nations, seed, [race], players=players,
                                 seat_players=seat_players, variant=variant, wax=wax, init=init,
                                 script=script, decisions=decisions, log_rows=max(1, log_rows))
    return seats, visits, log
