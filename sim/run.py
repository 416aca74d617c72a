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

    def player_names(self) -> list[str]:
        """Distinct player names, in the design's order: the codes of the table's `player` column."""
        return list(dict.fromkeys(p.name for p in self.resolved()))

    def _seats(self, players: tuple[Player, ...]) -> tuple[Player, ...]:
        return players * self.racers if len(players) == 1 else players

    def setups(self, bundle: CompiledBundle, seed: int, races: np.ndarray) -> list[RaceSetup]:
        """The set-up of each race index: a function of (design, seed, race index) only."""
        players = self._seats(self.resolved())
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
    return play_block(bundle, design.setups(bundle, seed, races), seed, races, design.player_names())


def results_table(bundle: CompiledBundle, rows: np.ndarray, player_names: list[str]) -> pd.DataFrame:
    """The kernel's result rows as a table: ids kept, names added (trail, biathlete, ski colour,
    player: `player` indexes `player_names`)."""
    df = pd.DataFrame(rows, columns=R.FIELDS)
    df.insert(2, "trail_name", pd.Categorical.from_codes(df.trail, bundle.trail_names))
    df.insert(6, "colour_name", pd.Categorical.from_codes(df.colour, list(C.COLOUR_NAMES)))
    df.insert(8, "biathlete_name", pd.Categorical.from_codes(df.biathlete, bundle.biathlete_names))
    df.insert(10, "player_name", pd.Categorical.from_codes(df.player, player_names))
    return df


@dataclass
class RunInfo:
    races: int
    seconds: float
    chunks_played: int
    chunks_reused: int

    @property
    def races_per_second(self) -> float:
        return self.races / self.seconds if self.seconds > 0 else float("nan")


def run_races(bundle: CompiledBundle, design: Design, races: int, seed: int, *, chunk_size: int = 10_000,
              n_jobs: int = 1, out: str | Path | None = None, progress: bool = True,
              command: str = "", stop_after: int | None = None) -> tuple[pd.DataFrame, RunInfo]:
    """Play races 0 .. races-1 of `design` with `seed`; one row per race and racer.

    chunk_size races per task, n_jobs workers (joblib; -1 for all cores). With `out`, each finished
    chunk is written to out/chunks/ at once, a manifest (seed, data hash, design, package version,
    command) to out/manifest.json and the table to out/results.parquet; chunks already written by
    an earlier call with the same manifest are reused. `stop_after` stops after that many new
    chunks (tests use it to interrupt a run).
    """
    from joblib import Parallel, delayed

    design.check(bundle)
    if races < 1 or chunk_size < 1:
        raise ValueError("races and chunk_size must be at least 1")
    bounds = [(s, min(s + chunk_size, races)) for s in range(0, races, chunk_size)]
    chunk_dir = None
    done: dict[int, Path] = {}
    if out is not None:
        out = Path(out)
        chunk_dir = out / "chunks"
        chunk_dir.mkdir(parents=True, exist_ok=True)
        # through JSON, so that tuples compare equal to the lists an earlier manifest holds
        manifest = json.loads(json.dumps(_manifest(bundle, design, races, seed, chunk_size, command)))
        mpath = out / "manifest.json"
        if mpath.exists():
            old = json.loads(mpath.read_text())
            keys = ("seed", "data_hash", "design", "races", "chunk_size", "package_version")
            if any(old.get(k) != manifest.get(k) for k in keys):
                raise ValueError(f"{out} holds another run ({mpath}); choose another folder or remove it")
        mpath.write_text(json.dumps(manifest, indent=2))
        for i, (a, b) in enumerate(bounds):
            path = chunk_dir / f"chunk_{a:012d}_{b:012d}.parquet"
            if path.exists():
                done[i] = path
    todo = [i for i in range(len(bounds)) if i not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    t0 = time.perf_counter()
    tables: dict[int, np.ndarray] = {}
    bar = _progress(len(bounds), len(done), races, chunk_size, progress)
    try:
        if n_jobs == 1 or len(todo) <= 1:
            results = (_play_chunk(bundle, design, seed, *bounds[i]) for i in todo)
        else:
            jobs = (delayed(_play_chunk)(bundle, design, seed, *bounds[i]) for i in todo)
            results = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
        for i, rows in zip(todo, results):
            tables[i] = rows
            if chunk_dir is not None:
                a, b = bounds[i]
                path = chunk_dir / f"chunk_{a:012d}_{b:012d}.parquet"
                tmp = path.with_suffix(".tmp")
                pd.DataFrame(rows, columns=R.FIELDS).to_parquet(tmp, index=False)
                os.replace(tmp, path)            # a chunk file is complete or absent
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    for i, path in done.items():
        tables[i] = pd.read_parquet(path).to_numpy(np.int32)
    have = [i for i in range(len(bounds)) if i in tables]
    rows = np.concatenate([tables[i] for i in have]) if have else np.zeros((0, R.N_FIELDS), np.int32)
    df = results_table(bundle, rows, design.player_names())
    if out is not None and len(have) == len(bounds):
        df.to_parquet(out / "results.parquet", index=False)
    played_races = sum(bounds[i][1] - bounds[i][0] for i in todo)
    return df, RunInfo(played_races, seconds, len(todo), len(done))


def _manifest(bundle: CompiledBundle, design: Design, races: int, seed: int, chunk_size: int,
              command: str) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    try:
        pkg = version("biathlon-sim")
    except PackageNotFoundError:
        pkg = "unknown"
    return {"game": "Biathlon Blast", "seed": seed, "races": races, "chunk_size": chunk_size,
            "data_hash": bundle.data_hash, "data_source": bundle.data.source, "design": asdict(design),
            "package_version": pkg, "command": command, "columns": list(R.FIELDS)}


def _progress(total_chunks: int, done: int, races: int, chunk_size: int, show: bool):
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total_chunks, initial=done, unit="chunk", desc=f"{races:,} races",
                postfix={"races/chunk": chunk_size}, smoothing=0.1)
