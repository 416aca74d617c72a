"""Loading and validating a Ski Tour: Biathlon data directory (format: docs/skitour/data-format.md).

`load_data(path)` reads every file, checks every field and cross-reference, and returns a frozen
`SkiTourData`, or raises one `DataError` listing every problem as `file: entry: field: expected`.
"""
from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from kernels.skitour.consts import (
    BOX_NAMES, COLLAPSE_ON, FIRST_PLAYERS, N_COLUMNS, NATION_SIDES, RESHOT_SCOPES, SIDE_KINDS, SPACE_LETTERS,
    TWO_PLAYER_SEATS, WAX_ICON_NAMES,
)

from ..data import resolve
from ..validation import Patch, Problems, Table
from .model import (
    Course, Die, Nation, Rules, SkiTourData, Slot, Switches, Tile, TileSide, WaxToken,
)

RANGE_PAYMENTS = ("highest_unshot", "choice")
ACTIONS = tuple(n for n in WAX_ICON_NAMES if n != "stamina")
MAX_SLOTS = 12
MAX_VALUE = 99          # stamina values are compiled to int16; 99 is plenty
MAX_CAPACITY = 10
_SLOT_RE = re.compile(r"^(\d+)([A-Za-z])$")
_SIDE_RE = re.compile(r"^\s*(\d+)\s*([abAB])\s*$")
FORMAT = "see docs/skitour/data-format.md"


def default_data_dir() -> Path:
    """The illustrative data set shipped inside the package."""
    return Path(str(resources.files("sim.data") / "skitour"))


def load_data(path: str | Path | None = None, patches: list[Patch] = ()) -> SkiTourData:
    """Read and validate a data directory (the shipped one by default, or a shipped example set by
    its name, such as skitour-unbalanced), with `patches` applied to the files as they are read (a
    data variant)."""
    root = resolve(path) if path is not None else default_data_dir()
    p = Problems(root, patches)
    if not root.is_dir():
        p.add(str(root), "", "", f"must be a data directory ({FORMAT})")
        p.raise_if_any()
    data = _Reader(p, root).read()
    p.check_patches_applied()
    p.raise_if_any()
    return data


#: the text of a token with no icon (docs/skitour/data-format.md, Wax tokens)
BLANK = "blank"


def parse_wax(text: str) -> tuple[WaxToken | None, str | None]:
    """A wax token from its text ("sprint", "stamina + plus_one", "reroll_one / reroll_all", or
    "blank": no icon); (token, None) or (None, what was expected)."""
    if not isinstance(text, str) or not text.strip():
        return None, (f"must be a token such as \"sprint\", \"stamina + free_column\", \"plus_one / minus_one\" "
                      f"or \"{BLANK}\" (no icon); got {text!r}")
    words = text.strip()
    if words == BLANK:
        return WaxToken(BLANK, False, (), False), None
    if re.search(rf"\b{BLANK}\b", words):
        return None, f"{BLANK!r} is a whole token with no icon; it cannot be combined with icons in {words!r}"
    stamina = False
    rest = words
    m = re.match(r"^stamina\s*(?:\+\s*(.*))?$", words)
    if m:
        stamina, rest = True, (m.group(1) or "")
    one_of = "/" in rest
    if one_of and "+" in rest:
        return None, (f"mixes '+' and '/' in {words!r}: only a leading 'stamina +' may come before a "
                      f"'/' choice")
    parts = [w.strip() for w in re.split(r"[/+]", rest)] if rest.strip() else []
    known = ", ".join(WAX_ICON_NAMES)
    actions: list[str] = []
    for w in parts:
        if w == "stamina":
            if one_of:
                return None, f"'stamina' cannot be one of a '/' choice in {words!r}; write 'stamina + a / b'"
            if stamina:
                return None, f"shows 'stamina' twice in {words!r}"
            stamina = True
            continue
        if w not in ACTIONS:
            return None, f"{w!r} in {words!r} is not a wax icon: expected {known}"
        if w in actions:
            return None, f"shows {w!r} twice in {words!r}"
        actions.append(w)
    if one_of and len(actions) < 2:
        return None, f"a '/' choice needs two icons in {words!r}"
    if not stamina and not actions:
        return None, f"must show at least one icon ({known})"
    return WaxToken(words, stamina, tuple(actions), one_of), None


class _Reader:
    def __init__(self, p: Problems, root: Path):
        self.p = p
        self.root = root

    def doc(self, rel: str) -> tuple[str, dict | None]:
        path = self.root / rel
        if not path.is_file():
            self.p.add(rel, "", "", f"is missing ({FORMAT})")
            return rel, None
        return rel, self.p.read_toml(path)

    def read(self) -> SkiTourData:
        rules, switches, dice = self.read_game()
        nations = self.read_nations(rules, dice)
        tiles = self.read_tiles(rules)
        courses = self.read_courses(rules, tiles)
        return SkiTourData(rules, switches, dice, nations, tiles, courses, str(self.root))

    # --- game.toml -----------------------------------------------------------------------------
    def read_game(self) -> tuple[Rules, Switches, tuple[Die, ...]]:
        file, doc = self.doc("game.toml")
        if doc is None:
            return Rules(), Switches(), ()
        top = Table(self.p, file, "", doc)
        r = top.table("rules", {})
        r.entry, r.prefix = "[rules]", ""
        d = Rules()
        targets = r.int("targets", d.targets, 1, 10)
        laps = r.list("penalty_laps", list(d.penalty_laps))
        if (len(laps) != targets + 1 or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 10
                                                for x in laps)):
            r.problem("penalty_laps", f"must list the laps for 0 to {targets} misses ({targets + 1} whole "
                                      f"numbers from 0 to 10), got {laps!r}")
            laps = [(m + 1) // 2 for m in range(targets + 1)]
        elif any(a > b for a, b in zip(laps, laps[1:])):
            r.problem("penalty_laps", f"must not fall as misses rise, got {laps!r}")
        wax_tokens = r.int("wax_tokens", d.wax_tokens, 1, 20)
        wax_row = r.int("wax_row", d.wax_row, 0, 20)
        if wax_row > wax_tokens:
            r.problem("wax_row", f"must be at most wax_tokens ({wax_tokens}), got {wax_row}")
            wax_row = wax_tokens
        exhausted = r.str("exhausted_colour", d.exhausted_colour)
        rules = Rules(
            race_dice=r.int("race_dice", d.race_dice, 1, 30),
            targets=targets,
            wax_tokens=wax_tokens,
            wax_row=wax_row,
            penalty_laps=tuple(laps),
            downhill_moves=r.int("downhill_moves", d.downhill_moves, 0, 10),
            downhill_passes=r.int("downhill_passes", d.downhill_passes, 0, 10),
            uphill_penalty=r.int("uphill_penalty", d.uphill_penalty, 0, 10),
            long_race_ranges=r.int("long_race_ranges", d.long_race_ranges, 0, 20),
            lanes=r.int("lanes", d.lanes, 1, 9),
            exhausted_colour=exhausted,
            round_cap=r.int("round_cap", d.round_cap, 1, 1000),
        )
        r.done()
        s = top.table("switches", {})
        s.entry, s.prefix = "[switches]", ""
        ds = Switches()
        switches = Switches(
            short_race_on_top=s.bool("short_race_on_top", ds.short_race_on_top),
            range_payment=s.choice("range_payment", RANGE_PAYMENTS, ds.range_payment),
            draft_follows_bonus=s.bool("draft_follows_bonus", ds.draft_follows_bonus),
            drafter_bonus=s.bool("drafter_bonus", ds.drafter_bonus),
            reroll_blue_removal=s.bool("reroll_blue_removal", ds.reroll_blue_removal),
            diagonal_is_sideways=s.bool("diagonal_is_sideways", ds.diagonal_is_sideways),
            sprint_icon_column=s.bool("sprint_icon_column", ds.sprint_icon_column),
            reroll_shot_scope=s.choice("reroll_shot_scope", RESHOT_SCOPES, ds.reroll_shot_scope),
            first_player=s.choice("first_player", FIRST_PLAYERS, ds.first_player),
            two_player_seats=s.choice("two_player_seats", TWO_PLAYER_SEATS, ds.two_player_seats),
            collapse_on=s.choice("collapse_on", COLLAPSE_ON, ds.collapse_on),
        )
        s.done()
        dice = self.read_dice(top, rules)
        top.done()
        return rules, switches, dice

    def read_dice(self, top: Table, rules: Rules) -> tuple[Die, ...]:
        t = top.table("dice")
        t.entry, t.prefix = "[dice]", ""
        dice: list[Die] = []
        letters: dict[str, str] = {}
        for name in t.data:
            t.used.add(name)
            dt = Table(self.p, t.file, f"[dice.{name}]", t.data[name])
            letter = dt.str("letter")
            if len(letter) != 1 or not letter.isalpha():
                dt.problem("letter", f"must be one letter, got {letter!r}")
            elif letter.upper() in letters:
                dt.problem("letter", f"'{letter}' is also the letter of the {letters[letter.upper()]} die")
            letters[letter.upper()] = name
            raw = dt.str("faces")
            cells = raw.split()
            if len(cells) < 2 or any(c not in ("H", "M") for c in cells):
                dt.problem("faces", f"must list at least two faces, each H (hit) or M (miss), separated by "
                                    f"blanks (e.g. \"H H H H M M\"), got {raw!r}")
                cells = ["M", "M"]
            dt.done()
            dice.append(Die(name, letter.upper(), tuple(c == "H" for c in cells)))
        if not dice:
            t.problem("", "must define the shooting dice, e.g. [dice.green] letter = \"G\" faces = \"H H H H H M\"")
        elif rules.exhausted_colour not in {d.name for d in dice}:
            self.p.add(t.file, "[rules]", "exhausted_colour",
                       f"must name one of the dice ({', '.join(d.name for d in dice)}), got {rules.exhausted_colour!r}")
        return tuple(dice)

    # --- nations -------------------------------------------------------------------------------
    def read_nations(self, rules: Rules, dice: tuple[Die, ...]) -> tuple[Nation, ...]:
        folder = self.root / "nations"
        files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
        if not files:
            self.p.add("nations/", "", "", "must hold one .toml file per nation (board side)")
            return ()
        out: list[Nation] = []
        names: dict[str, str] = {}
        sides: dict[tuple[int, str], str] = {}
        for path in files:
            file, doc = self.doc(self.p.rel(path))
            if doc is None:
                continue
            n = self.nation(file, doc, rules, dice)
            key = n.name.lower()
            if key in names:
                self.p.add(file, f"nation '{n.name}'", "name", f"duplicate nation name: also in {names[key]}")
            names[key] = file
            if (n.board, n.side) in sides:
                self.p.add(file, f"nation '{n.name}'", "board",
                           f"board {n.board} already has a {n.side} side ({sides[n.board, n.side]}); a board "
                           f"has one basic and one advanced side")
            sides[n.board, n.side] = n.name
            out.append(n)
        return tuple(out)

    def nation(self, file: str, doc: dict, rules: Rules, dice: tuple[Die, ...]) -> Nation:
        label = doc.get("name") if isinstance(doc.get("name"), str) else Path(file).stem
        t = Table(self.p, file, f"nation '{label}'", doc)
        name = t.name()
        side = t.choice("side", NATION_SIDES)
        board = t.int("board", None, 1, 99)
        colour = t.str("colour", "")
        stamina = self.stamina(t, rules, dice)
        c = t.table("columns")
        capacity = self.four(c, "capacity", 1, MAX_CAPACITY, (4,) * N_COLUMNS)
        full_at = self.four(c, "full_at", 1, MAX_CAPACITY, capacity)
        for i, (f, cap) in enumerate(zip(full_at, capacity)):
            if f > cap:
                c.problem("full_at", f"column {i + 1} is full at {f} dice but holds only {cap} (capacity)")
        boxes = c.list("boxes")
        if len(boxes) != N_COLUMNS or any(b not in BOX_NAMES for b in boxes):
            c.problem("boxes", f"must list the box above each of the {N_COLUMNS} columns, each "
                               f"{' or '.join(repr(b) for b in BOX_NAMES)}, got {boxes!r}")
            boxes = ["star"] * N_COLUMNS
        sprint = c.int("sprint", None, 1, MAX_CAPACITY)
        c.done()
        w = t.table("wax")
        wax = []
        raw = w.list("tokens")
        for i, text in enumerate(raw):
            token, error = parse_wax(text)
            if error:
                w.problem(f"tokens[{i}]", error)
            else:
                wax.append(token)
        if len(raw) != rules.wax_tokens:
            w.problem("tokens", f"must list exactly {rules.wax_tokens} tokens (rules.wax_tokens), found {len(raw)}")
        printed = None
        if w.has("printed"):
            printed, error = parse_wax(w.str("printed"))
            if error:
                w.problem("printed", error)
            elif printed.text == BLANK:
                w.problem("printed", f"a printed token must show an icon: leave 'printed' out for a board "
                                     f"without one, not {BLANK!r}")
                printed = None
        w.done()
        t.done()
        return Nation(name, side, board, colour, stamina, capacity, full_at, tuple(boxes), sprint,
                      tuple(wax), printed, file)

    def four(self, t: Table, key: str, lo: int, hi: int, fallback) -> tuple[int, ...]:
        v = t.list(key)
        if len(v) != N_COLUMNS or not all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi
                                          for x in v):
            t.problem(key, f"must list {N_COLUMNS} whole numbers from {lo} to {hi}, one per column 1-4, "
                           f"got {v!r}")
            return tuple(fallback)
        return tuple(v)

    def stamina(self, t: Table, rules: Rules, dice: tuple[Die, ...]) -> tuple[tuple[Slot, ...], ...]:
        st = t.table("stamina")
        rows = st.list("slots")
        st.done()
        by_letter = {d.letter: d.name for d in dice}
        n = rules.targets
        columns: list[list[Slot]] = [[] for _ in range(n)]
        bad = False
        for r, row in enumerate(rows):
            field = f"slots[{r}]"
            cells = row.split() if isinstance(row, str) else None
            if cells is None or len(cells) != n:
                st.problem(field, f"must be a string of {n} cells (one per stamina column, e.g. \"6G 6G 6G 6G "
                                  f"6G\"), got {row!r}")
                bad = True
                continue
            for col, cell in enumerate(cells):
                if cell == ".":
                    if columns[col]:
                        st.problem(field, f"column {col + 1} has a gap: '.' below a slot (a shorter column "
                                          f"starts lower; its slots run to the bottom row)")
                        bad = True
                    continue
                m = _SLOT_RE.match(cell)
                if not m or m.group(2).upper() not in by_letter:
                    st.problem(field, f"cell {cell!r} of column {col + 1} must be a value and a die letter "
                                      f"({', '.join(by_letter) or 'none'}), e.g. '6G', or '.' for no slot")
                    bad = True
                    continue
                value = int(m.group(1))
                if value > MAX_VALUE:
                    st.problem(field, f"cell {cell!r} of column {col + 1}: a stamina value is at most {MAX_VALUE}")
                    bad = True
                    continue
                columns[col].append(Slot(value, by_letter[m.group(2).upper()]))
        if bad or not rows:
            if not rows:
                st.problem("slots", "must list the stamina rows from the top down")
            return tuple(tuple(c) for c in columns)
        bottoms = set()
        for col, slots in enumerate(columns):
            where = f"column {col + 1}"
            if len(slots) < 2:
                st.problem("slots", f"{where} needs at least 2 slots (top and second top), has {len(slots)}")
                continue
            if len(slots) > MAX_SLOTS:
                st.problem("slots", f"{where} has {len(slots)} slots; at most {MAX_SLOTS}")
            values = [s.value for s in slots]
            if any(a <= b for a, b in zip(values, values[1:])):
                st.problem("slots", f"{where}: values must fall from the top down, got {values}")
            if slots[-1].die != rules.exhausted_colour:
                st.problem("slots", f"{where}: the bottom slot must be {rules.exhausted_colour} "
                                    f"(rules.exhausted_colour), got {slots[-1].die}")
            if any(s.die == rules.exhausted_colour for s in slots[:-1]):
                st.problem("slots", f"{where}: only the bottom slot may be {rules.exhausted_colour}")
            bottoms.add(slots[-1].value)
        if len(bottoms) > 1:
            st.problem("slots", f"every column's bottom (lowest) slot must have the same value, got "
                                f"{sorted(bottoms)}")
        return tuple(tuple(c) for c in columns)

    # --- tiles ---------------------------------------------------------------------------------
    def read_tiles(self, rules: Rules) -> tuple[Tile, ...]:
        file, doc = self.doc("tiles.toml")
        if doc is None:
            return ()
        top = Table(self.p, file, "", doc)
        tiles: list[Tile] = []
        numbers: set[int] = set()
        for i, td in enumerate(top.tables("tile")):
            num = td.get("number")
            tt = Table(self.p, file, f"tile {num}" if isinstance(num, int) else f"tile #{i + 1}", td)
            number = tt.int("number", None, 1, 999)
            if number in numbers:
                tt.problem("number", f"duplicate tile number {number}")
            numbers.add(number)
            a = self.side(tt, number, "a", rules)
            b = self.side(tt, number, "b", rules)
            tt.done()
            tiles.append(Tile(number, a, b))
        if not tiles:
            top.problem("tile", "must define the tiles as [[tile]] entries")
        top.done()
        return tuple(tiles)

    def side(self, tt: Table, number: int, letter: str, rules: Rules) -> TileSide:
        st = tt.table(letter)
        kind = st.choice("kind", SIDE_KINDS)
        rows_raw = st.list("rows")
        rows: list[str] = []
        for r, row in enumerate(rows_raw):
            cells = row.split() if isinstance(row, str) else None
            if cells is None or len(cells) != rules.lanes:
                st.problem(f"rows[{r}]", f"must have {rules.lanes} cells (rules.lanes) separated by blanks, "
                                         f"e.g. \". G -\", got {row!r}")
                rows.append("." * rules.lanes)
                continue
            bad = [c for c in cells if len(c) != 1 or c.upper() not in SPACE_LETTERS]
            if bad:
                st.problem(f"rows[{r}]", f"{bad[0]!r} is not a space: expected . (lane), G (green), R (red), "
                                         f"W (white area), S (shooting space) or - (no space)")
                rows.append("." * rules.lanes)
                continue
            text = "".join(c.upper() for c in cells)
            if set(text) == {"-"}:
                st.problem(f"rows[{r}]", "must hold at least one space")
            if "S" in text and kind != "range":
                st.problem(f"rows[{r}]", "shooting spaces (S) belong on a range side (kind = \"range\")")
            rows.append(text)
        if not rows_raw:
            st.problem("rows", "must list at least one row")
        free_rows = penalty = 0
        if kind == "start":
            free_rows = st.int("free_rows", 0, 0, max(len(rows), 0))
        elif st.has("free_rows"):
            st.raw("free_rows")
            st.problem("free_rows", "only a start side has free rows")
        if kind == "range":
            penalty = st.int("penalty_lane", None, 1, 20)
            shoot_rows = [i for i, row in enumerate(rows) if "S" in row]
            if len(shoot_rows) != 1:
                st.problem("rows", f"a range side needs exactly one row of shooting spaces (S), has "
                                   f"{len(shoot_rows)}")
            elif set(rows[shoot_rows[0]]) - {"S", "-"}:
                st.problem(f"rows[{shoot_rows[0]}]", "a shooting row holds only S and - (every racer must stop "
                                                    "at the range)")
        elif st.has("penalty_lane"):
            st.raw("penalty_lane")
            st.problem("penalty_lane", "only a range side has a penalty lane")
        st.done()
        return TileSide(number, letter, kind, tuple(rows), free_rows, penalty)

    # --- courses -------------------------------------------------------------------------------
    def read_courses(self, rules: Rules, tiles: tuple[Tile, ...]) -> tuple[Course, ...]:
        file, doc = self.doc("courses.toml")
        if doc is None:
            return ()
        top = Table(self.p, file, "", doc)
        sides = {s.label: s for t in tiles for s in (t.a, t.b)}
        courses: list[Course] = []
        names: set[str] = set()
        for cd in top.tables("course"):
            cname = cd.get("name") if isinstance(cd.get("name"), str) else None
            ct = Table(self.p, file, f"course '{cname}'" if cname else "course without a name", cd)
            name = ct.name()
            if name.lower() in names:
                ct.problem("name", f"duplicate course name '{name}'")
            names.add(name.lower())
            raw = ct.list("tiles")
            labels: list[str] = []
            used: dict[int, str] = {}
            ok = bool(raw)
            for i, item in enumerate(raw):
                m = _SIDE_RE.match(item) if isinstance(item, str) else None
                if not m:
                    ct.problem(f"tiles[{i}]", f"must be a tile number and side, e.g. \"7a\", got {item!r}")
                    ok = False
                    continue
                label = f"{int(m.group(1))}{m.group(2).lower()}"
                if label not in sides:
                    ct.problem(f"tiles[{i}]", f"there is no tile side {label} in tiles.toml")
                    ok = False
                    continue
                num = int(m.group(1))
                if num in used:
                    ct.problem(f"tiles[{i}]", f"tile {num} is already laid as {used[num]}; a tile has one side up")
                    ok = False
                used[num] = label
                labels.append(label)
            if not raw:
                ct.problem("tiles", "must list the tile sides of the course, Start first and Goal last")
            ct.done()
            course = Course(name, tuple(labels))
            if ok:
                self.check_course(ct, course, [sides[x] for x in labels], rules)
            courses.append(course)
        if not courses:
            top.problem("course", "must define at least one [[course]]")
        top.done()
        return tuple(courses)

    def check_course(self, ct: Table, course: Course, sides: list[TileSide], rules: Rules) -> None:
        kinds = [s.kind for s in sides]
        if kinds[0] != "start":
            ct.problem("tiles", f"must begin with a start side, begins with {sides[0].label} ({kinds[0]})")
        if kinds[-1] != "goal" or len(sides) < 2:
            ct.problem("tiles", f"must end with a goal side, ends with {sides[-1].label} ({kinds[-1]})")
        for i, s in enumerate(sides):
            if s.kind == "start" and i != 0:
                ct.problem(f"tiles[{i}]", f"{s.label} is a start side; only the first side may be one")
            if s.kind == "goal" and i != len(sides) - 1:
                ct.problem(f"tiles[{i}]", f"{s.label} is a goal side; only the last side may be one")
        rows = [(s.label, r, row) for s in sides for r, row in enumerate(s.rows)]
        for k in range(len(rows) - 1):
            label, r, row = rows[k]
            nxt = rows[k + 1][2]
            for lane, cell in enumerate(row):
                if cell == "-":
                    continue
                if not _has_way_on(row, nxt, lane, sideways=cell != "S"):
                    how = "forward or diagonally into a white area" if cell == "S" else \
                          "forward, diagonally into a white area, or after one sideways step"
                    ct.problem("tiles", f"dead end: on {label} row {r + 1}, lane {lane + 1} a racer cannot go on "
                                        f"({how}) to the next row")


def _has_way_on(row: str, nxt: str, lane: int, sideways: bool) -> bool:
    """Can a racer on `row` at `lane` reach the next row, directly or after one sideways step?"""
    def direct(l: int) -> bool:
        if nxt[l] != "-":
            return True
        return any(0 <= d < len(nxt) and nxt[d] == "W" for d in (l - 1, l + 1))
    if direct(lane):
        return True
    return sideways and any(0 <= s < len(row) and row[s] != "-" and direct(s) for s in (lane - 1, lane + 1))
