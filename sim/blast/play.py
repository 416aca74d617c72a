"""Playing Biathlon Blast races from Python: one race with its event log, or a block of races.

The thin layer between names (biathletes, trails, players) and the kernel's numbers. Running many
races in parallel, with tables and files, is `sim.run`'s job; this module plays and returns arrays.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from kernels.blast import results as R
from kernels.blast import consts as C
from kernels.blast.engine import play_races_nb
from kernels.blast.players import LOOKAHEAD, N_PARAMS, REFERENCE
from kernels.blast.state import G_LOG_N, G_LOG_OVERFLOW, G_ROUND, new_state

from .compile import CompiledBundle
from .players import Player, resolve

#: events of one race fit easily: set-up ~50, then ~30 per racer per round
DEFAULT_LOG_CAP = 40_000

#: races per kernel call (play_block, design.play_records): the call's arrays (the players' weights
#: alone are 2.4 kB a race) are then reused memory, not fresh pages; a chunk of 20,000 races in one
#: call spent about 9% of its CPU time outside the kernel, most of it faulting in those pages
PLAY_BLOCK = 2048


@dataclass(frozen=True)
class RaceSetup:
    """Who races where: trail id, and per seat a biathlete id, a ski colour id and a player."""

    trail: int
    biathletes: tuple[int, ...]
    colours: tuple[int, ...]
    players: tuple[Player, ...]

    @property
    def n(self) -> int:
        return len(self.biathletes)


def make_setup(bundle: CompiledBundle, trail, biathletes, colours=None, players="heuristic",
               known: dict[str, Player] | None = None) -> RaceSetup:
    """A set-up from names or ids. Colours default to the ski colour order (seat 0 red, ...).
    Players by name (sim.blast.players.resolve, among `known`) or as Player objects."""
    t = bundle.trail_id(trail) if isinstance(trail, str) else int(trail)
    bis = tuple(bundle.biathlete_id(b) if isinstance(b, str) else int(b) for b in biathletes)
    n = len(bis)
    if not C.MIN_RACERS <= n <= C.MAX_RACERS:
        raise ValueError(f"a race needs {C.MIN_RACERS} to {C.MAX_RACERS} racers, got {n}")
    if colours is None:
        cols = tuple(int(c) for c in bundle.tables.ski_order[:n])
    else:
        cols = tuple(C.COLOUR_NAMES.index(c) if isinstance(c, str) else int(c) for c in colours)
    if len(cols) != n or len(set(cols)) != n:
        named = ", ".join(C.COLOUR_NAMES[c] if 0 <= c < len(C.COLOUR_NAMES) else str(c) for c in cols)
        raise ValueError(f"each of the {n} racers needs its own ski colour, got {named}")
    if isinstance(players, (str, Player)):
        players = [players] * n
    pls = tuple(resolve(p, known) for p in players)
    if len(pls) != n:
        raise ValueError(f"{n} racers need {n} players, got {len(pls)}")
    return RaceSetup(t, bis, cols, pls)


def _block_arrays(setups: list[RaceSetup]):
    """The kernel's per-race arrays for these set-ups: trails, racer counts, then per race and seat
    (padded to MAX_RACERS) biathletes, ski colours, player kinds and player weights. Set-ups of
    one racer count are written together, and the kinds and weights of each distinct line-up of
    player objects once: a weight vector a race, made from its tuple, was a tenth of `bench`'s
    time."""
    k = len(setups)
    trails = np.array([s.trail for s in setups], np.int64)
    n_racers = np.array([s.n for s in setups], np.int64)
    bis = np.zeros((k, C.MAX_RACERS), np.int64)
    cols = np.zeros((k, C.MAX_RACERS), np.int64)
    pls = np.zeros((k, C.MAX_RACERS), np.int64)
    params = np.zeros((k, C.MAX_RACERS, N_PARAMS))
    for n in np.unique(n_racers).tolist():
        rows = np.flatnonzero(n_racers == n)
        bis[rows, :n] = [setups[i].biathletes for i in rows]
        cols[rows, :n] = [setups[i].colours for i in rows]
        lineups: dict[tuple[int, ...], list[int]] = {}
        for i in rows.tolist():
            lineups.setdefault(tuple(map(id, setups[i].players)), []).append(i)
        for same in lineups.values():
            players = setups[same[0]].players
            pls[same, :n] = [p.kind for p in players]
            params[same, :n] = np.array([p.weights for p in players])
    return trails, n_racers, bis, cols, pls, params


_COMPILED: set[str] = set()


@contextmanager
def _first_call(entry: str):
    """Around the first call of a kernel entry point in this process, which compiles it (or loads
    it from the cache): Python's cyclic garbage collector runs far less often meanwhile. Numba's
    compiler makes many short-lived objects; collecting them at the default rate made a first
    compile about 15% slower (measured: 65 s against 56 s, peak memory 0.86 against 0.90 GB)."""
    if entry in _COMPILED:
        yield
        return
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()
        _COMPILED.add(entry)


@dataclass
class RaceLog:
    setup: RaceSetup
    seed: int
    race: int
    events: np.ndarray          # int16[n_events, N_COLS]
    results: np.ndarray         # SEAT_DTYPE[n_seats] (kernels.blast.results)
    rounds: int
    visits: np.ndarray          # VISIT_DTYPE: the range visits reached, in seat order


def play_one(bundle: CompiledBundle, setup: RaceSetup, seed: int, race: int,
             log_cap: int = DEFAULT_LOG_CAP) -> RaceLog:
    """Play race `race` of the study with `seed`, recording its event log."""
    st = new_state(N_PARAMS, log_cap)
    seats, visits = _play(bundle, _block_arrays([setup]), seed, np.array([race], np.int64), st, log_cap)
    if st.g[G_LOG_OVERFLOW]:
        raise RuntimeError(f"the event log of race {race} needs more than {log_cap} rows; "
                           f"pass a larger log_cap")
    return RaceLog(setup, seed, race, st.log[:st.g[G_LOG_N]].copy(), seats[:setup.n], int(st.g[G_ROUND]),
                   R.reached(visits))


def play_block(bundle: CompiledBundle, setups: list[RaceSetup], seed: int, races,
               player_names: list[str] | None = None, visits: bool = False):
    """Play races[i] with setups[i]; returns their seat records (kernels.blast.results.SEAT_DTYPE),
    one per race and seat in the order of `races`; with `visits`, (seats, visits) records.

    The `player` field holds each seat's index in `player_names`, or its player kind without.
    Played PLAY_BLOCK races per kernel call."""
    index = None if player_names is None else {name: i for i, name in enumerate(player_names)}
    parts = []
    for lo in range(0, max(len(setups), 1), PLAY_BLOCK):
        part = setups[lo:lo + PLAY_BLOCK]
        ids = None
        if index is not None:
            ids = np.zeros((len(part), C.MAX_RACERS), np.int32)
            for i, s in enumerate(part):
                ids[i, :s.n] = [index[p.name] for p in s.players]
        parts.append(play_arrays(bundle, _block_arrays(part), seed, races[lo:lo + PLAY_BLOCK], ids))
    seats_visits = joined(parts)
    return seats_visits if visits else seats_visits[0]


def joined(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The (seats, visits) records of consecutive kernel calls as one pair."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def play_arrays(bundle: CompiledBundle, arrays, seed: int, races,
                player_ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(seats, visits) records of set-ups given as the kernel's arrays (trails, racer counts, then
    per race and seat padded to MAX_RACERS: biathletes, ski colours, player kinds, player weights),
    as a design builds them for a whole block with numpy; `player_ids` [race, seat]: the `player`
    field. Both in the order of `races`, then seat (then visit)."""
    # contiguous, as every caller's: a reversed or strided view is another type signature to numba,
    # and a whole second compile of the race kernel (it cost tests/test_determinism.py 44-162 s in CI)
    races = np.ascontiguousarray(races, np.int64)
    n_racers = arrays[1]
    k = len(n_racers)
    seats, visits = _play(bundle, arrays, seed, races, new_state(N_PARAMS, 0), 0)
    keep = (np.arange(k * C.MAX_RACERS) % C.MAX_RACERS) < np.repeat(n_racers, C.MAX_RACERS)
    if player_ids is not None:
        seats["player"] = player_ids.reshape(-1)
    return seats[keep], R.reached(visits)


def _play(bundle: CompiledBundle, arrays, seed: int, races: np.ndarray, st, log_cap: int):
    """The kernel's records (kernels.blast.results.buffers) for these set-ups (the kernel's arrays); races with a
    look-ahead or reference seat go through the search players' entry point
    (kernels.blast_reference, compiled on first use), the others through the plain one (which
    compiles without the rollouts)."""
    trails, n_racers, bis, cols, pls, params = arrays
    seats, visits = R.buffers(len(trails))
    if ((pls == REFERENCE) | (pls == LOOKAHEAD)).any():
        from kernels.blast_reference.search import new_search_work, play_races_reference_nb

        with _first_call("play_races_reference"):
            play_races_reference_nb(bundle.tables, trails, n_racers, bis, cols, pls, params, seed, races, st, seats,
                                    visits, log_cap, new_state(N_PARAMS, 0), new_search_work(), 0)
    else:
        with _first_call("play_races"):
            play_races_nb(bundle.tables, trails, n_racers, bis, cols, pls, params, seed, races, st, seats, visits,
                          log_cap)
    return seats, visits


__all__ = ["RaceSetup", "RaceLog", "PLAY_BLOCK", "make_setup", "play_one", "play_block", "play_arrays", "joined"]
