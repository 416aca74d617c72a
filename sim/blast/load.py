"""Loading and validating a Biathlon Blast data directory (format: docs/data-format.md).

`load_data(path)` reads every file, checks every field and cross-reference, and returns a frozen
`BlastData`, or raises one `DataError` listing every problem as `file: entry: field: expected`.
"""
from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from kernels.blast.consts import COLOUR_NAMES, HEADING_LETTERS, MAX_RACERS, TERRAIN_LETTERS
from kernels.blast.state import MAX_FACE_UP, MAX_MOTIVATION, MAX_VISITS

from ..data import resolve
from ..validation import Patch, Problem, Problems, Table
from .model import (
    ZERO, Action, Biathlete, BlastData, Card, CoachZone, Gear, Range, Rules, Segment, Switches,
    Trail, Value, Venue,
)
from .route import RANGE, unroll

WAX_COLOURS = COLOUR_NAMES[1:]      # red wax does not exist: red is the bullets' colour
WINDS = tuple(HEADING_LETTERS) + ("still",)
MAX_STEPS = 20
MAX_INITIATIVE = 20
MAX_TOKENS = 20
MAX_ROUTE = 32767    # spaces on a route: event logs store positions as 16-bit numbers
_VALUE_RE = re.compile(r"^\s*(?:(\d+)\s*[x*×]\s*)?([a-z]+)\s*$")


def default_data_dir() -> Path:
    """The illustrative data set shipped inside the package."""
    return Path(str(resources.files("sim.data") / "blast"))


def load_data(path: str | Path | None = None, patches: list[Patch] = ()) -> BlastData:
    """Read and validate a data directory (the shipped one by default), with `patches` applied
    to the files as they are read (a data variant; the data hash follows the patched values)."""
    root = resolve(path) if path is not None else default_data_dir()
    p = Problems(root, patches)
    if not root.is_dir():
        p.add(str(root), "", "", "must be a data directory (see docs/data-format.md)")
        p.raise_if_any()
    reader = _Reader(p, root)
    data = reader.read()
    p.check_patches_applied()
    p.raise_if_any()
    return data


class _Reader:
    def __init__(self, p: Problems, root: Path):
        self.p = p
        self.root = root
        self.card_names: dict[str, str] = {}   # lower-case name -> file where first defined

    # --- files -------------------------------------------------------------------------------
    def doc(self, rel: str, required: bool = True) -> tuple[str, dict | None]:
        path = self.root / rel
        if not path.is_file():
            if required:
                self.p.add(rel, "", "", "is missing (see docs/data-format.md)")
            return rel, None
        return rel, self.p.read_toml(path)

    def read(self) -> BlastData:
        rules, switches, gear = self.read_game()
        common = self.read_common(rules)
        motivation = self.read_motivation(rules)
        biathletes = self.read_biathletes(rules)
        venues = self.read_venues(rules)
        return BlastData(rules, switches, gear, common, motivation, biathletes, venues, str(self.root))

    # --- game.toml -----------------------------------------------------------------------------
    def read_game(self) -> tuple[Rules, Switches, Gear]:
        file, doc = self.doc("game.toml")
        if doc is None:
            return Rules(), Switches(), _default_gear()
        top = Table(self.p, file, "", doc)
        r = top.table("rules", {})
        r.entry, r.prefix = "[rules]", ""
        d = Rules()
        bands = r.list("accuracy_bands", list(d.accuracy_bands))
        pulse_limit = r.int("pulse_limit", d.pulse_limit, 2, 99,
                            why="accuracy_bands need 0 <= low < medium < pulse_limit")
        if len(bands) != 2 or not all(isinstance(b, int) and not isinstance(b, bool) for b in bands) \
                or not (0 <= bands[0] < bands[1] < pulse_limit):
            r.problem("accuracy_bands", f"must be two whole numbers 0 <= low < medium < pulse_limit "
                                        f"({pulse_limit}), got {bands!r}")
            bands = list(d.accuracy_bands)
        dice = r.list("dice", list(d.dice))
        bad = [x for x in dice if x not in COLOUR_NAMES]
        if bad or not dice or len(set(dice)) != len(dice):
            r.problem("dice", f"must list distinct die colours from {', '.join(COLOUR_NAMES)}, got {dice!r}")
            dice = list(d.dice)
        rules = Rules(
            pulse_limit=pulse_limit,
            accuracy_bands=(bands[0], bands[1]),
            drafting=r.int("drafting", d.drafting, -5, 5),
            headwind=r.int("headwind", d.headwind, -5, 5),
            tailwind=r.int("tailwind", d.tailwind, -5, 5),
            crosswind_hits=r.int("crosswind_hits", d.crosswind_hits, -5, 5),
            windstill_hits=r.int("windstill_hits", d.windstill_hits, -5, 5),
            max_hits=r.int("max_hits", d.max_hits, 1, 10),
            die_faces=r.int("die_faces", d.die_faces, 2, 20),
            dice=tuple(dice),
            face_up_motivation=r.int("face_up_motivation", d.face_up_motivation, 0, MAX_FACE_UP,
                                     why=f"the engine has {MAX_FACE_UP} face-up Motivation slots"),
            common_cards=r.int("common_cards", d.common_cards, 0, 20),
            unique_cards=r.int("unique_cards", d.unique_cards, 1, 20),
            range_visits=r.int("range_visits", d.range_visits, 0, MAX_VISITS,
                               why=f"the engine keeps statistics for up to {MAX_VISITS} visits"),
            start_line_crossings=r.int("start_line_crossings", d.start_line_crossings, 1, 10,
                                       why="the spaces before the first start line are the start grid"),
            round_cap=r.int("round_cap", d.round_cap, 1, 1000),
            initial_wind=r.choice("initial_wind", WINDS, d.initial_wind),
        )
        r.done()
        s = top.table("switches", {})
        s.entry, s.prefix = "[switches]", ""
        ds = Switches()
        switches = Switches(
            mixed_lane_drafting=s.bool("mixed_lane_drafting", ds.mixed_lane_drafting),
            range_drafting=s.bool("range_drafting", ds.range_drafting),
            zero_step_boost=s.bool("zero_step_boost", ds.zero_step_boost),
            coach_boost=s.choice("coach_boost", ("next_turn", "until_usable"), ds.coach_boost),
            motivation_to=s.choice("motivation_to", ("hand", "discard"), ds.motivation_to),
            pulse_floor=s.choice("pulse_floor", ("total", "each_part"), ds.pulse_floor),
            last_racer_wins=s.bool("last_racer_wins", ds.last_racer_wins),
        )
        s.done()
        gear = self.read_gear(top)
        top.done()
        return rules, switches, gear

    def read_gear(self, top: Table) -> Gear:
        g = top.table("gear")
        g.entry, g.prefix = "[gear]", ""
        order = g.list("ski_colours")
        if sorted(map(str, order)) != sorted(COLOUR_NAMES) or len(order) != len(COLOUR_NAMES):
            g.problem("ski_colours", f"must list each of the six colours once "
                                     f"({', '.join(COLOUR_NAMES)}), got {order!r}")
            order = list(COLOUR_NAMES)
        bullets: dict[str, int] = {}
        wax: dict[str, dict[str, int]] = {}
        for colour in COLOUR_NAMES:
            if not g.has(colour):
                g.problem(colour, f"is missing: the gear of the {colour} skis (bullets and wax)")
                bullets[colour], wax[colour] = 0, {}
                continue
            c = g.table(colour)
            c.entry = f"[gear.{colour}]"
            c.prefix = ""
            bullets[colour] = c.int("bullets", None, 0, MAX_TOKENS)
            w = c.table("wax")
            wax[colour] = {}
            for key, n in w.data.items():
                w.used.add(key)
                if key not in WAX_COLOURS:
                    w.problem(key, f"is not a wax colour: expected one of {', '.join(WAX_COLOURS)}")
                    continue
                wax[colour][key] = w.int(key, None, 0, MAX_TOKENS)
            c.done()
        g.done(COLOUR_NAMES)
        return Gear(tuple(order), bullets, wax)

    # --- cards ---------------------------------------------------------------------------------
    def read_common(self, rules: Rules) -> tuple[Card, ...]:
        file, doc = self.doc("cards.toml")
        if doc is None:
            return ()
        top = Table(self.p, file, "", doc)
        # no [[card]] at all is a deck of none: right when common_cards is 0, counted below otherwise
        cards = tuple(self.card(file, t, "common", rules) for t in top.tables("card", []))
        top.done()
        if len(cards) != rules.common_cards:
            self.p.add(file, "", "card", f"must list exactly {rules.common_cards} common cards "
                                         f"(rules.common_cards), found {len(cards)}")
        return cards

    def read_motivation(self, rules: Rules) -> tuple[Card, ...]:
        file, doc = self.doc("motivation.toml")
        if doc is None:
            return ()
        top = Table(self.p, file, "", doc)
        cards = tuple(self.card(file, t, "motivation", rules) for t in top.tables("card"))
        top.done()
        total = sum(c.copies for c in cards)
        if total < rules.face_up_motivation + 1:
            self.p.add(file, "", "card", f"the Motivation deck needs at least "
                                         f"{rules.face_up_motivation + 1} cards, found {total}")
        if total > MAX_MOTIVATION:
            self.p.add(file, "", "copies", f"the Motivation deck holds at most {MAX_MOTIVATION} cards "
                                           f"(copies counted; the engine's deck), found {total}")
        return cards

    def card(self, file: str, data: dict, kind: str, rules: Rules, owner: str | None = None,
             index: int = 0) -> Card:
        name = data.get("name") if isinstance(data.get("name"), str) else None
        t = Table(self.p, file, f"card '{name}'" if name else "card without a name", data)
        name = t.name()
        if name:
            key = name.lower()
            if key in self.card_names:
                t.problem("name", f"duplicate card name: '{name}' is already defined in "
                                  f"{self.card_names[key]} (card names must be unique)")
            else:
                self.card_names[key] = file
        initiative = self.value(t, "initiative", rules, MAX_INITIATIVE, hits=False, required=True)
        top = self.action(t, "top", rules, hits=False)
        bottom = self.action(t, "bottom", rules, hits=False)
        copies = t.int("copies", 1, 1, 28) if kind == "motivation" else 1
        t.done()
        return Card(name, initiative, top, bottom, kind, owner, copies)

    def action(self, parent: Table, key: str, rules: Rules, hits: bool, required: bool = True,
               steps: bool = True) -> Action:
        if not parent.has(key) and required:
            parent.problem(key, "is missing: an action table such as { flat = 3, pulse = 1 }")
            return Action()
        a = parent.table(key, {})
        vals = {}
        for terrain in ("uphill", "flat", "downhill"):
            if steps:
                vals[terrain] = self.value(a, terrain, rules, MAX_STEPS, hits=hits, required=False)
        action = Action(
            **vals,
            pulse=a.int("pulse", 0, -10, 10),
            wind=a.bool("wind", False),
            icy=a.choice("background", ("snowy", "icy"), "snowy") == "icy",
        )
        a.done(("uphill", "flat", "downhill") if not steps else ())
        return action

    def value(self, t: Table, key: str, rules: Rules, hi: int, hits: bool, required: bool) -> Value:
        v = t.raw(key, None if required else 0)
        if v is None:
            return ZERO
        sources = list(rules.dice) + (["hits"] if hits else [])
        expected = (f"a whole number from 0 to {hi}, a die ('{rules.dice[0]}', '2x {rules.dice[0]}'; "
                    f"dice: {', '.join(rules.dice)})" + (", or 'hits' / '2x hits'" if hits else ""))
        if isinstance(v, bool):
            t.problem(key, f"must be {expected}; got {v!r}")
            return ZERO
        if isinstance(v, int):
            if not 0 <= v <= hi:
                t.problem(key, f"must be {expected}; got {v}")
                return ZERO
            return Value(base=v)
        if isinstance(v, str):
            m = _VALUE_RE.match(v.lower())
            if m and m.group(2) in sources:
                mult = int(m.group(1) or 1)
                top = 5 if m.group(2) == "hits" else 2
                if not 1 <= mult <= top:
                    t.problem(key, f"multiplier must be 1 to {top} for '{m.group(2)}', got {v!r}")
                    return ZERO
                return Value(0, m.group(2), mult)
            if m and m.group(2) == "hits":
                t.problem(key, f"'hits' is only allowed in a venue's Shoot action; expected {expected}")
                return ZERO
            if m and m.group(2) in COLOUR_NAMES:
                t.problem(key, f"there is no {m.group(2)} die (rules.dice: {', '.join(rules.dice)})")
                return ZERO
        t.problem(key, f"must be {expected}; got {v!r}")
        return ZERO

    # --- biathletes ----------------------------------------------------------------------------
    def read_biathletes(self, rules: Rules) -> tuple[Biathlete, ...]:
        folder = self.root / "biathletes"
        files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
        if not files:
            self.p.add("biathletes/", "", "", "must hold one .toml file per biathlete")
            return ()
        out: list[Biathlete] = []
        seen: dict[str, str] = {}
        for path in files:
            file, doc = self.doc(self.p.rel(path))
            if doc is None:
                continue
            name = doc.get("name") if isinstance(doc.get("name"), str) else None
            t = Table(self.p, file, f"biathlete '{name}'" if name else "biathlete", doc)
            name = t.name()
            if name.lower() in seen:
                t.problem("name", f"duplicate biathlete name: '{name}' is also in {seen[name.lower()]}")
            seen[name.lower()] = file
            nation = t.str("nation")
            acc = t.list("accuracy")
            faces = rules.die_faces
            if (len(acc) != 3 or not all(isinstance(a, int) and not isinstance(a, bool) for a in acc)
                    or not all(0 <= a <= faces for a in acc)):
                t.problem("accuracy", f"must be three hit thresholds from 0 to {faces} for low, medium "
                                      f"and high pulse (e.g. [2, 4, 4]), got {acc!r}")
                acc = [faces, faces, faces]
            elif not acc[0] <= acc[1] <= acc[2]:
                t.problem("accuracy", f"must not get better as pulse rises (low <= medium <= high), "
                                      f"got {acc!r}")
            f = t.table("flags", {})
            flags = tuple(f.int(c, 0, 0, 5) for c in COLOUR_NAMES)
            f.done()
            description = t.str("description", "")
            cards = tuple(self.card(file, c, "unique", rules, owner=name) for c in t.tables("card"))
            if len(cards) != rules.unique_cards:
                t.problem("card", f"must list exactly {rules.unique_cards} unique cards "
                                  f"(rules.unique_cards), found {len(cards)}")
            t.done()
            out.append(Biathlete(name, nation, tuple(acc), flags, description, cards))
        if len(out) < MAX_RACERS and not any(pr.file.startswith("biathletes") for pr in self.p.items):
            self.p.add("biathletes/", "", "", f"must hold at least {MAX_RACERS} biathletes "
                                              f"(one per ski colour), found {len(out)}")
        return tuple(out)

    # --- venues --------------------------------------------------------------------------------
    def read_venues(self, rules: Rules) -> tuple[Venue, ...]:
        folder = self.root / "venues"
        files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
        if not files:
            self.p.add("venues/", "", "", "must hold one .toml file per venue")
            return ()
        venues = []
        trail_names: dict[str, str] = {}
        venue_names: set[str] = set()
        for path in files:
            file, doc = self.doc(self.p.rel(path))
            if doc is None:
                continue
            v = self.venue(file, doc, rules, trail_names)
            if v.name.lower() in venue_names:
                self.p.add(file, f"venue '{v.name}'", "name", "duplicate venue name")
            venue_names.add(v.name.lower())
            venues.append(v)
        return tuple(venues)

    def venue(self, file: str, doc: dict, rules: Rules, trail_names: dict[str, str]) -> Venue:
        vname = doc.get("name") if isinstance(doc.get("name"), str) else Path(file).stem
        t = Table(self.p, file, f"venue '{vname}'", doc)
        name = t.name()
        r = t.table("range")
        mats = r.int("mats", None, MAX_RACERS, 12)
        facing = r.choice("facing", HEADING_LETTERS, None, "a heading:")
        terrain = r.choice("terrain", TERRAIN_LETTERS, "F", "a terrain letter:")
        range_coach = None
        if r.has("coach"):
            zt = r.table("coach")
            colour = zt.choice("colour", COLOUR_NAMES, None, "a colour:")
            strength = zt.int("strength", None, 1, 5)
            zt.done()
            range_coach = CoachZone(1, colour, strength)
        rng = Range(mats=mats, facing=facing, terrain=terrain, coach=range_coach)
        r.done()
        wait = self.action(t, "wait", rules, hits=False, steps=False)
        shoot = self.action(t, "shoot", rules, hits=True)
        segs_t = t.table("segments")
        segments: dict[str, Segment] = {}
        broken: set[str] = set()    # segments with problems already reported
        for sname in segs_t.data:
            segs_t.used.add(sname)
            if sname == RANGE:
                segs_t.problem(sname, "'range' is reserved for the venue's shooting range")
                continue
            seg = self.segment(file, sname, segs_t.data[sname])
            if seg is not None:
                segments[sname] = seg
            else:
                broken.add(sname)
        trails = []
        for td in t.tables("trail"):
            tn = td.get("name") if isinstance(td.get("name"), str) else None
            tt = Table(self.p, file, f"trail '{tn}'" if tn else "trail without a name", td)
            tname = tt.name()
            if tname.lower() in trail_names:
                tt.problem("name", f"duplicate trail name: '{tname}' is also in {trail_names[tname.lower()]}")
            trail_names[tname.lower()] = file
            route = tt.list("route")
            ok = True
            for i, item in enumerate(route):
                if item in broken:
                    ok = False
                elif item != RANGE and item not in segments:
                    known = ", ".join(sorted(segments)) or "none"
                    tt.problem(f"route[{i}]", f"'{item}' is not a segment of this venue "
                                              f"(segments: {known}; or 'range')")
                    ok = False
            tt.done()
            trail = Trail(tname, name, tuple(str(x) for x in route))
            if ok and route:
                self.check_route(file, rules, rng, Venue(name, file, rng, wait, shoot, segments, ()), trail, tt)
            elif not route:
                tt.problem("route", "must list the segments of the route, e.g. "
                                    "[\"grid\", \"loop\", \"range\", ...]")
            trails.append(trail)
        if not trails:
            t.problem("trail", "must define at least one [[trail]]")
        # a fork heading must name a route item that follows the segment in some trail
        follows: dict[str, set[str]] = {}
        for trail in trails:
            for a, b in zip(trail.route, trail.route[1:]):
                follows.setdefault(a, set()).add(b)
        for sname, seg in segments.items():
            for nxt, _ in seg.fork_heading:
                if nxt not in follows.get(sname, set()):
                    after = ", ".join(sorted(follows.get(sname, set()))) or "nothing"
                    self.p.add(file, f"segment '{sname}'", f"segments.{sname}.fork_heading.{nxt}",
                               f"'{nxt}' never follows segment '{sname}' in a trail's route of this venue "
                               f"(it is followed by: {after}); a fork heading names the next segment "
                               f"(or 'range') of one branch")
        t.done()
        return Venue(name, file, rng, wait, shoot, segments, tuple(trails))

    def segment(self, file: str, name: str, data: dict) -> Segment | None:
        t = Table(self.p, file, f"segment '{name}'", data, f"segments.{name}.")
        raw_terrain = t.str("terrain")
        raw_lanes = t.str("lanes")
        raw_heading = t.str("heading")
        terrain, starts, finishes = [], [], []
        bad = False
        for ch in raw_terrain:
            if ch.isspace():
                continue
            if ch == "|":
                starts.append(len(terrain))
            elif ch == "#":
                finishes.append(len(terrain))
            elif ch.upper() in TERRAIN_LETTERS:
                terrain.append(ch.upper())
            else:
                t.problem("terrain", f"'{ch}' at space {len(terrain) + 1} is not a terrain: expected "
                                     f"U, F or D, or the markers | (start line) and # (finish line)")
                terrain.append("F")
                bad = True
        lanes = []
        for ch in raw_lanes:
            if ch.isspace():
                continue
            if ch in "12":
                lanes.append(int(ch))
            else:
                t.problem("lanes", f"'{ch}' at space {len(lanes) + 1} is not a lane count: expected 1 or 2")
                lanes.append(1)
                bad = True
        heading = []
        for ch in raw_heading:
            if ch.isspace():
                continue
            if ch.upper() in HEADING_LETTERS:
                heading.append(ch.upper())
            else:
                t.problem("heading", f"'{ch}' at space {len(heading) + 1} is not a heading: "
                                     f"expected N, E, S or W")
                heading.append("N")
                bad = True
        n = len(terrain)
        if n == 0:
            t.problem("terrain", "must have at least one space")
        if len(lanes) != n or len(heading) != n:
            t.problem("lanes" if len(lanes) != n else "heading",
                      f"route strings must have the same length: terrain has {n} spaces, "
                      f"lanes {len(lanes)}, heading {len(heading)} (blanks and markers not counted)")
        coach = []
        seen = set()
        for i, z in enumerate(t.list("coach", [])):
            zt = Table(self.p, file, f"segment '{name}'", z, f"segments.{name}.coach[{i}].")
            space = zt.int("space", None, 1, max(n, 1))
            colour = zt.choice("colour", COLOUR_NAMES, None, "a colour:")
            strength = zt.int("strength", None, 1, 5)
            zt.done()
            if space in seen:
                zt.problem("space", f"space {space} already has a coach zone")
            seen.add(space)
            coach.append(CoachZone(space, colour, strength))
        fork = []
        if t.has("fork_heading"):
            ft = t.table("fork_heading")
            for nxt in ft.data:
                ft.used.add(nxt)
                letter = ft.data[nxt]
                if not isinstance(letter, str) or letter.upper() not in HEADING_LETTERS:
                    ft.problem(nxt, f"must be a heading, one of N, E, S, W (the way a racer on the "
                                    f"segment's last space faces when its route goes on to '{nxt}'); "
                                    f"got {letter!r}")
                    bad = True
                    continue
                fork.append((str(nxt), letter.upper()))
            ft.done()
        t.done()
        if bad or len(lanes) != n or len(heading) != n or n == 0:
            return None
        return Segment(name, "".join(terrain), tuple(lanes), "".join(heading), tuple(starts),
                       tuple(finishes), tuple(sorted(coach, key=lambda z: z.space)), tuple(sorted(fork)))

    def check_route(self, file: str, rules: Rules, rng: Range, venue: Venue, trail: Trail,
                    t: Table) -> None:
        layout = unroll(venue, trail)
        if len(layout) > MAX_ROUTE:
            t.problem("route", f"the route has {len(layout)} spaces; at most {MAX_ROUTE} (event logs "
                               f"store positions as 16-bit numbers)")
        for marker in layout.dangling:
            t.problem("route", f"the {marker} is typed after the last space of the route; a space "
                               f"must follow it")
        visits = len(layout.range_positions)
        if visits != rules.range_visits:
            t.problem("route", f"must pass the shooting range exactly {rules.range_visits} times "
                               f"(rules.range_visits), passes it {visits} times")
        crossings = len(layout.start_line_positions)
        if crossings != rules.start_line_crossings:
            t.problem("route", f"must cross the start line exactly {rules.start_line_crossings} times "
                               f"(rules.start_line_crossings; markers '|'), crosses it {crossings} times")
        finishes = layout.finish_positions
        if len(finishes) != 1:
            t.problem("route", f"must have exactly one finish line (marker '#'), has {len(finishes)}")
        elif finishes[0] != len(layout) - 1:
            t.problem("route", f"the finish line must be followed by exactly one space (the run-out) at "
                               f"the end of the route; {len(layout) - 1 - finishes[0]} more follow it")
        elif layout.spaces[finishes[0]].is_range:
            t.problem("route", "the run-out space after the finish line cannot be the range")
        if crossings:
            capacity = sum(s.lanes for s in layout.grid)
            if capacity < MAX_RACERS:
                t.problem("route", f"the start grid (the {len(layout.grid)} spaces before the first start "
                                   f"line) holds {capacity} racers; it must hold {MAX_RACERS}")
            if any(s.is_range for s in layout.grid):
                t.problem("route", "the range cannot be part of the start grid")
        if layout.range_positions and finishes and layout.range_positions[-1] > finishes[0]:
            t.problem("route", "the range cannot come after the finish line")
        for a, b in zip(layout.spaces, layout.spaces[1:]):
            if a.is_range and b.is_range:
                t.problem("route", "the range cannot follow the range directly")
                break


def _default_gear() -> Gear:
    return Gear(COLOUR_NAMES, {c: 0 for c in COLOUR_NAMES}, {c: {} for c in COLOUR_NAMES})


# --- warnings: legal data that is probably not what the designer meant ----------------------------
_ENTERS = {"U": "uphill", "F": "uphill or flat", "D": "any"}      # the steps that may enter a terrain
_WAX_FOR = {"U": "black", "F": "black or yellow", "D": "black, yellow or green"}


def data_warnings(data: BlastData) -> list[Problem]:
    """Warnings about a valid data set that races cannot use as meant: a terrain no card can move
    on, a trail no race can finish within the round cap, a biathlete whose dice never hit.

    Not errors: the data loads and races play (they stall, or crawl on wax), and a designer may
    want exactly that. Each warning is a `Problem` (file: entry: field: what is odd)."""
    rules = data.rules
    out: list[Problem] = []
    files = _biathlete_files(data)

    def most(v: Value) -> int:
        if v.source is None:
            return v.base
        top = rules.max_hits if v.source == "hits" else rules.die_faces - 1
        return v.base + v.mult * top

    def enters(action: Action, terrain: str) -> bool:
        up, flat, down = (most(v) for v in action.steps)
        return {"U": up > 0, "F": up + flat > 0, "D": up + flat + down > 0}[terrain]

    def card_enters(cards, terrain: str) -> bool:
        return any(enters(c.top, terrain) or enters(c.bottom, terrain) for c in cards)

    # terrain that some trail makes racers enter, by trail
    needed: dict[str, list[str]] = {"U": [], "F": [], "D": []}
    layouts = [(t, unroll(data.venue_of(t), t)) for t in data.trails]
    for t, layout in layouts:
        for letter in needed:
            n = sum(1 for s in layout.spaces[1:] if s.terrain == letter)
            if n:
                needed[letter].append(f"'{t.name}' ({n})")
    names = dict(zip("UFD", ("uphill", "flat", "downhill")))
    for letter, where in needed.items():
        if not where:
            continue
        trails = ", ".join(where[:3]) + (" ..." if len(where) > 3 else "")
        how = (f"only {_WAX_FOR[letter]} wax, coach boosts of those colours or a venue's Shoot action "
               f"can move a racer there")
        everyone = card_enters(data.common + data.motivation, letter) or any(
            card_enters(b.cards, letter) for b in data.biathletes)
        if not everyone:
            out.append(Problem("cards.toml", "", "card",
                               f"no card (common, unique or Motivation) has a step that can enter "
                               f"{names[letter]} spaces ({_ENTERS[letter]} steps), and trails {trails} "
                               f"have such spaces: {how}"))
            continue
        for b in data.biathletes:
            if not card_enters(data.common + b.cards + data.motivation, letter):
                out.append(Problem(files.get(b.name, "biathletes/"), f"biathlete '{b.name}'", "card",
                                   f"no card of {b.name}'s deck nor of the Motivation deck has a step "
                                   f"that can enter {names[letter]} spaces ({_ENTERS[letter]} steps), "
                                   f"and trails {trails} have such spaces: {how}"))

    # trails no race can finish within the round cap
    cards = data.common + data.motivation + tuple(c for b in data.biathletes for c in b.cards)
    card_most = max((sum(most(v) for v in a.steps) for c in cards for a in (c.top, c.bottom)), default=0)
    wax_most = max((sum(w.get(c, 0) for c in ("black", "yellow", "green")) for w in data.gear.wax.values()),
                   default=0)
    for t, layout in layouts:
        venue = data.venue_of(t)
        coach = max((s.coach[1] for s in layout.spaces if s.coach and s.coach[0] in ("black", "yellow", "green")),
                    default=0)   # range zones included: the layout carries them
        per_turn = max(card_most, sum(most(v) for v in venue.shoot.steps)) + wax_most + coach
        slots = layout.grid_slots()
        if not slots or not layout.finish_positions:
            continue
        stops = list(layout.range_positions) + [layout.finish_positions[0]]
        here, turns = max(p for p, _ in slots), 0
        for stop in stops:
            if stop > here:
                turns += -(-(stop - here) // per_turn) if per_turn > 0 else rules.round_cap + 1
            here = stop
        if turns > rules.round_cap:
            out.append(Problem(venue.file, f"trail '{t.name}'", "route",
                               f"a race needs at least {turns} rounds to finish even if every turn moved "
                               f"{per_turn} spaces (the most a card or the Shoot action, all of a racer's "
                               f"terrain wax and a coach boost can give), but rules.round_cap is "
                               f"{rules.round_cap}: every race on this trail will stall"))

    # biathletes whose dice never hit
    for b in data.biathletes:
        if all(a >= rules.die_faces for a in b.accuracy):
            out.append(Problem(files.get(b.name, "biathletes/"), f"biathlete '{b.name}'", "accuracy",
                               f"every threshold is {rules.die_faces} or more but the dice show 0 to "
                               f"{rules.die_faces - 1}: {b.name}'s dice can never hit (hits come only from "
                               f"windstill, bullets and red coach boosts)"))
    return out


def _biathlete_files(data: BlastData) -> dict[str, str]:
    """Biathlete name -> its file relative to the data directory (best effort, for warnings)."""
    out: dict[str, str] = {}
    folder = Path(data.source) / "biathletes" if data.source else None
    if folder is None or not folder.is_dir():
        return out
    import tomllib

    for path in sorted(folder.glob("*.toml")):
        try:
            name = tomllib.loads(path.read_text(encoding="utf-8")).get("name")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(name, str):
            out.setdefault(name.strip(), f"biathletes/{path.name}")
    return out
