"""The `biathlon-sim` command: one console command with sub-commands over library calls."""
from __future__ import annotations

import argparse
import sys

from .validation import DataError

EXIT_BAD_DATA = 2


def cmd_validate(args: argparse.Namespace) -> int:
    from .blast.compile import load_bundle
    from .blast.summary import summary

    try:
        bundle = load_bundle(args.data)
    except DataError as exc:
        where = args.data or "the shipped data"
        print(f"{where}: {len(exc.problems)} problem(s) found:", file=sys.stderr)
        for p in exc.problems:
            print(str(p), file=sys.stderr)
        return EXIT_BAD_DATA
    print(summary(bundle))
    print("\nOK: the data is valid.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biathlon-sim",
        description="Monte Carlo balance laboratory for Biathlon Blast.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
