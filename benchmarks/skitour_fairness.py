"""Ski Tour: is every nation within 3 points of a fair share? The re-check of the shipped nations
(issue 31; docs/skitour/data-format.md, "Balanced nations"), both sides and both courses, in one
command:

    .venv/bin/python benchmarks/skitour_fairness.py --seed 7 --jobs 2
    .venv/bin/python benchmarks/skitour_fairness.py --against skitour-unbalanced --players sprinter --band 8

Plays `compare` (sim.compare) on each side: the shipped data (or `--data`) against `--against`
(default the set it replaced, skitour-balanced-before-look), the same races on both, 4 racers,
`--races` per course (10,000: 8,000 per nation and course, about +-1 point), under `--players`
(default the game's default player). Prints every nation's win rate on each course, before
(`--against`) and now, with 95% Wilson intervals, the paired change, and how many figures lie
within `--band` points of 25%. Exit status 1 when a figure of the data lies outside the band.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim import games  # noqa: E402
from sim.compare import compare  # noqa: E402

FAIR = 25.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None, help="the data checked (default: shipped)")
    p.add_argument("--against", default="skitour-balanced-before-look", help="the data it is compared with")
    p.add_argument("--players", default=None, help="one player for every seat (default: the default player)")
    p.add_argument("--races", type=int, default=10000, help="races per course and side (default 10000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--band", type=float, default=3.0, help="points either side of 25%% (default 3)")
    p.add_argument("--jobs", type=int, default=1)
    a = p.parse_args(argv)
    mod = games.game("skitour").load()
    data, against = mod.load_bundle(a.data), mod.load_bundle(a.against)
    players = (a.players,) if a.players else None
    print(f"Ski Tour nations, 4 racers, {a.races:,} races per course and side, seed {a.seed}, players "
          f"{a.players or 'default'}; data {data.data_hash} against {a.against} ({against.data_hash}); "
          f"win rate in %, 95% Wilson intervals; band {FAIR - a.band:g}-{FAIR + a.band:g}")
    print(f"{'side':<9}{'nation':<16}{'course':<9}{'before (' + a.against + ')':>36}{'now':>22}{'change':>24}")
    inside, total, worst = 0, 0, (0.0, "")
    for side in ("basic", "advanced"):
        r = compare(data, against, racers=4, races=a.races, seed=a.seed, players=players, n_jobs=a.jobs,
                    game="skitour", options={"side": side})
        t = r.table[r.table.scope == "nation on course"].sort_values(["course", "nation"], ascending=[False, True])
        for row in t.itertuples():
            now, lo, hi = 100 * row.base_win, 100 * row.base_low, 100 * row.base_high
            off = abs(now - FAIR)
            ok = off <= a.band
            inside, total = inside + ok, total + 1
            worst = max(worst, (off, f"{row.nation} on {row.course}, {side}"))
            print(f"{side:<9}{row.nation:<16}{row.course:<9}"
                  f"{100 * row.changed_win:>16.1f} [{100 * row.changed_low:.1f}, {100 * row.changed_high:.1f}]"
                  f"{now:>10.1f} [{lo:.1f}, {hi:.1f}]{'' if ok else ' !'}"
                  f"{-100 * row.diff:>+12.2f} [{-100 * row.high:+.2f}, {-100 * row.low:+.2f}]")
    print(f"{inside} of {total} figures within {a.band:g} points of {FAIR:g}%; the largest distance "
          f"{worst[0]:.1f} points ({worst[1]})")
    return 0 if inside == total else 1


if __name__ == "__main__":
    sys.exit(main())
