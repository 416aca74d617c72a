"""biathlon-sim validate: the parser and the call."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, load_or_report


def add_parser(sub, info) -> None:
    from .. import games

    game_flag = "" if info.name == games.DEFAULT else f" --game {info.name}"
    v = sub.add_parser(
        "validate", help="check a data directory and print its summary",
        description=f"Check a {info.title} data directory ({info.data_doc or 'its data-format page'}) "
                    f"and print a summary: {info.data_summary or 'what it holds'}. Exits 2 with one line "
                    f"per problem (file: entry: field: what was expected) when the data is bad, or one line "
                    f"naming the game whose data directory it is when it is another game's.",
        epilog="examples:\n"
               f"  biathlon-sim{game_flag} validate"
               f"                 # the shipped data\n"
               f"  biathlon-sim{game_flag} validate my-data/"
               f"         # your own copy",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("data", nargs="?", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    from .. import games

    info = games.game(args.game)
    mod = info.load()
    bundle = load_or_report(args.data, game=args.game)
    if bundle is None:
        return EXIT_BAD_DATA
    print(mod.summary(bundle))
    hook = info.hook("data_warnings")
    warnings = hook(bundle) if hook else []
    if warnings:
        print(f"\n{len(warnings)} warning(s): legal, but races may not use the data as meant:")
        for w in warnings:
            print(f"warning: {w}")
    print("\nOK: the data is valid.")
    return 0
