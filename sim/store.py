"""The chunk store: where the races of a run (or of one cell and variant of a study) are kept.

A store is a manifest and two Parquet datasets of parts, one part per chunk of races:

    <seats>/part-<first race>-<end>.parquet     one row per race and racer (the seat record)
    <visits>/part-<first race>-<end>.parquet    one row per racer and range visit

A part is written to a temporary name and renamed, visits first, so a chunk is finished exactly
when its seats part exists; an interrupted run leaves finished chunks and nothing half-written.
Resuming plays only the races no finished part covers, whatever chunk size wrote the parts before,
so a run resumed with other --jobs or --chunk ends with the same table. Structured records keep
their dtypes in Parquet; the labels of id columns travel in the manifest (`names`).

The store knows nothing of games: records arrive as structured numpy arrays.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

_PART = re.compile(r"^part-(\d+)-(\d+)\.parquet$")


def frame(records: np.ndarray) -> pd.DataFrame:
    """A structured array as a frame, one column per field, dtypes kept."""
    return pd.DataFrame({name: records[name] for name in records.dtype.names})


def part_name(start: int, stop: int) -> str:
    return f"part-{start:012d}-{stop:012d}.parquet"


class ChunkStore:
    """One run's store. `seats` and `visits`: the folders of the two datasets; `manifest`: the
    path of the manifest (JSON)."""

    def __init__(self, seats: str | Path, visits: str | Path, manifest: str | Path):
        self.seats = Path(seats)
        self.visits = Path(visits)
        self.manifest_path = Path(manifest)

    @classmethod
    def of_run(cls, out: str | Path) -> "ChunkStore":
        """The store of a run's output folder: out/manifest.json, out/results/, out/visits/."""
        out = Path(out)
        return cls(out / "results", out / "visits", out / "manifest.json")

    # --- the manifest -------------------------------------------------------------------------

    def open(self, manifest: dict, identity: tuple[str, ...], normalise=None) -> None:
        """Create the folders and write `manifest`. If a manifest is there already, every key of
        `identity` must agree (through JSON, so tuples equal lists; `normalise(key, value)`, when
        given, first drops what does not change results), else ValueError naming the first key
        that differs: the folder holds another run."""
        manifest = json.loads(json.dumps(manifest))
        if self.manifest_path.exists():
            try:
                old = json.loads(self.manifest_path.read_text())
            except ValueError:
                raise ValueError(f"{self.manifest_path} is not readable JSON; remove the folder to start "
                                 f"afresh") from None
            norm = normalise or (lambda key, value: value)
            for key in identity:
                if norm(key, old.get(key)) != norm(key, manifest.get(key)):
                    raise ValueError(f"{self.manifest_path.parent} holds another run ({key} differs: "
                                     f"{_short(old.get(key))} there, {_short(manifest.get(key))} now); "
                                     f"choose another folder or remove it")
        self.seats.mkdir(parents=True, exist_ok=True)
        self.visits.mkdir(parents=True, exist_ok=True)
        self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
        self.manifest_path.write_text(json.dumps(manifest, indent=2))

    def manifest(self) -> dict:
        return json.loads(self.manifest_path.read_text())

    def note(self, **fields) -> None:
        """Add fields to the manifest that do not change what it identifies (a sized race count)."""
        m = self.manifest()
        m.update(fields)
        self.manifest_path.write_text(json.dumps(m, indent=2))

    # --- parts --------------------------------------------------------------------------------

    def finished(self) -> list[tuple[int, int, Path]]:
        """The finished chunks (first race, end, seats part), in race order."""
        out = []
        for path in self.seats.glob("part-*.parquet"):
            m = _PART.match(path.name)
            if m:
                out.append((int(m.group(1)), int(m.group(2)), path))
        return sorted(out)

    def missing(self, races: int, chunk: int) -> list[tuple[int, int]]:
        """Chunks of at most `chunk` races covering every race of 0 .. races-1 that no finished
        part covers."""
        covered = np.zeros(races, bool)
        for a, b, _ in self.finished():
            covered[a:min(b, races)] = True
        out = []
        edges = np.diff(np.concatenate([[0], (~covered).astype(np.int8), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
            out.extend((s, min(s + chunk, int(b))) for s in range(int(a), int(b), chunk))
        return out

    def write(self, start: int, stop: int, seats: np.ndarray, visits: np.ndarray) -> pd.DataFrame:
        """Write one finished chunk (visits first, then seats: the seats part marks it done);
        returns the seats as a frame."""
        seats_frame = frame(seats)
        _atomic_parquet(frame(visits), self.visits / part_name(start, stop))
        _atomic_parquet(seats_frame, self.seats / part_name(start, stop))
        return seats_frame

    @staticmethod
    def read_part(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
        """One finished part; ValueError with what to do if it cannot be read."""
        try:
            return pd.read_parquet(path, columns=columns)
        except Exception as exc:          # pyarrow's errors for a damaged or truncated file vary
            raise ValueError(f"{path} cannot be read ({type(exc).__name__}): delete it and run the same "
                             f"command again, which plays its races anew") from None

    def read(self, table: str = "seats", columns: list[str] | None = None) -> pd.DataFrame:
        """Every finished part of `table` ("seats" or "visits"), in race order (ids only)."""
        folder = self.seats if table == "seats" else self.visits
        files = [folder / path.name for _, _, path in self.finished()]
        parts = [self.read_part(f, columns) for f in files if f.exists()]
        if not parts:
            raise ValueError(f"{folder} holds no finished chunk")
        return pd.concat(parts, ignore_index=True)


def _atomic_parquet(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def add_names(df: pd.DataFrame, names: dict[str, list[str]]) -> pd.DataFrame:
    """Add <key>_name (categorical) beside each id column `key` of `names` that the frame has."""
    for key, labels in names.items():
        if key in df.columns and f"{key}_name" not in df.columns:
            values = pd.Categorical.from_codes(df[key].to_numpy(), list(labels))
            df.insert(df.columns.get_loc(key) + 1, f"{key}_name", values)
    return df


__all__ = ["ChunkStore", "frame", "part_name", "add_names"]
