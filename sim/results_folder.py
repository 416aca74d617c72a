"""A study's or a run's output folder as a report source (sim.source.ResultsSource).

A study folder holds study.json and results/cell=<cell>/variant=<variant>/ with a manifest each
(sim.study); a run folder holds manifest.json and results/part-*.parquet (sim.run). Both become
cells (a run is one cell named after its folder, on the base variant) and a reader that loads
only the columns, cells and variants a report section asks for.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import games
from .source import CellInfo, ResultsSource, VariantInfo
from .run import checked_store, chunk_files, read_manifest, read_results
from .store import FolderError, read_json
from .study import BASE, check_cell_folders


def open_results(path: str | Path) -> ResultsSource:
    """The report source of a study's or a run's output folder; ValueError (one line) if the folder
    is missing, is neither, holds no finished chunk, or does not match its ledger (a missing,
    extra, overlapping, foreign or altered part: sim.store)."""
    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"{path}: no such folder")
    if (path / "study.json").is_file():
        if (path / "manifest.json").exists():
            raise FolderError(f"{path} holds both a study (study.json) and a run (manifest.json): a run and a "
                              f"study never share a folder; play each again into a folder of its own")
        return _study_source(path)
    if (path / "manifest.json").is_file():
        return _run_source(path)
    if any((path / "results").glob("cell=*")):
        raise FolderError(f"{path / 'study.json'} is missing but {path} holds a study's results: the folder is "
                          f"damaged; run the study again with --repair (same file, same --out) to rewrite it")
    if chunk_files(path):
        raise FolderError(f"{path / 'manifest.json'} is missing but {path} holds a run's parts: the folder is "
                          f"damaged; run the same run command again with --repair to rewrite it from the ledger")
    raise ValueError(f"{path} is not the output of a study (no study.json) or of a run (no manifest.json)")


def _checked(folder: Path) -> int:
    """Races in a results folder's finished parts, after checking the manifest and every part
    against the ledger (checksums); FolderError naming the first file that fails."""
    return sum(b - a for a, b, _ in checked_store(folder).finished())


def _game_fields(manifest: dict) -> dict:
    """What the report needs to know of the game, from a run's or a cell's manifest (a run from
    before the registry is Blast's)."""
    info = games.game(manifest.get("game") if manifest.get("game") in games.names() else games.DEFAULT)
    return {"game": info.name, "game_title": manifest.get("game_title", info.title), "layout": info.layout,
            "scenario": manifest.get("scenario", "trail"),
            "axes": tuple(manifest.get("axes", ("biathlete", "colour"))),
            "labels": manifest.get("labels", {}), "params": manifest.get("report", {})}


def _stored(columns) -> list[str]:
    """The stored columns among those asked for: names come with their ids, cell and variant from
    the folders."""
    return [c for c in columns if c not in ("cell", "variant") and not c.endswith("_name")]


def _cell_info(name: str, manifest: dict, variants: tuple[str, ...], races: int | None = None) -> CellInfo:
    """races: the races played (default: the manifest's, which is a cap for a cell sized to a
    precision target)."""
    d = manifest["design"]
    scenario = manifest.get("scenario", "trail")
    return CellInfo(name, d[scenario], int(d["racers"]), not d.get("fixed", d.get("biathletes")),
                    tuple(manifest["names"]["player"]), int(manifest["races"] if races is None else races), variants,
                    int(manifest.get("seed", -1)), int(manifest.get("block", 1)))


def _study_source(path: Path) -> ResultsSource:
    study = read_json(path / "study.json", "study description", "run the study again with --repair (same "
                      "file, same --out) to rewrite it")
    check_cell_folders(path, study)
    folders: dict[str, dict[str, Path]] = {}
    played: dict[str, dict[str, int]] = {}
    visits = path / "visits"
    candidates = {f.relative_to(path / "results") for f in (path / "results").glob("cell=*/variant=*")} | \
        {f.relative_to(visits) for f in visits.glob("cell=*/variant=*")}
    for rel in sorted(candidates):
        folder = path / "results" / rel
        if not (folder / "_manifest.json").exists() and not (folder / "_ledger.json").exists() \
                and not chunk_files(folder) and not chunk_files(visits / rel):
            continue
        if not (folder / "_manifest.json").exists():
            _no_manifest(folder)
        races = _checked(folder)
        cell, variant = folder.parent.name.split("=", 1)[1], folder.name.split("=", 1)[1]
        if races:
            folders.setdefault(cell, {})[variant] = folder
            played.setdefault(cell, {})[variant] = races
    if not folders:
        raise ValueError(f"{path} holds no finished results of a study yet")
    # a cell of an optional group that was never asked for is neither planned nor missing
    skipped = {c["name"] for c in study.get("cells", []) if c.get("optional") and c["name"] not in folders}
    optional: dict[str, tuple[str, ...]] = {}
    for c in study.get("cells", []):
        if c["name"] in skipped:
            optional[c["optional"]] = (*optional.get(c["optional"], ()), c["name"])
    order = [c["name"] for c in study.get("cells", []) if c["name"] not in skipped]
    names = sorted(folders, key=lambda c: order.index(c) if c in order else len(order))
    manifests = {c: read_manifest(next(iter(folders[c].values()))) for c in names}
    cells = tuple(_cell_info(c, manifests[c], tuple(folders[c]), played[c].get(BASE, max(played[c].values())))
                  for c in names)

    def reader(table: str):
        def read(columns, cells=None, variants=None) -> pd.DataFrame:
            parts = []
            for cell in cells if cells is not None else names:
                for variant, folder in folders.get(cell, {}).items():
                    if variants is None or variant in variants:
                        parts.append((read_results(folder, _stored(columns), table), cell, variant))
            return _concat(parts, columns)
        return read

    variants = {name: VariantInfo(name, v.get("description", ""), tuple(v.get("patches", ())), v.get("group", ""),
                              v.get("knob", ""))
                for name, v in study.get("variants", {}).items()}
    first = read_manifest(next(iter(folders[names[0]].values())))
    # a cell sized to a precision target plays fewer races than its cap: its plan is the sized count
    # its manifest records once the pilot has been played (until then, what it played)

    def plan(c: dict) -> int:
        m = manifests.get(c["name"], {})
        if not m.get("target"):
            return int(c.get("races", 0)) * len(c.get("variants", ()))
        if "planned_races" in m:
            return int(m["planned_races"]) * len(c.get("variants", ()))
        return sum(played[c["name"]].values())

    planned = sum(plan(c) for c in study.get("cells", []) if c["name"] not in skipped)
    return ResultsSource(study.get("title", path.name), study.get("description", ""), str(path), cells,
                         reader("seats"), variants, BASE, study.get("command", ""), **_game_fields(first),
                         read_visits=reader("visits"), planned=planned, planned_cells=tuple(order), optional=optional,
                         played=sum(n for c in played.values() for n in c.values()), settings=_report_settings(study),
                         data=study.get("data") or None,
                         targeted=tuple(c for c in names if manifests[c].get("target")),
                         targets={c: _target(manifests[c]) for c in names if manifests[c].get("target")},
                         precision_notes={c: manifests[c]["precision_note"] for c in names
                                          if manifests[c].get("precision_note")})


def _report_settings(study: dict) -> dict:
    """The study file's [report] table (band = 0.05: the report's tolerance band), read from the
    file's text as the study recorded it; {} where there is none or it does not parse."""
    import tomllib

    try:
        doc = tomllib.loads(study.get("file_text", ""))
    except (tomllib.TOMLDecodeError, TypeError):
        return {}
    table = doc.get("report", {})
    return table if isinstance(table, dict) else {}


def _no_manifest(folder: Path):
    raise FolderError(f"{folder / '_manifest.json'} is missing but the cell holds finished parts: the folder is "
                      f"damaged; run the study again with --repair (same file, same --out) to rewrite it")


def _run_source(path: Path) -> ResultsSource:
    manifest = read_manifest(path)
    played = _checked(path)
    if not played:
        raise ValueError(f"{path} holds no finished chunk of a run yet")
    name = path.resolve().name
    try:
        cell = _cell_info(name, manifest, (BASE,), played)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path / 'manifest.json'}: not the manifest of a run ({exc})") from None

    def reader(table: str):
        def read(columns, cells=None, variants=None) -> pd.DataFrame:
            wanted = (cells is None or name in cells) and (variants is None or BASE in variants)
            parts = [(read_results(path, _stored(columns), table), name, BASE)] if wanted else []
            return _concat(parts, columns)
        return read

    d = manifest["design"]
    title = f"Run of {manifest['races']:,} races on {d[manifest.get('scenario', 'trail')]}, {d['racers']} racers"
    return ResultsSource(title, "", str(path), (cell,), reader("seats"), {BASE: VariantInfo(BASE, "the data as it is")},
                         BASE, manifest.get("command", ""), **_game_fields(manifest), read_visits=reader("visits"),
                         planned=cell.races if manifest.get("target") else int(manifest["races"]),
                         targeted=(name,) if manifest.get("target") else (),
                         targets={name: _target(manifest)} if manifest.get("target") else {},
                         precision_notes={name: manifest["precision_note"]} if manifest.get("precision_note") else {})


def _target(manifest: dict) -> tuple[float, float, float]:
    """A sized cell's precision target: (half-width as a share, confidence, wins per fair share where
    it was asked so (precision_ratio), else 0)."""
    t = manifest["target"]
    return float(t["half_width"]), float(t.get("confidence", 0.95)), float(t.get("ratio", 0.0))


def _concat(parts: list[tuple[pd.DataFrame, str, str]], columns) -> pd.DataFrame:
    """The parts (rows, cell, variant) as one frame with `cell` and `variant` columns, both
    categorical (categories sorted), as are the names."""
    if not parts:
        return pd.DataFrame(columns=["cell", "variant", *columns])
    df = pd.concat([p for p, _, _ in parts], ignore_index=True)
    lengths = [len(p) for p, _, _ in parts]
    # cell and variant built from their codes, not as a string per row (a study reads millions)
    for key, k in (("cell", 1), ("variant", 2)):
        names = sorted({part[k] for part in parts if len(part[0])})      # those with rows, as a column's would be
        code = {n: i for i, n in enumerate(names)}
        codes = np.repeat(np.array([code.get(part[k], 0) for part in parts], dtype=np.int64), lengths)
        df[key] = pd.Categorical.from_codes(codes, pd.Index(names, dtype="str"))
    for key in (c for c in df.columns if c.endswith("_name")):
        df[key] = df[key].astype("category")
    return df
