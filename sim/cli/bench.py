"""biathlon-sim bench: the parser and the call."""
from __future__ import annotations

import argparse

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, examples, fail, game_options, load_or_report, option_arguments, racer_counts, races_count,
    reason, scenario_option, seed_value, split_list, worker_counts,
)


def add_parser(sub, info) -> None:
    b = sub.add_parser(
        "bench", help=f"races per second by {info.scenario} and number of racers, and scaling over workers",
        description="Play races on one core and report races per second, mean race length in rounds "
                    f"and the share of stalled races, per {info.scenario} and number of racers. Compilation (or "
                    "loading compiled kernels from the cache) is timed separately. With --scaling, also "
                    "time whole runs (chunks, workers, tables on the side) for each worker count and "
                    "print the speed-up over the first.",
        epilog=examples(info, "bench"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    scenario_option(b, info, "trails", several=True, more=" (default: all)")
    option_arguments(b, info)
    b.add_argument("--racers", default="4", help="comma-separated racer counts (default: 4)")
    b.add_argument("--races", type=races_count, default=20000, help="races per cell (default: 20000)")
    b.add_argument("--players", "--player", dest="player", default="balanced",
                   help="player for every seat (default: balanced)")
    b.add_argument("--seed", type=seed_value, default=1)
    b.add_argument("--scaling", default=None, metavar="JOBS", type=worker_counts,
                   help=f"also time whole runs with these worker counts, e.g. 1,2 (first {info.scenario} and racers)")
    b.add_argument("--scaling-races", type=races_count, default=200_000, help="races per scaling run (default 200000)")
    b.add_argument("--chunk", type=races_count, default=20_000, help="races per chunk in scaling runs (default 20000)")
    b.add_argument("--scaling-kinds", default=None, metavar="KINDS",
                   help="what --scaling times, comma-separated: run (one run), study (two cells), tune (one "
                        "generation of 16 candidates), balance (one round of a search: every neighbour of the "
                        "start); default: every one this game has (tune: a game with players; balance: with "
                        "--balance or the game's experiments/balance_GAME.toml)")
    b.add_argument("--balance", default=None, metavar="FILE",
                   help="the balance file whose round --scaling times (default: experiments/balance_GAME.toml "
                        "of the source tree, where there is one)")
    b.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="time --scaling on the dask.distributed cluster at ADDRESS: the worker counts are then "
                        "the tasks asked for at once, the cluster's workers play them")
    data_option(b)
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    """Races per second on one core through the game's play_chunk, or its own `bench` hook (the
    bare kernel: Blast's); with --scaling, whole runs by worker count."""
    import os

    from .. import games
    from ..bench import bench_game, scaling

    def bad(message: str) -> int:
        return fail("bench", message)

    info = games.game(args.game)
    mod = info.load()
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    options = game_options(info, args)
    own = info.hook("bench")
    try:
        scenarios = split_list(args.trails) or list(mod.scenarios(bundle))
        racers = racer_counts(args.racers)
        for n in racers:
            info.check_racers(n)
        if args.races < 1:
            raise ValueError("--races must be at least 1")
        if own is not None and not options:
            df = own(bundle, scenarios, racers, args.races, args.player, args.seed)
        else:
            df = bench_game(info.name, bundle, scenarios, racers, args.races, options or None, args.seed, args.player)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    print(f"compile or cache load: {df.attrs['compile_s']:.1f} s; one core; {os.cpu_count()} cores on "
          f"this machine; {info.title}; player {args.player}; data {bundle.data_hash}"
          + "".join(f"; {k} {v}" for k, v in options.items()))
    print(df.to_string(index=False))
    if args.scaling:
        kinds, balance = scaling_kinds(args, info)
        if isinstance(balance, int):
            return balance
        print(f"\nscaling: about {args.scaling_races:,} races of each kind ({', '.join(kinds)}; {scenarios[0]}, "
              f"{racers[0]} racers, balanced line-ups, chunks of {args.chunk:,}) by number of worker processes"
              + (f"; balance round of {balance}" if balance else ""))
        try:
            table = scaling(bundle, scenarios[0], racers[0], args.scaling_races, args.scaling, args.chunk, args.seed,
                            scheduler=args.scheduler, game=info.name, options=options or None, kinds=kinds,
                            balance_file=balance)
        except (KeyError, ValueError) as exc:
            return bad(reason(exc))
        except DataError as exc:
            return bad(str(exc).splitlines()[0])
        print(table.to_string(index=False))
    return 0


def scaling_kinds(args: argparse.Namespace, info):
    """(the kinds --scaling times, the balance file or None), or (None, exit status) after one line."""
    from pathlib import Path

    from ..bench import KINDS

    shipped = Path(__file__).resolve().parents[2] / "experiments" / f"balance_{info.name}.toml"
    balance = args.balance or (str(shipped) if shipped.is_file() else None)
    if args.scaling_kinds is None:
        kinds = [k for k in KINDS if (k != "tune" or info.players) and (k != "balance" or balance)]
        return kinds, balance
    kinds = split_list(args.scaling_kinds)
    for k in kinds:
        if k not in KINDS:
            return None, fail("bench", f"--scaling-kinds: {k!r} is not one of {', '.join(KINDS)}")
    if "tune" in kinds and not info.players:
        return None, fail("bench", f"--scaling-kinds: {info.title} has no players to tune")
    if "balance" in kinds and not balance:
        return None, fail("bench", "--scaling-kinds balance needs a balance file: --balance FILE")
    if balance and not Path(balance).is_file():
        return None, fail("bench", f"--balance: no file {balance}")
    return kinds, balance
