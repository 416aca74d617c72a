"""biathlon-sim bench: the parser and the call."""
from __future__ import annotations

import argparse

from .common import (
    EXIT_BAD_DATA, data_option, fail, game_options, load_or_report, option_arguments, racer_counts, races_count,
    reason, scenario_option, seed_value, split_list, worker_counts,
)


def add_parser(sub, info) -> None:
    b = sub.add_parser(
        "bench", help="races per second by trail and number of racers, and scaling over workers",
        description="Play races on one core and report races per second, mean race length in rounds "
                    f"and the share of stalled races, per {info.scenario} and number of racers. Compilation (or "
                    "loading compiled kernels from the cache) is timed separately. With --scaling, also "
                    "time whole runs (chunks, workers, tables on the side) for each worker count and "
                    "print the speed-up over the first.",
        epilog="examples:\n  biathlon-sim bench --trail Kurz --racers 4\n"
               "  biathlon-sim bench --races 5000 --racers 2,4,6 --player random\n"
               "  biathlon-sim bench --trail Kurz --racers 4 --scaling 1,2 --scaling-races 1000000\n"
               "  biathlon-sim --game mania bench --track red,yellow --racers 4,8\n"
               "  biathlon-sim --game mania bench --track red --format relay --racers 4\n"
               "  biathlon-sim --game skitour bench --course Starter --racers 3,5 --races 2000",
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
    data_option(b)
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    import os

    from ..bench import bench
    from ..blast.players import resolve

    def bad(message: str) -> int:
        return fail("bench", message)

    if args.game != "blast":
        return bench_other(args, bad)

    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    try:
        trails = [bundle.trail_id(t) for t in (split_list(args.trails) or list(bundle.trail_names))]
        racers = racer_counts(args.racers)
        player = resolve(args.player)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    if not all(2 <= n <= 6 for n in racers) or args.races < 1:
        return bad("--racers must lie in 2..6 and --races be at least 1")
    df = bench(bundle, trails, racers, args.races, player, args.seed)
    print(f"compile or cache load: {df.attrs['compile_s']:.1f} s; one core; {os.cpu_count()} cores on "
          f"this machine; player {args.player}; data {bundle.data_hash}")
    print(df.to_string(index=False))
    if args.scaling:
        from ..bench import scaling

        jobs = args.scaling
        t, n = bundle.trail_names[trails[0]], racers[0]
        print(f"\nscaling: whole runs of {args.scaling_races:,} races ({t}, {n} racers, balanced line-ups, "
              f"chunks of {args.chunk:,}) by number of worker processes")
        print(scaling(bundle, t, n, args.scaling_races, jobs, args.chunk, args.seed).to_string(index=False))
    return 0


def bench_other(args: argparse.Namespace, bad) -> int:
    """bench for any game through its play_chunk (the default persona where there are players)."""
    import os

    from .. import games
    from ..bench import bench_game, scaling

    info = games.game(args.game)
    mod = info.load()
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    options = game_options(info, args)
    try:
        scenarios = split_list(args.trails) or list(mod.scenarios(bundle))
        racers = racer_counts(args.racers)
        for n in racers:
            info.check_racers(n)
        if args.races < 1:
            raise ValueError("--races must be at least 1")
        df = bench_game(info.name, bundle, scenarios, racers, args.races, options or None, args.seed)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    print(f"compile or cache load: {df.attrs['compile_s']:.1f} s; one core; {os.cpu_count()} cores on "
          f"this machine; {info.title}; data {bundle.data_hash}"
          + "".join(f"; {k} {v}" for k, v in options.items()))
    print(df.to_string(index=False))
    if args.scaling:
        jobs = args.scaling
        print(f"\nscaling: whole runs of {args.scaling_races:,} races ({scenarios[0]}, {racers[0]} racers, "
              f"chunks of {args.chunk:,}) by number of worker processes")
        print(scaling(bundle, scenarios[0], racers[0], args.scaling_races, jobs, args.chunk, args.seed,
                      game=info.name, options=options or None).to_string(index=False))
    return 0
