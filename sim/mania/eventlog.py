"""Biathlon Mania event logs as readable text (the log format: docs/mania/event-log.md).

`render(log, bundle)` gives one line per event; `parse_rows(log)` gives (round, seat, kind,
args) tuples for code that walks a log (the referee, tests).
"""
from __future__ import annotations

import numpy as np

from kernels.mania import consts as C

from .compile import ManiaBundle


def parse_rows(log: np.ndarray):
    """Yield (round, seat, kind, args: tuple of 10 ints) for each row."""
    for row in np.asarray(log):
        yield int(row[0]), int(row[1]), int(row[2]), tuple(int(x) for x in row[3:])


def position(lap: int, stage: int, sq: int) -> str:
    """A position as words: 'lap 2 square 14', 'penalty square 1', 'range line 8', ..."""
    if stage == C.START:
        return "START area"
    if stage == C.WAITING:
        return "waiting"
    if stage == C.FINISHED:
        return "finished"
    if stage == C.RANGE:
        return f"range line {sq} (after lap {lap})"
    if stage == C.PENALTY:
        return f"penalty square {sq} (lap {lap})"
    if stage == C.FINISH_AREA:
        return f"finish area square {sq}"
    return f"lap {lap} square {sq}"


def _square(bundle: ManiaBundle | None, track: int, sq: int) -> str:
    if bundle is None or track < 0:
        return ""
    s = bundle.data.tracks[track].loop[sq]
    return f" [{s.token}]"


def render_row(rnd: int, seat: int, kind: int, a: tuple, bundle: ManiaBundle | None = None,
               track: int = -1) -> str:
    who = "race" if seat < 0 else f"seat {seat}"
    head = f"r{rnd:>3} {who:<8} {C.EVENT_NAMES.get(kind, f'kind {kind}'):<10} "
    if kind == C.EV_RACE:
        fmt = C.FORMAT_NAMES[a[1]] if 0 <= a[1] < 3 else a[1]
        name = bundle.track_names[a[0]] if bundle is not None else a[0]
        text = (f"track {name}, {fmt}, {a[2]} seats = {a[3]} teams x {a[4]} legs, "
                f"{a[5]} number dice, {a[6]} shooting dice, die {C.DIE_NAMES[a[7]]}, cap {a[8]}")
    elif kind == C.EV_SEAT:
        text = f"team {a[0]} leg {a[1]} colour {a[2]}"
    elif kind == C.EV_ROUND:
        text = f"round {a[0]}"
    elif kind == C.EV_SKIP:
        text = "turn skipped (X)"
    elif kind == C.EV_ROLL:
        dice = f"{a[4]}" if a[1] == 1 else f"{a[4]}+{a[5]}"
        text = f"{C.ROLL_NAMES[a[0]]}: rolls {dice} = {a[6]}"
    elif kind == C.EV_MOVE:
        text = (f"{position(a[0], a[1], a[2])} -> {a[3]} steps -> "
                f"{position(a[4], a[5], a[6])}")
        if a[5] == C.LOOP:
            text += _square(bundle, track, a[6])
    elif kind == C.EV_GROUP:
        text = f"group rule: {a[0]} squares on to {position(a[1], a[2], a[3])}"
    elif kind == C.EV_ARRIVE:
        text = f"range visit {a[0]}: line {a[1]}"
    elif kind == C.EV_SHOT:
        face = C.FACE_NAMES[a[3]]
        if a[4] >= 0:
            face += f", re-roll {C.FACE_NAMES[a[5]]}"
        elif a[3] == C.CALIBRE:
            face += ", no spare left to re-roll"
        text = (f"{'spare ' if a[1] else ''}shot {a[0]}: {face}: {'HIT' if a[6] else 'miss'}; "
                f"hits {a[7]}, standing {a[8]}")
    elif kind == C.EV_SHOOT_END:
        text = (f"visit {a[0]} over: {a[1]} shots, {a[2]} hits, {a[3]} penalty loops, "
                f"{a[4]} spare shots")
    elif kind == C.EV_X:
        what = ("nothing", "first: next turn skipped", "last: rolls again",
                "last: no extra move (no chaining)")[a[0]]
        text = f"X: {what} (own distance {a[1]}, others {a[2]}..{a[3]})"
    elif kind == C.EV_T:
        text = f"trainer: square {a[0]} -> {a[1]} (+{a[2]})"
    elif kind == C.EV_O:
        text = "refreshment: rolls again" if a[0] else "refreshment: no extra move (no chaining)"
    elif kind == C.EV_FINISH:
        text = f"crosses the line (leg {a[1]})" + (f", place {a[0]}" if a[0] else "")
    elif kind == C.EV_HANDOVER:
        text = f"team {a[0]} leg {a[1]} starts"
    elif kind == C.EV_STATE:
        text = (f"{position(a[0], a[1], a[2])}; loops owed {a[3]}, shots {a[4]}, standing {a[5]}, "
                f"spares {a[6]}, skip {a[7]}, distance {a[8]}, turns {a[9]}")
    elif kind == C.EV_LEADER:
        text = f"leader team {a[0]} (distance {a[2]}), lead changes {a[1]}"
    elif kind == C.EV_LAST_RANGE:
        text = f"first exit from the last range: leader team {a[0]}"
    elif kind == C.EV_STALL:
        text = f"round cap {a[0]} reached"
    elif kind == C.EV_PLACE:
        text = f"place {a[0]}, {'finished' if a[1] else 'not finished'}, distance {a[2]}"
    else:
        text = " ".join(str(x) for x in a)
    return head + text


def render(log: np.ndarray, bundle: ManiaBundle | None = None) -> str:
    """The whole log as text, one line per event."""
    lines = []
    track = -1
    for rnd, seat, kind, a in parse_rows(log):
        if kind == C.EV_RACE:
            track = a[0]
        lines.append(render_row(rnd, seat, kind, a, bundle, track).rstrip())
    return "\n".join(lines) + "\n"
