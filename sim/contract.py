"""The contract between the shared code and a game: what a game module provides (`GameModule`), and
what the players hook of a game with players provides (`Roster`).

A game is a module, not an object (docs/core.md, "The registry"): its registration in sim.games
names it, and the shared code calls these functions on it. `Bundle` and `Design` are the game's
own types (a compiled data bundle, a frozen dataclass of who races how); the shared code only
passes them back to the game, pickles them to workers and reads the fields named here.
`tests/conformance.py` checks every registered game against these protocols: every member present,
every function taking the parameters named here, and the behaviour the docstrings promise.

Two plain attributes are optional, with a default where a module has none (sim/compare.py reads
them): `COMPONENTS` (seat column -> what it counts: the per-racer counts `compare` pairs as
component use; default none, rounds per race is always paired) and `AXIS_WORDS` (seat axis ->
(word, label pattern such as "{} skis"); default the column's name and the value alone).
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

Bundle = Any      # the game's compiled data: .data_hash (str) and .data.source (where it was read)
Design = Any      # the game's design: .racers; picklable; equal designs play equal races


@runtime_checkable
class GameModule(Protocol):
    """Every game module (sim/blast/game.py, sim/mania/game.py, sim/skitour/game.py)."""

    SEAT_DTYPE: Any        # numpy dtype: kernels.records' core seat fields (scenario named in the game's word), then the game's
    VISIT_DTYPE: Any       # numpy dtype: the core visit fields, then the game's
    LABELS: dict           # column -> code labels of its coded columns (elim_cause, ...)

    def default_data_dir(self) -> Path:
        """The shipped data directory."""

    def load_bundle(self, data=None, patches=()) -> Bundle:
        """The compiled bundle of a data directory (None: the shipped one) with patches applied;
        sim.validation.DataError listing every problem of bad data."""

    def scenarios(self, bundle: Bundle) -> tuple[str, ...]:
        """The names of the trails, tracks or courses."""

    def summary(self, bundle: Bundle) -> str:
        """What `validate` prints for good data."""

    def make_design(self, scenario: str, racers: int = 4, *, fixed=None, players=("balanced",),
                    options=None) -> Design:
        """A design: `fixed` maps a seat axis to values in seat order (a fixed line-up; None:
        balanced, every value rotated through every seat); `options` the game's (defaults filled
        in); ValueError (one line) for what the game does not take."""

    def check_design(self, bundle: Bundle, design: Design) -> None:
        """ValueError (one line) for a design the data cannot play."""

    def describe(self, design: Design) -> str:
        """The design in one line (study --dry-run)."""

    def seats_per_race(self, design: Design) -> int:
        """Seat rows a race of the design has (a relay: teams x legs)."""

    def block(self, bundle: Bundle, design: Design) -> int:
        """Races per balanced block: over races k*block .. (k+1)*block-1 every value of every seat
        axis sits in every seat equally often (1 for a fixed line-up); race counts round up to it."""

    def design_dict(self, design: Design) -> dict:
        """The design as the manifest records it (JSON types only)."""

    def design_from_dict(self, d: dict, players: dict | None = None) -> Design:
        """The design back from design_dict and player_records: equal to the one recorded."""

    def player_records(self, design: Design) -> dict:
        """What decides each player's play, by player name: kind and weights (JSON types only)."""

    def names(self, bundle: Bundle, design: Design) -> dict[str, list[str]]:
        """Labels of the id columns of a table (scenario, the axes, player, ...)."""

    def play_chunk(self, bundle: Bundle, design: Design, seed: int, start: int, stop: int):
        """(seats, visits): structured arrays of SEAT_DTYPE and VISIT_DTYPE for races start ..
        stop-1; race r depends on (seed, r) only, never on the chunk."""

    def warm_designs(self, bundle: Bundle) -> list[tuple[str, Design]]:
        """(label, design) for each kernel entry point a command may call (`biathlon-sim compile`
        plays one race of each)."""

    def replay(self, bundle: Bundle, design: Design, seed: int, race: int, states: bool = False) -> str:
        """One race as a designer reads it."""

    def log_with_rows(self, bundle: Bundle, design: Design, seed: int, race: int, rows: int):
        """The race's event log in `rows` rows at most; RuntimeError naming the capacity ("more
        than N rows") when it needs more, never written past."""

    def referee(self, bundle: Bundle, design: Design, seed: int, race: int) -> None:
        """Replays the race's event log through the game's independent referee; AssertionError
        naming the first disagreement."""

    def golden_log(self, case: dict) -> str:
        """The text of a golden case (one entry of the game's golden/cases.toml, file name
        removed): a fixed race as its golden file holds it, compared line by line by the one
        golden-log runner (tests/conformance.py)."""


@runtime_checkable
class Roster(Protocol):
    """The players hook (`roster()` of a game with players): sim.ladder and sim.tune resolve
    players with it, seat them and play. An arrangement is one player per seat."""

    game: str                  # the game's name
    scenario: str              # the scenario column's name
    reserved: tuple            # player names a persona file may not take
    persona_dir: Path          # where the shipped personas are
    param_names: tuple         # the weights of a player, in order
    weights: dict              # weight -> (lowest, highest)
    tuned: tuple               # the weights `tune` moves
    spread: dict               # weight -> initial spread of a tuning

    def available(self) -> dict:
        """The players by name."""

    def resolve(self, player, known=None):
        """A player from a name, a persona file or a player; KeyError or ValueError for an unknown one."""

    def check(self, bundle: Bundle, scenario: str, arrangement, options=None) -> None:
        """ValueError for an arrangement the data cannot play."""

    def block(self, bundle: Bundle, scenario: str, racers: int, options=None) -> int:
        """Races per balanced block of line-ups."""

    def play(self, bundle: Bundle, seed: int, pieces, names: list[str], options=None):
        """(records, arrangement index per row) of the pieces (arrangement index, scenario,
        arrangement, first race, end race), player ids indexing `names`."""

    def table(self, bundle: Bundle, records, names: list[str]):
        """The results table of `play`'s records."""

    def kind_name(self, player) -> str: ...

    def recorded_weights(self, player) -> list:
        """The player's weights as a results folder's identity records them (a weight added later at
        its default may be left out, so that earlier folders stay extensible)."""

    def heuristic(self, player) -> bool: ...

    def with_weights(self, player, name: str, weights, description=None): ...

    def description(self, player) -> str: ...

    def source(self, player) -> str | None: ...

    def write_persona(self, player, path, note: str = "", description=None) -> None: ...


def trimmed_weights(weights, defaults, always: int) -> list[float]:
    """A player's weights as a results folder's identity records them (Roster.recorded_weights):
    the first `always`, then later ones only up to the last off its default, so that a weight added
    at its default leaves the folders written before it extensible (a replay gives the weights left
    out their defaults)."""
    w = [float(x) for x in weights]
    while len(w) > always and w[-1] == float(defaults[len(w) - 1]):
        w.pop()
    return w


def filled_weights(recorded, defaults) -> tuple[float, ...]:
    """A recorded player's weights (trimmed_weights) whole again: the weights left out, or added
    since the record was written, at their defaults (the constants the player used before them)."""
    w = [float(x) for x in recorded]
    return tuple(w + [float(x) for x in defaults[len(w):]])


#: the optional hooks' signatures (sim.games.HOOKS says what each is for)
class Hooks(Protocol):
    def roster(self) -> Roster: ...

    def report_params(self, bundle: Bundle) -> dict: ...

    def data_warnings(self, bundle: Bundle) -> list[str]: ...

    def bench(self, bundle: Bundle, scenarios: list[str], racers: list[int], races: int, player: str,
              seed: int = 1): ...


def _parameters(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def _members(protocol) -> dict[str, Any]:
    return {k: v for k, v in vars(protocol).items() if not k.startswith("_")}


def breaches(obj, protocol, only: tuple[str, ...] | None = None) -> list[str]:
    """What `obj` (a game module, a roster) lacks of `protocol`: a member missing, or a function
    whose parameters are not the protocol's (names in order); [] when it conforms. `only`: check
    these members alone (the optional hooks a game declares)."""
    out = []
    names = set(protocol.__annotations__) | {k for k, v in _members(protocol).items() if callable(v)}
    for name in sorted(names if only is None else set(only)):
        if not hasattr(obj, name):
            out.append(f"no {name}")
            continue
        want = _members(protocol).get(name)
        if callable(want):
            have = getattr(obj, name)
            if not callable(have):
                out.append(f"{name} is not a function")
            elif _parameters(have) != _parameters(want):
                out.append(f"{name}({', '.join(_parameters(have))}) should take ({', '.join(_parameters(want))})")
    return out


__all__ = ["GameModule", "Roster", "Hooks", "breaches", "trimmed_weights", "filled_weights", "Bundle", "Design"]
