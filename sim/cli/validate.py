"""biathlon-sim validate: the parser and the call."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, load_or_report


def add_parser(sub) -> None:
    v = sub.add_parser(
        "validate", help="check a data directory and print its summary",
        description="Check a Biathlon Blast data directory (docs/data-format.md) and print a summary: "
                    "biathletes with their bibs, card counts, each trail's length, range and "
                    "start-line positions and coach zones. Exits 2 with one line per problem "
                    "(file: entry: field: what was expected) when the data is bad.",
        epilog="examples:\n  biathlon-sim validate                 # the shipped illustrative data\n"
               "  biathlon-sim validate my-data/         # your own copy",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("data", nargs="?", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    from .. import games

    mod = games.game(args.game).load()
    bundle = load_or_report(args.data, game=args.game)
    if bundle is None:
        return EXIT_BAD_DATA
    print(mod.summary(bundle))
    warnings = mod.data_warnings(bundle) if hasattr(mod, "data_warnings") else []
    if warnings:
        print(f"\n{len(warnings)} warning(s): legal, but races may not use the data as meant:")
        for w in warnings:
            print(f"warning: {w}")
    print("\nOK: the data is valid.")
    return 0
