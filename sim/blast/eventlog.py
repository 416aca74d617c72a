"""A race's event log as text a game designer can read (the log format: docs/event-log.md).

`render_log(bundle, race_log)` writes the set-up, one line per round (with the wind), one line per
round-start event (pick-ups, eliminations) and one line per turn, then the final ranking:

    round 7 | Olsson (black skis) plays Offset (initiative 6), top: 5 flat | steps U0 F5 D0 |
        moves 11 -> 16 (kurz 12, lane 2) | pulse 6 -> 7 (cost 2, drafting -1) | wind N -> still |
        Offset discarded

(on one line). `describe_event(bundle, race_log, row)` words a single row, for other tools.

Notation: a position is the route index (0 = first grid space) followed by the space's name
(`RouteLayout.label`): "16 (kurz 12, lane 2)". Lanes, mats and face-up slots count from 1 for
people (lane 1 = left); the log itself counts them from 0. Dice show their faces as rolled (0..5).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels.blast import consts as C
from kernels.blast import events as E
from kernels.blast.players import PLAYER_KINDS

from .compile import CompiledBundle
from .model import Action, Value

PICKUP_HOW = {
    E.PICKUP_FREE: "free: the hand is empty",
    E.PICKUP_BULLET: "pays 1 bullet",
    E.PICKUP_COACH: "pays the bullet of a red coach zone",
}
CAUSES = {E.CAUSE_NO_CARDS: "no cards left (hand and discard pile empty)",
          E.CAUSE_PULSE: "pulse above the limit"}
STATUS = {E.STATUS_RACING: "still racing", E.STATUS_WON: "won", E.STATUS_ELIMINATED: "eliminated"}
WAX_COLOURS = (C.BLACK, C.YELLOW, C.GREEN, C.BLUE, C.WHITE)   # ACTION a2..a6, STATE a5..a9


@dataclass
class _Context:
    """What a row's words need beyond the row: names, and the state the earlier rows left."""

    bundle: CompiledBundle
    trail: int
    biathletes: tuple[int, ...]
    colours: tuple[int, ...]
    players: tuple[int, ...]
    pulse: dict[int, int] = field(default_factory=dict)        # seat -> pulse after its last STATE
    lane: dict[int, int] = field(default_factory=dict)         # seat -> lane (mat) after its last STATE
    initiative: dict[int, int] = field(default_factory=dict)   # seat -> initiative of its current TURN
    on_mat: dict[int, bool] = field(default_factory=dict)      # seat -> on a mat at its current TURN
    action: dict[int, tuple] = field(default_factory=dict)     # seat -> (card, action, wax) of its turn
    hits: dict[int, int] = field(default_factory=dict)         # seat -> final hits of its shot this turn
    dice: list[int] = field(default_factory=list)              # the faces the dice show now

    @property
    def layout(self):
        return self.bundle.layouts[self.trail]

    @property
    def rules(self):
        return self.bundle.data.rules

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.biathletes):
            return self.bundle.biathlete_names[self.biathletes[seat]]
        return f"seat {seat}"

    def who(self, seat: int) -> str:
        if 0 <= seat < len(self.colours):
            return f"{self.name(seat)} ({colour_name(self.colours[seat])} skis)"
        return f"seat {seat}"

    def card(self, cid: int) -> str:
        return card_name(self.bundle, cid)

    def at(self, pos: int, lane: int | None = None, mat: bool = False) -> str:
        """Route index with the space's name, and the lane or mat when it tells something."""
        layout = self.layout
        if not 0 <= pos < len(layout):
            return f"{pos} (off the route)"
        s = layout.spaces[pos]
        where = layout.label(pos)
        if s.finish:
            where += ", run-out"
        elif lane is not None and lane >= 0:
            if s.is_range:
                where += f", mat {lane + 1}" if mat else ""
            elif s.lanes > 1:
                where += f", lane {lane + 1}"
        return f"{pos} ({where})"

    def observe(self, kind: int, seat: int, a) -> None:
        """Keep the state that later rows' words refer to."""
        if kind == E.STATE:
            self.pulse[seat] = int(a[3])
            self.lane[seat] = int(a[1])
        elif kind == E.TURN:
            self.initiative[seat] = int(a[0])
            self.on_mat[seat] = bool(a[1])
        elif kind == E.PULSE:
            self.pulse[seat] = int(a[1])
        elif kind == E.ACTION:
            self.action[seat] = (int(a[0]), int(a[1]), [int(x) for x in a[2:7]])
            self.hits.pop(seat, None)
        elif kind in (E.SETUP_DICE, E.ROLL):
            self.dice = [int(x) for x in a[:len(self.rules.dice)]]
        elif kind == E.HITS:
            self.hits[seat] = int(a[4])
        elif kind == E.WAX and seat in self.action:
            card, action, _ = self.action[seat]
            self.action[seat] = (card, action, [int(x) for x in a[:5]])


def colour_name(c: int) -> str:
    return C.COLOUR_NAMES[c] if 0 <= c < C.N_COLOURS else f"colour {c}?"


def wind_name(w: int) -> str:
    return C.WIND_NAMES[w] if 0 <= w < len(C.WIND_NAMES) else f"wind {w}?"


def card_name(bundle: CompiledBundle, cid: int) -> str:
    return bundle.card_names[cid] if 0 <= cid < len(bundle.card_names) else f"card {cid}?"


def player_name(player) -> str:
    """A Player's name, or the name of a player kind given as a number."""
    if hasattr(player, "name"):
        return player.name
    return PLAYER_KINDS[player] if 0 <= player < len(PLAYER_KINDS) else f"player {player}"


def value_text(v: Value) -> str:
    """A card value as printed: 5, red die, 2x yellow die, 2x hits, 1+red die."""
    if v.source is None:
        return str(v.base)
    src = "hits" if v.source == "hits" else f"{v.source} die"
    text = src if v.mult == 1 else f"{v.mult}x {src}"
    return f"{v.base}+{text}" if v.base else text


def action_text(action: Action) -> str:
    """The steps of a card action: '2 uphill, 5 flat', 'red die flat', or 'no steps'."""
    parts = [f"{value_text(v)} {C.TERRAIN_NAMES[t]}" for t, v in enumerate(action.steps)
             if v.source is not None or v.base]
    return ", ".join(parts) if parts else "no steps"


def _signed(n: int) -> str:
    return f"{n:+d}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _dice_text(ctx: _Context, faces) -> str:
    return ", ".join(f"{c} {int(f)}" for c, f in zip(ctx.rules.dice, faces))


def _wax_text(amounts) -> str:
    return ", ".join(f"{int(n)} {colour_name(c)}" for c, n in zip(WAX_COLOURS, amounts) if n)


def _phrase(ctx: _Context, kind: int, seat: int, a) -> str:
    """The words of one row, without the racer's name (the caller says who)."""
    a = [int(x) for x in a]
    bundle = ctx.bundle
    if kind == E.SETUP_DICE:
        return f"initial dice: {_dice_text(ctx, a)}"
    if kind == E.DECK:
        return f"Motivation deck card {a[0] + 1} from the top: {ctx.card(a[1])}"
    if kind == E.FACE_UP:
        what = ctx.card(a[1]) if a[1] >= 0 else "nothing (the deck is empty)"
        return f"face-up slot {a[0] + 1}: {what}"
    if kind == E.SETUP_DISCARD:
        return f"set-up discard {ctx.card(a[0])}"
    if kind == E.GRID:
        return f"grid {ctx.at(a[1], a[2])} (initiative {a[0]})"
    if kind == E.ROUND:
        return f"round {a[0]} | wind {wind_name(a[1])}"
    if kind == E.PICKUP:
        how = PICKUP_HOW.get(a[0], f"how {a[0]}?")
        return f"picks up {a[1]} card{'s' if a[1] != 1 else ''} from the discard pile ({how})"
    if kind == E.ELIMINATED:
        if a[0] == E.CAUSE_PULSE and seat in ctx.pulse:
            return (f"ELIMINATED: pulse {ctx.pulse[seat]} above the limit "
                    f"{ctx.rules.pulse_limit}")
        return f"ELIMINATED: {CAUSES.get(a[0], f'cause {a[0]}?')}"
    if kind == E.CHOOSE:
        return f"chooses {ctx.card(a[0])}"
    if kind == E.TURN:
        return f"turn at initiative {a[0]}{' on a shooting mat' if a[1] else ''}"
    if kind == E.ACTION:
        card = ctx.card(a[0])
        init = ctx.initiative.get(seat)
        played = f"plays {card}" + (f" (initiative {init})" if init is not None else "")
        if ctx.on_mat.get(seat, False):
            mat = ctx.lane.get(seat)
            where = f" on mat {mat + 1}" if mat is not None and mat >= 0 else ""
            what = "Shoot" if a[1] == C.SHOOT else "Wait"
            text = f"{played}: {what}{where}"
        elif 0 <= a[0] < len(bundle.card_names) and a[0] < len(_cards(bundle)):
            c = _cards(bundle)[a[0]]
            side = "bottom" if a[1] == C.BOTTOM else "top"
            text = f"{played}, {side}: {action_text(c.bottom if a[1] == C.BOTTOM else c.top)}"
        else:
            text = f"{played}, {'bottom' if a[1] == C.BOTTOM else 'top'}"
        wax = _wax_text(a[2:7])
        return text + (f" | wax spent: {wax}" if wax else "")
    if kind == E.ROLL:
        return f"rolls {_dice_text(ctx, a)}"
    if kind == E.HITS:
        parts = [f"{a[0]} dice hit{'s' if a[0] != 1 else ''}"]
        acc = _accuracy(ctx, seat)
        if acc:
            parts[0] += f" ({acc})"
        if a[1]:
            parts.append(f"wind {_signed(a[1])}")
        if a[2]:
            parts.append(f"{a[2]} bullet{'s' if a[2] != 1 else ''}")
        if a[3]:
            parts.append("the red coach bullet")
        return f"{', '.join(parts)} -> {a[4]} hit{'s' if a[4] != 1 else ''}"
    if kind == E.WAX:
        wax = _wax_text(a[:5])
        return f"wax spent after the shot: {wax or 'none'}"
    if kind == E.STEPS:
        text = f"steps U{a[0]} F{a[1]} D{a[2]}"
        boost = _boost_steps(ctx, seat, a[:3])
        return text + (f" (incl. coach boost {boost})" if boost else "")
    if kind == E.MOVE:
        dst = ctx.at(a[1], a[2], mat=bool(a[3]))
        if a[0] == a[1]:
            return f"stays on {dst}"
        return f"moves {a[0]} -> {dst}"
    if kind == E.MOTIVATION:
        how = "blind from the deck" if a[0] == E.MOTIVATION_BLIND else f"from face-up slot {a[0] + 1}"
        return f"takes Motivation card {ctx.card(a[1])} {how}"
    if kind == E.BOOST:
        return f"coach boost {colour_name(a[0])} {a[1]}"
    if kind == E.BOOST_LOST:
        return f"{colour_name(a[0])} coach boost {a[1]} expired unused"
    if kind == E.PULSE:
        parts = [f"cost {a[2]}"]
        if a[3]:
            parts.append(f"blue -{a[3]}")
        if a[4]:
            parts.append(f"drafting {_signed(a[4])}")
        if a[5]:
            parts.append(f"{'headwind' if a[5] > 0 else 'tailwind'} {_signed(a[5])}")
        return f"pulse {a[0]} -> {a[1]} ({', '.join(parts)})"
    if kind == E.WIND:
        if a[0] == a[1]:
            return f"wind stays {wind_name(a[0])}"
        return f"wind {wind_name(a[0])} -> {wind_name(a[1])}"
    if kind == E.CARD_END:
        return f"{ctx.card(a[0])} {'removed from the game (icy)' if a[1] else 'discarded'}"
    if kind == E.WIN:
        if 0 <= a[0] < len(ctx.layout) and not ctx.layout.spaces[a[0]].finish:   # last_racer_wins
            return f"WINS: the last racer left in the race, on {ctx.at(a[0])}"
        return f"WINS: crosses the finish line into {ctx.at(a[0])}"
    if kind == E.STALL:
        return f"stalled after {a[0]} rounds (the round cap)"
    if kind == E.PLACE:
        return f"place {a[0]}: {STATUS.get(a[1], f'status {a[1]}?')}"
    if kind == E.STATE:
        wax = _wax_text(a[5:10])
        return (f"on {ctx.at(a[0], a[1], mat=bool(a[2]))}, pulse {a[3]}, {a[4]} bullets, "
                f"wax {wax or 'none'}, hand {a[10]}, discard pile {a[11]}"
                f"{'' if a[12] == E.STATUS_RACING else ', ' + STATUS.get(a[12], '?')}")
    return f"{E.KIND_NAMES.get(kind, f'kind {kind}')} {a}"


STEP_WAX = {C.UPHILL: C.BLACK, C.FLAT: C.YELLOW, C.DOWNHILL: C.GREEN}


def _boost_steps(ctx: _Context, seat: int, steps) -> str:
    """'F+3': the steps beyond the action and the wax, which a pending coach boost added."""
    if seat not in ctx.action:
        return ""
    card, side, wax = ctx.action[seat]
    if ctx.on_mat.get(seat, False):
        trail = ctx.bundle.data.trails[ctx.trail]
        venue = ctx.bundle.data.venue_of(trail)
        action = venue.shoot if side == C.SHOOT else venue.wait
    else:
        cards = _cards(ctx.bundle)
        if not 0 <= card < len(cards):
            return ""
        action = cards[card].bottom if side == C.BOTTOM else cards[card].top
    extra = []
    for t, v in enumerate(action.steps):
        if v.source is None:
            base = v.base
        elif v.source == "hits":
            if seat not in ctx.hits:
                return ""
            base = v.base + v.mult * ctx.hits[seat]
        elif v.source in ctx.rules.dice and len(ctx.dice) == len(ctx.rules.dice):
            base = v.base + v.mult * ctx.dice[ctx.rules.dice.index(v.source)]
        else:
            return ""
        more = int(steps[t]) - base - wax[WAX_COLOURS.index(STEP_WAX[t])]
        if more:
            extra.append(f"{C.TERRAIN_LETTERS[t]}{more:+d}")
    return " ".join(extra)


def _accuracy(ctx: _Context, seat: int) -> str:
    """'accuracy 3+ at pulse 5' from the racer's pulse before the shot, when known."""
    if seat not in ctx.pulse or not 0 <= seat < len(ctx.biathletes):
        return ""
    pulse = ctx.pulse[seat]
    low, medium = ctx.rules.accuracy_bands
    band = 0 if pulse <= low else 1 if pulse <= medium else 2
    threshold = ctx.bundle.data.biathletes[ctx.biathletes[seat]].accuracy[band]
    return f"accuracy {threshold}+ at pulse {pulse}"


_CARDS_CACHE: dict[int, tuple] = {}


def _cards(bundle: CompiledBundle) -> tuple:
    """The data's cards by card id (common, unique by biathlete, Motivation), as compiled."""
    key = id(bundle)
    if key not in _CARDS_CACHE or _CARDS_CACHE[key][0] is not bundle:
        d = bundle.data
        cards = list(d.common)
        for b in d.biathletes:
            cards.extend(b.cards)
        cards.extend(d.motivation)
        if tuple(c.name for c in cards) != bundle.card_names[:len(cards)]:
            cards = []          # the bundle orders cards differently: words without the card text
        _CARDS_CACHE[key] = (bundle, tuple(cards))
    return _CARDS_CACHE[key][1]


def _context(bundle: CompiledBundle, race_log) -> _Context:
    s = race_log.setup
    return _Context(bundle, int(s.trail), tuple(s.biathletes), tuple(s.colours), tuple(s.players))


def _split(row) -> tuple[int, int, int, np.ndarray]:
    row = np.asarray(row)
    return (int(row[E.COL_ROUND]), int(row[E.COL_SEAT]), int(row[E.COL_KIND]),
            row[E.COL_ARG:E.COL_ARG + E.N_ARGS])


def describe_event(bundle: CompiledBundle, race_log, row) -> str:
    """One event row in words: 'round 7 | Olsson (black skis) moves 11 -> 16 (kurz 12, lane 2)'.

    `row` is an index into `race_log.events` (the earlier rows then supply the context: the
    accuracy at a shot, the card's initiative, the mat) or a row itself (words from the row alone).
    """
    ctx = _context(bundle, race_log)
    if isinstance(row, (int, np.integer)):
        for earlier in race_log.events[:int(row)]:
            _, seat, kind, a = _split(earlier)
            ctx.observe(kind, seat, a)
        row = race_log.events[int(row)]
    rnd, seat, kind, a = _split(row)
    text = _phrase(ctx, kind, seat, a)
    if kind == E.ROUND:
        return text
    who = f"{ctx.who(seat)} " if seat >= 0 else ""
    return f"{'set-up' if rnd == 0 else f'round {rnd}'} | {who}{text}"


# ====================================================================== the whole race
def render_log(bundle: CompiledBundle, race_log, states: bool = False) -> str:
    """The race as text: set-up, rounds with their turns, the final ranking.

    With `states=True` each STATE row (the racer's position, pulse, bullets, wax and cards after a
    turn or at round start) adds an indented line.
    """
    ctx = _context(bundle, race_log)
    events = np.asarray(race_log.events)
    lines: list[str] = []
    i = _render_setup(ctx, race_log, events, lines)
    n = len(events)
    rnd = 0
    while i < n:
        rnd, seat, kind, a = _split(events[i])
        if kind == E.TURN:
            i = _render_turn(ctx, events, i, lines, states)
            continue
        ctx.observe(kind, seat, a)
        if kind == E.ROUND:
            lines.append("")
            lines.append(_phrase(ctx, kind, seat, a))
        elif kind == E.STATE:
            if states:
                lines.append(f"    {ctx.name(seat)}: {_phrase(ctx, kind, seat, a)}")
        elif kind == E.CHOOSE:
            pass        # the turn line names the card played
        elif kind in (E.STALL, E.PLACE):
            break
        else:
            lines.append(f"round {rnd} | {ctx.who(seat) + ' ' if seat >= 0 else ''}"
                         f"{_phrase(ctx, kind, seat, a)}")
        i += 1
    _render_end(ctx, race_log, events[i:], lines)
    return "\n".join(lines) + "\n"


def _render_setup(ctx: _Context, race_log, events: np.ndarray, lines: list[str]) -> int:
    bundle, layout = ctx.bundle, ctx.layout
    trail = bundle.data.trails[ctx.trail] if ctx.trail < len(bundle.data.trails) else None
    venue = bundle.data.venue_of(trail).name if trail is not None else "?"
    seed, race = getattr(race_log, "seed", "?"), getattr(race_log, "race", "?")
    lines.append(f"Biathlon Blast: trail {bundle.trail_names[ctx.trail]} ({venue}), seed {seed}, "
                 f"race {race}, {len(ctx.biathletes)} racers, data {bundle.data_hash}")
    lines.append(f"route: {len(layout)} spaces (0 .. {len(layout) - 1}); start line entering "
                 f"{', '.join(map(str, layout.start_line_positions))}; range at "
                 f"{', '.join(map(str, layout.range_positions))}; run-out "
                 f"{', '.join(map(str, layout.finish_positions))}")
    ex = next((s for s in layout.spaces if s.lanes > 1 and not s.is_range and not s.finish
               and s.index >= 10), layout.spaces[-1])
    lines.append(f"notation: '{ctx.at(ex.index, 1)}' = route index {ex.index}, space {ex.number} of "
                 f"segment {ex.segment}, right lane; lanes, mats and face-up slots count from 1; "
                 f"steps U/F/D = uphill/flat/downhill; dice show 0 .. {ctx.rules.die_faces - 1}")

    dice = deck = None
    face_up: dict[int, int] = {}
    discard: dict[int, int] = {}
    grid: dict[int, tuple[int, int, int, int]] = {}
    state: dict[int, list[int]] = {}
    i = 0
    while i < len(events):
        rnd, seat, kind, a = _split(events[i])
        if rnd != 0:
            break
        a = [int(x) for x in a]
        ctx.observe(kind, seat, a)
        if kind == E.SETUP_DICE:
            dice = a
        elif kind == E.DECK:
            deck = (deck or 0) + 1
        elif kind == E.FACE_UP:
            face_up[a[0]] = a[1]
        elif kind == E.SETUP_DISCARD:
            discard[seat] = a[0]
        elif kind == E.GRID:
            grid[seat] = (len(grid) + 1, a[0], a[1], a[2])
        elif kind == E.STATE:
            state[seat] = a
        i += 1

    lines.append("")
    lines.append("set-up")
    for seat in range(len(ctx.biathletes)):
        parts = [f"seat {seat}: {ctx.name(seat)}, {colour_name(ctx.colours[seat])} skis, "
                 f"{player_name(ctx.players[seat])} player"]
        if seat in state:
            wax = _wax_text(state[seat][5:10])
            parts.append(f"{state[seat][4]} bullets, {wax + ' wax' if wax else 'no wax'}")
        if seat in discard:
            init = f" (initiative {grid[seat][1]})" if seat in grid else ""
            parts.append(f"set-up discard {ctx.card(discard[seat])}{init}")
        if seat in grid:
            order, _, pos, lane = grid[seat]
            parts.append(f"starts on {ctx.at(pos, lane)}, placed {_ordinal(order)}")
        lines.append("  " + " | ".join(parts))
    if dice is not None:
        lines.append(f"  initial dice: {_dice_text(ctx, dice)}")
    shown = ", ".join(f"slot {s + 1} {ctx.card(c) if c >= 0 else 'empty'}" for s, c in sorted(face_up.items()))
    lines.append(f"  Motivation deck: {deck or 0} cards; face up: {shown or 'none'}")
    return i


def _render_turn(ctx: _Context, events: np.ndarray, i: int, lines: list[str], states: bool) -> int:
    """One line for the turn starting at row i (TURN); returns the index after the turn."""
    rnd, seat, _, a = _split(events[i])
    ctx.observe(E.TURN, seat, a)      # its initiative goes with the card played
    i += 1
    parts: list[str] = []
    state_line = None
    while i < len(events):
        r, s, kind, a = _split(events[i])
        if kind in (E.TURN, E.ROUND, E.STALL, E.PLACE) or (s != seat and kind != E.FACE_UP):
            break
        if kind == E.STATE:
            ctx.observe(kind, s, a)
            if states:
                state_line = f"    {ctx.name(seat)}: {_phrase(ctx, kind, s, a)}"
            i += 1
            break
        text = _phrase(ctx, kind, s, a)
        ctx.observe(kind, s, a)
        if kind == E.FACE_UP:
            refill = ctx.card(int(a[1])) if a[1] >= 0 else "nothing (the deck is empty)"
            if parts:
                parts[-1] += f", slot {int(a[0]) + 1} refilled with {refill}"
            else:
                parts.append(text)
        else:
            parts.append(text)
        i += 1
        if kind in (E.WIN, E.ELIMINATED):
            break
    lines.append(f"round {rnd} | {ctx.who(seat)} " + " | ".join(parts))
    if state_line:
        lines.append(state_line)
    return i


def _render_end(ctx: _Context, race_log, tail: np.ndarray, lines: list[str]) -> None:
    res = getattr(race_log, "results", ())        # seat records (kernels.blast.results)
    lines.append("")
    for row in tail:
        _, seat, kind, a = _split(row)
        if kind == E.STALL:
            lines.append(f"stalled after {int(a[0])} rounds (the round cap): no winner")
    lines.append("final ranking")
    for row in tail:
        _, seat, kind, a = _split(row)
        if kind != E.PLACE:
            continue
        place, status = int(a[0]), int(a[1])
        text = f"  {place}. {ctx.who(seat)}: {STATUS.get(status, f'status {status}?')}"
        if 0 <= seat < len(res):
            r = res[seat]
            if status == E.STATUS_ELIMINATED:
                cause = CAUSES.get(int(r["elim_cause"]), "?")
                text += f" in round {int(r['elim_round'])} ({cause})"
            elif status == E.STATUS_RACING:
                left = int(r["distance_left"])
                text += f", {left} space{'s' if left != 1 else ''} from the finish"
            elif status == E.STATUS_WON:
                text += f" in round {int(r['rounds'])}"
        lines.append(text)


__all__ = ["render_log", "describe_event", "action_text", "value_text"]
