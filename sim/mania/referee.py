"""An independent referee for *Biathlon Mania* event logs.

The referee replays a race from its set-up and the chance outcomes in its event log (the faces of
the number dice in `ROLL` rows, the faces of the shooting dice in `SHOT` rows) and checks every
other logged value against its own recomputation. It is written from the rulebook and from
docs/mania/rules.md, docs/mania/data-format.md and docs/mania/event-log.md alone: it shares no
code with the race kernel (kernels/mania/) and reads the TOML data itself, so a misreading in one
is not a misreading in the other.

Public API::

    game = load_game("sim/data/mania")                       # game.toml + tracks/*.toml
    report = referee_race(game, {"track": "red", "format": "sprint", "racers": 4}, events)
    report.ok, report.message, report.coverage               # Report(ok, message, coverage, rows)

    events = simulate(game, setup, dice)                     # the referee as a log writer

`setup` keys: `track` (name), `format` (name or id 0..2), `racers` (individual formats) or
`teams` and `legs` (relay), and the play options `number_dice` (1), `shooting_dice` (1),
`shooting_die` (name or id; default: the format's), `round_cap` (default: game.toml's),
`switches` (a dict overriding game.toml's `[switches]`), `colours` (one per seat; default -1),
`track_id` (checked against the `RACE` row only when given).

Where the docs leave a logged value open (listed in `AMBIGUITIES`), the referee accepts each
reasonable reading and counts the one the log used in `coverage` under a `reading:` key, so the
report shows which reading the kernel took without failing the race on it. Everything else is
checked exactly; the first disagreement ends the replay with `ok=False` and a message naming the
row, the round, the seat, the event, and the expected and logged values.
"""
from __future__ import annotations

import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# ---------------------------------------------------------------------------------------------
# numbers of the event log (docs/mania/event-log.md)

START, LOOP, PENALTY, RANGE, FINISH_AREA, FINISHED, WAITING = range(7)
STAGE_NAMES = ("START", "LOOP", "PENALTY", "RANGE", "FINISH_AREA", "FINISHED", "WAITING")

WHITE, BLUE, GREEN = 0, 1, 2
ZONE_LETTERS = {"w": WHITE, "b": BLUE, "g": GREEN}
FACE_KINDS = {"white": 0, "black": 1, "calibre": 2}
HIT, MISS, CALIBRE = 0, 1, 2

P_MOVE, P_X, P_O, P_EXIT = 0, 1, 2, 3
PURPOSE_NAMES = ("move", "extra_X", "extra_O", "exit")

FORMAT_IDS = {"sprint": 0, "mass_start": 1, "relay": 2}
DIE_IDS = {"individual": 0, "relay": 1}

EV_RACE, EV_SEAT, EV_ROUND, EV_SKIP, EV_ROLL, EV_MOVE, EV_GROUP, EV_ARRIVE, EV_SHOT = range(1, 10)
EV_SHOOT_END, EV_X, EV_T, EV_O, EV_FINISH, EV_HANDOVER, EV_STATE, EV_LEADER = range(10, 18)
EV_LAST_RANGE, EV_STALL, EV_PLACE = range(18, 21)

EVENT_NAMES = {
    1: "RACE", 2: "SEAT", 3: "ROUND", 4: "SKIP", 5: "ROLL", 6: "MOVE", 7: "GROUP", 8: "ARRIVE",
    9: "SHOT", 10: "SHOOT_END", 11: "X", 12: "T", 13: "O", 14: "FINISH", 15: "HANDOVER",
    16: "STATE", 17: "LEADER", 18: "LAST_RANGE", 19: "STALL", 20: "PLACE",
}
FIELD_NAMES = {
    EV_RACE: ("track id", "format id", "seats", "teams", "legs", "number dice", "shooting dice",
              "shooting die", "round cap"),
    EV_SEAT: ("team", "leg", "colour"),
    EV_ROUND: ("round",),
    EV_SKIP: (),
    EV_ROLL: ("purpose", "dice rolled", "face index 1", "face index 2", "value 1", "value 2",
              "roll"),
    EV_MOVE: ("from lap", "from stage", "from square", "steps", "to lap", "to stage",
              "to square"),
    EV_GROUP: ("squares gained", "lap", "stage", "square"),
    EV_ARRIVE: ("range visit", "line"),
    EV_SHOT: ("shot number", "spare", "face index", "face kind", "re-roll face index",
              "re-roll face kind", "hit", "hits so far", "targets standing"),
    EV_SHOOT_END: ("visit", "shots fired", "hits", "targets standing", "spare shots used"),
    EV_X: ("outcome", "own distance", "least other distance", "greatest other distance"),
    EV_T: ("T square", "green square", "squares jumped"),
    EV_O: ("extra move follows",),
    EV_FINISH: ("place", "leg"),
    EV_HANDOVER: ("team", "leg"),
    EV_STATE: ("lap", "stage", "square", "penalty loops left", "shots fired", "targets standing",
               "spare shots left", "skip next", "distance left", "turns taken"),
    EV_LEADER: ("leader team", "lead changes", "distance left"),
    EV_LAST_RANGE: ("leader team",),
    EV_STALL: ("round cap",),
    EV_PLACE: ("place", "finished", "distance left"),
}

# The places where the docs leave a logged value open; the referee accepts each reading listed
# and counts the one seen under coverage["reading:<key>=<reading>"].
AMBIGUITIES = {
    "start_lap": "the lap written for a racer in the START area (event-log.md: 'lap 1-based, the "
                 "lap being skied'; START is before lap 1): 1 or 0",
    "state_shooting_outside_range": "STATE a4..a6 (shots fired, targets standing, spare shots "
                                    "left 'this visit') for a racer not at the range: reset "
                                    "(0, 0, 0), fresh (0, targets, spare shots), or kept from the "
                                    "last visit",
    "waiting_distance": "STATE a8 (own distance left) of a relay leg still WAITING: the table of "
                        "rules.md section 12 has no row for it (0 or the START distance)",
    "post_race_round": "the round column of STALL and PLACE rows (after the last round)",
    "place_relay_fields": "PLACE a1 (finished) and a2 (distance left) of a relay seat: the team's "
                          "or the seat's own",
    "handover_seat": "the seat column of a HANDOVER row: the finishing leg's seat or the next "
                     "leg's (event-log.md: 'seat | the next leg's seat: a0 team, a1 leg')",
    "padding": "rows of kind 0 after the last PLACE row (the preallocated log not trimmed)",
    "zero_step_exit_on_full_square": "exit_from = 'exit_square': a racer placed on a full "
                                     "exit square whose exit move takes 0 steps (zone_rule "
                                     "'steps', rounding 'down', a blue square next): pushed by "
                                     "the group rule (rules.md section 7) or left there (section "
                                     "11: 'a move of 0 squares takes no square and triggers "
                                     "nothing')",
    "track_id": "the RACE row's track id (not documented; checked only when setup['track_id'] "
                "is given)",
}

# Where the docs are silent on a rule (not just on a logged value), the referee checks one
# reading strictly; each is listed here so that a disagreement can be traced to it.
STRICT_READINGS = (
    "chain_extra_rolls = false: the exit move (purpose 3), like the turn's move (purpose 0), is "
    "'the turn's first move' and may grant an extra move, also when it follows the last shot in "
    "the same turn (exit_roll = 'same_turn')",
    "the STATE row after a relay leg's finishing turn is logged (the finished leg, stage "
    "FINISHED); its STATE rows stop after it",
    "the leader is taken over every racer (team), finished ones included (distance 0), as the "
    "X standing is",
    "a group-rule push after a T jump reaching the range or the finish line ends the move there "
    "(ARRIVE / FINISH), as a push after a dice move does",
    "the START area, the range and the finish line count as white for zone_rule = 'start'; "
    "entering the range or crossing the line costs 2 half-points under 'steps'",
    "stalled race: unfinished teams are placed by team distance left, ties by team",
)


class RefereeError(Exception):
    """The first disagreement between the log and the referee."""


@dataclass
class Report:
    ok: bool
    message: str
    coverage: Counter = field(default_factory=Counter)
    rows: int = 0          # rows checked

    def __bool__(self):
        return self.ok


# ---------------------------------------------------------------------------------------------
# data (docs/mania/data-format.md), read with tomllib, no code shared with the loader

RULE_DEFAULTS = {"round_cap": 600, "targets": 5, "range_lines": 8, "max_racers": 8}
SWITCH_DEFAULTS = {"halve_rounding": "up", "zone_rule": "start", "exit_roll": "next_turn",
                   "exit_from": "range", "specials_after_push": True, "chain_extra_rolls": True,
                   "shots_per_turn": "one", "two_dice": "one_racer", "calibre_uses_spare": False,
                   "specials_on": "landing", "penalty_gate": "two", "finish_ties": "turn_order"}


@dataclass
class Track:
    name: str
    zones: list            # per loop square: WHITE, BLUE, GREEN
    marks: list            # per loop square: "", "X", "T" or "O"
    range_exit: int
    pen_entry: int
    pen_zones: list
    fin_zones: list
    corridors: int
    length_m: int = 0

    @property
    def N(self):
        return len(self.zones)

    @property
    def P(self):
        return len(self.pen_zones)

    @property
    def F(self):
        return len(self.fin_zones)

    def t_target(self, sq):
        """The start of the next downhill ahead of loop square `sq` (rules.md section 11, T)."""
        for j in range(sq + 1, self.N):
            if self.zones[j] == GREEN and self.zones[j - 1] != GREEN:
                return j
        raise ValueError(f"track {self.name}: no start of a green zone after T square {sq}")


@dataclass
class Game:
    rules: dict
    number_faces: list
    shoot_dice: dict       # "individual"/"relay" -> list of face kinds (0 white, 1 black, 2 calibre)
    switches: dict
    formats: dict          # name -> {laps, shootings, shooting_die, spare_shots, relay, ...}
    tracks: dict           # name -> Track


def _tokens(strings):
    out = []
    for s in ([strings] if isinstance(strings, str) else strings):
        out.extend(s.split())
    return out


def parse_track(doc: dict) -> Track:
    zones, marks = [], []
    for tok in _tokens(doc["loop"]):
        zones.append(ZONE_LETTERS[tok[0]])
        marks.append(tok[1:])
    pen = [ZONE_LETTERS[t[0]] for t in _tokens(doc["penalty"]["squares"])]
    fin = [ZONE_LETTERS[t[0]] for t in _tokens(doc["finish"]["squares"])]
    return Track(name=doc["name"], zones=zones, marks=marks, range_exit=int(doc["range_exit"]),
                 pen_entry=int(doc["penalty"]["entry"]), pen_zones=pen, fin_zones=fin,
                 corridors=int(doc["finish"]["corridors"]), length_m=int(doc.get("length_m", 0)))


def game_from_dicts(game_doc: dict, track_docs: list) -> Game:
    rules = dict(RULE_DEFAULTS)
    rules.update(game_doc.get("rules", {}))
    switches = dict(SWITCH_DEFAULTS)
    switches.update(game_doc.get("switches", {}))
    dice = game_doc["dice"]
    shoot = {name: [FACE_KINDS[f] for f in dice[name]] for name in ("individual", "relay")}
    formats = {}
    for name, f in game_doc["formats"].items():
        formats[name] = dict(laps=int(f["laps"]), shootings=[int(x) for x in f["shootings"]],
                             shooting_die=f["shooting_die"], spare_shots=int(f["spare_shots"]),
                             relay=bool(f["relay"]), max_teams=f.get("max_teams"),
                             max_legs=f.get("max_legs"))
    tracks = {}
    for doc in track_docs:
        t = parse_track(doc)
        tracks[t.name] = t
    return Game(rules=rules, number_faces=[int(v) for v in dice["number"]], shoot_dice=shoot,
                switches=switches, formats=formats, tracks=tracks)


def load_game(directory) -> Game:
    """Read DIR/game.toml and DIR/tracks/*.toml (file name order)."""
    d = Path(directory)
    with open(d / "game.toml", "rb") as fh:
        game_doc = tomllib.load(fh)
    track_docs = []
    for p in sorted((d / "tracks").glob("*.toml")):
        with open(p, "rb") as fh:
            track_docs.append(tomllib.load(fh))
    return game_from_dicts(game_doc, track_docs)


# ---------------------------------------------------------------------------------------------
# the racers


@dataclass
class Racer:
    seat: int
    team: int
    leg: int
    lap: int = 1
    stage: int = START
    sq: int = 0
    owed: int = 0          # penalty loops left, counting the one being skied
    visit: int = 0         # range visits so far
    fired: int = 0
    hits: int = 0
    standing: int = 0
    spare_left: int = 0
    spare_used: int = 0
    shooting_over: bool = False
    skip: bool = False
    turns: int = 0
    place: int = 0         # crossing order (individual: place; relay last leg: team place)
    finish_round: int = 0  # the round it crossed the line
    left: int = 0          # the roll its crossing move left unused (finish_ties "leftover")
    from_pen: bool = False  # its last step came out of the penalty loop (penalty_gate "bypass")
    last_visit: tuple = None   # (fired, standing, spare_left) when it last left the range

    @property
    def pos(self):
        return (self.lap, self.stage, self.sq)

    @property
    def on_board(self):
        return self.stage not in (WAITING, FINISHED)


# ---------------------------------------------------------------------------------------------
# the referee


class Referee:
    """Replays one race. With `events` it checks the log; with `dice` instead (an iterator of
    face indices, number dice and shooting dice in the order they are rolled) it writes the log
    the referee expects (used by the unit tests to build logs to corrupt)."""

    def __init__(self, game: Game, setup: dict, events=None, dice=None):
        self.game = game
        self.cov = Counter()
        self.checking = events is not None
        if self.checking:
            arr = np.asarray(events)
            if arr.ndim != 2 or arr.shape[1] != 13:
                raise RefereeError(f"the log must be an array of shape (n, 13); got {arr.shape}")
            self.rows = arr.astype(np.int64).tolist()  # Python ints, as map(int) gave, 20x faster
        else:
            self.rows = []
            self.dice = iter(dice)
        self.i = 0
        self.round = 0
        self._setup(setup)

    # -- set-up ---------------------------------------------------------------------------------

    def _setup(self, setup):
        g = self.game
        self.track = g.tracks[setup["track"]]
        fmt = setup["format"]
        if isinstance(fmt, int):
            fmt = {v: k for k, v in FORMAT_IDS.items()}[fmt]
        self.format_name = fmt
        self.fmt = g.formats[fmt]
        self.relay = self.fmt["relay"]
        if self.relay:
            self.n_teams = int(setup["teams"])
            self.legs = int(setup["legs"])
        else:
            self.n_teams = int(setup.get("racers", setup.get("teams", 0)))
            self.legs = 1
        self.n_seats = self.n_teams * self.legs
        self.number_dice = int(setup.get("number_dice", 1))
        self.shooting_dice = int(setup.get("shooting_dice", 1))
        die = setup.get("shooting_die")
        if die is None:
            die = self.fmt["shooting_die"]
        if isinstance(die, int):
            die = {v: k for k, v in DIE_IDS.items()}[die]
        self.die_name = die
        self.die = g.shoot_dice[die]
        self.round_cap = int(setup.get("round_cap", g.rules["round_cap"]))
        self.sw = dict(g.switches)
        self.sw.update(setup.get("switches", {}))
        self.targets = g.rules["targets"]
        self.range_lines = g.rules["range_lines"]
        self.spare_shots = self.fmt["spare_shots"]
        self.laps = self.fmt["laps"]
        self.shootings = list(self.fmt["shootings"])
        self.n_shootings = len(self.shootings)
        self.track_id = setup.get("track_id")
        self.colours = setup.get("colours")
        self.racers = []
        for team in range(self.n_teams):
            for leg in range(self.legs):
                r = Racer(seat=team * self.legs + leg, team=team, leg=leg)
                if leg > 0:
                    r.stage, r.lap = WAITING, 0
                self.racers.append(r)
        self.next_place = 1
        self.leader = None
        self.lead_changes = 0
        self.last_range_done = False
        # distances (rules.md section 12)
        t = self.track
        self._R = {self.laps: t.F + 1}
        for lap in range(self.laps - 1, 0, -1):
            if lap in self.shootings:
                self._R[lap] = 2 + (t.N - 1 - t.range_exit) + self._R[lap + 1]
            else:
                self._R[lap] = t.N + self._R[lap + 1]
        self.D = t.N + self._R[1]

    # -- the log cursor -------------------------------------------------------------------------

    def fail(self, msg):
        raise RefereeError(msg)

    def _where(self, idx, seat, kind):
        return (f"row {idx}, round {self.round}, seat {seat}, "
                f"{EVENT_NAMES.get(kind, f'kind {kind}')}")

    def _peek(self, kind, seat, what, seat_alts=None):
        """The current row, not taken, which must be `kind` for `seat` (`seat_alts`: {other
        seat: reading} where the docs leave the seat column open)."""
        if self.i >= len(self.rows):
            self.fail(f"row {self.i}, round {self.round}, seat {seat}: the log ends here but "
                      f"{EVENT_NAMES[kind]} was expected ({what})")
        row = self.rows[self.i]
        s, k = row[1], row[2]
        if seat_alts and s in seat_alts and k == kind:
            self.cov[f"reading:{seat_alts[s]}"] += 1
            seat = s
        if k != kind or s != seat:
            self.fail(f"row {self.i}, round {self.round}: expected {EVENT_NAMES[kind]} of seat "
                      f"{seat} ({what}); logged {EVENT_NAMES.get(k, f'kind {k}')} of seat {s}: "
                      f"{row}")
        return row

    def _take(self, kind, seat, what, round_loose=False, seat_alts=None):
        """The next row, which must be `kind` for `seat` in the current round (`seat_alts`: as
        `_peek`)."""
        row = self._peek(kind, seat, what, seat_alts)
        rnd, seat = row[0], row[1]
        if rnd != self.round:
            if round_loose and rnd in (0, self.round + 1):
                self.cov[f"reading:post_race_round={'0' if rnd == 0 else 'last+1'}"] += 1
            else:
                self.fail(f"{self._where(self.i, seat, kind)}: logged in round {rnd}, expected "
                          f"round {self.round} ({what})")
        elif round_loose:
            self.cov["reading:post_race_round=last"] += 1
        self.i += 1
        return row[3:]

    def expect(self, kind, seat, args, what="", loose=None, round_loose=False, seat_alts=None):
        """Check (or write) one row. `loose`: {arg index: [(value or None, reading), ...]} where
        the docs allow several values (None accepts any); the first is written when generating."""
        args = list(args) + [0] * (10 - len(args))
        if not self.checking:
            vals = list(args)
            for k, opts in (loose or {}).items():
                vals[k] = opts[0][0] if opts[0][0] is not None else vals[k]
            self.rows.append([self.round, seat, kind] + vals)
            return
        idx = self.i
        got = self._take(kind, seat, what, round_loose, seat_alts)
        names = FIELD_NAMES.get(kind, ())
        bad = []
        for k in range(10):
            if loose and k in loose:
                for v, reading in loose[k]:
                    if v is None or v == got[k]:
                        self.cov[f"reading:{reading}"] += 1
                        break
                else:
                    bad.append(f"a{k} {names[k] if k < len(names) else ''}: expected one of "
                               f"{[v for v, _ in loose[k]]}, logged {got[k]}")
                continue
            if got[k] != args[k]:
                nm = names[k] if k < len(names) else "unused"
                bad.append(f"a{k} ({nm}): expected {args[k]}, logged {got[k]}")
        if bad:
            self.fail(f"{self._where(idx, seat, kind)}{' (' + what + ')' if what else ''}: "
                      + "; ".join(bad) + f" -- expected row {args}, logged {got}")

    # -- chance ---------------------------------------------------------------------------------

    def roll(self, r, purpose):
        """A ROLL row: the faces come from the log (or the dice); the rest is checked."""
        faces = self.game.number_faces
        nd = 1 if self.sw["two_dice"] == "two_racers" else self.number_dice
        if nd != self.number_dice:
            self.cov["two_racers_one_number_die"] += 1
        if self.checking:
            row = self._peek(EV_ROLL, r.seat, f"purpose {purpose}")
            idx = [row[5]] + ([row[6]] if nd == 2 else [])
            for f in idx:
                if not 0 <= f < len(faces):
                    self.fail(f"{self._where(self.i, r.seat, EV_ROLL)}: face index {f} is not a "
                              f"face of the number die ({len(faces)} faces)")
        else:
            idx = [next(self.dice) for _ in range(nd)]
        vals = [faces[f] for f in idx]
        args = [purpose, nd, idx[0], idx[1] if nd == 2 else -1, vals[0],
                vals[1] if nd == 2 else 0, sum(vals)]
        self.expect(EV_ROLL, r.seat, args, f"roll for purpose {purpose}")
        self.cov[f"roll_purpose_{purpose}"] += 1
        return sum(vals)

    def shot_face(self, r, slot):
        """A shooting-die face index taken from the current SHOT row (a2 or a4) or the dice."""
        n = len(self.die)
        if self.checking:
            row = self._peek(EV_SHOT, r.seat, f"shot {r.fired + 1}")
            f = row[3 + slot]
            if not 0 <= f < n:
                self.fail(f"{self._where(self.i, r.seat, EV_SHOT)}: face index {f} (a{slot}) is "
                          f"not a face of the {self.die_name} shooting die ({n} faces)")
            return f
        return next(self.dice)

    # -- geometry -------------------------------------------------------------------------------

    def next_pos(self, lap, stage, sq, owed):
        """One step along the racer's own route (rules.md section 6)."""
        t = self.track
        if stage == START:
            return 1, LOOP, 0, owed
        if stage == LOOP:
            if sq == t.pen_entry and owed > 0:
                return lap, PENALTY, 0, owed
            if sq < t.N - 1:
                return lap, LOOP, sq + 1, owed
            if lap in self.shootings:
                return lap, RANGE, 0, owed
            if lap == self.laps:
                return (lap, FINISH_AREA, 0, owed) if t.F > 0 else (lap, FINISHED, 0, owed)
            return lap + 1, LOOP, 0, owed
        if stage == PENALTY:
            if sq < t.P - 1:
                return lap, PENALTY, sq + 1, owed
            if owed > 1:
                return lap, PENALTY, 0, owed - 1
            return lap, LOOP, t.pen_entry + 1, 0
        if stage == FINISH_AREA:
            if sq < t.F - 1:
                return lap, FINISH_AREA, sq + 1, owed
            return lap, FINISHED, 0, owed
        if stage == RANGE:
            return lap + 1, LOOP, t.range_exit, owed
        raise AssertionError(f"no step from stage {stage}")

    def step(self, state, count=True):
        """next_pos, counting the penalty loop coverage."""
        nxt = self.next_pos(*state)
        if count:
            if state[1] == LOOP and nxt[1] == PENALTY:
                self.cov["penalty_loop_entered"] += 1
            elif state[1] == PENALTY and nxt[1] == PENALTY and nxt[2] == 0:
                self.cov["penalty_loop_again"] += 1
            elif state[1] == PENALTY and nxt[1] == LOOP:
                self.cov["penalty_loop_left"] += 1
            elif state[1] == LOOP and state[2] == self.track.pen_entry and nxt[1] == LOOP:
                self.cov["penalty_entry_passed_straight"] += 1
        return nxt

    def zone(self, stage, sq):
        t = self.track
        if stage == LOOP:
            return t.zones[sq]
        if stage == PENALTY:
            return t.pen_zones[sq]
        if stage == FINISH_AREA:
            return t.fin_zones[sq]
        return WHITE    # START area, range (and the finish line when entered)

    def step_price(self, stage, sq):
        """Half-points to enter a position under zone_rule = "steps"."""
        if stage in (RANGE, FINISHED):
            return 2
        return {WHITE: 2, BLUE: 4, GREEN: 1}[self.zone(stage, sq)]

    def capacity(self, stage, sq):
        t = self.track
        if stage == LOOP:
            if sq in (t.pen_entry, t.pen_entry + 1):
                return {"two": 2, "one": 1, "bypass": 2}[self.sw["penalty_gate"]]
            return 1
        if stage == PENALTY:
            return 1
        if stage == FINISH_AREA:
            return t.corridors
        return math.inf

    def others_on(self, me, stage, sq):
        return sum(1 for o in self.racers
                   if o is not me and o.on_board and o.stage == stage and o.sq == sq)

    def full(self, me, stage, sq, owed=None, from_pen=None):
        """Whether (stage, sq) is full for `me` arriving there with `owed` penalty loops and
        `from_pen` (its step there came out of the penalty loop); both default to me's own."""
        if stage not in (LOOP, PENALTY, FINISH_AREA):
            return False
        n = self.others_on(me, stage, sq)
        if n >= self.capacity(stage, sq):
            return True
        t = self.track
        if (n == 1 and stage == LOOP and self.sw["penalty_gate"] == "bypass"
                and sq in (t.pen_entry, t.pen_entry + 1)):
            other = next(o for o in self.racers
                         if o is not me and o.on_board and o.stage == LOOP and o.sq == sq)
            if sq == t.pen_entry:      # the fork: into the loop (owing) or past it
                mine = (me.owed if owed is None else owed) > 0
                same = mine == (other.owed > 0)
            else:                      # the join: out of the loop or from the track
                mine = me.from_pen if from_pen is None else from_pen
                same = mine == other.from_pen
            self.cov[f"gate_{'same' if same else 'other'}_branch_{'entry' if sq == t.pen_entry else 'exit'}"] += 1
            return same
        return False

    def free_line(self, me):
        taken = {o.sq for o in self.racers if o is not me and o.stage == RANGE}
        for line in range(self.range_lines, 0, -1):
            if line not in taken:
                return line
        self.fail(f"round {self.round}, seat {me.seat}: the range is full "
                  f"({self.range_lines} lines)")

    # -- distance left (rules.md section 12) ----------------------------------------------------

    def dist(self, r):
        t = self.track
        N, x, e, P, F = t.N, t.range_exit, t.pen_entry, t.P, t.F
        if r.stage == START:
            return self.D
        if r.stage == WAITING:
            return self.D
        if r.stage == FINISHED:
            return 0
        if r.stage == LOOP:
            if r.sq <= e:
                return N - 1 - r.sq + r.owed * P + self._R[r.lap]
            return N - 1 - r.sq + self._R[r.lap]
        if r.stage == PENALTY:
            return P - 1 - r.sq + (r.owed - 1) * P + N - 1 - e + self._R[r.lap]
        if r.stage == RANGE:
            return 1 + (N - 1 - x) + r.owed * P + self._R[r.lap + 1]
        if r.stage == FINISH_AREA:
            return F - 1 - r.sq + 1
        raise AssertionError(r.stage)

    def route_dist(self, r):
        """The same distance by walking the route (a self-check used by the unit tests)."""
        lap, stage, sq, owed = r.lap, r.stage, r.sq, r.owed
        if stage == WAITING:
            lap, stage, sq = 1, START, 0
        n = 0
        while stage != FINISHED:
            lap, stage, sq, owed = self.next_pos(lap, stage, sq, owed)
            n += 1
        return n

    def team_racers(self, team):
        return self.racers[team * self.legs:(team + 1) * self.legs]

    def active(self, team):
        for r in self.team_racers(team):
            if r.stage != FINISHED:
                return r
        return None

    def team_dist(self, team):
        r = self.active(team)
        if r is None:
            return 0
        return self.dist(r) + self.D * (self.legs - 1 - r.leg)

    def team_finished(self, team):
        return self.active(team) is None

    # -- moves ----------------------------------------------------------------------------------

    def n_squares(self, roll, zone):
        if zone == WHITE:
            return roll
        if zone == GREEN:
            return 2 * roll
        if self.sw["halve_rounding"] == "up":
            return (roll + 1) // 2
        return roll // 2

    def dice_walk(self, r, roll):
        """Walk the dice move from r's position; returns steps taken (r is moved). Sets
        self.left (the roll left unused: squares, or half-points under "steps") and
        self.stepped (specials_on "passing": the marks of the loop squares stepped onto; the
        walk stops on a T)."""
        steps = 0
        state = (r.lap, r.stage, r.sq, r.owed)
        prev_stage = None
        passing = self.sw["specials_on"] == "passing"
        self.stepped = []

        def note(state):
            """passing: note the square stepped onto; True on a T (the move ends there)."""
            if not passing or state[1] != LOOP:
                return False
            mark = self.track.marks[state[2]]
            if mark:
                self.stepped.append(mark)
            return mark == "T"

        if self.sw["zone_rule"] == "start":
            z = self.zone(r.stage, r.sq)
            n = self.n_squares(roll, z)
            self.cov[f"move_zone_{'wbg'[z]}"] += 1
            if z == BLUE and roll % 2:
                self.cov["move_blue_odd"] += 1
            while steps < n:
                prev_stage = state[1]
                state = self.step(state)
                steps += 1
                if state[1] in (RANGE, FINISHED) or note(state):
                    break
            self.left = n - steps
        else:
            budget = 2 * roll
            while budget > 0:
                nxt = self.step(state, count=False)
                price = self.step_price(nxt[1], nxt[2])
                if budget >= price:
                    budget -= price
                elif self.sw["halve_rounding"] == "up":
                    budget = 0
                    self.cov["steps_last_partial"] += 1
                else:
                    break
                prev_stage = state[1]
                state, steps = self.step(state), steps + 1
                if state[1] in (RANGE, FINISHED) or note(state):
                    break
            self.left = budget
        if steps:
            r.from_pen = prev_stage == PENALTY and state[1] == LOOP
        r.lap, r.stage, r.sq, r.owed = state
        return steps

    def push(self, r):
        """The group rule: from a full position, on along r's own route to the first gap."""
        gained = 0
        state = (r.lap, r.stage, r.sq, r.owed)
        from_pen = r.from_pen
        while self.full(r, state[1], state[2], state[3], from_pen):
            prev = state
            state = self.step(state)
            from_pen = prev[1] == PENALTY and state[1] == LOOP
            gained += 1
            if state[1] in (RANGE, FINISHED):
                break
        r.lap, r.stage, r.sq, r.owed = state
        r.from_pen = from_pen
        if state[1] == RANGE:
            self.cov["group_into_range"] += 1
        elif state[1] == FINISHED:
            self.cov["group_over_finish"] += 1
        else:
            nxt = self.next_pos(*state)
            if self.others_on(r, nxt[1], nxt[2]) > 0 and nxt[1] in (LOOP, PENALTY, FINISH_AREA):
                self.cov["group_into_gap"] += 1
            else:
                self.cov["group_to_front"] += 1
            if state[1] == PENALTY:
                self.cov["group_in_penalty_loop"] += 1
            if state[1] == FINISH_AREA:
                self.cov["group_in_finish_area"] += 1
        self.cov["group_push"] += 1
        self.cov["group_squares"] += gained
        if gained > 1:
            self.cov["group_push_over_several"] += 1
        return gained

    def arrive(self, r):
        r.visit += 1
        r.fired = r.hits = r.spare_used = 0
        r.standing = self.targets
        r.spare_left = self.spare_shots
        r.shooting_over = False
        r.owed = 0
        self.expect(EV_ARRIVE, r.seat, [r.visit, r.sq], "range arrival")
        self.cov["range_arrive"] += 1
        if r.sq < self.range_lines:
            self.cov["range_line_beside_another"] += 1

    def finish(self, r, left=0):
        r.stage, r.lap, r.sq, r.owed = FINISHED, self.laps, 0, 0
        r.finish_round, r.left = self.round, left
        self.cov["finish"] += 1
        if self.relay:
            if r.leg == self.legs - 1:
                r.place = self.next_place
                self.next_place += 1
                self.cov["relay_team_finish"] += 1
            self.expect(EV_FINISH, r.seat, [r.place, r.leg], "crossing the finish line")
            if r.leg < self.legs - 1:
                nxt = self.racers[r.seat + 1]
                nxt.stage, nxt.lap, nxt.sq = START, 1, 0
                self.expect(EV_HANDOVER, r.seat, [r.team, r.leg + 1], "relay handover",
                            seat_alts={r.seat: "handover_seat=finishing_leg",
                                       nxt.seat: "handover_seat=next_leg"})
                self.cov["handover"] += 1
        else:
            r.place = self.next_place
            self.next_place += 1
            self.expect(EV_FINISH, r.seat, [r.place, r.leg], "crossing the finish line")

    def pos_loose(self, p, first):
        """Loose options for a START position's lap (a `first`-based argument index)."""
        if p[1] == START:
            return {first: [(1, "start_lap=1"), (0, "start_lap=0")]}
        return {}

    def move(self, r, purpose):
        """A move (the turn's move, an extra move or the exit move) and the extra moves it earns
        (rules.md section 11: made one after the other, those from X first)."""
        owed_x = owed_o = 0
        while True:
            roll = self.roll(r, purpose)
            placed = purpose == P_EXIT and self.sw["exit_from"] == "exit_square"
            if placed:
                r.lap, r.stage, r.sq = r.lap + 1, LOOP, self.track.range_exit
                r.from_pen = False
                self.cov["exit_placed_on_exit_square"] += 1
            start = r.pos
            start_on = r.pos
            if purpose == P_EXIT:
                self.cov["exit_move"] += 1
                r.last_visit = (r.fired, r.standing, r.spare_left)
            steps = self.dice_walk(r, roll)
            if r.stage == RANGE:
                r.sq = self.free_line(r)
            self.expect(EV_MOVE, r.seat, list(start) + [steps] + list(r.pos),
                        f"dice move of roll {roll}", loose=self.pos_loose(start, 0))
            if steps == 0:
                self.cov["zero_step_move"] += 1
            if r.stage == RANGE:
                self.arrive(r)
                return
            if r.stage == FINISHED:
                self.finish(r, self.left)
                if self.left:
                    self.cov["finish_with_roll_left"] += 1
                return
            may_chain = self.sw["chain_extra_rolls"] or purpose in (P_MOVE, P_EXIT)
            if self.sw["specials_on"] == "passing":
                got = self.passing_specials(r, steps, placed, may_chain)
                if got is None:
                    return
                owed_x += got[0]
                owed_o += got[1]
            else:
                got = self.landing_special(r, steps, placed, start_on, purpose, may_chain)
                if got is None:
                    return
                owed_x += got[0]
                owed_o += got[1]
            if owed_x:
                owed_x -= 1
                nxt = P_X
            elif owed_o:
                owed_o -= 1
                nxt = P_O
            else:
                return
            if purpose in (P_X, P_O):
                self.cov["extra_move_chained"] += 1
            purpose = nxt

    def group_after_move(self, r, steps, placed):
        """The group rule after a dice move: (pushed, ended); ended when the push reached the
        range or the line."""
        if steps == 0:
            if not (placed and self.full(r, r.stage, r.sq)):
                return False, False
            # Placed on a full exit square and not moved off it: the docs say both "a move
            # of 0 squares takes no square and triggers nothing" and "no two racers may end
            # a move on the same square". Either reading is accepted (AMBIGUITIES).
            if self.checking:
                nxt = self.rows[self.i] if self.i < len(self.rows) else None
                push = nxt is not None and nxt[2] == EV_GROUP and nxt[1] == r.seat
            else:
                push = True
            self.cov[f"reading:zero_step_exit_on_full_square={'push' if push else 'stay'}"] += 1
            if not push:
                return False, False
        if not self.full(r, r.stage, r.sq):
            return False, False
        gained = self.push(r)
        if r.stage == RANGE:
            r.sq = self.free_line(r)
        self.expect(EV_GROUP, r.seat, [gained] + list(r.pos), "group rule push")
        if r.stage == RANGE:
            self.arrive(r)
            return True, True
        if r.stage == FINISHED:
            self.finish(r)
            self.cov["finish_via_group"] += 1
            return True, True
        return True, False

    def square_special(self, r, may_chain):
        """The special of the loop square r stands on acts: (extra moves from X, from O), or
        None when a T jump's push ended the move in the range or over the line."""
        mark = self.track.marks[r.sq]
        if mark == "X":
            return (1 if self.x_square(r, may_chain) == 2 else 0), 0
        if mark == "T":
            return None if self.t_square(r) else (0, 0)
        if mark == "O":
            return 0, self.o_square(r, may_chain)
        return 0, 0

    def landing_special(self, r, steps, placed, start_on, purpose, may_chain):
        """specials_on = "landing": the group rule, then the special of the square where the
        racer stands. (extra moves from X, from O), or None when the move is over for good."""
        pushed, ended = self.group_after_move(r, steps, placed)
        if ended:
            return None
        if steps:
            self.check_shared(r)
        if pushed and not self.sw["specials_after_push"]:
            return 0, 0
        # "having left the square it started on": a move that comes round a whole lap onto
        # the same physical square has left it (event-log.md: the move took a step)
        if r.stage != LOOP or r.pos == start_on or steps == 0:
            return 0, 0
        mark = self.track.marks[r.sq]
        if mark:
            self.cov[f"special_{mark}_by_{PURPOSE_NAMES[purpose]}"] += 1
        if pushed and mark:
            self.cov[f"special_{mark}_after_push"] += 1
        return self.square_special(r, may_chain)

    def passing_specials(self, r, steps, placed, may_chain):
        """specials_on = "passing" (rules.md section 11): a T stepped onto jumps at once;
        otherwise the group rule and the special of a square it pushes onto; then every X,
        then every O stepped onto. (extra moves from X, from O), or None."""
        xs = os_ = 0
        if self.stepped and self.stepped[-1] == "T":
            self.cov["passing_T_stop"] += 1
            if self.t_square(r):
                return None
        else:
            pushed, ended = self.group_after_move(r, steps, placed)
            if ended:
                return None
            if steps:
                self.check_shared(r)
            if pushed and steps and self.sw["specials_after_push"] and r.stage == LOOP:
                got = self.square_special(r, may_chain)
                if got is None:
                    return None
                xs, os_ = got
        n_x = self.stepped.count("X")
        n_o = self.stepped.count("O")
        if n_x + n_o > 1:
            self.cov["passing_several_specials"] += 1
        for _ in range(n_x):
            self.cov["passing_X"] += 1
            xs += 1 if self.x_square(r, may_chain) == 2 else 0
        for _ in range(n_o):
            self.cov["passing_O"] += 1
            os_ += self.o_square(r, may_chain)
        return xs, os_

    def o_square(self, r, may_chain):
        self.expect(EV_O, r.seat, [1 if may_chain else 0], "refreshment square O")
        self.cov["O"] += 1
        if may_chain:
            self.cov["O_extra_move"] += 1
            return 1
        self.cov["O_no_chain"] += 1
        return 0

    def check_shared(self, r):
        """Coverage of the two squares that hold two racers."""
        if r.stage == LOOP and r.sq in (self.track.pen_entry, self.track.pen_entry + 1):
            if self.others_on(r, LOOP, r.sq) == 1:
                which = "entry" if r.sq == self.track.pen_entry else "exit"
                self.cov[f"two_on_penalty_{which}_square"] += 1

    def x_square(self, r, may_chain):
        own = self.team_dist(r.team)
        others = [self.team_dist(t) for t in range(self.n_teams) if t != r.team]
        if others:
            lo, hi = min(others), max(others)
            first, last = own <= lo, own >= hi
        else:
            lo = hi = -1
            first = last = True
        if first and last:
            outcome = 0
            self.cov["X_first_and_last"] += 1
        elif first:
            outcome = 1
            r.skip = True
            self.cov["X_first"] += 1
        elif last:
            outcome = 2 if may_chain else 3
            self.cov["X_last"] += 1
            if outcome == 3:
                self.cov["X_last_no_chain"] += 1
        else:
            outcome = 0
            self.cov["X_middle"] += 1
        self.expect(EV_X, r.seat, [outcome, own, lo, hi], "X square")
        return outcome

    def t_square(self, r):
        """The T jump and its group rule; True when that push reached the range or the line."""
        sq = r.sq
        target = self.track.t_target(sq)
        r.sq = target
        r.from_pen = False
        self.expect(EV_T, r.seat, [sq, target, target - sq], "trainer square T")
        self.cov["T"] += 1
        if self.full(r, r.stage, r.sq):
            gained = self.push(r)
            if r.stage == RANGE:
                r.sq = self.free_line(r)
            self.expect(EV_GROUP, r.seat, [gained] + list(r.pos), "group rule after T")
            self.cov["T_then_group"] += 1
            if r.stage == RANGE:
                self.arrive(r)
                return True
            if r.stage == FINISHED:
                self.finish(r)
                return True
        return False

    # -- the range ------------------------------------------------------------------------------

    def shoot(self, r):
        """One turn at the range (rules.md section 8): a die's worth of shots per shooting die,
        or (shots_per_turn = "all") the whole shooting."""
        dice = 1 if self.sw["two_dice"] == "two_racers" else self.shooting_dice
        every = self.sw["shots_per_turn"] == "all"
        cal_spare = self.sw["calibre_uses_spare"]
        while True:
            if r.fired < self.targets:
                k = self.targets - r.fired if every else min(dice, self.targets - r.fired)
                spare = 0
            else:
                k = min(r.spare_left, r.standing) if every else min(dice, r.spare_left, r.standing)
                spare = 1
            for _ in range(k):
                if spare and r.spare_left == 0:
                    self.cov["spares_gone_to_rerolls"] += 1
                    break
                f = self.shot_face(r, 2)
                kind = self.die[f]
                rf = rk = -1
                if kind == CALIBRE and spare and cal_spare and r.spare_left < 2:
                    hit = False         # the last spare: no spare left for the re-roll
                    self.cov["calibre_no_spare_for_reroll"] += 1
                elif kind == CALIBRE:
                    rf = self.shot_face(r, 4)
                    rk = self.die[rf]
                    hit = rk == HIT
                    self.cov["calibre_hit" if hit else "calibre_miss"] += 1
                    if spare and cal_spare:
                        r.spare_left -= 1
                        r.spare_used += 1
                        self.cov["calibre_reroll_used_a_spare"] += 1
                else:
                    hit = kind == HIT
                r.fired += 1
                if spare:
                    r.spare_left -= 1
                    r.spare_used += 1
                    self.cov["spare_shot"] += 1
                    if hit:
                        self.cov["spare_hit"] += 1
                if hit:
                    r.hits += 1
                    r.standing -= 1
                self.cov["shot_hit" if hit else "shot_miss"] += 1
                self.expect(EV_SHOT, r.seat, [r.fired, spare, f, kind, rf, rk, int(hit), r.hits,
                                              r.standing], f"shot {r.fired} of visit {r.visit}")
            if r.fired >= self.targets and (r.standing == 0 or self.spare_shots == 0
                                            or r.spare_left == 0):
                r.shooting_over = True
                r.owed = r.standing
                self.expect(EV_SHOOT_END, r.seat, [r.visit, r.fired, r.hits, r.standing,
                                                   r.spare_used], f"end of shooting {r.visit}")
                self.cov["shooting_clean" if r.standing == 0 else "shooting_with_penalties"] += 1
                self.cov["penalty_loops_owed"] += r.standing
                if every:
                    self.cov["whole_shooting_in_one_turn"] += 1
                return
            if not every:
                return

    # -- turns, rounds, the race ----------------------------------------------------------------

    def state_row(self, r):
        if r.stage == RANGE:
            a456 = [r.fired, r.standing, r.spare_left]
            loose = {}
        else:
            a456 = [0, 0, 0]
            opts = [((0, 0, 0), "reset"), ((0, self.targets, self.spare_shots), "fresh")]
            if r.last_visit is not None:
                opts.append((r.last_visit, "kept"))
            # the docs leave these open away from the range: one of the patterns must match
            a456 = list(opts[-1][0] if r.last_visit is not None else opts[0][0])
            if self.checking and self.i < len(self.rows):
                got = tuple(self.rows[self.i][7:10])
                for v, label in opts:
                    if v == got:
                        a456 = list(v)
                        when = "before_any_visit" if r.last_visit is None else "after_a_visit"
                        self.cov[f"reading:state_shooting_outside_range_{when}={label}"] += 1
                        break
            loose = {}
        loose.update(self.pos_loose(r.pos, 0))
        if r.stage == WAITING:
            loose[8] = [(self.D, "waiting_distance=start"), (0, "waiting_distance=0")]
        args = list(r.pos) + [r.owed] + a456 + [int(r.skip), self.dist(r), r.turns]
        self.expect(EV_STATE, r.seat, args, "state after the turn", loose=loose)

    def turn(self, r):
        if r.skip:
            r.skip = False
            self.expect(EV_SKIP, r.seat, [], "a turn skipped after X (first)")
            self.cov["skip"] += 1
            self.state_row(r)
            return
        r.turns += 1
        exited_final = False
        if r.stage == RANGE and not r.shooting_over:
            self.shoot(r)
            if r.shooting_over and self.sw["exit_roll"] == "same_turn":
                exited_final = r.visit == self.n_shootings
                self.move(r, P_EXIT)
        elif r.stage == RANGE:
            exited_final = r.visit == self.n_shootings
            self.move(r, P_EXIT)
        else:
            self.move(r, P_MOVE)
        self.state_row(r)
        self.update_leader()
        if exited_final and not self.last_range_done and (not self.relay
                                                          or r.leg == self.legs - 1):
            self.last_range_done = True
            self.expect(EV_LAST_RANGE, -1, [self.leader], "leader after the final range")
            self.cov["last_range"] += 1

    def update_leader(self):
        ds = [self.team_dist(t) for t in range(self.n_teams)]
        best = min(ds)
        tied = [t for t in range(self.n_teams) if ds[t] == best]
        new = self.leader if self.leader in tied else tied[0]
        if new != self.leader:
            if self.leader is not None:
                self.lead_changes += 1
                self.cov["lead_change"] += 1
            self.leader = new
            self.expect(EV_LEADER, -1, [new, self.lead_changes, best], "new leader")

    def racing(self, team):
        return not self.team_finished(team)

    def run(self):
        cap = self.round_cap
        self.expect(EV_RACE, -1, [self.track_id if self.track_id is not None else 0,
                                  FORMAT_IDS[self.format_name], self.n_seats, self.n_teams,
                                  self.legs, self.number_dice, self.shooting_dice,
                                  DIE_IDS[self.die_name], cap],
                    "race set-up",
                    loose=None if self.track_id is not None else {0: [(None, "track_id")]})
        for r in self.racers:
            colour = self.colours[r.seat] if self.colours is not None else -1
            self.expect(EV_SEAT, r.seat, [r.team, r.leg, colour], "seat")
        for r in self.racers:
            self.state_row(r)
        stalled = True
        for rnd in range(1, cap + 1):
            self.round = rnd
            self.expect(EV_ROUND, -1, [rnd], "round start")
            for team in range(self.n_teams):
                if not self.racing(team):
                    continue
                self.turn(self.active(team))
                if all(not self.racing(t) for t in range(self.n_teams)):
                    break
            if all(not self.racing(t) for t in range(self.n_teams)):
                stalled = False
                break
        if stalled:
            self.expect(EV_STALL, -1, [cap], "round cap reached", round_loose=True)
            self.cov["stall"] += 1
        self.places()
        if self.checking:
            rest = self.rows[self.i:]
            if rest and all(row[2] == 0 and not any(row[3:]) for row in rest):
                self.cov["reading:padding=zero_rows"] += 1
                rest = []
            if rest:
                self.fail(f"row {self.i}: the race is over (all PLACE rows checked) but the log "
                          f"goes on: {rest[0]}")

    def places(self):
        # teams (relay) or racers: finishers by the round they crossed, within a round as
        # finish_ties says (rules.md section 10); then the others by distance, then by id
        ties = self.sw["finish_ties"]

        def key(team):
            if self.team_finished(team):
                last = self.team_racers(team)[-1]
                within = -last.left if ties == "leftover" else 0
                return (0, last.finish_round, within, last.place, team)
            return (1, self.team_dist(team), team)
        order = sorted(range(self.n_teams), key=key)
        place_of = {team: k + 1 for k, team in enumerate(order)}
        if ties == "shared":
            rounds = {}
            for team in order:
                if self.team_finished(team):
                    rnd = self.team_racers(team)[-1].finish_round
                    if rnd in rounds:
                        place_of[team] = rounds[rnd]
                        self.cov["finish_place_shared"] += 1
                    else:
                        rounds[rnd] = place_of[team]
        if ties == "leftover" and any(place_of[t] != self.team_racers(t)[-1].place
                                      for t in range(self.n_teams) if self.team_finished(t)):
            self.cov["finish_order_by_roll_left"] += 1
        rows = sorted(self.racers, key=lambda r: (place_of[r.team], r.seat))
        for r in rows:
            fin = int(self.team_finished(r.team))
            if self.relay:
                own_fin, own_d, team_d = int(r.stage == FINISHED), self.dist(r), self.team_dist(r.team)
                loose = {1: ([(fin, "place_relay_finished=team"), (own_fin, "place_relay_finished=seat")]
                             if own_fin != fin else [(fin, "place_relay_finished=same")]),
                         2: ([(team_d, "place_relay_distance=team"), (own_d, "place_relay_distance=seat")]
                             if own_d != team_d else [(team_d, "place_relay_distance=same")])}
                self.expect(EV_PLACE, r.seat, [place_of[r.team]], "final place", loose=loose,
                            round_loose=True)
            else:
                self.expect(EV_PLACE, r.seat, [place_of[r.team], fin, self.dist(r)],
                            "final place", round_loose=True)


def referee_race(game: Game, setup: dict, events) -> Report:
    """Replay one race from `events` and check every logged value. See the module docstring."""
    try:
        ref = Referee(game, setup, events=events)
    except RefereeError as exc:
        return Report(False, str(exc))
    try:
        ref.run()
    except RefereeError as exc:
        return Report(False, str(exc), ref.cov, ref.i)
    return Report(True, f"ok: {ref.i} rows checked", ref.cov, ref.i)


def simulate(game: Game, setup: dict, dice) -> np.ndarray:
    """The log the referee expects for the given chance outcomes (`dice`: face indices in the
    order rolled: one per number die per ROLL, one per shooting die and calibre re-roll)."""
    ref = Referee(game, setup, dice=dice)
    ref.run()
    return np.array(ref.rows, dtype=np.int16).reshape(-1, 13)
