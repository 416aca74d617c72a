"""An independent referee for Ski Tour: Biathlon event logs.

Written from the rulebook (English and French editions), docs/skitour/rules.md,
docs/skitour/data-format.md, docs/skitour/event-log.md and docs/skitour/records.md only: it
shares no code with the kernel (kernels/skitour/) nor with the other sim/skitour modules, and it
reads the data directory itself with tomllib.

    referee_race(data_dir_or_game, setup, events) -> Report(ok, message, coverage)

replays a race from the decisions and chance outcomes of its event log (int16 rows of 16 columns:
round, seat, kind, a0..a12) and checks every logged state against its own recomputation. The
first disagreement stops the replay: `ok` is False and `message` names the row, round, seat,
event, and what was expected against what was logged.

`setup` describes what the log does not (event-log.md, "Set-up the referee receives"):

    {"course": "Starter" | course id,
     "nations": ["Norway", ...] per seat (names or ids in nation-file-name order),
     "variant": "standard" | "two_player"   (also accepted: "two_players", "two", 2, True),
     "wax_rows": optional [[6 token ids] per seat] (checked against WAXROW when given),
     "switches": optional {switch: value} overriding game.toml [switches],
     "rules": optional {key: value} overriding game.toml [rules],
     "records_laps_unshot": optional, the seat record's laps_rK for a visit reached whose fifth
                            shot was never made (default 0: records.md's "-1 if not reached")}

`data_dir_or_game` is a data directory (str/Path; None = the shipped sim/data/skitour), or a
`Game` built by `load_game(dir, patches)`, where a patch is (file, "dotted.key", value) or any
object with .file, .path, .value (sim.validation.Patch), e.g.
("nations/norway.toml", "stamina.slots", [...]) -- the same data variants the simulator allows.
"""
from __future__ import annotations

import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Report", "Game", "load_game", "referee_race", "EV_NAMES", "ICONS"]

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "data" / "skitour"

# Event kinds (event-log.md)
RACE, SEAT, WAXROW, ROUND, ROLL, BLUE, SIX, BOARD, TURN, WAX, TAKE, PAY, FLIPBACK, COUNT, LIFT, \
    LAP, STEP, BONUS, DRAFT, ARRIVE, SHOT, RESHOT, LAPS, FINISH, COLLAPSE, END = range(1, 27)
EV_NAMES = {1: "RACE", 2: "SEAT", 3: "WAXROW", 4: "ROUND", 5: "ROLL", 6: "BLUE", 7: "SIX",
            8: "BOARD", 9: "TURN", 10: "WAX", 11: "TAKE", 12: "PAY", 13: "FLIPBACK",
            14: "COUNT", 15: "LIFT", 16: "LAP", 17: "STEP", 18: "BONUS", 19: "DRAFT",
            20: "ARRIVE", 21: "SHOT", 22: "RESHOT", 23: "LAPS", 24: "FINISH", 25: "COLLAPSE",
            26: "END"}

# Wax icons and their bits (event-log.md, "Icon bits")
ICONS = {"reroll_shot": 1, "sprint": 2, "free_column": 4, "reroll_one": 8, "reroll_all": 16,
         "plus_one": 32, "minus_one": 64, "stamina": 128}
W_SHOT, W_SPRINT, W_FREE, W_ONE, W_ALL, W_PLUS, W_MINUS, W_STAMINA = (
    1, 2, 4, 8, 16, 32, 64, 128)
ICON_OF_BIT = {v: k for k, v in ICONS.items()}

# Step kinds / phases / payment reasons
FORWARD, SIDEWAYS, DIAGONAL, ENTRY, FINISH_STEP = 0, 1, 2, 3, 4
PH_MOVE, PH_BONUS, PH_DRAFT = 0, 1, 2
R_COLUMN, R_WAX, R_MOVE, R_DRAFT, R_BONUS = 1, 2, 3, 4, 5

RULE_DEFAULTS = dict(race_dice=10, targets=5, wax_tokens=8, wax_row=6,
                     penalty_laps=[0, 1, 1, 2, 2, 3], downhill_moves=3, downhill_passes=1,
                     uphill_penalty=1, long_race_ranges=3, lanes=3, exhausted_colour="blue",
                     round_cap=80)
SWITCH_DEFAULTS = dict(short_race_on_top=False, range_payment="highest_unshot",
                       draft_follows_bonus=True, drafter_bonus=True, reroll_blue_removal=True,
                       diagonal_is_sideways=False, sprint_icon_column=False,
                       reroll_shot_scope="turn", first_player="first_seat",
                       two_player_seats="alternate", collapse_on="forced")


# ----------------------------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------------------------

@dataclass
class Nation:
    name: str
    side: str
    board: int
    columns: list          # per stamina column: list of (value, die id) from its top slot down
    capacity: list
    full_at: list
    boxes: list            # "star" / "flip"
    sprint: int
    tokens: list           # (bits, one_of_bits) per token; one_of_bits = the '/' choices (0: '+')
    printed: tuple | None  # (bits, one_of_bits) or None


@dataclass
class Game:
    rules: dict
    switches: dict
    dice: list             # (name, letter, faces "HHM..") in file order
    nations: list          # Nation, in file-name order
    tiles: dict            # number -> {"a": side dict, "b": side dict}
    courses: list          # (name, [tile sides])


def _apply_patch(doc, path, value):
    """Set doc[k1][k2].. = value. A key that is a number indexes a list (an array of tables);
    `key[Name]` picks the entry of the array of tables `key` whose name is Name (any case), as
    sim.validation.Patch paths do."""
    d = doc
    keys = path.split(".")
    for n, k in enumerate(keys):
        last = n == len(keys) - 1
        if "[" in k and k.endswith("]"):
            arr, name = k[:-1].split("[", 1)
            entries = [e for e in d[arr] if str(e.get("name", "")).lower() == name.lower()]
            if len(entries) != 1:
                raise KeyError(f"patch {path}: no single entry named {name!r} in {arr}")
            if last:
                d[arr][d[arr].index(entries[0])] = value
            else:
                d = entries[0]
            continue
        k = int(k) if k.isdigit() else k
        if last:
            d[k] = value
        else:
            d = d[k]


def parse_token(text):
    """'a + b' -> (bits, 0); 'stamina + a / b' -> (bits, choice bits); 'a / b' -> (bits, choice);
    'blank' (data-format.md: a token with no icon; using it only flips it) -> (0, 0)."""
    text = text.strip()
    if text == "blank":
        return 0, 0
    stamina = 0
    if "/" in text:
        if "+" in text:
            head, rest = text.split("+", 1)
            assert head.strip() == "stamina", text
            stamina = W_STAMINA
            text = rest
        choices = 0
        for part in text.split("/"):
            choices |= ICONS[part.strip()]
        return stamina | choices, choices
    bits = 0
    for part in text.split("+"):
        bits |= ICONS[part.strip()]
    return bits, 0


def load_game(data_dir=None, patches=()) -> Game:
    """Read a data directory with tomllib; `patches` are (file, dotted key, value)."""
    root = Path(data_dir) if data_dir is not None else DEFAULT_DIR
    by_file = {}
    for pt in patches:
        f, k, v = (pt.file, pt.path, pt.value) if hasattr(pt, "file") else pt
        by_file.setdefault(f.replace("\\", "/"), []).append((k, v))

    def read(rel):
        with open(root / rel, "rb") as fh:
            doc = tomllib.load(fh)
        for k, v in by_file.get(rel, []):
            _apply_patch(doc, k, v)
        return doc

    g = read("game.toml")
    rules = dict(RULE_DEFAULTS)
    rules.update(g.get("rules", {}))
    switches = dict(SWITCH_DEFAULTS)
    switches.update(g.get("switches", {}))
    dice = [(name, d["letter"], "".join(d["faces"].split())) for name, d in g["dice"].items()]
    letter_id = {letter: i for i, (_, letter, _) in enumerate(dice)}
    nations = []
    for p in sorted((root / "nations").glob("*.toml")):
        n = read("nations/" + p.name)
        grid = [row.split() for row in n["stamina"]["slots"]]
        cols = []
        for c in range(rules["targets"]):
            col = []
            for row in grid:
                cell = row[c]
                if cell == ".":
                    continue
                col.append((int(cell[:-1]), letter_id[cell[-1]]))
            cols.append(col)
        cl = n["columns"]
        printed = parse_token(n["wax"]["printed"]) if "printed" in n["wax"] else None
        nations.append(Nation(n["name"], n["side"], n["board"], cols, list(cl["capacity"]),
                              list(cl["full_at"]), list(cl["boxes"]), int(cl["sprint"]),
                              [parse_token(t) for t in n["wax"]["tokens"]], printed))
    t = read("tiles.toml")
    tiles = {tile["number"]: {"a": tile["a"], "b": tile["b"]} for tile in t["tile"]}
    c = read("courses.toml")
    courses = [(cc["name"], list(cc["tiles"])) for cc in c["course"]]
    return Game(rules, switches, dice, nations, tiles, courses)


@dataclass
class Course:
    name: str
    cells: list        # per row: list of lane chars ('.', 'G', 'R', 'W', 'S', '-')
    free_rows: int     # rows 0..free_rows-1: sharing is free (start side)
    range_of_row: dict  # shooting row -> range index
    lap_len: dict      # range index -> penalty_lane
    n_ranges: int


def build_course(game: Game, name_or_id) -> Course:
    if isinstance(name_or_id, str):
        idx = [n.lower() for n, _ in game.courses].index(name_or_id.lower())
    else:
        idx = int(name_or_id)
    name, sides = game.courses[idx]
    cells, free_rows, range_of_row, lap_len = [], 0, {}, {}
    for s in sides:
        side = game.tiles[int(s[:-1])][s[-1]]
        if side["kind"] == "start":
            free_rows = len(cells) + side.get("free_rows", 0)
        for row in side["rows"]:
            chars = row.split()
            if "S" in chars:
                k = len(range_of_row)
                range_of_row[len(cells)] = k
                lap_len[k] = side["penalty_lane"]
            cells.append(chars)
    return Course(name, cells, free_rows, range_of_row, lap_len, len(range_of_row))


# ----------------------------------------------------------------------------------------------
# The report
# ----------------------------------------------------------------------------------------------

@dataclass
class Report:
    ok: bool
    message: str
    coverage: Counter = field(default_factory=Counter)


class Mismatch(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# Racer state
# ----------------------------------------------------------------------------------------------

class Racer:
    def __init__(self, seat, nation: Nation, start_slot, rules):
        self.seat = seat
        self.nation = nation
        self.cols = [0, 0, 0, 0]
        self.sprint = 0
        self.box = [0, 0, 0, 0]
        self.avail = rules["race_dice"]
        self.slot = [start_slot] * rules["targets"]
        self.bottom = [len(c) - 1 for c in nation.columns]
        self.targets = []          # hits/misses at this visit (1 hit, 0 miss)
        self.shot_die = {}         # target -> the die it was shot with, at this visit
        self.row, self.lane = -1, 0
        self.in_lane = False
        self.laps = 0
        self.lap_moves = 0
        self.range_idx = -1
        self.finished = False
        self.collapsed = False
        self.place = 0
        self.wax = []
        self.up = []
        self.rec = Counter()       # seat-record counters (records.md)
        self.visits = []          # visit records, one dict per range visit
        self.laps_at = []         # laps owed per visit reached (seat record laps_r1..)
        self.visit_targets = []   # the targets (1 hit, 0 miss) of each visit

    @property
    def racing(self):
        return not (self.finished or self.collapsed)

    def on_course(self):
        return self.racing and self.row >= 0 and not self.in_lane

    def board(self):
        return self.cols + [self.sprint] + self.box + [self.avail]

    def value(self, c):
        return self.nation.columns[c][self.slot[c]][0]

    def on_blue(self, c):
        return self.slot[c] == self.bottom[c]

    def blue_count(self):
        return sum(1 for c in range(len(self.slot)) if self.on_blue(c))

    def stamina_left(self):
        return sum(self.bottom[c] - self.slot[c] for c in range(len(self.slot)))


# ----------------------------------------------------------------------------------------------
# The referee
# ----------------------------------------------------------------------------------------------

class Referee:
    def __init__(self, game: Game, setup: dict, events):
        self.g = game
        self.rules = dict(game.rules)
        self.rules.update(setup.get("rules", {}) or {})
        self.sw = dict(game.switches)
        self.sw.update(setup.get("switches", {}) or {})
        self.setup = setup
        self.ev = [tuple(map(int, r)) for r in events]
        self.i = 0
        self.last_i = 0
        self.cov = Counter()
        self.round = 0

    # -- the log cursor ------------------------------------------------------------------------
    def where(self, i=None):
        i = self.i if i is None else i
        if i >= len(self.ev):
            return f"row {i} (end of log)"
        r = self.ev[i]
        return f"row {i} (round {r[0]}, seat {r[1]}, {EV_NAMES.get(r[2], r[2])})"

    def fail(self, what, i=None):
        """Stop: `i` is the row at fault, by default the last row read."""
        raise Mismatch(f"{self.where(self.last_i if i is None else i)}: {what}")

    def fail_next(self, what):
        """Stop at the next (unread) row."""
        self.fail(what, self.i)

    def peek(self):
        return self.ev[self.i] if self.i < len(self.ev) else None

    def next_is(self, kind, seat=None):
        r = self.peek()
        return r is not None and r[2] == kind and (seat is None or r[1] == seat)

    def take(self, kind, seat, *expected, what=""):
        """Read the next row: it must be `kind` for `seat` in this round; `expected` (a0, a1, ..)
        entries that are not None are compared."""
        r = self.peek()
        if r is None:
            self.fail_next(f"expected {EV_NAMES[kind]}{what and ' (' + what + ')'} for seat {seat}, "
                      f"the log ended")
        if r[2] != kind:
            self.fail_next(f"expected {EV_NAMES[kind]}{what and ' (' + what + ')'} for seat {seat}, "
                      f"logged {EV_NAMES.get(r[2], r[2])} args {list(r[3:])}")
        if r[1] != seat:
            self.fail_next(f"expected {EV_NAMES[kind]} for seat {seat}, logged seat {r[1]}")
        if r[0] != self.round:
            self.fail_next(f"expected round {self.round}, logged round {r[0]}")
        a = r[3:]
        for k, e in enumerate(expected):
            if e is not None and a[k] != e:
                self.fail_next(f"a{k}{' (' + what + ')' if what else ''}: expected {e}, logged {a[k]}"
                          f" (row args {list(a)})")
        self.last_i = self.i
        self.i += 1
        return a

    # -- geometry ------------------------------------------------------------------------------
    def cell(self, r, l):
        cs = self.course.cells
        if 0 <= r < len(cs) and 0 <= l < self.lanes:
            return cs[r][l]
        return "-"

    def is_space(self, r, l):
        return self.cell(r, l) != "-"

    def others(self, me):
        return [x for x in self.racers if x is not me and x.on_course()]

    def occupants(self, me, r, l):
        return sum(1 for x in self.racers if x is not me and x.on_course()
                   and x.row == r and x.lane == l)

    def row_count(self, me, r):
        return sum(1 for x in self.racers if x is not me and x.on_course() and x.row == r)

    def pays(self, me, r, l):
        """Entering (r, l) costs stamina (ignoring the bonus's free entry)."""
        if r >= self.n_rows or r < self.course.free_rows:
            return False
        if self.cell(r, l) == "S":
            return False
        return self.occupants(me, r, l) > 0

    def steps_from(self, r, l, blocked, leaving_range):
        """Legal steps (kind, row, lane) from (r, l) in the event log's option order."""
        out = []
        if r == -1:
            for l2 in range(self.lanes):
                if self.is_space(0, l2):
                    out.append((ENTRY, 0, l2))
            return out
        if r == self.n_rows - 1:
            out.append((FINISH_STEP, self.n_rows, l))
        elif self.is_space(r + 1, l):
            out.append((FORWARD, r + 1, l))
        if not blocked and not leaving_range:
            for d in (-1, 1):
                if self.is_space(r, l + d):
                    out.append((SIDEWAYS, r, l + d))
        diag_side = self.sw["diagonal_is_sideways"]
        if r + 1 < self.n_rows and not (diag_side and blocked):
            for d in (-1, 1):
                if self.cell(r + 1, l + d) == "W":
                    out.append((DIAGONAL, r + 1, l + d))
        return out

    def step_effect(self, me, r, kind, blocked):
        """(passes, blocked after) of a step of `kind` leaving row r."""
        passes = 0
        if kind in (FORWARD, DIAGONAL, FINISH_STEP) and r >= 0:
            passes = self.row_count(me, r)
        if kind == SIDEWAYS or (kind == DIAGONAL and self.sw["diagonal_is_sideways"]):
            return passes, True
        if passes > 0:
            blocked = False
        return passes, blocked

    def ends_move(self, r, l):
        return r >= self.n_rows or self.cell(r, l) == "S"

    def feasible(self, me, r, l, blocked, k, free_only, leaving_range, memo):
        """Can `k` more steps be made from here (ending early on a shooting space or the finish
        counts as done)? free_only: without entering a paying occupied space."""
        if k == 0:
            return True
        key = (r, l, blocked, k, free_only, leaving_range)
        if key in memo:
            return memo[key]
        ok = False
        for kind, r2, l2 in self.steps_from(r, l, blocked, leaving_range):
            if free_only and self.pays(me, r2, l2):
                continue
            if self.ends_move(r2, l2):
                ok = True
                break
            _, b2 = self.step_effect(me, r, kind, blocked)
            if self.feasible(me, r2, l2, b2, k - 1, free_only, False, memo):
                ok = True
                break
        memo[key] = ok
        return ok

    # -- stamina -------------------------------------------------------------------------------
    def pay_column(self, x, shooting):
        """The column that pays one stamina now (None: the payment cannot be made)."""
        if shooting:
            cand = [c for c in range(self.targets) if c >= len(x.targets) and not x.on_blue(c)]
        else:
            cand = [c for c in range(self.targets) if not x.on_blue(c)]
        if not cand:
            return None
        if shooting and self.sw["range_payment"] == "choice":
            return cand  # the player picks any of them
        best = max(x.value(c) for c in cand)
        # rules.md §4.2: the highest value pays; where several columns share it, the player picks
        return [c for c in cand if x.value(c) == best]

    def check_pay(self, x, reason, forced=0, shooting=False):
        col = self.pay_column(x, shooting)
        if col is None:
            self.fail_next(f"seat {x.seat} cannot pay stamina (every eligible marker is on blue), "
                      f"yet a payment (reason {reason}) is logged")
        r = self.peek()
        if r is not None and r[2] == PAY and r[1] == x.seat and r[3] not in col:
            self.fail_next(f"stamina paid from column {r[3]}: expected one of {col} "
                           f"({'range rule: unshot columns' if shooting else 'the highest value'};"
                           f" markers {x.slot})")
        a = self.take(PAY, x.seat, None, None, reason, forced, what="stamina payment")
        col = a[0]
        if a[1] != x.slot[col] + 1:
            self.fail(f"stamina paid from column {col}: expected its marker to slot "
                      f"{x.slot[col] + 1}, logged {a[1]}")
        if len(self.pay_column(x, shooting)) > 1:
            self.cov["pay_tie"] += 1
        x.slot[col] += 1
        self.cov[f"pay_reason:{reason}"] += 1
        x.rec["stamina_used"] += 1
        if reason in (R_MOVE, R_DRAFT, R_BONUS):
            x.rec["occupied_paid"] += 1
        if shooting:
            self.cov["pay_range"] += 1
            x.visits[-1]["range_paid"] += 1
        if forced:
            self.cov["pay_forced"] += 1

    def can_pay(self, x, shooting=False):
        return self.pay_column(x, shooting) is not None

    def chosen_collapse(self, x, reason, shooting=False):
        """rules.md §4.3, switch collapse_on = "any": a payment the racer chose (a column, a token,
        an avoidable or drafted or bonus entry) that no marker can make, with every marker on blue,
        collapses it: a PAY row with column -1 (not forced), then COLLAPSE. True if it did."""
        if (self.sw["collapse_on"] != "any" or self.can_pay(x, shooting)
                or x.blue_count() != self.targets):
            return False
        self.take(PAY, x.seat, -1, None, reason, 0, what="a chosen payment that collapses")
        self.take(COLLAPSE, x.seat, reason, what="collapse")
        x.collapsed = True
        self.cov["collapse"] += 1
        self.cov["collapse_chosen"] += 1
        x.rec["collapse_round"] = self.round
        return True

    # -- preparation / placement ---------------------------------------------------------------
    def place_dice(self, x, faces, purpose):
        """Blue removal, placement of 1-4, 5s, then the sixes (SIX rows), then BOARD."""
        placed = 0
        fives = faces.count(5)
        sixes = faces.count(6)
        blue = x.blue_count()
        if blue > 0 and (fives + sixes) > 0 and (purpose == 0 or self.sw["reroll_blue_removal"]):
            r5 = min(blue, fives)
            r6 = min(blue - r5, sixes)
            self.take(BLUE, x.seat, blue, r5, r6, what="blue removal")
            fives -= r5
            sixes -= r6
            x.avail += r5 + r6
            self.cov["blue_removal"] += 1
        for f in faces:
            if 1 <= f <= 4:
                c = f - 1
                if x.cols[c] < x.nation.capacity[c]:
                    x.cols[c] += 1
                    placed += 1
                else:
                    x.avail += 1
                    self.cov["die_no_room"] += 1
        for _ in range(fives):
            best = max(range(4), key=lambda c: (x.cols[c], c))
            if x.cols[best] < x.nation.capacity[best]:
                x.cols[best] += 1
                placed += 1
                self.cov["five_placed"] += 1
            else:
                x.avail += 1
                self.cov["five_back"] += 1
        for k in range(sixes):
            legal = [c for c in range(4) if x.cols[c] > 0 and not x.box[c]]
            if x.sprint < x.nation.sprint:
                legal.append(4)
            a = self.take(SIX, x.seat, k, what="six placement")
            dest = a[1]
            if not legal:
                if dest != -1:
                    self.fail(f"a six placed at {dest} but no legal place exists "
                              f"(board {x.board()})")
                x.avail += 1
                self.cov["six_back"] += 1
            else:
                if dest not in legal:
                    self.fail(f"six destination {dest}: expected one of {legal} "
                              f"(a six must go to the sprint column or an empty box above a "
                              f"column holding dice; -1 only when no legal place; board "
                              f"{x.board()})")
                if dest == 4:
                    x.sprint += 1
                    self.cov["six_sprint"] += 1
                else:
                    x.box[dest] = 1
                    self.cov["six_box"] += 1
                placed += 1
        a = self.take(BOARD, x.seat, what="board after placing")
        mine = x.board()
        if list(a[:10]) != mine or a[10] != placed:
            self.fail(f"board after placing: expected {mine} with {placed} placed, logged "
                      f"{list(a[:10])} with {a[10]} placed")

    def roll(self, x, purpose, n):
        a = self.take(ROLL, x.seat, purpose, n, what=f"roll purpose {purpose}")
        faces = list(a[2:2 + n])
        if any(not 1 <= f <= 6 for f in faces) or any(a[2 + n:12]):
            self.fail(f"roll faces {list(a[2:12])}: expected {n} faces 1..6")
        return faces

    # -- wax -----------------------------------------------------------------------------------
    def outermost(self, x):
        up = [p for p in range(len(x.up)) if x.up[p]]
        if not up:
            return []
        return sorted({up[0], up[-1]})

    def wax_moment(self, x, moment, t):
        while self.next_is(WAX, x.seat) and self.peek()[3] == moment:
            a = self.take(WAX, x.seat, moment, what="wax")
            pos, tid, bits, choice = a[1], a[2], a[3], a[4]
            if pos == -1:
                if x.nation.printed is None:
                    self.fail(f"printed token used by {x.nation.name}, which has none")
                if not t["shooting"]:
                    self.fail("printed token used outside a shooting turn")
                if t["printed_used"]:
                    self.fail("printed token used twice in one turn")
                t["printed_used"] = True
                if tid != -1:
                    self.fail(f"printed token id: expected -1, logged {tid}")
                tbits, tone = x.nation.printed
                self.cov["wax_printed"] += 1
                x.rec["printed_uses"] += 1
            else:
                if t["row_used"]:
                    self.fail(f"a second row token in one turn (moment {moment})")
                outer = self.outermost(x)
                if pos not in outer:
                    self.fail(f"wax token at position {pos} is not an outermost face-up token "
                              f"(outermost {outer}, face up {x.up})")
                if tid != x.wax[pos]:
                    self.fail(f"token id at position {pos}: expected {x.wax[pos]}, logged {tid}")
                tbits, tone = x.nation.tokens[tid]
                t["row_used"] = True
                x.up[pos] = False
                self.cov["wax_row_token"] += 1
                x.rec["wax_tokens"] += 1
            if bits != tbits:
                self.fail(f"token icon bits: expected {tbits}, logged {bits}")
            if tone:
                if choice == 0 or not (choice & tone) or (choice & (choice - 1)):
                    self.fail(f"'/' token: chosen action {choice} is not one of bits {tone}")
                eff = (tbits & ~tone) | choice
                self.cov["wax_slash_choice"] += 1
            else:
                if choice != 0:
                    self.fail(f"'+' token: expected chosen action 0, logged {choice}")
                eff = tbits
            self.apply_wax(x, eff, moment, t)
            if x.collapsed:
                return

    def apply_wax(self, x, eff, moment, t):
        for b in (W_STAMINA, W_SHOT, W_SPRINT, W_FREE, W_ONE, W_ALL, W_PLUS, W_MINUS):
            if not eff & b:
                continue
            self.cov["wax:" + ICON_OF_BIT[b]] += 1
            x.rec["wax_" + ICON_OF_BIT[b]] += 1
            if b == W_STAMINA:
                if self.chosen_collapse(x, R_WAX, t["shooting"]):
                    return
                if not self.can_pay(x, t["shooting"]):
                    self.fail("a stamina token used although the payment cannot be made")
                self.check_pay(x, R_WAX, 0, t["shooting"])
            elif b == W_SHOT:
                # rules.md §10, switch reroll_shot_scope: a shot of this turn, or ("visit") any
                # shot of this range visit on a shooting turn, at any moment of it
                visit = self.sw["reroll_shot_scope"] == "visit"
                shots = (list(range(len(x.targets))) if visit and t["shooting"]
                         else t["shots_this_turn"] if moment == 2 else [])
                if shots:
                    a = self.take(RESHOT, x.seat, what="reroll_shot")
                    tgt = a[0]
                    if tgt not in shots:
                        self.fail(f"re-rolled target {tgt} is not a shot of this "
                                  f"{'range visit' if visit else 'turn'} ({shots})")
                    if tgt not in t["shots_this_turn"]:
                        self.cov["reshot_earlier_turn"] += 1
                    die = x.shot_die[tgt]
                    self.check_face(die, a, what="re-rolled shot")
                    x.targets[tgt] = a[3]
                    self.cov["reshot"] += 1
                    x.visits[-1]["reshots"] += 1
                else:
                    self.cov["wax_effect_lost"] += 1
            elif b == W_SPRINT:
                t["sprint_icon_any"] = True
                if moment in (0, 1):
                    t["sprint_icon"] = True
                    t["sprint_moves"] += x.sprint
                    self.cov["sprint_icon_moves"] += x.sprint
            elif b == W_FREE:
                if moment == 0:
                    t["free"] += 1
            elif b == W_ONE:
                cells = x.board()[:9]
                if not any(cells):
                    self.cov["wax_effect_lost"] += 1
                    continue
                a = self.take(LIFT, x.seat, what="reroll_one's die")
                c = a[0]
                if not (0 <= c <= 8) or cells[c] == 0:
                    self.fail(f"lifted cell {c} holds no die (board {x.board()})")
                if c < 4:
                    x.cols[c] -= 1
                elif c == 4:
                    x.sprint -= 1
                else:
                    x.box[c - 5] = 0
                faces = self.roll(x, 1, 1)
                self.place_dice(x, faces, 1)
            elif b == W_ALL:
                n = sum(x.cols) + x.sprint + sum(x.box)
                x.cols = [0, 0, 0, 0]
                x.sprint = 0
                x.box = [0, 0, 0, 0]
                faces = self.roll(x, 2, n)
                self.place_dice(x, faces, 2)
            elif b == W_PLUS:
                if moment in (0, 1):
                    t["plus"] += 1
            elif b == W_MINUS:
                if moment in (0, 1):
                    t["minus"] += 1

    def check_face(self, die, a, what):
        name, _, faces = self.g.dice[die]
        if a[1] != die:
            self.fail(f"{what}: expected die {die} ({name}), logged die {a[1]}")
        if not 0 <= a[2] < len(faces):
            self.fail(f"{what}: face index {a[2]} out of range for die {name}")
        hit = 1 if faces[a[2]] == "H" else 0
        if a[3] != hit:
            self.fail(f"{what}: face {a[2]} of die {name} is {'a hit' if hit else 'a miss'}, "
                      f"logged {'hit' if a[3] else 'miss'}")

    # -- the column step -----------------------------------------------------------------------
    def column_step(self, x, t):
        a = self.take(TAKE, x.seat, what="column step")
        man, mask, trade, free_used, taken_logged, pays_logged = a[:6]
        if not 0 <= man <= 3:
            self.fail(f"mandatory column {man} is not a dice column 1-4")
        if x.cols[man] == 0 and any(x.cols):
            self.fail(f"mandatory column {man + 1} is empty while column(s) "
                      f"{[c + 1 for c in range(4) if x.cols[c]]} hold dice")
        extra = [c for c in range(5) if mask >> c & 1]
        if mask >> 5 or (mask >> man & 1):
            self.fail(f"additional columns mask {mask} includes the mandatory column or an "
                      f"unknown column")
        for c in extra:
            n = x.sprint if c == 4 else x.cols[c]
            if n == 0:
                self.fail(f"additional column {c} holds no die")
        if 4 in extra and t["sprint_icon"] and not self.sw["sprint_icon_column"]:
            # rules.md §10, switch sprint_icon_column: a sprint icon used before the column step
            # counted the sprint column's dice; they are not taken again this turn
            self.fail("the sprint column taken after a sprint icon this turn "
                      "(sprint_icon_column is off: its dice would count twice)")
        if 4 in extra and t["sprint_icon"]:
            self.cov["sprint_icon_then_column"] += 1
        exp_free = 1 if (t["free"] > 0 and extra) else 0
        if free_used != exp_free:
            self.fail(f"free_column use: expected {exp_free}, logged {free_used}")
        npay = len(extra) - exp_free
        if pays_logged != npay:
            self.fail(f"stamina payments: expected {npay}, logged {pays_logged}")
        for _ in range(npay):
            if self.chosen_collapse(x, R_COLUMN, t["shooting"]):
                return 0
            self.check_pay(x, R_COLUMN, 0, t["shooting"])
        if extra:
            self.cov["extra_columns"] += 1
            x.rec["extra_columns"] += len(extra)
        if exp_free:
            self.cov["free_column_used"] += 1
        taken = 0
        flips = []
        used_tokens = sum(1 for u in x.up if not u)
        for c in [man] + extra:
            if c == 4:
                taken += x.sprint
                x.avail += x.sprint
                x.sprint = 0
                t["took_sprint"] = True
                self.cov["sprint_column"] += 1
                x.rec["sprint_taken"] += 1
                continue
            n = x.cols[c]
            six = x.box[c]
            full = n >= x.nation.full_at[c]
            if trade >> c & 1:
                if not (six and full and x.nation.boxes[c] == "flip"):
                    self.fail(f"flip trade on column {c + 1}: it is not a full flip-box column "
                              f"with a six (board {x.board()})")
                if used_tokens == 0:
                    self.fail(f"flip trade on column {c + 1} with no used token to flip back")
                used_tokens -= 1
                flips.append(c)
                six_counts = False
            else:
                six_counts = bool(six and full)
            if six:
                if six_counts:
                    self.cov["box_six_taken"] += 1
                    if x.nation.full_at[c] < x.nation.capacity[c] and n < x.nation.capacity[c]:
                        self.cov["full_at_three"] += 1
                elif not full:
                    self.cov["box_six_back"] += 1
            taken += n + (1 if six_counts else 0)
            x.avail += n + six
            x.cols[c] = 0
            x.box[c] = 0
        if trade & ~sum(1 << c for c in [man] + extra if c < 4):
            self.fail(f"flip trade mask {trade} names a column not taken")
        if taken != taken_logged:
            self.fail(f"dice taken: expected {taken}, logged {taken_logged}")
        for c in flips:
            a = self.take(FLIPBACK, x.seat, what="flip back")
            up = [p for p in range(len(x.up)) if x.up[p]]
            if up:
                legal = [p for p in (up[0] - 1, up[-1] + 1) if 0 <= p < len(x.up)]
            else:
                legal = list(range(len(x.up)))
            if a[0] not in legal:
                self.fail(f"flip back position {a[0]}: expected an innermost used token "
                          f"{legal} (face up {x.up})")
            x.up[a[0]] = True
            self.cov["flip_trade"] += 1
            x.rec["flip_trades"] += 1
        return taken

    # -- a turn --------------------------------------------------------------------------------
    def turn(self, x):
        self.cov["turns"] += 1
        x.rec["turns"] += 1
        shooting = (x.row >= 0 and not x.in_lane and self.cell(x.row, x.lane) == "S"
                    and len(x.targets) < self.targets and x.laps == 0)
        self.take(TURN, x.seat, 1 if shooting else 0, x.row, x.lane if x.row >= 0 else None,
                  int(x.in_lane), x.laps, x.lap_moves, len(x.targets), what="turn state")
        if shooting:      # a shooting turn counts from its start (records.md), even one that
            x.visits[-1]["shoot_turns"] += 1      # collapses before its shots (collapse_on = any)
        t = dict(shooting=shooting, row_used=False, printed_used=False, free=0, plus=0,
                 minus=0, sprint_icon=False, sprint_icon_any=False, sprint_moves=0, took_sprint=False,
                 shots_this_turn=[])
        self.wax_moment(x, 0, t)
        if x.collapsed:
            return
        taken = self.column_step(x, t)
        if x.collapsed:
            return
        self.wax_moment(x, 1, t)
        if x.collapsed:
            return
        base = max(0, taken + t["plus"] - t["minus"])
        sprints = t["sprint_icon"] or t["took_sprint"]
        red = 0
        if shooting:
            result = base
        else:
            moves = base + t["sprint_moves"]
            if (x.row >= 0 and not x.in_lane and self.cell(x.row, x.lane) == "R"):
                red = 1
                if moves >= 1:
                    moves = max(1, moves - self.rules["uphill_penalty"])
                self.cov["uphill"] += 1
            result = moves
        self.take(COUNT, x.seat, taken, t["plus"], t["minus"], t["sprint_moves"], red, result,
                  int(sprints), what="count")
        if t["plus"]:
            self.cov["plus_applied"] += 1
        if t["minus"]:
            self.cov["minus_applied"] += 1
        if sprints:
            self.cov["sprint"] += 1
        try:
            if shooting:
                self.shoot(x, result, t)
            else:
                self.move_turn(x, result, sprints)
        finally:  # (a two-player race ends inside the move)
            # records.md: "turns the racer sprinted (took the sprint column or used a sprint
            # icon)": any sprint icon counts, also one at moment C where it has no effect (§4.6)
            if t["took_sprint"] or t["sprint_icon_any"]:
                x.rec["sprint_uses"] += 1

    def shoot(self, x, count, t):
        self.cov["shooting_turns"] += 1
        n = min(count, self.targets - len(x.targets))
        for _ in range(n):
            k = len(x.targets)
            die = x.nation.columns[k][x.slot[k]][1]
            a = self.take(SHOT, x.seat, k, what="shot")
            self.check_face(die, a, what=f"shot at target {k} (marker slot {x.slot[k]})")
            x.targets.append(a[3])
            t["shots_this_turn"].append(k)
            x.shot_die[k] = die
            self.cov["shots"] += 1
            x.visits[-1]["shots"] += 1
            self.cov[f"shot_die:{self.g.dice[die][0]}"] += 1
            self.wax_moment(x, 2, t)
            if x.collapsed:
                return
            if len(x.targets) == self.targets:
                misses = x.targets.count(0)
                laps = self.rules["penalty_laps"][misses]
                self.take(LAPS, x.seat, misses, laps, what="penalty laps")
                self.cov[f"penalty_misses:{misses}"] += 1
                x.laps = laps
                x.visits[-1]["penalties"] = laps
                x.laps_at[-1] = laps
                x.lap_moves = 0
                x.in_lane = laps > 0
        if self.next_is(WAX, x.seat):
            self.fail_next("a wax token used at a moment the rules do not offer "
                      "(after the last shot it may follow)")

    # -- moving --------------------------------------------------------------------------------
    def move_turn(self, x, moves, sprints):
        self.cov["moving_turns"] += 1
        if (x.visits and x.visits[-1]["leave_round"] == -1 and not x.in_lane
                and len(x.targets) == self.targets):
            x.visits[-1]["leave_round"] = self.round
        start_in_range = False
        if x.in_lane:
            lap_len = self.course.lap_len[x.range_idx]
            need = x.laps * lap_len - x.lap_moves
            spent = min(moves, need)
            tot = x.lap_moves + spent
            laps_after = x.laps - tot // lap_len
            prog_after = tot % lap_len
            self.take(LAP, x.seat, spent, laps_after, prog_after, what="penalty lane")
            self.cov["lap_turn"] += 1
            x.laps, x.lap_moves = laps_after, prog_after
            if laps_after > 0:
                return
            x.in_lane = False
            x.lap_moves = 0
            self.cov["left_penalty_lane"] += 1
            x.visits[-1]["leave_round"] = self.round
            moves -= spent
            start_in_range = True
            leader_draftable = False
        else:
            leader_draftable = not sprints and self.cell(x.row, x.lane) not in ("S", "-") \
                and x.row >= 0
            if x.row >= 0 and self.cell(x.row, x.lane) == "S":
                start_in_range = True
        start = (x.row, x.lane)
        # drafters are fixed now: look them up from the log later against the positions now
        trail, stopped = self.own_move(x, moves, start_in_range)
        if x.collapsed:
            return
        if trail and not stopped:
            btrail = self.bonus(x, blocked=self._blocked, passes0=0, phase_pay=R_BONUS)
            if x.collapsed:
                return
            if self.sw["draft_follows_bonus"]:
                trail = trail + btrail
        if leader_draftable and trail:
            # a leader that made no step leaves no trail: nobody is asked (kernel reading,
            # consistent with "making as many steps as the mover did"; see the report)
            self.drafting(x, start, trail)
        elif sprints and self._behind(x, start):
            self.cov["no_draft_behind_sprinter"] += 1
        if self.next_is(DRAFT):
            self.fail_next(f"DRAFT logged but nobody may draft on seat {x.seat} "
                      f"({'it sprints' if sprints else 'it starts off the course, on a shooting space or in the penalty lane'})")

    def _behind(self, x, start):
        r, l = start
        return [y for y in self.racers if y is not x and y.on_course() and y.row == r - 1
                and y.lane == l and self.cell(y.row, y.lane) != "S"]

    def own_move(self, x, moves, leaving_range):
        """The racer's own steps (phase 0). Returns (trail of entered spaces, stopped early)."""
        memo = {}
        r, l = x.row, x.lane
        blocked = False
        if self.feasible(x, r, l, blocked, moves, False, leaving_range, memo):
            target = moves
        else:
            target = max(k for k in range(moves + 1)
                         if self.feasible(x, r, l, blocked, k, False, leaving_range, memo))
            self.cov["longest_move"] += 1
        trail = []
        lr = leaving_range
        for i in range(target):
            k = target - i
            opts = [s for s in self.steps_from(r, l, blocked, lr)
                    if self.ends_move(s[1], s[2])
                    or self.feasible(x, s[1], s[2], self.step_effect(x, r, s[0], blocked)[1],
                                     k - 1, False, False, memo)]
            free_exists = self.feasible(x, r, l, blocked, k, True, lr, memo)
            a = self.take(STEP, x.seat, PH_MOVE, what="move step")
            s = (a[1], a[2], a[3])
            if s not in opts:
                self.fail(f"move step {s} (kind, row, lane) from ({r}, {l}) is not a legal step "
                          f"that keeps the move of {target} steps possible; legal: {opts}")
            passes, b2 = self.step_effect(x, r, s[0], blocked)
            occ = self.occupants(x, s[1], s[2]) if s[1] < self.n_rows else 0
            pay = self.pays(x, s[1], s[2])
            if a[4] != occ or a[5] != int(pay) or a[6] != passes:
                self.fail(f"step into ({s[1]}, {s[2]}): expected occupants {occ}, paid "
                          f"{int(pay)}, passes {passes}; logged {a[4]}, {a[5]}, {a[6]}")
            self.cov[f"step_kind:{s[0]}"] += 1
            x.rec["moves"] += 1
            if passes:
                self.cov["passes"] += 1
            x.row, x.lane = s[1], s[2]
            r, l, blocked, lr = s[1], s[2], b2, False
            trail.append((r, l))
            if pay:
                forced = 0 if free_exists else 1
                if not forced and self.chosen_collapse(x, R_MOVE):
                    return trail, True
                if not forced and not self.can_pay(x):
                    self.fail("a voluntary entry into an occupied space although no marker "
                              "can pay")
                if forced and not self.can_pay(x):
                    if self.next_is(PAY, x.seat) and self.peek()[3] == -1:
                        self.i += 1
                    self.take(COLLAPSE, x.seat, R_MOVE, what="collapse")
                    x.collapsed = True
                    self.cov["collapse"] += 1
                    x.rec["collapse_round"] = self.round
                    return trail, True
                self.check_pay(x, R_MOVE, forced)
            if r >= self.n_rows:
                self.finish(x)
                return trail, True
            if self.cell(r, l) == "S":
                self.arrive(x)
                return trail, True
        self._blocked = blocked
        return trail, False

    def arrive(self, x):
        k = self.course.range_of_row[x.row]
        self.take(ARRIVE, x.seat, k, x.row, x.lane, what="arrival at the range")
        x.range_idx = k
        x.targets = []
        x.shot_die = {}
        self.cov["arrive"] += 1
        x.visits.append(Counter(visit=k + 1, arrive_round=self.round, leave_round=-1))
        x.visit_targets.append(x.targets)
        x.laps_at.append(0)

    def side(self, seat):
        """A seat's team: the seat itself, or at two players its player (rules.md §8, switch
        two_player_seats: seats A, B, A, B or A, A, B, B)."""
        if not self.two:
            return seat
        return seat // 2 if self.together else seat % 2

    def finish(self, x):
        self.n_finished += 1
        x.finished = True
        x.place = self.n_finished
        a = self.peek()
        if a is not None and a[2] == FINISH and a[3] != x.place:
            self.fail_next(f"finish place: expected {x.place} (crossing order), logged {a[3]}")
        self.take(FINISH, x.seat, x.place, what="finish")
        self.finish_order.append(x.seat)
        self.cov["finish"] += 1
        x.rec["finish_round"] = self.round
        if self.two:
            self.take(END, -1, self.round, 0, x.seat, what="two-player end")
            raise StopIteration

    def bonus(self, x, blocked, passes0, phase_pay):
        """The downhill bonus after a move that ended at (x.row, x.lane). Returns its trail."""
        r, l = x.row, x.lane
        if not (self.cell(r, l) == "G" and self.occupants(x, r + 1, l) > 0
                and self.is_space(r + 1, l)):
            if self.next_is(STEP, x.seat) and self.peek()[3] == PH_BONUS:
                self.fail_next("a downhill bonus step logged but no bonus is earned "
                          "(needs a move ending on green with a racer directly ahead)")
            return []
        self.cov["bonus"] += 1
        x.rec["bonuses"] += 1
        trail = []
        passes = passes0
        free_left = True
        while len(trail) < self.rules["downhill_moves"] and self.next_is(STEP, x.seat) \
                and self.peek()[3] == PH_BONUS:
            opts = []
            for s in self.steps_from(r, l, blocked, False):
                p, _ = self.step_effect(x, r, s[0], blocked)
                if passes + p <= self.rules["downhill_passes"]:
                    opts.append(s)
            a = self.take(STEP, x.seat, PH_BONUS, what="bonus step")
            s = (a[1], a[2], a[3])
            if s not in opts:
                self.fail(f"bonus step {s} from ({r}, {l}) is not legal (passes so far "
                          f"{passes}); legal: {opts}")
            p, blocked = self.step_effect(x, r, s[0], blocked)
            passes += p
            occ = self.occupants(x, s[1], s[2]) if s[1] < self.n_rows else 0
            pay = self.pays(x, s[1], s[2])
            if pay and occ == 1 and free_left:
                pay = False
                free_left = False
                self.cov["bonus_free_entry"] += 1
            if a[4] != occ or a[5] != int(pay) or a[6] != p:
                self.fail(f"bonus step into ({s[1]}, {s[2]}): expected occupants {occ}, paid "
                          f"{int(pay)}, passes {p}; logged {a[4]}, {a[5]}, {a[6]}")
            if pay and self.chosen_collapse(x, phase_pay):
                x.row, x.lane = s[1], s[2]
                trail.append((s[1], s[2]))
                x.rec["bonus_steps"] += 1
                break
            if pay:
                if not self.can_pay(x):
                    self.fail("a bonus step into an occupied space although no marker can pay")
                self.check_pay(x, phase_pay, 0)
            x.row, x.lane = s[1], s[2]
            r, l = s[1], s[2]
            trail.append((r, l))
            self.cov["bonus_steps"] += 1
            x.rec["bonus_steps"] += 1
            if r >= self.n_rows:
                self.finish(x)
                break
            if self.cell(r, l) == "S":
                self.arrive(x)
                break
        self.take(BONUS, x.seat, len(trail), what="bonus steps taken")
        return trail

    def drafting(self, leader, start, trail):
        """Drafters of `leader` (started at `start`, entered `trail`), front to back.

        The racers directly behind a followed racer's starting space that have not moved in
        this chain are asked, in turn order from the leader's seat; each one that follows is
        itself followed by the racers behind its own starting space, after every candidate of
        the level before (a queue). A candidate that declined one racer may be asked again for
        another racer of the same space (it has "not moved in this chain")."""
        n = len(self.racers)
        order = [(leader.seat + k) % n for k in range(1, n)]
        moved = {leader.seat}
        queue = [(leader, start, trail)]
        while queue:
            lead, lstart, ltrail = queue.pop(0)
            cands = [self.racers[s] for s in order if s not in moved]
            cands = [y for y in cands if y.on_course() and y.row == lstart[0] - 1
                     and y.lane == lstart[1] and self.cell(y.row, y.lane) != "S"]
            for y in cands:
                a = self.peek()
                if a is not None and a[2] == DRAFT and a[1] == y.seat and a[3] != lead.seat:
                    self.fail_next(f"seat {y.seat} drafts on seat {a[3]}: expected seat {lead.seat}")
                a = self.take(DRAFT, y.seat, lead.seat, what="drafting decision")
                ytrail = ([lstart] + ltrail[:-1]) if ltrail else []
                need = sum(1 for (rr, ll) in ytrail if self.pays(y, rr, ll))
                offered = int(y.stamina_left() >= need)
                if not offered and self.sw["collapse_on"] == "any" and a[4] == 1:
                    offered = 1    # collapse_on = any: following is open, it collapses the drafter
                if a[2] != len(ytrail) or a[3] != need or a[4] != offered:
                    self.fail(f"draft of seat {y.seat} on {a[0]}: expected trail steps "
                              f"{len(ytrail)}, paid entries {need}, offered {offered}; "
                              f"logged {a[2]}, {a[3]}, {a[4]}")
                if a[1] not in (0, 1) or (a[1] and not offered):
                    self.fail(f"draft decision {a[1]} not allowed (offered {offered})")
                self.cov["draft_offered" if offered else "draft_not_offered"] += 1
                if not a[1]:
                    self.cov["draft_declined"] += 1
                    continue
                moved.add(y.seat)
                self.cov["draft"] += 1
                y.rec["drafts"] += 1
                if lead is not leader:
                    self.cov["draft_chain"] += 1
                ystart = (y.row, y.lane)
                entered = self.follow(y, ytrail)
                if entered and self.sw["drafter_bonus"] and y.racing:
                    bt = self.bonus(y, blocked=False, passes0=0, phase_pay=R_BONUS)
                    if bt:
                        self.cov["drafter_bonus"] += 1
                    if self.sw["draft_follows_bonus"]:
                        entered = entered + bt
                if entered and not y.collapsed:
                    queue.append((y, ystart, entered))

    def follow(self, y, trail):
        entered = []
        for (rr, ll) in trail:
            a = self.take(STEP, y.seat, PH_DRAFT, what="drafting step")
            r0, l0 = y.row, y.lane
            if r0 == rr:
                kind = SIDEWAYS
            elif ll == l0:
                kind = FORWARD
            else:
                kind = DIAGONAL
            if (a[2], a[3]) != (rr, ll) or a[1] != kind:
                self.fail(f"drafting step: expected ({kind}, {rr}, {ll}) following the trail, "
                          f"logged ({a[1]}, {a[2]}, {a[3]})")
            occ = self.occupants(y, rr, ll)
            pay = self.pays(y, rr, ll)
            passes, _ = self.step_effect(y, r0, kind, False)
            if a[4] != occ or a[5] != int(pay) or a[6] != passes:
                self.fail(f"drafting step into ({rr}, {ll}): expected occupants {occ}, paid "
                          f"{int(pay)}, passes {passes}; logged {a[4]}, {a[5]}, {a[6]}")
            if pay and self.chosen_collapse(y, R_DRAFT):
                y.row, y.lane = rr, ll
                entered.append((rr, ll))
                y.rec["draft_steps"] += 1
                return entered
            if pay:
                self.check_pay(y, R_DRAFT, 0)
            y.row, y.lane = rr, ll
            entered.append((rr, ll))
            self.cov["draft_steps"] += 1
            y.rec["draft_steps"] += 1
        return entered

    # -- the race ------------------------------------------------------------------------------
    def run(self):
        s = self.setup
        g = self.g
        self.course = build_course(g, s["course"])
        self.n_rows = len(self.course.cells)
        self.lanes = self.rules["lanes"]
        self.targets = self.rules["targets"]
        names = [n.name.lower() for n in g.nations]
        nat_ids = [names.index(v.lower()) if isinstance(v, str) else int(v)
                   for v in s["nations"]]
        var = s.get("variant", "standard")
        self.two = var in ("two_player", "two_players", "two", 2, True)
        self.together = self.sw["two_player_seats"] == "together"
        n = len(nat_ids)
        course_id = [c[0] for c in g.courses].index(self.course.name)
        self.course_id = course_id
        self.nat_ids = nat_ids
        self.stalled = False
        long_race = self.course.n_ranges >= self.rules["long_race_ranges"]
        start_slot = 0 if (long_race or self.sw["short_race_on_top"]) else 1
        self.round = 0
        a = self.take(RACE, -1, course_id, n, int(self.two), start_slot, self.rules["round_cap"],
                      self.n_rows, self.course.n_ranges, what="race set-up")
        self.racers = []
        for seat in range(n):
            nat = g.nations[nat_ids[seat]]
            self.take(SEAT, seat, nat_ids[seat], self.side(seat), what="seat set-up")
            self.racers.append(Racer(seat, nat, start_slot, self.rules))
            self.cov["nation:" + nat.name] += 1
            self.cov["side:" + nat.side] += 1
        boards = [g.nations[i].board for i in nat_ids]
        if not self.two and len(set(boards)) != len(boards):
            self.fail("two sides of one physical board race together", 0)
        for seat in range(n):
            a = self.take(WAXROW, seat, what="wax row")
            row = list(a[:self.rules["wax_row"]])
            if len(set(row)) != len(row) or not all(0 <= v < self.rules["wax_tokens"] for v in row):
                self.fail(f"wax row {row}: expected {self.rules['wax_row']} distinct token ids")
            if s.get("wax_rows") is not None and list(s["wax_rows"][seat]) != row:
                self.fail(f"wax row {row}: expected {list(s['wax_rows'][seat])} from the set-up")
            self.racers[seat].wax = row
            self.racers[seat].up = [True] * len(row)
        self.cov["race"] += 1
        self.cov[f"course:{self.course.name}"] += 1
        self.cov[f"racers:{n}"] += 1
        self.cov["variant:two_players" if self.two else "variant:standard"] += 1
        self.n_finished = 0
        self.finish_order = []
        try:
            r = 0
            start = 0
            while True:
                r += 1
                self.round = r
                if r == 1 and self.sw["first_player"] == "drawn":
                    # rules.md §2.3 item 7, switch first_player: the marker starts with a seat
                    # drawn for the race (outside the log's chance rows): any seat
                    nxt = self.peek()
                    start = nxt[4] if nxt is not None and nxt[2] == ROUND and 0 <= nxt[4] < n else 0
                    self.cov["first_player_drawn"] += 1
                first = (start + r - 1) % n
                self.take(ROUND, -1, r, first, what="round")
                for x in self.racers:
                    if x.racing:
                        faces = self.roll(x, 0, math.ceil(x.avail / 2))
                        x.avail -= len(faces)
                        self.place_dice(x, faces, 0)
                for k in range(n):
                    x = self.racers[(first + k) % n]
                    if x.racing:
                        self.turn(x)
                if all(not x.racing for x in self.racers):
                    winner = self.finish_order[0] if self.finish_order else -1
                    self.take(END, -1, r, 0, winner, what="end of race")
                    break
                if r >= self.rules["round_cap"]:
                    winner = self.finish_order[0] if self.finish_order else -1
                    self.take(END, -1, r, 1, winner, what="stalled race")
                    self.cov["stalled"] += 1
                    self.stalled = True
                    break
        except StopIteration:
            pass
        if self.i != len(self.ev):
            self.fail_next("rows after the end of the race")
        if self.two:
            self.cov["two_player_end"] += 1


SEAT_COUNTERS = ("stamina_used", "turns", "moves", "extra_columns", "sprint_taken",
                 "sprint_uses", "occupied_paid", "drafts", "draft_steps", "bonuses",
                 "bonus_steps", "wax_tokens", "printed_uses", "flip_trades") + tuple(
    "wax_" + icon for icon in ICONS)
NOT_CHECKED_SEAT = ("race", "player", "lead_changes", "leader_after_range")


def expected_records(ref: Referee):
    """The seat and visit records (records.md) recomputed from the replay:
    ({seat: {field: value}}, {(seat, visit): {field: value}})."""
    n = len(ref.racers)
    n_rows = ref.n_rows
    seats, visits = {}, {}
    for x in ref.racers:
        e = {}
        e["scenario"] = ref.course_id
        e["n_racers"] = n
        e["seat"] = x.seat
        e["team"] = ref.side(x.seat)
        e["leg"] = (x.seat - 2 * ref.side(x.seat) if ref.together else x.seat // 2) if ref.two else 0
        e["finished"] = int(x.finished)
        e["eliminated"] = int(x.collapsed)
        e["elim_cause"] = 1 if x.collapsed else 0
        e["rounds"] = ref.round
        e["stalled"] = int(ref.stalled)
        e["distance_left"] = 0 if x.finished else (n_rows + 1 if x.row < 0 else n_rows - x.row)
        e["penalty_laps"] = sum(x.laps_at)
        e["nation"] = ref.nat_ids[x.seat]
        e["stamina_left"] = x.stamina_left()
        e["collapse_round"] = x.rec.get("collapse_round", -1)
        e["finish_round"] = x.rec.get("finish_round", -1)
        for f in SEAT_COUNTERS:
            e[f] = x.rec[f]
        e["shots"] = sum(len(t) for t in x.visit_targets)
        e["hits"] = sum(sum(t) for t in x.visit_targets)
        unfinished = ref.setup.get("records_laps_unshot", 0)
        for k in range(4):
            if k >= len(x.laps_at):
                v = -1
            elif len(x.visit_targets[k]) < ref.targets:
                v = unfinished     # reached, fifth shot not made: records.md says "-1 if not
            else:                  # reached", so 0 (laps owed so far); option for -1
                v = x.laps_at[k]
            e[f"laps_r{k + 1}"] = v
        seats[x.seat] = e
        for v, t in zip(x.visits, x.visit_targets):
            visits[(x.seat, v["visit"])] = dict(
                shots=len(t), hits=sum(t), misses=len(t) - sum(t), penalties=v["penalties"],
                arrive_round=v["arrive_round"], shoot_turns=v["shoot_turns"],
                range_paid=v["range_paid"], reshots=v["reshots"], leave_round=v["leave_round"])
    # places
    if ref.two:
        if ref.finish_order:
            side = ref.side(ref.finish_order[0])
            for s_, e in seats.items():
                e["place"] = 1 if ref.side(s_) == side else 2
                e["won"] = int(ref.side(s_) == side)
    else:
        order = list(ref.finish_order)
        rest = sorted((s_ for s_ in seats if s_ not in order),
                      key=lambda s_: (seats[s_]["distance_left"], s_))
        for k, s_ in enumerate(order + rest):
            seats[s_]["place"] = k + 1
            seats[s_]["won"] = int(k == 0 and s_ in order)
    return seats, visits


def check_records(ref: Referee, seat_records, visit_records):
    exp_seats, exp_visits = expected_records(ref)
    if seat_records is not None:
        names = seat_records.dtype.names
        if len(seat_records) != len(exp_seats):
            raise Mismatch(f"seat records: expected {len(exp_seats)} rows, got "
                           f"{len(seat_records)}")
        for row in seat_records:
            s_ = int(row["seat"])
            for f, v in exp_seats[s_].items():
                if f in names and int(row[f]) != v:
                    raise Mismatch(f"seat record of seat {s_}: {f}: expected {v}, "
                                   f"recorded {int(row[f])}")
            ref.cov["records_seats"] += 1
    if visit_records is not None:
        got = {}
        for row in visit_records:
            got[(int(row["seat"]), int(row["visit"]))] = row
        if set(got) != set(exp_visits):
            raise Mismatch(f"visit records: expected (seat, visit) {sorted(exp_visits)}, "
                           f"recorded {sorted(got)}")
        for key, e in exp_visits.items():
            for f, v in e.items():
                if int(got[key][f]) != v:
                    raise Mismatch(f"visit record of seat {key[0]} visit {key[1]}: {f}: "
                                   f"expected {v}, recorded {int(got[key][f])}")
            ref.cov["records_visits"] += 1


def log_rows(events) -> list[tuple[int, ...]]:
    """A kernel's event log as rows of Python ints, without the trailing all-zero rows (the unused
    tail of a preallocated log). An array's unused tail is cut before its rows are converted, and
    converted at once (`tolist`): element by element, with the whole tail, this was a quarter of
    the referee's time."""
    if hasattr(events, "tolist"):
        used = events.any(axis=1).nonzero()[0]
        events = events[:used[-1] + 1].tolist() if used.size else []
    rows = [tuple(map(int, r)) for r in events]
    while rows and not any(rows[-1]):
        rows.pop()
    return rows


def referee_race(data_dir_or_game, setup: dict, events, seats=None, visits=None) -> Report:
    """Replay and check one race's event log. See the module docstring for `setup`.

    Optionally also check the race's records (records.md): `seats` and `visits` are the
    structured arrays play_one returns (fields matched by name; lead_changes,
    leader_after_range, race and player are not checked)."""
    game = data_dir_or_game if isinstance(data_dir_or_game, Game) else load_game(data_dir_or_game)
    ref = Referee(game, setup, log_rows(events))
    try:
        ref.run()
        if seats is not None or visits is not None:
            check_records(ref, seats, visits)
    except Mismatch as e:
        return Report(False, str(e), ref.cov)
    except (IndexError, KeyError, ValueError) as e:  # a log the referee cannot follow
        return Report(False, f"{ref.where()}: cannot follow the log ({type(e).__name__}: {e})",
                      ref.cov)
    return Report(True, "ok", ref.cov)
