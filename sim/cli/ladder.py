"""biathlon-sim ladder: the parser and the call."""
from __future__ import annotations

import argparse

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, fail, jobs_option, load_or_report, only_for, out_file, races_count,
    seed_value, split_list,
)


def add_parser(sub) -> None:
    lad = sub.add_parser(
        "ladder", help="play players against each other and rank them by win rate",
        description="Play players (names, or persona files ending in .toml) against each other with "
                    "balanced line-ups: every player sits in every seat and races in every ski colour "
                    "equally often, and every seat arrangement plays the same race indices, so seat, "
                    "colour and line-up luck cancel. Prints the win rate per seat raced with its 95% "
                    "Wilson interval, the fair share and the mean place, best first, then the win-rate "
                    "gap of every pair measured race by race. With --vs A,B: A in half the seats, B in "
                    "the other half, rotated, and a verdict on the gap. Races are rounded up to whole "
                    "blocks of line-ups. Exits 2 with one line when a name is unknown.",
        epilog="examples:\n"
               "  biathlon-sim ladder --trail Kurz --races 40000 --jobs 2\n"
               "  biathlon-sim ladder --players random,balanced,sprinter,conservative,sharpshooter \\\n"
               "      --trail Kurz --racers 4 --races 40000 --seed 1 --jobs 2 --out ladder.csv\n"
               "  biathlon-sim ladder --vs balanced,random --trail Kurz --races 4000\n"
               "  biathlon-sim ladder --vs lookahead,balanced --trail Kurz --races 3000 --jobs 2\n"
               "  biathlon-sim ladder --vs my-persona.toml,balanced --trail Lang --races 20000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    lad.add_argument("--players", default="random,balanced,sprinter,conservative,sharpshooter",
                     help="comma-separated players, each once (default: random and the heuristic "
                          "personas; add lookahead for the slow strength reference)")
    lad.add_argument("--vs", default=None, metavar="A,B", help="head to head: A in half the seats, B in the rest")
    lad.add_argument("--trail", required=True)
    lad.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    lad.add_argument("--races", type=races_count, default=10000, help="races in all (default 10000)")
    lad.add_argument("--seed", type=seed_value, default=1)
    jobs_option(lad)
    lad.add_argument("--out", default=None, metavar="CSV", type=out_file, help="also write the table to this CSV file")
    lad.add_argument("--quiet", action="store_true", help="no progress bar")
    data_option(lad)
    lad.set_defaults(func=cmd_ladder)


def cmd_ladder(args: argparse.Namespace) -> int:
    refused = only_for(args, "ladder", "blast")
    if refused is not None:
        return refused
    from ..blast.players import available, resolve
    from ..ladder import head_to_head, ladder

    def bad(message: str) -> int:
        return fail("ladder", message)

    if args.races < 1:
        return bad(f"--races must be at least 1, got {args.races}")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    try:
        known = available()
        if args.vs:
            pair = split_list(args.vs)
            if len(pair) != 2:
                return bad(f"--vs takes two players, A,B; got {args.vs!r}")
            a, b = (resolve(p, known) for p in pair)
            result = head_to_head(bundle, a, b, args.trail, args.racers, args.races, args.seed, args.jobs,
                                  progress=not args.quiet, known=known)
        else:
            players = split_list(args.players) or []
            result = ladder(bundle, players, args.trail, args.racers, args.races, args.seed, args.jobs,
                            progress=not args.quiet, known=known)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(result.describe())
    print(f"win rate per seat raced, with 95% Wilson interval (data {bundle.data_hash}):")
    print(result.table.round(4).to_string())
    if args.vs:
        print(result.verdict(a.name, b.name))
    else:
        print("pairwise: win-rate gap on the same races, 95% interval and two-sided p (paired by race index):")
        pairs = result.pairs.round({"gap": 4, "low": 4, "high": 4})
        pairs["p"] = [("<1e-15" if p < 1e-15 else f"{p:.2g}") for p in pairs.p]
        print(pairs.to_string(index=False))
    if args.out:
        result.table.to_csv(args.out)
        print(f"table: {args.out}")
        from reports.pages import ladder_page, page_beside

        page = ladder_page(page_beside(args.out), result.table, None if args.vs else result.pairs,
                           result.describe(), result.verdict(a.name, b.name) if args.vs else "")
        print(f"page: {page}")
    return 0
