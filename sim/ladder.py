"""Players against each other: ladders and head-to-heads, every player in every seat (and every
line-up) equally often (docs/players.md). Any game whose module offers the players hook below:
Biathlon Blast and Ski Tour: Biathlon (Mania's seats are dice: it has no players).

A ladder plays a list of seat arrangements (which player sits in which seat), each with balanced
line-ups (Blast: biathletes and ski colours; Ski Tour: the side's nations), and every arrangement
plays the *same* race indices with the same seed: common random numbers. Race r of every
arrangement has the same line-up in the same seats and starts from the same dice streams; only the
players sitting there differ. So every player meets exactly the same line-ups and seats, for any
number of races, and differences between players are measured with the seat and line-up luck
cancelled race by race. The race index is then the independent unit of play, which is what
`sim.stats.pairwise` pairs over.

The players hook: the game's module (sim.games) has `roster()`, returning an object with
`available()` (players by name), `resolve(name_or_player, known)` (KeyError or ValueError for an
unknown one), `check(bundle, scenario, arrangement, options)`, `block(bundle, scenario, racers,
options)` (races per balanced block of line-ups), `play(bundle, seed, pieces, names, options)`
(the records of pieces (arrangement index, scenario, arrangement, first race, end race), player
ids indexing `names`, and each row's arrangement index), `table(bundle, records, names)` (the
results table: the scenario column, race, seat, player_name, won, place, n_racers, ...), its
`game` and `scenario` column names, and for sim.tune the weights (sim/blast/game.py,
sim/skitour/game.py).

Arrangements, for m players in n-seat races:

- m <= n: the m cyclic shifts of the list, seat j taking players[(shift + j) % m] (a player may hold
  several seats of one race). Each player sits in each seat once per shift cycle.
- m > n: every n-subset of the players (in list order), each in its n cyclic shifts, so that every
  player also meets every other player equally often (cyclic shifts of the whole list would make
  neighbours in the list meet more often than others).
- head-to-head A vs B: A in half the seats and B in the other half, rotated (4 racers: AABB, BAAB,
  BBAA, ABBA; an odd count uses the next even pattern, 3 racers: AAB, ABB, BBA, BAA).

Races per arrangement are rounded up to whole blocks of balanced line-ups (Blast: biathletes x 6
races, so that every player also races in every ski colour and with every biathlete equally often;
Ski Tour: the 5 nations of the side, so that every player races every nation equally often).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from . import games
from .blocks import round_to_blocks
from .stats import paired_difference, pairwise, standings

Player = object          # a game's player: a Blast Player, a Ski Tour PlayerSpec (each has .name)
Arrangement = tuple[Player, ...]


def roster(game: str | None = None):
    """The players hook of `game` (module docstring); ValueError for a game without players."""
    info = games.game(game)
    hook = info.hook("roster")
    if hook is None:
        able = [g.title for g in games.with_players()]
        raise ValueError(f"{info.title} has no players to rank or tune; ladders and tuning support "
                         f"{' and '.join(able)}")
    return hook()


def rotations(pattern: list[Player], racers: int) -> list[Arrangement]:
    """The len(pattern) cyclic shifts: seat j of shift s takes pattern[(s + j) % len(pattern)]."""
    m = len(pattern)
    return [tuple(pattern[(s + j) % m] for j in range(racers)) for s in range(m)]


def seat_arrangements(players: list[Player], racers: int) -> list[Arrangement]:
    """Arrangements that put every player in every seat equally often (and, for more players than
    seats, every pair of players together equally often)."""
    if len(players) <= racers:
        return rotations(list(players), racers)
    return [arr for subset in combinations(players, racers) for arr in rotations(list(subset), racers)]


def head_to_head_arrangements(a: Player, b: Player, racers: int) -> list[Arrangement]:
    """A in half the seats, B in the other half, rotated through every seat."""
    half = math.ceil(racers / 2)
    return rotations([a] * half + [b] * half, racers)


def player_names(arrangements: list[Arrangement]) -> list[str]:
    """Distinct player names in order of appearance; ValueError if one name means two players."""
    seen: dict[str, Player] = {}
    for arr in arrangements:
        for p in arr:
            if p.name in seen and seen[p.name] != p:
                raise ValueError(f"two different players are named {p.name!r}; give each its own name")
            seen.setdefault(p.name, p)
    return list(seen)


def _play_task(game: str, bundle, seed: int, pieces, names: list[str], options: dict | None):
    """Play the pieces (arrangement index, scenario, arrangement, first race, end race): the task
    every worker runs."""
    return roster(game).play(bundle, seed, pieces, names, options)


#: what must agree for a kept ladder's finished chunks to be reused (sim.store)
IDENTITY = ("kind", "game", "seed", "data_hash", "jobs", "players", "options", "package_version")


def play_arrangements(bundle, jobs: list[tuple[str, Arrangement, int, int]], seed: int,
                      n_jobs: int = 1, chunk_size: int | None = None, progress: bool = False, *,
                      game: str | None = None, options: dict | None = None, scheduler: str | None = None,
                      out=None, repair: bool = False, log=None, command: str = "",
                      label: str = "ladder") -> pd.DataFrame:
    """Play each job (scenario, arrangement, first race, end race) of `game` (default Blast) with
    balanced line-ups, `seed` and the game's `options` (Ski Tour: side).

    Returns the game's results table with a column `arrangement`: the job's index. The jobs' races
    are laid end to end and cut into tasks of about chunk_size races (default: about eight tasks
    per worker), played over n_jobs joblib workers (-1: all cores) or on the dask.distributed
    cluster at `scheduler`; the table depends on none of these. `out`: a folder where every
    finished task is kept (sim.store, as a run keeps its chunks), so that the same call resumes
    an interrupted ladder with its finished chunks, whatever the chunk size; a folder that holds
    other work is refused (sim.store.FolderError, one line); `repair` sets damaged parts aside.
    """
    from .runner import Task, progress_bar, run_tasks, workers as runner_workers

    game = games.game(game).name
    players = roster(game)
    checked = set()
    for scenario, arr, _, _ in jobs:
        if (scenario, len(arr)) not in checked:
            players.check(bundle, scenario, arr, options)
            checked.add((scenario, len(arr)))
    names = player_names([arr for _, arr, _, _ in jobs])
    workers = runner_workers(n_jobs)
    offsets = np.cumsum([0] + [stop - start for _, _, start, stop in jobs])
    total = int(offsets[-1])
    if total < 1:
        raise ValueError("nothing to play: every job has an empty race range")
    chunk = chunk_size or min(2000, max(48, math.ceil(total / (8 * workers))))

    def pieces(a: int, b: int) -> list:
        """The jobs' races at positions a .. b-1 of the jobs laid end to end."""
        return [(i, sc, arr, start + max(a, lo) - lo, start + min(b, hi) - lo)
                for i, ((sc, arr, start, _), lo, hi) in enumerate(zip(jobs, offsets[:-1], offsets[1:]))
                if lo < b and a < hi]

    done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    store = None
    if out is not None:
        store = _ladder_store(out, bundle, jobs, seed, game, options, command, repair, log)
        for a, _, path in store.finished():
            done[a] = _unpack(store.read_part(path))
        bounds = store.missing(total, chunk)
    else:
        bounds = [(a, min(a + chunk, total)) for a in range(0, total, chunk)]
    bar = progress_bar(total, total - sum(b - a for a, b in bounds), progress, label)
    parallel = scheduler is not None or (workers > 1 and len(bounds) > 1)
    if parallel and bounds:
        i, scenario, arr, a, _ = pieces(*bounds[0])[0]
        _play_task(game, bundle, seed, [(i, scenario, arr, a, a + 1)], names, options)   # compile or load kernels once, here
    tasks = [Task((a, b), _play_task, (game, bundle, seed, pieces(a, b), names, options), b - a) for a, b in bounds]
    try:
        for t, (rows, idx) in run_tasks(tasks, workers if parallel else 1, scheduler):
            a, b = t.key
            if store is not None:
                store.write(a, b, _pack(rows, idx), _NO_VISITS)
            done[a] = rows, idx
            if bar is not None:
                bar.update(b - a)
    finally:
        if bar is not None:
            bar.close()
    order = sorted(done)
    df = players.table(bundle, np.concatenate([done[a][0] for a in order]), names)
    df.insert(1, "arrangement", np.concatenate([done[a][1] for a in order]))
    return df


_NO_VISITS = np.zeros(0, [("race", np.int64)])


def _pack(rows: np.ndarray, index: np.ndarray) -> np.ndarray:
    """A task's records (a structured array, or a matrix of one dtype: Blast's kernel rows) and
    each row's arrangement as one structured array, for the store."""
    if rows.dtype.names is None:
        fields = [(f"c{i}", rows.dtype) for i in range(rows.shape[1])]
        columns = {f"c{i}": rows[:, i] for i in range(rows.shape[1])}
    else:
        fields = [(n, rows.dtype[n]) for n in rows.dtype.names]
        columns = {n: rows[n] for n in rows.dtype.names}
    rec = np.empty(len(rows), fields + [("arrangement", np.int32)])
    for name, values in columns.items():
        rec[name] = values
    rec["arrangement"] = index
    return rec


def _unpack(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """_pack's records back from a stored part: (records, arrangement index)."""
    index = df["arrangement"].to_numpy(np.int32)
    cols = [c for c in df.columns if c != "arrangement"]
    if cols and all(c == f"c{i}" for i, c in enumerate(cols)):
        return df[cols].to_numpy(), index
    rec = np.empty(len(df), [(c, df[c].dtype) for c in cols])
    for c in cols:
        rec[c] = df[c].to_numpy()
    return rec, index


def player_record(p: Player, hook) -> dict:
    """What of a player decides its play: its kind and weights as its game's players hook (`hook`,
    roster()) records them (Roster.recorded_weights), not its file or description."""
    return {"kind": int(p.kind), "weights": hook.recorded_weights(p)}


def _ladder_store(out, bundle, jobs, seed: int, game: str, options, command: str, repair: bool, log):
    """The store of a kept ladder (sim.store, the layout of a run's folder), opened: its manifest
    names what the ladder plays, so another ladder (or a run) in the folder is refused."""
    from pathlib import Path

    from .run import package_version, refuse_other_kind
    from .store import ChunkStore

    refuse_other_kind(Path(out), "run")
    hook = roster(game)
    players = {p.name: player_record(p, hook) for _, arr, _, _ in jobs for p in arr}
    m = {"kind": "ladder", "game": game, "seed": seed, "data_hash": bundle.data_hash,
         "jobs": [[sc, [p.name for p in arr], start, stop] for sc, arr, start, stop in jobs],
         "players": players, "options": dict(options or {}), "package_version": package_version(),
         "command": command}
    store = ChunkStore.of_run(out)
    store.open(m, IDENTITY, repair=repair, log=log)
    return store


@dataclass
class Ladder:
    """A ladder's outcome: the standings (sim.stats.standings), pairwise gaps measured on the
    same races (sim.stats.pairwise), the result rows and how they were played."""

    table: pd.DataFrame
    pairs: pd.DataFrame
    rows: pd.DataFrame
    arrangements: list[tuple[str, ...]]
    races_per_arrangement: int
    trails: tuple[str, ...]
    racers: int
    seed: int
    seconds: float
    game: str = games.DEFAULT
    scenario: str = "trail"           # the results' scenario column (Ski Tour: course)
    options: dict | None = None

    @property
    def races(self) -> int:
        return len(self.arrangements) * self.races_per_arrangement * len(self.trails)

    def describe(self) -> str:
        """One line: what was played."""
        options = "".join(f", {k} {v}" for k, v in (self.options or {}).items())
        return (f"{self.races:,} races on {', '.join(self.trails)} with {self.racers} racers{options}, seed "
                f"{self.seed}: {len(self.arrangements)} seat arrangements x {self.races_per_arrangement:,} "
                f"races (the same race indices for every arrangement), {self.seconds:.1f} s")

    def verdict(self, a: str, b: str, level: float = 0.05) -> str:
        """A sentence comparing a with b: win rates per seat, the paired gap and its significance."""
        t = self.table
        gap = self.gap(a, b)
        share = t.wins[a] / (t.wins[a] + t.wins[b])
        p = gap["p"]
        ptext = "p < 1e-15" if p < 1e-15 else f"p = {p:.2g}"
        if p < level:
            word = f"{a if gap['mean'] > 0 else b} is significantly stronger ({ptext}, two-sided, at {level:.0%})"
        else:
            word = f"no significant difference ({ptext}, two-sided, at {level:.0%})"
        return (f"{a} wins {t.win_rate[a]:.2%} of its seats [{t.low[a]:.2%}, {t.high[a]:.2%}], "
                f"{b} {t.win_rate[b]:.2%} [{t.low[b]:.2%}, {t.high[b]:.2%}] (fair share {t.fair_share[a]:.2%}); "
                f"{a} takes {share:.1%} of the races either wins; gap {gap['mean'] * 100:+.2f} points "
                f"[{gap['low'] * 100:+.2f}, {gap['high'] * 100:+.2f}] over {gap['units']:,} race indices: {word}")

    def gap(self, a: str, b: str) -> dict[str, float]:
        """a's win rate minus b's, paired by race index (sim.stats.paired_difference)."""
        per_unit = self.rows.groupby([self.scenario, "race", "player_name"], observed=True).won.mean().unstack()
        return paired_difference((per_unit[a] - per_unit[b]).dropna().to_numpy())


def run_ladder(bundle, arrangements: list[Arrangement], trails: list[str], races: int,
               seed: int, n_jobs: int = 1, progress: bool = False, first_race: int = 0, *,
               game: str | None = None, options: dict | None = None, **play) -> Ladder:
    """Play the arrangements on each trail (course), about `races` races per trail in all, all on
    the same race indices (first_race onwards) of `seed`; rounded up to whole blocks of line-ups.
    `options`: the game's options (sim.games.GameInfo.options; Ski Tour's side). `play`: where and
    how to play (play_arrangements: scheduler, out, repair, log, command)."""
    if races < 1:
        raise ValueError(f"races must be at least 1, got {races}")
    info = games.game(game)
    players = roster(info.name)
    # races per arrangement: its share of `races`, in whole blocks
    block = players.block(bundle, trails[0], len(arrangements[0]), options)
    per = round_to_blocks(-(-races // len(arrangements)), block)
    jobs = [(trail, arr, first_race, first_race + per) for trail in trails for arr in arrangements]
    t0 = time.perf_counter()
    rows = play_arrangements(bundle, jobs, seed, n_jobs, progress=progress, game=info.name, options=options, **play)
    seconds = time.perf_counter() - t0
    table = standings(rows)
    unit = (players.scenario, "race")
    return Ladder(table, pairwise(rows, unit), rows, [tuple(p.name for p in arr) for arr in arrangements], per,
                  tuple(trails), len(arrangements[0]), seed, seconds, info.name, players.scenario,
                  dict(options) if options else None)


def ladder(bundle, players: list[str | Player], trail: str, racers: int = 4,
           races: int = 10_000, seed: int = 1, n_jobs: int = 1, progress: bool = False,
           known: dict[str, Player] | None = None, *, game: str | None = None,
           options: dict | None = None, **play) -> Ladder:
    """Play `players` (names, persona files or player objects) of `game` (default Blast) against
    each other on `trail` (Ski Tour: a course), with the game's `options`.

    About `races` races in all, spread over the seat arrangements (module docstring). KeyError for
    an unknown player, ValueError for a bad count or a name used twice. `play`: where and how to
    play (play_arrangements: scheduler, out, repair, log, command).
    """
    hook = roster(game)
    known = hook.available() if known is None else known
    resolved = [hook.resolve(p, known) for p in players]
    if len(resolved) < 2:
        raise ValueError("a ladder needs at least 2 players")
    names = [p.name for p in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"each player may appear once in a ladder, got {', '.join(names)}")
    _check_racers(racers, game)
    return run_ladder(bundle, seat_arrangements(resolved, racers), [trail], races, seed, n_jobs, progress,
                      game=game, options=options, **play)


def head_to_head(bundle, a: str | Player, b: str | Player, trail: str | list[str],
                 racers: int = 4, races: int = 10_000, seed: int = 1, n_jobs: int = 1,
                 progress: bool = False, known: dict[str, Player] | None = None, *,
                 game: str | None = None, options: dict | None = None, **play) -> Ladder:
    """A in half the seats, B in the other half, rotated; about `races` races per trail (course).
    `Ladder.verdict(a, b)` states the outcome. `play`: as ladder's."""
    hook = roster(game)
    known = hook.available() if known is None else known
    pa, pb = hook.resolve(a, known), hook.resolve(b, known)
    if pa.name == pb.name:
        raise ValueError(f"a head-to-head needs two different players, got {pa.name!r} twice")
    _check_racers(racers, game)
    trails = [trail] if isinstance(trail, str) else list(trail)
    return run_ladder(bundle, head_to_head_arrangements(pa, pb, racers), trails, races, seed, n_jobs, progress,
                      game=game, options=options, **play)


def _check_racers(racers: int, game: str | None = None) -> None:
    lo, hi = games.game(game).racers
    if not lo <= racers <= hi:
        raise ValueError(f"racers must lie in {lo}..{hi}, got {racers}")


__all__ = ["Ladder", "ladder", "head_to_head", "run_ladder", "play_arrangements", "seat_arrangements",
           "head_to_head_arrangements", "rotations", "roster"]
