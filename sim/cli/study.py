"""biathlon-sim study: the parser and the call."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from .common import fail, game_mismatch, jobs_value, out_dir, print_problems, reason, repair_option, split_list


def add_parser(sub, info) -> None:
    seats = " and ".join(info.axes)
    st = sub.add_parser(
        "study", help="run a study file: many cells, data variants on common seeds",
        description="Run every cell of a study file (docs/studies.md) on each of its data variants; the file "
                    "names its game (game = ..., default blast), and --game, if given, must agree. "
                    "A cell's variants replay the same seed and race indices, so their differences are "
                    "measured on common random numbers. Results go to OUT/results/cell=NAME/variant=NAME/ "
                    "as Parquet chunk files (read them all with pandas.read_parquet(OUT + '/results') or "
                    "sim.study.read_study), counts per cell, variant, seat, the game's seat axes "
                    f"({info.title}: {seats}) and player to OUT/summary.csv. Memory stays flat however many "
                    "races. Interrupted (Ctrl-C), the same command resumes where it stopped.",
        epilog="examples:\n  biathlon-sim study experiments/wax_value.toml --out runs/wax --jobs 2\n"
               "  biathlon-sim study experiments/balance.toml --dry-run      # list the cells\n"
               "  biathlon-sim study experiments/smoke.toml --out runs/smoke --cells balanced-Kurz\n"
               "  biathlon-sim study experiments/balance.toml --out runs/b --scheduler tcp://10.0.0.5:8786\n"
               "  biathlon-sim --game mania study experiments/mania.toml --out runs/mania --jobs 2\n"
               "  biathlon-sim --game mania study experiments/mania.toml --dry-run\n"
               "  biathlon-sim --game skitour study experiments/skitour.toml --out runs/skitour --jobs 2\n"
               "  biathlon-sim --game skitour study experiments/skitour.toml --out runs/skitour --cells basic-Starter-4",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    st.add_argument("file", metavar="FILE", help="the study file (TOML)")
    st.add_argument("--out", metavar="DIR", type=out_dir, help="where results go (required unless --dry-run)")
    st.add_argument("--jobs", type=jobs_value, default=1, help="worker processes (-1: all cores; default 1)")
    st.add_argument("--cells", default=None, help="run only these cells (comma-separated names)")
    st.add_argument("--include", default=None, metavar="GROUP[,GROUP]",
                    help="also play the cells of these optional groups (a cell's `optional = \"GROUP\"`; the "
                         "shipped Blast study's `skill`: the strength reference, for the report's strong-play tags)")
    st.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the chunks on the dask.distributed cluster at ADDRESS")
    st.add_argument("--dry-run", action="store_true", help="check the study and list its cells; play nothing")
    repair_option(st)
    st.add_argument("--quiet", action="store_true", help="no progress bars")
    st.set_defaults(func=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    import shlex

    from .. import games
    from ..study import check_study, load_study, round_cells_to_blocks, run_study

    def bad(message: str) -> int:
        return fail("study", message)

    try:
        study = load_study(args.file)
    except DataError as exc:
        return print_problems(args.file, exc)
    mismatch = game_mismatch(args, study.game, f"the study {args.file}")
    if mismatch:
        return bad(mismatch)
    only = split_list(args.cells)
    if args.cells is not None and not only:
        return bad(f"--cells names no cell; give cell names, comma-separated: {', '.join(c.name for c in study.cells)}")
    if only:
        unknown = [c for c in only if c not in [cell.name for cell in study.cells]]
        if unknown:
            return bad(f"no cell named {unknown[0]!r}; cells: {', '.join(c.name for c in study.cells)}")
    include = split_list(args.include) or []
    groups = study.groups
    if args.include is not None and not include:
        return bad(f"--include names no group; the study's optional groups: {', '.join(groups) or 'none'}")
    unknown = [g for g in include if g not in groups]
    if unknown:
        return bad(f"no optional group named {unknown[0]!r}; the study's optional groups: {', '.join(groups) or 'none'}")
    info = games.game(study.game)
    mod = info.load()
    if args.dry_run:
        try:
            # the data of every variant and every cell's design, as a real run
            bundles = check_study(study, study.selected(only or None, include))
        except DataError as exc:
            return print_problems(args.file, exc)
        for name, why in study.screen_left_out.items():
            print(f"note: screen step {name!r} left out: its data is invalid ({why})")
        notes = round_cells_to_blocks(study, bundles)  # the total below is what will be played, rounding included
        shown = study.selected(only or None, include)      # the cells it would play
        sized = [c for c in shown if c.target is not None]
        print(f"{study.title}: {len(shown)} cell(s), {sum(c.races * len(c.variants) for c in shown):,} races in "
              f"all" + (f" at most ({len(sized)} cell(s) sized to a precision target from a pilot: their count "
                        f"is a cap)" if sized else "") + f", seed {study.seed}")
        for note in notes:
            if any(note.startswith(f"cell {c.name!r}:") for c in shown):
                print(f"note: {note}")
        for c in shown:
            print(f"  {c.name}: {mod.describe(c.design)}, "
                  + (f"sized to {c.target.describe()}" if c.target is not None else f"{c.races:,} races")
                  + f" x variants {', '.join(c.variants)} (seed {c.seed})"
                  + (f" [optional: {c.optional}]" if c.optional else ""))
        for g, names in study.unplayed_groups(only, include).items():
            print(f"optional group {g!r} not played ({len(names)} cell(s): {', '.join(names)}): add --include {g}")
        print("dry run passed: the data and every cell check out")
        return 0
    if not args.out:
        return bad("give --out DIR (where the results go), or --dry-run")
    playing = study.selected(only or None, include)
    print(f"{study.title}: {len(playing)} cell(s), {sum(c.races * len(c.variants) for c in playing):,} races asked "
          f"in all (before any rounding to whole blocks, noted below), seed {study.seed}")
    for g, names in study.unplayed_groups(only, include).items():
        print(f"note: optional group {g!r} ({len(names)} cell(s)) is not played; add --include {g} to play it")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    from .common import compile_notice

    compile_notice(study.game)
    try:
        summary = run_study(study, args.out, n_jobs=args.jobs, progress=not args.quiet,
                            scheduler=args.scheduler, command=command, only=only or None, repair=args.repair,
                            include=include)
    except DataError as exc:
        return print_problems(args.file, exc)
    except (KeyError, ValueError, OSError) as exc:
        return bad(reason(exc))
    print(f"table: {args.out}/results/ (Parquet dataset, cell=/variant= folders); "
          f"counts: {args.out}/summary.csv")
    stalled = summary.groupby(["cell", "variant"]).sum(numeric_only=True)
    share = stalled.stalled / stalled.races
    if (share > 0).any():
        worst = share.idxmax()
        print(f"warning: {share[share > 0].size} cell(s) have races that hit the round cap with places undecided "
              f"(most: {share.max():.2%} of racer rows in {worst[0]} / {worst[1]})", file=sys.stderr)
    g = summary.groupby([f"{info.entrant}_name", "cell", "variant"]).sum(numeric_only=True)
    rates = (g.wins / g.races).unstack(["cell", "variant"]).round(4)
    print(f"win rate per {info.entrant}, by cell and variant:")
    print(rates.to_string())
    return 0
