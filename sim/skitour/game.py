"""Ski Tour: Biathlon as a registered game (sim.games): what the shared runner, store, commands and
conformance suite call.

A seat's entrant is its nation. A balanced design races the nations of one board side (the five
basic or the five advanced nations, so the two sides of one board never meet) and rotates them
through the seats: in blocks of 5 races, race r of a block seats nation p[(r + j) % 5] at seat j
for a permutation p drawn per block from the seed, so every nation sits in every seat equally
often. Options: `variant` ("standard", or "two_player": 4 racers, two nations per player, the
race ends at the first finisher) and `side` ("basic" or "advanced").
"""
from __future__ import annotations

import re
import tomllib

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kernels import records as REC
from kernels.skitour import consts as C

from ..blocks import rotation
from . import play as P
from .compile import SkiTourBundle, load_bundle as _load_bundle
from .load import default_data_dir as _default_data_dir

#: the kernel's records with the core scenario field named in Ski Tour's word (same layout)
SEAT_DTYPE = REC.seat_dtype(C.SKITOUR_SEAT_EXTRA, scenario="course")
VISIT_DTYPE = P.VISIT_DTYPE
assert SEAT_DTYPE.itemsize == P.SEAT_DTYPE.itemsize

LABELS = {"elim_cause": list(C.ELIM_NAMES), "variant": list(C.VARIANT_NAMES)}

#: what compare pairs as component use, per racer and race (sim.compare): the report's wax
#: tokens, columns, stamina, drafting and the downhill bonus, penalty laps, collapses (reports.skitour)
COMPONENTS = {"wax_tokens": "wax tokens used per racer",
              **{f"wax_{k}": f"wax: {v} per racer" for k, v in (
                  ("reroll_shot", "re-roll a shooting die"), ("sprint", "sprint"), ("free_column", "a free column"),
                  ("reroll_one", "re-roll one board die"), ("reroll_all", "re-roll all board dice"),
                  ("plus_one", "+1 die"), ("minus_one", "-1 die"), ("stamina", "pay one stamina first"))},
              "extra_columns": "extra columns taken per racer", "sprint_uses": "sprints per racer",
              "stamina_used": "stamina spent per racer", "stamina_left": "stamina left per racer",
              "drafts": "moves drafted per racer", "bonuses": "downhill bonuses per racer",
              "penalty_laps": "penalty laps per racer", "eliminated": "share of racers who collapse"}
OPTIONS = {"variant": C.VARIANT_NAMES, "side": C.NATION_SIDES}


def default_data_dir() -> Path:
    return _default_data_dir()


def load_bundle(data=None, patches=()) -> SkiTourBundle:
    return _load_bundle(data, patches)


def scenarios(bundle: SkiTourBundle) -> tuple[str, ...]:
    return tuple(bundle.course_names)


def summary(bundle: SkiTourBundle) -> str:
    from .summary import summary as _summary

    return _summary(bundle)


@dataclass(frozen=True)
class Design:
    """Who races how: course name, racers, variant, nation side, nations fixed per seat or None
    (rotated, balanced), players (one for every seat, or one per seat; two players: one or two).

    A player is a name (sim.skitour.players.get_player: random, a persona, a .toml path) or a
    PlayerSpec (a weight vector held in memory: a candidate of a tuning); both pickle, so designs
    travel to joblib workers."""

    course: str
    racers: int = 4
    variant: str = "standard"
    side: str = "basic"
    nations: tuple[str, ...] | None = None
    players: tuple[str | P.PlayerSpec, ...] = ("balanced",)

    @property
    def two_player(self) -> bool:
        return self.variant == "two_player"

    def player_names(self) -> list[str]:
        return list(dict.fromkeys(_name(p) for p in self.players))

    def player_specs(self) -> list[str | P.PlayerSpec]:
        """The design's distinct players (names or PlayerSpec), in player_names() order."""
        first: dict[str, str | P.PlayerSpec] = {}
        for p in self.players:
            first.setdefault(_name(p), p)
        return list(first.values())

    def seat_players(self, together: bool = False) -> list[int]:
        """Index into player_names() of each seat's player. Two players: side A's player sits in
        seats 0 and 2 (A, B, A, B), or in seats 0 and 1 with `together` (switch two_player_seats)."""
        names = self.player_names()
        if len(self.players) == 1:
            return [0] * self.racers
        if self.two_player:
            return [names.index(_name(self.players[P.player_side(s, together)])) for s in range(self.racers)]
        return [names.index(_name(p)) for p in self.players]


def _name(player) -> str:
    return player if isinstance(player, str) else player.name


def make_design(scenario: str, racers: int = 4, *, fixed: dict | None = None, players=("balanced",),
                options: dict | None = None) -> Design:
    from .. import games

    opts = games.game("skitour").check_options(options) if "skitour" in games.names() else \
        {k: (options or {}).get(k, v[0]) for k, v in OPTIONS.items()}
    fixed = dict(fixed or {})
    unknown = set(fixed) - {"nation"}
    if unknown:
        raise ValueError(f"Ski Tour designs fix only nation (in seat order), not {sorted(unknown)}")
    nations = fixed.get("nation")
    return Design(scenario, int(racers), opts["variant"], opts["side"],
                  tuple(nations) if nations else None,
                  tuple(p if isinstance(p, (str, P.PlayerSpec)) else p.name for p in players))


def describe(design: Design) -> str:
    who = (f"{design.racers} racers" if not design.two_player else "two players with two nations each")
    nat = ",".join(design.nations) if design.nations else f"{design.side} nations rotated"
    return f"{design.course}, {who}, {nat}, players {','.join(map(_name, design.players))}"


def check_design(bundle: SkiTourBundle, design: Design) -> None:
    from .players import get_player

    if design.course.lower() not in [c.lower() for c in bundle.course_names]:
        raise ValueError(f"no course named {design.course!r}; known: {', '.join(bundle.course_names)}")
    if not C.MIN_RACERS <= design.racers <= C.MAX_RACERS:
        raise ValueError(f"Ski Tour races have {C.MIN_RACERS} to {C.MAX_RACERS} nations, got {design.racers}")
    if design.variant not in C.VARIANT_NAMES:
        raise ValueError(f"variant must be one of {', '.join(C.VARIANT_NAMES)}, got {design.variant!r}")
    if design.side not in C.NATION_SIDES:
        raise ValueError(f"side must be one of {', '.join(C.NATION_SIDES)}, got {design.side!r}")
    if design.two_player and design.racers != 4:
        raise ValueError("the two-player variant races exactly 4 nations (two per player)")
    if design.two_player and len(design.players) not in (1, 2):
        raise ValueError("the two-player variant takes one player for both sides or one per side")
    if not design.two_player and len(design.players) not in (1, design.racers):
        raise ValueError(f"give one player for all seats or one per seat, got {len(design.players)}")
    seen: dict[str, P.PlayerSpec] = {}
    for p in design.players:
        try:
            spec = get_player(p)
        except tomllib.TOMLDecodeError as exc:      # a persona file's syntax: name the file, not only the line
            raise ValueError(f"persona file {str(p)!r} is not valid TOML: {exc}") from None
        except OSError as exc:
            raise ValueError(f"cannot read persona file {str(p)!r}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        if seen.setdefault(_name(p), spec) != spec:
            raise ValueError(f"two different players are named {_name(p)!r}; give each its own name")
    if design.nations is not None:
        if len(design.nations) != design.racers:
            raise ValueError(f"{design.racers} seats need {design.racers} nations, got {len(design.nations)}")
        try:
            ids = [bundle.nation_id(n) for n in design.nations]
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        boards = [int(bundle.tables.nation_board[i]) for i in ids]
        if len(set(boards)) != len(boards):
            raise ValueError("two nations of one board (its two sides, or the same nation twice) cannot race together")
    else:
        pool = side_pool(bundle, design.side)
        if design.racers > len(pool):
            raise ValueError(f"{design.racers} racers but only {len(pool)} {design.side} nations")


def side_pool(bundle: SkiTourBundle, side: str) -> list[int]:
    code = C.NATION_SIDES.index(side)
    return [i for i, s in enumerate(bundle.tables.nation_side) if int(s) == code]


def block(bundle: SkiTourBundle, design: Design) -> int:
    """Races per balanced block: every nation of the side in every seat once (1 when fixed)."""
    return 1 if design.nations is not None else len(side_pool(bundle, design.side))


def seats_per_race(design: Design) -> int:
    return design.racers


def design_dict(design: Design) -> dict:
    d = asdict(design)
    d["players"] = [_name(p) for p in design.players]
    d["nations"] = list(design.nations) if design.nations else None
    return d


def design_from_dict(d: dict, players: dict | None = None) -> Design:
    """The design a manifest records; `players`: the manifest's player records (kind and weights,
    player_records), so a replay plays the run's races with the weights they were played with, even
    for a player held in memory (a tuning candidate) or a persona file changed since."""
    from ..contract import filled_weights

    d = dict(d)
    d["nations"] = tuple(d["nations"]) if d.get("nations") else None
    names = tuple(d.get("players") or ("balanced",))
    records = players or {}

    def spec(name: str):
        r = records.get(name)
        if not r or r.get("kind") not in C.PLAYER_KINDS or r.get("kind") == "random":
            return name
        return P.PlayerSpec(name, C.PLAYER_KINDS.index(r["kind"]), filled_weights(r["weights"], ADDED_AT))

    d["players"] = tuple(spec(n) for n in names)
    return Design(**d)


#: weights a player's record always holds: those before `last_spend` and `occupied_cut` (issue 27,
#: 2026-11-29). A weight added later is recorded only up to the last one off the value it was
#: added at (ADDED_AT), so a results folder written before it came stays extensible while the
#: players play as before (design_from_dict gives the weights left out those values).
RECORDED_WEIGHTS = 46


def _added_at():
    """The weights at the values that play as before the later weights came: the default's, but
    `last_spend` and `occupied_cut` at 0 (the default has played them at 1 and 0.8 since issue 27
    item 2; a record written before them must replay at 0)."""
    from kernels.skitour.players import DEFAULT_PARAMS, PARAM_NAMES

    w = DEFAULT_PARAMS.copy()
    w[PARAM_NAMES.index("last_spend")] = 0.0
    w[PARAM_NAMES.index("occupied_cut")] = 0.0
    return w


ADDED_AT = _added_at()


def recorded_weights(weights) -> list[float]:
    """A player's weights as a manifest records them (RECORDED_WEIGHTS)."""
    from ..contract import trimmed_weights

    return trimmed_weights(weights, ADDED_AT, RECORDED_WEIGHTS)


def player_records(design: Design) -> dict:
    from kernels.skitour.players import PARAM_NAMES
    from .players import get_player

    out = {}
    for name, player in zip(design.player_names(), design.player_specs()):
        p = get_player(player)
        w = recorded_weights(p.weights)
        out[name] = {"kind": C.PLAYER_KINDS[p.kind], "weights": w, "weight_names": list(PARAM_NAMES[:len(w)])}
    return out


def names(bundle: SkiTourBundle, design: Design) -> dict[str, list[str]]:
    return {"course": list(bundle.course_names), "nation": list(bundle.nation_names),
            "player": design.player_names()}


def nations(bundle: SkiTourBundle, design: Design, seed: int, races) -> np.ndarray:
    """Nation ids [len(races), racers]: fixed, or balanced rotation of the side's nations."""
    races = np.asarray(races, np.int64)
    n = design.racers
    if design.nations is not None:
        ids = np.array([bundle.nation_id(x) for x in design.nations], np.int16)
        return np.broadcast_to(ids, (len(races), n)).copy()
    pool = np.array(side_pool(bundle, design.side), np.int16)
    return pool[rotation(seed, races, (len(pool),), np.arange(n), 0x5C1)[0]]


def _kw(bundle: SkiTourBundle, design: Design) -> dict:
    together = int(bundle.tables.rules[C.R_TWO_PLAYER_SEATS]) == C.SEATS_TOGETHER
    return dict(players=design.player_specs(), seat_players=design.seat_players(together),
                variant=design.variant)


def play_chunk(bundle: SkiTourBundle, design: Design, seed: int, start: int, stop: int):
    races = np.arange(start, stop, dtype=np.int64)
    seats, visits = P.play_block(bundle, design.course, nations(bundle, design, seed, races), seed,
                                 races, **_kw(bundle, design))
    return seats.view(SEAT_DTYPE), visits


def play_logged(bundle: SkiTourBundle, design: Design, seed: int, race: int):
    """(seats, visits, event log) of one race of a design."""
    nat = nations(bundle, design, seed, np.array([race]))[0]
    seats, visits, log = P.play_one(bundle, design.course, nat, seed, race, **_kw(bundle, design))
    return seats.view(SEAT_DTYPE), visits, log


def log_with_rows(bundle: SkiTourBundle, design: Design, seed: int, race: int, rows: int) -> np.ndarray:
    """The race's event log in `rows` rows at most; EventLogOverflow (a RuntimeError naming the
    capacity) when the race needs more. Nothing is written past the end."""
    nat = nations(bundle, design, seed, np.array([race]))[0]
    _, _, log = P.play_one(bundle, design.course, nat, seed, race, log_rows=rows, **_kw(bundle, design))
    return log


def warm_designs(bundle: SkiTourBundle):
    """(label, design) for each kernel entry point a command may call (one race kernel)."""
    return [("race kernel", make_design(bundle.course_names[0], 2))]


def golden_log(case: dict) -> str:
    """A golden case's text (tests/golden/skitour/cases.toml): the numbered event log
    (eventlog.render, and a newline) of play_one(course, nations, seed, race, players,
    seat_players) on a data set (`data`: a folder or a shipped example set's name; default the
    shipped data)."""
    from .eventlog import render

    bundle = load_bundle(case.get("data"))
    nat = [bundle.nation_id(n) for n in case["nations"]]
    _, _, log = P.play_one(bundle, case["course"], nat, seed=case["seed"], race=case["race"],
                           players=tuple(case["players"]), seat_players=list(case["seat_players"]))
    return render(log, bundle) + "\n"


def replay(bundle: SkiTourBundle, design: Design, seed: int, race: int, states: bool = False) -> str:
    """One race of a design as a designer reads it: a heading, the set-up (each seat's nation and
    player, its row of wax tokens as printed), every roll, decision, step, shot and place with the
    racer named by its nation, and the final ranking. The event log itself (sim.skitour.eventlog,
    the referee's and the golden logs' form) numbers seats and tokens. `states` changes nothing."""
    from .eventlog import event_text

    _, _, log = play_logged(bundle, design, seed, race)
    nation = {int(r[1]): int(r[3]) for r in log if int(r[2]) == C.EV_SEAT}
    names = [bundle.nation_names[nation[s]] for s in sorted(nation)]
    players = design.player_names()
    wax = {int(r[1]): [int(x) for x in r[3:9]] for r in log if int(r[2]) == C.EV_WAXROW}
    tokens = bundle.data.nations

    def token(seat: int, k: int) -> str:
        row = tokens[nation[seat]].wax
        return f"[{row[k].text}]" if 0 <= k < len(row) else f"[token {k}]"

    out = [f"Ski Tour: Biathlon: course {design.course}, {design.racers} nations, seed {seed}, race {race}, "
           f"data {bundle.data_hash}", "", "set-up"]
    player_of = {int(r[1]): int(r[5]) for r in log if int(r[2]) == C.EV_SEAT}
    for seat in sorted(nation):
        player = players[player_of[seat]] if 0 <= player_of[seat] < len(players) else f"player {player_of[seat]}"
        out.append(f"  seat {seat + 1}: {names[seat]}, {player} player; wax row "
                   + " ".join(token(seat, k) for k in wax.get(seat, [])))
    out.append("")
    width = max(map(len, names)) if names else 4
    places = []
    for r in log:
        rnd, seat, kind = int(r[0]), int(r[1]), int(r[2])
        if kind in (C.EV_SEAT, C.EV_WAXROW):
            continue
        who = "race" if seat < 0 else f"seat {seat} ({names[seat]})"
        head = f"r{rnd:<3d} {who:<12s} {C.EV_NAMES[kind]:<9s} "            # event_text's ids, dropped
        text = event_text(r, bundle, names)[len(head):]
        text = re.sub(r"winner seat (\d+)", lambda m: f"winner {names[int(m.group(1))]}", text)
        text = re.sub(r"row token at (\d+) \(id (\d+)\)",
                      lambda m: f"row token {token(seat, int(m.group(2)))} at {m.group(1)}", text)
        text = re.sub(r"first player seat (\d+)", lambda m: f"first player {names[int(m.group(1))]}", text)
        if kind == C.EV_FINISH and seat >= 0:
            places.append((int(r[3]), names[seat]))
        label = names[seat] if seat >= 0 else "race"
        out.append(f"round {rnd:>3}  {label:<{width}}  {text}")
    if places:
        out += ["", "final ranking"] + [f"  {p}. {n}" for p, n in sorted(places)]
    return "\n".join(out) + "\n"


def referee(bundle: SkiTourBundle, design: Design, seed: int, race: int) -> None:
    """Replay one race's event log, and its records, through the independent referee
    (sim/skitour/referee.py, written from the rulebook and docs alone); AssertionError naming the
    first disagreement. The referee reads the data files itself (patched data: refereed unpatched)."""
    from .referee import referee_race

    seats, visits, log = play_logged(bundle, design, seed, race)
    nations_of_seats = [bundle.nation_names[int(r[3])] for r in log if int(r[2]) == 2]      # the SEAT rows
    report = referee_race(bundle.data.source, {"course": design.course, "nations": nations_of_seats,
                                               "variant": design.variant}, log, seats, visits)
    if not report.ok:
        raise AssertionError(f"race {race} (seed {seed}, {describe(design)}): {report.message}")


class Roster:
    """Ski Tour's players for ladders and tuning (sim.ladder, sim.tune: the `roster()` hook).

    An arrangement (one player per seat) plays a standard-variant design with the side's nations
    rotated through the seats, so every arrangement playing race r of a seed meets the same nations
    in the same seats and the same dice: only the players differ."""

    game = "skitour"
    scenario = "course"
    reserved = ("random", "heuristic", "default")

    def __init__(self):
        from kernels.skitour.players import PARAM_NAMES

        from . import players

        self._p = players
        self.persona_dir = players.PERSONA_DIR
        self.param_names = PARAM_NAMES
        self.weights = players.WEIGHTS
        self.tuned = players.TUNED
        self.spread = players.SPREAD

    def available(self) -> dict:
        return self._p.available()

    def resolve(self, player, known=None) -> P.PlayerSpec:
        return self._p.resolve(player, known)

    @staticmethod
    def design(scenario: str, arrangement, options: dict | None = None) -> Design:
        options = dict(options or {})
        variant = options.get("variant", C.VARIANT_NAMES[0])
        if variant != "standard":
            raise ValueError(f"ladders and tuning play the standard variant (one player per nation), "
                             f"not {variant}")
        return Design(scenario, len(arrangement), variant, options.get("side", C.NATION_SIDES[0]), None,
                      tuple(arrangement))

    def check(self, bundle: SkiTourBundle, scenario: str, arrangement, options: dict | None = None) -> None:
        check_design(bundle, self.design(scenario, arrangement, options))

    def block(self, bundle: SkiTourBundle, scenario: str, racers: int, options: dict | None = None) -> int:
        return block(bundle, self.design(scenario, ("random",) * racers, options))

    def play(self, bundle: SkiTourBundle, seed: int, pieces, names: list[str], options: dict | None = None):
        """Seat records of the pieces (arrangement index, course, arrangement, first race, end
        race), their `player` column indexing `names`, and each row's arrangement index."""
        parts, index = [], []
        code = {n: i for i, n in enumerate(names)}
        for i, course, arrangement, start, stop in pieces:
            design = self.design(course, arrangement, options)
            seats, _ = play_chunk(bundle, design, seed, start, stop)
            remap = np.array([code[n] for n in design.player_names()], seats.dtype["player"])
            seats["player"] = remap[seats["player"]]
            parts.append(seats)
            index.append(np.full(len(seats), i, np.int32))
        return np.concatenate(parts), np.concatenate(index)

    @staticmethod
    def table(bundle: SkiTourBundle, records: np.ndarray, names: list[str]):
        from ..store import add_names, frame

        return add_names(frame(records), {"course": list(bundle.course_names),
                                          "nation": list(bundle.nation_names), "player": list(names)})

    @staticmethod
    def kind_name(player: P.PlayerSpec) -> str:
        return C.PLAYER_KINDS[player.kind]

    @staticmethod
    def recorded_weights(player: P.PlayerSpec) -> list[float]:
        return recorded_weights(player.weights)

    @staticmethod
    def heuristic(player: P.PlayerSpec) -> bool:
        return player.kind == C.PLAYER_HEURISTIC

    def with_weights(self, player: P.PlayerSpec, name: str, weights, description: str | None = None):
        return self._p.with_weights(player, name, weights)

    def description(self, player: P.PlayerSpec) -> str:
        try:
            return self._p.description(player.name)
        except ValueError:
            return ""

    def source(self, player: P.PlayerSpec) -> str | None:
        return self._p.source(player.name)

    def write_persona(self, player: P.PlayerSpec, path, note: str = "", description: str | None = None) -> None:
        self._p.write_persona(player, path, description if description is not None else self.description(player),
                              note)


def roster() -> Roster:
    """The players hook of sim.ladder and sim.tune (see Roster)."""
    return Roster()
