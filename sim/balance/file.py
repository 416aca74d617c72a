"""Reading the balance file (TOML, docs/balance.md): its designs, targets and knobs, read and
checked against the game's data (load_balance); every problem named by file, entry, field and
what was expected."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .. import games
from ..seeds import cell_seed
from ..validation import DataError, Problems, Table
from .spec import BalanceFile, DesignSpec, Knob, Member, TargetSpec
from .edits import _Missing, _element, allowed

METRICS = ("win_rate", "rounds")

TOP_KEYS = ("game", "title", "description", "data", "seed", "check_seed", "races", "check_races", "alpha",
            "cost_weight", "budget_races", "budget_minutes", "max_rounds", "model_steps", "model_reach",
            "model_repeats", "fresh_rounds", "confirm", "confirm_z",
            "designs", "target", "knob", "start", "extends", "drop_knobs", "drop_targets", "players", "front")


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

    # players: which binds (the headline targets), which only bound (a robustness band)
    pt = t.table("players", {})
    binds = pt.str("binds", "") or None
    bound = pt.list("bound", [])
    bound_pp = pt.number("bound_pp", 8.0, 0.01, 100.0)
    pt.done()
    if t.has("players") and binds is None:
        pt.problem("binds", "must name the persona whose targets bind (the competent default)")
    if binds is not None and binds in bound:
        pt.problem("bound", f"names {binds!r}, the binding persona: a persona either binds or is bounded")
    ft = t.table("front", {})
    front_weights = ft.list("weights", [0.0, 4.0])
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0 for w in front_weights):
        ft.problem("weights", f"must be a list of numbers at least 0, got {front_weights!r}")
        front_weights = []
    front_rounds = ft.int("rounds", 3, 1, 1000)
    front_budget = ft.int("budget_races", 0, 0, 10**12)
    front_points = ft.int("points", 5, 1, 50)
    ft.done()

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
    personas = dt.list("personas", []) or ([binds, *bound] if binds else [])
    for p in [binds, *bound] if binds else []:
        if p not in personas:
            pt.problem("binds" if p == binds else "bound", f"names {p!r}, which [designs] personas leaves out")
    options = dt.raw("options", {})
    dt.done()
    if personas and not info.players:
        dt.problem("personas", f"{info.title} has no players (every seat is played by the dice): leave personas out")
        personas = []
    # one table: every design plays it; a list of tables: every design once per table (e.g. Ski
    # Tour's two board sides), the labels then naming each table's values ("Long-advanced-4-balanced")
    option_sets = options if isinstance(options, list) and options else [options]
    if not all(isinstance(o, dict) for o in option_sets):
        dt.problem("options", "must be a table of option = value, or a list of such tables")
        option_sets = [{}]
    designs: list[DesignSpec] = []
    for s in scen:
        if s not in known:
            continue
        for opts in option_sets:
            tag = "".join(f"-{v}" for v in opts.values()) if len(option_sets) > 1 else ""
            for n in racers:
                if not isinstance(n, int) or isinstance(n, bool):
                    dt.problem("racers", f"must be whole numbers, got {n!r}")
                    continue
                for persona in personas or [None]:
                    kwargs = {"options": opts or None}
                    if persona is not None:
                        kwargs["players"] = (persona,)
                    try:
                        info.check_racers(n)
                        design = mod.make_design(s, n, **kwargs)
                        mod.check_design(bundle, design)
                    except (KeyError, ValueError) as exc:
                        dt.problem("personas" if persona else "racers", str(exc.args[0]) if exc.args else str(exc))
                        continue
                    who = persona or _persona(info, design)
                    label = f"{s}{tag}-{n}-{who}"
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
            wide = tt.number("bound_pp", bound_pp, 0.01, 100.0)
            if binds is None or tpers:      # every design, or the personas it names
                targets.append(TargetSpec(name, metric, by, within, weight=weight, scenarios=tscen, personas=tpers))
            else:                           # the binding player within_pp, the bound ones bound_pp
                targets.append(TargetSpec(name, metric, by, within, weight=weight, scenarios=tscen,
                                          personas=(binds,)))
                if bound:
                    targets.append(TargetSpec(f"{name} (bound)", metric, by, wide, weight=weight,
                                              scenarios=tscen, personas=tuple(bound)))
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
        hold = kt.bool("hold", False)
        choices = kt.raw("choices") if kt.has("choices") else None
        if choices is not None:
            if not isinstance(choices, list) or len(choices) < 2:
                kt.problem("choices", f"must be a list of at least two values, got {choices!r}")
                choices = []
            for k in ("min", "max", "step"):
                if kt.has(k):
                    kt.problem(k, "a knob has either choices or min, max and step, not both")
            knob = Knob(name, tuple(m for m in members if m), choices=tuple(choices), cost=cost, hold=hold)
        else:
            lo = kt.number("min", None)
            hi = kt.number("max", None)
            step = kt.number("step", None)
            if step is not None and step <= 0:
                kt.problem("step", f"must be above 0, got {step}")
            if lo is not None and hi is not None and lo > hi:
                kt.problem("max", f"must be at least min ({lo:g}), got {hi:g}")
            knob = Knob(name, tuple(m for m in members if m), lo, hi, step, cost=cost, hold=hold)
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
    for knob in bf.knobs:
        if knob.hold and knob.name not in bf.start and isinstance(raw_start, dict):
            problems.add(file, f"knob {knob.name!r}", "hold",
                         "a held knob is never moved by the search: give its value in [start]")
    bf.model_steps, bf.model_reach, bf.model_repeats = model_steps, model_reach, model_repeats
    bf.fresh_rounds = fresh_rounds
    bf.confirm, bf.confirm_z = confirm, confirm_z
    bf.binds, bf.bound = binds, tuple(bound)
    bf.front_weights, bf.front_rounds = tuple(float(w) for w in front_weights), front_rounds
    bf.front_budget_races, bf.front_points = front_budget or max(1, budget_races // 4), front_points
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


def _persona(info, design) -> str:
    """The name of a design's player; the `default` alias by the name of the game's default player."""
    players = getattr(design, "players", ()) or ("",)
    p = players[0]
    p = p if isinstance(p, str) else getattr(p, "name", str(p))
    return info.default_player if p == "default" else p


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
