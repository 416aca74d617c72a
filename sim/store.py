"""The chunk store: where the races of a run (or of one cell and variant of a study) are kept.

A store is a manifest, a ledger and two Parquet datasets of parts, one part per chunk of races:

    <seats>/part-<first race>-<end>.parquet     one row per race and racer (the seat record)
    <visits>/part-<first race>-<end>.parquet    one row per racer and range visit
    ledger                                      every finished part: its race range, the rows and
                                                bytes of its two files, their SHA-256 checksums
                                                and the identity it was played under

A chunk is written as two temporary files; the ledger (rewritten atomically: a temporary file
renamed) then lists it, and only then are the two files renamed to their names. A chunk is
finished exactly when the ledger lists it; a run killed between the ledger and the renames
finishes the renames when it is opened again (the checksums say the files are the ones listed),
and a run killed before the ledger leaves temporary files that are removed. So an interrupted
run leaves finished chunks and nothing half-written, and the ledger never lists a part that is
not there unless someone removed it.

Opening a store (resume) and reading one for a report verify the ledger: every part it lists is
there with its checksum, no part is there that it does not list, no two parts cover the same race,
and the ledger was written under the manifest's identity. Anything else is refused with one line
naming the part and what to do (`repair=True` moves the parts that fail to <root>/damaged/ and
forgets them, so their races are played again). A store written before ledgers were kept (parts,
no ledger) is refused until `adopt` has checked it (sim.adopt).

Resuming plays only the races no finished part covers, whatever chunk size wrote the parts before,
so a run resumed with other --jobs or --chunk ends with the same table. Structured records keep
their dtypes in Parquet; the labels of id columns travel in the manifest (`names`).

The store knows nothing of games: records arrive as structured numpy arrays.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

_PART = re.compile(r"^part-(\d+)-(\d+)\.parquet$")
LEDGER_FORMAT = 1
#: a manifest's record layouts: a folder's parts and the parts added to it must agree on them
COLUMN_KEYS = ("seat_columns", "visit_columns")
#: the key of a part's Parquet metadata that holds the identity it was played under
META_KEY = b"biathlon_sim_identity"


class FolderError(ValueError):
    """A results folder that cannot be used as it is: one line naming the file and what to do."""


def frame(records: np.ndarray) -> pd.DataFrame:
    """A structured array as a frame, one column per field, dtypes kept."""
    return pd.DataFrame({name: records[name] for name in records.dtype.names})


def part_name(start: int, stop: int) -> str:
    return f"part-{start:012d}-{stop:012d}.parquet"


def identity_hash(identity: dict) -> str:
    """A short fingerprint of an identity (canonical JSON)."""
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def ledger_identity(manifest: dict, keys: tuple[str, ...], normalise=None) -> dict:
    """The identity a store's parts are played under: the manifest's `keys` (each through
    `normalise(key, value)` when given) and, in a study, the cell and variant."""
    manifest = json.loads(json.dumps(manifest))
    norm = normalise or (lambda key, value: value)
    ident = {key: norm(key, manifest.get(key)) for key in keys}
    for key in ("cell", "variant"):
        if key in manifest:
            ident[key] = manifest[key]
    return ident


def checksum(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def read_json(path: Path, what: str, remedy: str) -> dict:
    """A JSON object from `path`; FolderError (one line: the file, where it breaks, `remedy`) if it
    cannot be read or is not an object."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FolderError(f"{path} is not readable: the {what} is damaged (line {exc.lineno}, column "
                          f"{exc.colno}); {remedy}") from None
    except UnicodeDecodeError:
        raise FolderError(f"{path} is not readable: the {what} is not text; {remedy}") from None
    if not isinstance(doc, dict):
        raise FolderError(f"{path} is not readable: the {what} holds no JSON object; {remedy}")
    return doc


class ChunkStore:
    """One run's store. `seats` and `visits`: the folders of the two datasets; `manifest`: the
    path of the manifest (JSON); `ledger`: the path of the ledger (default: beside the manifest,
    ledger.json or _ledger.json as the manifest's name starts); `root`: the run's or study's
    folder (where damaged parts go)."""

    def __init__(self, seats: str | Path, visits: str | Path, manifest: str | Path,
                 ledger: str | Path | None = None, root: str | Path | None = None):
        self.seats = Path(seats)
        self.visits = Path(visits)
        self.manifest_path = Path(manifest)
        prefix = "_" if self.manifest_path.name.startswith("_") else ""
        self.ledger_path = Path(ledger) if ledger else self.manifest_path.with_name(f"{prefix}ledger.json")
        self.root = Path(root) if root else self.manifest_path.parent
        self._ledger: dict | None = None

    @classmethod
    def of_run(cls, out: str | Path) -> "ChunkStore":
        """The store of a run's output folder: out/manifest.json, out/ledger.json, out/results/,
        out/visits/."""
        out = Path(out)
        return cls(out / "results", out / "visits", out / "manifest.json", out / "ledger.json", out)

    # --- the manifest -------------------------------------------------------------------------

    def open(self, manifest: dict, identity: tuple[str, ...], normalise=None, repair: bool = False,
             log=None) -> None:
        """Create the folders and write `manifest` and the ledger. If a manifest is there already,
        every key of `identity` must agree (through JSON, so tuples equal lists;
        `normalise(key, value)`, when given, first drops what does not change results), else
        FolderError naming the first key that differs: the folder holds another run. The parts
        already there must be the ledger's (verify); `repair`: set aside those that are not, and
        rewrite a damaged or missing manifest when the ledger vouches for the parts."""
        manifest = json.loads(json.dumps(manifest))
        norm = normalise or (lambda key, value: value)
        ident = ledger_identity(manifest, identity, normalise)
        old = None
        if self.manifest_path.exists():
            try:
                old = read_json(self.manifest_path, "manifest",
                                "run the command that wrote the folder again with --repair to rewrite it from the ledger, or remove the "
                                "folder" if self.ledger_path.exists() else "remove the folder and play again")
            except FolderError:
                if not (repair and self.ledger_path.exists()):
                    raise
        elif self._has_parts() or self.ledger_path.exists():
            if not (repair and self.ledger_path.exists()):
                raise FolderError(f"{self.manifest_path} is missing but {self.root} holds finished parts: the "
                                  f"folder is damaged; run the command that wrote it again with --repair to rewrite it from the "
                                  f"ledger, or remove the folder")
        if old is not None:
            for key in identity:
                if norm(key, old.get(key)) != norm(key, manifest.get(key)):
                    raise FolderError(f"{self.manifest_path.parent} holds another run ({key} differs: "
                                      f"{_short(old.get(key))} there, {_short(manifest.get(key))} now); "
                                      f"choose another folder or remove it")
            for key in COLUMN_KEYS:       # parts of two layouts would not read back as one table
                if key in old and key in manifest and old[key] != manifest[key]:
                    raise FolderError(f"{self.manifest_path.parent} holds results with other {key.replace('_', ' ')} "
                                      f"(written by another version of biathlon-sim): its parts cannot be extended; "
                                      f"choose another folder or remove it")
        if self.ledger_path.exists():
            ledger = self._read_ledger()
            if ledger.get("identity_hash") != identity_hash(ident):
                key = next((k for k in ident if ledger.get("identity", {}).get(k) != ident[k]), "identity")
                raise FolderError(f"{self.ledger_path} was written under another identity ({key} differs: "
                                  f"{_short(ledger.get('identity', {}).get(key))} there, {_short(ident.get(key))} "
                                  f"now): its parts are foreign to this run; choose another folder or remove it")
        elif self._has_parts():
            raise FolderError(self.unledgered_message())
        else:
            ledger = {"format": LEDGER_FORMAT, "identity": ident, "identity_hash": identity_hash(ident), "parts": []}
        self._ledger = ledger
        self.seats.mkdir(parents=True, exist_ok=True)
        self.visits.mkdir(parents=True, exist_ok=True)
        self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
        self.verify(repair=repair, log=log, fix=True)
        _atomic_text(self.manifest_path, json.dumps(manifest, indent=2))
        self._save_ledger()

    def manifest(self) -> dict:
        if not self.manifest_path.exists():
            raise FolderError(f"{self.manifest_path} is missing: the folder is damaged or not a results folder; "
                              f"run the command that wrote it again with --repair, or remove the folder")
        return read_json(self.manifest_path, "manifest",
                         "run the command that wrote it again with --repair, or remove the folder")

    def note(self, **fields) -> None:
        """Add fields to the manifest that do not change what it identifies (a sized race count)."""
        m = self.manifest()
        m.update(fields)
        _atomic_text(self.manifest_path, json.dumps(m, indent=2))

    # --- the ledger ---------------------------------------------------------------------------

    def unledgered_message(self) -> str:
        return (f"{self.root} has finished parts but no ledger ({self.ledger_path.name}): it was written before "
                f"biathlon-sim kept one, so its parts cannot be checked; run `biathlon-sim adopt {self.root}` "
                f"to check every part (its first race replayed) and write the ledger, or play it again into "
                f"a new folder")

    def _read_ledger(self) -> dict:
        ledger = read_json(self.ledger_path, "ledger",
                           "remove the folder and play again (the parts cannot be checked without it)")
        parts = ledger.get("parts")
        if ledger.get("format") != LEDGER_FORMAT or not isinstance(parts, list) or not all(
                isinstance(p, dict) and isinstance(p.get("first"), int) and isinstance(p.get("end"), int)
                and isinstance(p.get("seats"), dict) and isinstance(p.get("visits"), dict) for p in parts):
            raise FolderError(f"{self.ledger_path} is not a ledger of format {LEDGER_FORMAT} (format, parts with "
                              f"first, end, seats and visits expected); remove the folder and play again")
        return ledger

    def ledger(self) -> dict:
        """The ledger (read once); FolderError if missing or damaged."""
        if self._ledger is None:
            if not self.ledger_path.exists():
                if self._has_parts():
                    raise FolderError(self.unledgered_message())
                return {"format": LEDGER_FORMAT, "identity": {}, "identity_hash": "", "parts": []}
            self._ledger = self._read_ledger()
        return self._ledger

    def _save_ledger(self) -> None:
        self._ledger["parts"].sort(key=lambda p: p["first"])
        _atomic_text(self.ledger_path, json.dumps(self._ledger, indent=1))

    def _has_parts(self) -> bool:
        return any(d.is_dir() and any(d.glob("part-*.parquet")) for d in (self.seats, self.visits))

    def verify(self, deep: bool = True, repair: bool = False, log=None, fix: bool = False) -> list[tuple[int, int]]:
        """Check the parts against the ledger; the race ranges of the finished parts. FolderError
        (one line naming the part and what to do) for a part the ledger lists that is missing or
        altered (deep: its checksum; else its size) or played under another identity, a part it
        does not list, two parts covering the same race. `repair`: move every such part to
        <root>/damaged/ and forget it instead (its races are played again). `fix` (the writer, on
        opening): finish the renames of a chunk listed just before an interruption and remove the
        temporary files of chunks not listed; without it (a reader, perhaps while a run writes)
        a listed chunk still under its temporary name counts as there."""
        ledger = self.ledger()
        problems: list[tuple[str, list[Path], dict | None]] = []      # (why, files, ledger entry)
        listed: set[Path] = set()
        remedy = "run the command that wrote the folder again with --repair to set it aside and play its races again"
        for entry in ledger["parts"]:
            a, b = entry["first"], entry["end"]
            files = {t: self._folder(t) / part_name(a, b) for t in ("seats", "visits")}
            listed.update(files.values())
            for table, path in files.items():
                rec = entry[table]
                if not path.exists():
                    tmp = path.with_suffix(".tmp")
                    if tmp.exists() and tmp.stat().st_size == rec.get("bytes") and (
                            not (deep or fix) or checksum(tmp) == rec.get("sha256")):
                        if fix:
                            os.replace(tmp, path)      # a chunk listed just before an interruption: finish it
                        continue
                    problems.append((f"part {path} is missing (the ledger lists it: races {a:,} .. {b - 1:,})",
                                     list(files.values()), entry))
                    break
                why = self._altered(path, rec, ledger, deep)
                if why:
                    problems.append((f"part {path} {why}", list(files.values()), entry))
                    break
        for table in ("seats", "visits"):
            folder = self._folder(table)
            for stale in folder.glob("part-*.tmp") if fix and folder.is_dir() else ():
                stale.unlink(missing_ok=True)     # a chunk interrupted before the ledger listed it
            for path in sorted(folder.glob("part-*.parquet")) if folder.is_dir() else ():
                if path in listed:
                    continue
                m = _PART.match(path.name)
                over = ""
                if m:
                    a, b = int(m.group(1)), int(m.group(2))
                    hit = next((e for e in ledger["parts"] if e["first"] < b and a < e["end"]), None)
                    if hit is not None:
                        over = f", overlapping races {max(a, hit['first']):,} .. {min(b, hit['end']) - 1:,} of " \
                               f"{part_name(hit['first'], hit['end'])}"
                problems.append((f"part {path} is not in the ledger (an extra part{over})", [path], None))
        ranges = sorted((e["first"], e["end"]) for e in ledger["parts"])
        for (a1, b1), (a2, b2) in zip(ranges, ranges[1:]):
            if a2 < b1:
                raise FolderError(f"the ledger {self.ledger_path} lists overlapping parts {part_name(a1, b1)} and "
                                  f"{part_name(a2, b2)}: it was edited by hand; remove the folder and play again")
        if problems and not repair:
            why, _, entry = problems[0]
            more = f" ({len(problems) - 1} more problem(s) in {self.root})" if len(problems) > 1 else ""
            todo = remedy if entry is not None else \
                "remove it (or run the command that wrote the folder again with --repair, which moves it to damaged/)"
            raise FolderError(f"{why}{more}; {todo}")
        if problems:
            damaged = self.root / "damaged"
            for why, files, entry in problems:
                for path in files:
                    if path.exists():
                        rel = path.relative_to(self.root) if path.is_relative_to(self.root) else Path(path.name)
                        target = damaged / rel
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.move(str(path), str(target))
                if entry is not None and entry in ledger["parts"]:
                    ledger["parts"].remove(entry)
                if log is not None:
                    log(f"repair: {why}: set aside in {damaged}, its races are played again")
            self._save_ledger()
        return [(e["first"], e["end"]) for e in sorted(ledger["parts"], key=lambda e: e["first"])]

    def _folder(self, table: str) -> Path:
        return self.seats if table == "seats" else self.visits

    def _altered(self, path: Path, rec: dict, ledger: dict, deep: bool) -> str:
        """'' if the file is the one the ledger lists, else why not."""
        if path.stat().st_size == rec.get("bytes") and (not deep or checksum(path) == rec.get("sha256")):
            return ""
        try:
            import pyarrow.parquet as pq

            meta = (pq.read_schema(path).metadata or {}).get(META_KEY)
        except Exception:                 # pyarrow's errors for a damaged or truncated file vary
            return "is damaged (it cannot be read as Parquet)"
        if meta is not None:
            try:
                theirs = json.loads(meta)
            except ValueError:
                theirs = {}
            ours = ledger.get("identity", {})
            key = next((k for k in ours if theirs.get(k) != ours[k]), None)
            if key is not None:
                return (f"was played under another identity ({key}: {_short(theirs.get(key))} there, "
                        f"{_short(ours[key])} in this folder): a foreign part")
        return "was altered after it was written (its checksum is not the ledger's)"

    # --- parts --------------------------------------------------------------------------------

    def finished(self) -> list[tuple[int, int, Path]]:
        """The finished chunks (first race, end, seats part), in race order: those the ledger lists."""
        return [(e["first"], e["end"], self.seats / part_name(e["first"], e["end"]))
                for e in sorted(self.ledger()["parts"], key=lambda e: e["first"])]

    def rows(self, table: str = "seats") -> int:
        """Rows of `table` in the finished parts, as the ledger records them."""
        return sum(int(e[table].get("rows", 0)) for e in self.ledger()["parts"])

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
        """Write one finished chunk: both files under temporary names, the ledger entry, then the
        renames; returns the seats as a frame."""
        ledger = self.ledger()
        seats_frame = frame(seats)
        name = part_name(start, stop)
        entry = {"first": int(start), "end": int(stop), "identity": ledger.get("identity_hash", "")}
        tables = {"visits": frame(visits), "seats": seats_frame}
        tmps = [(self._folder(t) / name, (self._folder(t) / name).with_suffix(".tmp")) for t in tables]
        try:
            for (table, df), (final, tmp) in zip(tables.items(), tmps):
                _write_parquet(df, tmp, ledger.get("identity", {}))
                entry[table] = {"rows": int(len(df)), "bytes": tmp.stat().st_size, "sha256": checksum(tmp)}
            ledger["parts"] = [e for e in ledger["parts"] if (e["first"], e["end"]) != (start, stop)] + [entry]
            self._save_ledger()
            for final, tmp in tmps:
                os.replace(tmp, final)
        except BaseException:
            self._tidy_interrupted(start, stop, tmps)
            raise
        return seats_frame

    def _tidy_interrupted(self, start: int, stop: int, tmps) -> None:
        """A write stopped part-way (Ctrl-C, a full disk): leave the chunk either finished or not
        there, as the ledger on disk says, and no temporary file behind (what opening the folder
        for writing would do next time, done now)."""
        self._ledger = None
        try:
            listed = any((e["first"], e["end"]) == (start, stop) for e in self.ledger()["parts"])
        except FolderError:
            listed = False
        for final, tmp in tmps:
            if listed and tmp.exists():
                os.replace(tmp, final)
            else:
                tmp.unlink(missing_ok=True)

    def adopt(self, identity: dict) -> None:
        """Write the ledger of a store from before ledgers, listing every part there as it is
        (sim.adopt checks them first)."""
        import pyarrow.parquet as pq

        entries = []
        for path in sorted(self.seats.glob("part-*.parquet")):
            m = _PART.match(path.name)
            entry = {"first": int(m.group(1)), "end": int(m.group(2)), "identity": identity_hash(identity)}
            for table in ("seats", "visits"):
                file = self._folder(table) / path.name
                entry[table] = {"rows": pq.read_metadata(file).num_rows, "bytes": file.stat().st_size,
                                "sha256": checksum(file)}
            entries.append(entry)
        self._ledger = {"format": LEDGER_FORMAT, "identity": identity, "identity_hash": identity_hash(identity),
                        "parts": entries}
        self._save_ledger()

    @staticmethod
    def read_part(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
        """One finished part (still under its temporary name while a run renames it); FolderError
        with what to do if it cannot be read."""
        if not path.exists() and path.with_suffix(".tmp").exists():
            path = path.with_suffix(".tmp")
        try:
            return pd.read_parquet(path, columns=columns)
        except Exception as exc:          # pyarrow's errors for a damaged or truncated file vary
            raise FolderError(f"{path} cannot be read ({type(exc).__name__}): run the command that wrote the folder again with --repair, "
                              f"which sets it aside and plays its races anew") from None

    def read(self, table: str = "seats", columns: list[str] | None = None) -> pd.DataFrame:
        """Every finished part of `table` ("seats" or "visits"), in race order (ids only)."""
        folder = self._folder(table)
        self.verify(deep=False)
        parts = [self.read_part(folder / part_name(a, b), columns) for a, b, _ in self.finished()]
        if not parts:
            raise FolderError(f"{folder} holds no finished chunk")
        return pd.concat(parts, ignore_index=True)


def _write_parquet(df: pd.DataFrame, path: Path, identity: dict) -> None:
    """`df` as Parquet with the identity it was played under in the file's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[META_KEY] = json.dumps(identity, sort_keys=True).encode()
    with _ctrl_c_held():
        pq.write_table(table.replace_schema_metadata(meta), path)


@contextmanager
def _ctrl_c_held():
    """Ctrl-C (SIGINT) held back while the main thread writes a part, and delivered once it is
    written. pyarrow's writer closes in a `__del__`, where Python prints a KeyboardInterrupt and
    swallows it: a Ctrl-C landing there was lost and the run played on to its end
    (tests/test_interrupt.py caught it once)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
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


__all__ = ["ChunkStore", "FolderError", "frame", "part_name", "add_names", "identity_hash", "ledger_identity",
           "checksum"]
