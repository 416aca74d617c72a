"""biathlon-sim adopt: the parser and the call."""
from __future__ import annotations

import argparse

from ..validation import DataError
from .common import data_option, fail, print_problems, reason


def add_parser(sub) -> None:
    a = sub.add_parser(
        "adopt", help="check a results folder written before ledgers and write its ledger",
        description="A run's or study's folder written before biathlon-sim kept a ledger of its parts is "
                    "refused by report and resume. adopt checks every part (its range, both tables, no "
                    "overlap, and its first race played again from the manifest's seed, design and data "
                    "gives the rows it holds) and writes the ledger. Exits 2 with one line naming the first "
                    "part that fails; nothing is written then.",
        epilog="examples:\n  biathlon-sim adopt runs/kurz4\n  biathlon-sim adopt runs/balance --data my-data/",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("folder", metavar="DIR", help="the run's or study's output folder")
    data_option(a)
    a.set_defaults(func=cmd_adopt)


def cmd_adopt(args: argparse.Namespace) -> int:
    from ..adopt import adopt

    try:
        n = adopt(args.folder, args.data)
    except DataError as exc:
        return print_problems(args.data or "the manifest's data", exc)
    except (KeyError, ValueError, OSError) as exc:
        return fail("adopt", reason(exc))
    print(f"{n} part(s) adopted: report and resume accept {args.folder} again")
    return 0
