"""Running many races of any registered game: chunks through the shared runner, records into the
shared store, resume.

A race is a function of (seed, race index) and its set-up, and a design gives every race index its
set-up, so a run's table is the same whatever the chunk size or the number of workers. With an
output folder every finished chunk is written at once (sim.store); running the same call again
plays only the races no finished chunk covers, so an interrupted run resumes and ends with the
same table. This module knows no game: it asks the registry (sim.games) and the game's module.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import games
from .blocks import round_to_blocks
from .precision import Target, default_pilot, races_needed
from .runner import Task, chunk_size as adaptive_chunk, has_search, progress_bar, run_tasks
from .store import ChunkStore, FolderError, _short, add_names, frame, identity_hash, ledger_identity, read_json

#: what must agree for a folder's finished chunks to be reused
IDENTITY = ("game", "seed", "data_hash", "design", "races", "package_version", "players")


def same_play(key: str, value):
    """What of a manifest's value decides results: a player's kind and weights, not the file it was
    read from; a run from before the registry is Blast's."""
    if key == "players" and isinstance(value, dict):
        return {n: {k: v for k, v in p.items() if k != "source"} for n, p in value.items()}
    if key == "game" and value == "Biathlon Blast":
        return games.DEFAULT
    return value


def summary_keys(info: games.GameInfo) -> list[str]:
    """The columns the summary counts are kept by: scenario, racers, seat, the seat axes, player."""
    return [info.scenario, "n_racers", "seat", *info.axes, "player"]


def summarise(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Counts per `keys`: races, wins, place sums, eliminations, finishes. Sums, so the
    summaries of chunks add up to the run's."""
    g = df.groupby(keys, observed=True)
    return pd.DataFrame({"races": g.size(), "wins": g.won.sum(), "place_sum": g.place.sum(),
                         "eliminated": g.eliminated.sum(), "stalled": g.stalled.sum()}).astype(np.int64)


def add_summaries(parts: list[pd.DataFrame], keys: list[str]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame(columns=["races", "wins", "place_sum", "eliminated", "stalled"])
    return pd.concat(parts).groupby(level=keys).sum()


def read_manifest(folder: str | Path) -> dict:
    """The manifest of a run folder (manifest.json) or of a study's cell and variant folder
    (_manifest.json); FolderError (one line) if there is none or it is damaged."""
    folder = Path(folder)
    for name in ("manifest.json", "_manifest.json"):
        if (folder / name).exists():
            return read_json(folder / name, "manifest", "the folder is damaged: run the command that wrote it "
                             "again with --repair to rewrite it from the ledger, or remove the folder")
    raise FolderError(f"{folder} is not the folder of a run (no manifest.json)")


def checked_store(folder: str | Path, deep: bool = True) -> ChunkStore:
    """The store of a run folder or of a study's cell and variant folder, checked: its manifest
    readable and of the identity its ledger was written under, every part the ledger's
    (sim.store: ChunkStore.verify); FolderError (one line, naming the file) otherwise."""
    folder = Path(folder)
    store = _store_of(folder)
    manifest = read_manifest(folder)
    ledger = store.ledger()
    if ledger.get("identity_hash"):
        ident = ledger_identity(manifest, IDENTITY, same_play)
        if identity_hash(ident) != ledger["identity_hash"]:
            key = next((k for k in ident if ledger.get("identity", {}).get(k) != ident[k]), "identity")
            raise FolderError(f"{store.manifest_path} does not match the ledger {store.ledger_path.name} ({key}: "
                              f"{_short(ident.get(key))} in the manifest, {_short(ledger['identity'].get(key))} in the "
                              f"ledger): the manifest was replaced; remove it and run the command that wrote the "
                              f"folder again with --repair, which rewrites it from the ledger")
    store.verify(deep=deep)
    return store


def chunk_files(folder: Path) -> list[Path]:
    """The part files of a run folder or of a study's cell and variant folder, whatever the
    ledger says (the ledger's are _store_of(folder).finished())."""
    d = folder / "results" if (folder / "results").is_dir() else folder
    return sorted(d.glob("part-*.parquet"))


def read_results(folder: str | Path, columns: list[str] | None = None, table: str = "seats") -> pd.DataFrame:
    """The table of a run written with `out=folder` (or of one cell and variant of a study, given
    its seats folder), in race order, names added from its manifest. `table`: "seats" (one row
    per race and racer) or "visits" (one row per racer and range visit). `columns`: read only
    these (the id columns that names need are added)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    names = manifest["names"]
    store = _store_of(folder)
    want = None
    if columns is not None:
        have = set(manifest.get("seat_columns" if table == "seats" else "visit_columns", []))
        want = list(dict.fromkeys([*columns, *[k for k in names if not have or k in have]]))
        if have:
            want = [c for c in want if c in have]
    return add_names(store.read(table, want), names)


def _store_of(folder: Path) -> ChunkStore:
    """The store of a run folder (manifest.json, results/, visits/) or of a study's cell and
    variant folder (results/cell=C/variant=V/ holding _manifest.json; visits/cell=C/variant=V/)."""
    if (folder / "manifest.json").exists() or (folder / "results").is_dir():
        return ChunkStore.of_run(folder)
    cell, variant, results = folder.parent.name, folder.name, folder.parent.parent
    return ChunkStore(folder, results.parent / "visits" / cell / variant, folder / "_manifest.json",
                      root=results.parent)


def study_store(out: Path, cell: str, variant: str) -> ChunkStore:
    seats = out / "results" / f"cell={cell}" / f"variant={variant}"
    return ChunkStore(seats, out / "visits" / f"cell={cell}" / f"variant={variant}", seats / "_manifest.json",
                      root=out)


def folder_kind(path: Path) -> str:
    """What a results folder holds: "study" (study.json, or cell= folders), "run" (manifest.json,
    ledger.json or parts in results/), or "" (nothing of either)."""
    path = Path(path)
    if (path / "study.json").exists() or any((path / "results").glob("cell=*")):
        return "study"
    if (path / "manifest.json").exists() or (path / "ledger.json").exists() or any((path / "results").glob("part-*")):
        return "run"
    return ""


def refuse_other_kind(out: Path, kind: str) -> None:
    """FolderError when `out` (or the folder it lies in) holds the other kind of results: a run
    and a study never share a folder."""
    out = Path(out).resolve()
    for folder in (out, *out.parents[:3]):
        other = folder_kind(folder)
        inside = out.is_relative_to(folder / "results") or out.is_relative_to(folder / "visits")
        if other and other != kind and (folder == out or inside):
            raise FolderError(f"{folder} holds a {other} ({'study.json' if other == 'study' else 'manifest.json'}); "
                              f"a {kind} needs a folder of its own: choose another --out")


@dataclass
class RunInfo:
    races: int
    seconds: float
    chunks_played: int
    chunks_reused: int
    summary: pd.DataFrame | None = None     # summarise() over every chunk, played or reused
    planned: int = 0                         # races the run has (with a target: the sized count)

    @property
    def races_per_second(self) -> float:
        return self.races / self.seconds if self.seconds > 0 else float("nan")


def play_chunk(game: str | games.GameInfo, bundle, design, seed: int, start: int, stop: int):
    """(seats, visits) of races start .. stop-1: the task every worker runs (tasks carry the
    GameInfo, so a worker needs no registry: a game registered at run time plays there too)."""
    return games.game(game).load().play_chunk(bundle, design, seed, start, stop)


def package_version() -> str:
    """The package's version, which a folder's identity holds: the installed one's, or, run from a
    source tree that is not installed (a cluster's workers, a many-core machine given the tree),
    the tree's pyproject.toml's, so that its folders extend and are extended by installed runs of
    the same version ("unknown" only when neither says)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("biathlon-sim")
    except PackageNotFoundError:
        import tomllib

        try:
            with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as f:
                return str(tomllib.load(f)["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


def manifest(game: str, bundle, design, races: int, seed: int, command: str = "") -> dict:
    """What a run folder records: enough to replay any race and to refuse mixing two runs."""
    info = games.game(game)
    mod = info.load()
    pkg = package_version()
    players = mod.player_records(design)
    return {"game": info.name, "game_title": info.title, "seed": seed, "races": races,
            "data_hash": bundle.data_hash, "data_source": bundle.data.source,
            "design": mod.design_dict(design), "players": players, "package_version": pkg, "command": command, "scenario": info.scenario, "axes": list(info.axes),
            "seat_columns": list(mod.SEAT_DTYPE.names), "visit_columns": list(mod.VISIT_DTYPE.names),
            "names": mod.names(bundle, design), "labels": mod.LABELS, "block": mod.block(bundle, design),
            "report": info.hook("report_params")(bundle) if "report_params" in info.hooks else {}}


def frozen_players(mod, design):
    """`design` with its players rebuilt from what a manifest records of them (kind and weights:
    mod.player_records), so that every chunk plays exactly the recorded weights: the workers read
    no persona file, and a file edited or added while a run or study plays changes none of its
    races (a new persona file once stopped a running study; an edited one would have changed its
    later chunks while the manifest kept the old weights)."""
    return mod.design_from_dict(mod.design_dict(design), json.loads(json.dumps(mod.player_records(design))))


def run_races(bundle, design, races: int, seed: int, *, game: str = games.DEFAULT, chunk_size: int = 10_000,
              n_jobs: int = 1, out: str | Path | None = None, progress: bool = True,
              command: str = "", stop_after: int | None = None, collect: bool = True,
              scheduler: str | None = None, store: ChunkStore | None = None,
              extra_manifest: dict | None = None, label: str = "",
              target: Target | None = None, repair: bool = False,
              log=None) -> tuple[pd.DataFrame | None, RunInfo]:
    """Play races 0 .. races-1 of `design` with `seed`; one row per race and racer (the game's
    seat record, names added).

    chunk_size: the most races per task (smaller when there are fewer races than workers times
    four); n_jobs workers (joblib; -1 for all cores); `scheduler`: the address of a
    dask.distributed scheduler to run the chunks on instead. With `out` (or a `store`), each
    finished chunk is written at once (sim.store) with a manifest; races an earlier call with the
    same manifest finished are reused. `collect=False` keeps no rows in memory (the returned table
    is None): the RunInfo's summary still counts every race. `stop_after` stops after that many
    new chunks (tests interrupt runs with it). `target` (sim.precision): play a pilot, size the
    run from it so that every win rate meets the target, and play that many races (`races` is
    then the cap; RunInfo.planned says how many were needed). A folder whose parts do not match
    its ledger is refused (FolderError, sim.store); `repair` sets such parts aside and plays their
    races again, saying so through `log`.
    """
    info = games.game(game)
    mod = info.load()
    mod.check_design(bundle, design)
    design = frozen_players(mod, design)
    if races < 1 or chunk_size < 1:
        raise ValueError("races and chunk_size must be at least 1")
    names = mod.names(bundle, design)
    keys = summary_keys(info)
    block = mod.block(bundle, design)
    pilot = races
    if target is not None:
        pilot = min(races, round_to_blocks(target.pilot or default_pilot(races, block), block))
    search = has_search(mod.player_records(design))
    chunk = adaptive_chunk(pilot, n_jobs, chunk_size, search=search)
    if out is not None:
        refuse_other_kind(out, "run")
        store = ChunkStore.of_run(out)
    frames: dict[int, pd.DataFrame] = {}
    summaries: list[pd.DataFrame] = []
    reused = 0
    if store is not None:
        m = manifest(game, bundle, design, races, seed, command)
        m.update(extra_manifest or {})
        if target is not None:
            m["target"] = {"half_width": target.half_width, "confidence": target.confidence, "cap": races,
                           "pilot": pilot}
        store.open(m, IDENTITY, same_play, repair=repair, log=log)
        for a, b, path in store.finished():
            # a finished chunk of an earlier call: only the columns its summary needs, unless collected
            df = store.read_part(path, None if collect else [*keys, "won", "place", "eliminated", "stalled"])
            summaries.append(summarise(df, keys))
            reused += 1
            if collect:
                frames[a] = df

    def todo(limit: int, start: int = 0) -> list[tuple[int, int]]:
        if store is not None:
            return store.missing(limit, chunk)
        return [(s, min(s + chunk, limit)) for s in range(start, limit, chunk)]

    bar = progress_bar(races, 0, progress, label)
    played = {"races": 0, "tasks": 0, "seconds": 0.0}
    pilot_rows: list[pd.DataFrame] = []

    def play(bounds: list[tuple[int, int]]) -> None:
        if stop_after is not None:
            bounds = bounds[:max(0, stop_after - played["tasks"])]
        if bounds and (n_jobs != 1 or scheduler):
            warm_up(game, bundle, design)        # compile (or load) the kernels here, once, before workers start
        tasks = [Task((a, b), play_chunk, (info, bundle, design, seed, a, b), b - a) for a, b in bounds]
        if bar is not None:
            done = sum(b - a for a, b, _ in store.finished()) if store is not None else played["races"]
            bar.n = done
            bar.refresh()
        t0 = time.perf_counter()
        for task, (seats, visits) in run_tasks(tasks, n_jobs, scheduler):
            a, b = task.key
            df = store.write(a, b, seats, visits) if store is not None else frame(seats)
            summaries.append(summarise(df, keys))
            if collect:
                frames[a] = df
            if target is not None and store is None and a < pilot:
                pilot_rows.append(df[["race", "won", "leg", *info.axes]])
            if bar is not None:
                bar.update(b - a)
        played["seconds"] += time.perf_counter() - t0
        played["races"] += sum(t.races for t in tasks)
        played["tasks"] += len(tasks)

    try:
        play(todo(pilot))
        planned = pilot
        if target is not None and (stop_after is None or played["tasks"] < stop_after):
            rows = (store.read("seats", ["race", "won", "leg", *info.axes]) if store is not None
                    else pd.concat(pilot_rows, ignore_index=True))
            rows = rows[(rows.race < pilot) & (rows.leg == 0)]
            planned = races_needed(rows, list(info.axes), block, target, pilot)
            if store is not None:
                store.note(planned_races=planned)
            if bar is not None:
                bar.total = planned
            chunk = adaptive_chunk(planned, n_jobs, chunk_size, search=search)
            play(todo(planned, pilot))
    finally:
        if bar is not None:
            bar.close()
    run_info = RunInfo(played["races"], played["seconds"], played["tasks"], reused, add_summaries(summaries, keys),
                       planned)
    if not collect:
        return None, run_info
    if frames:
        df = pd.concat([frames[a] for a in sorted(frames)], ignore_index=True)
    else:
        df = frame(np.zeros(0, mod.SEAT_DTYPE))
    return add_names(df, names), run_info


def whole_blocks(game: str, bundle, design, races: int) -> int:
    """`races` rounded up to whole balanced blocks of the design (every value of every seat axis
    equally often in every seat)."""
    return round_to_blocks(races, games.game(game).load().block(bundle, design))


def warm_up(game: str, bundle, design) -> None:
    """Play one race here so that the kernels are compiled and cached before workers load them."""
    play_chunk(game, bundle, design, 0, 0, 1)


def design_from_manifest(m: dict):
    """The design a run's manifest records, for its game."""
    game = m.get("game", games.DEFAULT)
    mod = games.game(game if game in games.names() else games.DEFAULT).load()   # runs from before the registry
    return mod.design_from_dict(m["design"], m.get("players", {}))
