"""Auto-balance (issue 17): search a game's data for the smallest changes that make it fair.

A balance file (TOML, docs/balance.md) names, for any registered game, the designs to play
(scenarios, racer counts, personas, options), the targets (win rates per value of a seat axis or
per seat within ±N points of the fair share; mean race length within a range) and the knobs a
designer allows to move (a path in a data file, bounds and a step or a list of choices, a cost per
step, optionally a group of paths moved together).

The search is greedy coordinate descent over knob steps, on common random numbers:

* an *evaluation* plays a candidate data set (the base data plus the candidate's patches) on every
  design with the same seed per design and the same race indices as every other candidate, and
  keeps, per balanced block of races, the sums and counts of every statistic the targets read;
* its *score* is sum over targets of weight x (excess beyond the band / the band's half-width)^2,
  plus lambda x the change cost (sum of cost x |steps| over the knobs moved);
* each round tries every knob one step up and one step down from the incumbent (every other
  choice for a choice knob); a candidate is played in stages (a quarter, a half, all of the
  races), and after each early stage it is dropped if it is significantly worse than the incumbent
  on the same races: a one-sided paired z-test of score(candidate) - score(incumbent) > 0, with
  its standard error from the delta method over balanced blocks, at alpha / (early looks). So a
  candidate at least as good as the incumbent is dropped early with probability at most alpha
  (asymptotically);
* the best fully played candidate replaces the incumbent when its score is lower, then every other
  improving step of the round is tried on top of the new incumbent and kept if it still improves;
  with confirm, each of these steps is taken only when it also beats the incumbent on the round's
  confirmation races, which did not choose it (Search._confirmed);
* the model step: the round's neighbours, read as a linear model of the statistics, propose moves
  of several knobs at once (Search.model_proposals); each proposal is played like a candidate and
  taken when it beats the best single step;
  the search ends when no neighbour is better, or the budget (races, minutes, rounds) is spent.

Every evaluation is logged (DIR/log.jsonl, DIR/evals/<key>.npz); a rerun replays the search from
the log and plays only what it lacks, so an interrupted search resumes where it stopped. At the
end the changed data folder, the list of changes, the sensitivities (change of every target
statistic per knob step, from paired races) and a before/after table of every target on fresh
seeds never used in the search are written to DIR.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import re
import shutil
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import games
from .study import cell_seed
from .validation import DataError, Patch, Problems, Table

FORMAT = 1
STAGES = (0.25, 0.5, 1.0)
#: candidates played side by side (Search._try_batch): enough to keep 16 workers busy on a quarter
#: stage of 20 designs; a constant, so that where a budget stops a search does not depend on --jobs
BATCH = 32
METRICS = ("win_rate", "rounds")
_SEGMENT = re.compile(r"^([^\[\]]+)(?:\[([^\]]+)\])?$")


# --- the balance file -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Member:
    """One path a knob moves: file, dotted path, and optionally an element of the value found
    there (index: of a list; key: a field of that element, a table without a name such as a coach
    zone; token: of a whitespace-separated string, or of a list of such strings counted across its
    strings)."""

    file: str
    path: str
    index: int | None = None
    token: int | None = None
    key: str | None = None

    def label(self) -> str:
        where = f"{self.file}:{self.path}"
        if self.index is not None:
            where += f"[{self.index}]"
        if self.key is not None:
            where += f".{self.key}"
        if self.token is not None:
            where += f" token {self.token}"
        return where


@dataclass(frozen=True)
class Knob:
    """A value a designer allows to move. Numeric: base + k x step within [lo, hi]; choice: one of
    `choices`. `members`: every path moved by it (a group gets the same change: the same number of
    steps on each numeric member, the same choice on each choice member). cost: per step."""

    name: str
    members: tuple[Member, ...]
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple | None = None
    cost: float = 1.0


@dataclass(frozen=True)
class TargetSpec:
    """metric win_rate: every value of `by` (a seat axis or "seat") within ±within_pp points of
    the fair share (1 / racers); metric rounds: the mean race length (rounds) within [lo, hi]."""

    name: str
    metric: str
    by: str = ""
    within_pp: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    weight: float = 1.0
    scenarios: tuple[str, ...] = ()
    personas: tuple[str, ...] = ()


@dataclass(frozen=True)
class DesignSpec:
    label: str
    scenario: str
    racers: int
    persona: str
    design: Any
    seed: int
    check_seed: int


@dataclass
class BalanceFile:
    path: Path
    text: str
    game: str
    title: str
    data: str | None
    seed: int
    check_seed: int
    races: int
    check_races: int
    alpha: float
    cost_weight: float
    budget_races: int
    budget_minutes: float
    max_rounds: int
    designs: list[DesignSpec]
    targets: list[TargetSpec]
    knobs: list[Knob]
    base_docs: dict[str, dict] = field(default_factory=dict)
    start: dict[str, int] = field(default_factory=dict)     # knob -> position the search starts from
    model_steps: bool = True         # propose moves of several knobs from the neighbours' effects
    model_reach: int = 2             # ... each at most this many steps from the incumbent
    model_repeats: int = 3           # ... and again on the same effects after one is taken
    fresh_rounds: bool = False       # every round plays new races; a round's moves that lose there are undone
    confirm: bool = False            # a step is taken only when it also wins on races of its own (confirm_z)
    confirm_z: float = 0.0           # ... by more than this many standard errors of the paired difference

    @property
    def data_dir(self) -> Path:
        return Path(self.data) if self.data else games.game(self.game).load().default_data_dir()


TOP_KEYS = ("game", "title", "description", "data", "seed", "check_seed", "races", "check_races", "alpha",
            "cost_weight", "budget_races", "budget_minutes", "max_rounds", "model_steps", "model_reach",
            "model_repeats", "fresh_rounds", "confirm", "confirm_z",
            "designs", "target", "knob", "start", "extends", "drop_knobs", "drop_targets")


def load_balance(path: str | Path) -> BalanceFile:
    """Read and check a balance file; DataError lists every problem (file, entry, field, expected)."""
    path = Path(path)
    problems = Problems(path.parent)
    doc, origin = _read_extended(path, problems, ()) if path.is_file() else (None, {})
    if doc is None or problems.items:
        if not path.is_file():
            problems.add(str(path), "", "", "is not a balance file (see docs/balance.md)")
        problems.raise_if_any()
    file = problems.rel(path)
    t = Table(problems, file, "", doc)
    game = t.str("game", games.DEFAULT)
    if game not in games.names():
        t.problem("game", f"must be one of {', '.join(games.names())}, got {game!r}")
        problems.raise_if_any()
    info = games.game(game)
    mod = info.load()
    title = t.str("title", path.stem)
    t.str("description", "")
    data = t.str("data", "") or None       # (made absolute by _read_extended, from the file that names it)
    seed = t.int("seed", None, 0, 2**63 - 1)
    check_seed = t.int("check_seed", seed + 1 if isinstance(seed, int) else 1, 0, 2**63 - 1)
    if check_seed == seed:
        t.problem("check_seed", "must differ from seed: the check plays races the search never used")
    races = t.int("races", 2400, 1, 10**8)
    check_races = t.int("check_races", 4 * races, 1, 10**9)
    alpha = t.number("alpha", 0.05, 1e-6, 0.5)
    cost_weight = t.number("cost_weight", 0.05, 0.0, 1e6)
    budget_races = t.int("budget_races", 2_000_000, 1, 10**12)
    budget_minutes = t.number("budget_minutes", 60.0, 0.0, 1e6)
    max_rounds = t.int("max_rounds", 20, 1, 10_000)
    model_steps = t.bool("model_steps", True)
    model_reach = t.int("model_reach", 2, 1, 100)
    model_repeats = t.int("model_repeats", 3, 0, 100)
    fresh_rounds = t.bool("fresh_rounds", False)
    confirm = t.bool("confirm", False)
    confirm_z = t.number("confirm_z", 0.0, 0.0, 10.0)

    # designs
    dt = t.table("designs", {})
    try:
        bundle = mod.load_bundle(data)
    except DataError as exc:
        problems.items.extend(exc.problems)
        problems.raise_if_any()
    known = list(mod.scenarios(bundle))
    scen = dt.list("scenarios", []) or known
    for s in scen:
        if s not in known:
            dt.problem("scenarios", f"names no {info.scenario} {s!r}; known: {', '.join(known)}")
    racers = dt.list("racers", [4])
    personas = dt.list("personas", [])
    options = dt.raw("options", {})
    dt.done()
    if personas and not info.players:
        dt.problem("personas", f"{info.title} has no players (every seat is played by the dice): leave personas out")
        personas = []
    if not isinstance(options, dict):
        dt.problem("options", "must be a table of option = value")
        options = {}
    designs: list[DesignSpec] = []
    for s in scen:
        if s not in known:
            continue
        for n in racers:
            if not isinstance(n, int) or isinstance(n, bool):
                dt.problem("racers", f"must be whole numbers, got {n!r}")
                continue
            for persona in personas or [None]:
                kwargs = {"options": options or None}
                if persona is not None:
                    kwargs["players"] = (persona,)
                try:
                    info.check_racers(n)
                    design = mod.make_design(s, n, **kwargs)
                    mod.check_design(bundle, design)
                except (KeyError, ValueError) as exc:
                    dt.problem("personas" if persona else "racers", str(exc.args[0]) if exc.args else str(exc))
                    continue
                who = persona or _persona(mod, design)
                label = f"{s}-{n}-{who}"
                designs.append(DesignSpec(label, s, n, who, design, cell_seed(seed or 0, label),
                                          cell_seed(check_seed, "check:" + label)))

    # targets
    axes = list(info.axes)
    targets: list[TargetSpec] = []
    raw_targets = t.tables("target", None)
    for i, raw in enumerate(raw_targets):
        tt = Table(problems, origin["target"][i], f"target {i + 1}", raw)
        name = tt.str("name", f"target {i + 1}")
        tt.entry = f"target {name!r}"
        metric = tt.choice("metric", METRICS)
        weight = tt.number("weight", 1.0, 0.0, 1e6)
        tscen = tuple(tt.list("scenarios", []))
        tpers = tuple(tt.list("personas", []))
        for p in tpers:
            if p not in {d.persona for d in designs}:
                tt.problem("personas", f"names no persona {p!r} of the designs; they are "
                                       f"{', '.join(sorted({d.persona for d in designs})) or 'none'}")
        for s in tscen:
            if s not in known:
                tt.problem("scenarios", f"names no {info.scenario} {s!r}; known: {', '.join(known)}")
        if metric == "win_rate":
            by = tt.choice("by", [*axes, "seat"], axes[0], "one of the seat axes")
            within = tt.number("within_pp", None, 0.01, 100.0)
            targets.append(TargetSpec(name, metric, by, within, weight=weight, scenarios=tscen, personas=tpers))
        else:
            rng = tt.list("range", None)
            if len(rng) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in rng) \
                    or (len(rng) == 2 and rng[0] >= rng[1]):
                tt.problem("range", f"must be [low, high] with low < high, got {rng!r}")
                rng = [0, 1]
            targets.append(TargetSpec(name, metric, "", 0.0, float(rng[0]), float(rng[1]), weight, tscen, tpers))
        tt.done()

    # knobs
    data_dir = Path(data) if data else mod.default_data_dir()
    docs: dict[str, dict] = {}
    knobs: list[Knob] = []
    for i, raw in enumerate(t.tables("knob", None)):
        kfile = origin["knob"][i]           # the file the entry is written in (extends: maybe another)
        kt = Table(problems, kfile, f"knob {i + 1}", raw)
        if isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"].strip():
            kt.entry = f"knob {raw['name'].strip()!r}"
        members = [_member(kt, problems, kfile, data_dir, docs, raw, "")]
        for j, extra in enumerate(kt.tables("also", [])):
            mt = Table(problems, kfile, f"{kt.entry}: also {j + 1}", extra)
            members.append(_member(mt, problems, kfile, data_dir, docs, extra, ""))
            mt.done()
        name = kt.str("name", "") or (members[0].label() if members[0] else f"knob {i + 1}")
        kt.entry = f"knob {name!r}"
        cost = kt.number("cost", 1.0, 0.0, 1e6)
        choices = kt.raw("choices") if kt.has("choices") else None
        if choices is not None:
            if not isinstance(choices, list) or len(choices) < 2:
                kt.problem("choices", f"must be a list of at least two values, got {choices!r}")
                choices = []
            for k in ("min", "max", "step"):
                if kt.has(k):
                    kt.problem(k, "a knob has either choices or min, max and step, not both")
            knob = Knob(name, tuple(m for m in members if m), choices=tuple(choices), cost=cost)
        else:
            lo = kt.number("min", None)
            hi = kt.number("max", None)
            step = kt.number("step", None)
            if step is not None and step <= 0:
                kt.problem("step", f"must be above 0, got {step}")
            if lo is not None and hi is not None and lo > hi:
                kt.problem("max", f"must be at least min ({lo:g}), got {hi:g}")
            knob = Knob(name, tuple(m for m in members if m), lo, hi, step, cost=cost)
        kt.done(hint=("file", "path", "index", "token", "key"))
        if any(m is None for m in members):
            continue
        for m in knob.members:
            base = _element(docs[m.file], m)
            if isinstance(base, _Missing):
                kt.problem("path", f"{m.label()}: {base.why}")
            elif knob.choices:
                if base not in knob.choices:
                    kt.problem("choices", f"must contain the value at {m.label()} ({base!r})")
            elif isinstance(base, bool) or not isinstance(base, (int, float)):
                kt.problem("path", f"{m.label()} holds {base!r}, not a number; give `choices` to move it")
            elif knob.lo is not None and knob.hi is not None and not knob.lo <= base <= knob.hi:
                kt.problem("min", f"the value at {m.label()} ({base}) lies outside [{knob.lo:g}, {knob.hi:g}]")
        if any(k.name == knob.name for k in knobs):
            kt.problem("name", "is used by two knobs; give each its own name")
        knobs.append(knob)
    if not raw_targets:
        t.problem("target", "a balance file needs at least one [[target]]")
    if not knobs and not problems.items:
        t.problem("knob", "a balance file needs at least one [[knob]]")
    raw_start = t.raw("start", {})
    t.done(hint=TOP_KEYS)
    if not designs and not problems.items:
        t.problem("designs", "no design to play")
    problems.raise_if_any()
    bf = BalanceFile(path, path.read_text(encoding="utf-8"), game, title, data, seed, check_seed, races,
                     check_races, alpha, cost_weight, budget_races, budget_minutes, max_rounds, designs,
                     targets, knobs, docs)
    bf.start = _start_positions(bf, raw_start, Table(problems, file, "start", raw_start))
    bf.model_steps, bf.model_reach, bf.model_repeats = model_steps, model_reach, model_repeats
    bf.fresh_rounds = fresh_rounds
    bf.confirm, bf.confirm_z = confirm, confirm_z
    problems.raise_if_any()
    return bf


def _read_extended(path: Path, problems: Problems, chain: tuple[Path, ...]) -> tuple[dict | None, dict]:
    """A balance file's table with what it extends merged in (docs/balance.md, "Extending a file"),
    and, for every [[knob]] and [[target]] entry of the result, the file it is written in.

    `extends = "other.toml"` (relative to this file) reads the other file first; then every key of
    this file replaces the other's, but for the entries: a [[knob]] or [[target]] named like one of
    the other file's (or named by its `replaces`) replaces it where it stands, any other is added
    after them, and `drop_knobs` / `drop_targets` (lists of names) remove the other's. `data` is
    relative to the file naming it."""
    doc = problems.read_toml(path)
    if doc is None:
        return None, {}
    file = problems.rel(path)
    if isinstance(doc.get("data"), str) and doc["data"] and not Path(doc["data"]).is_absolute():
        doc["data"] = str((path.parent / doc["data"]).resolve())
    origin = {key: [file] * len(doc[key]) if isinstance(doc.get(key), list) else []
              for key in ("knob", "target")}
    parent = doc.pop("extends", None)
    drops = {"knob": doc.pop("drop_knobs", None), "target": doc.pop("drop_targets", None)}
    if parent is None:
        for key, names in drops.items():
            if names is not None:
                problems.add(file, "", f"drop_{key}s", "needs `extends`: it removes entries of the file this one extends")
        return doc, origin
    if not isinstance(parent, str) or not parent.strip():
        problems.add(file, "", "extends", f"must be the path of another balance file, got {parent!r}")
        return doc, origin
    ppath = (path.parent / parent).resolve()
    if ppath in chain or ppath == path.resolve():
        problems.add(file, "", "extends", f"{parent!r} extends, directly or not, this file: a loop")
        return None, {}
    if not ppath.is_file():
        problems.add(file, "", "extends", f"{parent!r} is not a file (a path relative to {file})")
        return None, {}
    base, borigin = _read_extended(ppath, problems, chain + (path.resolve(),))
    if base is None:
        return None, {}
    merged = {**base, **{k: v for k, v in doc.items() if k not in ("knob", "target")}}
    for key in ("knob", "target"):
        entries, where = list(base.get(key, [])), list(borigin[key])
        if not isinstance(base.get(key, []), list):
            entries, where = [], []
        names = [e.get("name") if isinstance(e, dict) else None for e in entries]
        dropped = drops[key]
        if dropped is not None:
            if not isinstance(dropped, list) or not all(isinstance(n, str) for n in dropped):
                problems.add(file, "", f"drop_{key}s", f"must be a list of {key} names, got {dropped!r}")
                dropped = []
            for n in dropped:
                if n not in names:
                    problems.add(file, "", f"drop_{key}s", f"names no [[{key}]] of {parent!r}: {n!r}")
            keep = [i for i, n in enumerate(names) if n not in dropped]
            entries, where, names = [entries[i] for i in keep], [where[i] for i in keep], [names[i] for i in keep]
        own = doc.get(key, [])
        if not isinstance(own, list):
            merged[key] = own               # not a list of tables: load_balance says so
            continue
        replaced: set[str] = set()
        for e in own:
            n = e.get("name") if isinstance(e, dict) else None
            if isinstance(e, dict) and "replaces" in e:     # takes the place of another name's entry
                e = dict(e)
                n = e.pop("replaces")
                if not isinstance(n, str) or n not in names or n in replaced:
                    problems.add(file, f"{key} {e.get('name')!r}", "replaces",
                                 f"names no [[{key}]] of {parent!r} (or one already replaced): {n!r}")
                    n = None
            if isinstance(n, str) and n in names and n not in replaced:
                i = names.index(n)
                entries[i], where[i] = e, file
                names[i] = e.get("name")
                replaced |= {n, names[i]}
            else:
                entries.append(e)
                where.append(file)
                names.append(e.get("name") if isinstance(e, dict) else None)
        if entries or key in base or key in doc:
            merged[key] = entries
        origin[key] = where
    return merged, origin


def _start_positions(bf: BalanceFile, raw: Any, t: Table) -> dict[str, int]:
    """[start]: knob = value of its first member, where the search starts instead of the base data
    (an earlier search's result, say); the base data stays the 'before' of every table."""
    if not isinstance(raw, dict):
        t.problem("", "must be a table of knob = value")
        return {}
    by_name = {k.name: k for k in bf.knobs}
    out: dict[str, int] = {}
    for name, value in raw.items():
        knob = by_name.get(name)
        if knob is None:
            t.problem(name, f"names no knob; knobs: {', '.join(by_name)}")
            continue
        if knob.choices:
            if value not in knob.choices:
                t.problem(name, f"must be one of {list(knob.choices)}, got {value!r}")
                continue
            out[name] = knob.choices.index(value)
            continue
        base = _element(bf.base_docs[knob.members[0].file], knob.members[0])
        k = (value - base) / knob.step if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        if k is None or abs(k - round(k)) > 1e-9 or not allowed(bf, knob, int(round(k))):
            t.problem(name, f"must be a value the knob reaches (base {base!r}, step {knob.step:g}, within "
                            f"[{knob.lo:g}, {knob.hi:g}] for every member), got {value!r}")
            continue
        out[name] = int(round(k))
    return out


def _persona(mod, design) -> str:
    players = getattr(design, "players", ()) or ("",)
    p = players[0]
    return p if isinstance(p, str) else getattr(p, "name", str(p))


class _Missing:
    def __init__(self, why: str):
        self.why = why


def _member(t: Table, problems: Problems, file: str, data_dir: Path, docs: dict, raw: dict, _) -> Member | None:
    f = t.str("file")
    p = t.str("path")
    index = t.int("index", 0, 0, 10_000) if t.has("index") else -1
    token = t.int("token", 0, 0, 100_000) if t.has("token") else -1
    key = t.str("key") if t.has("key") else None
    if key is not None and index < 0:
        t.problem("key", "needs an index: the element of the list whose field the knob moves")
    if not f or not p:
        return None
    if f not in docs:
        fp = data_dir / f
        if not fp.is_file():
            t.problem("file", f"{f!r} is not a file of the data set in {data_dir}")
            return None
        try:
            docs[f] = tomllib.loads(fp.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            t.problem("file", f"{f!r} cannot be read: {exc}")
            return None
    return Member(f, p, None if index < 0 else index, None if token < 0 else token, key)


# --- reading and writing values at a path -----------------------------------------------------------

def get_path(doc: dict, path: str) -> Any:
    """The value at a patch path (sim.validation.Patch syntax), or _Missing saying why."""
    node: Any = doc
    for part in path.split("."):
        m = _SEGMENT.match(part.strip())
        if not m or not isinstance(node, dict):
            return _Missing(f"cannot follow {part!r}")
        key, pick = m.group(1), m.group(2)
        if key not in node:
            return _Missing(f"{key!r} is not in the file")
        node = node[key]
        if pick is not None:
            if not isinstance(node, list):
                return _Missing(f"{key!r} is not an array of tables")
            found = [x for x in node if isinstance(x, dict) and str(x.get("name", "")).lower() == pick.lower()]
            if not found:
                return _Missing(f"no {key} named {pick!r}")
            node = found[0]
    return node


def _tokens(value) -> list[str] | None:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return [tok for s in value for tok in s.split()]
    return None


def _element(doc: dict, m: Member) -> Any:
    v = get_path(doc, m.path)
    if isinstance(v, _Missing):
        return v
    if m.index is not None:
        if not isinstance(v, list) or m.index >= len(v):
            return _Missing(f"has no element {m.index} (holds {v!r})")
        v = v[m.index]
        if m.key is not None:
            if not isinstance(v, dict) or m.key not in v:
                return _Missing(f"element {m.index} has no field {m.key!r}")
            v = v[m.key]
    if m.token is not None:
        toks = _tokens(v)
        if toks is None or m.token >= len(toks):
            return _Missing(f"has no token {m.token}")
        v = toks[m.token]
    return v


def _set_element(value: Any, m: Member, new: Any) -> Any:
    """`value` (the whole value at m.path) with m's element set to `new`."""
    if m.index is not None:
        value = list(value)
        inner = value[m.index][m.key] if m.key is not None else value[m.index]
        inner = _set_token(inner, m.token, new) if m.token is not None else new
        if m.key is not None:
            value[m.index] = {**value[m.index], m.key: inner}
        else:
            value[m.index] = inner
        return value
    if m.token is not None:
        return _set_token(value, m.token, new)
    return new


def _set_token(value: Any, token: int, new: str) -> Any:
    if isinstance(value, str):
        toks = value.split()
        toks[token] = str(new)
        return " ".join(toks)
    out, seen = [], 0
    for s in value:
        toks = s.split()
        if seen <= token < seen + len(toks):
            toks[token - seen] = str(new)
            s = " ".join(toks)
        seen += len(toks)
        out.append(s)
    return out


# --- knob positions and patches -----------------------------------------------------------------------

def _num(x: float, like: Any, step: float) -> Any:
    if isinstance(like, int) and float(step).is_integer() and float(x).is_integer():
        return int(round(x))
    return round(float(x), 9)


def knob_value(bf: BalanceFile, knob: Knob, member: Member, k: int) -> Any:
    """The value of `member` with `knob` moved k steps (choice knobs: to choices[k])."""
    base = _element(bf.base_docs[member.file], member)
    if knob.choices:
        return knob.choices[k]
    return _num(base + k * knob.step, base, knob.step)


def base_position(bf: BalanceFile, knob: Knob) -> int:
    if knob.choices:
        return knob.choices.index(_element(bf.base_docs[knob.members[0].file], knob.members[0]))
    return 0


def allowed(bf: BalanceFile, knob: Knob, k: int) -> bool:
    if knob.choices:
        return 0 <= k < len(knob.choices)
    for m in knob.members:
        v = _element(bf.base_docs[m.file], m) + k * knob.step
        if (knob.lo is not None and v < knob.lo - 1e-9) or (knob.hi is not None and v > knob.hi + 1e-9):
            return False
    return True


def change_cost(bf: BalanceFile, pos: dict[str, int]) -> float:
    cost = 0.0
    for knob in bf.knobs:
        k = pos.get(knob.name, base_position(bf, knob))
        b = base_position(bf, knob)
        cost += knob.cost * (float(k != b) if knob.choices else abs(k - b))
    return cost


def patches_for(bf: BalanceFile, pos: dict[str, int]) -> list[Patch]:
    """One patch per (file, path) that a moved knob touches, every element edit merged into it."""
    whole: dict[tuple[str, str], Any] = {}
    for knob in bf.knobs:
        k = pos.get(knob.name, base_position(bf, knob))
        if k == base_position(bf, knob):
            continue
        for m in knob.members:
            key = (m.file, m.path)
            if key not in whole:
                whole[key] = copy.deepcopy(get_path(bf.base_docs[m.file], m.path))
            whole[key] = _set_element(whole[key], m, knob_value(bf, knob, m, k))
    return [Patch(f, p, v, f"balance: {f}:{p}") for (f, p), v in sorted(whole.items())]


# --- statistics ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stat:
    """One mean a target reads, in one design: the win rate of one value of an axis (or seat), or
    the mean race length in rounds."""

    design: str
    metric: str
    by: str
    value: int
    label: str


def design_stats(bf: BalanceFile, mod, bundle, d: DesignSpec) -> list[Stat]:
    names = mod.names(bundle, d.design)
    out: list[Stat] = []
    bys = sorted({t.by for t in bf.targets if t.metric == "win_rate" and _applies(t, d)})
    for by in bys:
        if by == "seat":
            values = [f"seat {i}" for i in range(mod.seats_per_race(d.design))]
        else:
            values = list(names[by])
        out += [Stat(d.label, "win_rate", by, i, v) for i, v in enumerate(values)]
    if any(t.metric == "rounds" and _applies(t, d) for t in bf.targets):
        out.append(Stat(d.label, "rounds", "", 0, "mean rounds"))
    return out


def _stat_label(s: Stat) -> str:
    """'biathlete Olsson', 'colour red', 'seat 0', 'mean rounds'."""
    return f"{s.by} {s.label}" if s.metric == "win_rate" and s.by != "seat" else s.label


def _applies(t: TargetSpec, d: DesignSpec) -> bool:
    return (not t.scenarios or d.scenario in t.scenarios) and (not t.personas or d.persona in t.personas)


def block_sums(seats: np.ndarray, stats: list[Stat], first_block: int, n_blocks: int, block: int) -> np.ndarray:
    """[2, n_blocks, len(stats)]: per balanced block, the sum and the count of each statistic."""
    out = np.zeros((2, n_blocks, len(stats)), np.float64)
    race = seats["race"].astype(np.int64)
    b = race // block - first_block
    lead = seats["leg"] == 0 if "leg" in seats.dtype.names else np.ones(len(seats), bool)
    by_cols: dict[str, np.ndarray] = {}
    for j, s in enumerate(stats):
        if s.metric == "win_rate":
            col = by_cols.setdefault(s.by, seats[s.by].astype(np.int64))
            sel = lead & (col == s.value)
            out[0, :, j] = np.bincount(b[sel], weights=seats["won"][sel].astype(np.float64), minlength=n_blocks)
            out[1, :, j] = np.bincount(b[sel], minlength=n_blocks)
        else:
            # race length: the most rounds any racer of the race has
            races, inv = np.unique(race, return_inverse=True)
            length = np.zeros(len(races))
            np.maximum.at(length, inv, seats["rounds"].astype(np.float64))
            rb = races // block - first_block
            out[0, :, j] = np.bincount(rb, weights=length, minlength=n_blocks)
            out[1, :, j] = np.bincount(rb, minlength=n_blocks)
    return out


def _load(game: str, data, patches: list[Patch]):
    """A task: a candidate's data read, patched and compiled; (bundle, "") or (None, the first
    problems) when the patched data is invalid."""
    try:
        return games.game(game).load().load_bundle(data, patches), ""
    except DataError as exc:
        return None, "; ".join(str(p) for p in exc.problems[:3])


def _play(game: str, bundle, design, seed: int, a: int, b: int, stats: list[Stat], block: int):
    """A task: races a .. b-1 of a design, reduced to block sums (what a worker sends back)."""
    mod = games.game(game).load()
    seats, _ = mod.play_chunk(bundle, design, seed, a, b)
    return block_sums(seats, stats, a // block, (b - a) // block, block)


# --- the targets' score ------------------------------------------------------------------------------

@dataclass
class Scoring:
    """Per design: its statistics, bands (lo, hi), scales (half-widths) and weights, aligned."""

    stats: dict[str, list[Stat]]
    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    scale: dict[str, np.ndarray]
    weight: dict[str, np.ndarray]
    target: dict[str, list[str]]


def make_scoring(bf: BalanceFile, stats: dict[str, list[Stat]]) -> Scoring:
    lo, hi, sc, w, tn = {}, {}, {}, {}, {}
    designs = {d.label: d for d in bf.designs}
    for label, ss in stats.items():
        d = designs[label]
        n = len(ss)
        lo[label], hi[label] = np.full(n, -np.inf), np.full(n, np.inf)
        sc[label], w[label] = np.ones(n), np.zeros(n)
        tn[label] = [""] * n
        for t in bf.targets:
            if not _applies(t, d):
                continue
            for j, s in enumerate(ss):
                if t.metric != s.metric or (t.metric == "win_rate" and t.by != s.by):
                    continue
                if t.metric == "win_rate":
                    fair = 1.0 / d.racers
                    a, b, h = fair - t.within_pp / 100, fair + t.within_pp / 100, t.within_pp / 100
                else:
                    a, b, h = t.lo, t.hi, (t.hi - t.lo) / 2
                # two targets on one statistic: the narrower band holds
                lo[label][j], hi[label][j] = max(lo[label][j], a), min(hi[label][j], b)
                sc[label][j] = h if w[label][j] == 0 else min(sc[label][j], h)
                w[label][j] = max(w[label][j], t.weight)
                tn[label][j] = t.name if not tn[label][j] else tn[label][j] + ", " + t.name
    return Scoring(stats, lo, hi, sc, w, tn)


def score_of(scoring: Scoring, sums: dict[str, np.ndarray], blocks: int | None = None):
    """(score, gradient per design, means per design) over the first `blocks` blocks of each
    design (all played ones when None)."""
    total, grads, means = 0.0, {}, {}
    for label, arr in sums.items():
        a = arr[:, :blocks] if blocks is not None else arr
        s, c = a[0].sum(0), a[1].sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(c > 0, s / np.maximum(c, 1), np.nan)
        lo, hi, h, w = scoring.lo[label], scoring.hi[label], scoring.scale[label], scoring.weight[label]
        below, above = np.maximum(lo - m, 0), np.maximum(m - hi, 0)
        excess = np.nan_to_num(below + above) / h
        total += float((w * excess ** 2).sum())
        grads[label] = np.nan_to_num(w * 2 * excess / h * np.sign(above - below))
        means[label] = m
    return total, grads, means


def influence(sums: np.ndarray, means: np.ndarray, grad: np.ndarray, blocks: int) -> np.ndarray:
    """Per block, the delta-method influence of the block on the score: sum over statistics of
    gradient x (block sum - mean x block count) / total count."""
    a = sums[:, :blocks]
    n = np.maximum(a[1].sum(0), 1)
    resid = (a[0] - np.nan_to_num(means) * a[1]) / n
    return resid @ grad


def residuals(sums: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """(means, per-block residual contributions [blocks, stats]) of every statistic."""
    a = sums[:, :blocks]
    n = np.maximum(a[1].sum(0), 1)
    m = a[0].sum(0) / n
    return m, (a[0] - m * a[1]) / n


def paired_difference(scoring: Scoring, cand: dict[str, np.ndarray], inc: dict[str, np.ndarray],
                      cost: float = 0.0) -> tuple[float, float]:
    """(score(cand) - score(inc) + cost, its standard error) for block sums of the same races: the
    delta method, each block's influence on the score paired across the two, clustered by block."""
    tc, gc, mc = score_of(scoring, cand)
    ti, gi, mi = score_of(scoring, inc)
    var = 0.0
    for label in cand:
        n = cand[label].shape[1]
        d = influence(cand[label], mc[label], gc[label], n) - influence(inc[label], mi[label], gi[label], n)
        var += float((d ** 2).sum())
    return (tc - ti) + cost, math.sqrt(var)


# --- evaluations --------------------------------------------------------------------------------------

@dataclass
class Evaluation:
    key: str
    pos: dict[str, int]
    sums: dict[str, np.ndarray]          # design -> [2, blocks, stats]
    blocks: dict[str, int]               # blocks played per design
    invalid: str = ""
    bundle_hash: str = ""

    def complete(self, need: dict[str, int]) -> bool:
        return self.invalid != "" or all(self.blocks.get(k, 0) >= v for k, v in need.items())


class Search:
    """The balance search on one balance file and one output folder (module docstring)."""

    def __init__(self, bf: BalanceFile, out: str | Path, *, n_jobs: int = 1, budget_races: int | None = None,
                 budget_minutes: float | None = None, races: int | None = None, log: Callable[[str], None] = print,
                 scheduler: str | None = None):
        self.bf = bf
        self.out = Path(out)
        self.n_jobs = n_jobs
        self.scheduler = scheduler          # a dask.distributed scheduler's address: play there
        self.log = log
        self.budget_races = bf.budget_races if budget_races is None else budget_races
        self.budget_minutes = bf.budget_minutes if budget_minutes is None else budget_minutes
        self.info = games.game(bf.game)
        self.mod = self.info.load()
        self.base_bundle = self.mod.load_bundle(bf.data)
        self.block = {d.label: self.mod.block(self.base_bundle, d.design) for d in bf.designs}
        races = bf.races if races is None else races
        self.n_blocks = {k: max(1, -(-races // b)) for k, b in self.block.items()}
        self.stats = {d.label: design_stats(bf, self.mod, self.base_bundle, d) for d in bf.designs}
        self.scoring = make_scoring(bf, self.stats)
        self.evals: dict[str, Evaluation] = {}
        self.engine = engine_hash(bf.game)
        self.races_used = 0                 # races of every evaluation the search asked for (the budget)
        self.races_played = 0               # of which played in this call (not read from the log)
        self.started = time.perf_counter()
        self.stopped = ""
        self.steps: list[dict] = []
        self.tried = {"played in full": 0, "dropped early": 0, "invalid data": 0}
        self.sens_rows: list[dict] = []
        self.epoch = 0                      # the round whose races are played (fresh_rounds), 0: the file's seeds
        self.confirming = 0                 # confirm: the round whose confirmation races are played, 0: none
        self.confirmation: dict = {}        # ... and the last step's paired difference there
        self.full_se: list[float] = []      # se of every fully played candidate's paired difference
        if bf.confirm:
            self.tried.update({"confirmed": 0, "not confirmed": 0})
        (self.out / "evals").mkdir(parents=True, exist_ok=True)
        self._read_log()

    # -- identity and the log
    def seed_of(self, d: DesignSpec) -> int:
        """The seed of design d's races now: its own, or with fresh_rounds from round 2 on, one of the
        round's (every candidate of a round plays the same races, each round new ones); with confirm,
        while a step is confirmed, the round's confirmation races (_confirmed)."""
        if self.confirming:
            return cell_seed(d.seed, f"confirm {self.confirming}")
        return d.seed if not self.epoch else cell_seed(d.seed, f"round {self.epoch + 1}")

    def key(self, pos: dict[str, int]) -> str:
        moved = {k: v for k, v in sorted(pos.items())
                 if v != base_position(self.bf, next(x for x in self.bf.knobs if x.name == k))}
        patches = [(p.file, p.path, p.value) for p in patches_for(self.bf, moved)]
        ident = {"format": FORMAT, "game": self.bf.game, "engine": self.engine, "base": self.base_bundle.data_hash,
                 "patches": patches,
                 "designs": [(d.label, self.mod.design_dict(d.design), self.seed_of(d)) for d in self.bf.designs],
                 "block": self.block,
                 "stats": {k: [(s.metric, s.by, s.value) for s in v] for k, v in self.stats.items()}}
        return hashlib.blake2b(json.dumps(ident, sort_keys=True, default=str).encode(), digest_size=10).hexdigest()

    def _read_log(self) -> None:
        path = self.out / "log.jsonl"
        self.logged: dict[str, dict] = {}
        if not path.exists():
            return
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue                      # a line cut by an interruption
            if entry.get("event") == "evaluation":
                self.logged[entry["key"]] = entry

    def _write_log(self, entry: dict) -> None:
        path = self.out / "log.jsonl"
        cut = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
        with open(path, "a") as f:
            # a line cut by an interruption stays a line of its own (it is skipped on reading)
            f.write(("\n" if cut else "") + json.dumps(entry, default=_json_default) + "\n")

    def _load_eval(self, key: str, pos: dict[str, int]) -> Evaluation | None:
        entry = self.logged.get(key)
        if entry is None:
            return None
        if entry.get("invalid"):
            return Evaluation(key, pos, {}, {}, entry["invalid"])
        f = self.out / "evals" / f"{key}.npz"
        if not f.exists():
            return None
        z = np.load(f)
        sums, blocks = {}, {}
        for i, d in enumerate(self.bf.designs):
            # another --races than the logged evaluation's: keep its first blocks, room for more
            n = self.n_blocks[d.label]
            arr = np.zeros((2, n, len(self.stats[d.label])))
            have = z[f"d{i}"][:, :n]
            arr[:, :have.shape[1]] = have
            sums[d.label] = arr
            blocks[d.label] = min(int(entry["blocks"][d.label]), n)
        return Evaluation(key, pos, sums, blocks, "", entry.get("data_hash", ""))

    # -- playing
    def evaluate(self, pos: dict[str, int], blocks: dict[str, int]) -> Evaluation:
        """The candidate at `pos`, played (or read from the log) up to `blocks` blocks per design."""
        return self.evaluate_many([(pos, blocks)])[0]

    def evaluate_many(self, wanted: list[tuple[dict[str, int], dict[str, int]]]) -> list[Evaluation]:
        """Every (pos, blocks) of `wanted` played (or read from the log) up to its blocks per design,
        all in one batch of tasks, so that many candidates keep many workers busy (one candidate's
        quarter-evaluation is too little to share among more than a few). A candidate's races do
        not depend on the batch: race i of a design is the same race whatever plays it."""
        evs: list[Evaluation] = []
        todo: dict[str, tuple[Evaluation, dict[str, int]]] = {}
        for pos, blocks in wanted:
            ev = self._evaluation(pos)
            evs.append(ev)
            if ev.invalid:
                continue
            want = {k: min(v, self.n_blocks[k]) for k, v in blocks.items()}
            if ev.key in todo:          # asked twice in one batch: the more races of the two
                want = {k: max(v, todo[ev.key][1].get(k, 0)) for k, v in want.items()}
            if not ev.complete(want):
                todo[ev.key] = (ev, want)
        from .runner import Task, run_tasks

        # each candidate's data read, patched and compiled: on the workers when there are several
        # (15 to 25 ms each, which the main process spent while every worker waited), the same
        # bundles in the same order either way; a lone candidate (a confirmation, a further step)
        # is loaded here, also with a cluster, where sending it out would cost a round trip
        loads = [Task(ev.key, _load, (self.bf.game, self.bf.data, patches_for(self.bf, ev.pos)))
                 for ev, _ in todo.values()]
        if len(loads) > 1:
            loaded = (result for _, result in run_tasks(loads, self.n_jobs, self.scheduler))
        else:
            loaded = (t.fn(*t.args) for t in loads)
        jobs = []
        for (ev, want), (bundle, invalid) in zip(todo.values(), loaded):
            if invalid:
                ev.invalid = invalid
                self._log_eval(ev)
                continue
            ev.bundle_hash = bundle.data_hash
            jobs.append((ev, want, bundle))
        # tasks: one per candidate and design, split when there are fewer than two per worker
        pairs = sum(want[d.label] > ev.blocks[d.label] for ev, want, _ in jobs for d in self.bf.designs)
        tasks = []
        for ev, want, bundle in jobs:
            for d in self.bf.designs:
                b0, b1 = ev.blocks[d.label], want[d.label]
                if b1 <= b0:
                    continue
                blk = self.block[d.label]
                for a, e in _splits(b1 - b0, self.n_jobs, pairs):
                    a, e = a + b0, e + b0
                    tasks.append(Task((ev.key, d.label, a, e), _play,
                                      (self.bf.game, bundle, d.design, self.seed_of(d), a * blk, e * blk,
                                       self.stats[d.label], blk),
                                      (e - a) * blk))
        # (every job has a task: a job's evaluation lacks blocks of some design)
        left = {ev.key: 0 for ev, _, _ in jobs}
        for task in tasks:
            left[task.key[0]] += 1
        for task, arr in run_tasks(tasks, self.n_jobs, self.scheduler):
            key, label, a, e = task.key
            ev, want = todo[key]
            ev.sums[label][:, a:e] = arr
            self.races_used += task.races
            self.races_played += task.races
            left[key] -= 1
            if not left[key]:           # logged as soon as played: an interruption loses no finished one
                for lab in want:
                    ev.blocks[lab] = max(ev.blocks[lab], want[lab])
                self._log_eval(ev)
        return evs

    def _evaluation(self, pos: dict[str, int]) -> Evaluation:
        """The evaluation of `pos` so far: in memory, read from the log, or new (nothing played)."""
        key = self.key(pos)
        ev = self.evals.get(key)
        if ev is None:
            ev = self._load_eval(key, pos)
            if ev is not None:      # races a rerun finds in the log count as in the first run
                self.races_used += sum(ev.blocks.get(k, 0) * b for k, b in self.block.items())
        if ev is None:
            ev = Evaluation(key, pos, {d.label: np.zeros((2, self.n_blocks[d.label], len(self.stats[d.label])))
                                       for d in self.bf.designs}, {d.label: 0 for d in self.bf.designs})
        self.evals[key] = ev
        return ev

    def _log_eval(self, ev: Evaluation) -> None:
        if not ev.invalid:
            tmp = self.out / "evals" / f"{ev.key}.tmp.npz"
            np.savez_compressed(tmp, **{f"d{i}": ev.sums[d.label] for i, d in enumerate(self.bf.designs)})
            tmp.replace(self.out / "evals" / f"{ev.key}.npz")
        entry = {"event": "evaluation", "key": ev.key, "knobs": self.values(ev.pos), "steps": ev.pos,
                 "blocks": ev.blocks, "invalid": ev.invalid, "data_hash": ev.bundle_hash}
        if not ev.invalid:
            entry["score"] = self.total(ev)
            entry["cost"] = change_cost(self.bf, ev.pos)
        self.logged[ev.key] = entry
        self._write_log(entry)

    def values(self, pos: dict[str, int]) -> dict[str, Any]:
        return {knob.name: self.value(pos, knob) for knob in self.bf.knobs}

    def value(self, pos: dict[str, int], knob: Knob) -> Any:
        """The value `knob` (its first member) has at `pos`."""
        return knob_value(self.bf, knob, knob.members[0], pos.get(knob.name, base_position(self.bf, knob)))

    # -- scores
    def target_score(self, ev: Evaluation, blocks: dict[str, int] | None = None) -> float:
        sums = {k: v[:, :(blocks or ev.blocks)[k]] for k, v in ev.sums.items()}
        return score_of(self.scoring, sums)[0]

    def total(self, ev: Evaluation, blocks: dict[str, int] | None = None) -> float:
        return self.target_score(ev, blocks) + self.bf.cost_weight * change_cost(self.bf, ev.pos)

    def paired(self, cand: Evaluation, inc: Evaluation, blocks: dict[str, int]) -> tuple[float, float]:
        """(score difference candidate - incumbent, its standard error) on the same first blocks."""
        sc = {k: v[:, :blocks[k]] for k, v in cand.sums.items()}
        si = {k: v[:, :blocks[k]] for k, v in inc.sums.items()}
        cost = self.bf.cost_weight * (change_cost(self.bf, cand.pos) - change_cost(self.bf, inc.pos))
        return paired_difference(self.scoring, sc, si, cost)

    # -- the search
    def out_of_budget(self) -> str:
        if self.races_used >= self.budget_races:
            return f"the race budget ({self.budget_races:,} races) is spent"
        if self.budget_minutes and time.perf_counter() - self.started > 60 * self.budget_minutes:
            return f"the time budget ({self.budget_minutes:g} minutes) is spent"
        return ""

    def neighbours(self, pos: dict[str, int]) -> list[tuple[Knob, int]]:
        out = []
        for knob in self.bf.knobs:
            k = pos.get(knob.name, base_position(self.bf, knob))
            moves = [j for j in range(len(knob.choices)) if j != k] if knob.choices else [k - 1, k + 1]
            out += [(knob, j) for j in moves if allowed(self.bf, knob, j)]
        return out

    def run(self) -> "Outcome":
        """The search (module docstring): rounds of single steps from the incumbent; the best
        improving step is taken, then the other improving steps, each on top of the new incumbent
        and kept only if it still improves (knobs of different entrants barely interact, so one
        round usually takes several steps)."""
        from .stats import z_value

        bf = self.bf
        early = len(STAGES) - 1
        self.z_drop = z_value(1 - 2 * bf.alpha / early) if early else math.inf   # one-sided at alpha / looks
        start = {k.name: base_position(bf, k) for k in bf.knobs}
        first = [(start, self.n_blocks)] + ([({**start, **bf.start}, self.n_blocks)] if bf.start else [])
        inc, *started = self.evaluate_many(first)
        base = inc
        self.log(f"base: score {self.total(inc):.3f} ({self._met_text(inc)})")
        if bf.start:
            inc = started[0]
            self.log(f"start ([start] of the file): score {self.total(inc):.3f} ({self._met_text(inc)})")
        before_round, idle = inc, 0        # idle: rounds in a row that took no step (confirm)
        for rnd in range(bf.max_rounds):
            if (why := self.out_of_budget()):
                self.stopped = why
                break
            if bf.fresh_rounds and rnd:
                inc = self._fresh_races(rnd, inc, before_round)
            before_round = inc
            improving, tried = [], self.neighbours(inc.pos)
            for (knob, j), cand in zip(tried, self._try_many(inc, tried)):
                if cand is not None and self.total(cand) < self.total(inc) - 1e-12:
                    improving.append((self.total(cand), knob.name, knob, j, cand))
            improving.sort(key=lambda x: (x[0], x[1]))
            # the model step: every neighbour's paired effects, added up, propose a move of several
            # knobs at once (what single steps cannot find when each one overshoots)
            model, effect = None, {}
            if bf.model_steps and not self.stopped:
                effect = self.effects(inc, tried)
                model = self._play_proposals(inc, self.model_proposals(inc, tried, effect), "model step")
            best_single = improving[0][0] if improving else self.total(inc) - 1e-12
            if (model is not None and self.total(model) < min(best_single, self.total(inc) - 1e-12)
                    and self._confirmed(rnd, inc, model, "model step")):
                self._step_many(rnd, inc, model)
                # further model steps on the same effects (each one evaluation), while they pay
                around, inc = inc.pos, model
                for _ in range(bf.model_repeats):
                    if self.out_of_budget():
                        break
                    best = self._play_proposals(
                        inc, self.model_proposals(inc, [], self.moved_effects(effect, around, inc.pos)),
                        "model step again")
                    if (best is None or self.total(best) >= self.total(inc) - 1e-12
                            or not self._confirmed(rnd, inc, best, "model step again")):
                        break
                    self._step_many(rnd, inc, best)
                    inc = best
                self.log(f"round {rnd + 1}: score {self.total(inc):.3f} ({self._met_text(inc)})")
                idle = 0
                continue
            if not improving:
                if not self.stopped:
                    self.stopped = "no single step improves the score (a local optimum)"
                break
            # the best improving step, then the others, each on top of the steps taken and kept
            # only if it still improves there (and, with confirm, wins on races of its own)
            new, moved = inc, set()
            for i, (_, _, knob, j, cand) in enumerate(improving):
                if knob.name in moved or (i and self.out_of_budget()):
                    continue
                if new is not inc:
                    cand = self._try(new, knob, j)
                    if cand is None or self.total(cand) >= self.total(new) - 1e-12:
                        continue
                if not self._confirmed(rnd, new, cand, knob.name):
                    continue
                self._step(rnd, knob, new, cand)
                moved.add(knob.name)
                new = cand
            idle = 0 if new is not inc else idle + 1
            inc = new
            self.log(f"round {rnd + 1}: score {self.total(inc):.3f} ({self._met_text(inc)})")
            if self.stopped:
                break
            if idle and (not bf.fresh_rounds or idle > 1):
                # (confirm alone: the same races would propose the same steps again; with fresh
                # rounds one more round on new races gets its chance)
                self.stopped = ("no improving step won on races of its own"
                                + (" in two rounds in a row" if bf.fresh_rounds else "") + " (a local optimum, "
                                "as far as the races can tell)")
                break
        else:
            self.stopped = f"the most rounds ({bf.max_rounds}) are played"
        if self.epoch:          # before and after on the same races: the last round's
            base = self.evaluate(base.pos, self.n_blocks)
        self._write_log({"event": "end", "incumbent": inc.key, "stopped": self.stopped, "races": self.races_used})
        return Outcome(self, base, inc)

    def _fresh_races(self, rnd: int, inc: Evaluation, before: Evaluation) -> Evaluation:
        """fresh_rounds: round rnd + 1 plays new races. The incumbent, and the incumbent the last
        round started from, are played on them; when the older one scores better there, the last
        round's moves were the luck of its races, and they are undone."""
        self.epoch = rnd
        if before.pos == inc.pos:
            new = self.evaluate(inc.pos, self.n_blocks)
            self.log(f"round {rnd + 1} plays new races: incumbent score {self.total(new):.3f}")
            return new
        new, old = self.evaluate_many([(inc.pos, self.n_blocks), (before.pos, self.n_blocks)])
        if self.total(old) < self.total(new):
            va, vb = self.values(inc.pos), self.values(old.pos)
            for name in va:
                if va[name] != vb[name]:
                    self.steps.append({"round": rnd + 1, "knob": name, "from": va[name], "to": vb[name],
                                       "score": self.total(old), "undone": True})
            self.log(f"round {rnd + 1} plays new races: round {rnd}'s moves lose there ({self.total(new):.3f} "
                     f"against {self.total(old):.3f} before them) and are undone")
            return old
        self.log(f"round {rnd + 1} plays new races: round {rnd}'s moves hold ({self.total(new):.3f} against "
                 f"{self.total(old):.3f} before them)")
        return new

    def _confirmed(self, rnd: int, inc: Evaluation, cand: Evaluation, what: str) -> bool:
        """confirm: the step from `inc` to `cand` (chosen as the best of many on the round's races,
        so its gain there is partly their luck) is taken only when `cand` also beats `inc` on races
        of its own, the round's confirmation races (seed cell_seed(design seed, "confirm N")), by
        more than confirm_z standard errors of the paired difference. Both are played in full there
        (the incumbent once a round: it is the last step's candidate). Always True without confirm."""
        if not self.bf.confirm:
            return True
        self.confirming = rnd + 1
        try:
            ci, cc = self.evaluate_many([(inc.pos, self.n_blocks), (cand.pos, self.n_blocks)])
        finally:
            self.confirming = 0
        if cc.invalid or ci.invalid:        # (cannot happen: both were played on the round's races)
            return False
        diff, se = self.paired(cc, ci, self.n_blocks)
        ok = diff < -self.bf.confirm_z * se and diff < 0
        self.confirmation = {"confirm_difference": diff, "confirm_se": se}
        self.tried["confirmed" if ok else "not confirmed"] += 1
        self.log(f"  {what}: {'confirmed' if ok else 'not confirmed'} on races of its own (paired score "
                 f"difference {diff:+.3f}, se {se:.3f})")
        return ok

    def _try(self, inc: Evaluation, knob: Knob, j: int) -> Evaluation | None:
        """The incumbent with `knob` at position j, played stage by stage against the incumbent on
        the same races; None when the data is invalid or the candidate is dropped early."""
        return self._try_many(inc, [(knob, j)])[0]

    def _try_many(self, inc: Evaluation, moves: list[tuple[Knob, int]]) -> list[Evaluation | None]:
        """_try for each (knob, j) of `moves`, played side by side (_try_batch)."""
        cands = []
        for knob, j in moves:
            pos = {**inc.pos, knob.name: j}
            cands.append((pos, f"  {knob.name} -> {self.value(pos, knob)!r}", knob))
        return self._try_batch(inc, cands)

    def _play_proposals(self, inc: Evaluation, proposals: list[dict[str, int]], what: str) -> Evaluation | None:
        """Each proposal played like a candidate against the incumbent; the best that survives, or None."""
        best = None
        cands = [(p, f"  {what} " + self._moves_text(inc.pos, p), None) for p in proposals]
        for cand in self._try_batch(inc, cands):
            if cand is not None and (best is None or self.total(cand) < self.total(best)):
                best = cand
        return best

    def _moves_text(self, a: dict[str, int], b: dict[str, int]) -> str:
        va, vb = self.values(a), self.values(b)
        return ", ".join(f"{k} {va[k]!r} -> {vb[k]!r}" for k in vb if va[k] != vb[k])

    def _try_batch(self, inc: Evaluation, cands: list[tuple[dict[str, int], str, Knob | None]]) -> list[Evaluation | None]:
        """Each candidate (pos, how the log shows it, the knob it steps or None) played stage by
        stage against the incumbent on the same races: a stage of every candidate still in play is
        one batch of tasks (evaluate_many), then each is judged on its own as if played alone.
        Candidates go in groups of BATCH, whatever the number of workers, and the budget is checked
        before each group: where a budget stops the search does not depend on --jobs. Returns, per
        candidate, its evaluation played in full, or None (invalid data, dropped early, or not
        played because the budget is spent)."""
        early = len(STAGES) - 1
        out: list[Evaluation | None] = [None] * len(cands)
        for g0 in range(0, len(cands), BATCH):
            if (why := self.out_of_budget()):
                self.stopped = why
                break
            alive = list(range(g0, min(g0 + BATCH, len(cands))))
            for s, frac in enumerate(STAGES):
                blocks = {k: max(1, int(round(frac * v))) for k, v in self.n_blocks.items()}
                evs = self.evaluate_many([(cands[i][0], blocks) for i in alive])
                still = []
                for i, cand in zip(alive, evs):
                    pos, shown, knob = cands[i]
                    if cand.invalid:
                        self.log(f"{shown}: invalid data ({cand.invalid})")
                        self.tried["invalid data"] += 1
                        continue
                    diff, se = self.paired(cand, inc, blocks)
                    if knob is not None:
                        self._sensitivity(knob, inc, cand, blocks)
                    if s < early and (diff > self.z_drop * se if se > 0 else diff > 0):
                        self.log(f"{shown}: dropped after {frac:.0%} of the races (paired score difference "
                                 f"{diff:+.3f}, se {se:.3f})")
                        self.tried["dropped early"] += 1
                        continue
                    if s == early:
                        self.tried["played in full"] += 1
                        self.full_se.append(se)
                        self.log(f"{shown}: score {self.total(cand):.3f} (incumbent {self.total(inc):.3f}; "
                                 f"paired difference {diff:+.3f}, se {se:.3f})")
                        out[i] = cand
                    still.append(i)
                alive = still
        return out

    def effects(self, inc: Evaluation, tried: list[tuple[Knob, int]]) -> dict[tuple[str, int], dict[str, np.ndarray]]:
        """(knob, position) -> the paired change of every statistic per design from the incumbent to
        that neighbour, on the races both played."""
        effect: dict[tuple[str, int], dict[str, np.ndarray]] = {}
        for knob, j in tried:
            ev = self.evals.get(self.key({**inc.pos, knob.name: j}))
            if ev is None or ev.invalid:
                continue
            d = {}
            for label in ev.sums:
                n = min(ev.blocks[label], inc.blocks[label])
                if n < 1:
                    break
                d[label] = np.nan_to_num(residuals(ev.sums[label], n)[0] - residuals(inc.sums[label], n)[0])
            else:
                effect[(knob.name, j)] = d
        return effect

    def moved_effects(self, effect, old: dict[str, int], new: dict[str, int]):
        """The effects measured around `old`, read around `new`: a numeric knob's step up (down) keeps
        its effect per step; a choice knob that moved loses its effects (they were relative to the old
        choice)."""
        by_name = {k.name: k for k in self.bf.knobs}
        out = {}
        for (name, j), d in effect.items():
            knob = by_name[name]
            p0 = old.get(name, base_position(self.bf, knob))
            p1 = new.get(name, base_position(self.bf, knob))
            if knob.choices:
                if p0 == p1:
                    out[(name, j)] = d
            else:
                out[(name, p1 + (j - p0))] = d
        return out

    def model_proposals(self, inc: Evaluation, tried: list[tuple[Knob, int]],
                        effect: dict | None = None) -> list[dict[str, int]]:
        """A move of several knobs at once, chosen on a linear model of the targets: each knob's effect
        per step up and per step down is its neighbour's paired change of every statistic (on the races
        both played), effects add up, and each knob moves at most `model_reach` steps from the
        incumbent. Three starts: the incumbent, and the bounded least-squares steps towards the bands'
        centres, whole and halved (rounded; the model is only linear near the incumbent); from each,
        greedy on the model's score (the targets' score of the predicted means plus the change cost):
        the single-knob change that lowers it most, repeated until none does. Every distinct result
        that moves at least two knobs and that the model expects to lower the score is a proposal,
        played and judged like any candidate."""
        bf = self.bf
        if effect is None:
            effect = self.effects(inc, tried)
        if not effect:
            return []
        by_name = {k.name: k for k in bf.knobs}
        base_means = score_of(self.scoring, inc.sums)[2]
        k0 = {k.name: inc.pos.get(k.name, base_position(bf, k)) for k in bf.knobs}

        def contribution(name: str, q: int) -> dict[str, np.ndarray] | None:
            knob, p = by_name[name], k0[name]
            if q == p:
                return {}
            if knob.choices:
                return effect.get((name, q))
            one = effect.get((name, p + (1 if q > p else -1)))
            return None if one is None else {lab: v * abs(q - p) for lab, v in one.items()}

        def predicted(pos: dict[str, int]) -> float:
            means = {lab: m.copy() for lab, m in base_means.items()}
            for name, q in pos.items():
                for lab, v in (contribution(name, q) or {}).items():
                    means[lab] += v
            total = 0.0
            for lab, m in means.items():
                lo, hi, h, w = (self.scoring.lo[lab], self.scoring.hi[lab], self.scoring.scale[lab],
                                self.scoring.weight[lab])
                excess = np.nan_to_num(np.maximum(lo - m, 0) + np.maximum(m - hi, 0)) / h
                total += float((w * excess ** 2).sum())
            return total + bf.cost_weight * change_cost(bf, pos)

        start_score = predicted(k0)
        out: list[dict[str, int]] = []
        firsts = [k0] + [self._least_squares(k0, effect, base_means, f) for f in (1.0, 0.5)]
        for first in firsts:
            pos, score = self._polish(dict(first), k0, effect, contribution, predicted)
            if score < start_score - 1e-9 and sum(pos[n] != k0[n] for n in pos) >= 2 and pos not in out:
                out.append(pos)
        return out

    def _least_squares(self, k0: dict[str, int], effect, means: dict[str, np.ndarray],
                       fraction: float = 1.0) -> dict[str, int]:
        """The numeric knobs' steps that bring the predicted statistics closest to their bands' centres
        (least squares in units of the bands' half-widths, each knob's effect per step the mean of its
        up and down neighbours', at most `model_reach` steps and within its bounds), rounded."""
        from scipy.optimize import lsq_linear

        bf = self.bf
        names, cols, lo, hi = [], [], [], []
        labels = list(means)
        for knob in bf.knobs:
            if knob.choices:
                continue
            p = k0[knob.name]
            up, down = effect.get((knob.name, p + 1)), effect.get((knob.name, p - 1))
            if up is None and down is None:
                continue
            col = []
            for lab in labels:
                u = up[lab] if up is not None else None
                d = -down[lab] if down is not None else None
                col.append(u if d is None else d if u is None else (u + d) / 2)
            names.append(knob.name)
            cols.append(np.concatenate(col))
            a = -bf.model_reach if down is not None else 0
            b = bf.model_reach if up is not None else 0
            while a < 0 and not allowed(bf, knob, p + a):
                a += 1
            while b > 0 and not allowed(bf, knob, p + b):
                b -= 1
            lo.append(a - 1e-9)
            hi.append(b + 1e-9)
        out = dict(k0)
        if not names:
            return out
        w = np.concatenate([self.scoring.weight[lab] for lab in labels])
        h = np.concatenate([self.scoring.scale[lab] for lab in labels])
        m = np.concatenate([np.nan_to_num(means[lab]) for lab in labels])
        lo_b = np.concatenate([self.scoring.lo[lab] for lab in labels])
        hi_b = np.concatenate([self.scoring.hi[lab] for lab in labels])
        keep = (w > 0) & np.isfinite(lo_b) & np.isfinite(hi_b)
        # win rates aim at the fair share (the band's centre); a range (race length) only at the band
        is_range = np.concatenate([[st.metric != "win_rate" for st in self.stats[lab]] for lab in labels])
        centre = np.where(is_range, np.clip(m, lo_b, hi_b), (lo_b + hi_b) / 2)
        rw = np.sqrt(w[keep]) / h[keep]
        A = np.array(cols).T[keep] * rw[:, None]
        b = (centre[keep] - m[keep]) * rw
        ridge = math.sqrt(max(bf.cost_weight, 1e-6))
        A = np.vstack([A, ridge * np.eye(len(names))])
        b = np.concatenate([b, np.zeros(len(names))])
        x = lsq_linear(A, b, bounds=(np.array(lo), np.array(hi))).x
        for name, v in zip(names, x):
            out[name] = k0[name] + int(round(fraction * v))
        return out

    def _polish(self, pos: dict[str, int], k0: dict[str, int], effect, contribution, predicted):
        """Greedy on the model from `pos`: the single-knob change that lowers the predicted score
        most, repeated until none does."""
        bf = self.bf
        by_name = {k.name: k for k in bf.knobs}
        score = predicted(pos)
        for _ in range(4 * len(bf.knobs)):
            best = None
            for name, knob in by_name.items():
                p = pos[name]
                if knob.choices:
                    options = [j for (n, j) in effect if n == name] + [k0[name]]
                else:
                    options = [p - 1, p + 1]
                for q in options:
                    if q == p or (not knob.choices and (abs(q - k0[name]) > bf.model_reach
                                                        or not allowed(bf, knob, q))):
                        continue
                    if contribution(name, q) is None:
                        continue
                    sc = predicted({**pos, name: q})
                    if sc < score - 1e-9 and (best is None or sc < best[0]):
                        best = (sc, name, q)
            if best is None:
                break
            score, name, q = best
            pos[name] = q
        return pos, score

    def _chosen_by(self, inc: Evaluation, new: Evaluation) -> dict:
        """A step's paired score difference, and its se, on the round's races that chose it."""
        diff, se = self.paired(new, inc, self.n_blocks)
        return {"difference": diff, "se": se, **self.confirmation}

    def _step_many(self, rnd: int, inc: Evaluation, new: Evaluation) -> None:
        va, vb = self.values(inc.pos), self.values(new.pos)
        chosen = self._chosen_by(inc, new)
        for name in vb:
            if va[name] != vb[name]:
                self.steps.append({"round": rnd + 1, "knob": name, "from": va[name], "to": vb[name],
                                   "score": self.total(new), **chosen})
        self.log(f"step (model): {self._moves_text(inc.pos, new.pos)}, score {self.total(inc):.3f} -> "
                 f"{self.total(new):.3f}")

    def _step(self, rnd: int, knob: Knob, inc: Evaluation, new: Evaluation) -> None:
        a, b = self.values(inc.pos)[knob.name], self.values(new.pos)[knob.name]
        self.steps.append({"round": rnd + 1, "knob": knob.name, "from": a, "to": b, "score": self.total(new),
                           **self._chosen_by(inc, new)})
        self.log(f"step: {knob.name} {a!r} -> {b!r}, score {self.total(inc):.3f} -> {self.total(new):.3f}")

    def _met_text(self, ev: Evaluation) -> str:
        _, _, means = score_of(self.scoring, ev.sums)
        bad = total = 0
        for label, m in means.items():
            w = (self.scoring.weight[label] > 0) & ~np.isnan(m)
            out = (m < self.scoring.lo[label]) | (m > self.scoring.hi[label])
            bad += int((out & w).sum())
            total += int(w.sum())
        return f"{total - bad} of {total} target statistics in their band"

    def _sensitivity(self, knob: Knob, inc: Evaluation, cand: Evaluation, blocks: dict[str, int]) -> None:
        k0, k1 = inc.pos.get(knob.name), cand.pos.get(knob.name)
        if knob.choices:
            per = 1.0
        else:
            per = float(k1 - k0)
        frm, to = self.value(inc.pos, knob), self.value(cand.pos, knob)
        for label, stats in self.stats.items():
            n = blocks[label]
            mc, rc = residuals(cand.sums[label], n)
            mi, ri = residuals(inc.sums[label], n)
            se = np.sqrt(((rc - ri) ** 2).sum(0))
            seated = cand.sums[label][1, :n].sum(0) > 0
            for j, s in enumerate(stats):
                if self.scoring.weight[label][j] == 0 or not seated[j]:
                    continue
                self.sens_rows.append({
                    "knob": knob.name, "from": frm, "to": to, "steps": per, "design": label,
                    "statistic": _stat_label(s),
                    "target": self.scoring.target[label][j], "races": n * self.block[label],
                    "incumbent": mi[j], "candidate": mc[j], "per_step": (mc[j] - mi[j]) / per,
                    "se_per_step": se[j] / abs(per)})


def engine_hash(game: str) -> str:
    """A hash of the game's engine and players (the Python sources of kernels/GAME and sim/GAME):
    an evaluation in the log is reused only for the engine that played it."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(digest_size=8)
    for folder in (root / "kernels" / game, root / "sim" / game):
        for f in sorted(folder.rglob("*.py")) if folder.is_dir() else []:
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)


# --- the outcome: data folder, changes, sensitivities, check ------------------------------------------

@dataclass
class Outcome:
    search: Search
    base: Evaluation
    final: Evaluation

    def changes(self) -> pd.DataFrame:
        """One row per changed element: file, entry, field, old, new, knob, steps."""
        s = self.search
        rows = []
        for knob in s.bf.knobs:
            k0, k = base_position(s.bf, knob), self.final.pos.get(knob.name, base_position(s.bf, knob))
            if k == k0:
                continue
            for m in knob.members:
                old = _element(s.bf.base_docs[m.file], m)
                new = knob_value(s.bf, knob, m, k)
                entry, fld = _entry_field(s.bf.base_docs[m.file], m)
                rows.append({"file": m.file, "entry": entry, "field": fld, "old": old, "new": new,
                             "knob": knob.name, "steps": (k - k0) if not knob.choices else 1,
                             "cost": knob.cost * (abs(k - k0) if not knob.choices else 1)})
        return pd.DataFrame(rows, columns=["file", "entry", "field", "old", "new", "knob", "steps", "cost"])

    def sensitivities(self) -> pd.DataFrame:
        cols = ["knob", "from", "to", "steps", "design", "statistic", "target", "races", "incumbent", "candidate",
                "per_step", "se_per_step"]
        df = pd.DataFrame(self.search.sens_rows, columns=cols)
        # the estimate on the most races for every knob step, design and statistic
        if len(df):
            df["_from"], df["_to"] = df["from"].astype(str), df["to"].astype(str)
            df = df.sort_values("races", kind="stable").drop_duplicates(["knob", "_from", "_to", "design", "statistic"], keep="last")
            df = df.drop(columns=["_from", "_to"]).sort_values(["knob", "design", "statistic"], kind="stable")
        return df.reset_index(drop=True)

    def write_data(self, folder: Path) -> str:
        """The changed data folder (a copy of the base data with the changed files rewritten);
        returns its data hash, checked against the candidate's."""
        s = self.search
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(s.bf.data_dir, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.pyc"))
        patches = patches_for(s.bf, self.final.pos)
        by_file: dict[str, list[Patch]] = {}
        for p in patches:
            by_file.setdefault(p.file, []).append(p)
        changes = self.changes()
        import tomlkit

        for f, ps in by_file.items():
            path = folder / f
            text = path.read_text(encoding="utf-8")
            doc = tomllib.loads(text)
            kept = tomlkit.parse(text)          # the same edits on a parse that keeps every comment
            for p in ps:
                why = _apply(doc, p) or _apply(kept, p)
                if why:
                    raise ValueError(f"{f}: {why}")
            note = [f"# CHANGED by biathlon-sim balance ({s.bf.path.name}): "
                    + "; ".join(f"{r.entry}: {r.field} {r.old!r} -> {r.new!r}"
                                for r in changes[changes.file == f].itertuples())]
            body = tomlkit.dumps(kept)
            head = _header(body)
            new = "\n".join(head + note) + "\n" + body.split("\n", len(head))[-1] if head else \
                "\n".join(note) + "\n\n" + body
            assert tomllib.loads(new) == doc, f"{f}: the rewritten file does not read back the same"
            path.write_text(new, encoding="utf-8")
        written = s.mod.load_bundle(folder)
        return written.data_hash

    def check(self, races: int | None = None) -> pd.DataFrame:
        """Before (base) and after (the search's result) on fresh seeds (each design's check seed),
        paired: every target statistic with its 95% interval, band and whether it is met."""
        from .stats import z_value

        s = self.search
        z = z_value(0.95)
        races = races or s.bf.check_races
        bundles = {"before": s.base_bundle,
                   "after": s.mod.load_bundle(s.bf.data, patches_for(s.bf, self.final.pos))}
        from .runner import Task, run_tasks

        # every design, before and after, in one batch of tasks (enough to keep many workers busy)
        nbs = {d.label: max(1, -(-races // s.block[d.label])) for d in s.bf.designs}
        sums = {(d.label, which): np.zeros((2, nbs[d.label], len(s.stats[d.label])))
                for d in s.bf.designs for which in bundles}
        tasks = [Task((d.label, which, a, e), _play, (s.bf.game, bundle, d.design, d.check_seed,
                                                     a * s.block[d.label], e * s.block[d.label],
                                                     s.stats[d.label], s.block[d.label]))
                 for d in s.bf.designs for which, bundle in bundles.items()
                 for a, e in _splits(nbs[d.label], s.n_jobs, len(s.bf.designs) * len(bundles))]
        for task, part in run_tasks(tasks, s.n_jobs, s.scheduler):
            label, which, a, e = task.key
            sums[(label, which)][:, a:e] = part
        rows = []
        for d in s.bf.designs:
            blk, nb, stats = s.block[d.label], nbs[d.label], s.stats[d.label]
            sums_d = {which: sums[(d.label, which)] for which in bundles}
            mb, rb = residuals(sums_d["before"], nb)
            ma, ra = residuals(sums_d["after"], nb)
            seb, sea = np.sqrt((rb ** 2).sum(0)), np.sqrt((ra ** 2).sum(0))
            sed = np.sqrt(((ra - rb) ** 2).sum(0))
            played = (sums_d["before"][1].sum(0) > 0) | (sums_d["after"][1].sum(0) > 0)
            for j, st in enumerate(stats):
                # no target reads it, or a value no race seated; a target of weight 0 is only measured
                if not s.scoring.target[d.label][j] or not played[j]:
                    continue
                lo, hi = s.scoring.lo[d.label][j], s.scoring.hi[d.label][j]
                rows.append({"target": s.scoring.target[d.label][j], "design": d.label, "scenario": d.scenario,
                             "racers": d.racers, "persona": d.persona,
                             "statistic": _stat_label(st),
                             "metric": st.metric, "band_low": lo, "band_high": hi, "races": nb * blk,
                             "seed": d.check_seed, "before": mb[j], "before_low": mb[j] - z * seb[j],
                             "before_high": mb[j] + z * seb[j], "after": ma[j], "after_low": ma[j] - z * sea[j],
                             "after_high": ma[j] + z * sea[j], "change": ma[j] - mb[j],
                             "change_low": ma[j] - mb[j] - z * sed[j], "change_high": ma[j] - mb[j] + z * sed[j],
                             "met_before": bool(lo <= mb[j] <= hi), "met_after": bool(lo <= ma[j] <= hi),
                             "weight": float(s.scoring.weight[d.label][j])})
        return pd.DataFrame(rows)

    def write(self, check_races: int | None = None) -> tuple[dict, dict]:
        """Every table and text into the search's folder: returns their paths, and the arguments of
        the HTML page after its folder (reports.pages.balance_page, which the command line writes:
        the core hands reports tables and never imports them)."""
        s = self.search
        out = s.out
        changes = self.changes()
        changes.to_csv(out / "changes.csv", index=False)
        data_hash = self.write_data(out / "data")
        if self.final.bundle_hash and data_hash != self.final.bundle_hash:
            raise RuntimeError(f"the written data folder reads as {data_hash}, the searched data as "
                               f"{self.final.bundle_hash}")
        sens = self.sensitivities()
        sens.to_csv(out / "sensitivities.csv", index=False)
        check = self.check(check_races)
        check.to_csv(out / "targets.csv", index=False)
        (out / "changes.md").write_text(changes_text(changes))
        agree = persona_text(check, sens)
        scored = check_score_text(check, s.target_score(self.base), s.target_score(self.final))
        (out / "report.md").write_text(self.report_text(changes, check, sens, data_hash, agree, scored))
        page = {"description": f"{s.bf.title} ({s.info.title}; balance file {s.bf.path.name})",
                "changes": changes, "check": check, "sens": sens,
                "sensitivity_lines": sensitivity_lines(sens, changes), "agreement": agree,
                "meta": [f"Search: {s.races_used:,} races; stopped: {s.stopped}.",
                         f"Score before {s.total(self.base):.3f}, after {s.total(self.final):.3f} "
                         f"(on the search's races).", scored]}
        return ({"data": out / "data", "changes": out / "changes.md", "targets": out / "targets.csv",
                 "sensitivities": out / "sensitivities.csv", "report": out / "report.md"}, page)

    def report_text(self, changes: pd.DataFrame, check: pd.DataFrame, sens: pd.DataFrame, data_hash: str,
                    agree: list[str], scored: str) -> str:
        """report.md; agree: persona_text(check), scored: check_score_text (write() reads both once
        for the report and the page)."""
        s = self.search
        bf = s.bf
        lines = [f"# Balance search: {bf.title}", "",
                 f"Game {s.info.title}; balance file {bf.path.name}; base data {s.base_bundle.data_hash}, "
                 f"result {data_hash}.",
                 f"Search: seed {bf.seed}, {sum(s.n_blocks[d.label] * s.block[d.label] for d in bf.designs):,} "
                 f"races per full evaluation ({len(bf.designs)} designs), {s.races_used:,} races in all; early drop "
                 f"at alpha {bf.alpha:g} (one-sided paired z-test, alpha / {len(STAGES) - 1} per early look); "
                 f"cost weight {bf.cost_weight:g}. Stopped: {s.stopped}.",
                 "Candidates tried: " + ", ".join(f"{n} {what}" for what, n in s.tried.items()) + ".",
                 *resolution_text(s.full_se, [st for st in s.steps if "difference" in st],
                                  min(s.n_blocks[d.label] * s.block[d.label] for d in bf.designs)), "",
                 f"Score before {s.total(self.base):.3f}, after {s.total(self.final):.3f} (on the search's races).",
                 scored,
                 "", "## Changes", "", changes_text(changes), "", "## Targets before and after",
                 "", f"Fresh seeds (check seeds, never used in the search), {int(check.races.max()) if len(check) else 0:,} "
                 "races per design, the same races before and after; 95% intervals, clustered by balanced block.", ""]
        lines.append(check_text(check))
        if agree:
            lines += ["", "## Where the personas disagree", "",
                      "A statistic several personas read can be out of reach for a change that moves them all "
                      "alike: what is left is their disagreement, which only a change that moves one persona's "
                      "figure more than another's can close (persona_agreement in sim/balance.py).", ""] + agree
        lines += ["", "## Path", ""]
        if bf.start:
            lines.append("- start ([start] of the file): " + ", ".join(
                f"{k} {v!r}" for k, v in s.values({**self.base.pos, **bf.start}).items() if k in bf.start))
        lines += [f"- round {st['round']}: {st['knob']} {st['from']!r} -> {st['to']!r} (score {st['score']:.3f}"
                  + (f"; {st['difference']:+.3f} ± {st['se']:.3f} on the races that chose it"
                     if "difference" in st else "")
                  + (f"; on races of its own {st['confirm_difference']:+.3f} ± {st['confirm_se']:.3f}"
                     if "confirm_difference" in st else "")
                  + ("; undone: the last round's move lost on this round's new races)" if st.get("undone") else ")")
                  for st in s.steps] or ["- no step taken"]
        if bf.confirm:
            lines.append(f"- confirm: every step was taken only when it also beat the incumbent on races of its "
                         f"own, by more than {bf.confirm_z:g} standard error{'' if bf.confirm_z == 1 else 's'} of the paired "
                         f"score difference "
                         f"({s.tried['confirmed']} confirmed, {s.tried['not confirmed']} not)")
        if bf.fresh_rounds:
            lines.append("- fresh_rounds: every round played new races; the scores above are on each round's races")
        lines += ["", "## Sensitivities", "",
                  f"sensitivities.csv ({len(sens)} rows) has the change of every target statistic per knob step, "
                  "from paired races. For each changed knob, the clearest effects of its first step from the base "
                  "value (change ± standard error):", ""]
        lines += sensitivity_lines(sens, changes)
        return "\n".join(lines) + "\n"


def resolution_text(full_se: list[float], steps: list[dict], races: int) -> list[str]:
    """What the search's races can tell apart: the standard errors of the fully played candidates'
    paired score differences, and how many steps taken gained more than two of them on the races
    that chose them. A search whose steps gain less than that is choosing among candidates its races
    cannot tell apart (the best of many then wins by its races' luck): more races per design, or
    confirm, say which gains are real."""
    if not full_se:
        return []
    se = np.asarray(full_se)
    lo, med, hi = np.percentile(se, [5, 50, 95])
    text = (f"Resolution: the paired score difference of a candidate played in full against its incumbent had a "
            f"median standard error of {med:.3f} (middle 90%: {lo:.3f} to {hi:.3f}) at {races:,} races per design")
    if steps:
        clear = sum(st["difference"] < -2 * st["se"] for st in steps)
        text += (f"; {clear} of the {len(steps)} knob move{'' if len(steps) == 1 else 's'} taken gained more than "
                 "two standard errors on the races that chose them")
        if 2 * clear < len(steps):
            text += (" (most gained less: at this resolution the search picks among candidates its races cannot "
                     "tell apart; more races per design, or confirm, say which gains are real)")
    return [text + "."]


def sensitivity_lines(sens: pd.DataFrame, changes: pd.DataFrame, top: int = 4) -> list[str]:
    """Per changed knob, its largest clear effects (|per step| > 2 se) from its first step off base."""
    out = []
    for knob in dict.fromkeys(changes.knob):
        first = changes[changes.knob == knob].iloc[0]
        old, new = _py(first.old), _py(first.new)
        rows = sens[(sens.knob == knob) & (sens["from"].astype(str) == str(old))]
        if isinstance(old, str) or isinstance(new, str):
            rows = rows[rows["to"].astype(str) == str(new)]
        else:
            rows = rows[[(_py(t) - old) * (new - old) > 0 for t in rows["to"]]]
        if not len(rows):
            continue
        rows = rows[rows.per_step.abs() > 2 * rows.se_per_step].assign(
            move=lambda r: r.candidate - r.incumbent, se=lambda r: r.se_per_step * r.steps.abs())
        rows = rows.reindex(rows.move.abs().sort_values(ascending=False).index).head(top)
        if not len(rows):
            out.append(f"- {knob}: no clear effect on a target statistic")
            continue
        effects = "; ".join(
            f"{r.design} {r.statistic} {_per(r.statistic, r.move)} ± {_per(r.statistic, r.se, sign=False)}"
            for r in rows.itertuples())
        out.append(f"- {knob} ({old!r} -> {_py(rows['to'].iloc[0])!r}, {int(rows.races.max()):,} races a design): "
                   f"{effects}")
    return out or ["- no knob changed"]


def _py(x):
    """A plain Python value (pandas hands back numpy scalars)."""
    return x.item() if hasattr(x, "item") else x


def _per(statistic: str, x: float, sign: bool = True) -> str:
    if statistic == "mean rounds":
        return f"{x:+.2f} rounds" if sign else f"{x:.2f}"
    return f"{100 * x:+.2f} pp" if sign else f"{100 * x:.2f}"


def _splits(nb: int, n_jobs: int, pairs: int = 1) -> list[tuple[int, int]]:
    """Blocks 0 .. nb-1 of one of `pairs` like pieces of work, in parts: about two tasks per worker
    over all of them (-1 jobs: every core)."""
    from .runner import workers

    n = workers(n_jobs)
    parts = 1 if n == 1 else max(1, -(-2 * n // max(1, pairs)))
    step = max(1, -(-nb // parts))
    return [(a, min(a + step, nb)) for a in range(0, nb, step)]


def _apply(doc: dict, p: Patch) -> str | None:
    from .validation import apply_patch

    return apply_patch(doc, p)


def _entry_field(doc: dict, m: Member) -> tuple[str, str]:
    parts = m.path.split(".")
    entry, rest = "", parts
    for i, part in enumerate(parts):
        mm = _SEGMENT.match(part)
        if mm and mm.group(2):
            entry, rest = f"{mm.group(1)} {mm.group(2)}", parts[i + 1:]
    if not entry:
        entry = str(doc.get("name", "")) or parts[0]
    fld = ".".join(rest) or parts[-1]
    if m.index is not None:
        fld += f"[{m.index}]"
    if m.key is not None:
        fld += f".{m.key}"
    if m.token is not None:
        fld += f" token {m.token}"
    return entry, fld


def changes_text(changes: pd.DataFrame) -> str:
    if not len(changes):
        return "No change: no step the knobs allow improved the score (or the budget ended first)."
    def how(r) -> str:
        if isinstance(r.old, str) or isinstance(r.new, str):
            return f"knob {r.knob}"
        return f"knob {r.knob}, {r.steps:+d} step{'s' if abs(r.steps) != 1 else ''}"

    return "\n".join(f"- {r.file}: {r.entry}: {r.field}: {_py(r.old)!r} -> {_py(r.new)!r}  ({how(r)})"
                     for r in changes.itertuples())


def _fmt(metric: str, x: float) -> str:
    return f"{100 * x:.2f}%" if metric == "win_rate" else f"{x:.2f}"


def check_text(check: pd.DataFrame) -> str:
    if not len(check):
        return "(no target statistic)"
    head = "| design | statistic | band | before [95%] | after [95%] | change [95%] | met before / after |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in check.itertuples():
        f = lambda x: _fmt(r.metric, x)  # noqa: E731
        pp = (lambda x: f"{100 * x:+.2f} pp") if r.metric == "win_rate" else (lambda x: f"{x:+.2f}")
        lines.append(f"| {r.design} | {r.statistic} | {f(r.band_low)} .. {f(r.band_high)} | {f(r.before)} "
                     f"[{f(r.before_low)}, {f(r.before_high)}] | {f(r.after)} [{f(r.after_low)}, {f(r.after_high)}] | "
                     f"{pp(r.change)} [{pp(r.change_low)}, {pp(r.change_high)}] | "
                     f"{'yes' if r.met_before else 'no'} / {'yes' if r.met_after else 'no'} |")
    met_b, met_a = int(check.met_before.sum()), int(check.met_after.sum())
    lines += ["", f"In band: {met_b} of {len(check)} before, {met_a} of {len(check)} after."]
    return "\n".join(lines)


def check_score(check: pd.DataFrame, when: str = "after") -> float:
    """The targets' part of the score (weight x excess^2, excess beyond the band in half-widths) read
    off the check's races: the search's own score is optimistic, since among many candidates played on
    the same races it keeps those whose luck helped."""
    if not len(check):
        return 0.0
    half = (check.band_high - check.band_low) / 2
    excess = (np.maximum(check.band_low - check[when], 0) + np.maximum(check[when] - check.band_high, 0)) / half
    return float((check.weight * excess ** 2).sum())


def check_score_text(check: pd.DataFrame, searched_before: float, searched_after: float) -> str:
    if not len(check) or "weight" not in check:
        return ""
    return (f"Targets' part of the score (the change cost left out) on the check's fresh races: before "
            f"{check_score(check, 'before'):.3f}, after {check_score(check, 'after'):.3f}; on the search's races "
            f"{searched_before:.3f} and {searched_after:.3f}. An 'after' higher on fresh races than on the "
            f"search's is the search's selection: among many candidates played on the same races it keeps "
            f"those the races' luck favoured.")


_PERSONA_KEYS = ["scenario", "racers", "statistic", "metric"]


def persona_offsets(check: pd.DataFrame, when: str) -> pd.DataFrame:
    """The check's rows with off (distance from the band centre), half (the band's half-width), both in
    points for win rates, and specific (off minus the mean of the personas sharing the statistic)."""
    scale = np.where(check.metric == "win_rate", 100.0, 1.0)
    c = check.assign(off=(check[when] - (check.band_low + check.band_high) / 2) * scale,
                     half=(check.band_high - check.band_low) / 2 * scale)
    return c.assign(specific=c.off - c.groupby(_PERSONA_KEYS).off.transform("mean"))


def persona_agreement(check: pd.DataFrame, when: str = "after") -> pd.DataFrame:
    """Where several personas share a target statistic (the same scenario, racers and statistic), how
    far apart they are: one row per such statistic with the personas' distances from their band
    centres, the shared part (their mean), the spread (largest minus smallest) and whether any change
    that moved every persona alike could put all of them in their bands at once (the intervals
    [distance - half-width, distance + half-width] meet). When they cannot, what is left is the
    personas' disagreement: only a change that moves one persona's figure more than another's helps.
    Distances in points for win rates, in the statistic's units otherwise."""
    cols = [*_PERSONA_KEYS, "personas", "shared", "spread", "worst_persona", "worst_specific", "common_shift_meets"]
    if not len(check) or "persona" not in check:
        return pd.DataFrame(columns=cols)
    rows = []
    for (scen, racers, stat, metric), g in persona_offsets(check, when).groupby(_PERSONA_KEYS, sort=False):
        if g.persona.nunique() < 2:
            continue
        worst = g.specific.abs().idxmax()
        rows.append({"scenario": scen, "racers": racers, "statistic": stat, "metric": metric,
                     "personas": g.persona.nunique(), "shared": float(g.off.mean()),
                     "spread": float(g.off.max() - g.off.min()), "worst_persona": g.persona[worst],
                     "worst_specific": float(g.specific[worst]),
                     "common_shift_meets": bool((g.off - g.half).max() <= (g.off + g.half).min() + 1e-12)})
    return pd.DataFrame(rows, columns=cols)


def persona_levers(check: pd.DataFrame, sens: pd.DataFrame, when: str = "after",
                   alpha: float = 0.05) -> pd.DataFrame:
    """For every statistic out of reach of a persona-uniform change (persona_agreement), the knob
    steps the search measured that move its farthest persona's figure towards the others': the
    step's paired effect on that persona minus its mean effect on the others, with its standard error,
    kept when it is clear at `alpha` one-sided after Bonferroni over the knob steps measured on that
    statistic (many are tried; most differences are noise). Sorted by statistic (widest spread first),
    then by z. Effects in points for win rates. These are the changes that close a disagreement; the
    search weighed each against every target and did not take it, so each costs somewhere else."""
    from .stats import z_value

    cols = ["scenario", "racers", "statistic", "persona", "specific", "knob", "from", "to", "persona_effect",
            "others_effect", "difference", "se", "z", "races"]
    if not len(check) or not len(sens) or "persona" not in check:
        return pd.DataFrame(columns=cols)
    agree = persona_agreement(check, when)
    blocked = agree[~agree.common_shift_meets].sort_values("spread", ascending=False, kind="stable")
    where = check[["design", "persona", "scenario", "racers"]].drop_duplicates("design")
    s = sens.merge(where, on="design")
    s = s.assign(_from=s["from"].astype(str), _to=s["to"].astype(str))
    rows = []
    for r in blocked.itertuples():
        sub = s[(s.scenario == r.scenario) & (s.racers == r.racers) & (s.statistic == r.statistic)]
        scale = 100.0 if r.metric == "win_rate" else 1.0
        found = []
        for (knob, f, t), g in sub.groupby(["knob", "_from", "_to"], sort=False):
            mine, others = g[g.persona == r.worst_persona], g[g.persona != r.worst_persona]
            if len(mine) != 1 or not len(others):
                continue
            # the move's own effect (per_step is per step up; a step down moves the other way)
            k = float(mine.steps.iloc[0])
            ep, eo = mine.per_step.iloc[0] * scale * k, float((others.per_step * others.steps).mean()) * scale
            se = abs(k) * math.sqrt((mine.se_per_step.iloc[0] * scale) ** 2
                                    + float(((others.se_per_step * scale) ** 2).sum()) / len(others) ** 2)
            if not se > 0:
                continue
            toward = -np.sign(r.worst_specific) * (ep - eo) / se      # > 0: closes the gap
            found.append((toward, knob, mine["from"].iloc[0], mine["to"].iloc[0], ep, eo, se,
                          int(mine.races.iloc[0])))
        if not found:
            continue
        z_min = z_value(1 - 2 * alpha / len(found))            # one-sided at alpha / steps measured
        for toward, knob, f, t, ep, eo, se, races in sorted(found, key=lambda x: -x[0]):
            if toward < z_min:
                break
            rows.append({"scenario": r.scenario, "racers": r.racers, "statistic": r.statistic,
                         "persona": r.worst_persona, "specific": r.worst_specific, "knob": knob, "from": f,
                         "to": t, "persona_effect": ep, "others_effect": eo, "difference": ep - eo, "se": se,
                         "z": toward, "races": races})
    return pd.DataFrame(rows, columns=cols)


def levers_text(levers: pd.DataFrame, statistics: int = 5, per: int = 2) -> list[str]:
    """The report's lines: for the widest disagreements, the clearest knob steps that close them."""
    out = []
    for (scen, stat), g in list(levers.groupby(["scenario", "statistic"], sort=False))[:statistics]:
        r = g.iloc[0]
        side = "above" if r.specific > 0 else "below"
        steps = "; ".join(f"{x.knob} {_py(x['from'])!r} -> {_py(x['to'])!r} moves {x.persona} {x.persona_effect:+.1f}, "
                          f"the others {x.others_effect:+.1f} on average (difference {x.difference:+.1f} ± {x.se:.1f})"
                          for _, x in g.head(per).iterrows())
        out.append(f"- {stat} on {scen}, {r.persona} {abs(r.specific):.1f} {side} the personas' mean: {steps}.")
    return out


def persona_text(check: pd.DataFrame, sens: pd.DataFrame | None = None) -> list[str]:
    """The report's lines on how far the personas agree, per axis (biathlete, colour, ...; the first
    word of the statistic), before and after; empty when no statistic is read under two personas.
    With the sensitivities, also the knob steps that move the farthest persona apart from the others
    (persona_levers)."""
    rms = lambda x: float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0  # noqa: E731
    out, a = [], None
    for when in ("before", "after"):
        a = persona_agreement(check, when)
        if not len(a):
            return []
        c = persona_offsets(check, when)
        a = a.assign(axis=np.where(a.metric == "win_rate", a.statistic.str.split().str[0], "race length"))
        for axis, g in a.groupby("axis", sort=False):
            mine = c.merge(g[_PERSONA_KEYS], on=_PERSONA_KEYS)
            per = ", ".join(f"{p} {rms(x.specific):.1f}" for p, x in mine.groupby("persona", sort=False))
            u = "points" if g.metric.iloc[0] == "win_rate" else "rounds"
            n = len(g)
            out.append(f"- {when}, {axis} ({n} statistic{'s' if n != 1 else ''} under {int(g.personas.max())} "
                       f"personas): {int((~g.common_shift_meets).sum())} out of reach of any change that moves "
                       f"every persona alike; shared distance from the band centre {rms(g.shared):.1f} {u} RMS, "
                       f"each persona's own part {per} {u} RMS.")
    blocked = a[~a.common_shift_meets]           # after
    if len(blocked):
        top = blocked.reindex(blocked.spread.sort_values(ascending=False).index).head(5)
        out.append("- widest after: " + "; ".join(
            f"{r.scenario} {r.statistic} (spread {r.spread:.1f}, {r.worst_persona} {r.worst_specific:+.1f} "
            f"from the personas' mean)" for r in top.itertuples()) + ".")
        if sens is not None:
            lev = levers_text(persona_levers(check, sens))
            out += (["- what moves a persona apart from the others (knob steps the search measured, paired, "
                     "clear after Bonferroni over the steps; the search weighed each against every target and "
                     "did not take it):"] + ["  " + line for line in lev]) if lev else \
                ["- no knob step the search measured moves the farthest persona of a disagreement clearly apart "
                 "from the others (paired, Bonferroni over the steps)."]
    return out


# --- the changed data folder's files ---------------------------------------------------------------

def _header(text: str) -> list[str]:
    """The comment lines at the top of a file (its note on where the values come from)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#") or (not line.strip() and lines):
            lines.append(line)
        else:
            break
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


__all__ = ["BalanceFile", "Knob", "Member", "TargetSpec", "load_balance", "Search", "Outcome", "get_path",
           "patches_for", "persona_agreement", "persona_offsets"]
