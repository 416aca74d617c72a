"""Biathlon Blast as a registered game (sim.games): what the shared runner, store, commands and
conformance suite call.

The Blast kernel fills the shared structured records directly (kernels/blast/results.py: the core
seat fields plus Blast's own, and one visits row per racer and range visit reached).
tests/test_records_blast.py keeps a fixture of the table from before the records were composed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from kernels.blast import results as R

from . import design as _design
from .compile import CompiledBundle, load_bundle as _load_bundle
from .load import default_data_dir as _default_data_dir

SEAT_DTYPE = R.SEAT_DTYPE
VISIT_DTYPE = R.VISIT_DTYPE

LABELS = {"elim_cause": ["none", "no cards left", "pulse over the limit"],
          "shot_wind": ["still", "crosswind", "headwind", "tailwind"]}

#: the box's words for a seat axis in compare's rows (sim.compare): scope word, label pattern
AXIS_WORDS = {"biathlete": ("biathlete", "{}"), "colour": ("ski colour", "{} skis")}
#: the components whose use compare pairs, per racer and race (the report's gear and cards
#: sections read the same columns): column -> what it counts
COMPONENTS = {"bullets_hits": "hits from bullets per racer", "bullets_left": "bullets left per racer",
              **{f"wax_{c}": f"{c} wax used per racer" for c in ("black", "yellow", "green", "blue", "white")},
              "wax_left": "wax left per racer", "motivation": "Motivation cards taken per racer",
              "icy": "icy actions per racer", "boosts": "coach boosts per racer",
              "eliminated": "share of racers eliminated"}


def default_data_dir() -> Path:
    return _default_data_dir()


def load_bundle(data=None, patches=()) -> CompiledBundle:
    return _load_bundle(data, patches)


#: the box's gear (../shared/game-facts.md): bullets and wax per ski colour, each colour's wax of its
#: own colour (the inferred assignment)
BOX_BULLETS = {"red": 4, "black": 3, "yellow": 3, "green": 3, "blue": 3, "white": 3}
BOX_WAX = {"red": {}, "black": {"black": 2}, "yellow": {"yellow": 3}, "green": {"green": 4},
           "blue": {"blue": 3}, "white": {"white": 2}}


def report_params(bundle: CompiledBundle) -> dict:
    """What the report needs from the data: the first pulse of each accuracy band after 0
    (accuracy_bands [2, 6] are the bands' last pulses: bands 0-2, 3-6, 7-10 start at 3 and 7);
    and, while every ski colour's gear is the box's, that the colours are fixed by the box and why
    ("fixed": the report lists them after what the data can change, with this reason)."""
    out = {"pulse_band_starts": [int(b) + 1 for b in bundle.data.rules.accuracy_bands]}
    g = bundle.data.gear
    box = dict(g.bullets) == BOX_BULLETS and {c: dict(w) for c, w in g.wax.items() if sum(w.values())} == \
        {c: w for c, w in BOX_WAX.items() if w}
    if box:
        out["fixed"] = {"ski colour": (
            "every colour's bullets and wax are the box's (red 4 bullets and no wax; black, yellow, green, "
            "blue and white 3 bullets and 2, 3, 4, 3 and 2 wax of their own colour), and a step of black, "
            "yellow or green wax decides more races than a pulse point of blue wax or a change of wind of "
            "white: the data cannot even them out without changing the box or the rules of wax "
            "(docs/balance.md, \"The ski colours\", measures every assignment of the counts and what pulse "
            "costs would do)")}
    return out


def scenarios(bundle: CompiledBundle) -> tuple[str, ...]:
    return tuple(bundle.trail_names)


def data_warnings(bundle: CompiledBundle) -> list:
    """Legal but degenerate data (a terrain no card can enter, a trail no race can finish within
    the round cap, a biathlete who can never hit): `validate` prints them, exit status 0."""
    from .load import data_warnings as warnings

    return warnings(bundle.data)


def summary(bundle: CompiledBundle) -> str:
    from .summary import summary as text

    return text(bundle)


# --- designs -----------------------------------------------------------------------------------

def make_design(scenario: str, racers: int = 4, *, fixed: dict | None = None, players=("default",),
                options: dict | None = None):
    """A Blast design: `fixed` may name the line-up ("biathlete": names in seat order) and the
    ski colours ("colour"); without a line-up, seats rotate through every biathlete and colour."""
    from .design import Design

    fixed = dict(fixed or {})
    unknown = set(fixed) - {"biathlete", "colour"}
    if unknown or options:
        raise ValueError(f"Biathlon Blast designs fix only biathlete and colour, and take no options "
                         f"(got {sorted(unknown) or sorted(options)})")
    bis = fixed.get("biathlete")
    cols = tuple(c.lower() for c in fixed["colour"]) if fixed.get("colour") else None
    from kernels.blast.consts import COLOUR_NAMES

    unknown = [c for c in cols or () if c not in COLOUR_NAMES]
    if unknown:
        raise ValueError(f"no ski colour named {unknown[0]!r}; known: {', '.join(COLOUR_NAMES)}")
    if cols and not bis:
        raise ValueError("ski colours are fixed only for a fixed line-up: name the biathletes too (--biathletes, "
                         "or a cell's biathletes), or leave the colours out and balanced line-ups race every "
                         "biathlete in every colour")
    return Design(scenario, racers, tuple(bis) if bis else None, tuple(cols) if cols else None,
                  tuple(players))


def describe(design) -> str:
    """One line: trail, racers, line-up, players."""
    line_up = ",".join(design.biathletes) if design.biathletes else "balanced line-ups"
    return (f"{design.trail}, {design.racers} racers, {line_up}, players "
            f"{','.join(p if isinstance(p, str) else p.name for p in design.players)}")


def check_design(bundle: CompiledBundle, design) -> None:
    design.check(bundle)


def block(bundle: CompiledBundle, design) -> int:
    """Races per balanced block of the design (a race count that is a multiple keeps every
    biathlete in every ski colour equally often); 1 for a fixed line-up."""
    return design.block(bundle)


def seats_per_race(design) -> int:
    return design.racers


def design_dict(design) -> dict:
    return _design.design_dict(design)


def design_from_dict(d: dict, players: dict | None = None):
    """The design a manifest records; `players`: the manifest's player records (kind and weights),
    so a replay plays the run's races even if a persona file has changed since."""
    return _design.design_from_manifest({"design": d, "players": players or {}})


#: weights every record keeps: all there were before the card weights of the hand and the race
#: (2026-11-28). Later weights are recorded only up to the last one off its default, so a weight
#: added at its default leaves every earlier results folder's identity as it was; a replay fills
#: the rest with the defaults (design.design_from_manifest).
RECORDED_WEIGHTS = 43


def recorded_weights(weights) -> list[float]:
    """A player's weights as a manifest records them (RECORDED_WEIGHTS)."""
    from kernels.blast.players import DEFAULT_PARAMS

    from ..contract import trimmed_weights

    return trimmed_weights(weights, DEFAULT_PARAMS, RECORDED_WEIGHTS)


def player_records(design) -> dict:
    """What decides each player's play, by name: kind, weights (recorded_weights) and where it
    was read."""
    return {p.name: {"kind": p.kind_name, "weights": recorded_weights(p.weights), "source": p.source}
            for p in design.resolved()}


def names(bundle: CompiledBundle, design) -> dict[str, list[str]]:
    return _design.table_names(bundle, design.player_names())


def play_chunk(bundle: CompiledBundle, design, seed: int, start: int, stop: int):
    return _design.play_records(bundle, design, seed, start, stop)


def replay(bundle: CompiledBundle, design, seed: int, race: int, states: bool = False) -> str:
    from .eventlog import render_log
    from .play import play_one

    setup = design.setups(bundle, seed, [race])[0]
    return render_log(bundle, play_one(bundle, setup, seed, race), states=states)


def referee(bundle: CompiledBundle, design, seed: int, race: int) -> None:
    from .play import play_one
    from .referee import referee_race

    setup = design.setups(bundle, seed, [race])[0]
    log = play_one(bundle, setup, seed, race)
    report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), log.events)
    if not report.ok:
        raise AssertionError(f"race {race} (seed {seed}): {report.message}")


def warm_designs(bundle: CompiledBundle):
    """(label, design) for each kernel entry point a command may call: the plain race loop and
    the search players' (lookahead and reference)."""
    from .design import Design

    trail = bundle.trail_names[0]
    return [("race kernel", Design(trail, 2)),
            ("look-ahead and reference players' race kernel (search)",
             Design(trail, 2, players=("lookahead",)))]


def golden_log(case: dict) -> str:
    """A golden case's text (tests/golden/blast/cases.toml): render_log of a fixed line-up
    (trail, biathletes, players, seed, race) on a data set (`data`: a folder or a shipped example
    set's name; default the shipped data)."""
    from .eventlog import render_log
    from .play import make_setup, play_one

    bundle = load_bundle(case.get("data"))
    setup = make_setup(bundle, case["trail"], case["biathletes"], players=case.get("players", "heuristic"))
    return render_log(bundle, play_one(bundle, setup, case["seed"], case["race"]))


def bench(bundle: CompiledBundle, scenarios: list[str], racers: list[int], races: int, player: str,
          seed: int = 1):
    """The `bench` hook: races per second of the bare kernel (sim/blast/bench.py)."""
    from .bench import bench as kernel_bench

    return kernel_bench(bundle, scenarios, racers, races, player, seed)


def log_with_rows(bundle: CompiledBundle, design, seed: int, race: int, rows: int):
    """One race's event log in a log of `rows` rows: a clear RuntimeError when the race needs more
    (the conformance suite checks that capacities are checked, never written past)."""
    from .play import play_one

    setup = design.setups(bundle, seed, [race])[0]
    return play_one(bundle, setup, seed, race, log_cap=rows).events


# --- players: ladders and tuning -------------------------------------------------------------

class Roster:
    """Blast's players for ladders and tuning (sim.ladder, sim.tune: the `roster()` hook).

    An arrangement (one player per seat) plays a design with balanced line-ups (every biathlete
    in every ski colour in every seat over a block), so every arrangement playing race r of a
    seed meets the same biathletes, colours and dice: only the players differ."""

    game = "blast"
    scenario = "trail"
    reserved = ("random", "scripted", "heuristic", "default")

    #: the weights `tune` moves, in kernels' P_* order: not progress (the unit of the move score:
    #: scaling every score weight together changes no choice), not the search players' rollouts,
    #: place_credit and depth, not worth_flat (the unit of a card's worth), not the switch
    #: coach_first (0 is dominated: docs/players.md)
    tuned = ("pulse", "pulse_high", "high_from", "band", "icy", "wax", "bullet_reserve", "wait_gain",
             "coach", "late_wax", "wind_spite", "pickup_hand", "wait_max", "pickup_discard",
             "pickup_bullets", "white_calm", "worth_uphill", "worth_downhill", "worth_pulse", "worth_icy",
             "worth_wind", "wind_ahead", "band_window")

    #: the initial spread of each weight in a tuning: about a third of a plausible value, a pulse
    #: point or two for high_from, a whole token for the counts (bullet_reserve and pickup_hand act
    #: on whole numbers)
    spread = {
        "progress": 0.3, "pulse": 0.15, "pulse_high": 0.1, "high_from": 1.5, "band": 0.3, "icy": 0.75,
        "wax": 0.5, "bullet_reserve": 1.0, "wait_gain": 0.4, "coach": 0.2, "late_wax": 0.15,
        "wind_spite": 0.4, "pickup_hand": 1.0, "wait_max": 1.0, "pickup_discard": 1.0, "pickup_bullets": 1.0,
        "white_calm": 1.0, "worth_uphill": 0.4, "worth_flat": 0.3, "worth_downhill": 0.2, "worth_pulse": 0.2,
        "worth_icy": 0.4, "worth_wind": 0.2, "wind_ahead": 1.5, "coach_first": 1.0, "band_window": 2.0,
        # the distilled card weights (not in `tuned`: pass them as tune(weights=...)); a weight
        # times its feature is in spaces of progress, so about a third of a space per feature unit
        "card_worth": 0.3, "card_init": 0.2, "card_gain": 0.3, "card_pulse": 0.3, "card_steps": 0.3,
        "card_icy": 1.0, "card_wind": 0.5,
        "mat_worth": 0.3, "mat_init": 0.2, "mat_gain": 0.3, "mat_pulse": 0.3, "mat_steps": 0.3,
        "mat_icy": 1.0, "mat_wind": 0.5,
        "card_top": 0.3, "card_late": 0.3, "card_late_gain": 0.3,
        "mat_top": 0.3, "mat_late": 0.3, "mat_late_gain": 0.3,
    }

    def __init__(self):
        from kernels.blast.players import PARAM_NAMES

        from .players import PERSONA_DIR, WEIGHTS

        self.persona_dir = PERSONA_DIR
        self.param_names = PARAM_NAMES
        self.weights = WEIGHTS

    @staticmethod
    def available() -> dict:
        from .players import available

        return available()

    @staticmethod
    def resolve(player, known=None):
        from .players import resolve

        return resolve(player, known)

    @staticmethod
    def check(bundle: CompiledBundle, scenario: str, arrangement, options: dict | None = None) -> None:
        from .design import Design

        if options:
            raise ValueError(f"Biathlon Blast takes no options, got {sorted(options)}")
        Design(scenario, len(arrangement), players=tuple(arrangement)).check(bundle)

    @staticmethod
    def block(bundle: CompiledBundle, scenario: str, racers: int, options: dict | None = None) -> int:
        from kernels.blast.consts import N_COLOURS

        return len(bundle.biathlete_names) * N_COLOURS

    @staticmethod
    def play(bundle: CompiledBundle, seed: int, pieces, names: list[str], options: dict | None = None):
        """The seat records of the pieces (arrangement index, trail, arrangement, first race, end
        race), played as one block, their player ids indexing `names`; each record's arrangement."""
        from .design import Design
        from .play import play_block

        setups, races, index = [], [], []
        for i, trail, arrangement, start, stop in pieces:
            design = Design(trail, len(arrangement), players=tuple(arrangement))
            r = np.arange(start, stop, dtype=np.int64)
            setups += design.setups(bundle, seed, r)
            races.append(r)
            index.append(np.full(len(r) * design.racers, i, np.int32))
        return play_block(bundle, setups, seed, np.concatenate(races), names), np.concatenate(index)

    @staticmethod
    def table(bundle: CompiledBundle, records: np.ndarray, names: list[str]):
        return _design.results_table(bundle, records, names)

    @staticmethod
    def kind_name(player) -> str:
        return player.kind_name

    @staticmethod
    def recorded_weights(player) -> list[float]:
        return recorded_weights(player.weights)

    @staticmethod
    def heuristic(player) -> bool:
        from kernels.blast.players import HEURISTIC

        return player.kind == HEURISTIC

    @staticmethod
    def with_weights(player, name: str, weights, description: str | None = None):
        from .players import Player

        p = player.with_weights(name, weights)
        return p if description is None else Player(p.name, p.kind, p.weights, description, "")

    @staticmethod
    def description(player) -> str:
        return player.description

    @staticmethod
    def source(player) -> str | None:
        return player.source

    @staticmethod
    def write_persona(player, path, note: str = "", description: str | None = None) -> None:
        from .players import write_persona

        write_persona(player, Path(path), description=description or "", note=note)


def roster() -> Roster:
    """The players hook of sim.ladder and sim.tune (see Roster)."""
    return Roster()
