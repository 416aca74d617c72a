"""biathlon-sim blunders: the parser and the call (sim.blunders)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, examples, fail, jobs_option, load_or_report, out_file, races_count, reason,
    scenario_option, scheduler_option, seed_value, split_list,
)


def add_parser(sub, info) -> None:
    p = sub.add_parser(
        "blunders", help="count each player's dominated decisions (the blunder check)",
        description="Play races with every seat the same player and replay each race's event log "
                    "through the game's independent referee, counting the decisions another legal "
                    "choice of the same moment dominates in every outcome (a wax token, bullet or "
                    "sprint that changes nothing, a move that stops short of a better space, ...: "
                    "the classes are in docs/players.md and docs/skitour/players.md, \"Blunders\"). "
                    "Prints per player and class the blunders found, the decisions of that class "
                    "checked and the rate. Biathlon Blast and Ski Tour (--game skitour); Mania has no "
                    "players. Exits 2 with one line when a name is unknown.",
        epilog=examples(info, "blunders"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default=None,
                   help=f"comma-separated players, each checked on its own (default: "
                        f"{','.join(info.players) or 'none'})")
    if info.players:
        scenario_option(p, info, "scenarios", several=True, more=" (default: every one of the data)")
    else:
        p.add_argument("--scenarios", default=None, help=argparse.SUPPRESS)
    p.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    p.add_argument("--races", type=races_count, default=200, help="races per player and scenario (default 200)")
    p.add_argument("--seed", type=seed_value, default=1)
    p.add_argument("--by-scenario", action="store_true", help="one row per scenario too")
    jobs_option(p)
    scheduler_option(p)
    p.add_argument("--out", default=None, metavar="CSV", type=out_file, help="also write the table to this CSV file")
    data_option(p)
    p.set_defaults(func=cmd_blunders)


def cmd_blunders(args: argparse.Namespace) -> int:
    from .. import games
    from ..blunders import blunder_table

    info = games.game(getattr(args, "game", None))

    def bad(message: str) -> int:
        return fail("blunders", message)

    if not info.players:
        titles = " and ".join(g.title for g in games.with_players())
        return bad(f"blunders judges players' decisions and {info.title} has none (its seats are dice); "
                   f"blunders supports {titles}")
    if args.races < 1:
        return bad(f"--races must be at least 1, got {args.races}")
    try:
        info.check_racers(args.racers)
    except ValueError as exc:
        return bad(f"--racers: {exc}")
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    known_scenarios = list(info.load().scenarios(bundle))
    scenarios = split_list(args.scenarios) or known_scenarios
    for s in scenarios:
        if s not in known_scenarios:
            return bad(f"--{info.scenario} {s!r} is not a {info.scenario} of the data (known: "
                       f"{', '.join(known_scenarios)})")
    players = split_list(args.players) or list(info.players)
    hook = info.hook("roster")()
    known = hook.available()
    try:
        for name in players:
            hook.resolve(name, known)
        table = blunder_table(info.name, players, scenarios, args.races, seed=args.seed, racers=args.racers,
                              bundle=bundle if args.jobs == 1 and args.scheduler is None else None, data=args.data,
                              jobs=args.jobs, by_scenario=args.by_scenario, scheduler=args.scheduler)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(f"dominated decisions, {args.races:,} races per player and {info.scenario} "
          f"({', '.join(scenarios)}), {args.racers} racers, every seat the same player, seed {args.seed} "
          f"(data {bundle.data_hash}):")
    print(table.round({"rate": 5}).to_string(index=False))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        print(f"table: {args.out}")
    return 0
