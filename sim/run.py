"""Running many races: line-up designs, chunks through joblib, results tables, Parquet, resume.

A race is a function of (seed, race index) and its set-up, and a design gives every race index its
set-up, so a run's table is the same whatever the chunk size or the number of workers. With an
output folder every finished chunk is written at once; running the same call again skips the chunks
already there, so an interrupted run resumes and ends with the same table.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kernels import results as R
from kernels.blast import consts as C
from .blast.compile import CompiledBundle
from .blast.play import RaceSetup, make_setup, play_block
from .blast.players import Player, available, resolve

#: balanced line-ups cycle through every biathlete offset and every ski colour offset
BALANCED = "balanced"


@dataclass(frozen=True)
class Design:
    """Who races in each race of a run.

    trail: trail name. racers: racers per race (2..6). biathletes: a fixed line-up (names, seat
    order), or None for balanced line-ups. colours: fixed ski colours (seat order) or None: with
    fixed biathletes the ski colour order, with balanced line-ups rotated with them. players: one
    player kind for every seat, or one per seat.

    Balanced line-ups: races come in blocks of n_biathletes x 6; within a block, race r seats
    biathletes p[(r + j) % nb] and ski colours q[(r // nb + j) % 6] for seat j, where p and q are
    permutations drawn per block from the seed. Over each block every biathlete races in every
    ski colour equally often (as many times as there are seats).
    """

    trail: str
    racers: int = 4
    biathletes: tuple[str, ...] | None = None
    colours: tuple[str, ...] | None = None
    players: tuple[str, ...] = ("heuristic",)

    def check(self, bundle: CompiledBundle) -> None:
        bundle.trail_id(self.trail)
        if not C.MIN_RACERS <= self.racers <= C.MAX_RACERS:
            raise ValueError(f"racers must lie in {C.MIN_RACERS}..{C.MAX_RACERS}, got {self.racers}")
        if self.biathletes is not None and len(self.biathletes) != self.racers:
            raise ValueError(f"{self.racers} racers need {self.racers} biathletes, got {len(self.biathletes)}")
        if self.biathletes is None and self.racers > len(bundle.biathlete_names):
            raise ValueError(f"{self.racers} racers but only {len(bundle.biathlete_names)} biathletes")
        if len(self.players) not in (1, self.racers):
            raise ValueError(f"give one player for all seats or one per seat, got {len(self.players)}")
        players = self.resolved()
        if self.biathletes is not None:
            make_setup(bundle, self.trail, self.biathletes, self.colours, list(self._seats(players)))

    def resolved(self, known: dict[str, Player] | None = None) -> tuple[Player, ...]:
        """The design's players, resolved by name (KeyError naming the known ones)."""
        known = available() if known is None else known
        return tuple(resolve(p, known) for p in self.players)

    def player_names(self, players: tuple[Player, ...] | None = None) -> list[str]:
        """Distinct player names, in the design's order: the codes of the table's `player` column.
        `players`: the design's players already resolved."""
        return list(dict.fromkeys(p.name for p in (players or self.resolved())))

    def _seats(self, players: tuple[Player, ...]) -> tuple[Player, ...]:
        return players * self.racers if len(players) == 1 else players

    def setups(self, bundle: CompiledBundle, seed: int, races: np.ndarray,
               players: tuple[Player, ...] | None = None) -> list[RaceSetup]:
        """The set-up of each race index: a function of (design, seed, race index) only.
        `players`: the design's players already resolved."""
        players = self._seats(players or self.resolved())
        if self.biathletes is not None:
            fixed = make_setup(bundle, self.trail, self.biathletes, self.colours, list(players))
            return [fixed] * len(races)
        trail = bundle.trail_id(self.trail)
        kinds = players
        nb = len(bundle.biathlete_names)
        block = nb * C.N_COLOURS
        out = []
        perms: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for race in np.asarray(races, np.int64):
            b, r = divmod(int(race), block)
            if b not in perms:
                rng = np.random.default_rng([seed, b, 0xB1A7])
                perms[b] = (rng.permutation(nb), rng.permutation(C.N_COLOURS))
            p, q = perms[b]
            bis = tuple(int(p[(r + j) % nb]) for j in range(self.racers))
            cols = tuple(int(q[(r // nb + j) % C.N_COLOURS]) for j in range(self.racers))
            out.append(RaceSetup(trail, bis, cols, kinds))
        return out


def _play_chunk(bundle: CompiledBundle, design: Design, seed: int, start: int, stop: int) -> np.ndarray:
    races = np.arange(start, stop, dtype=np.int64)
    players = design.resolved()          # persona files read once per chunk, not once per use
    return play_block(bundle, design.setups(bundle, seed, races, players), seed, races,
                      design.player_names(players))


#: columns stored narrower than the kernel's int32 (every other column fits int16)
WIDE_COLUMNS = ("race",)
SUMMARY_KEYS = ("trail", "n_racers", "seat", "colour", "biathlete", "player")


def narrow_frame(rows: np.ndarray) -> pd.DataFrame:
    """Result rows as a frame of int16 columns (race: int32), as they are stored."""
    if len(rows) and (rows.max(axis=0)[1:] > np.iinfo(np.int16).max).any():
        raise OverflowError("a result column no longer fits int16; widen it in sim.run.WIDE_COLUMNS")
    return pd.DataFrame({f: rows[:, i].astype(np.int32 if f in WIDE_COLUMNS else np.int16)
                         for i, f in enumerate(R.FIELDS)})


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts per (trail, racers, seat, ski colour, biathlete, player): races, wins, places,
    eliminations. Sums, so the summaries of chunks add up to the run's."""
    g = frame.groupby(list(SUMMARY_KEYS), observed=True)
    return pd.DataFrame({"races": g.size(), "wins": g.won.sum(), "place_sum": g.place.sum(),
                         "eliminated": g.eliminated.sum()}).astype(np.int64)


def add_summaries(parts: list[pd.DataFrame]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame(columns=["races", "wins", "place_sum", "eliminated"])
    return pd.concat(parts).groupby(level=list(SUMMARY_KEYS)).sum()


def name_columns(df: pd.DataFrame, names: dict[str, list[str]]) -> pd.DataFrame:
    """Add trail_name, colour_name, biathlete_name, player_name beside their id columns."""
    for key in ("trail", "colour", "biathlete", "player"):
        values = pd.Categorical.from_codes(df[key].to_numpy(), names[key])
        df.insert(df.columns.get_loc(key) + 1, f"{key}_name", values)
    return df


def table_names(bundle: CompiledBundle, player_names: list[str]) -> dict[str, list[str]]:
    """What the id columns of a run's table stand for (the `player` column: `player_names`)."""
    return {"trail": list(bundle.trail_names), "colour": list(C.COLOUR_NAMES),
            "biathlete": list(bundle.biathlete_names), "player": list(player_names)}


def results_table(bundle: CompiledBundle, rows: np.ndarray, player_names: list[str]) -> pd.DataFrame:
    """The kernel's result rows as a table: ids kept, names added (trail, biathlete, ski colour,
    player: `player` indexes `player_names`)."""
    return name_columns(narrow_frame(rows), table_names(bundle, player_names))


def read_results(folder: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The table of a run written with `out=folder` (or of one cell and variant of a study),
    chunk files in race order, names added from its manifest. `columns`: read only these (the
    id columns that names need are added)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    files = chunk_files(folder)
    if columns is not None:
        want = list(dict.fromkeys(list(columns) + [k for k in ("trail", "colour", "biathlete", "player")]))
    else:
        want = None
    parts = [pd.read_parquet(f, columns=want) for f in files]
    if not parts:
        raise ValueError(f"{folder} holds no finished chunk")
    return name_columns(pd.concat(parts, ignore_index=True), manifest["names"])


def read_manifest(folder: str | Path) -> dict:
    folder = Path(folder)
    for name in ("manifest.json", "_manifest.json"):
        if (folder / name).exists():
            return json.loads((folder / name).read_text())
    raise ValueError(f"{folder} is not the folder of a run (no manifest.json)")


def chunk_files(folder: Path) -> list[Path]:
    d = folder / "results" if (folder / "results").is_dir() else folder
    return sorted(d.glob("part-*.parquet"))


@dataclass
class RunInfo:
    races: int
    seconds: float
    chunks_played: int
    chunks_reused: int
    summary: pd.DataFrame | None = None     # summarise() over every chunk, played or reused

    @property
    def races_per_second(self) -> float:
        return self.races / self.seconds if self.seconds > 0 else float("nan")


def run_races(bundle: CompiledBundle, design: Design, races: int, seed: int, *, chunk_size: int = 10_000,
              n_jobs: int = 1, out: str | Path | None = None, progress: bool = True,
              command: str = "", stop_after: int | None = None, collect: bool = True,
              scheduler: str | None = None, chunk_dir: str | Path | None = None,
              manifest_path: str | Path | None = None, extra_manifest: dict | None = None,
              label: str = "") -> tuple[pd.DataFrame | None, RunInfo]:
    """Play races 0 .. races-1 of `design` with `seed`; one row per race and racer.

    chunk_size races per task, n_jobs workers (joblib; -1 for all cores); `scheduler`: the
    address of a dask.distributed scheduler to run the chunks on instead. With `out`, each finished
    chunk is written to out/results/ at once (part-<first race>-<end>.parquet; `read_results`
    reads them back as one table) and a manifest (seed, data hash, design, package version,
    command, names) to out/manifest.json; chunks already written by an earlier call with the same
    manifest are reused. (`chunk_dir` and `manifest_path` place them elsewhere: studies do.)
    `collect=False` keeps no rows in memory (the returned table is None): the RunInfo's summary
    still counts every race. `stop_after` stops after that many new chunks (tests interrupt runs
    with it).
    """
    design.check(bundle)
    if races < 1 or chunk_size < 1:
        raise ValueError("races and chunk_size must be at least 1")
    bounds = [(s, min(s + chunk_size, races)) for s in range(0, races, chunk_size)]
    names = table_names(bundle, design.player_names())
    if out is not None:
        chunk_dir = Path(out) / "results"
        manifest_path = Path(out) / "manifest.json"
    done: dict[int, Path] = {}
    paths: list[Path | None] = [None] * len(bounds)
    if chunk_dir is not None:
        chunk_dir = Path(chunk_dir)
        chunk_dir.mkdir(parents=True, exist_ok=True)
        manifest = _manifest(bundle, design, races, seed, chunk_size, command, names)
        manifest.update(extra_manifest or {})
        # through JSON, so that tuples compare equal to the lists an earlier manifest holds
        manifest = json.loads(json.dumps(manifest))
        mpath = Path(manifest_path)
        if mpath.exists():
            old = json.loads(mpath.read_text())
            keys = ("seed", "data_hash", "design", "races", "chunk_size", "package_version")
            if any(old.get(k) != manifest.get(k) for k in keys) or _play(old) != _play(manifest):
                raise ValueError(f"{mpath.parent} holds another run ({mpath}); choose another folder or remove it")
        mpath.write_text(json.dumps(manifest, indent=2))
        for i, (a, b) in enumerate(bounds):
            paths[i] = chunk_dir / f"part-{a:012d}-{b:012d}.parquet"
            if paths[i].exists():
                done[i] = paths[i]
    todo = [i for i in range(len(bounds)) if i not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    frames: dict[int, pd.DataFrame] = {}
    summaries: list[pd.DataFrame] = []
    for i, path in done.items():
        # a finished chunk of an earlier call: only the columns its summary needs, unless collected
        frame = pd.read_parquet(path, columns=None if collect else [*SUMMARY_KEYS, "won", "place", "eliminated"])
        summaries.append(summarise(frame))
        if collect:
            frames[i] = frame
    if todo and (n_jobs != 1 or scheduler):
        warm_up(bundle, design)        # compile (or load) the kernels here, once, before workers start

    t0 = time.perf_counter()
    bar = _progress(races, sum(bounds[i][1] - bounds[i][0] for i in done), progress, label)
    try:
        for i, rows in zip(todo, _chunks(bundle, design, seed, [bounds[i] for i in todo], n_jobs, scheduler)):
            frame = narrow_frame(rows)
            if paths[i] is not None:
                tmp = paths[i].with_suffix(".tmp")
                try:
                    frame.to_parquet(tmp, index=False)
                    os.replace(tmp, paths[i])        # a chunk file is complete or absent
                finally:
                    tmp.unlink(missing_ok=True)
            summaries.append(summarise(frame))
            if collect:
                frames[i] = frame
            if bar is not None:
                bar.update(bounds[i][1] - bounds[i][0])
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    played_races = sum(bounds[i][1] - bounds[i][0] for i in todo)
    info = RunInfo(played_races, seconds, len(todo), len(done), add_summaries(summaries))
    if not collect:
        return None, info
    have = [frames[i] for i in range(len(bounds)) if i in frames]
    frame = pd.concat(have, ignore_index=True) if have else narrow_frame(np.zeros((0, R.N_FIELDS), np.int32))
    return name_columns(frame, names), info


def _chunks(bundle, design, seed, bounds, n_jobs, scheduler):
    """Each chunk's result rows, in order, played here, by joblib workers or on a dask cluster."""
    if not bounds:
        return iter(())
    if scheduler is None and (n_jobs == 1 or len(bounds) == 1):
        return (_play_chunk(bundle, design, seed, a, b) for a, b in bounds)
    from joblib import Parallel, delayed

    jobs = (delayed(_play_chunk)(bundle, design, seed, a, b) for a, b in bounds)
    if scheduler is None:
        return Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    return _on_dask(scheduler, jobs, n_jobs)


def _on_dask(scheduler, jobs, n_jobs):
    """Run joblib tasks on the dask.distributed cluster at `scheduler` (joblib's dask backend)."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise ValueError("running on a cluster needs dask.distributed: pip install 'biathlon-sim[cluster]'") from exc
    from joblib import Parallel, parallel_config

    with Client(scheduler), parallel_config(backend="dask"):
        yield from Parallel(n_jobs=n_jobs if n_jobs > 0 else -1, return_as="generator")(jobs)


def design_from_manifest(manifest: dict) -> Design:
    """The design a run's manifest records, its players rebuilt from the recorded weights (so a
    replay plays the run's races even if a persona file has changed since)."""
    from kernels.blast.players import PLAYER_KINDS

    d = manifest["design"]
    recorded = manifest.get("players", {})
    players = []
    for name in d["players"]:
        p = recorded.get(name)
        players.append(Player(name, PLAYER_KINDS.index(p["kind"]), tuple(p["weights"]), source=p.get("source", ""))
                       if p else name)
    return Design(d["trail"], d["racers"], tuple(d["biathletes"]) if d["biathletes"] else None,
                  tuple(d["colours"]) if d["colours"] else None, tuple(players))


def warm_up(bundle: CompiledBundle, design: Design) -> None:
    """Play one race here so that the kernels are compiled and cached before workers load them."""
    _play_chunk(bundle, design, 0, 0, 1)


def _manifest(bundle: CompiledBundle, design: Design, races: int, seed: int, chunk_size: int,
              command: str, names: dict) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    try:
        pkg = version("biathlon-sim")
    except PackageNotFoundError:
        pkg = "unknown"
    players = {p.name: {"kind": p.kind_name, "weights": list(p.weights), "source": p.source}
               for p in design.resolved()}
    return {"game": "Biathlon Blast", "seed": seed, "races": races, "chunk_size": chunk_size,
            "data_hash": bundle.data_hash, "data_source": bundle.data.source, "design": _design_dict(design),
            "players": players, "package_version": pkg, "command": command, "columns": list(R.FIELDS),
            "names": names}


def _play(manifest: dict) -> dict:
    """What decides the players' play: kind and weights (not where a persona file was read)."""
    return {name: (p.get("kind"), p.get("weights")) for name, p in manifest.get("players", {}).items()}


def _design_dict(design: Design) -> dict:
    d = asdict(design)
    d["players"] = [p if isinstance(p, str) else p.name for p in design.players]
    return d


def _progress(races: int, done: int, show: bool, label: str = ""):
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=races, initial=done, unit=" races", unit_scale=True, desc=label or f"{races:,} races",
                smoothing=0.05, dynamic_ncols=True)
