"""biathlon-sim report: the parser and the call."""
from __future__ import annotations

import argparse

from .common import fail, game_mismatch, out_dir, reason


def add_parser(sub, info) -> None:
    E, S = info.entrant, info.scenario
    others = [a for a in info.axes[1:]]
    alone = ", one persona" if info.players else ""
    rp = sub.add_parser(
        "report", help="turn a study's results into the balance report (HTML, figures, tables)",
        description="Read a study's output folder (biathlon-sim study --out) or a run's (biathlon-sim run "
                    "--out), of whichever game played it (--game, if given, must agree), and write the "
                    "balance report to --out: report.html (self-contained: findings "
                    "written from the numbers, interactive figures, sortable tables), every figure as PNG "
                    "and SVG in figures/, every table as CSV in tables/, and findings.txt. The page opens "
                    f"with a verdict: every win rate (in {info.title}: per {' and '.join([', '.join([E, *others]), 'seat'])}, "
                    f"on each {S} and number of racers) against a tolerance band around its fair share "
                    "(--band), what to change first, and the health of the results. Every rate carries "
                    f"its sample size and a confidence interval. Sections the study cannot support (no paired variants{alone}) "
                    "are replaced by a sentence naming the cells that would enable them "
                    "(docs/reports.md). Exits 2 with one line when RESULTS is not such a folder.",
        epilog="examples:\n  biathlon-sim report runs/balance --out out/balance\n"
               "  biathlon-sim report runs/wax --out out/wax --confidence 0.99\n"
               "  biathlon-sim report runs/kurz4 --out out/kurz4          # a single run\n"
               "  biathlon-sim report runs/balance --out out/strict --band 0.05   # fair within 5%\n"
               "  biathlon-sim report runs/balance --out out/sprinter --reference sprinter\n"
               "  biathlon-sim --game mania report runs/mania6 --out out/mania6     # a single run\n"
               "  biathlon-sim --game skitour report runs/skitour --out out/skitour --band 0.05",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("results", metavar="RESULTS", help="a study's or a run's output folder")
    rp.add_argument("--out", required=True, metavar="DIR", type=out_dir, help="where the report goes (created if needed)")
    rp.add_argument("--confidence", type=float, default=0.95, help="level of every interval (default 0.95)")
    rp.add_argument("--reference", default=None, metavar="PERSONA",
                    help="the persona whose balanced line-ups make the main tables (default: the one "
                         "with the most races)" if info.players else argparse.SUPPRESS)
    rp.add_argument("--band", type=float, default=None, metavar="SHARE",
                    help="tolerance band around a fair share: wins per fair share within 1 +- SHARE count as "
                         "fair (default: the study file's [report] band, else 0.1)")
    rp.add_argument("--quiet", action="store_true", help="no progress lines")
    rp.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from reports.report import ReportOptions, build_report

    from ..results_folder import open_results

    if not 0 < args.confidence < 1:
        return fail("report", f"--confidence must lie strictly between 0 and 1, got {args.confidence}")
    if args.band is not None and not 0 < args.band < 1:
        return fail("report", f"--band must lie strictly between 0 and 1 (a share of the fair share), got {args.band}")
    try:
        source = open_results(args.results)
        mismatch = game_mismatch(args, source.game, f"the results in {args.results}")
        if mismatch:
            return fail("report", mismatch)
        options = ReportOptions(confidence=args.confidence, reference=args.reference, band=args.band)
        report = build_report(source, args.out, options, log=(lambda _: None) if args.quiet else print)
    except (ValueError, KeyError, OSError) as exc:
        return fail("report", reason(exc))
    print("findings:")
    for line in report.findings:
        print(f"- {line}")
    print(f"report: {args.out}/report.html ({len(report.figure_names)} figures in {args.out}/figures/, "
          f"{len(report.table_names)} tables in {args.out}/tables/)")
    return 0
