"""Adopting a results folder written before ledgers were kept (sim.store): check every part, then
write the ledger, so `report` and resume accept the folder again.

A part is checked as far as its files allow: its name gives a race range, its seats and visits
files are both there and readable, its seats rows are exactly the races of its range, no two parts
cover the same race, and its first race, played again from the manifest's seed, design and data,
gives the very rows the part holds. The last check is what ties the parts to the manifest: a part
of another seed, design or data fails it. Anything that fails is refused with one line naming the
part; nothing is written then.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from . import games
from .run import IDENTITY, _store_of, design_from_manifest, play_chunk, read_manifest, same_play
from .store import ChunkStore, FolderError, frame, ledger_identity

_PART = re.compile(r"^part-(\d+)-(\d+)\.parquet$")


def stores_of(folder: Path) -> list[Path]:
    """The store folders of a run folder (itself) or of a study folder (its cell and variant
    folders)."""
    folder = Path(folder)
    if (folder / "study.json").exists() or any((folder / "results").glob("cell=*")):
        return sorted((folder / "results").glob("cell=*/variant=*"))
    return [folder]


def adopt(folder: str | Path, data: str | None = None, log=print) -> int:
    """Check every part of an unledgered run or study folder and write its ledgers; returns the
    parts adopted. FolderError (one line) for the first part that fails; `data`: the data
    directory when the manifest's is not where it was."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FolderError(f"{folder}: no such folder")
    adopted = 0
    for path in stores_of(folder):
        store = _store_of(path)
        if store.ledger_path.exists():
            log(f"{path}: has a ledger already")
            continue
        manifest = read_manifest(path)
        adopted += _check(store, manifest, data)
        store.adopt(ledger_identity(manifest, IDENTITY, same_play))
        log(f"{path}: {len(store.finished())} part(s) checked and entered in {store.ledger_path.name}")
    return adopted


def _check(store: ChunkStore, manifest: dict, data: str | None) -> int:
    from .validation import Patch

    seats = {p.name for p in store.seats.glob("part-*.parquet")}
    visits = {p.name for p in store.visits.glob("part-*.parquet")} if store.visits.is_dir() else set()
    for name in sorted(seats ^ visits):
        table = "visits" if name in seats else "seats"
        raise FolderError(f"{store.seats if table == 'seats' else store.visits}/{name} is missing (its other table "
                          f"has it); the folder cannot be adopted: play it again into a new folder")
    ranges = []
    for name in sorted(seats):
        m = _PART.match(name)
        if not m:
            raise FolderError(f"{store.seats / name} is not a part (part-<first>-<end>.parquet); remove it")
        ranges.append((int(m.group(1)), int(m.group(2)), name))
    ranges.sort()
    for (a1, b1, n1), (a2, b2, n2) in zip(ranges, ranges[1:]):
        if a2 < b1:
            raise FolderError(f"{store.seats / n2} overlaps {n1} (races {a2:,} .. {min(b1, b2) - 1:,}); remove the "
                              f"extra part and adopt again")
    game = manifest.get("game", games.DEFAULT)
    game = game if game in games.names() else games.DEFAULT
    mod = games.game(game).load()
    patches = [Patch(**p) for p in manifest.get("patches", [])]
    bundle = mod.load_bundle(data or manifest.get("data_source") or None, patches)
    if bundle.data_hash != manifest.get("data_hash"):
        raise FolderError(f"the data has hash {bundle.data_hash} but {store.manifest_path} says "
                          f"{manifest.get('data_hash')}; pass --data with the data directory the folder was played on")
    design = design_from_manifest(manifest)
    for a, b, name in ranges:
        df = store.read_part(store.seats / name)
        store.read_part(store.visits / name, ["race"])
        if "race" not in df or sorted(set(df.race)) != list(range(a, b)):
            raise FolderError(f"{store.seats / name} does not hold exactly races {a:,} .. {b - 1:,}; remove it and "
                              f"adopt again (its races are played on resume)")
        mine = df[df.race == a].reset_index(drop=True)
        again = frame(play_chunk(game, bundle, design, int(manifest["seed"]), a, a + 1)[0])
        if list(mine.columns) != list(again.columns) or not np.array_equal(
                mine.to_numpy(np.int64), again.to_numpy(np.int64)):
            raise FolderError(f"{store.seats / name}: race {a:,} played again from {store.manifest_path.name} (seed "
                              f"{manifest['seed']}) gives other rows: the part is foreign or altered; remove it and "
                              f"adopt again (its races are played on resume)")
    return len(ranges)


__all__ = ["adopt", "stores_of"]
