"""biathlon-sim compare: the parser and the call."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, MAX_RACES, fail, jobs_option, load_or_report, only_for, out_dir, races_count, reason,
    rounding_note, scenario_option, seed_value, split_list, whole,
)


def add_parser(sub, info) -> None:
    co = sub.add_parser(
        "compare", help="what-if: a base and a changed data set on the same races, win rates compared",
        description="Play the same races on a base data set and a changed one (--changed DIR, or the base "
                    "with --set patches) and report which win rates moved: per biathlete over all trails, "
                    "per biathlete on each trail and per ski colour, the base and changed win rate, their "
                    "difference with a 95% interval, a p-value and a flag where it stays significant after "
                    "correcting for the number of rows (Holm; --correction bh for Benjamini-Hochberg); "
                    "largest change first.\n\n"
                    "Pairing: both data sets play races 0 .. N-1 of balanced line-ups on each trail with "
                    "the same seed, so race i seats the same biathletes in the same ski colours and starts "
                    "from the same shuffles and dice stream on both (common random numbers). For a "
                    "biathlete (or ski colour), each race it raced in gives one paired difference, "
                    "won on the changed data minus won on the base, for the same race and seat; races are "
                    "independent, so the interval and test come from the variance of that per-race "
                    "difference (standard error sd / sqrt(races)). Most races end the same way on both "
                    "data sets, so this is far tighter than comparing two independent runs. Each trail "
                    "plays with its own seed derived from --seed and the trail's name.\n\n"
                    "--set FILE:PATH=VALUE changes one value of a data file as it is read (docs/studies.md, "
                    "Patches): FILE relative to the data directory, PATH dotted keys where key[Name] picks "
                    "an entry by name, VALUE in TOML (a bare word is a string). A patch or data set that "
                    "does not fit is reported one line per problem, exit status 2.",
        epilog="examples:\n"
               "  biathlon-sim compare --set 'biathletes/olsson.toml:accuracy=[2,4,5]' --races 40000 --jobs 2\n"
               "  biathlon-sim compare --set 'biathletes/olsson.toml:card[Long Glide].top.flat=7' --trail Kurz\n"
               "  biathlon-sim compare --set game.toml:gear.red.bullets=5 --set 'game.toml:gear.red.wax={ black = 1 }'\n"
               "  biathlon-sim compare --set game.toml:switches.coach_boost=until_usable --out runs/coach\n"
               "  biathlon-sim compare --base my-data --changed my-data-v2 --racers 5 --races 20000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    co.add_argument("--base", default=None, metavar="DIR", help="base data directory (default: shipped)")
    co.add_argument("--changed", default=None, metavar="DIR", help="changed data directory")
    co.add_argument("--set", action="append", default=None, metavar="FILE:PATH=VALUE",
                    help="change one value of the base data (repeat for several changes)")
    scenario_option(co, info, "trails", several=True, more=" (default: all)")
    co.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    co.add_argument("--races", type=races_count, default=9600,
                    help="races per trail on each data set, rounded up to whole blocks of line-ups "
                         "(biathletes x 6; default 9600)")
    co.add_argument("--seed", type=seed_value, default=1)
    co.add_argument("--players", default=None, help="one player for all seats or one per seat (default balanced)")
    co.add_argument("--correction", choices=("holm", "bh"), default="holm",
                    help="multiple-comparison correction over the rows (default holm)")
    co.add_argument("--rows", type=whole(1, MAX_RACES, "a number of rows"), default=None,
                    help="print only the first N rows (default all)")
    co.add_argument("--chunk", type=races_count, default=4800, help="races per task (default 4800)")
    jobs_option(co)
    co.add_argument("--out", default=None, metavar="DIR", type=out_dir,
                    help="write comparison.csv and counts.csv (per trail, biathlete and ski colour) here")
    co.add_argument("--quiet", action="store_true", help="no progress bar")
    co.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from .. import games

    info = games.game(args.game)
    refused = only_for(args, "compare")
    if refused is not None:
        return refused
    from pathlib import Path

    from ..compare import check_pairable, compare, format_table, parse_set

    def bad(message: str) -> int:
        return fail("compare", message)

    if bool(args.changed) == bool(args.set):
        return bad("give the changed data: --changed DIR or one or more --set FILE:PATH=VALUE (not both)")
    if args.races < 1 or args.chunk < 1:
        return bad("--races and --chunk must be at least 1")
    patches, problems = [], []
    for text in args.set or []:
        try:
            patches.append(parse_set(text))
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        for line in problems:
            print(f"biathlon-sim compare: {line}", file=sys.stderr)
        return EXIT_BAD_DATA
    base = load_or_report(args.base)
    if base is None:
        return EXIT_BAD_DATA
    changed = load_or_report(args.changed or args.base, patches)
    if changed is None:
        return EXIT_BAD_DATA
    trails = split_list(args.trails) or list(base.trail_names)
    problems = check_pairable(base, changed, trails)
    if problems:
        for line in problems:
            print(f"biathlon-sim compare: {line}", file=sys.stderr)
        return EXIT_BAD_DATA
    from kernels.blast import consts as C

    block = len(base.biathlete_names) * C.N_COLOURS
    rounding_note(args.races, -(-args.races // block) * block,
                  f"per {info.scenario}: whole blocks of {block} balanced line-ups (every biathlete in every ski colour)")
    if base.data_hash == changed.data_hash:
        print("note: the changed data equals the base (same data hash); every difference will be 0")
    try:
        result = compare(base, changed, trails, args.racers, args.races, args.seed,
                         tuple(split_list(args.players) or ["balanced"]), args.chunk, args.jobs,
                         progress=not args.quiet, correction=args.correction)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(result.describe())
    t = result.table
    nw = result.no_winner
    print(f"races without a winner: base {nw.base.sum():,}, changed {nw.changed.sum():,} of {nw.races.sum():,}")
    shown = t if args.rows is None else t.head(args.rows)
    print(f"win rate per biathlete (all trails{', and per trail' if len(trails) > 1 else ''}) and per ski "
          f"colour, largest change first; diff and its 95% interval in percentage points, paired by race; "
          f"* = significant at 5% after {'Holm' if args.correction == 'holm' else 'Benjamini-Hochberg'} "
          f"correction over {len(t)} rows ({int(t.significant.sum())} significant):")
    print(format_table(shown))
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            t.to_csv(out / "comparison.csv", index=False)
            counts = result.counts.reset_index()
            for key, names in (("trail", base.trail_names), ("biathlete", base.biathlete_names)):
                counts.insert(counts.columns.get_loc(key) + 1, f"{key}_name", [names[i] for i in counts[key]])
            counts.to_csv(out / "counts.csv", index=False)
            from reports.pages import compare_page

            page = compare_page(out, t, result.describe(), counts)
        except OSError as exc:
            return bad(f"--out {args.out}: {exc.strerror or exc}")
        print(f"tables: {out / 'comparison.csv'}, {out / 'counts.csv'} (counts per trail, biathlete and ski colour)")
        print(f"page: {page}")
    return 0
