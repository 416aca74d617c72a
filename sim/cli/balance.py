"""biathlon-sim balance: the parser and the call (sim.balance)."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from .common import EXIT_BAD_DATA, fail, jobs_value, out_dir, positive_number, races_count


def add_parser(sub) -> None:
    ba = sub.add_parser(
        "balance", help="search the data for the smallest changes that meet a balance file's targets",
        description="Search a game's data for the fewest and smallest changes of the knobs a balance file "
                    "allows (docs/balance.md) that bring its targets (win rates within a band around the fair "
                    "share, race length within a range) into their bands. Candidates play the same races "
                    "(common random numbers); a candidate significantly worse than the incumbent after a "
                    "quarter or a half of its races is dropped (one-sided paired z-test at the file's alpha). "
                    "Writes DIR/data (the changed data folder), DIR/changes.md and .csv, DIR/targets.csv and "
                    "DIR/report.md (every target before and after on fresh seeds), DIR/sensitivities.csv and "
                    "DIR/log.jsonl (every evaluation). Interrupted, the same command resumes from the log.",
        epilog="examples:\n"
               "  biathlon-sim balance experiments/balance_blast.toml --out runs/bal-blast --jobs 2\n"
               "  biathlon-sim balance experiments/balance_mania.toml --out runs/bal-mania --max-minutes 10\n"
               "  biathlon-sim balance experiments/balance_blast.toml --dry-run\n"
               "  biathlon-sim balance experiments/balance_blast_ship.toml --out runs/b --scheduler tcp://10.0.0.5:8786",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ba.add_argument("file", metavar="FILE", help="the balance file (TOML, docs/balance.md)")
    ba.add_argument("--out", metavar="DIR", type=out_dir, help="where the results go (required unless --dry-run)")
    ba.add_argument("--max-races", type=races_count, default=None, metavar="N",
                    help="the search's race budget, over every evaluation (default: the file's budget_races)")
    ba.add_argument("--max-minutes", type=positive_number, default=None, metavar="M",
                    help="the search's time budget in minutes (default: the file's budget_minutes)")
    ba.add_argument("--races", type=races_count, default=None, metavar="N",
                    help="races per design of a full evaluation (default: the file's races)")
    ba.add_argument("--check-races", type=races_count, default=None, metavar="N",
                    help="races per design of the before/after check on fresh seeds (default: the file's)")
    ba.add_argument("--jobs", type=jobs_value, default=1, help="worker processes (-1: all cores)")
    ba.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="play on the dask.distributed cluster at ADDRESS (the same results as locally)")
    ba.add_argument("--dry-run", action="store_true", help="check the file, list designs, targets and knobs")
    ba.add_argument("--quiet", action="store_true", help="print only the result")
    ba.set_defaults(func=cmd_balance)


def cmd_balance(args: argparse.Namespace) -> int:
    from ..balance import Search, change_cost, load_balance

    try:
        bf = load_balance(args.file)
    except DataError as exc:
        for p in exc.problems:
            print(f"biathlon-sim balance: {p}", file=sys.stderr)
        return EXIT_BAD_DATA
    print(f"{bf.title}: {bf.game}, {len(bf.designs)} design(s), {len(bf.targets)} target(s), "
          f"{len(bf.knobs)} knob(s), seed {bf.seed}, check seed {bf.check_seed}")
    if args.dry_run:
        for d in bf.designs:
            print(f"  design {d.label}: seed {d.seed}, check seed {d.check_seed}")
        for t in bf.targets:
            what = (f"win rate by {t.by} within ±{t.within_pp:g} pp of the fair share" if t.metric == "win_rate"
                    else f"mean rounds in [{t.lo:g}, {t.hi:g}]")
            print(f"  target {t.name}: {what}")
        for k in bf.knobs:
            span = f"choices {list(k.choices)}" if k.choices else f"{k.lo:g} .. {k.hi:g} step {k.step:g}"
            print(f"  knob {k.name}: {', '.join(m.label() for m in k.members)}; {span}; cost {k.cost:g}"
                  + ("; held at its [start] value" if k.hold else ""))
        print(f"  change cost of the base data: {change_cost(bf, {}):g}")
        return 0
    if not args.out:
        return fail("balance", "--out DIR is required (or --dry-run)")
    log = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    search = Search(bf, args.out, n_jobs=args.jobs, budget_races=args.max_races,
                    budget_minutes=args.max_minutes, races=args.races, log=log, scheduler=args.scheduler)
    outcome = search.run()
    paths = write_outcome(outcome, args.check_races)
    print(f"stopped: {search.stopped}; {search.races_used:,} races in the search "
          f"({search.races_played:,} played now, the rest read from {args.out}/log.jsonl)")
    print((paths["changes"]).read_text().rstrip())
    check = __import__("pandas").read_csv(paths["targets"])
    print(f"targets in band on fresh seeds: {int(check.met_before.sum())} of {len(check)} before, "
          f"{int(check.met_after.sum())} of {len(check)} after")
    for key in ("data", "report", "targets", "front", "sensitivities"):
        if key in paths:
            print(f"{key}: {paths[key]}")
    return 0


def write_outcome(outcome, check_races: int | None = None) -> dict:
    """A finished search's outputs: the core's tables and texts (Outcome.write) and its HTML page
    (reports.pages.balance_page); returns every path, the page's under "page"."""
    from reports.pages import balance_page

    paths, page = outcome.write(check_races)
    paths["page"] = balance_page(outcome.search.out, **page)
    return paths
