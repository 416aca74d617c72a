"""The Ski Tour event log as text: one line per event (docs/skitour/event-log.md)."""
from __future__ import annotations

import numpy as np

from kernels.skitour import consts as C

from .compile import SkiTourBundle

STEP = ("forward", "sideways", "diagonal", "entry", "finish")
PHASE = ("move", "bonus", "draft")
REASON = ("", "extra column", "stamina icon", "occupied space", "occupied space (draft)",
          "occupied space (bonus)")
MOMENT = ("A", "B", "C")
PURPOSE = ("preparation", "reroll_one", "reroll_all")


def _icons(bits: int) -> str:
    names = [n for i, n in enumerate(C.WAX_ICON_NAMES) if bits & (1 << i)]
    return "+".join(names) or "-"


def _col(c: int) -> str:
    return "sprint" if c == C.PICK_SPRINT else f"col{c + 1}"


def _mask(m: int) -> str:
    return ",".join(_col(c) for c in range(5) if m >> c & 1) or "-"


def event_text(row, bundle: SkiTourBundle | None = None, nations=None) -> str:
    rnd, seat, kind = int(row[0]), int(row[1]), int(row[2])
    a = [int(x) for x in row[3:]]
    who = "race" if seat < 0 else f"seat {seat}" + (f" ({nations[seat]})" if nations else "")
    name = C.EV_NAMES[kind] if 0 < kind < len(C.EV_NAMES) else f"?{kind}"
    if kind == C.EV_RACE:
        course = bundle.course_names[a[0]] if bundle else a[0]
        text = (f"course {course}, {a[1]} racers, {C.VARIANT_NAMES[a[2]]}, markers on slot {a[3]}, "
                f"round cap {a[4]}, {a[5]} rows, {a[6]} ranges")
    elif kind == C.EV_SEAT:
        nat = bundle.nation_names[a[0]] if bundle else a[0]
        text = f"nation {nat}, side {a[1]}, player {a[2]}"
    elif kind == C.EV_WAXROW:
        text = "tokens " + " ".join(str(x) for x in a[:6])
    elif kind == C.EV_ROUND:
        text = f"round {a[0]}, first player seat {a[1]}"
    elif kind == C.EV_ROLL:
        text = f"{PURPOSE[a[0]]} roll of {a[1]}: " + " ".join(str(x) for x in a[2:2 + a[1]])
    elif kind == C.EV_BLUE:
        text = f"{a[0]} markers on blue: {a[1]} fives and {a[2]} sixes go back"
    elif kind == C.EV_SIX:
        dest = "back (no place)" if a[1] < 0 else ("sprint column" if a[1] == 4 else f"box above col{a[1] + 1}")
        text = f"six #{a[0]} -> {dest}"
    elif kind == C.EV_BOARD:
        text = (f"board cols {a[0]} {a[1]} {a[2]} {a[3]}, sprint {a[4]}, boxes {a[5]}{a[6]}{a[7]}{a[8]}, "
                f"available {a[9]} ({a[10]} placed)")
    elif kind == C.EV_TURN:
        text = (f"{'shooting' if a[0] else 'moving'} turn at row {a[1]} lane {a[2]}"
                + (f", penalty lane: {a[4]} laps owed, {a[5]} moves into the lap" if a[3] else "")
                + (f", {a[6]} shots made" if a[0] else ""))
    elif kind == C.EV_WAX:
        tok = "printed token" if a[1] < 0 else f"row token at {a[1]} (id {a[2]})"
        text = f"wax at {MOMENT[a[0]]}: {tok}: {_icons(a[3])}" + (f", chose {_icons(a[4])}" if a[4] else "")
    elif kind == C.EV_TAKE:
        text = (f"takes {_col(a[0])}, extra {_mask(a[1])}, flip trades {_mask(a[2])}"
                + (", free column" if a[3] else "") + f": {a[4]} dice, {a[5]} stamina")
    elif kind == C.EV_PAY:
        text = (f"pays stamina from column {a[0] + 1} (now slot {a[1]})" if a[0] >= 0 else "cannot pay")
        text += f" for {REASON[a[2]]}" + (" (forced)" if a[3] else "")
    elif kind == C.EV_FLIPBACK:
        text = f"token at {a[0]} face up again"
    elif kind == C.EV_COUNT:
        text = (f"{a[0]} dice, +{a[1]} -{a[2]}, sprint moves {a[3]}" + (", starts on red" if a[4] else "")
                + f" -> {a[5]}" + (" (sprinting)" if a[6] else ""))
    elif kind == C.EV_LIFT:
        text = f"lifts a die from board cell {a[0]}"
    elif kind == C.EV_LAP:
        text = f"{a[0]} moves in the penalty lane: {a[1]} laps owed, {a[2]} moves into the lap"
    elif kind == C.EV_STEP:
        text = (f"{PHASE[a[0]]} step {STEP[a[1]]} to row {a[2]} lane {a[3]} ({a[4]} there"
                + (", paid" if a[5] else "") + (f", passes {a[6]}" if a[6] else "") + ")")
    elif kind == C.EV_BONUS:
        text = f"downhill bonus: {a[0]} steps"
    elif kind == C.EV_DRAFT:
        text = (f"may draft on seat {a[0]} ({a[2]} steps, {a[3]} to pay): "
                + ("follows" if a[1] else ("declines" if a[4] else "cannot pay")))
    elif kind == C.EV_ARRIVE:
        text = f"arrives at range {a[0] + 1} (row {a[1]} lane {a[2]})"
    elif kind in (C.EV_SHOT, C.EV_RESHOT):
        die = bundle.die_names[a[1]] if bundle else a[1]
        text = (f"{'re-' if kind == C.EV_RESHOT else ''}shot at target {a[0] + 1} with the {die} die, "
                f"face {a[2]}: {'hit' if a[3] else 'miss'}")
    elif kind == C.EV_LAPS:
        text = f"{a[0]} misses: {a[1]} penalty laps"
    elif kind == C.EV_FINISH:
        text = f"crosses the finish line, place {a[0]}"
    elif kind == C.EV_COLLAPSE:
        text = f"collapses ({REASON[a[0]]})"
    elif kind == C.EV_END:
        text = f"race over after {a[0]} rounds" + (" (stalled)" if a[1] else "") + f", winner seat {a[2]}"
    else:
        text = " ".join(map(str, a))
    return f"r{rnd:<3d} {who:<12s} {name:<9s} {text}"


def render(log: np.ndarray, bundle: SkiTourBundle | None = None) -> str:
    nations = None
    if bundle is not None:
        seats = {int(r[1]): bundle.nation_names[int(r[3])] for r in log if int(r[2]) == C.EV_SEAT}
        nations = [seats[s] for s in sorted(seats)] if seats else None
    return "\n".join(event_text(r, bundle, nations) for r in log)
