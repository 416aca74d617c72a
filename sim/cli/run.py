"""biathlon-sim run: the parser and the call."""
from __future__ import annotations

import argparse
import sys

from .common import (
    EXIT_BAD_DATA, data_option, design_arguments, design_of, examples, fail, jobs_option, load_or_report, out_dir,
    races_count, reason, repair_option, scenario_option, seed_value,
)


def add_parser(sub, info) -> None:
    """`info`: the chosen game (sim.games.GameInfo): its word for the scenario names the option
    (--trail, --track), its seat axes give the fixed line-up options, its options their own."""
    u = sub.add_parser(
        "run", help="play many races of one set-up and write the results table",
        description=f"Play races 0 .. N-1 of one design with a seed, in chunks over joblib workers, "
                    f"and print the win rate per {info.entrant}. With --out, every finished chunk is "
                    "written at once and the same command run again resumes; the table "
                    "(DIR/results/part-*.parquet, one row per race and racer; range visits in DIR/visits/), "
                    "a manifest (seed, data hash, design, version, command) and a ledger of the parts "
                    "(their checksums: resume and report refuse a folder that does not match it) are "
                    "written there. The table is the same whatever --jobs and --chunk.",
        epilog=examples(info, "run"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    scenario_option(u, info, "scenario", several=False, required=True)
    design_arguments(u, info)
    u.add_argument("--races", type=races_count, default=10000,
                   help="races to play (default 10000); with --precision-pp, the most it may play")
    u.add_argument("--precision-pp", type=float, default=None, metavar="PP",
                   help="play until every win rate is known to +-PP percentage points at 95%%: a pilot, "
                        "then as many races as it shows are needed (at most --races)")
    u.add_argument("--seed", type=seed_value, default=1)
    u.add_argument("--chunk", type=races_count, default=10000, help="races per chunk (default 10000)")
    jobs_option(u)
    u.add_argument("--out", default=None, metavar="DIR", type=out_dir, help="write the table (one Parquet file per "
                   "chunk, in DIR/results/) and the manifest here; the same command resumes")
    u.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the chunks on the dask.distributed cluster at ADDRESS (tcp://host:8786)")
    repair_option(u)
    u.add_argument("--quiet", action="store_true", help="no progress bar")
    data_option(u)
    u.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    import shlex

    from .. import games
    from ..run import run_races, whole_blocks
    from .common import compile_notice

    info = games.game(args.game)
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    if args.races < 1 or args.chunk < 1:
        return fail("run", "--races and --chunk must be at least 1")
    try:
        design = design_of(info, args, bundle)
    except (KeyError, ValueError) as exc:
        return fail("run", reason(exc))
    races = whole_blocks(info.name, bundle, design, args.races)
    target = None
    if args.precision_pp is not None:
        from ..precision import Target

        if not 0 < args.precision_pp <= 50:
            return fail("run", f"--precision-pp must lie above 0 and at most 50, got {args.precision_pp}")
        target = Target(args.precision_pp / 100, races, 0)
    if races != args.races:
        print(f"note: {args.races:,} races rounded up to {races:,}, a whole number of balanced blocks of "
              f"{info.load().block(bundle, design):,} (every {' and '.join(info.axes)} equally often in every seat)")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    compile_notice(info.name)
    try:
        _, run = run_races(bundle, design, races, args.seed, game=info.name, chunk_size=args.chunk,
                           n_jobs=args.jobs, out=args.out, progress=not args.quiet, command=command,
                           collect=False, scheduler=args.scheduler, target=target, repair=args.repair, log=print)
    except (KeyError, ValueError, OSError) as exc:
        return fail("run", reason(exc))
    if target is not None:
        print(f"sized to {run.planned:,} races for {target.describe()}")
        races = run.planned
    if run.chunks_played:
        print(f"{run.races:,} races played in {run.seconds:.1f} s ({run.races_per_second:,.0f} races/s)"
              + (f"; {run.chunks_reused} finished chunk(s) of an earlier run reused" if run.chunks_reused else ""))
    else:
        print(f"every chunk was already played by an earlier run in {args.out}: nothing to play")
    if args.out:
        print(f"table: {args.out}/results/ (Parquet, one file per chunk; range visits in {args.out}/visits/); "
              f"manifest: {args.out}/manifest.json")
    names = info.load().names(bundle, design)
    racers = design.racers             # a relay's teams: the fair share is 1/teams
    seats = info.load().seats_per_race(design)
    who = f"{racers} teams of {seats // racers}" if seats != racers else f"{racers} racers"
    print(f"win rate per {info.entrant} ({races:,} races, {who}, {args.scenario}):")
    print(win_rates(run.summary, names[info.entrant], racers, info.entrant, seats // racers).to_string())
    stalled = int(run.summary.stalled.sum())
    if stalled:
        share = stalled / run.summary.races.sum()
        print(f"warning: {share:.2%} of racer rows are in races that hit the round cap without every place "
              f"decided", file=sys.stderr)
    return 0


def win_rates(summary, entrant_names, racers: int, entrant: str = "biathlete", legs: int = 1):
    """Races, wins, win rate and mean place per entrant from a run's summary counts (`legs`: rows
    per team, whose legs share the team's entrant, place and win)."""
    by = summary.groupby(level=entrant).sum() // legs
    out = by.assign(win_rate=by.wins / by.races, mean_place=by.place_sum / by.races)
    out.index = [entrant_names[i] for i in out.index]
    out.index.name = entrant
    out["fair_share"] = 1 / racers
    return out[["races", "wins", "win_rate", "fair_share", "mean_place"]].sort_values(
        "win_rate", ascending=False).round(4)
