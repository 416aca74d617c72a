"""biathlon-sim compare: the parser and the call."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, MAX_RACES, compile_notice, fail, game_options, jobs_option, load_or_report, option_arguments,
    out_dir, persona_names, races_count, reason, repair_option, rounding_note, scenario_option, seed_value,
    split_list, whole,
)

#: the examples of every game; help under --game X keeps X's (sim.cli._speak_of)
EXAMPLES = (
    "examples:\n"
    "  biathlon-sim compare --set 'biathletes/olsson.toml:accuracy=[2,4,5]' --races 40000 --jobs 2\n"
    "  biathlon-sim compare --set 'biathletes/olsson.toml:card[Long Glide].top.flat=7' --trail Kurz\n"
    "  biathlon-sim compare --set game.toml:gear.red.bullets=5 --set 'game.toml:gear.red.wax={ black = 1 }'\n"
    "  biathlon-sim compare --set game.toml:switches.coach_boost=until_usable --out runs/coach\n"
    "  biathlon-sim compare --base my-data --changed my-data-v2 --racers 5 --races 20000\n"
    "  biathlon-sim --game mania compare --set 'tracks/red.toml:penalty.squares=\"w w w w\"' --track red --races 4000\n"
    "  biathlon-sim --game mania compare --set game.toml:switches.penalty_gate=one --format relay --racers 4\n"
    "  biathlon-sim --game skitour compare --set nations/norway.toml:columns.sprint=2 --course Starter --races 2000\n"
    "  biathlon-sim --game skitour compare --set 'nations/norway.toml:wax.tokens=[\"blank\",\"blank\",\"blank\","
    "\"blank\",\"blank\",\"blank\",\"blank\",\"blank\"]' --racers 3 --out runs/norway-no-wax")


#: the components compare pairs, in each game's words (the game modules' COMPONENTS list them all)
COMPONENT_WORDS = {"blast": "bullets, wax, Motivation cards, icy actions, coach boosts, eliminations",
                   "skitour": "wax tokens, extra columns, sprints, stamina, drafting, downhill bonuses, penalty "
                              "laps, collapses",
                   "mania": "turns, penalty loops, the special squares X, T and O, the group rule, calibre "
                            "re-rolls, relay spare shots"}


def add_parser(sub, info) -> None:
    E, S = info.entrant, info.scenario
    co = sub.add_parser(
        "compare", help="what-if: a base and a changed data set on the same races, win rates, race length and "
                        "component use compared",
        description=f"{info.title}: play the same races on a base data set and a changed one (--changed DIR, or "
                    f"the base with --set patches) and report what moved: the win rate per {E} over all {S}s, "
                    f"per {E} on each {S}, per value of every other seat axis and per seat (the base and changed win rate, "
                    f"their difference with a 95% interval, a p-value and a flag where it stays significant after "
                    f"correcting for the number of rows: Holm; --correction bh for Benjamini-Hochberg; largest "
                    f"change first); then race length and the use of the game's components per {S} (rounds per "
                    f"race, and per racer and race what the game's report counts: "
                    f"{COMPONENT_WORDS.get(info.name, 'its components')}), "
                    f"each with its paired difference and interval.\n\n"
                    f"Pairing: both data sets play races 0 .. N-1 of balanced line-ups on each {S} with the same "
                    f"seed, so race i seats the same {E}s in the same seats and starts from the same shuffles "
                    f"and dice stream on both (common random numbers). For a {E} (or seat), each race it raced "
                    f"in gives one paired difference, won on the changed data minus won on the base, for the "
                    f"same race and seat; for race length and component use, each race gives one (its value on "
                    f"the changed data minus on the base). Races are independent, so the interval and test come "
                    f"from the variance of that per-race difference (standard error sd / sqrt(races)). Most "
                    f"races end the same way on both data sets, so this is far tighter than comparing two "
                    f"independent runs. Each {S} plays with its own seed derived from --seed and its name.\n\n"
                    "--set FILE:PATH=VALUE changes one value of a data file as it is read (docs/studies.md, "
                    "Patches): FILE relative to the data directory, PATH dotted keys where key[Name] picks "
                    "an entry by name, VALUE in TOML (a bare word is a string). A patch or data set that "
                    "does not fit is reported one line per problem, exit status 2.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    co.add_argument("--base", default=None, metavar="DIR", help="base data directory (default: shipped)")
    co.add_argument("--changed", default=None, metavar="DIR", help="changed data directory")
    co.add_argument("--set", action="append", default=None, metavar="FILE:PATH=VALUE",
                    help="change one value of the base data (repeat for several changes)")
    scenario_option(co, info, "trails", several=True, more=" (default: all)")
    co.add_argument("--racers", type=int, default=4, help="racers per race" + (" (teams in a relay)" if info.teams
                                                                               else "") + " (default 4)")
    co.add_argument("--races", type=races_count, default=9600,
                    help=f"races per {S} on each data set, rounded up to whole blocks of balanced line-ups "
                         f"(every {' and '.join(info.axes)} in every seat; default 9600)")
    co.add_argument("--seed", type=seed_value, default=1)
    option_arguments(co, info)
    if info.players:
        co.add_argument("--players", default=None, help=f"one player for all seats or one per seat: "
                                                        f"{persona_names(info)}, random, or persona files "
                                                        f"(default {info.default_player}, the game's default player)")
    co.add_argument("--correction", choices=("holm", "bh"), default="holm",
                    help="multiple-comparison correction over the rows (default holm)")
    co.add_argument("--rows", type=whole(1, MAX_RACES, "a number of rows"), default=None,
                    help="print only the first N win-rate rows (default all)")
    co.add_argument("--chunk", type=races_count, default=4800, help="races per task (default 4800)")
    jobs_option(co)
    co.add_argument("--out", default=None, metavar="DIR", type=out_dir,
                    help=f"write comparison.csv, measures.csv, counts.csv (per {S}, {', '.join(info.axes)} and "
                         f"seat) and page.html here, and keep each data set's races per {S} as a run in "
                         f"DIR/runs/base/ and DIR/runs/changed/: the same command resumes an interrupted "
                         f"comparison with its finished chunks")
    co.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="play the chunks on the dask.distributed cluster at ADDRESS (tcp://host:8786)")
    repair_option(co)
    co.add_argument("--quiet", action="store_true", help="no progress bar")
    co.set_defaults(func=cmd_compare)


def _lines(problems: list[str]) -> int:
    for line in problems:
        print(f"biathlon-sim compare: {line}", file=sys.stderr)
    return EXIT_BAD_DATA


def cmd_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .. import games
    from ..blocks import round_to_blocks
    from ..compare import check_pairable, compare, format_measures, format_table, parse_set

    info = games.game(args.game)

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
        return _lines(problems)
    base = load_or_report(args.base, game=info.name)
    if base is None:
        return EXIT_BAD_DATA
    changed = load_or_report(args.changed or args.base, patches, game=info.name)
    if changed is None:
        return EXIT_BAD_DATA
    mod = info.load()
    trails = split_list(args.trails) or list(mod.scenarios(base))
    problems = check_pairable(base, changed, trails, info.name)
    if problems:
        return _lines(problems)
    players = tuple(split_list(getattr(args, "players", None)) or [info.default_player])
    options = game_options(info, args) or None
    try:
        info.check_racers(args.racers)
        design = mod.make_design(trails[0], args.racers, players=players, options=options)
        mod.check_design(base, design)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    block = mod.block(base, design)
    rounding_note(args.races, round_to_blocks(args.races, block),
                  f"per {info.scenario}: whole blocks of {block} balanced line-ups (every "
                  f"{' and '.join(info.axes)} in every seat)")
    if base.data_hash == changed.data_hash:
        print("note: the changed data equals the base (same data hash); every difference will be 0")
    compile_notice(info.name)
    import shlex

    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        result = compare(base, changed, trails, args.racers, args.races, args.seed, players, args.chunk,
                         args.jobs, progress=not args.quiet, correction=args.correction, game=info.name,
                         options=options, scheduler=args.scheduler, out=args.out, repair=args.repair,
                         command=command, log=print)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(result.describe())
    if result.chunks_reused:
        print(f"{result.chunks_reused} finished chunk(s) of an earlier run of this comparison in "
              f"{args.out}/runs/ reused")
    t, w = result.table, result.words
    nw = result.no_winner
    print(f"races without a winner: base {nw.base.sum():,}, changed {nw.changed.sum():,} of {nw.races.sum():,}")
    shown = t if args.rows is None else t.head(args.rows)
    correction = "Holm" if args.correction == "holm" else "Benjamini-Hochberg"
    others = "".join(f", per {w.scope(x)}" for x in w.axes[1:])
    seat = "team" if (t.scope == "team").any() else "seat"
    print(f"win rate per {w.scope(w.entrant)} (all {w.scenario}s{f', and per {w.scenario}' if len(trails) > 1 else ''})"
          f"{others} and per {seat}, largest change first; diff and its 95% interval in percentage points, paired "
          f"by race; * = significant at 5% after {correction} correction over {len(t)} rows "
          f"({int(t.significant.sum())} significant):")
    print(format_table(shown))
    m = result.measures
    print(f"\nrace length and component use per {w.scenario} (means per race, or per racer and race), diff and its "
          f"95% interval in the measure's units, paired by race; * = significant after {correction} correction "
          f"over {len(m)} rows ({int(m.significant.sum())} significant):")
    print(format_measures(m, w.scenario))
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            t.to_csv(out / "comparison.csv", index=False)
            m.to_csv(out / "measures.csv", index=False)
            counts = counts_table(result, mod.names(base, design))
            counts.to_csv(out / "counts.csv", index=False)
            from reports.pages import compare_page

            page = compare_page(out, t, result.describe(), counts, measures=m, words=w)
        except OSError as exc:
            return bad(f"--out {args.out}: {exc.strerror or exc}")
        print(f"tables: {out / 'comparison.csv'}, {out / 'measures.csv'}, {out / 'counts.csv'} (counts per "
              f"{w.scenario}, {', '.join(w.axes)} and seat)")
        print(f"page: {page}")
    return 0


def counts_table(result, names: dict):
    """The comparison's counts with a name beside each id column (seat: 1-based)."""
    counts = result.counts.reset_index()
    for key in result.words.keys:
        at = counts.columns.get_loc(key) + 1
        if key == "seat":
            counts.insert(at, "seat_number", counts[key] + 1)
        else:
            counts.insert(at, f"{key}_name", [names[key][i] for i in counts[key]])
    return counts
