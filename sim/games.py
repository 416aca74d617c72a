"""The game registry: one place lists the games, and each game declares what the shared code needs.

Shared modules (this one, sim.store, sim.runner, the conformance tests) never import a game
package: they ask the registry. A game registers a `GameInfo` (cheap: names, bounds, axes, option
choices) and the dotted path of its module; the module, which imports the game's kernels, is loaded
only when a command needs it (`game(name).load()`). OpenSpiel registers its games the same way
(`pyspiel.register_game(GameType, factory)`).

What a game module provides (see sim/blast/game.py, sim/mania/game.py):

    default_data_dir() -> Path
    load_bundle(data: str | Path | None, patches=()) -> bundle     (DataError on bad data)
        bundle.data_hash: str; bundle.data.source: where the data was read
    scenarios(bundle) -> tuple[str, ...]          the names of the trails, tracks or courses
    summary(bundle) -> str                       what `validate` prints for good data
    SEAT_DTYPE, VISIT_DTYPE                      kernels.records dtypes: core fields + the game's
    LABELS: dict[str, list[str]]                 code labels of coded core/game columns (elim_cause, ...)
    make_design(scenario, racers, *, fixed=None, players=("balanced",), options=None) -> design
    seats_per_race(design) -> int                seat rows a race of the design has (a relay: teams x legs)
    block(bundle, design) -> int                 races per balanced block (race counts are rounded up to it)
    check_design(bundle, design) -> None         ValueError (one line) for a design the data cannot play
    describe(design) -> str                      the design in one line (study --dry-run)
    design_dict(design) -> dict, design_from_dict(d) -> design     the manifest's form and back
    names(bundle, design) -> dict[column, list[str]]             labels of the id columns of a table
    play_chunk(bundle, design, seed, start, stop) -> (seats, visits)     structured arrays
    warm_designs(bundle) -> [(label, design)]    a design for each kernel entry point (biathlon-sim compile)
    replay(bundle, design, seed, race) -> str    one race as a readable log
    log_with_rows(bundle, design, seed, race, rows) -> log    the race's event log in `rows` rows at
                                                 most; RuntimeError naming the capacity when it needs more
    referee(bundle, design, seed, race) -> None  replays the race's event log through the game's
                                                 independent referee; raises on any disagreement

Optional (a game without it refuses the command in one line):

    roster() -> Roster                           the players of a game with players (Blast, Ski Tour):
                                                 sim.ladder and sim.tune ask it to resolve players, seat
                                                 them and play; see sim/blast/game.py's Roster
    report_params(bundle) -> dict, data_warnings(bundle) -> list[str]     extra report inputs

Optional (a game without it gets the default):

    COMPONENTS: dict[column, str]                seat columns whose per-racer mean per race `compare`
                                                 pairs as component use, with what each counts
                                                 (default: none; rounds per race is always paired)
    AXIS_WORDS: dict[axis, (word, pattern)]      the box's word for a seat axis in compare's rows
                                                 and the pattern of a row's label ("{} skis");
                                                 default: the column name and the value alone
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType


@dataclass(frozen=True)
class GameInfo:
    """What the shared code knows about a game without loading it.

    name: the command-line name (`--game NAME`); title: the box title.
    scenario: the game's word for where a race is run (Blast's trail, Ski Tour's course, Mania's
    track); the core record's scenario column carries this name in the game's tables.
    racers: (fewest, most) racers a race can have. axes: the columns along which seats differ,
    entrant first (Blast: biathlete, ski colour; Ski Tour: nation; Mania: figure colour); balanced
    designs rotate every value of every axis through every seat. teams: whether races may have
    teams (relays). options: option name -> allowed values, the first the default (Mania's format).
    module: the dotted path of the game's module (see this module's docstring); `load()` imports it.
    """

    name: str
    title: str
    scenario: str
    racers: tuple[int, int]
    axes: tuple[str, ...]
    module: str
    teams: bool = False
    options: dict[str, tuple] = field(default_factory=dict)
    commands: tuple[str, ...] = ()        # game-only commands (Blast's worldcup)
    players: bool = True                  # whether seats are played by players (personas); Mania's by the dice
    data_marks: tuple[str, ...] = ()      # files or folders only this game's data directory has
    scenarios: tuple[str, ...] = ()       # the shipped data's scenarios, for help (a test holds them to the data)
    compile_note: str = ""                # how long a first compile of the kernels takes, measured

    @property
    def entrant(self) -> str:
        """The column whose balance the reports measure first (the first axis)."""
        return self.axes[0]

    def check_racers(self, racers: int) -> None:
        lo, hi = self.racers
        if not lo <= racers <= hi:
            raise ValueError(f"{self.title} races have {lo} to {hi} racers, got {racers}")

    def check_options(self, options: dict | None) -> dict:
        """The options with defaults filled in; ValueError naming an unknown option or value."""
        options = dict(options or {})
        for key, value in options.items():
            if key not in self.options:
                known = ", ".join(self.options) or "none"
                raise ValueError(f"{self.title} has no option {key!r} (options: {known})")
            if value not in self.options[key]:
                raise ValueError(f"option {key} must be one of {', '.join(map(str, self.options[key]))}, "
                                 f"got {value!r}")
        return {k: options.get(k, v[0]) for k, v in self.options.items()}

    def load(self) -> ModuleType:
        """The game's module (imports its kernels on first use)."""
        return importlib.import_module(self.module)


_GAMES: dict[str, GameInfo] = {}
DEFAULT = "blast"


def register(info: GameInfo) -> GameInfo:
    if info.name in _GAMES and _GAMES[info.name] != info:
        raise ValueError(f"a game named {info.name!r} is registered already")
    _GAMES[info.name] = info
    return info


def whose_data(path) -> GameInfo | None:
    """The game whose data directory `path` looks like (it holds every one of that game's marks
    and no other game's), or None."""
    from pathlib import Path

    if path is None or not Path(path).is_dir():
        return None
    found = [g for g in _GAMES.values() if g.data_marks and all((Path(path) / m).exists() for m in g.data_marks)]
    return found[0] if len(found) == 1 else None


def wrong_game(info: GameInfo, path) -> str:
    """One line when `path` is another game's data directory ('' otherwise): whose it is and what
    to pass instead."""
    owner = whose_data(path)
    if owner is None or owner.name == info.name:
        return ""
    return (f"{path} is a {owner.title} data directory, not one of {info.title}: pass --game {owner.name} "
            f"(or, in a study file, game = \"{owner.name}\"), or give a {info.title} data directory")


def names() -> list[str]:
    return list(_GAMES)


def game(name: str | None = None) -> GameInfo:
    """The registered game called `name` (default: Blast); ValueError naming the known games."""
    name = DEFAULT if name is None else name
    try:
        return _GAMES[name]
    except KeyError:
        raise ValueError(f"no game named {name!r}; the games are {', '.join(_GAMES)}") from None


# The games. Their modules load on first use.
register(GameInfo("blast", "Biathlon Blast", "trail", (2, 6), ("biathlete", "colour"), "sim.blast.game",
                  commands=("worldcup",), data_marks=("biathletes", "cards.toml"),
                  scenarios=("Lang", "Kurz", "Short", "Long"),
                  compile_note="about 40 s on 2 cores; a look-ahead player's kernels about 2 minutes more"))
register(GameInfo("mania", "Biathlon Mania", "track", (1, 8), ("colour",), "sim.mania.game", teams=True,
                  options={"format": ("sprint", "mass_start", "relay"), "legs": (4, 1, 2, 3),
                           "number_dice": (1, 2), "shooting_dice": (1, 2)},
                  players=False, data_marks=("tracks",), scenarios=("red", "yellow"), compile_note="about 10 s"))
register(GameInfo("skitour", "Ski Tour: Biathlon", "course", (2, 5), ("nation",), "sim.skitour.game",
                  options={"variant": ("standard", "two_player"), "side": ("basic", "advanced")},
                  data_marks=("nations", "courses.toml"), scenarios=("Starter", "Long"),
                  compile_note="about 2 to 5 minutes"))

__all__ = ["GameInfo", "register", "names", "game", "whose_data", "wrong_game", "DEFAULT"]
