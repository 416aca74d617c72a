"""Reading TOML data files and collecting every problem in them, for any game.

A problem names the file, the entry (which card, biathlete, segment ...), the field and what was
expected, so a designer can fix a data set in one pass. Loading never stops at the first problem:
readers record what is wrong and return a stand-in, and the loader raises one `DataError` with all
problems at the end.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the data: where it is and what was expected."""

    file: str
    entry: str
    field: str
    expected: str

    def __str__(self) -> str:
        parts = [self.file, self.entry, self.field]
        return ": ".join(p for p in parts if p) + ": " + self.expected


class DataError(Exception):
    """Raised once a data set has been read through, carrying every problem found."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


_MISSING = object()


@dataclass(frozen=True)
class Patch:
    """A change to one value of a data file, applied as the file is read (data variants).

    file: path relative to the data directory ("game.toml", "biathletes/olsson.toml").
    path: dotted keys; `key[Name]` picks the entry of an array of tables whose `name` is Name
    (any case): "gear.green.wax.green", "card[Long Glide].top.flat". The last key may be new.
    origin: where the patch was written, for problems ("study.toml: variant 'x': set 2").
    """

    file: str
    path: str
    value: Any
    origin: str = ""


_SEGMENT = re.compile(r"^([^\[\]]+)(?:\[([^\]]+)\])?$")


def _edit_list(cur: list, new: list) -> None:
    """Make `cur` equal `new` in place: element by element when the length stays (a document that
    keeps comments, tomlkit, keeps those beside the elements: a track's squares), else by the fewest
    insertions and removals (difflib's opcodes, applied from the end), so that a multi-line array
    stays one element a line and comments stay beside the unchanged elements (a stamina column made
    longer). A plain list ends up the same."""
    import difflib

    if len(cur) == len(new):
        for j, (a, b) in enumerate(zip(list(cur), new)):
            if a != b:
                cur[j] = b
        return

    def key(x):             # a tomlkit item compares as its plain value
        x = x.unwrap() if hasattr(x, "unwrap") else x
        return repr(x) if isinstance(x, (list, dict)) else (type(x).__name__, x)

    ops = difflib.SequenceMatcher(None, [key(x) for x in cur], [key(x) for x in new], autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in reversed(ops):
        if tag == "equal":
            continue
        common = min(i2 - i1, j2 - j1)
        for k in range(common):
            cur[i1 + k] = new[j1 + k]
        for _ in range(i2 - i1 - common):
            cur.pop(i1 + common)
        for k in range(j2 - j1 - common):
            cur.insert(i1 + common + k, new[j1 + common + k])


def apply_patch(doc: dict, patch: Patch) -> str | None:
    """Set patch.value in doc (a plain parse, or a tomlkit one whose comments stay); None, or what
    was expected when the path does not fit the file."""
    parts = patch.path.split(".")
    node: Any = doc
    for i, part in enumerate(parts):
        m = _SEGMENT.match(part.strip())
        if not m or not isinstance(node, dict):
            return f"path {patch.path!r}: cannot follow {part!r} (expected key or key[Name])"
        key, pick = m.group(1), m.group(2)
        last = i == len(parts) - 1
        if pick is None and last:
            cur = node.get(key)
            if isinstance(cur, list) and isinstance(patch.value, list):
                _edit_list(cur, patch.value)
            else:
                node[key] = patch.value
            return None
        if key not in node:
            return f"path {patch.path!r}: {key!r} is not in the file"
        node = node[key]
        if pick is not None:
            if not isinstance(node, list):
                return f"path {patch.path!r}: {key!r} is not an array of tables"
            found = [t for t in node if isinstance(t, dict) and str(t.get("name", "")).lower() == pick.lower()]
            if not found:
                names = ", ".join(str(t.get("name")) for t in node if isinstance(t, dict))
                return f"path {patch.path!r}: no {key} named {pick!r} (known: {names})"
            if last:
                return f"path {patch.path!r}: ends at a whole table; name a field inside it"
            node = found[0]
    return None


#: the start of a problem that says a file could not be read at all
_UNREADABLE = ("cannot be read", "must be UTF-8 text", "is not valid TOML")


class Problems:
    """Collects problems while a data set is read; applies patches (data variants) on reading."""

    def __init__(self, root: Path, patches: Iterable[Patch] = ()):
        self.root = root
        self.items: list[Problem] = []
        self.patches = list(patches)
        self.applied: set[int] = set()
        # each patch's file as read_toml names files, once (a balance candidate carries a hundred
        # patches and its data set twenty files: comparing Paths built each time cost more than parsing)
        self._patch_files = [Path(p.file).as_posix() for p in self.patches]

    def add(self, file: str, entry: str, field: str, expected: str) -> None:
        self.items.append(Problem(file, entry, field, expected))

    def raise_if_any(self) -> None:
        """DataError with every problem; when a file could not be read (a TOML syntax error), only
        those: what the rest of the data is checked against is then missing, and the problems that
        follow from it would bury the one line to fix."""
        unread = [p for p in self.items if p.expected.startswith(_UNREADABLE)]
        if unread:
            raise DataError(unread)
        if self.items:
            raise DataError(self.items)

    def read_toml(self, path: Path) -> dict | None:
        """Parse one TOML file; a syntax error becomes a problem naming the line."""
        name = self.rel(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.add(name, "", "", f"cannot be read ({exc.strerror or exc})")
            return None
        except UnicodeDecodeError:
            self.add(name, "", "", "must be UTF-8 text")
            return None
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
            where = f"line {m.group(1)}" if m else ""
            msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
            self.add(name, where, "", f"is not valid TOML: {msg}")
            return None
        posix = Path(name).as_posix()
        for i, patch in enumerate(self.patches):
            if self._patch_files[i] == posix:
                self.applied.add(i)
                error = apply_patch(doc, patch)
                if error:
                    self.add(patch.origin or name, "", "", f"{patch.file}: {error}")
        return doc

    def check_patches_applied(self) -> None:
        """A patch naming a file the data set never read is a problem (a typo in its file)."""
        for i, patch in enumerate(self.patches):
            if i not in self.applied:
                self.add(patch.origin or patch.file, "", "file",
                         f"{patch.file!r} is not a file of the data set (e.g. game.toml, cards.toml, "
                         f"biathletes/olsson.toml, venues/port_rock.toml)")

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


class Table:
    """Typed access to one TOML table; remembers which keys were read to flag unknown ones.

    Every getter returns a usable stand-in (the default, or a zero of the right type) after
    recording a problem, so reading goes on and every problem is reported at once.
    """

    def __init__(self, problems: Problems, file: str, entry: str, data: Any, prefix: str = ""):
        self.p = problems
        self.file = file
        self.entry = entry
        self.prefix = prefix
        self.used: set[str] = set()
        if not isinstance(data, dict):
            self.p.add(file, entry, prefix.rstrip("."), f"must be a table, got {_kind(data)}")
            data = {}
        self.data = data

    def field(self, key: str) -> str:
        return self.prefix + key

    def problem(self, key: str, expected: str) -> None:
        self.p.add(self.file, self.entry, self.field(key), expected)

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        """The raw value; a default of None (or none given) makes the key required."""
        self.used.add(key)
        if key not in self.data:
            if default is _MISSING or default is None:
                self.problem(key, "is missing")
                return None
            return default
        return self.data[key]

    def int(self, key: str, default: Any = _MISSING, lo: int | None = None, hi: int | None = None,
            why: str = "") -> int:
        """A whole number within [lo, hi]; `why` (e.g. "the engine has 2 face-up slots") is told
        alongside the range when the number is outside it."""
        v = self.raw(key, default)
        if v is None:
            return lo if lo is not None else 0
        if isinstance(v, bool) or not isinstance(v, int):
            self.problem(key, f"must be a whole number{_range(lo, hi)}, got {_show(v)}")
            return lo if lo is not None else 0
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            because = f" ({why})" if why else ""
            self.problem(key, f"must be a whole number{_range(lo, hi)}{because}, got {v}")
            return min(max(v, lo if lo is not None else v), hi if hi is not None else v)
        return v

    def number(self, key: str, default: Any = _MISSING, lo: float | None = None,
               hi: float | None = None) -> float:
        """A decimal or whole number within [lo, hi]."""
        v = self.raw(key, default)
        if v is None:
            return lo if lo is not None else 0.0
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.problem(key, f"must be a number{_range(lo, hi)}, got {_show(v)}")
            return lo if lo is not None else 0.0
        if isinstance(v, float) and not math.isfinite(v):
            self.problem(key, f"must be a finite number{_range(lo, hi)}, got {v}")
            return lo if lo is not None else 0.0
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.problem(key, f"must be a number{_range(lo, hi)}, got {v}")
            return float(min(max(v, lo if lo is not None else v), hi if hi is not None else v))
        return float(v)

    def bool(self, key: str, default: Any = _MISSING) -> bool:
        v = self.raw(key, default)
        if v is None:
            return False
        if not isinstance(v, bool):
            self.problem(key, f"must be true or false, got {_show(v)}")
            return False
        return v

    def str(self, key: str, default: Any = _MISSING) -> str:
        v = self.raw(key, default)
        if v is None:
            return ""
        if not isinstance(v, str):
            self.problem(key, f"must be a string, got {_show(v)}")
            return ""
        return v

    def name(self, key: str = "name") -> str:
        v = self.str(key)
        if key in self.data and isinstance(self.data[key], str) and not v.strip():
            self.problem(key, "must not be empty")
        return v.strip()

    def choice(self, key: str, choices: Iterable[str], default: Any = _MISSING, what: str = "one of") -> str:
        choices = list(choices)
        v = self.raw(key, default)
        if v is None:
            return choices[0]
        if not isinstance(v, str) or v not in choices:
            self.problem(key, f"must be {what} {', '.join(choices)}; got {_show(v)}")
            return choices[0]
        return v

    def list(self, key: str, default: Any = _MISSING) -> list:
        v = self.raw(key, default)
        if v is None:
            return []
        if not isinstance(v, list):
            self.problem(key, f"must be a list, got {_show(v)}")
            return []
        return v

    def table(self, key: str, default: Any = _MISSING) -> "Table":
        v = self.raw(key, default)
        return Table(self.p, self.file, self.entry, {} if v is None else v, self.field(key) + ".")

    def tables(self, key: str, default: Any = _MISSING) -> list[dict]:
        """An array of tables ([[key]] in TOML)."""
        v = self.raw(key, default)
        if v is None:
            return []
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            self.problem(key, f"must be an array of tables ([[{key}]]), got {_show(v)}")
            return []
        return v

    def done(self, hint: Iterable[str] = ()) -> None:
        """Report every key that no getter asked for: a typo or an unsupported field."""
        known = sorted(self.used | set(hint))
        for key in self.data:
            if key not in self.used:
                close = _closest(key, known)
                extra = f" (did you mean '{close}'?)" if close else f" (known: {', '.join(known)})"
                self.problem(key, "is not a known field" + extra)


def index_of(names: Sequence[str], name: str, what: str) -> int:
    """The id of `name` among `names`, whatever its case; KeyError naming the known ones."""
    low = [n.lower() for n in names]
    if name.lower() not in low:
        raise KeyError(f"no {what} named {name!r}; known: {', '.join(names)}")
    return low.index(name.lower())


def data_hash(data, format_version: int, *, game: str = "", file_lists: tuple[str, ...] = (),
              later: dict[str, dict[str, Any]] | None = None) -> str:
    """A hash of a game's loaded data (a dataclass): equal for equal data, whatever the files'
    comments, layout or folder. SHA-256 of the canonical JSON (keys sorted) of the format version
    and the data with its `source` folder left out, and the `file` of each entry of the lists named
    in `file_lists`; the first 16 hex digits.

    Run and study ledgers hold this hash in a results folder's identity, so a game's recipe must
    not change, or every folder played before would be refused as played on other data. That is why
    the games call it with different arguments: Blast and Mania have always hashed without their
    name (`game` empty); Ski Tour names itself and leaves out each nation's file name (one file per
    nation, its name no part of the data). A new game should name itself.

    `later`: fields added to a table of the data after folders were played ({table: {field:
    default}}): each is left out while it holds its default, so data that does not use it keeps the
    hash it always had (and plays the same races); set otherwise, it is hashed."""
    doc = asdict(data) | {"source": ""}
    for table, fields in (later or {}).items():
        for key, default in fields.items():
            if doc[table].get(key) == default:
                del doc[table][key]
    for key in file_lists:
        for entry in doc[key]:
            entry["file"] = ""
    head = {"format": format_version} | ({"game": game} if game else {})
    canonical = json.dumps(head | {"data": doc}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _closest(key: str, known: list[str]) -> str | None:
    import difflib

    m = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
    return m[0] if m else None


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f" from {lo} to {hi}"
    if lo is not None:
        return f" of at least {lo}"
    if hi is not None:
        return f" of at most {hi}"
    return ""


def _kind(v: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a decimal number"}.get(type(v), type(v).__name__)


def _show(v: Any) -> str:
    if isinstance(v, (dict, list)):
        return _kind(v)
    return repr(v)
