"""Study files: many cells of races (trail, line-up design, players, data variant) run as one study.

A study file (TOML, format in docs/studies.md) lists data variants (patches of the data files)
and cells. A cell is one design on one trail with a race count; `trail` and `racers` may be lists,
giving one cell per combination. A cell played on several variants replays the same seed and race
indices on each, so the variants' differences are measured on common random numbers (paired).

Results go to OUT/results/cell=<cell>/variant=<variant>/part-*.parquet: one Parquet dataset that
`pd.read_parquet(OUT / "results")` reads whole (with `cell` and `variant` columns) and
`read_study` reads with names added. Each cell's folder keeps its own manifest, so an interrupted
study resumes cell by cell, chunk by chunk. OUT/summary.csv holds the counts per cell, variant,
seat, ski colour, biathlete and player; OUT/study.json the study as run.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kernels.blast.consts import COLOUR_NAMES

from .blast.compile import CompiledBundle, load_bundle
from .run import Design, read_results, run_races
from .validation import DataError, Patch, Problems, Table

BASE = "base"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
CELL_KEYS = ("name", "trail", "racers", "biathletes", "colours", "players", "races", "variants", "seed")


@dataclass(frozen=True)
class Variant:
    name: str
    description: str = ""
    patches: tuple[Patch, ...] = ()


@dataclass(frozen=True)
class Cell:
    name: str
    design: Design
    races: int
    variants: tuple[str, ...]
    seed: int


@dataclass
class Study:
    path: Path
    title: str
    description: str
    seed: int
    chunk_size: int
    data: str | None
    variants: dict[str, Variant]
    cells: list[Cell] = field(default_factory=list)

    @property
    def races(self) -> int:
        return sum(c.races * len(c.variants) for c in self.cells)


def cell_seed(study_seed: int, cell_name: str) -> int:
    """A cell's own seed, from the study's seed and the cell's name: cells are independent of each
    other, and adding a cell to a study leaves the others' races as they were."""
    h = hashlib.blake2b(f"{study_seed}:{cell_name}".encode(), digest_size=4).digest()
    return int.from_bytes(h, "little")


def load_study(path: str | Path) -> Study:
    """Read and check a study file; DataError lists every problem (file, entry, field, expected)."""
    path = Path(path)
    problems = Problems(path.parent)
    doc = problems.read_toml(path) if path.is_file() else None
    if doc is None:
        if not path.is_file():
            problems.add(str(path), "", "", "is not a study file (see docs/studies.md)")
        problems.raise_if_any()
    file = problems.rel(path)
    t = Table(problems, file, "", doc)
    title = t.str("title", path.stem)
    description = t.str("description", "")
    seed = t.int("seed", None, 0, 2**63 - 1)
    chunk = t.int("chunk_size", 20_000, 1, 10_000_000)
    data = t.str("data", "") or None
    if data is not None and not Path(data).is_absolute():
        data = str((path.parent / data).resolve())
    defaults = t.table("defaults", {})
    dflt = {k: defaults.raw(k, "") for k in CELL_KEYS if defaults.has(k)}
    defaults.done(hint=CELL_KEYS)
    variants: dict[str, Variant] = {BASE: Variant(BASE, "the data as it is")}
    for i, raw in enumerate(t.tables("variant", [])):
        vt = Table(problems, file, f"variant {i + 1}", raw)
        name = vt.name()
        vt.entry = f"variant {name!r}"
        if name and not _NAME_RE.match(name):
            vt.problem("name", "must be letters, digits and _ . + - (it names a folder)")
        if name in variants:
            vt.problem("name", f"is used twice (or is the reserved name {BASE!r})")
        patches = []
        for j, p in enumerate(vt.tables("set", None)):
            pt = Table(problems, file, f"variant {name!r}: set {j + 1}", p)
            patches.append(Patch(pt.str("file"), pt.str("path"), pt.raw("value"),
                                 f"{file}: variant {name!r}: set {j + 1}"))
            pt.done()
        variants[name] = Variant(name, vt.str("description", ""), tuple(patches))
        vt.done()
    cells: list[Cell] = []
    raw_cells = t.tables("cell", None)
    if "cell" in doc and not raw_cells:
        t.problem("cell", "a study needs at least one [[cell]]")
    for i, raw in enumerate(raw_cells):
        cells.extend(_read_cells(problems, file, i, {**dflt, **raw}, variants, seed))
    t.done()
    names = [c.name for c in cells]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.add(file, f"cell {n!r}", "name", "is used by two cells; give each cell its own name")
    problems.raise_if_any()
    return Study(path, title, description, seed, chunk, data, variants, cells)


def _listify(v):
    return v if isinstance(v, list) else [v]


def _read_cells(problems: Problems, file: str, i: int, raw: dict, variants: dict[str, Variant],
                study_seed: int) -> list[Cell]:
    ct = Table(problems, file, f"cell {i + 1}", raw)
    base_name = ct.str("name", "")
    if base_name:
        ct.entry = f"cell {base_name!r}"
    trails = [x for x in _listify(ct.raw("trail")) if x is not None]
    racers = _listify(ct.raw("racers", 4))
    biathletes = ct.list("biathletes", []) or None
    colours = ct.list("colours", []) or None
    players = ct.raw("players", ["balanced"])
    races = ct.int("races", None, 1, 10**10)
    wanted = ct.list("variants", [BASE])
    seed = ct.int("seed", -1, -1, 2**63 - 1)
    ct.done(hint=CELL_KEYS)
    if isinstance(players, str):
        players = [players]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        ct.problem("players", "must be a player name or a list of names (one per seat)")
        players = ["balanced"]
    for v in wanted:
        if v not in variants:
            ct.problem("variants", f"names no variant {v!r}; known: {', '.join(variants)}")
    if not all(isinstance(x, str) for x in trails):
        ct.problem("trail", "must be a trail name or a list of them")
        return []
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in racers):
        ct.problem("racers", "must be a whole number or a list of them")
        return []
    if biathletes is not None:
        racers = [len(biathletes)]
    out = []
    for trail in trails:
        for n in racers:
            name = base_name or "cell"
            if len(trails) > 1 or not base_name:
                name += f"-{trail}"
            if len(racers) > 1 or not base_name:
                name += f"-{n}"
            if not _NAME_RE.match(name):
                ct.problem("name", f"{name!r} must be letters, digits and _ . + - (it names a folder)")
                continue
            design = Design(trail, n, tuple(biathletes) if biathletes else None,
                            tuple(c.lower() for c in colours) if colours else None, tuple(players))
            out.append(Cell(name, design, races, tuple(v for v in wanted if v in variants),
                            seed if seed >= 0 else cell_seed(study_seed, name)))
    return out


def check_study(study: Study) -> dict[str, CompiledBundle]:
    """Every variant's bundle, and every cell's design checked against the data: DataError with
    one problem per thing wrong, before any race is played."""
    problems = Problems(study.path.parent)
    file = study.path.name
    bundles: dict[str, CompiledBundle] = {}
    for name, variant in study.variants.items():
        if not any(name in c.variants for c in study.cells):
            continue
        try:
            bundles[name] = load_bundle(study.data, variant.patches)
        except DataError as exc:
            problems.items.extend(exc.problems)
    if BASE in bundles:
        for cell in study.cells:
            try:
                cell.design.check(bundles[BASE])
            except (KeyError, ValueError) as exc:
                problems.add(file, f"cell {cell.name!r}", "", str(exc.args[0]) if exc.args else str(exc))
    problems.raise_if_any()
    return bundles


def run_study(study: Study, out: str | Path, *, n_jobs: int = 1, progress: bool = True,
              scheduler: str | None = None, command: str = "", only: list[str] | None = None,
              log=print) -> pd.DataFrame:
    """Play every cell on every one of its variants; returns the summary counts (also written to
    OUT/summary.csv). Keeps no per-race rows in memory: the table is on disk."""
    out = Path(out)
    bundles = check_study(study)
    cells = [c for c in study.cells if only is None or c.name in only]
    out.mkdir(parents=True, exist_ok=True)
    _write_study_json(study, out, command)
    summaries = []
    for cell in cells:
        for vname in cell.variants:
            bundle = bundles[vname]
            folder = out / "results" / f"cell={cell.name}" / f"variant={vname}"
            variant = study.variants[vname]
            _, info = run_races(
                bundle, cell.design, cell.races, cell.seed, chunk_size=study.chunk_size, n_jobs=n_jobs,
                progress=progress, command=command, collect=False, scheduler=scheduler,
                chunk_dir=folder, manifest_path=folder / "_manifest.json", label=f"{cell.name} / {vname}",
                extra_manifest={"study": study.title, "cell": cell.name, "variant": vname,
                                "patches": [vars(p) for p in variant.patches]})
            what = (f"{info.races:,} races in {info.seconds:.1f} s ({info.races_per_second:,.0f}/s)"
                    if info.chunks_played else "already played")
            log(f"{cell.name} / {vname}: {what}")
            s = info.summary.reset_index()
            s.insert(s.columns.get_loc("player") + 1, "player_name",
                     [cell.design.player_names()[i] for i in s.player])
            s.insert(s.columns.get_loc("colour") + 1, "colour_name", [COLOUR_NAMES[i] for i in s.colour])
            s.insert(0, "variant", vname)
            s.insert(0, "cell", cell.name)
            summaries.append(s)
    summary = pd.concat(summaries, ignore_index=True)
    first = next(iter(bundles.values()))
    for key, names in (("trail", first.trail_names), ("biathlete", first.biathlete_names)):
        summary.insert(summary.columns.get_loc(key) + 1, f"{key}_name", [names[i] for i in summary[key]])
    summary.to_csv(out / "summary.csv", index=False)
    return summary


def _write_study_json(study: Study, out: Path, command: str) -> None:
    doc = {"title": study.title, "description": study.description, "seed": study.seed,
           "file": str(study.path), "file_text": study.path.read_text(encoding="utf-8"),
           "command": command, "chunk_size": study.chunk_size, "data": study.data,
           "cells": [{"name": c.name, "trail": c.design.trail, "racers": c.design.racers,
                      "biathletes": c.design.biathletes, "colours": c.design.colours,
                      "players": c.design.players, "races": c.races, "variants": c.variants,
                      "seed": c.seed} for c in study.cells],
           "variants": {v.name: {"description": v.description, "patches": [vars(p) for p in v.patches]}
                        for v in study.variants.values()}}
    path = out / "study.json"
    text = json.dumps(doc, indent=2, default=list)
    if path.exists():
        # the study as played (seed, cells, variants, data), not its text: comments may change;
        # a cell added, removed or changed makes it another study (each cell's own manifest
        # guards its chunks as well)
        old, new = json.loads(path.read_text()), json.loads(text)
        keys = ("seed", "cells", "variants", "data", "chunk_size")
        if any(old.get(k) != new.get(k) for k in keys):
            raise ValueError(f"{out} holds another study ({path}); choose another folder or remove it")
    path.write_text(text)


def read_study(out: str | Path, columns: list[str] | None = None, cells: list[str] | None = None) -> pd.DataFrame:
    """A study's table: one row per race and racer of every cell and variant, with `cell` and
    `variant` columns and names added. `columns` limits what is read (memory)."""
    out = Path(out)
    parts = []
    for folder in sorted((out / "results").glob("cell=*/variant=*")):
        cell = folder.parent.name.split("=", 1)[1]
        if cells is not None and cell not in cells:
            continue
        df = read_results(folder, columns)
        df.insert(0, "variant", folder.name.split("=", 1)[1])
        df.insert(0, "cell", cell)
        parts.append(df)
    if not parts:
        raise ValueError(f"{out} holds no finished results of a study")
    df = pd.concat(parts, ignore_index=True)
    for key in ("cell", "variant"):
        df[key] = df[key].astype("category")
    return df
