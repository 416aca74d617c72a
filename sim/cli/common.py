"""What every command shares: failing with one line and exit status 2, loading data or listing its
problems, the options several commands spell the same way."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError

EXIT_BAD_DATA = 2


def fail(command: str, message: str) -> int:
    """One line naming the command and what was expected; the exit status for bad input."""
    print(f"biathlon-sim {command}: {message}", file=sys.stderr)
    return EXIT_BAD_DATA


def load_or_report(data, patches=(), game: str | None = None):
    """The compiled bundle of a data directory of `game` (default Blast; with patches: a data
    variant), or None after printing one line per problem."""
    from .. import games

    try:
        return games.game(game).load().load_bundle(data, patches)
    except DataError as exc:
        print_problems(data or "the shipped data", exc)
        return None


def only_for(args: argparse.Namespace, command: str, *supported: str) -> int | None:
    """None when `command` supports the chosen game, else the exit status after one line saying
    which games it supports."""
    from .. import games

    name = getattr(args, "game", None) or games.DEFAULT
    if name in supported:
        return None
    titles = ", ".join(games.game(g).title for g in supported)
    return fail(command, f"{command} supports {titles} so far, not {games.game(name).title}")


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
    p.add_argument("--data", default=None, metavar="DIR", help="data directory (default: shipped)")


def jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")


def wrap(text: str, width: int = 98) -> list[str]:
    import textwrap

    return [line for para in text.splitlines() for line in textwrap.wrap(para, width)]

