"""biathlon-sim --game mania exact: the answers chance alone decides, computed exactly."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, data_option, fail, load_or_report, only_for, out_dir, reason


def add_parser(sub) -> None:
    e = sub.add_parser(
        "exact", help="Biathlon Mania: exact answers where chance alone decides (Markov chains)",
        description="For Biathlon Mania, where dice alone decide: the exact distribution of a lone racer's "
                    "turns to finish (a time trial) for each track and format, by Markov chain over squares, "
                    "shooting and penalty loops; and the exact distribution of penalty loops per shooting for "
                    "each shooting die. The simulator's own tests check the race engine against these. With "
                    "--out, the distributions are written as CSV files.",
        epilog="examples:\n  biathlon-sim --game mania exact\n"
               "  biathlon-sim --game mania exact --track red --format mass_start --out out/exact",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("--track", default=None, help="one track (default: every track)")
    e.add_argument("--format", default=None, help="one format: sprint, mass_start or relay (default: every one)")
    e.add_argument("--number-dice", type=int, default=1, choices=(1, 2), help="number dice in play (default 1)")
    e.add_argument("--out", default=None, metavar="DIR", type=out_dir, help="write turns.csv and penalties.csv here")
    data_option(e)
    e.set_defaults(func=cmd_exact)


def cmd_exact(args: argparse.Namespace) -> int:
    refused = only_for(args, "exact")
    if refused is not None:
        return refused
    import numpy as np
    import pandas as pd

    from ..mania.exact import penalty_distribution, turns_distribution

    bundle = load_or_report(args.data, game="mania")
    if bundle is None:
        return EXIT_BAD_DATA
    data = bundle.data
    try:
        tracks = [data.track(args.track).name] if args.track else [t.name for t in data.tracks]
        formats = [data.format(args.format).name] if args.format else [f.name for f in data.formats]
    except KeyError as exc:
        return fail("exact", reason(exc))
    rows, dists = [], []
    for track in tracks:
        for fmt in formats:
            f = data.format(fmt)
            legs = 1
            p = turns_distribution(data, track, fmt, number_dice=args.number_dice, legs=legs)
            t = np.arange(len(p))
            cdf = np.cumsum(p)
            mean = float(p @ t)
            rows.append({"track": track, "format": fmt, "mean_turns": round(mean, 3),
                         "sd": round(float(np.sqrt(p @ t ** 2 - mean ** 2)), 3),
                         "p10": int(np.searchsorted(cdf, 0.1)), "median": int(np.searchsorted(cdf, 0.5)),
                         "p90": int(np.searchsorted(cdf, 0.9)), "p99": int(np.searchsorted(cdf, 0.99))})
            dists.append(pd.DataFrame({"track": track, "format": fmt, "turns": t, "probability": p}))
            del f
    turns = pd.DataFrame(rows)
    print(f"A lone racer's turns to finish (exact; {args.number_dice} number die/dice; a relay row is one leg):")
    print(turns.to_string(index=False))
    pens = []
    for die in ("individual", "relay"):
        faces = getattr(data.dice, die)
        spares = max((fm.spare_shots for fm in data.formats if fm.shooting_die == die), default=0)
        dist = penalty_distribution(faces, data.rules.targets, spares, data.switches.calibre_uses_spare)
        pens.append(pd.DataFrame({"die": die, "spare_shots": spares, "penalties": np.arange(len(dist)),
                                  "probability": dist}))
    pens = pd.concat(pens, ignore_index=True)
    print("\nPenalty loops per shooting (exact):")
    print(pens.pivot(index="penalties", columns="die", values="probability").round(6).to_string())
    if args.out:
        from pathlib import Path

        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            pd.concat(dists, ignore_index=True).to_csv(out / "turns.csv", index=False)
            turns.to_csv(out / "turns_summary.csv", index=False)
            pens.to_csv(out / "penalties.csv", index=False)
            from reports.pages import exact_page

            exact_page(out, turns, pd.concat(dists, ignore_index=True), pens,
                       f"{args.number_dice} number die/dice; a relay row is one leg")
        except OSError as exc:
            return fail("exact", f"--out {args.out}: {exc.strerror or exc}")
        print(f"\ntables: {out}/turns.csv, turns_summary.csv, penalties.csv; page: {out}/page.html")
    return 0
