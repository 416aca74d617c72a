"""An independent referee for Biathlon Blast event logs.

`referee_race(bundle, trail, biathletes, colours, log)` replays a race from its event log
(docs/event-log.md) using only the log's decisions and chance outcomes, keeps its own complete
state of the race, and checks every row against the rules of docs/rules.md. It stops at the first
discrepancy and explains it in words a designer can read.

The referee is written from the documents alone, in plain Python, and shares no rule code with the
race kernel (`kernels/blast`): it imports only the kernel's constants and the log layout, and reads
the data through the readable dataclasses of `sim.blast.model` and the route layouts of
`sim.blast.route`. A misreading of the rules therefore has to be made twice, independently, to pass.

Readings
--------
Where docs/event-log.md and docs/rules.md leave a detail open, the referee takes the reading below.
The race engine must agree with each of them (or the documents must be made precise).

R1.  Unused arguments are 0. Every row's unused argument columns must be 0, and every row's `round`
     column must be the current round (0 during set-up; `STALL` and `PLACE` carry the last round
     played). Trailing rows that are entirely 0 (kind 0 does not exist) are padding and ignored.
R2.  "STATE for every seat" / "for every racing seat" is in seat order (0, 1, ...).
R3.  ACTION a0 is the card the racer chose this round, also on a range turn (not the venue's range
     pseudo-card); on a mat a1 is WAIT 0 / SHOOT 1, elsewhere TOP 0 / BOTTOM 1.
R4.  A turn with zero steps still logs `STEPS` and a `MOVE` to the same position. On a normal turn
     the racer keeps its lane (a racer cannot change lanes without moving). After a Shoot the
     racer is off its mat; if it stays on the range its lane is -1 (lanes on the range are mat
     numbers and it no longer holds a mat), and off-mat racers hold no mat.
R5.  The lane of the run-out is not checked (any 0..5 is accepted): it holds any number of racers.
     It has no lanes, so a racer on it and a racer on a neighbouring space are always in line.
R6.  Taking a face-up Motivation card is always followed by a `FACE_UP` row for that slot, with
     card -1 when the deck is empty (the slot stays empty). A blind draw has no `FACE_UP` row.
R7.  A start-line crossing with no face-up card and an empty deck gives nothing and logs no
     `MOTIVATION` row.
R8.  `HITS` a0 is the raw number of dice meeting the accuracy; a1 is the wind adjustment actually
     applied after the floor of 0 and the ceiling of `max_hits` (so windstill with 5 dice hits
     gives a1 = 0); headwind and tailwind give 0. a3 is the number of red coach bullets spent
     (0 or 1 with the shipped strength-1 zones; up to the zone's strength in general).
R9.  Each bullet must add a hit: dice/wind hits + own bullets + coach bullets <= `max_hits`.
R10. `WIND` appears exactly when the action has the wind symbol (card, white wax spent, or a white
     coach zone the move ended in), even if the player keeps the wind (a0 == a1).
R11. `BOOST` is logged whenever a move ends on a coach zone, whatever the colour: a move that took
     at least one step, and with `zero_step_boost` (default) also a move of zero steps (a Shoot
     that stays on the range included; a Wait is not a move). The range's zone is the venue's
     `range.coach`. Blue and white act on that same turn; black, yellow, green and red become
     *pending* for the racer's next turn.
R12. Pending boosts, switch `coach_boost = "next_turn"`: they apply to the racer's next turn only.
     Step boosts (black/yellow/green) are used by any turn with a move (their steps are in
     `STEPS`); a red boost is used by a coach-paid `PICKUP` (a0 = 2) at that turn's round start or
     by coach bullets in that turn's `HITS`. A pending boost not used on that turn expires with a
     `BOOST_LOST` row after that turn's `CARD_END`. `"until_usable"`: a pending boost expires (with
     `BOOST_LOST`) only after a turn that could have used it and did not; a step boost can be used
     by any turn with a move; a red boost can be used when, at that turn's round start, the hand
     and the discard pile are both non-empty (a paid pick-up is possible), or when the turn is a
     Shoot whose dice and wind leave fewer than `max_hits` hits. A partly used red boost (strength
     2 or more) expires silently. Several `BOOST_LOST` rows come in the order the boosts were
     gained.
R13. A paid pick-up with an empty discard pile is accepted (rules.md 3.1 allows it) with a1 = 0;
     a pick-up costs exactly one bullet, own (a0 = 1) or a pending red coach boost (a0 = 2).
R14. A racer eliminated for pulse gets no `CARD_END` (its card goes nowhere), no `BOOST_LOST` and
     no `STATE`; it takes no further part. Eliminated racers never get `STATE` rows.
R15. When no racer is left in the race, the race ends at once: `PLACE` rows follow immediately
     (no further rounds and no `STALL`, even in the round cap's last round).
R16. A racer that enters the run-out with a pulse above the limit is eliminated (cause 2) and
     the race continues; with the pulse within the limit `WIN` follows `PULSE` directly and the
     `PLACE` rows follow `WIN`.
R17. Wind and facing: on a mat a racer faces `range.facing`; off a mat on the range (it shot and
     did not move) it faces the heading of the route's next space; elsewhere the heading of its
     space. Drafting/tailwind blocking on or next to the range follow `range_drafting` for racers
     on or off a mat alike.
R18. The line-up (biathlete per seat) is not required to be distinct; ski colours are.
R19. Re-sorting after a shot is done by choosing, before every turn, the racer with the highest
     initiative read from the dice as they show at that moment among those still to play; this
     is the same as re-sorting after each shot.
R20. The bundled range pseudo-card and the kernel tables are not used: card values come from the
     `Card`/`Action`/`Value` dataclasses, card ids are checked against `bundle.card_names`.
R21. Round-start events: a free pick-up is mandatory for an empty hand with a non-empty discard
     pile; a paid pick-up is the only optional event; they come in ski colour order among racing
     seats, and a seat has at most one of them per round.
R22. A Shoot's wax is chosen after the hits: its `ACTION` row spends no wax (a2..a6 all 0) and a
     `WAX` row follows `HITS` with the wax spent (at most what the racer holds); a Wait spends its
     wax in `ACTION` and has no `WAX` row.
R23. Headings are read from the venue's segments, not from the compiled layout: a segment's last
     space faces its `fork_heading` entry for the route item that follows it in this trail, else
     the last letter of its `heading`.
R24. Switch `pulse_floor`: "total" floors the sum of cost (less blue), drafting and wind at 0 once;
     "each_part" adds them in that order (the book's), flooring at 0 after each; the limit is
     checked on the result only. The PULSE row's parts are the same under both.
R25. Switch `last_racer_wins`: when an elimination (for pulse during a turn, or for lack of cards at
     a round start, after all of that round start's rows) leaves exactly one racer in the race, a
     `WIN` row for that racer follows with its own position (not the run-out), and the `PLACE`
     rows follow; no `STATE` rows for the round start, no further turns. Without the switch the
     last racer plays on (rules.md 7.2).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from kernels.blast import consts as C
from kernels.blast import events as E

from .compile import CompiledBundle
from .model import Action, Biathlete, Card, Value
from .route import Space

__all__ = ["RefereeReport", "format_report", "referee_race"]

# --- report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefereeReport:
    """The verdict on one log.

    ok: the whole log follows the rules. events_checked: rows accepted (all of them when ok; when
    not ok, the index of the first bad row, so every row before it was accepted). message: on
    success a one-line summary, else the first discrepancy: event index, round, seat, what the log
    says and what the rules require, and why.
    """

    ok: bool
    events_checked: int
    message: str

    def __str__(self) -> str:
        return format_report(self)


def format_report(report: RefereeReport) -> str:
    head = "referee: log accepted" if report.ok else "referee: DISCREPANCY"
    return f"{head} ({report.events_checked} events checked)\n{report.message}"


def referee_race(bundle: CompiledBundle, trail: int, biathletes, colours, log) -> RefereeReport:
    """Replay the race in `log` and check it against the rules; stop at the first discrepancy."""
    try:
        ref = _Referee(bundle, int(trail), [int(b) for b in biathletes], [int(c) for c in colours], log)
    except _Discrepancy as d:
        return RefereeReport(False, 0, d.message)
    try:
        ref.run()
    except _Discrepancy as d:
        return RefereeReport(False, ref.checked, d.message)
    return RefereeReport(True, ref.checked, ref.summary())


# --- internals ---------------------------------------------------------------------------------


class _Discrepancy(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


RACING, WON, OUT = E.STATUS_RACING, E.STATUS_WON, E.STATUS_ELIMINATED
WAX_COLOURS = (C.BLACK, C.YELLOW, C.GREEN, C.BLUE, C.WHITE)   # ACTION a2..a6, STATE a5..a9
STEP_OF_WAX = {C.BLACK: C.UPHILL, C.YELLOW: C.FLAT, C.GREEN: C.DOWNHILL}
KIND = E.KIND_NAMES


def _size(pile: Counter) -> int:
    return sum(n for n in pile.values() if n > 0)


def _steps_text(s) -> str:
    return f"U{s[0]} F{s[1]} D{s[2]}"


@dataclass(eq=False)
class _Boost:
    colour: int          # consts colour id
    strength: int
    left: int            # red: coach bullets not yet spent
    used: bool = False


@dataclass(eq=False)
class _Racer:
    seat: int
    bio: Biathlete
    colour: int
    rank: int                          # place in ski colour order (0 first)
    deck: tuple[int, ...]              # the racer's own cards (common + unique), card ids
    pos: int = -1
    lane: int = 0
    on_mat: bool = False
    pulse: int = 0
    bullets: int = 0
    wax: list[int] = field(default_factory=lambda: [0] * C.N_COLOURS)
    hand: Counter = field(default_factory=Counter)
    discard: Counter = field(default_factory=Counter)
    removed: Counter = field(default_factory=Counter)
    status: int = RACING
    elim_key: tuple | None = None
    pending: list[_Boost] = field(default_factory=list)
    chosen: int = -1
    played: bool = False
    red_pickup_possible: bool = False  # this round: a paid pick-up was possible (hand and discard)

    @property
    def name(self) -> str:
        return self.bio.name

    @property
    def racing(self) -> bool:
        return self.status == RACING


@dataclass
class _Row:
    index: int
    round: int
    seat: int
    kind: int
    a: list[int]


class _Referee:
    def __init__(self, bundle: CompiledBundle, trail: int, biathletes: list[int], colours: list[int], log):
        self.bundle = bundle
        data = bundle.data
        self.data = data
        self.rules = data.rules
        self.sw = data.switches
        self.checked = 0
        self.round = 0
        self.over = False
        self.outcome = ""

        if not 0 <= trail < len(bundle.trail_names):
            raise _Discrepancy(f"set-up: trail id {trail} does not exist (known: {bundle.trail_names})")
        self.trail_id = trail
        t = data.trails[trail]
        if t.name != bundle.trail_names[trail]:
            raise _Discrepancy(f"set-up: the bundle's trail {trail} is {bundle.trail_names[trail]!r} but its data says {t.name!r}")
        self.trail = t
        self.venue = data.venue_of(t)
        self.layout = bundle.layouts[trail]
        self.spaces: tuple[Space, ...] = self.layout.spaces
        self.finish = next(s.index for s in self.spaces if s.finish)
        # headings from the venue's segments (reading R23)
        headings: list[str] = []
        route = self.trail.route
        for k, item in enumerate(route):
            if item == "range":
                headings.append(self.venue.range.facing)
                continue
            seg = self.venue.segments[item]
            letters = list(seg.heading)
            nxt = route[k + 1] if k + 1 < len(route) else None
            fork = dict(seg.fork_heading)
            if nxt in fork:
                letters[-1] = fork[nxt]
            headings.extend(letters)
        if len(headings) != len(self.spaces):
            raise _Discrepancy(f"set-up: the route has {len(headings)} spaces by the venue's segments but "
                               f"{len(self.spaces)} in the bundle's layout")
        self.headings = headings

        # cards by global id, rebuilt from the readable data in the bundle's documented order
        cards: list[Card] = list(data.common)
        for b in data.biathletes:
            cards.extend(b.cards)
        self.first_motivation = len(cards)
        cards.extend(data.motivation)
        for i, c in enumerate(cards):
            if bundle.card_names[i] != c.name:
                raise _Discrepancy(f"set-up: card id {i} is {bundle.card_names[i]!r} in the bundle but "
                                   f"{c.name!r} in the data; the referee cannot map card ids")
        self.cards = cards
        self.motivation_deck = Counter(self.first_motivation + i for i, c in enumerate(data.motivation)
                                       for _ in range(c.copies))

        if len(biathletes) != len(colours):
            raise _Discrepancy(f"set-up: {len(biathletes)} biathletes but {len(colours)} ski colours")
        if not C.MIN_RACERS <= len(colours) <= C.MAX_RACERS:
            raise _Discrepancy(f"set-up: {len(colours)} racers; a race has {C.MIN_RACERS} to {C.MAX_RACERS}")
        if len(set(colours)) != len(colours) or not all(0 <= c < C.N_COLOURS for c in colours):
            raise _Discrepancy(f"set-up: ski colours {colours} must be distinct colour ids 0..5")
        n_common = len(data.common)
        self.racers: list[_Racer] = []
        ski_names = data.gear.ski_colours
        for seat, (bi, col) in enumerate(zip(biathletes, colours)):
            if not 0 <= bi < len(data.biathletes):
                raise _Discrepancy(f"set-up: seat {seat}: biathlete id {bi} does not exist")
            bio = data.biathletes[bi]
            first = n_common + sum(len(b.cards) for b in data.biathletes[:bi])
            deck = tuple(range(n_common)) + tuple(range(first, first + len(bio.cards)))
            r = _Racer(seat, bio, col, ski_names.index(C.COLOUR_NAMES[col]), deck)
            cname = C.COLOUR_NAMES[col]
            r.bullets = data.gear.bullets[cname]
            for wc, n in data.gear.wax[cname].items():
                r.wax[C.COLOUR_NAMES.index(wc)] += n
            self.racers.append(r)
        self.n = len(self.racers)

        arr = np.asarray(log)
        if arr.ndim != 2 or arr.shape[1] != E.N_COLS:
            raise _Discrepancy(f"the log must be an array of shape (n, {E.N_COLS}); it has shape {arr.shape}")
        rows = arr.astype(np.int64).tolist()  # Python ints, row by row as lists
        while rows and not any(rows[-1]):
            rows.pop()
        self.rows = rows
        self.i = 0              # next row to read
        self.seq = 0            # order of eliminations within the race

        self._shot_could_use_bullet = False
        self.dice: list[int] = []
        self.wind = C.WIND_NAMES.index(self.rules.initial_wind)
        self.deck: list[int] = []
        self.face_up: list[int] = []
        self.n_args = {
            E.SETUP_DICE: len(self.rules.dice), E.DECK: 2, E.FACE_UP: 2, E.SETUP_DISCARD: 1, E.GRID: 3,
            E.ROUND: 2, E.PICKUP: 2, E.ELIMINATED: 1, E.CHOOSE: 1, E.TURN: 2, E.ACTION: 7,
            E.ROLL: len(self.rules.dice), E.HITS: 5, E.STEPS: 3, E.MOVE: 4, E.MOTIVATION: 2,
            E.BOOST: 2, E.PULSE: 6, E.WIND: 2, E.CARD_END: 2, E.WIN: 1, E.STALL: 1, E.PLACE: 2,
            E.STATE: 13, E.BOOST_LOST: 2, E.WAX: 5,
        }

    # ============================================================ words
    def who(self, seat: int) -> str:
        r = self.racers[seat]
        return f"seat {seat} ({r.name}, {C.COLOUR_NAMES[r.colour]} skis)"

    def short(self, seat: int) -> str:
        return f"seat {seat} ({self.racers[seat].name})"

    def card(self, cid: int) -> str:
        if 0 <= cid < len(self.bundle.card_names):
            return f"{self.bundle.card_names[cid]} (card {cid})"
        return f"card {cid} (no such card)"

    def at(self, pos: int) -> str:
        if 0 <= pos < len(self.spaces):
            return f"{pos} ({self.layout.label(pos)})"
        return f"{pos} (off the route)"

    def wind_name(self, w: int) -> str:
        return C.WIND_NAMES[w] if 0 <= w < len(C.WIND_NAMES) else f"wind {w}?"

    def dice_text(self) -> str:
        return ", ".join(f"{c} {f}" for c, f in zip(self.rules.dice, self.dice))

    def value(self, v: Value, hits: int | None = None) -> int:
        if v.source is None:
            return v.base
        if v.source == "hits":
            if hits is None:
                raise _Discrepancy("a card value refers to hits outside a Shoot action (data error)")
            return v.base + v.mult * hits
        return v.base + v.mult * self.dice[self.rules.dice.index(v.source)]

    def value_text(self, v: Value, hits: int | None = None) -> str:
        if v.source is None:
            return str(v.base)
        shown = hits if v.source == "hits" else self.dice[self.rules.dice.index(v.source)]
        what = "hits" if v.source == "hits" else f"{v.source} die shows"
        return f"{self.value(v, hits)} ({v}; {what} {shown})"

    # ============================================================ reading the log
    def fail(self, message: str, row: _Row | None = None, seat: int | None = None):
        if row is None:
            where = f"after the last event (event {len(self.rows) - 1})" if self.i >= len(self.rows) \
                else f"event {self.i}"
            rnd = self.round
        else:
            where, rnd = f"event {row.index}", self.round
        if row is not None:
            self.checked = row.index      # the rows before this one were accepted
        s = seat if seat is not None else (row.seat if row is not None else -1)
        who = f", {self.short(s)}" if 0 <= s < self.n else ""
        raise _Discrepancy(f"{where}, round {rnd}{who}: {message}")

    def peek(self) -> _Row | None:
        if self.i >= len(self.rows):
            return None
        r = self.rows[self.i]
        return _Row(self.i, r[E.COL_ROUND], r[E.COL_SEAT], r[E.COL_KIND], r[E.COL_ARG:])

    def take(self, kind: int, seat: int, why: str) -> _Row:
        """The next row, which must be `kind` for `seat` (-1: the whole race)."""
        row = self.peek()
        if row is None:
            self.fail(f"the log ends, but {KIND[kind]} was expected next ({why})", seat=seat)
        if row.kind != kind:
            got = KIND.get(row.kind, f"unknown kind {row.kind}")
            about = f" for {self.short(row.seat)}" if 0 <= row.seat < self.n else ""
            self.fail(f"the log has {got}{about} but {KIND[kind]}"
                      f"{' for ' + self.short(seat) if seat >= 0 else ''} was expected ({why})", row, seat)
        if row.seat != seat:
            want = self.who(seat) if seat >= 0 else "seat -1 (the whole race)"
            self.fail(f"{KIND[kind]} is logged for seat {row.seat} but it belongs to {want} ({why})", row, seat)
        self.check_row(row)
        self.i += 1
        self.checked = self.i
        return row

    def check_row(self, row: _Row) -> None:
        if row.round != self.round:
            self.fail(f"{KIND[row.kind]} carries round {row.round} in its round column; the race is in "
                      f"round {self.round}", row)
        used = self.n_args[row.kind]
        extra = [(k, x) for k, x in enumerate(row.a) if k >= used and x != 0]
        if extra:
            k, x = extra[0]
            self.fail(f"{KIND[row.kind]} uses arguments a0..a{used - 1} only, but a{k} is {x} (unused "
                      f"arguments must be 0)", row)

    def ensure(self, cond: bool, row: _Row, message: str) -> None:
        if not cond:
            self.fail(message, row)

    # ============================================================ the race
    def run(self) -> None:
        self.setup()
        while not self.over:
            self.play_round()
        self.places()
        row = self.peek()
        if row is not None:
            self.fail(f"the race is over ({self.outcome}) and every seat has its PLACE, but the log goes on "
                      f"with {KIND.get(row.kind, row.kind)}", row)

    def summary(self) -> str:
        return (f"{self.trail.name} ({self.venue.name}), {self.n} racers: {self.outcome} after "
                f"{self.round} round(s); every one of the {self.checked} events follows the rules")

    # ------------------------------------------------------------ set-up
    def setup(self) -> None:
        rules = self.rules
        row = self.take(E.SETUP_DICE, -1, "set-up starts with the initial roll of the shooting dice")
        faces = row.a[:len(rules.dice)]
        for c, f in zip(rules.dice, faces):
            self.ensure(0 <= f < rules.die_faces, row, f"the {c} die shows {f}; faces run 0..{rules.die_faces - 1}")
        self.dice = list(faces)

        n_deck = sum(self.motivation_deck.values())
        deck = []
        for k in range(n_deck):
            row = self.take(E.DECK, -1, f"the shuffled Motivation deck has {n_deck} cards, one DECK row each")
            self.ensure(row.a[0] == k, row, f"DECK row {k} gives index {row.a[0]}; rows run from the top, 0, 1, ...")
            deck.append(row.a[1])
        row = self.peek()
        if row is not None and row.kind == E.DECK:
            self.fail(f"one DECK row too many: the Motivation deck has {n_deck} cards", row)
        if Counter(deck) != self.motivation_deck:
            want = Counter({self.bundle.card_names[c]: n for c, n in self.motivation_deck.items()})
            got = Counter(self.bundle.card_names[c] if 0 <= c < len(self.cards) else f"card {c}" for c in deck)
            self.fail(f"the logged deck is not a shuffle of the Motivation deck: it holds {dict(got)}, the "
                      f"deck is {dict(want)}", None, -1)
        self.deck = deck
        for slot in range(rules.face_up_motivation):
            row = self.take(E.FACE_UP, -1, f"set-up lays {rules.face_up_motivation} Motivation cards face up")
            self.ensure(row.a[0] == slot, row, f"FACE_UP names slot {row.a[0]}; set-up fills slots in order, "
                                               f"this is slot {slot}")
            self.ensure(row.a[1] == self.deck[0], row, f"slot {slot} gets {self.card(row.a[1])} but the top of the "
                                                       f"shuffled deck is {self.card(self.deck[0])}")
            self.face_up.append(self.deck.pop(0))

        for r in self.racers:
            row = self.take(E.SETUP_DISCARD, r.seat, "each seat discards one random card, in seat order")
            c = row.a[0]
            self.ensure(c in r.deck, row, f"the set-up discard {self.card(c)} is not one of {r.name}'s "
                                          f"{len(r.deck)} cards")
            r.hand = Counter(r.deck)
            r.hand[c] -= 1
            r.hand = +r.hand
            r.discard = Counter([c])

        inits = {r.seat: self.value(self.cards[next(iter(r.discard))].initiative) for r in self.racers}
        order = sorted(self.racers, key=lambda r: (-inits[r.seat], r.rank))
        # the grid: the spaces before the first start-line crossing; slots nearest the line first,
        # lane 0 before lane 1 (computed here rather than taken from RouteLayout.grid_slots)
        first_line = next(s.index for s in self.spaces if s.start_line)
        slots = [(p, lane) for p in range(first_line - 1, -1, -1) for lane in range(self.spaces[p].lanes)]
        if len(slots) < self.n:
            self.fail(f"the grid holds {len(slots)} racers, fewer than the {self.n} racing", None, -1)
        for k, r in enumerate(order):
            row = self.peek()
            if row is not None and row.kind == E.GRID and row.seat != r.seat and 0 <= row.seat < self.n:
                o = self.racers[row.seat]
                if o in order[:k]:
                    self.fail(f"GRID places {self.short(row.seat)} a second time; racer {k + 1} to place is "
                              f"{self.who(r.seat)}", row)
                self.fail(f"GRID places {self.short(row.seat)} as racer {k + 1}, but {self.who(r.seat)} "
                          f"comes first among those left: its set-up card "
                          f"{self.card(next(iter(r.discard)))} has initiative {inits[r.seat]}, "
                          f"{o.name}'s {self.card(next(iter(o.discard)))} has {inits[o.seat]} "
                          f"(highest first, ties by ski colour order; dice: {self.dice_text()})", row)
            row = self.take(E.GRID, r.seat, "grid rows come in placement order")
            card = self.cards[next(iter(r.discard))]
            self.ensure(row.a[0] == inits[r.seat], row,
                        f"GRID gives initiative {row.a[0]} but {card.name} has initiative "
                        f"{self.value_text(card.initiative)}")
            pos, lane = slots[k]
            self.ensure((row.a[1], row.a[2]) == (pos, lane), row,
                        f"GRID puts {r.name} on {self.at(row.a[1])} lane {row.a[2]}, but racer {k + 1} placed "
                        f"takes slot {k + 1}: {self.at(pos)} lane {lane} (nearest the start line first, lane 0 first)")
            r.pos, r.lane = pos, lane
        for r in self.racers:
            self.state(r, "set-up ends with a STATE row for every seat, in seat order")

    # ------------------------------------------------------------ rounds
    def ski_order(self, racers=None) -> list[_Racer]:
        return sorted(racers if racers is not None else self.racers, key=lambda r: r.rank)

    def racing(self) -> list[_Racer]:
        return [r for r in self.racers if r.racing]

    def play_round(self) -> None:
        self.round += 1
        row = self.take(E.ROUND, -1, f"round {self.round} begins")
        self.ensure(row.a[0] == self.round, row, f"ROUND says round {row.a[0]}, this is round {self.round}")
        self.ensure(row.a[1] == self.wind, row, f"ROUND says the wind is {self.wind_name(row.a[1])} but it is "
                                                f"{self.wind_name(self.wind)}")
        out_before = sum(1 for r in self.racers if r.status == OUT)
        self.round_start()
        if not self.racing():
            self.end("every racer is eliminated; no winner")
            return
        if sum(1 for r in self.racers if r.status == OUT) > out_before:
            self.last_racer("the round start's eliminations")
            if self.over:
                return
        for r in self.racing():
            self.state(r, "after the round start, STATE for every racing seat in seat order")
        for r in self.racing():
            row = self.take(E.CHOOSE, r.seat, "every racing seat chooses a card, in seat order")
            c = row.a[0]
            if r.hand[c] <= 0:
                where = ("in its discard pile" if r.discard[c] else "removed from the game" if r.removed[c]
                         else "not one of its cards")
                self.fail(f"CHOOSE {self.card(c)}, but that card is not in {r.name}'s hand (it is {where}); "
                          f"the hand holds {self.cards_text(r.hand)}", row)
            r.hand[c] -= 1
            r.hand = +r.hand
            r.chosen = c
            r.played = False
        while True:
            todo = [r for r in self.racing() if not r.played]
            if not todo:
                break
            self.turn(todo)
            if self.over:
                return
        if self.round >= self.rules.round_cap:
            row = self.take(E.STALL, -1, f"round {self.round} is the round cap and nobody has won")
            self.ensure(row.a[0] == self.rules.round_cap, row,
                        f"STALL gives round cap {row.a[0]}; round_cap is {self.rules.round_cap}")
            self.end(f"stalled at the round cap ({self.rules.round_cap})")

    def last_racer(self, after: str) -> None:
        """Switch `last_racer_wins` (R25): one racer left after an elimination wins where it stands."""
        left = self.racing()
        if not self.sw.last_racer_wins or len(left) != 1:
            return
        r = left[0]
        row = self.take(E.WIN, r.seat, f"after {after} {r.name} is the last racer in the race, and with "
                                       f"last_racer_wins = true that wins at once")
        self.ensure(row.a[0] == r.pos, row, f"WIN gives position {row.a[0]}; {r.name} stands on {self.at(r.pos)}")
        r.status = WON
        self.end(f"{r.name} (seat {r.seat}) won as the last racer left")

    def end(self, outcome: str) -> None:
        self.over = True
        self.outcome = outcome

    def cards_text(self, pile: Counter) -> str:
        if not pile:
            return "nothing"
        return ", ".join(f"{self.bundle.card_names[c]}{' x%d' % n if n > 1 else ''}" for c, n in sorted(pile.items()))

    def round_start(self) -> None:
        order = self.ski_order(self.racing())
        names = ", ".join(self.short(r.seat) for r in order)
        for r in order:
            r.red_pickup_possible = False
            if _size(r.hand) == 0 and _size(r.discard) == 0:
                row = self.take(E.ELIMINATED, r.seat, f"{r.name} starts the round with an empty hand and an empty "
                                                      f"discard pile (round-start order: {names})")
                self.ensure(row.a[0] == E.CAUSE_NO_CARDS, row,
                            f"ELIMINATED gives cause {row.a[0]}; running out of cards is cause {E.CAUSE_NO_CARDS}")
                self.eliminate(r, at_round_start=True)
            elif _size(r.hand) == 0:
                row = self.take(E.PICKUP, r.seat, f"{r.name}'s hand is empty, so it picks up its discard pile for "
                                                  f"free (round-start order: {names})")
                self.ensure(row.a[0] == E.PICKUP_FREE, row,
                            f"PICKUP says how={row.a[0]} but with an empty hand the pick-up is free (how=0); "
                            f"no bullet is spent")
                self.pickup(r, row)
            else:
                r.red_pickup_possible = _size(r.discard) > 0
                row = self.peek()
                if row is not None and row.kind == E.PICKUP and row.seat == r.seat:
                    self.take(E.PICKUP, r.seat, "an optional paid pick-up")
                    if row.a[0] == E.PICKUP_BULLET:
                        self.ensure(r.bullets >= 1, row, f"PICKUP paid with an own bullet, but {r.name} has no "
                                                         f"bullet left")
                        r.bullets -= 1
                    elif row.a[0] == E.PICKUP_COACH:
                        boost = self.red_boost(r)
                        self.ensure(boost is not None, row,
                                    f"PICKUP paid with a red coach bullet, but {r.name} has no pending red coach "
                                    f"boost for this turn")
                        boost.left -= 1
                        boost.used = True
                    elif row.a[0] == E.PICKUP_FREE:
                        self.fail(f"a free PICKUP (how=0) but {r.name}'s hand holds {_size(r.hand)} "
                                  f"card(s): only an empty hand picks up for free; otherwise it costs a bullet", row)
                    else:
                        self.fail(f"PICKUP how={row.a[0]} is not a known way (0 free, 1 own bullet, 2 red coach)", row)
                    self.pickup(r, row)
        row = self.peek()
        if row is not None and row.kind in (E.PICKUP, E.ELIMINATED) and 0 <= row.seat < self.n:
            r = self.racers[row.seat]
            if not r.racing:
                self.fail(f"{KIND[row.kind]} for {r.name}, who is no longer in the race", row)
            self.fail(f"{KIND[row.kind]} for {r.name} is out of place: round-start events come once per racing "
                      f"seat in ski colour order ({names}); {r.name} had hand {_size(r.hand)}, "
                      f"discard {_size(r.discard)} at its turn in that order", row)

    def pickup(self, r: _Racer, row: _Row) -> None:
        n = _size(r.discard)
        self.ensure(row.a[1] == n, row, f"PICKUP says {row.a[1]} card(s) picked up but {r.name}'s discard pile holds "
                                        f"{n}: {self.cards_text(r.discard)}")
        r.hand += r.discard
        r.discard = Counter()

    def red_boost(self, r: _Racer) -> _Boost | None:
        for b in r.pending:
            if b.colour == C.RED and b.left > 0:
                return b
        return None

    def eliminate(self, r: _Racer, at_round_start: bool) -> None:
        r.status = OUT
        if at_round_start:
            r.elim_key = (self.round, 0, 0)
        else:
            self.seq += 1
            r.elim_key = (self.round, 1, self.seq)
        r.pending = []

    # ------------------------------------------------------------ a turn
    def initiative(self, r: _Racer) -> int:
        return self.value(self.cards[r.chosen].initiative)

    def turn(self, todo: list[_Racer]) -> None:
        inits = {r.seat: self.initiative(r) for r in todo}
        order = sorted(todo, key=lambda r: (-inits[r.seat], r.rank))
        r = order[0]
        row = self.peek()
        if row is not None and row.kind == E.TURN and row.seat != r.seat:
            if 0 <= row.seat < self.n and self.racers[row.seat] in todo:
                listing = "; ".join(f"{self.short(x.seat)} {self.bundle.card_names[x.chosen]} "
                                    f"{self.value_text(self.cards[x.chosen].initiative)}" for x in order)
                self.fail(f"TURN for {self.short(row.seat)}, but {self.who(r.seat)} plays next: still to play "
                          f"this round, by initiative with the dice as they show now ({self.dice_text()}): "
                          f"{listing} (ties by ski colour order)", row)
            self.fail(f"TURN for seat {row.seat}, who is not still to play this round; {self.short(r.seat)} "
                      f"plays next", row)
        row = self.take(E.TURN, r.seat, f"{r.name} has the highest initiative among the racers still to play")
        self.ensure(row.a[0] == inits[r.seat], row,
                    f"TURN gives initiative {row.a[0]} but {self.bundle.card_names[r.chosen]} has initiative "
                    f"{self.value_text(self.cards[r.chosen].initiative)}")
        self.ensure(row.a[1] == int(r.on_mat), row,
                    f"TURN says on-mat={row.a[1]} but {r.name} is {'on' if r.on_mat else 'not on'} a shooting mat")
        r.played = True
        start_pending = list(r.pending)
        on_mat = r.on_mat

        # --- the action and the wax
        row = self.take(E.ACTION, r.seat, "the turn's action comes right after TURN")
        self.ensure(row.a[0] == r.chosen, row, f"ACTION names {self.card(row.a[0])} but {r.name} chose "
                                               f"{self.card(r.chosen)} this round")
        a = row.a[1]
        self.ensure(a in (0, 1), row, f"ACTION {a} does not exist: 0 and 1 only")
        if on_mat:
            action = self.venue.shoot if a == C.SHOOT else self.venue.wait
            action_name = "Shoot" if a == C.SHOOT else "Wait"
        else:
            card = self.cards[r.chosen]
            action = card.bottom if a == C.BOTTOM else card.top
            action_name = f"{card.name} {'bottom' if a == C.BOTTOM else 'top'}"
        shoot = on_mat and a == C.SHOOT
        wait = on_mat and a == C.WAIT
        wax = dict(zip(WAX_COLOURS, row.a[2:7]))
        if shoot and any(wax.values()):
            self.fail("ACTION spends wax on a Shoot, but a Shoot's wax is chosen after the hits are known "
                      "(a WAX row after HITS)", row)
        self.spend_wax(r, wax, row, "ACTION")

        # --- shooting, then the Shoot's wax
        hits = None
        if shoot:
            hits = self.shoot(r, start_pending)
            row = self.take(E.WAX, r.seat, "a Shoot's wax is chosen once the hits are known")
            wax = dict(zip(WAX_COLOURS, row.a[:5]))
            self.spend_wax(r, wax, row, "WAX")
        else:
            row = self.peek()
            if row is not None and row.kind == E.WAX and row.seat == r.seat:
                self.fail(f"WAX, but only a Shoot chooses its wax after rolling; {action_name} spends its wax "
                          f"in ACTION", row)

        # --- the move
        zone = None
        moved = False
        if not wait:
            steps = [self.value(v, hits) for v in action.steps]
            parts = [f"{action_name} gives {_steps_text(steps)}"]
            for colour, t in STEP_OF_WAX.items():
                if wax[colour]:
                    steps[t] += wax[colour]
                    parts.append(f"{wax[colour]} {C.COLOUR_NAMES[colour]} wax")
            for b in start_pending:
                if b.colour in STEP_OF_WAX:
                    steps[STEP_OF_WAX[b.colour]] += b.strength
                    b.used = True
                    parts.append(f"{C.COLOUR_NAMES[b.colour]} coach boost {b.strength}")
            row = self.take(E.STEPS, r.seat, "a turn that is not a Wait logs the steps available")
            if row.a[:3] != steps:
                self.fail(f"STEPS says {_steps_text(row.a[:3])} but the racer has {_steps_text(steps)}: "
                          f"{' + '.join(parts)}"
                          f"{' (dice: ' + self.dice_text() + ')' if any(v.source not in (None, 'hits') for v in action.steps) else ''}",
                          row)
            zone, moved = self.move(r, steps, shoot)

        # --- pulse
        blue_zone = zone[1] if zone is not None and zone[0] == C.BLUE else 0
        white_zone = zone is not None and zone[0] == C.WHITE
        self.pulse(r, action, action_name, wax[C.BLUE], blue_zone)
        if r.pulse > self.rules.pulse_limit:
            row = self.take(E.ELIMINATED, r.seat, f"{r.name}'s pulse {r.pulse} is above the limit "
                                                  f"{self.rules.pulse_limit}")
            self.ensure(row.a[0] == E.CAUSE_PULSE, row, f"ELIMINATED gives cause {row.a[0]}; a pulse above the "
                                                        f"limit is cause {E.CAUSE_PULSE}")
            self.eliminate(r, at_round_start=False)
            if not self.racing():
                self.end("every racer is eliminated; no winner")
            else:
                self.last_racer(f"{r.name}'s elimination")
            return
        if moved and r.pos == self.finish:
            row = self.take(E.WIN, r.seat, f"{r.name} crossed the finish line with pulse {r.pulse}, within the limit")
            self.ensure(row.a[0] == self.finish, row, f"WIN gives position {row.a[0]}; the run-out is {self.finish}")
            r.status = WON
            self.end(f"{r.name} (seat {r.seat}) won")
            return

        # --- wind
        symbol = action.wind or wax[C.WHITE] > 0 or white_zone
        row = self.peek()
        if symbol:
            why = ("the action shows the wind symbol" if action.wind else
                   "white wax gives the action the wind symbol" if wax[C.WHITE] else
                   "the white coach zone gives the action the wind symbol")
            row = self.take(E.WIND, r.seat, why)
            self.ensure(row.a[0] == self.wind, row, f"WIND gives the old wind as {self.wind_name(row.a[0])} but it is "
                                                    f"{self.wind_name(self.wind)}")
            self.ensure(0 <= row.a[1] <= C.STILL, row, f"WIND sets wind {row.a[1]}, not one of N E S W still (0..4)")
            self.wind = row.a[1]
        elif row is not None and row.kind == E.WIND and row.seat == r.seat:
            self.fail(f"WIND changes the wind from {self.wind_name(row.a[0])} to {self.wind_name(row.a[1])}, but "
                      f"{action_name} has no wind symbol, no white wax was spent and the move did not end in a "
                      f"white coach zone", row)

        # --- card
        row = self.take(E.CARD_END, r.seat, "the card is discarded or removed at the end of the action")
        self.ensure(row.a[0] == r.chosen, row, f"CARD_END names {self.card(row.a[0])} but the card played is "
                                               f"{self.card(r.chosen)}")
        removed = int(action.icy)
        if row.a[1] != removed:
            whose = f"the venue's {action_name} action" if on_mat else action_name
            self.fail(f"CARD_END says the card is {'removed' if row.a[1] else 'discarded'}, but {whose} has "
                      f"{'an icy' if removed else 'a snowy'} background, so it is {'removed' if removed else 'discarded'}",
                      row)
        (r.removed if removed else r.discard)[r.chosen] += 1

        # --- boosts that expire
        for b in start_pending:
            if b.used:
                r.pending = [x for x in r.pending if x is not b]
                continue
            if self.sw.coach_boost == "until_usable" and not self.could_use(b, r, moved_turn=not wait, shoot=shoot):
                continue
            row = self.take(E.BOOST_LOST, r.seat,
                            f"{r.name}'s pending {C.COLOUR_NAMES[b.colour]} coach boost {b.strength} was not used "
                            f"on this turn (coach_boost = {self.sw.coach_boost})")
            self.ensure((row.a[0], row.a[1]) == (b.colour, b.strength), row,
                        f"BOOST_LOST names colour {row.a[0]} strength {row.a[1]}; the boost that expires is "
                        f"{C.COLOUR_NAMES[b.colour]} {b.strength}")
            r.pending = [x for x in r.pending if x is not b]
        row = self.peek()
        if row is not None and row.kind == E.BOOST_LOST and row.seat == r.seat:
            self.fail(f"BOOST_LOST but {r.name} has no pending coach boost that expires now "
                      f"(coach_boost = {self.sw.coach_boost})", row)
        if zone is not None and zone[0] in (C.RED, *STEP_OF_WAX):
            r.pending.append(_Boost(zone[0], zone[1], zone[1]))
        self.state(r, f"the turn of {r.name} ends with its STATE")

    def spend_wax(self, r: _Racer, wax: dict, row: _Row, what: str) -> None:
        for colour, n in wax.items():
            if n < 0 or n > r.wax[colour]:
                self.fail(f"{what} spends {n} {C.COLOUR_NAMES[colour]} wax but {r.name} holds "
                          f"{r.wax[colour]} {C.COLOUR_NAMES[colour]} wax", row)
        for colour, n in wax.items():
            r.wax[colour] -= n

    def could_use(self, b: _Boost, r: _Racer, moved_turn: bool, shoot: bool) -> bool:
        """until_usable: could this turn have used the pending boost?"""
        if b.colour in STEP_OF_WAX:
            return moved_turn
        return r.red_pickup_possible or (shoot and self._shot_could_use_bullet)

    # ------------------------------------------------------------ shooting
    def shoot(self, r: _Racer, start_pending: list[_Boost]) -> int:
        rules = self.rules
        row = self.take(E.ROLL, r.seat, "a Shoot action rolls all the dice first")
        faces = row.a[:len(rules.dice)]
        for c, f in zip(rules.dice, faces):
            self.ensure(0 <= f < rules.die_faces, row, f"the {c} die shows {f}; faces run 0..{rules.die_faces - 1}")
        self.dice = list(faces)

        low, medium = rules.accuracy_bands
        band = 0 if r.pulse <= low else 1 if r.pulse <= medium else 2
        band_name = ("low", "medium", "high")[band]
        threshold = r.bio.accuracy[band]
        dice_hits = sum(1 for f in faces if f >= threshold)
        facing = C.HEADING_LETTERS.index(self.venue.range.facing)
        if self.wind == C.STILL:
            adj, wind_text = rules.windstill_hits, "the wind is still"
        elif self.wind in ((facing + 1) % 4, (facing + 3) % 4):
            adj, wind_text = rules.crosswind_hits, (f"wind from {self.wind_name(self.wind)} is a crosswind at the "
                                                    f"range facing {self.venue.range.facing}")
        else:
            adj, wind_text = 0, (f"wind from {self.wind_name(self.wind)} is not a crosswind at the range facing "
                                 f"{self.venue.range.facing}")
        after_wind = min(rules.max_hits, max(0, dice_hits + adj))
        applied = after_wind - dice_hits
        row = self.take(E.HITS, r.seat, "the hits of the shot follow the roll")
        why = (f"dice {' '.join(map(str, faces))}; {r.name}'s pulse {r.pulse} is in the {band_name} band, accuracy "
               f"{threshold}+, so {dice_hits} dice hit")
        self.ensure(row.a[0] == dice_hits, row, f"HITS says {row.a[0]} dice hits but {why}")
        self.ensure(row.a[1] == applied, row,
                    f"HITS says wind adjustment {row.a[1]:+d} but {wind_text}: {dice_hits} hits become {after_wind} "
                    f"(adjustment {applied:+d}, between 0 and max_hits {rules.max_hits})")
        own, coach = row.a[2], row.a[3]
        self.ensure(0 <= own <= r.bullets, row, f"HITS spends {own} own bullet(s) but {r.name} holds {r.bullets}")
        boost = self.red_boost(r)     # at the shot, every pending boost predates this turn
        available = boost.left if boost is not None else 0
        self.ensure(0 <= coach <= available, row,
                    f"HITS spends {coach} red coach bullet(s) but {r.name} has {available} from a pending red coach "
                    f"boost")
        self._shot_could_use_bullet = after_wind < rules.max_hits
        self.ensure(after_wind + own + coach <= rules.max_hits, row,
                    f"HITS spends {own + coach} bullet(s) on top of {after_wind} hits: a shot scores at most "
                    f"{rules.max_hits} hits (max_hits) and a bullet may only be spent for a hit it adds")
        final = after_wind + own + coach
        self.ensure(row.a[4] == final, row, f"HITS gives {row.a[4]} final hits but {dice_hits} dice hits "
                                            f"{applied:+d} wind + {own} own + {coach} coach bullets = {final}")
        r.bullets -= own
        if coach:
            boost.left -= coach
            boost.used = True
        return final

    # ------------------------------------------------------------ moving
    def walk(self, start: int, steps: list[int]) -> tuple[list[int], str]:
        """Spaces reachable from `start`, spending the least versatile step on each space entered."""
        u, f, d = steps
        reach = [start]
        p = start
        while True:
            if p + 1 >= len(self.spaces):
                return reach, "the route ends there"
            s = self.spaces[p + 1]
            if s.terrain == "D" and d:
                d -= 1
            elif s.terrain in "DF" and f:
                f -= 1
            elif u:
                u -= 1
            else:
                need = {"U": "uphill and no uphill step is left",
                        "F": "flat and no flat or uphill step is left",
                        "D": "downhill and no step is left"}[s.terrain]
                return reach, f"space {self.at(p + 1)} is {need}"
            p += 1
            reach.append(p)
            if s.is_range:
                return reach, "a move that enters the range stops there"

    def occupant(self, r: _Racer, pos: int, lane: int) -> _Racer | None:
        """Another racer holding `lane` of the physical space of route position `pos`."""
        phys = self.spaces[pos].physical
        for q in self.racing():
            if q is r or self.spaces[q.pos].physical != phys:
                continue
            if self.spaces[pos].is_range:
                if q.on_mat and q.lane == lane:
                    return q
            elif q.lane == lane:
                return q
        return None

    def move(self, r: _Racer, steps: list[int], shoot: bool) -> tuple[tuple[int, int] | None, bool]:
        row = self.take(E.MOVE, r.seat, "a turn that is not a Wait logs its move (possibly to the same space)")
        src, dst, lane, mat = row.a[:4]
        self.ensure(src == r.pos, row, f"MOVE starts from {self.at(src)} but {r.name} is on {self.at(r.pos)}")
        reach, reason = self.walk(r.pos, steps)
        if dst < r.pos:
            self.fail(f"MOVE to {self.at(dst)} goes backwards from {self.at(r.pos)}; moves go forward only", row)
        if dst not in reach:
            self.fail(f"MOVE to {self.at(dst)} is not reachable: from {self.at(r.pos)} with steps "
                      f"{_steps_text(steps)} the furthest reachable space is {self.at(reach[-1])} ({reason})", row)
        sp = self.spaces[dst]
        if dst == r.pos:
            want_lane = -1 if shoot else r.lane
            self.ensure(lane == want_lane, row,
                        f"MOVE stays on {self.at(dst)} but gives lane {lane}; "
                        + ("after a shot the racer is off its mat and holds lane -1 on the range" if shoot
                           else f"a racer that does not move keeps its lane {r.lane}"))
            self.ensure(mat == 0, row, f"MOVE says on-mat={mat}, but "
                                       + ("a racer that shot leaves its mat" if shoot else "the racer is not on a mat"))
            r.on_mat = False
            r.lane = want_lane
            moved = False
        else:
            if sp.is_range:
                free = next(m for m in range(sp.lanes) if self.occupant(r, dst, m) is None)
                self.ensure(lane == free, row, f"MOVE puts {r.name} on mat {lane}, but the lowest-numbered free mat "
                                               f"is {free}")
                self.ensure(mat == 1, row, f"MOVE enters the range but says on-mat={mat}; a racer entering the "
                                           f"range stops on a mat")
            else:
                self.ensure(mat == 0, row, f"MOVE says on-mat={mat} but {self.at(dst)} is not the range")
                if sp.finish:
                    self.ensure(0 <= lane < C.MAX_RACERS, row, f"MOVE gives lane {lane} on the run-out")
                elif sp.lanes == 1:
                    self.ensure(lane == 0, row, f"MOVE gives lane {lane} on single-lane space {self.at(dst)}")
                    q = self.occupant(r, dst, 0)
                    if q is not None:
                        self.fail(f"MOVE ends on {self.at(dst)}, a single-lane space already held by "
                                  f"{self.short(q.seat)} (on {self.at(q.pos)}); a move must end on a space that "
                                  f"can hold the racer", row)
                else:
                    self.ensure(lane in (0, 1), row, f"MOVE gives lane {lane} on double-lane space {self.at(dst)}")
                    q = self.occupant(r, dst, lane)
                    if q is not None:
                        other = self.occupant(r, dst, 1 - lane)
                        tail = ("both lanes are taken" if other is not None
                                else f"lane {1 - lane} is free and must be taken")
                        self.fail(f"MOVE ends on {self.at(dst)} lane {lane}, which is held by {self.short(q.seat)} "
                                  f"(on {self.at(q.pos)} lane {q.lane}); {tail}", row)
            r.on_mat = bool(sp.is_range)
            moved = True
        path = range(src + 1, dst + 1)
        r.pos, r.lane = dst, lane

        for p in path:
            if self.spaces[p].start_line:
                self.motivation(r, p)
        row = self.peek()
        if row is not None and row.kind == E.MOTIVATION and row.seat == r.seat:
            crossed = [p for p in path if self.spaces[p].start_line]
            self.fail(f"MOTIVATION but the move {self.at(src)} -> {self.at(dst)} crosses the start line "
                      f"{len(crossed)} time(s) and every crossing is accounted for", row)

        zone = None
        if sp.is_range:
            rc = self.venue.range.coach
            coach = (rc.colour, rc.strength) if rc is not None else None
        else:
            coach = sp.coach
        if (moved or self.sw.zero_step_boost) and coach is not None:
            colour, strength = C.COLOUR_NAMES.index(coach[0]), coach[1]
            how = "ended" if moved else "of zero steps ended (zero_step_boost)"
            row = self.take(E.BOOST, r.seat, f"the move {how} in the {coach[0]} coach zone on {self.at(dst)}")
            self.ensure((row.a[0], row.a[1]) == (colour, strength), row,
                        f"BOOST gives colour {row.a[0]} strength {row.a[1]}; the zone on {self.at(dst)} is "
                        f"{coach[0]} ({colour}) strength {strength}")
            zone = (colour, strength)
        else:
            row = self.peek()
            if row is not None and row.kind == E.BOOST and row.seat == r.seat:
                why = (f"{self.at(dst)} has no coach zone" if coach is None
                       else "a move of zero steps gives no boost (zero_step_boost = false)")
                self.fail(f"BOOST but {why}", row)
        return zone, moved

    def motivation(self, r: _Racer, p: int) -> None:
        if all(c < 0 for c in self.face_up) and not self.deck:
            return   # reading R7: nothing to give
        row = self.take(E.MOTIVATION, r.seat, f"the move crosses the start line entering {self.at(p)}")
        choice, c = row.a[0], row.a[1]
        if choice == E.MOTIVATION_BLIND:
            self.ensure(bool(self.deck), row, "MOTIVATION draws blind but the Motivation deck is empty")
            self.ensure(c == self.deck[0], row, f"MOTIVATION draws {self.card(c)} blind but the top of the deck is "
                                                f"{self.card(self.deck[0])}")
            self.deck.pop(0)
        elif 0 <= choice < len(self.face_up):
            self.ensure(self.face_up[choice] >= 0, row, f"MOTIVATION takes face-up slot {choice}, which is empty")
            self.ensure(c == self.face_up[choice], row, f"MOTIVATION takes {self.card(c)} from slot {choice}, "
                                                        f"which holds {self.card(self.face_up[choice])}")
            refill = self.deck.pop(0) if self.deck else -1
            row2 = self.take(E.FACE_UP, -1, f"face-up slot {choice} was taken and is refilled "
                                            f"({'from the top of the deck' if refill >= 0 else 'deck empty: -1'})")
            self.ensure(row2.a[0] == choice, row2, f"FACE_UP refills slot {row2.a[0]}; the slot taken was {choice}")
            self.ensure(row2.a[1] == refill, row2,
                        f"FACE_UP lays {self.card(row2.a[1]) if row2.a[1] >= 0 else '-1 (nothing)'} but "
                        + (f"the top of the deck is {self.card(refill)}" if refill >= 0 else "the deck is empty (-1)"))
            self.face_up[choice] = refill
        else:
            self.fail(f"MOTIVATION choice {choice} is neither a face-up slot (0..{len(self.face_up) - 1}) nor a blind "
                      f"draw ({E.MOTIVATION_BLIND})", row)
        if self.sw.motivation_to == "discard":
            r.discard[c] += 1
        else:
            r.hand[c] += 1

    # ------------------------------------------------------------ pulse
    def facing(self, r: _Racer) -> int:
        s = self.spaces[r.pos]
        if s.is_range:
            return C.HEADING_LETTERS.index(self.venue.range.facing if r.on_mat else self.headings[r.pos + 1])
        return C.HEADING_LETTERS.index(self.headings[r.pos])

    def in_line(self, a: Space, a_lane: int, b: Space, b_lane: int) -> bool:
        if a.is_range and b.is_range:
            return False
        if a.is_range or b.is_range:
            return self.sw.range_drafting
        if a.finish or b.finish:
            return True      # the run-out has no lanes: whoever is next to it is in line
        a_single = a.lanes == 1
        b_single = b.lanes == 1
        if a_single and b_single:
            return True
        if not a_single and not b_single:
            return a_lane == b_lane
        return self.sw.mixed_lane_drafting

    def neighbour(self, r: _Racer, step: int) -> _Racer | None:
        """A racer directly ahead (step +1) or directly behind (step -1) of r, along r's route."""
        p = r.pos + step
        if not 0 <= p < len(self.spaces):
            return None
        phys = self.spaces[p].physical
        for q in self.racing():
            if q is r or self.spaces[q.pos].physical != phys:
                continue
            if self.in_line(self.spaces[r.pos], r.lane, self.spaces[q.pos], q.lane):
                return q
        return None

    def pulse_parts(self, r: _Racer) -> tuple[int, int, _Racer | None, _Racer | None]:
        """(drafting, wind) adjustments of r where it stands now, and the racers directly ahead and
        behind."""
        rules = self.rules
        ahead = self.neighbour(r, +1)
        behind = self.neighbour(r, -1)
        draft = rules.drafting if ahead is not None else 0
        facing = self.facing(r)
        w = self.wind
        if w == C.STILL:
            wind = 0
        elif w == facing:
            wind = 0 if ahead is not None else rules.headwind
        elif w == (facing + 2) % 4:
            wind = 0 if behind is not None else rules.tailwind
        else:
            wind = 0
        return draft, wind, ahead, behind

    def pulse_sum(self, before: int, cost: int, blue: int, draft: int, wind: int) -> int:
        """The pulse after an action: the parts added under the switch `pulse_floor` (R24)."""
        if self.sw.pulse_floor == "each_part":
            # cost, then drafting, then wind, the pulse floored at 0 after each (R24)
            return max(0, max(0, max(0, before + cost - blue) + draft) + wind)
        return max(0, before + cost - blue + draft + wind)

    def pulse(self, r: _Racer, action: Action, action_name: str, blue_wax: int, blue_zone: int) -> None:
        row = self.take(E.PULSE, r.seat, "the pulse is adjusted after the move")
        draft, wind, ahead, behind = self.pulse_parts(r)
        facing = self.facing(r)
        fname = C.HEADING_LETTERS[facing]
        w = self.wind
        if w == C.STILL:
            wind_text = "the wind is still"
        elif w == facing:
            wind_text = (f"headwind from {fname} cancelled by drafting" if ahead is not None
                         else f"headwind: {r.name} faces {fname}, into the wind")
        elif w == (facing + 2) % 4:
            wind_text = (f"tailwind from {self.wind_name(w)} blocked by {self.short(behind.seat)} directly behind"
                         if behind is not None else f"tailwind: {r.name} faces {fname}, the wind comes from "
                                                    f"{self.wind_name(w)}")
        else:
            wind_text = f"crosswind from {self.wind_name(w)} ({r.name} faces {fname})"
        cost = action.pulse
        blue = blue_wax + blue_zone
        before = r.pulse
        after = self.pulse_sum(before, cost, blue, draft, wind)
        floor_text = ("each part floored at 0 in turn (pulse_floor = each_part)" if self.sw.pulse_floor == "each_part"
                      else "total floored at 0")
        draft_text = (f"drafting {draft:+d} ({self.short(ahead.seat)} directly ahead on {self.at(ahead.pos)}"
                      f"{' lane ' + str(ahead.lane) if not self.spaces[ahead.pos].is_range else ''})"
                      if ahead is not None else "no drafting (nobody directly ahead)")
        explain = (f"before {before}, cost {cost:+d} ({action_name}), blue -{blue} ({blue_wax} wax, {blue_zone} coach), "
                   f"{draft_text}, wind {wind:+d} ({wind_text}); {floor_text} gives {after}; "
                   f"{r.name} stands on {self.at(r.pos)}{' on mat ' + str(r.lane) if r.on_mat else ''}")
        fields = (("before", before), ("after", after), ("action cost", cost), ("blue reduction", blue),
                  ("drafting adjustment", draft), ("wind adjustment", wind))
        for k, (name, want) in enumerate(fields):
            if row.a[k] != want:
                self.fail(f"PULSE gives {name} {row.a[k]} but the rules give {want}: {explain}", row)
        r.pulse = after

    # ------------------------------------------------------------ state and places
    def state(self, r: _Racer, why: str) -> None:
        row = self.take(E.STATE, r.seat, why)
        want = [r.pos, r.lane, int(r.on_mat), r.pulse, r.bullets] + [r.wax[c] for c in WAX_COLOURS] + [
            _size(r.hand), _size(r.discard), r.status]
        names = ["position", "lane", "on mat", "pulse", "bullets", "black wax", "yellow wax", "green wax",
                 "blue wax", "white wax", "hand size", "discard pile size", "status"]
        bad = [f"{n} {got} (should be {w})" for n, got, w in zip(names, row.a[:13], want) if got != w]
        if bad:
            self.fail(f"STATE disagrees with the referee's replay: {'; '.join(bad)}. {r.name} holds hand "
                      f"[{self.cards_text(r.hand)}], discard [{self.cards_text(r.discard)}], removed "
                      f"[{self.cards_text(r.removed)}]", row)

    def places(self) -> None:
        winners = [r for r in self.racers if r.status == WON]
        alive = sorted((r for r in self.racers if r.status == RACING), key=lambda r: (self.finish - r.pos, r.rank))
        out = [r for r in self.racers if r.status == OUT]
        out.sort(key=lambda r: r.rank)
        out.sort(key=lambda r: r.elim_key, reverse=True)
        ranking = winners + alive + out
        status_words = {RACING: "still racing", WON: "the winner", OUT: "eliminated"}
        for k, r in enumerate(ranking):
            row = self.peek()
            if row is not None and row.kind == E.PLACE and row.seat != r.seat:
                why = ("the winner is first" if r.status == WON else
                       f"racers still in the race rank by distance to the finish ({r.name}: "
                       f"{self.finish - r.pos} spaces), ties by ski colour order" if r.status == RACING else
                       "eliminated racers rank in reverse order of elimination")
                listing = ", ".join(f"{x.name}" for x in ranking)
                self.fail(f"PLACE {row.a[0]} goes to seat {row.seat} but place {k + 1} belongs to {self.who(r.seat)}: "
                          f"{why} (full ranking: {listing})", row)
            row = self.take(E.PLACE, r.seat, f"the race is over ({self.outcome}); PLACE rows in place order")
            self.ensure(row.a[0] == k + 1, row, f"PLACE gives place {row.a[0]}; {r.name} is place {k + 1}")
            self.ensure(row.a[1] == r.status, row, f"PLACE gives status {row.a[1]} but {r.name} is "
                                                   f"{status_words[r.status]} (status {r.status})")
