"""The `biathlon-sim` command: one console command with sub-commands, one module each, every one a
thin layer over a library call (sim.run, sim.study, ...)."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from . import validate, replay, bench, run, study, report, adopt, ladder, tune, compare, worldcup, exact, compile, balance, blunders
from .common import fail, print_problems, reason

COMMANDS = (validate, replay, bench, run, study, report, adopt, ladder, tune, compare, worldcup, exact, compile,
            balance, blunders)
#: commands whose options depend on the game (they take the GameInfo)
GAME_AWARE = (validate, run, bench, tune, compare, worldcup, ladder, replay, study, report, blunders)


def build_parser(game: str | None = None) -> argparse.ArgumentParser:
    """The parser; `game`: the game named by --game, whose options (Mania's --format, ...) the
    commands that play races then offer."""
    from .. import games

    info = games.game(game)
    parser = OneLineParser(
        prog="biathlon-sim",
        description="Monte Carlo balance laboratory for biathlon racing board games: "
                    + ", ".join(games.game(g).title for g in games.names())
                    + f". Every command plays {games.game(games.DEFAULT).title} unless --game names another.",
    )
    parser.add_argument("--game", default=games.DEFAULT, choices=games.names(),
                        help=f"the game (default: {games.DEFAULT}); a study file names its own")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineParser)
    for command in COMMANDS:
        command.add_parser(sub) if command not in GAME_AWARE else command.add_parser(sub, info)
    for name, p in sub.choices.items():
        _speak_of(p, name, info)
    return parser


def _speak_of(p: argparse.ArgumentParser, command: str, info) -> None:
    """Help under --game X speaks of X: a command X does not serve says only that; the examples
    are X's (those naming --game X; Blast's: those naming no --game)."""
    from .. import games

    if not info.serves(command):          # a command some games only serve (sim.games.serving)
        titles = " and ".join(g.title for g in games.serving(command))
        p.description = f"{command} serves {titles}, not {info.title}: under --game {info.name} it refuses."
        p.epilog = None
        for action in p._actions:
            if action.option_strings and "-h" not in action.option_strings:
                action.help = argparse.SUPPRESS
        return
    if not (p.epilog or "").startswith("examples:"):
        return
    kept, keep = [], False
    for line in p.epilog.splitlines()[1:]:
        if line.lstrip().startswith("biathlon-sim"):
            named = "--game " in line
            keep = f"--game {info.name}" in line if info.name != games.DEFAULT else not named
        if keep:
            kept.append(line)
    p.epilog = "\n".join(["examples:", *kept]) if kept else None


class OneLineParser(argparse.ArgumentParser):
    """argparse with its errors on one line (what was wrong and where to look), exit status 2, and
    every option's default in its help (where the help does not say it already)."""

    def error(self, message: str):
        import re

        # "argument --races: must be at least 1" reads better as "--races must be at least 1"
        message = re.sub(r"^argument (--[\w-]+)(?:/--[\w-]+)*: (must|takes|is) ", r"\1 \2 ", message)
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def add_argument(self, *args, **kwargs):
        default, text = kwargs.get("default"), kwargs.get("help")
        flag = kwargs.get("action") in ("store_true", "store_false", "help", "version")
        if args and str(args[0]).startswith("-") and not flag and default is not None \
                and default is not argparse.SUPPRESS and text is not argparse.SUPPRESS and "default" not in (text or ""):
            kwargs["help"] = f"{text} (default: {default})" if text else f"default: {default}"
        return super().add_argument(*args, **kwargs)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("biathlon-sim")
    except PackageNotFoundError:
        return "unknown"


def _game_of(argv: list[str] | None) -> str | None:
    """The --game given on the command line, read before the full parser is built (it decides
    which options the commands offer); None if absent or unknown (the parser then says so)."""
    from .. import games

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default=None)
    known, _ = pre.parse_known_args(argv)
    return known.game if known.game in games.names() else None


def main(argv: list[str] | None = None) -> int:
    import os

    try:
        args = build_parser(_game_of(argv)).parse_args(argv)
    except SystemExit as exc:            # a usage error (one line printed, status 2) or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    args.game_given = _game_of(argv if argv is not None else sys.argv[1:]) is not None
    for dest, flag in getattr(args, "required_options", ()):
        if getattr(args, dest, None) is None:
            return fail(args.command, f"{flag} is required (see biathlon-sim {args.command} --help)")
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("biathlon-sim: interrupted; a run with --out keeps its finished chunks and the same "
              "command resumes it", file=sys.stderr)
        return 130
    except DataError as exc:
        return print_problems(f"biathlon-sim {args.command}", exc)
    except (ValueError, KeyError, OSError) as exc:
        # a library's refusal of bad input (its message says what was expected): one line, exit 2;
        # BIATHLON_TRACEBACK=1 shows where it came from
        if os.environ.get("BIATHLON_TRACEBACK"):
            raise
        return fail(args.command, reason(exc))
    except MemoryError:
        return fail(args.command, "ran out of memory; ask for fewer races per chunk (--chunk) or fewer workers")


if __name__ == "__main__":
    sys.exit(main())
