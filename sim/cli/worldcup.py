"""biathlon-sim worldcup: the parser and the call."""
from __future__ import annotations

import argparse

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, fail, jobs_option, load_or_report, only_for, out_dir, races_count,
    reason, repair_option, scenario_option, scheduler_option, seed_value, split_list,
)


def _titles(command: str) -> str:
    """The games `command` serves, by title (the registry's)."""
    from .. import games

    return " and ".join(g.title for g in games.serving(command))


def _entrants(command: str) -> str:
    from .. import games

    return " or ".join(sorted({g.entrant for g in games.serving(command)}))


def add_parser(sub, info) -> None:
    wc = sub.add_parser(
        "worldcup", help=f"{_titles('worldcup')} only: play World Cups, title odds per "
                         f"{_entrants('worldcup')} and by draft position",
        description=f"{info.title}: play World Cups of four races (Lang, Kurz, Short, Long by default) by the rules in "
                    "docs/rules.md, World Cup: race 1 ski colours at random; from race 2 each player, in "
                    "the previous race's finishing order, takes the earliest free ski colour; biathletes "
                    "drafted in ski colour order before every race, as the book's set-up is repeated (or "
                    "once before race 1 with --no-redraft, each player keeping its biathlete); places scored as points, lowest total wins, ties "
                    "to the better place in the last race. Draft rules: rated (each picks the free "
                    "biathlete with the best win rate in a calibration run of balanced line-ups: on the "
                    "race's trail, or the mean over the cup's trails with --no-redraft), random, or a preference "
                    "list of names. Prints each biathlete's title odds with 95% Wilson intervals, mean "
                    "points, title odds by draft position and the first-minus-last-pick gap paired by "
                    "cup. A cup is a function of (--seed, cup index): the same whatever --jobs and "
                    "--chunk; race k of cup c is race index c x races + k - 1 of the seed (replay it with "
                    "`replay` and the line-up from cups.csv).",
        epilog="examples:\n"
               "  biathlon-sim worldcup --cups 20000 --jobs 2\n"
               "  biathlon-sim worldcup --cups 20000 --draft random --out runs/cup-random\n"
               "  biathlon-sim worldcup --cups 10000 --no-redraft --racers 5\n"
               "  biathlon-sim worldcup --cups 5000 --draft Olsson,Owens,Wei,Pinto,Fischer,Bakken,Girard,Leitner",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    wc.add_argument("--cups", type=races_count, default=10000, help="World Cups to play (default 10000)")
    wc.add_argument("--racers", type=int, default=4, help="players per cup (default 4)")
    wc.add_argument("--draft", default="rated", metavar="RULE",
                    help="rated, random, or a comma-separated preference list of biathletes (default rated)")
    wc.add_argument("--redraft", action=argparse.BooleanOptionalAction, default=True,
                    help="draft again before every race, in that race's ski colour order (the book's set-up; "
                         "default); --no-redraft drafts once before race 1 and each player keeps its biathlete")
    wc.add_argument("--rating-races", type=races_count, default=9600,
                    help="races per trail of the calibration run behind a rated draft (default 9600)")
    scenario_option(wc, info, "trails", several=True, default="Lang,Kurz,Short,Long",
                    more=", the cup's races in order (default Lang,Kurz,Short,Long)")
    wc.add_argument("--players", default=None, help="one player for all seats or one per seat (default: the game's default player, "
                                                         f"{info.default_player})")
    wc.add_argument("--seed", type=seed_value, default=1)
    wc.add_argument("--chunk", type=races_count, default=500, help="cups per task (default 500)")
    jobs_option(wc)
    wc.add_argument("--out", default=None, metavar="DIR", type=out_dir,
                    help="write cups.csv, title_odds.csv, by_pick.csv, ratings.csv and races.parquet here, and "
                         "keep the calibration's races and every finished chunk of cups in DIR/runs/: the same "
                         "command resumes an interrupted one (more --cups extend it)")
    scheduler_option(wc)
    repair_option(wc)
    wc.add_argument("--quiet", action="store_true", help="no progress bars")
    data_option(wc)
    wc.set_defaults(func=cmd_worldcup)


def cmd_worldcup(args: argparse.Namespace) -> int:
    refused = only_for(args, "worldcup")
    if refused is not None:
        return refused
    import shlex
    import sys
    from pathlib import Path

    from .. import games
    from ..worldcup import CupRules, play_world_cups

    def bad(message: str) -> int:
        return fail("worldcup", message)

    if args.cups < 1 or args.chunk < 1 or args.rating_races < 1:
        return bad("--cups, --chunk and --rating-races must be at least 1")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    draft = args.draft.strip()
    draft = draft.lower() if draft.lower() in ("rated", "random") else tuple(split_list(draft))
    rules = CupRules(trails=tuple(split_list(args.trails)), racers=args.racers, draft=draft,
                     redraft=args.redraft, players=tuple(split_list(args.players) or [games.game("blast").default_player]))
    try:
        cups = play_world_cups(bundle, rules, args.cups, args.seed, chunk_size=args.chunk, n_jobs=args.jobs,
                               progress=not args.quiet, keep_races=bool(args.out), rating_races=args.rating_races,
                               scheduler=args.scheduler, out=args.out, repair=args.repair, log=print,
                               command="biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(cups.describe() + f"; data {bundle.data_hash}")
    if cups.ratings is not None:
        print(f"draft ratings: win rate per trail in {args.rating_races:,} races of balanced line-ups per trail"
              + ("" if rules.redraft else "; the draft uses their mean (cup)"))
        print(cups.ratings.sort_values("cup", ascending=False).round(4).to_string())
    odds = cups.title_odds()
    print("\ntitle odds per biathlete (its share of all titles, 95% Wilson interval), cups drafted, "
          "odds when drafted, mean cup points when drafted, mean place per race raced"
          + (" (with --redraft: by the biathlete each player drafted for race 1)" if rules.redraft else "") + ":")
    print(odds.round(4).to_string())
    print("\ntitle odds by place in the race 1 draft (1 = first pick, the earliest ski colour of race 1):")
    print(cups.by_pick().round(4).to_string())
    gap = cups.pick_gap()
    print(f"first pick minus last pick: {gap['mean'] * 100:+.2f} points [{gap['low'] * 100:+.2f}, "
          f"{gap['high'] * 100:+.2f}] (95%, paired by cup over {gap['units']:,} cups), p = "
          + ("<1e-15" if gap["p"] < 1e-15 else f"{gap['p']:.2g}"))
    if cups.cups.player_name.nunique() > 1:
        print("\ntitle odds by player:")
        print(cups.by_player().round(4).to_string())
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            cups.cups.to_csv(out / "cups.csv", index=False)
            odds.to_csv(out / "title_odds.csv")
            cups.by_pick().to_csv(out / "by_pick.csv")
            if cups.ratings is not None:
                cups.ratings.to_csv(out / "ratings.csv")
            cups.races.to_parquet(out / "races.parquet", index=False)
            from reports.pages import worldcup_page

            worldcup_page(out, cups.describe(), odds, cups.by_pick(), cups.ratings, gap,
                          cups.by_player() if cups.cups.player_name.nunique() > 1 else None)
        except OSError as exc:
            return bad(f"--out {args.out}: {exc.strerror or exc}")
        print(f"\ntables: {out}/cups.csv (one row per cup and player), title_odds.csv, by_pick.csv"
              + (", ratings.csv" if cups.ratings is not None else "")
              + ", races.parquet (one row per race and racer, with cup and race_no)")
    return 0
