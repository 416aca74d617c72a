"""The game registry: one place lists the games, and each game declares here, once, what the shared
code needs to know of it.

Shared modules (this one, sim.store, sim.runner, sim.run, sim.bench, the conformance tests) never
import a game package: they ask the registry. A game registers a `GameInfo` (cheap: names, bounds,
axes, option choices, its players, its report layout, its help examples, its game-only commands,
the optional hooks its module has) and the dotted path of its module; the module, which imports
the game's kernels, is loaded only when a command needs it (`game(name).load()`). OpenSpiel
registers its games the same way (`pyspiel.register_game(GameType, factory)`).

What a game module provides is stated by the protocols in sim/contract.py (`GameModule`, and
`Roster` for the players hook); tests/conformance.py checks every registered game against them
(docs/core.md, "The registry", says how to add a game).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType


@dataclass(frozen=True)
class GameInfo:
    """What the shared code knows about a game without loading it: everything a game declares,
    in one place.

    name: the command-line name (`--game NAME`); title: the box title.
    scenario: the game's word for where a race is run (Blast's trail, Ski Tour's course, Mania's
    track); the core record's scenario column carries this name in the game's tables.
    racers: (fewest, most) racers a race can have. axes: the columns along which seats differ,
    entrant first (Blast: biathlete, ski colour; Ski Tour: nation; Mania: figure colour); balanced
    designs rotate every value of every axis through every seat, and `run` and `replay` take a
    fixed line-up along each (`--biathletes`, `--colours`, `--nations`: the axis and an s).
    module: the dotted path of the game's module (sim.contract.GameModule); `load()` imports it.
    teams: whether races may have teams (relays). options: option name -> allowed values, the
    first the default (Mania's format).
    commands: the game-only commands it serves (Blast's worldcup): a command that some game lists
    here is refused by every game that does not (`serving`).
    players: the players a ladder ranks when none are named (random and the shipped personas);
    empty for a game whose seats are played by the dice (Mania): it has no `roster` hook, and
    `ladder` and `tune` refuse it. default_player: the player of every seat a design names none for.
    layout: "module:function" of the game's report layout (reports.report's `core_layout`
    signature); empty: the core sections only.
    examples: command -> example command lines its help shows under `--game NAME`.
    hooks: the optional hooks (HOOKS) its module provides; a hook not named here is never called.
    data_doc: the page that describes its data files; data_summary: what `validate` summarises.
    data_marks: files or folders only this game's data directory has (`whose_data`).
    scenarios: the shipped data's scenarios, for help. compile_note: a first compile's measured time.
    """

    name: str
    title: str
    scenario: str
    racers: tuple[int, int]
    axes: tuple[str, ...]
    module: str
    teams: bool = False
    options: dict[str, tuple] = field(default_factory=dict)
    commands: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    default_player: str = "balanced"
    layout: str = ""
    examples: dict[str, str] = field(default_factory=dict)
    hooks: tuple[str, ...] = ()
    data_doc: str = ""
    data_summary: str = ""
    data_marks: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    compile_note: str = ""

    def __post_init__(self):
        unknown = sorted(set(self.hooks) - set(HOOKS))
        if unknown:
            raise ValueError(f"{self.name}: no optional hook named {unknown[0]!r}; the hooks are {', '.join(HOOKS)}")
        if bool(self.players) != ("roster" in self.hooks):
            raise ValueError(f"{self.name}: a game with players has the roster hook, and only such a game")

    def hook(self, name: str):
        """The module's optional hook `name` (HOOKS) if this game declares it, else None."""
        if name not in HOOKS:
            raise KeyError(f"no optional hook named {name!r}; the hooks are {', '.join(HOOKS)}")
        return getattr(self.load(), name) if name in self.hooks else None

    def serves(self, command: str) -> bool:
        """Whether `command` serves this game (see `serving`)."""
        return self in serving(command)

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


#: the optional hooks a game module may have (sim.contract says their signatures); a game names
#: those it has in GameInfo.hooks
HOOKS = {
    "roster": "the players hook of sim.ladder and sim.tune (sim.contract.Roster): every game with players",
    "report_params": "report_params(bundle) -> dict: report inputs that live in the data (default {})",
    "data_warnings": "data_warnings(bundle) -> list[str]: legal but degenerate data, printed by validate (default [])",
    "bench": "bench(bundle, scenarios, racers, races, player, seed) -> DataFrame: `bench` through the bare "
             "kernel, where the game's own differs from play_chunk's (default: sim.bench.bench_game)",
}
#: commands served by the games with players (those with the roster hook)
PLAYER_COMMANDS = ("ladder", "tune", "blunders")

_GAMES: dict[str, GameInfo] = {}
DEFAULT = "blast"


def register(info: GameInfo) -> GameInfo:
    if info.name in _GAMES and _GAMES[info.name] != info:
        raise ValueError(f"a game named {info.name!r} is registered already")
    _GAMES[info.name] = info
    return info


def unregister(name: str) -> None:
    """Forget a game (a test's game, registered for the length of its tests)."""
    _GAMES.pop(name, None)


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


def with_players() -> list[GameInfo]:
    """The games whose seats are played by players (ladders and tuning serve them)."""
    return [g for g in _GAMES.values() if g.players]


def serving(command: str) -> list[GameInfo]:
    """The games `command` serves: for `ladder` and `tune` the games with players; for a command
    some game lists among its `commands`, the games that list it; every game otherwise."""
    if command in PLAYER_COMMANDS:
        return with_players()
    claimed = [g for g in _GAMES.values() if command in g.commands]
    return claimed or list(_GAMES.values())


def game(name: "str | GameInfo | None" = None) -> GameInfo:
    """The registered game called `name` (default: Blast); ValueError naming the known games. A
    GameInfo is its own answer: tasks carry it to worker processes, which then need no registry."""
    if isinstance(name, GameInfo):
        return name
    name = DEFAULT if name is None else name
    try:
        return _GAMES[name]
    except KeyError:
        raise ValueError(f"no game named {name!r}; the games are {', '.join(_GAMES)}") from None


# The games. Their modules load on first use.
register(GameInfo(
    "blast", "Biathlon Blast", "trail", (2, 6), ("biathlete", "colour"), "sim.blast.game",
    commands=("worldcup",),
    players=("random", "balanced", "distilled", "sprinter", "conservative", "sharpshooter"),
    default_player="distilled", layout="reports.report:blast_layout",
    hooks=("roster", "report_params", "data_warnings", "bench"),
    examples={
        "run": "  biathlon-sim run --trail Kurz --racers 4 --races 100000 --out runs/kurz4\n"
               "  biathlon-sim run --trail Lang --biathletes Owens,Olsson --players heuristic,random --races 5000",
        "replay": "  biathlon-sim replay --trail Kurz --biathletes Owens,Olsson,Wei,Pinto --seed 1 --race 17\n"
                  "  biathlon-sim replay --trail Lang --biathletes Owens,Wei --colours blue,white \\\n"
                  "      --players heuristic,random --seed 3 --race 0\n"
                  "  biathlon-sim replay --trail Kurz --racers 4 --seed 1 --race 17   # race 17 of such a run\n"
                  "  biathlon-sim replay --run runs/kurz4 --race 1234     # a race of a bulk run, exactly\n"
                  "  biathlon-sim replay --run runs/smoke --cell duel --race 5",
        "bench": "  biathlon-sim bench --trail Kurz --racers 4\n"
                 "  biathlon-sim bench --races 5000 --racers 2,4,6 --players random\n"
                 "  biathlon-sim bench --trail Kurz --racers 4 --scaling 1,2 --scaling-races 1000000",
        "ladder": "  biathlon-sim ladder --trail Kurz --races 40000 --jobs 2\n"
                  "  biathlon-sim ladder --players random,balanced,sprinter,conservative,sharpshooter \\\n"
                  "      --trail Kurz --racers 4 --races 40000 --seed 1 --jobs 2 --out ladder.csv\n"
                  "  biathlon-sim ladder --vs balanced,random --trail Kurz --races 4000\n"
                  "  biathlon-sim ladder --vs lookahead,balanced --trail Kurz --races 3000 --jobs 2\n"
                  "  biathlon-sim ladder --vs my-persona.toml,balanced --trail Lang --races 20000",
        "blunders": "  biathlon-sim blunders --players balanced,distilled --races 2500 --by-scenario --jobs 2\n"
                    "  biathlon-sim blunders --players random,sprinter,conservative,sharpshooter,tuned --races 250",
        "tune": "  biathlon-sim tune --start balanced --trail Kurz,Lang --generations 16 --population 24 \\\n"
                "      --races-per-candidate 4000 --seed 7 --jobs 2 --out sim/data/players/blast/tuned.toml\n"
                "  biathlon-sim tune --start balanced --vs reference --trail Kurz --generations 6 \\\n"
                "      --population 12 --races-per-candidate 480 --check-races 960 --jobs 2 --out vs-reference.toml\n"
                "  biathlon-sim tune --start sprinter --trail Short --generations 4 --population 8 \\\n"
                "      --races-per-candidate 800 --out my-sprinter.toml --name my-sprinter\n"
                "  biathlon-sim ladder --vs my-sprinter.toml,sprinter --trail Short --races 20000",
    },
    data_doc="docs/data-format.md",
    data_summary="biathletes with their bibs, card counts, each trail's length, range and start-line positions "
                 "and coach zones",
    data_marks=("biathletes", "cards.toml"), scenarios=("Lang", "Kurz", "Short", "Long"),
    compile_note="about 40 s on 2 cores; a look-ahead player's kernels about 2 minutes more"))
register(GameInfo(
    "mania", "Biathlon Mania", "track", (1, 8), ("colour",), "sim.mania.game", teams=True,
    options={"format": ("sprint", "mass_start", "relay"), "legs": (4, 1, 2, 3), "number_dice": (1, 2),
             "shooting_dice": (1, 2)},
    commands=("exact",), default_player="dice", layout="reports.report:mania_layout",
    examples={
        "run": "  biathlon-sim --game mania run --track red --racers 6 --races 100000 --out runs/mania6\n"
               "  biathlon-sim --game mania run --track yellow --format relay --racers 4 --races 20000",
        "replay": "  biathlon-sim --game mania replay --track red --racers 4 --seed 1 --race 3\n"
                  "  biathlon-sim --game mania replay --track yellow --format relay --racers 3 --race 0\n"
                  "  biathlon-sim --game mania replay --run runs/mania6 --race 12",
        "bench": "  biathlon-sim --game mania bench --track red,yellow --racers 4,8\n"
                 "  biathlon-sim --game mania bench --track red --format relay --racers 4",
    },
    data_doc="docs/mania/data-format.md",
    data_summary="the dice, the formats and each track's squares, range, penalty loop and finish area",
    data_marks=("tracks",), scenarios=("red", "yellow"), compile_note="about 10 s"))
register(GameInfo(
    "skitour", "Ski Tour: Biathlon", "course", (2, 5), ("nation",), "sim.skitour.game",
    options={"variant": ("standard", "two_player"), "side": ("basic", "advanced")},
    players=("random", "balanced", "steady", "sprinter", "sharpshooter"),
    layout="reports.report:skitour_layout", hooks=("roster",),
    examples={
        "replay": "  biathlon-sim --game skitour replay --course Starter --racers 3 --seed 1 --race 2\n"
                  "  biathlon-sim --game skitour replay --run runs/skitour --cell basic-Starter-4 --race 7",
        "bench": "  biathlon-sim --game skitour bench --course Starter --racers 3,5 --races 2000",
        "ladder": "  biathlon-sim --game skitour ladder --course Starter --races 20000 --jobs 2\n"
                  "  biathlon-sim --game skitour ladder --vs lookahead,balanced --course Long --side advanced",
        "blunders": "  biathlon-sim --game skitour blunders --players balanced --races 5000 --by-scenario\n"
                    "  biathlon-sim --game skitour blunders --players steady,sprinter,sharpshooter --races 500",
        "tune": "  biathlon-sim --game skitour tune --start balanced --course Starter,Long --generations 4 \\\n"
                "      --population 8 --races-per-candidate 2000 --out my-skitour.toml",
    },
    data_doc="docs/skitour/data-format.md",
    data_summary="the nations, the tiles and each course's length and shooting ranges",
    data_marks=("nations", "courses.toml"), scenarios=("Starter", "Long"), compile_note="about 2 to 5 minutes"))

__all__ = ["GameInfo", "HOOKS", "PLAYER_COMMANDS", "register", "unregister", "names", "game", "with_players", "serving",
           "whose_data", "wrong_game", "DEFAULT"]
