"""Loading and validating a Biathlon Mania data directory (format: docs/mania/data-format.md).

`load_data(path)` reads game.toml and tracks/*.toml, checks every field, and returns a frozen
`ManiaData`, or raises one `sim.validation.DataError` listing every problem as
`file: entry: field: expected`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from kernels.mania.consts import (
    DIE_NAMES, FACE_NAMES, FORMAT_NAMES, GATE_NAMES, GREEN, TIES_NAMES, MARK_LETTERS, MARK_T, MAX_LEGS, MAX_LOOP,
    MAX_RACERS, MAX_SUB, NO_MARK, WHITE, ZONE_LETTERS,
)

from ..validation import Patch, Problems, Table

#: a race must fit the kernel's int16 counters (distance left, steps)
MAX_RACE_STEPS = 30_000


@dataclass(frozen=True)
class Rules:
    round_cap: int = 600
    targets: int = 5
    range_lines: int = 8
    max_racers: int = 8


@dataclass(frozen=True)
class Dice:
    number: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    individual: tuple[str, ...] = ("white",) * 4 + ("black", "calibre")
    relay: tuple[str, ...] = ("white",) * 3 + ("black", "black", "calibre")


@dataclass(frozen=True)
class Switches:
    halve_rounding: str = "up"
    zone_rule: str = "start"
    exit_roll: str = "next_turn"
    exit_from: str = "range"
    specials_after_push: bool = True
    chain_extra_rolls: bool = True
    shots_per_turn: str = "one"
    two_dice: str = "one_racer"
    calibre_uses_spare: bool = False
    specials_on: str = "landing"
    penalty_gate: str = "two"
    finish_ties: str = "turn_order"


@dataclass(frozen=True)
class Format:
    name: str
    laps: int
    shootings: tuple[int, ...]
    shooting_die: str
    spare_shots: int
    relay: bool
    max_teams: int = 0
    max_legs: int = 1


@dataclass(frozen=True)
class Square:
    zone: int          # WHITE, BLUE, GREEN
    mark: int = NO_MARK

    @property
    def token(self) -> str:
        return ZONE_LETTERS[self.zone] + MARK_LETTERS[self.mark].strip()


@dataclass(frozen=True)
class Track:
    name: str
    length_m: int
    loop: tuple[Square, ...]
    range_exit: int
    penalty_entry: int
    penalty: tuple[Square, ...]
    finish: tuple[Square, ...]
    corridors: int
    file: str = ""

    def t_target(self, i: int) -> int:
        """The loop square a T on square i sends to: the next start of a green zone, or -1."""
        for j in range(i + 1, len(self.loop)):
            if self.loop[j].zone == GREEN and self.loop[j - 1].zone != GREEN:
                return j
        return -1


@dataclass(frozen=True)
class ManiaData:
    rules: Rules
    dice: Dice
    switches: Switches
    formats: tuple[Format, ...]      # in FORMAT_NAMES order
    tracks: tuple[Track, ...]        # sorted by name
    source: str = field(default="", compare=False)

    def format(self, name: str) -> Format:
        for f in self.formats:
            if f.name == name:
                return f
        raise KeyError(f"no format named {name!r}; known: {', '.join(FORMAT_NAMES)}")

    def track(self, name: str) -> Track:
        for t in self.tracks:
            if t.name.lower() == name.lower():
                return t
        raise KeyError(f"no track named {name!r}; known: {', '.join(t.name for t in self.tracks)}")


def default_data_dir() -> Path:
    """The illustrative data set shipped inside the package."""
    return Path(str(resources.files("sim.data") / "mania"))


def load_data(path: str | Path | None = None, patches: list[Patch] = ()) -> ManiaData:
    """Read and validate a Mania data directory (the shipped one by default), with `patches`
    (sim.validation.Patch) applied to the files as they are read."""
    root = Path(path) if path is not None else default_data_dir()
    p = Problems(root, patches)
    if not root.is_dir():
        p.add(str(root), "", "", "must be a data directory (see docs/mania/data-format.md)")
        p.raise_if_any()
    rules, dice, switches, formats = _read_game(p, root)
    tracks = _read_tracks(p, root, rules, formats)
    p.check_patches_applied()
    p.raise_if_any()
    return ManiaData(rules, dice, switches, formats, tracks, str(root))


# --- game.toml --------------------------------------------------------------------------------
def _read_game(p: Problems, root: Path):
    file = "game.toml"
    path = root / file
    if not path.is_file():
        p.add(file, "", "", "is missing (see docs/mania/data-format.md)")
        return Rules(), Dice(), Switches(), _default_formats()
    doc = p.read_toml(path)
    if doc is None:
        return Rules(), Dice(), Switches(), _default_formats()
    top = Table(p, file, "", doc)

    r = _section(top, "rules")
    d = Rules()
    rules = Rules(
        round_cap=r.int("round_cap", d.round_cap, 1, 10_000),
        targets=r.int("targets", d.targets, 1, 10),
        range_lines=r.int("range_lines", d.range_lines, 1, 32),
        max_racers=r.int("max_racers", d.max_racers, 1, MAX_RACERS),
    )
    r.done()
    if rules.range_lines < rules.max_racers:
        r.problem("range_lines", f"must be at least max_racers ({rules.max_racers}), so every racer "
                                 f"finds a line; got {rules.range_lines}")

    # [dice] has no defaults (docs/mania/data-format.md: only [rules] and [switches] do): a die left
    # out is reported, not played on the shipped faces
    if not top.has("dice"):
        top.raw("dice")                     # records "is missing"
    dt = _section(top, "dice")
    dd = Dice()
    number = dt.list("number") if top.has("dice") else list(dd.number)
    if not dt.has("number"):
        number = list(dd.number)
    elif not (2 <= len(number) <= MAX_SUB) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 20 for v in number):
        dt.problem("number", f"must list 2 to {MAX_SUB} faces, each a whole number from 1 to 20; "
                             f"got {number!r}")
        number = list(dd.number)
    shooting = {}
    for name in DIE_NAMES:
        faces = dt.list(name) if top.has("dice") else list(getattr(dd, name))
        if not dt.has(name):
            faces = list(getattr(dd, name))
        elif not (2 <= len(faces) <= MAX_SUB) or not all(f in FACE_NAMES for f in faces):
            dt.problem(name, f"must list 2 to {MAX_SUB} faces, each one of {', '.join(FACE_NAMES)}; "
                             f"got {faces!r}")
            faces = list(getattr(dd, name))
        shooting[name] = tuple(faces)
    dt.done()
    dice = Dice(tuple(number), shooting["individual"], shooting["relay"])

    s = _section(top, "switches")
    ds = Switches()
    switches = Switches(
        halve_rounding=s.choice("halve_rounding", ("up", "down"), ds.halve_rounding),
        zone_rule=s.choice("zone_rule", ("start", "steps"), ds.zone_rule),
        exit_roll=s.choice("exit_roll", ("next_turn", "same_turn"), ds.exit_roll),
        exit_from=s.choice("exit_from", ("range", "exit_square"), ds.exit_from),
        specials_after_push=s.bool("specials_after_push", ds.specials_after_push),
        chain_extra_rolls=s.bool("chain_extra_rolls", ds.chain_extra_rolls),
        shots_per_turn=s.choice("shots_per_turn", ("one", "all"), ds.shots_per_turn),
        two_dice=s.choice("two_dice", ("one_racer", "two_racers"), ds.two_dice),
        calibre_uses_spare=s.bool("calibre_uses_spare", ds.calibre_uses_spare),
        specials_on=s.choice("specials_on", ("landing", "passing"), ds.specials_on),
        penalty_gate=s.choice("penalty_gate", GATE_NAMES, ds.penalty_gate),
        finish_ties=s.choice("finish_ties", TIES_NAMES, ds.finish_ties),
    )
    s.done()

    ft = top.table("formats")
    ft.entry, ft.prefix = "[formats]", ""
    formats = []
    for name in FORMAT_NAMES:
        if not ft.has(name):
            ft.raw(name)                    # records "is missing"
            formats.append(_default_formats()[FORMAT_NAMES.index(name)])
            continue
        f = ft.table(name)
        f.entry, f.prefix = f"[formats.{name}]", ""
        laps = f.int("laps", None, 1, 20)
        shootings = f.list("shootings")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in shootings) or \
                any(not 1 <= x < laps for x in shootings) or list(shootings) != sorted(set(shootings)):
            f.problem("shootings", f"must list increasing laps from 1 to {laps - 1} (laps - 1); "
                                   f"got {shootings!r}")
            shootings = []
        die = f.choice("shooting_die", DIE_NAMES)
        spare = f.int("spare_shots", None, 0, 10)
        relay = f.bool("relay")
        max_teams, max_legs = 0, 1
        if relay:
            max_teams = f.int("max_teams", None, 1, MAX_RACERS)
            max_legs = f.int("max_legs", None, 1, MAX_LEGS)
            if max_teams > rules.range_lines:
                f.problem("max_teams", f"must be at most range_lines ({rules.range_lines}); "
                                       f"got {max_teams}")
        f.done()
        formats.append(Format(name, laps, tuple(shootings), die, spare, relay, max_teams, max_legs))
    ft.done()
    top.done()
    return rules, dice, switches, tuple(formats)


def _section(top: Table, key: str) -> Table:
    t = top.table(key, {})
    t.entry, t.prefix = f"[{key}]", ""
    return t


def _default_formats() -> tuple[Format, ...]:
    return (Format("sprint", 3, (1, 2), "individual", 0, False),
            Format("mass_start", 5, (1, 2, 3, 4), "individual", 0, False),
            Format("relay", 3, (1, 2), "relay", 3, True, 8, 4))


# --- tracks -----------------------------------------------------------------------------------
def _read_tracks(p: Problems, root: Path, rules: Rules, formats) -> tuple[Track, ...]:
    folder = root / "tracks"
    files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    if not files:
        p.add("tracks/", "", "", "must hold at least one track file (tracks/NAME.toml)")
        return ()
    tracks: list[Track] = []
    seen: dict[str, str] = {}
    for path in files:
        rel = p.rel(path)
        doc = p.read_toml(path)
        if doc is None:
            continue
        t = _read_track(p, rel, doc, formats)
        if t is None:
            continue
        key = t.name.lower()
        if key in seen:
            p.add(rel, "", "name", f"must be unique; {t.name!r} is also the name in {seen[key]}")
            continue
        seen[key] = rel
        tracks.append(t)
    return tuple(sorted(tracks, key=lambda t: t.name.lower()))


def _tokens(tab: Table, key: str, text, marks_allowed: bool) -> list[Square] | None:
    """Parse square tokens; a problem per bad token (naming its square index)."""
    parts = text if isinstance(text, list) else [text]
    squares: list[Square] = []
    ok = True
    for part in parts:
        if not isinstance(part, str):
            tab.problem(key, f"must be strings of square tokens, got {part!r}")
            return None
        for tok in part.split():
            i = len(squares)
            zone = ZONE_LETTERS.find(tok[:1])
            mark_letter = tok[1:]
            mark = MARK_LETTERS.find(mark_letter) if mark_letter else NO_MARK
            if zone < 0 or len(tok) > 2 or mark < 1 and mark_letter:
                tab.p.add(tab.file, key, f"square {i}",
                          f"must be a zone letter w, b or g with an optional mark X, T or O; got {tok!r}")
                ok = False
                squares.append(Square(WHITE))
                continue
            if mark and not marks_allowed:
                tab.p.add(tab.file, key, f"square {i}", f"must carry no mark here; got {tok!r}")
                ok = False
                mark = NO_MARK
            squares.append(Square(zone, mark))
    return squares if ok else None


def _read_track(p: Problems, rel: str, doc: dict, formats) -> Track | None:
    t = Table(p, rel, "", doc)
    name = t.name()
    length = t.int("length_m", 0, 0, 100_000)
    loop = _tokens(t, "loop", t.raw("loop"), True)
    exit_sq = t.int("range_exit", None, 0, MAX_LOOP)
    pen = t.table("penalty")
    entry = pen.int("entry", None, 0, MAX_LOOP)
    penalty = _tokens(pen, "penalty.squares", pen.str("squares"), False)
    pen.done()
    fin = t.table("finish")
    finish = _tokens(fin, "finish.squares", fin.str("squares"), False)
    corridors = fin.int("corridors", None, 1, MAX_RACERS)
    fin.done()
    t.done()
    if loop is None or penalty is None or finish is None:
        return None
    bad = len(p.items)
    n = len(loop)
    if not 10 <= n <= MAX_LOOP:
        t.problem("loop", f"must have 10 to {MAX_LOOP} squares, got {n}")
        return None
    if not 1 <= len(penalty) <= MAX_SUB:
        pen.problem("squares", f"must have 1 to {MAX_SUB} squares, got {len(penalty)}")
    if len(finish) > MAX_SUB:
        fin.problem("squares", f"must have 0 to {MAX_SUB} squares, got {len(finish)}")
    if not 0 <= entry < n - 1:
        pen.problem("entry", f"must be a loop square with one after it (0 to {n - 2}), got {entry}")
    elif loop[entry].mark or loop[entry + 1].mark:
        pen.problem("entry", "the penalty entry and exit squares (entry, entry + 1) must carry no mark")
    if not 0 <= exit_sq < n or loop[min(exit_sq, n - 1)].zone != WHITE:
        t.problem("range_exit", f"must be a white loop square (0 to {n - 1}), got {exit_sq}")
    elif exit_sq > entry:
        t.problem("range_exit", f"must be at most penalty.entry ({entry}), so racers leaving the "
                                f"range pass the penalty loop; got {exit_sq}")
    if len(p.items) > bad:
        return None
    track = Track(name, length, tuple(loop), exit_sq, entry, tuple(penalty), tuple(finish),
                  corridors, rel)
    for i, sq in enumerate(loop):
        if sq.mark != MARK_T:
            continue
        if i <= entry + 1:
            p.add(rel, "loop", f"square {i}", f"a T square must lie after the penalty exit square "
                                              f"({entry + 1})")
        elif track.t_target(i) < 0:
            p.add(rel, "loop", f"square {i}", "a T square needs the start of a green zone after it "
                                              "on the loop")
    for f in formats:
        steps = (n + 2) * f.laps + len(finish) + 1 + 20 * len(penalty)
        if steps >= MAX_RACE_STEPS:
            t.problem("loop", f"is too long for format {f.name}: a race of {steps} steps does "
                              f"not fit the 16-bit counters (limit {MAX_RACE_STEPS})")
    return track if len(p.items) == bad else None
