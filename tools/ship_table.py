"""The ship test's table (docs/balance.md, "The shipped Blast set"): from a balance search's
targets.csv, per persona, how many biathlete-trail win rates are within the issue's bands (3 points
of the fair share under balanced, 5 under every other persona; the search itself aims inside them),
the largest and the RMS distance from the fair share, before and after; and how many statistics no
change that moves every persona alike could meet (sim.balance.persona_agreement).

    python tools/ship_table.py runs/balance-ship/targets.csv [OTHER/targets.csv ...]
    python tools/ship_table.py --file-bands runs/balance-default/targets.csv

--file-bands: each statistic's band as the balance file set it (targets.csv's band_low and
band_high: issue 31's objectives, the binding player at its within_pp and the others at bound_pp),
not issue 17's.

Each further file adds its "after" as a column (another data set checked on the same races: the
same check seed and races)."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from sim.balance import persona_agreement, persona_offsets

ISSUE_BAND = {"balanced": 3.0}          # points; every other persona: 5
OTHER_BAND = 5.0


def biathletes(path: str, file_bands: bool = False) -> pd.DataFrame:
    c = pd.read_csv(path)
    c = c[(c.metric == "win_rate") & c.statistic.str.startswith("biathlete ")].copy()
    if file_bands:
        return c
    half = c.persona.map(ISSUE_BAND).fillna(OTHER_BAND) / 100
    centre = 1.0 / c.racers
    return c.assign(band_low=centre - half, band_high=centre + half)


def summary(c: pd.DataFrame, when: str) -> pd.DataFrame:
    c = persona_offsets(c, when)            # off and half in points
    g = c.assign(inside=c.off.abs() <= c.half + 1e-12).groupby("persona", sort=False)
    return pd.DataFrame({"in band": g.inside.sum().astype(int), "of": g.size(),
                         "largest": g.off.apply(lambda x: x.abs().max()).round(1),
                         "RMS": g.off.apply(lambda x: float(np.sqrt((x ** 2).mean()))).round(1)})


def main(paths: list[str], file_bands: bool = False) -> None:
    checks = {p: biathletes(p, file_bands) for p in paths}
    first = checks[paths[0]]
    cols = {"before": summary(first, "before"), "after": summary(first, "after")}
    for p in paths[1:]:
        cols[p] = summary(checks[p], "after")
    table = pd.concat(cols, axis=1)
    pd.set_option("display.width", 200)
    bands = "the balance file's bands" if file_bands else "issue 17's bands (balanced ±3, others ±5)"
    print(f"biathlete win rates, {bands}; first file {paths[0]} "
          f"({int(first.races.max()):,} races per design, check seed(s) {sorted(set(first.seed))[:3]}...)")
    print(table.to_string())
    for p, c in checks.items():
        for when in (("before", "after") if p == paths[0] else ("after",)):
            a = persona_agreement(c, when)
            print(f"{p} {when}: {int((~a.common_shift_meets).sum())} of {len(a)} biathlete statistics out of reach "
                  f"of any change that moves every persona alike")
            print("  " + split_text(c, when))
            print("  " + reach_text(c, when))


def split_text(c: pd.DataFrame, when: str) -> str:
    """Each persona's distance from the fair share split into the part the personas share (their
    mean, per statistic) and its own part (the rest): RMS over the statistics, in points."""
    o = persona_offsets(c, when)
    shared = o.groupby(["scenario", "racers", "statistic"]).off.transform("mean")
    own = (o.off - shared).groupby(o.persona, sort=False).apply(lambda x: float(np.sqrt((x ** 2).mean())))
    per_stat = o.assign(shared=shared).drop_duplicates(["scenario", "racers", "statistic"]).shared
    return (f"shared part {float(np.sqrt((per_stat ** 2).mean())):.1f} points RMS; own part "
            + ", ".join(f"{k} {v:.1f}" for k, v in own.items()))


def reach_text(c: pd.DataFrame, when: str) -> str:
    """Of the statistics a change moving every persona alike could put in every persona's band,
    how many are there already, and for the rest the shift that would do it (the middle of the
    reachable range): what is left for persona-uniform changes."""
    o = persona_offsets(c, when)
    rows = []
    for key, g in o.groupby(["scenario", "statistic"], sort=False):
        lo, hi = (g.off - g.half).max(), (g.off + g.half).min()      # shifts s with |off - s| <= half for all
        if lo > hi + 1e-12:
            continue
        inside = bool(((g.off.abs() - g.half) <= 1e-12).all())
        rows.append((key, inside, 0.0 if lo <= 0 <= hi else (lo if lo > 0 else hi)))
    missed = [(k, s) for k, inside, s in rows if not inside]
    text = (f"{len(rows) - len(missed)} of the {len(rows)} statistics a persona-uniform change could meet are met "
            f"under every persona")
    if missed:
        text += "; the others need a shift of " + ", ".join(
            f"{stat.removeprefix('biathlete ')} on {scen} {-s:+.1f}" for (scen, stat), s in missed)
    return text


if __name__ == "__main__":
    files = [a for a in sys.argv[1:] if a != "--file-bands"]
    if not files:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(files, "--file-bands" in sys.argv[1:])
