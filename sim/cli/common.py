"""What every command shares: failing with one line and exit status 2, loading data or listing its
problems, the options several commands spell the same way."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..validation import DataError

EXIT_BAD_DATA = 2


def fail(command: str, message: str) -> int:
    """One line naming the command and what was expected; the exit status for bad input."""
    print(f"biathlon-sim {command}: {message}", file=sys.stderr)
    return EXIT_BAD_DATA


#: what an operating-system error means to someone running a command, in words (no errno number)
_OS_WORDS = {
    "ENOSPC": "the disk is full; free some space and run the same command again (a run or study with --out "
              "resumes where it stopped)",
    "EDQUOT": "the disk quota is used up; free some space and run the same command again",
    "EACCES": "permission denied: choose a folder you may write",
    "EPERM": "permission denied: choose a folder you may write",
    "ENOENT": "no such file or folder",
    "EROFS": "the file system is read-only: choose another folder",
    "EISDIR": "is a folder, where a file was expected",
    "ENOTDIR": "a part of the path is a file, where a folder was expected",
    "EEXIST": "already exists",
    "EIO": "the disk could not be read or written (input/output error)",
}


def reason(exc: BaseException) -> str:
    """One line for an error a command refuses with: a library's message as it is; an operating
    system's error as the file it concerns and what went wrong in words, never an errno number."""
    import errno

    if isinstance(exc, OSError) and (exc.errno is not None or exc.strerror):
        name = errno.errorcode.get(exc.errno, "")
        what = _OS_WORDS.get(name, (exc.strerror or type(exc).__name__).lower())
        where = exc.filename if exc.filename is not None else ""
        return f"{where}: {what}" if where else what
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    text = str(exc.args[0]) if len(exc.args) == 1 else str(exc)
    return text or type(exc).__name__


def load_or_report(data, patches=(), game: str | None = None):
    """The compiled bundle of a data directory of `game` (default Blast; with patches: a data
    variant), or None after printing one line per problem."""
    from .. import games

    info = games.game(game)
    try:
        return info.load().load_bundle(data, patches)
    except DataError as exc:
        whose = games.wrong_game(info, _data_dir(data))
        if whose:
            print(f"biathlon-sim: {whose}", file=sys.stderr)
        else:
            print_problems(data or "the shipped data", exc)
        return None


def _data_dir(data):
    """The folder a --data value names (a shipped example set's name resolves to its folder)."""
    if data is None:
        return None
    if Path(data).is_dir():
        return data
    shipped = Path(__file__).resolve().parent.parent / "data" / "examples" / str(data)
    return shipped if shipped.is_dir() else data


def only_for(args: argparse.Namespace, command: str) -> int | None:
    """None when `command` serves the chosen game (sim.games.serving: the registrations say), else
    the exit status after one line saying which games it serves."""
    from .. import games

    info = games.game(getattr(args, "game", None))
    if info.serves(command):
        return None
    titles = ", ".join(g.title for g in games.serving(command))
    return fail(command, f"{command} supports {titles} so far, not {info.title}")


def print_problems(where, exc: DataError) -> int:
    """Every problem of a DataError, one line each, under a heading naming where they are."""
    print(f"{where}: {len(exc.problems)} problem(s) found:", file=sys.stderr)
    for p in exc.problems:
        print(str(p), file=sys.stderr)
    return EXIT_BAD_DATA


def split_list(text: str | None) -> list[str] | None:
    """'Owens, Olsson,Wei' -> ['Owens', 'Olsson', 'Wei']; None stays None."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def data_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, metavar="DIR", help="data directory, or the name of a shipped example set such as blast-unbalanced (default: the shipped data)")


def jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=jobs_value, default=1, help="worker processes (-1: all cores)")


def scenario_words() -> list[str]:
    """Every game's word for where a race is run (sim.games: GameInfo.scenario)."""
    from .. import games

    return list(dict.fromkeys(games.game(g).scenario for g in games.names()))


def scenario_option(p: argparse.ArgumentParser, info, dest: str, several: bool, default=None,
                    required: bool = False, more: str = "") -> None:
    """The option naming where races are run, in the chosen game's word and in the singular
    (--trail, --track, --course) whatever the command; `several`: a comma list is allowed. The
    plural of the same word is understood too (commands once spelled it so); another game's word
    is refused with one line that says the game's own."""
    word = info.scenario
    what = f"comma-separated {word}s" if several else f"the {word}"
    shipped = ", ".join(info.scenarios)
    p.add_argument(f"--{word}", dest=dest, metavar=word.upper() + ("S" if several else ""), default=default,
                   help=f"{what} to race on (the shipped data's: {shipped}){more}" + (" (required)" if required else ""))
    if required:           # checked after parsing (sim.cli.main): the plural satisfies it too
        p.set_defaults(required_options=[(dest, f"--{word}")])
    p.add_argument(f"--{word}s", dest=dest, default=default, help=argparse.SUPPRESS)
    title = info.title

    class OtherWord(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            parser.error(f"{option_string} is not an option here: {title} races on a {word}; say --{word}")

    others = [f"--{w}{s}" for w in scenario_words() if w != word for s in ("", "s")]
    p.add_argument(*others, action=OtherWord, dest=f"other_{dest}", help=argparse.SUPPRESS)


def rounding_note(asked: int, played: int, why: str) -> None:
    """Say so when a race count was rounded up (to whole blocks of line-ups or seat arrangements)."""
    if played != asked:
        print(f"note: {asked:,} races rounded up to {played:,}, {why}")


def scheduler_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="play the chunks on the dask.distributed cluster at ADDRESS (tcp://host:8786; "
                        "docs/studies.md, \"On a cluster\")")


def keep_option(p: argparse.ArgumentParser, what: str) -> None:
    """--keep DIR: where a command whose output is a file keeps its finished chunks, to resume."""
    p.add_argument("--keep", default=None, metavar="DIR", type=out_dir,
                   help=f"keep {what} in DIR as they finish: the same command with the same --keep resumes an "
                        f"interrupted one with its finished chunks (a folder of other work is refused)")
    repair_option(p)


def repair_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repair", action="store_true",
                   help="set aside (in OUT/damaged/) every part that does not match the folder's ledger (missing, "
                        "extra, altered, foreign) and play its races again; rewrite a damaged or missing manifest "
                        "from the ledger")


def wrap(text: str, width: int = 98) -> list[str]:
    import textwrap

    return [line for para in text.splitlines() for line in textwrap.wrap(para, width)]



# --- argument types: every number and path is checked when the command line is read, before any
# race is played, with a message that says what was expected ----------------------------------

#: the most races (or cups) one command plays: a year of a 2-core machine's time
MAX_RACES = 10**10
MAX_SEED = 2**63 - 1


def whole(lo: int, hi: int, what: str = "a whole number"):
    """An argparse type: a whole number from lo to hi."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what} from {lo:,} to {hi:,}, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo:,}, got {value:,}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:,}, got {value:,}")
        return value
    parse.__name__ = "whole number"
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (minutes, a share)."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number above 0 such as 10 or 2.5, got {text!r}")
    return value


races_count = whole(1, MAX_RACES)
seed_value = whole(0, MAX_SEED)


def jobs_value(text: str) -> int:
    """Worker processes: 1 or more, or -1 for every core (-2 every core but one, ...)."""
    import os

    cores = os.cpu_count() or 1
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value == 0 or value < -cores:
        raise argparse.ArgumentTypeError(f"must be a number of worker processes (1 or more), or -1 for every "
                                         f"core (-2 for all but one, ...; this machine has {cores}), got {text!r}")
    return value


def _writable_ancestor(path: Path) -> tuple[bool, str]:
    """Whether `path` can be created: its nearest existing ancestor is a folder we may write."""
    import os

    p = path.resolve()
    while not p.exists():
        p = p.parent
    if not p.is_dir():
        return False, f"{p} is a file, not a folder"
    if not os.access(p, os.W_OK | os.X_OK):
        return False, f"{p} is not writable"
    return True, ""


def out_dir(text: str) -> str:
    """An output folder: an existing folder, or one that can be created."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a folder (it is created if needed)")
    ok, why = _writable_ancestor(path)
    if not ok:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {why}")
    return text


def out_file(text: str) -> str:
    """An output file: not a folder, in a folder that exists or can be created."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
    ok, why = _writable_ancestor(path.parent if str(path.parent) else Path("."))
    if not ok:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {why}")
    return text


def compile_notice(game: str | None) -> None:
    """Say so before a long first compile: the kernels of `game` not yet in this machine's cache."""
    from kernels.cache import is_compiled

    from .. import games

    info = games.game(game)
    if not is_compiled(info.name):
        note = f" ({info.compile_note})" if info.compile_note else ""
        print(f"compiling {info.title}'s race kernels for their first use on this machine{note}; "
              f"they are cached afterwards", file=sys.stderr, flush=True)


def racer_counts(text: str) -> list[int]:
    """'2,4,6' -> [2, 4, 6]; ValueError with the option's name otherwise."""
    try:
        return [int(n) for n in split_list(text)]
    except ValueError:
        raise ValueError(f"--racers takes whole numbers such as 2,4,6; got {text!r}") from None


def worker_counts(text: str) -> list[int]:
    """An argparse type: '1,2,4' -> [1, 2, 4], each at least 1."""
    try:
        jobs = [int(j) for j in split_list(text)]
    except ValueError:
        jobs = []
    if not jobs or min(jobs) < 1:
        raise argparse.ArgumentTypeError(f"takes worker counts of at least 1 such as 1,2,4; got {text!r}")
    return jobs


def game_options(info, args: argparse.Namespace) -> dict:
    """The game's options the command line gave (--format relay), typed like the option's allowed
    values (legs 4, not '4'); those not given are left out, so the game fills its defaults and can
    refuse one that does not apply (--legs without the relay format)."""
    def typed(values: tuple, text: str):
        return next((v for v in values if str(v) == text), text)

    return {k: typed(info.options[k], getattr(args, f"option_{k}")) for k in info.options
            if getattr(args, f"option_{k}", None) is not None}


def design_arguments(p: argparse.ArgumentParser, info) -> None:
    """What a design takes on the command line besides where it races: racers, the line-up fixed
    along each of the game's seat axes (`--AXISs`: Blast's --biathletes and --colours, Mania's
    --colours, Ski Tour's --nations; in a game without teams the first axis fixed gives the
    racers, with teams a line-up names seats and --racers counts the teams), the game's options
    and the players."""
    p.add_argument("--racers", type=int, default=4, help="racers per race, balanced line-ups (default 4)")
    for i, axis in enumerate(info.axes):
        p.add_argument(f"--{axis}s", dest=f"fixed_{axis}", default=None, metavar=f"{axis.upper()}S",
                       help=f"fixed {axis}s, comma-separated (seat order)"
                            + ("; fixes the racers" if i == 0 and not info.teams
                               else f", with --{info.axes[0]}s" if i and info.players else ""))
    option_arguments(p, info)
    if info.players:
        p.add_argument("--players", default=None,
                       help=f"one player for all seats or one per seat, comma-separated: {persona_names(info)}, "
                            f"random, or persona files (.toml); default: {info.default_player}")


def game_mismatch(args: argparse.Namespace, game: str, what: str) -> str | None:
    """The one-line refusal when --game was given and names another game than `what` (a study
    file, a results folder) is of; None when it agrees or was not given."""
    from .. import games

    if not getattr(args, "game_given", False) or args.game == game:
        return None
    return (f"--game {args.game} names {games.game(args.game).title}, but {what} is "
            f"{games.game(game).title}'s: leave --game out (it is read from there) or say --game {game}")


def examples(info, command: str) -> str:
    """The help's epilog: the game's examples of `command` (its registration's), or none."""
    lines = info.examples.get(command, "")
    return f"examples:\n{lines}" if lines else ""


def persona_names(info) -> str:
    """The game's shipped personas, by name (their files' names): what help lists."""
    folder = Path(__file__).resolve().parent.parent / "data" / "players" / info.name
    return ", ".join(sorted(p.stem for p in folder.glob("*.toml"))) or "none"


def design_of(info, args: argparse.Namespace, bundle):
    """The design the command line describes (design_arguments), checked against the data;
    ValueError or KeyError (one line) otherwise."""
    fixed = {axis: tuple(split_list(getattr(args, f"fixed_{axis}", None)) or ()) for axis in info.axes}
    fixed = {axis: values for axis, values in fixed.items() if values}
    racers = len(fixed[info.axes[0]]) if info.axes[0] in fixed and not info.teams else args.racers
    options = game_options(info, args)
    mod = info.load()
    design = mod.make_design(args.scenario, racers, fixed=fixed,
                             players=tuple(split_list(getattr(args, "players", None)) or [info.default_player]),
                             options=options or None)
    mod.check_design(bundle, design)
    return design


def option_arguments(p: argparse.ArgumentParser, info) -> None:
    """The game's options (Mania's --format, --legs, ...), each with its allowed values; not given,
    the game's default."""
    for option, values in info.options.items():
        p.add_argument(f"--{option.replace('_', '-')}", dest=f"option_{option}", default=None,
                       choices=[str(v) for v in values], help=f"default {values[0]}")
