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

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import time

import pandas as pd

from . import games
from .blocks import round_to_blocks
from .run import IDENTITY, add_summaries, manifest, play_chunk, read_results, refuse_other_kind, same_play, \
    frozen_players, study_store, summarise, summary_keys, warm_up
from .runner import Task, chunk_size as adaptive_chunk, has_search, progress_bar, run_tasks
from .seeds import cell_seed
from .store import FolderError, add_names, read_json
from .precision import Target, capped_note, default_pilot, sizing
from .validation import DataError, Patch, Problems, Table

BASE = "base"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
CELL_KEYS = ("name", "trail", "track", "course", "scenario", "racers", "biathletes", "colours", "players",
             "races", "variants", "seed", "options", "precision_pp", "precision_ratio", "confidence", "pilot",
             "same_races_as", "optional")


@dataclass(frozen=True)
class Variant:
    name: str
    description: str = ""
    patches: tuple[Patch, ...] = ()
    group: str = ""          # SCREEN for a step of a balance file's knob ([screen]); "" for the file's own
    knob: str = ""           # ... and the knob it steps


#: the group of the variants a [screen] makes, and the name a cell's `variants` gives them all by
SCREEN = "screen"


@dataclass(frozen=True)
class Cell:
    name: str
    design: object           # the game's design (sim.games: make_design)
    races: int               # races to play; with a target: the most it may play (the cap)
    variants: tuple[str, ...]
    seed: int
    target: Target | None = None     # a precision to reach instead of a fixed count (sim.precision)
    same_as: str = ""                # the cell whose races it plays (same_races_as), "" for its own
    optional: str = ""               # a group played only when asked (`study --include GROUP`), "" always


@dataclass
class Study:
    path: Path
    title: str
    description: str
    seed: int
    game: str
    chunk_size: int
    data: str | None
    variants: dict[str, Variant]
    cells: list[Cell] = field(default_factory=list)
    screen_left_out: dict[str, str] = field(default_factory=dict)   # [screen] steps whose data is invalid: why

    @property
    def races(self) -> int:
        return sum(c.races * len(c.variants) for c in self.cells)

    @property
    def groups(self) -> dict[str, list[str]]:
        """Optional groups: name -> its cells, in the file's order."""
        out: dict[str, list[str]] = {}
        for c in self.cells:
            if c.optional:
                out.setdefault(c.optional, []).append(c.name)
        return out

    def unplayed_groups(self, only: list[str] | None = None, include=()) -> dict[str, list[str]]:
        """The optional groups a run with these `only` and `include` leaves out, with their cells."""
        return {g: names for g, names in self.groups.items()
                if g not in include and not (only and set(names) & set(only))}

    def selected(self, only: list[str] | None = None, include=()) -> list[Cell]:
        """The cells a run plays: every cell that belongs to no optional group, and those of the
        groups in `include`; with `only`, just the cells it names (optional or not)."""
        if only is not None:
            return [c for c in self.cells if c.name in only]
        return [c for c in self.cells if not c.optional or c.optional in include]


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
    game = t.str("game", games.DEFAULT)
    if game not in games.names():
        t.problem("game", f"one of {', '.join(games.names())}")
        game = games.DEFAULT
    title = t.str("title", path.stem)
    description = t.str("description", "")
    seed = t.int("seed", None, 0, 2**63 - 1)
    chunk = t.int("chunk_size", 20_000, 1, 10_000_000)
    data = t.str("data", "") or None
    if data is not None and not Path(data).is_absolute():
        data = str((path.parent / data).resolve())
    report = t.table("report", {})         # the report's settings (reports: band); checked here, read there
    report.number("band", 0.1, 0.001, 0.999)
    report.done(hint=("band",))
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
    if t.has("screen"):
        for name, v in _screen_variants(problems, file, path, t.table("screen", {}), game, data).items():
            if name in variants:
                problems.add(file, "", "screen.balance", f"steps knob {v.knob!r} to {name!r}, which a [[variant]] "
                             f"of this file is named already")
            variants.setdefault(name, v)
    cells: list[Cell] = []
    raw_cells = t.tables("cell", None)
    if "cell" in doc and not raw_cells:
        t.problem("cell", "a study needs at least one [[cell]]")
    for i, raw in enumerate(raw_cells):
        cells.extend(_read_cells(problems, file, i, {**dflt, **raw}, variants, seed, game, t.has("screen")))
    t.done()
    names = [c.name for c in cells]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.add(file, f"cell {n!r}", "name", "is used by two cells; give each cell its own name")
    for c in cells:
        if c.same_as and c.same_as not in names:
            problems.add(file, f"cell {c.name!r}", "same_races_as",
                         f"names no cell {c.same_as!r} of this study; cells: {', '.join(names)}")
    problems.raise_if_any()
    return Study(path, title, description, seed, game, chunk, data, variants, cells)


def _screen_variants(problems: Problems, file: str, path: Path, st: Table, game: str,
                     data: str | None) -> dict[str, Variant]:
    """[screen]: every knob of a balance file moved `steps` steps each way (a choice knob: to the
    choices beside its base one), each a variant of the group SCREEN named after the knob and the
    step ("bakken-virtuoso-uphill+1"); a cell plays them all with `variants = ["base", "screen"]`."""
    from .balance import allowed, base_position, load_balance, patches_for
    from .validation import DataError

    rel = st.str("balance", "")
    steps = st.int("steps", 1, 1, 20)
    st.done(hint=("balance", "steps"))
    if not rel:
        st.problem("balance", "must name a balance file (docs/balance.md) whose knobs the screen steps")
        return {}
    bpath = Path(rel) if Path(rel).is_absolute() else (path.parent / rel)
    try:
        bf = load_balance(bpath)
    except DataError as exc:
        for q in exc.problems:
            problems.add(q.file, q.entry, q.field, q.expected)
        return {}
    if bf.game != game:
        st.problem("balance", f"{rel} balances {bf.game!r}, but this study plays {game!r}")
        return {}
    ours = Path(data) if data else games.game(game).load().default_data_dir()
    if bf.data_dir.resolve() != ours.resolve():
        st.problem("balance", f"{rel} moves the data in {bf.data_dir}, but this study plays {ours}: name the "
                              f"same data in both files")
        return {}
    out = {}
    for knob in bf.knobs:
        if knob.hold:                       # held at its [start] value: not a lever
            continue
        b = base_position(bf, knob)
        for k in sorted({b + d for d in range(-steps, steps + 1) if d}):
            if not allowed(bf, knob, k):
                continue
            name = f"{knob.name}{k - b:+d}"
            if not _NAME_RE.match(name):
                st.problem("balance", f"knob {knob.name!r} gives the variant name {name!r}: a knob's name must be "
                                      f"letters, digits and _ . + - to be screened (it names a folder)")
                break
            patches = tuple(patches_for(bf, {knob.name: k}))
            step = (f"{knob.choices[b]!r} to {knob.choices[k]!r}" if knob.choices
                    else f"{k - b:+d} step{'s' if abs(k - b) > 1 else ''} of {knob.step:g}")
            out[name] = Variant(name, f"screen of {rel}: knob {knob.name!r}, {step}", patches, SCREEN, knob.name)
    return out


def _listify(v):
    return v if isinstance(v, list) else [v]


def _read_cells(problems: Problems, file: str, i: int, raw: dict, variants: dict[str, Variant],
                study_seed: int, game: str, screened: bool = False) -> list[Cell]:
    """The cells of one [[cell]] entry; `screened`: the file has a [screen] (whose own problems,
    if any, were said already)."""
    info = games.game(game)
    ct = Table(problems, file, f"cell {i + 1}", raw)
    base_name = ct.str("name", "")
    if base_name:
        ct.entry = f"cell {base_name!r}"
    word = info.scenario                  # trail, track or course: the game's word for the key
    misnamed = [other for other in ("trail", "track", "course", "scenario") if other != word and ct.has(other)]
    for other in misnamed:
        ct.problem(other, f"is not a key of {info.title} cells; name the {word} with `{word}`")
        ct.raw(other)                     # said once, not again as an unknown field
    if misnamed and not ct.has(word):
        return []
    trails = [x for x in _listify(ct.raw(word)) if x is not None]
    options = ct.raw("options", {})
    racers = _listify(ct.raw("racers", 4))
    biathletes = ct.list("biathletes", []) or None
    colours = ct.list("colours", []) or None
    players = ct.raw("players", [info.default_player])
    races = ct.int("races", None, 1, 10**10)
    precision = ct.number("precision_pp", 0.0, 0.0, 50.0)
    ratio = ct.number("precision_ratio", 0.0, 0.0, 1.0)
    if precision > 0 and ratio > 0:
        ct.problem("precision_ratio", "give precision_pp or precision_ratio, not both")
        ratio = 0.0
    confidence = ct.number("confidence", 0.95, 0.5, 0.9999)
    pilot = ct.int("pilot", 0, 0, 10**10)
    same_as = ct.str("same_races_as", "")
    optional = ct.str("optional", "")
    if optional and not _NAME_RE.match(optional):
        ct.problem("optional", f"must be a group name of letters, digits and _ . + - (given to `study --include`), "
                               f"got {optional!r}")
    wanted = ct.list("variants", [BASE])
    seed = ct.int("seed", -1, -1, 2**63 - 1)
    ct.done(hint=CELL_KEYS)
    if isinstance(players, str):
        players = [players]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        ct.problem("players", "must be a player name or a list of names (one per seat)")
        players = [info.default_player]
    if SCREEN in wanted and SCREEN not in variants:
        screen = [v.name for v in variants.values() if v.group == SCREEN]
        if not screened:
            ct.problem("variants", f"names {SCREEN!r}, the steps of a [screen], but this file has no [screen]")
        k = wanted.index(SCREEN)
        wanted = [*wanted[:k], *screen, *(v for v in wanted[k + 1:] if v not in screen)]
    own = [name for name, x in variants.items() if not x.group]
    for v in wanted:
        if v not in variants:
            ct.problem("variants", f"names no variant {v!r}; known: {', '.join(own)}"
                                   + (f", or {SCREEN!r} (every step of the [screen])" if screened else ""))
    if not all(isinstance(x, str) for x in trails):
        ct.problem(word, f"must be a {word} name or a list of them")
        return []
    if not isinstance(options, dict):
        ct.problem("options", "must be a table of option = value")
        options = {}
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
            fixed = {}
            if biathletes:
                fixed["biathlete"] = tuple(biathletes)
            if colours:
                fixed["colour"] = tuple(c.lower() for c in colours)
            try:
                design = info.load().make_design(trail, n, fixed=fixed, players=tuple(players),
                                                 options=options or None)
            except ValueError as exc:
                ct.problem("options" if options else "name", str(exc))
                continue
            target = (Target(precision / 100, races, pilot, confidence) if precision > 0 else
                      Target(ratio / n, races, pilot, confidence, ratio) if ratio > 0 else None)
            if same_as and seed < 0:
                # the races of another cell (its default seed): a persona's cell paired with the
                # reference's on the same line-ups and dice streams
                try:
                    other = same_as.format(**{word: trail, "racers": n})
                except (KeyError, IndexError, ValueError):
                    ct.problem("same_races_as", f"may name {{{word}}} and {{racers}} only, got {same_as!r}")
                    continue
                cell_seed_value = cell_seed(study_seed, other)
            else:
                cell_seed_value, other = (seed if seed >= 0 else cell_seed(study_seed, name)), ""
            out.append(Cell(name, design, races, tuple(v for v in wanted if v in variants), cell_seed_value, target,
                            other, optional))
    return out


def check_study(study: Study, cells: list[Cell] | None = None) -> dict:
    """Every variant's bundle, and every cell's design checked against the data: DataError with
    one problem per thing wrong, before any race is played. `cells`: only the variants these cells
    play (the base data always). A [screen] step whose data is invalid (a knob moved past a rule of
    the data, such as accuracy that must not improve with pulse) is left out of every cell, and
    study.screen_left_out says why."""
    problems = Problems(study.path.parent)
    file = study.path.name
    mod = games.game(study.game).load()
    bundles: dict = {}
    playing = {v for c in (study.cells if cells is None else cells) for v in c.variants}
    for name, variant in study.variants.items():
        if not (name in playing or (name == BASE and any(name in c.variants for c in study.cells))):
            continue
        try:
            bundles[name] = mod.load_bundle(study.data, variant.patches)
        except DataError as exc:
            whose = games.wrong_game(games.game(study.game), study.data)
            if whose:
                problems.add(file, "", "data", whose)
                break
            if variant.group == SCREEN:
                study.screen_left_out[name] = "; ".join(str(q) for q in exc.problems[:2])
                continue
            problems.items.extend(exc.problems)
    if study.screen_left_out:
        gone = set(study.screen_left_out)
        study.cells[:] = [replace(c, variants=tuple(v for v in c.variants if v not in gone)) for c in study.cells]
    if BASE in bundles:
        for cell in study.cells:
            try:
                mod.check_design(bundles[BASE], cell.design)
            except (KeyError, ValueError) as exc:
                problems.add(file, f"cell {cell.name!r}", "", str(exc.args[0]) if exc.args else str(exc))
    problems.raise_if_any()
    return bundles


def round_cells_to_blocks(study: Study, bundles: dict) -> list[str]:
    """Round every cell's race count up to whole balanced blocks of its design (every value of
    every seat axis equally often in every seat); returns a note per cell rounded."""
    mod = games.game(study.game).load()
    bundle = bundles[BASE] if BASE in bundles else next(iter(bundles.values()))
    notes = []
    for i, cell in enumerate(study.cells):
        block = mod.block(bundle, cell.design)
        races = round_to_blocks(cell.races, block)
        if races != cell.races:
            notes.append(f"cell {cell.name!r}: {cell.races:,} races rounded up to {races:,}, whole balanced "
                         f"blocks of {block:,}")
            study.cells[i] = replace(cell, races=races)
    return notes


def _keep_left_out(study: Study, out: Path, checked: dict) -> None:
    """[screen] steps that an earlier run of this folder found invalid stay left out when this run
    does not load them (a run of some cells checks only their variants), so that study.json's cells
    do not gain them back."""
    try:
        old = json.loads((out / "study.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    gone = {name: why for name, why in (old.get("screen_left_out") or {}).items()
            if name in study.variants and name not in checked and name not in study.screen_left_out}
    if gone:
        study.screen_left_out.update(gone)
        study.cells[:] = [replace(c, variants=tuple(v for v in c.variants if v not in gone)) for c in study.cells]


def run_study(study: Study, out: str | Path, *, n_jobs: int = 1, progress: bool = True,
              scheduler: str | None = None, command: str = "", only: list[str] | None = None,
              log=print, repair: bool = False, include=()) -> pd.DataFrame:
    """Play every cell on every one of its variants; returns the summary counts (also written to
    OUT/summary.csv). Keeps no per-race rows in memory: the table is on disk.

    The chunks of every cell and variant go into one task queue, so with many workers no worker
    waits for the last chunk of one cell before the next cell starts. A cell with a precision
    target plays its pilot in that queue, is sized from it (sim.precision), and plays the rest in
    a second queue with every other sized cell.

    A folder that holds a run, or a cell whose parts do not match its ledger, is refused
    (FolderError, sim.store); `repair` sets such parts aside and plays their races again, and
    rewrites a damaged or missing study.json. Cells of an optional group (`optional = "GROUP"`) play
    only when `include` names the group or `only` names the cell."""
    out = Path(out)
    refuse_other_kind(out, "study")
    bundles = check_study(study, study.selected(only, include))
    _keep_left_out(study, out, bundles)
    for name, why in study.screen_left_out.items():
        log(f"note: screen step {name!r} left out: its data is invalid ({why})")
    for note in round_cells_to_blocks(study, bundles):
        log(f"note: {note}")
    info = games.game(study.game)
    mod = info.load()
    keys = summary_keys(info)
    base_bundle = bundles[BASE] if BASE in bundles else next(iter(bundles.values()))
    cells = study.selected(only, include)
    out.mkdir(parents=True, exist_ok=True)
    _write_study_json(study, out, command, repair)
    stores, summaries, planned = {}, {}, {}
    searching: dict[str, bool] = {}       # cell -> a search player sits in some seat
    cells = [replace(c, design=frozen_players(mod, c.design)) for c in cells]   # the recorded weights, read once
    for cell in cells:
        first = cell.races
        if cell.target is not None:
            block = mod.block(base_bundle, cell.design)
            pilot = cell.target.pilot or default_pilot(cell.races, block)
            first = min(round_to_blocks(pilot, block), cell.races)
        planned[cell.name] = first
        for vname in cell.variants:
            store = study_store(out, cell.name, vname)
            m = manifest(study.game, bundles[vname], cell.design, cell.races, cell.seed, command)
            m.update({"study": study.title, "cell": cell.name, "variant": vname,
                      "patches": [vars(p) for p in study.variants[vname].patches],
                      "target": None if cell.target is None else
                      {"half_width": cell.target.half_width, "confidence": cell.target.confidence,
                       "cap": cell.races, "pilot": first,
                       **({"ratio": cell.target.ratio} if cell.target.ratio else {})}})
            store.open(m, IDENTITY, same_play, repair=repair, log=log)
            stores[cell.name, vname] = store
            searching[cell.name] = has_search(m.get("players", {}))
            summaries[cell.name, vname] = [
                summarise(store.read_part(path, [*keys, "won", "place", "eliminated", "stalled"]), keys)
                for _, _, path in store.finished()]
    if n_jobs != 1 or scheduler:
        for cell in cells:                 # compile (or load) every kernel the cells need, here, once
            warm_up(study.game, base_bundle, cell.design)
    total = sum(c.races * len(c.variants) for c in cells)
    bar = progress_bar(total, 0, progress, study.title)
    started = time.perf_counter()

    def play(limits: dict[str, int], last: bool) -> None:
        """Every cell of `limits` up to its race count, all in one queue; `last`: no cell will be
        sized after this (the bar's total is then exact, before it an upper bound)."""
        tasks, left, played = [], {}, {}
        # chunks sized over the whole queue (every worker gets about four tasks of it), not per
        # cell: with one queue, a small cell need not be split to keep the workers busy
        # (the cells with a search player in a seat are sized apart: a few races a second each)
        totals = {False: 0, True: 0}
        for c in cells:
            if c.name in limits:
                totals[searching[c.name]] += limits[c.name] * len(c.variants)
        chunks = {k: adaptive_chunk(v, n_jobs, study.chunk_size, search=k) for k, v in totals.items()}
        for cell in cells:
            if cell.name not in limits:
                continue
            for vname in cell.variants:
                bounds = stores[cell.name, vname].missing(limits[cell.name], chunks[searching[cell.name]])
                left[cell.name, vname], played[cell.name, vname] = len(bounds), 0
                tasks.extend(Task((cell.name, vname, a, b), play_chunk,
                                  (info, bundles[vname], cell.design, cell.seed, a, b), b - a)
                             for a, b in bounds)
                if not bounds and (last or cell.target is None):
                    log(f"{cell.name} / {vname}: already played")
        if bar is not None:
            done = sum(b - a for st in stores.values() for a, b, _ in st.finished())
            later = 0 if last else sum((c.races - limits[c.name]) * len(c.variants)
                                       for c in cells if c.target is not None)
            bar.n, bar.total = done, done + sum(t.races for t in tasks) + later
            bar.refresh()
        for task, (seats, visits) in run_tasks(tasks, n_jobs, scheduler):
            cname, vname, a, b = task.key
            df = stores[cname, vname].write(a, b, seats, visits)
            summaries[cname, vname].append(summarise(df, keys))
            played[cname, vname] += b - a
            left[cname, vname] -= 1
            if bar is not None:
                bar.update(b - a)
            if left[cname, vname] == 0:
                log(f"{cname} / {vname}: {played[cname, vname]:,} races played "
                    f"({time.perf_counter() - started:.1f} s into the study)")

    try:
        play(planned, last=not any(c.target is not None for c in cells))
        sized, widest = {}, {}
        for cell in cells:
            if cell.target is None:
                continue
            sized[cell.name], note, widest[cell.name] = _size(cell, stores, mod, base_bundle, info, planned[cell.name])
            for vname in cell.variants:
                stores[cell.name, vname].note(planned_races=sized[cell.name], precision_note=note)
            log(f"{cell.name}: {sized[cell.name]:,} races for {cell.target.describe()} "
                f"(pilot {planned[cell.name]:,})" + (f"; {note}" if note else ""))
        if sized:
            if bar is not None:       # the widest interval the pilots showed, and what the sizing aims at
                bar.set_postfix_str(f"pilots' widest ±{100 * max(widest.values()):.2g} pp -> target ±"
                                    f"{100 * min(c.target.half_width for c in cells if c.target):.2g} pp")
            play(sized, last=True)
    finally:
        if bar is not None:
            bar.close()
    parts = []
    for cell in cells:
        for vname in cell.variants:
            s = add_summaries(summaries[cell.name, vname], keys).reset_index()
            s = add_names(s, mod.names(bundles[vname], cell.design))
            s.insert(0, "variant", vname)
            s.insert(0, "cell", cell.name)
            parts.append(s)
    summary = pd.concat(parts, ignore_index=True)
    summary.to_csv(out / "summary.csv", index=False)
    return summary


def _size(cell: Cell, stores: dict, mod, bundle, info, pilot: int) -> tuple[int, str, float]:
    """A target cell's race count, from the pilot races of its first variant (base where played):
    every variant plays the same races, so they share the count; a note when the cap stops it short
    of the target; and the widest half-width the pilot showed."""
    vname = BASE if BASE in cell.variants else cell.variants[0]
    rows = stores[cell.name, vname].read("seats", ["race", "won", "leg", *info.axes])
    rows = rows[(rows.race < pilot) & (rows.leg == 0)]              # a relay team counts once
    block = mod.block(bundle, cell.design)
    planned, needed, widest = sizing(rows, list(info.axes), block, cell.target, pilot)
    return planned, capped_note(cell.target, needed, planned, widest, pilot), widest


def _write_study_json(study: Study, out: Path, command: str, repair: bool = False) -> None:
    mod = games.game(study.game).load()
    doc = {"title": study.title, "description": study.description, "seed": study.seed, "game": study.game,
           "file": str(study.path), "file_text": study.path.read_text(encoding="utf-8"),
           "command": command, "chunk_size": study.chunk_size, "data": study.data,
           "cells": [{"name": c.name, "design": mod.design_dict(c.design), "races": c.races,
                      "variants": c.variants, "seed": c.seed, **({"optional": c.optional} if c.optional else {})}
                     for c in study.cells],
           "variants": {v.name: {"description": v.description, "patches": [_patch(p) for p in v.patches],
                                 **({"group": v.group, "knob": v.knob} if v.group else {})}
                        for v in study.variants.values() if v.name not in study.screen_left_out},
           **({"screen_left_out": study.screen_left_out} if study.screen_left_out else {})}
    path = out / "study.json"
    text = json.dumps(doc, indent=2, default=list)
    old = None
    if path.exists():
        try:
            old = read_json(path, "study description", "run the same command with --repair to rewrite it (each "
                            "cell's ledger vouches for its parts), or remove the folder")
        except FolderError:
            if not repair:
                raise
    elif any((out / "results").glob("cell=*")) and not repair:
        raise FolderError(f"{path} is missing but {out} holds a study's results: the folder is damaged; run the "
                          f"same command with --repair to rewrite it (each cell's ledger vouches for its parts), "
                          f"or remove the folder")
    if old is not None:
        new = json.loads(text)
        why = _other_study(old, new)
        if why:
            raise ValueError(f"{out} holds another study ({why}); choose another folder or remove it")
        # cells and variants the folder knew but the file no longer lists stay listed, so the
        # report still names the results they left
        new["cells"] += [c for c in old.get("cells", []) if c["name"] not in {n["name"] for n in new["cells"]}]
        for name, v in old.get("variants", {}).items():
            new["variants"].setdefault(name, v)
        text = json.dumps(new, indent=2, default=list)
    check_cell_folders(out, json.loads(text))
    path.write_text(text)


def check_cell_folders(out: Path, doc: dict) -> None:
    """FolderError (one line) for a cell and variant folder of a study's output that holds no cell
    and variant of its study.json (`doc`), or whose manifest names another cell or variant: a
    folder copied in from elsewhere."""
    from .run import read_manifest

    cells = {c.get("name") for c in doc.get("cells", [])}
    variants = set(doc.get("variants", {})) | {BASE}
    for table in ("results", "visits"):
        for folder in sorted((out / table).glob("cell=*/variant=*")):
            cell, variant = folder.parent.name.split("=", 1)[1], folder.name.split("=", 1)[1]
            if cell not in cells or variant not in variants:
                raise FolderError(f"{folder} holds results of no cell and variant of {out / 'study.json'}: a "
                                  f"foreign folder; remove it")
            if table == "results" and (folder / "_manifest.json").exists():
                m = read_manifest(folder)
                if (m.get("cell"), m.get("variant")) != (cell, variant):
                    raise FolderError(f"{folder} holds cell {m.get('cell')!r}, variant {m.get('variant')!r}: a "
                                      f"foreign folder; remove it")


def _patch(p: Patch) -> dict:
    """A patch as study.json keeps it: what it changes, not where in which file it was written."""
    return {"file": p.file, "path": p.path, "value": p.value}


def _strip(patch: dict) -> dict:
    return {k: patch.get(k) for k in ("file", "path", "value")}


def _other_study(old: dict, new: dict) -> str:
    """Why a study folder's study.json does not belong to this study ('' if it does). What changes
    results must agree: the game, the seed, the data, and every cell and variant the two share;
    a study may add cells and variants (the finished ones are kept), and the file's name, title,
    description and comments may change."""
    for key in ("game", "seed", "data"):
        if old.get(key, games.DEFAULT if key == "game" else None) != new.get(key):
            return f"{key} differs: {old.get(key)!r} there, {new.get(key)!r} now"
    old_cells = {c["name"]: c for c in old.get("cells", [])}
    for cell in new.get("cells", []):
        was = old_cells.get(cell["name"])
        same = {k: v for k, v in cell.items() if k != "variants"}      # a cell may gain variants
        if was is not None and {k: v for k, v in was.items() if k != "variants"} != same:
            field = next((k for k in same if was.get(k) != same.get(k)), "design")
            return f"cell {cell['name']!r}: {field} differs"
    for name, v in new.get("variants", {}).items():
        was = old.get("variants", {}).get(name)
        if was is not None and [_strip(p) for p in was.get("patches", [])] != [_strip(p) for p in v.get("patches", [])]:
            return f"variant {name!r}: patches differ"
    return ""


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
