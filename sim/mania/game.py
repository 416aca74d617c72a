"""Biathlon Mania as a registered game (sim.games): what the shared runner, store, commands and
conformance suite call.

Mania's seats differ only in turn order: the figure colour is the game's one seat axis and is
cosmetic (no rule reads it), so a balanced design rotates the colours through the seats and the
colour's win rate is a built-in null check. The racers of a design are racers for the individual
formats and teams for the relay, whose teams have `legs` legs each (seats = teams x legs).
"""
from __future__ import annotations

import re

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kernels import records as REC
from kernels.mania import consts as C

from ..blocks import rotation
from .compile import ManiaBundle, load_bundle as _load_bundle
from .load import default_data_dir as _default_data_dir

#: the kernel's records with the core scenario field named in Mania's word (same layout)
SEAT_DTYPE = REC.seat_dtype(C.MANIA_SEAT_EXTRA, scenario="track")
VISIT_DTYPE = C.VISIT_DTYPE
assert SEAT_DTYPE.itemsize == C.SEAT_DTYPE.itemsize

#: figure colours: cosmetic, one per figure in the box (names for tables only)
FIGURE_COLOURS = ("red", "blue", "green", "yellow", "black", "white", "orange", "purple")
#: Mania has no decisions to make: every seat is played by the dice
PLAYER = "dice"

LABELS = {"elim_cause": ["none"], "format": list(C.FORMAT_NAMES)}

#: the box's words for a seat axis in compare's rows (sim.compare): scope word, label pattern
AXIS_WORDS = {"colour": ("figure colour", "{} figure")}
#: what compare pairs as component use, per racer (a relay leg) and race: the report's special
#: squares, turns at the table and penalty loops (reports.mania)
COMPONENTS = {"turns": "turns per racer", "penalty_laps": "penalty loops per racer",
              "skips": "turns skipped (X, first) per racer",
              "x_rolls": "extra rolls (X, last) per racer", "o_rolls": "extra rolls (O) per racer",
              "t_jumps": "T jumps per racer", "t_squares": "squares gained by T per racer",
              "group_squares": "squares gained by the group rule per racer",
              "calibres": "calibre re-rolls per racer", "spare_shots": "relay spare shots per racer"}


def default_data_dir() -> Path:
    return _default_data_dir()


def load_bundle(data=None, patches=()) -> ManiaBundle:
    return _load_bundle(data, patches)


def scenarios(bundle: ManiaBundle) -> tuple[str, ...]:
    return tuple(bundle.track_names)


def summary(bundle: ManiaBundle) -> str:
    d = bundle.data
    lines = [f"Biathlon Mania data: {d.source}", f"tracks: {len(d.tracks)}"]
    for t in d.tracks:
        lines.append(f"  {t.name}: {_track_text(t)}")
    lines.append("formats: " + "; ".join(f"{f.name} ({f.laps} loops, shootings after loops "
                                          f"{', '.join(map(str, f.shootings))}, {f.shooting_die} die)"
                                          for f in d.formats))
    lines.append("rule readings (game.toml [switches], docs/mania/rules.md): "
                 + ", ".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}"
                             for k, v in asdict(d.switches).items()))
    return "\n".join(lines)


def _track_text(track) -> str:
    """A track in one line: length, squares by zone, marked squares, range, penalty loop, finish."""
    zones = {"w": 0, "b": 0, "g": 0}
    marks = []
    for i, sq in enumerate(track.loop):
        zones[sq.token[0]] += 1
        if len(sq.token) > 1:
            marks.append(f"{sq.token[1]}@{i}")
    return (f"{track.length_m:,} m, {len(track.loop)} squares a loop ({zones['w']} white, {zones['b']} blue "
            f"uphill, {zones['g']} green downhill); marked {' '.join(marks) or 'none'}; range exit at "
            f"{track.range_exit}; penalty loop of {len(track.penalty)} squares from {track.penalty_entry}; "
            f"finish area of {len(track.finish)} squares, {track.corridors} corridors")


@dataclass(frozen=True)
class Design:
    """Who races how: track name, racers (teams in a relay), format, legs per relay team, number
    and shooting dice in play, figure colours fixed per seat or None (rotated, balanced)."""

    track: str
    racers: int = 4
    format: str = "sprint"
    legs: int = 4
    number_dice: int = 1
    shooting_dice: int = 1
    colours: tuple[str, ...] | None = None
    players: tuple[str, ...] = (PLAYER,)

    @property
    def relay(self) -> bool:
        return self.format == "relay"

    @property
    def seats(self) -> int:
        """Seat rows per race: racers, or teams x legs in a relay."""
        return self.racers * (self.legs if self.relay else 1)

    def setup_kwargs(self) -> dict:
        return dict(teams=self.racers if self.relay else None, legs=self.legs if self.relay else 1,
                    number_dice=self.number_dice, shooting_dice=self.shooting_dice)


def make_design(scenario: str, racers: int = 4, *, fixed: dict | None = None, players=(PLAYER,),
                options: dict | None = None) -> Design:
    from .. import games

    opts = games.game("mania").check_options(options)
    fixed = dict(fixed or {})
    unknown = set(fixed) - {"colour"}
    if unknown:
        raise ValueError(f"Biathlon Mania designs fix only colour (figure colours), not {sorted(unknown)}")
    bad = [p for p in players if p not in (PLAYER, "balanced")]
    if bad:
        raise ValueError(f"Biathlon Mania has no decisions to make, so no players to choose: every seat "
                         f"is played by the dice (got {', '.join(map(str, bad))})")
    colours = tuple(c.lower() for c in fixed["colour"]) if fixed.get("colour") else None
    if opts["format"] != "relay" and "legs" in (options or {}):
        raise ValueError(f"legs applies to the relay format only, not {opts['format'].replace('_', ' ')}: "
                         f"give format relay, or leave legs out")
    return Design(scenario, racers, opts["format"], int(opts["legs"]), int(opts["number_dice"]),
                  int(opts["shooting_dice"]), tuple(colours) if colours else None)


def describe(design: Design) -> str:
    """One line: track, format, racers or teams, dice."""
    who = (f"{design.racers} teams of {design.legs} legs" if design.relay else f"{design.racers} racers")
    dice = "" if design.number_dice == design.shooting_dice == 1 else \
        f", {design.number_dice} number and {design.shooting_dice} shooting dice"
    colours = f", colours {','.join(design.colours)}" if design.colours else ", colours rotated"
    return f"{design.track}, {design.format.replace('_', ' ')}, {who}{dice}{colours}"


def check_design(bundle: ManiaBundle, design: Design) -> None:
    from ..mania.play import make_setup

    try:
        make_setup(bundle, design.track, design.format, design.seats, **design.setup_kwargs())
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    if design.colours is not None:
        unknown = [c for c in design.colours if c not in FIGURE_COLOURS]
        if unknown:
            raise ValueError(f"no figure colour {unknown[0]!r}; known: {', '.join(FIGURE_COLOURS)}")
        if len(design.colours) != design.seats:
            raise ValueError(f"{design.seats} seats need {design.seats} colours, got {len(design.colours)}")
        twice = sorted({c for c in design.colours if design.colours.count(c) > 1})
        if twice and not design.relay:
            raise ValueError(f"each figure colour races once; {', '.join(twice)} is named twice")
    elif design.seats > len(FIGURE_COLOURS) and not design.relay:
        raise ValueError(f"{design.seats} racers but only {len(FIGURE_COLOURS)} figure colours")


def block(bundle: ManiaBundle, design: Design) -> int:
    """Races per balanced block: every figure colour in every seat once (1 with fixed colours)."""
    return 1 if design.colours is not None else len(FIGURE_COLOURS)


def seats_per_race(design: Design) -> int:
    return design.seats


def design_dict(design: Design) -> dict:
    d = asdict(design)
    d["players"] = list(design.players)
    return d


def design_from_dict(d: dict, players: dict | None = None) -> Design:
    d = dict(d)
    d["colours"] = tuple(d["colours"]) if d.get("colours") else None
    d["players"] = tuple(d.get("players") or (PLAYER,))
    return Design(**d)


def player_records(design: Design) -> dict:
    return {PLAYER: {"kind": "dice", "weights": []}}


def names(bundle: ManiaBundle, design: Design) -> dict[str, list[str]]:
    return {"track": list(bundle.track_names), "colour": list(FIGURE_COLOURS), "player": [PLAYER],
            "format": list(C.FORMAT_NAMES)}


def colours(design: Design, seed: int, races: np.ndarray) -> np.ndarray:
    """Figure colour ids [len(races), seats]. Fixed, or balanced: in blocks of 8 races, race r of
    a block seats colour p[(r + j) % 8] at seat j for a permutation p drawn per block from the
    seed, so every colour sits in every seat equally often. A relay team's legs share a colour."""
    races = np.asarray(races, np.int64)
    per_team = design.legs if design.relay else 1
    if design.colours is not None:
        ids = np.array([FIGURE_COLOURS.index(c) for c in design.colours], np.int16)
        return np.broadcast_to(ids, (len(races), design.seats)).copy()
    team = np.arange(design.seats) // per_team                     # a team's legs share a colour
    return rotation(seed, races, (len(FIGURE_COLOURS),), team, 0x3A41A)[0].astype(np.int16)


def play_chunk(bundle: ManiaBundle, design: Design, seed: int, start: int, stop: int):
    from .play import play_block

    races = np.arange(start, stop, dtype=np.int64)
    seats, visits = play_block(bundle, design.track, design.format, design.seats, seed, races,
                               colours=colours(design, seed, races), **design.setup_kwargs())
    return seats.view(SEAT_DTYPE), visits


def play_logged(bundle: ManiaBundle, design: Design, seed: int, race: int):
    """(seats, visits, event log) of one race of a design."""
    from .play import play_one

    cols = colours(design, seed, np.array([race]))[0]
    seats, visits, log = play_one(bundle, design.track, design.format, design.seats, seed, race,
                                  colours=cols, **design.setup_kwargs())
    return seats.view(SEAT_DTYPE), visits, log


def replay(bundle: ManiaBundle, design: Design, seed: int, race: int, states: bool = False) -> str:
    """One race of a design as a designer reads it: a heading, the set-up (each seat's figure
    colour, team and leg), every roll, move, shot and place with the racer named by its figure
    colour as the box names it, and the final ranking (`states`: also each racer's state after its
    turn: loops owed, shots, distance). The event log itself (sim.mania.eventlog.render, the
    referee's and the golden logs' form) numbers seats and colours."""
    from kernels.mania import consts as K

    from .eventlog import parse_rows, render_row

    _, _, log = play_logged(bundle, design, seed, race)
    rows = list(parse_rows(log))
    colour = {seat: FIGURE_COLOURS[a[2]] for _, seat, kind, a in rows if kind == K.EV_SEAT}
    team_of = {seat: a[0] for _, seat, kind, a in rows if kind == K.EV_SEAT}
    leg = {seat: f" (team {team_of[seat] + 1}, leg {seat % design.legs + 1})" if design.relay else ""
           for seat in colour}
    who = {seat: colour[seat] + leg[seat] for seat in colour}
    entrants = f"{design.racers} teams of {design.legs} legs" if design.relay else f"{design.racers} racers"
    out = [f"Biathlon Mania: track {design.track}, {design.format.replace('_', ' ')}, seed {seed}, race {race}, "
           f"{entrants}, data {bundle.data_hash}", "", "set-up"]
    out += [f"  seat {seat + 1}: the {colour[seat]} figure{leg[seat]}" for seat in sorted(colour)]
    out.append("")
    track = -1
    places = []
    width = max(len(w) for w in who.values()) if who else 4
    for rnd, seat, kind, a in rows:
        if kind == K.EV_RACE:
            track = a[0]
        if kind == K.EV_SEAT:
            continue
        if kind == K.EV_STATE and not states:
            continue
        text = render_row(rnd, seat, kind, a, bundle, track)
        text = text[len(f"r{rnd:>3} {'race' if seat < 0 else f'seat {seat}':<8} "):]      # the event, no ids
        text = text[len(K.EVENT_NAMES.get(kind, "")):].strip()
        text = re.sub(r"\bcolour (\d+)\b", lambda m: FIGURE_COLOURS[int(m.group(1))], text)
        text = re.sub(r"\bteam (\d+)\b", lambda m: f"team {int(m.group(1)) + 1}", text)
        if kind == K.EV_PLACE and seat >= 0:
            places.append((a[0] if a[0] > 0 else 99, who[seat], a[1], a[2]))
        label = who.get(seat, "race") if seat >= 0 else "race"
        out.append(f"round {rnd:>3}  {label:<{width}}  {text}")
    out += ["", "final ranking"]
    for place, name, finished, distance in sorted(places):
        out.append(f"  {place}. {name}" if finished else f"  -. {name}: not finished, {distance} squares to go")
    return "\n".join(out) + "\n"


def referee(bundle: ManiaBundle, design: Design, seed: int, race: int) -> None:
    """Replay one race's event log through the independent referee (sim/mania/referee.py, written
    from the rulebook and docs alone); AssertionError naming the first disagreement. The referee
    reads the data files itself, so patched data (a study's variant) is refereed unpatched."""
    from .referee import load_game, referee_race

    _, _, log = play_logged(bundle, design, seed, race)
    setup = {"track": design.track, "format": design.format, "number_dice": design.number_dice,
             "shooting_dice": design.shooting_dice,
             "colours": [int(c) for c in colours(design, seed, np.array([race]))[0]]}
    if design.relay:
        setup.update(teams=design.racers, legs=design.legs)
    else:
        setup["racers"] = design.racers
    report = referee_race(load_game(bundle.data.source), setup, log)
    if not report.ok:
        raise AssertionError(f"race {race} (seed {seed}, {describe(design)}): {report.message}")


def warm_designs(bundle: ManiaBundle):
    """(label, design) for each kernel entry point a command may call (Mania has one)."""
    return [("race kernel", make_design(bundle.track_names[0], 2))]


def golden_log(case: dict) -> str:
    """A golden case's text (tests/golden/mania/cases.toml): the numbered event log (eventlog.render)
    of play_one(track, format, seats, seed, race, legs, number_dice) on the shipped data, its
    [switches] patched by `switches`."""
    from ..validation import Patch
    from .eventlog import render
    from .play import play_one

    case = dict(case)
    patches = [Patch("game.toml", f"switches.{k}", v) for k, v in case.pop("switches", {}).items()]
    bundle = load_bundle(None, patches)
    _, _, log = play_one(bundle, case.pop("track"), case.pop("format"), case.pop("seats"), **case)
    return render(log, bundle)


def log_with_rows(bundle: ManiaBundle, design: Design, seed: int, race: int, rows: int):
    """One race's event log in a log of `rows` rows: EventLogOverflow (a RuntimeError) when the
    race needs more (the conformance suite checks that capacities are checked)."""
    from .play import play_one

    cols = colours(design, seed, np.array([race]))[0]
    return play_one(bundle, design.track, design.format, design.seats, seed, race, colours=cols,
                    log_rows=rows, **design.setup_kwargs())[2]
