"""Ask for a precision, get it: how many races a cell needs so that every win rate in it is known
to ±h at a stated confidence, from a pilot of its own races (a two-stage design).

Why two stages and not "play until the interval is narrow enough": stopping when an interval first
looks narrow enough is a sequential test, and its intervals are too narrow unless they are widened
for the repeated looks (a confidence sequence). Stein's two-stage procedure (Stein 1945, Ann. Math.
Statist. 16, 243-258) avoids the repeated look: a pilot of fixed size estimates the variance only,
the total is sized from that estimate once, and the final interval uses every race. The total does
not depend on where the win rates lie, only on their spread, so the final Wald/Wilson interval
keeps its coverage (tests/test_precision.py checks it on balanced data). Races are replayed by
index, so the pilot is the first races of the cell and the total is a function of the seed: the
same study gives the same race count and the same table on any machine and worker count.

The pilot's variance is itself an estimate, so a total sized from it as it stands misses the
target in about a run in five (the final half-width lands above it whenever the pilot happened to
show a variance below the truth). The total is therefore sized from the variance's one-sided
upper confidence bound at ASSURANCE (95%): s^2 * k / chi2_{k, 5%}, with k the pilot's clusters
(blocks) less one, the chi-square bound on a variance estimated from k degrees of freedom, so that
the final half-width meets the target in at least 95% of runs (tests/test_precision.py measures
it over replicate runs). The margin is what the pilot's size buys: 1.6 x the races with a
30-block pilot, 1.1 x with 500 blocks.

The variance is estimated as the design played it: balanced line-ups repeat within blocks, so an
entrant's wins are clustered by block, and the variance of a win rate is the cluster-robust
(sandwich) variance over blocks; a design effect above 1 asks for more races than the binomial
formula would.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .blocks import round_to_blocks
from .stats import z_value


#: the share of runs in which a sized cell's final half-width meets its target (at least)
ASSURANCE = 0.95


def variance_margin(clusters: int, assurance: float = ASSURANCE) -> float:
    """How much to widen a variance estimated from `clusters` independent blocks so that it bounds
    the true variance with probability `assurance`: k / chi2.ppf(1 - assurance, k), k = clusters - 1
    (1 where a single cluster leaves no degree of freedom: nothing to bound it with)."""
    from scipy.stats import chi2

    k = int(clusters) - 1
    return float(k / chi2.ppf(1 - assurance, k)) if k >= 1 else 1.0


@dataclass(frozen=True)
class Target:
    """Every win rate of a cell (per value of each seat axis) to within ±half_width (a share,
    0.005 = half a percentage point) at `confidence`, playing at most `cap` races, after a pilot
    of `pilot` races. `ratio`: where the target was asked as wins per fair share (a study's
    precision_ratio: ±ratio x the fair share, as the report's tolerance band measures), that ratio;
    half_width is then ratio x the cell's fair share (1/racers), 0 where it was asked in points."""

    half_width: float
    cap: int
    pilot: int
    confidence: float = 0.95
    ratio: float = 0.0

    def describe(self) -> str:
        asked = f"±{self.ratio:.2g} x a fair share (±{100 * self.half_width:.2g} pp)" if self.ratio else \
            f"±{100 * self.half_width:.2g} pp"
        return f"{asked} at {self.confidence:.0%} (at most {self.cap:,} races)"


def default_pilot(cap: int, block: int) -> int:
    """A pilot of 30 balanced blocks or a tenth of the cap, whichever is larger, in whole blocks
    and never above the cap: 30 clusters give a usable variance estimate."""
    pilot = max(30 * block, cap // 10)
    return min(round_to_blocks(pilot, block), cap)


def half_widths(rows: pd.DataFrame, axes: list[str], block: int, confidence: float = 0.95) -> pd.DataFrame:
    """The half-width of every win rate in `rows` (one row per race and racer, or per team: race,
    won and the axes): per axis and value, races, win rate, design effect and half-width with the
    cluster-robust variance over balanced blocks (race // block)."""
    z = z_value(confidence)
    rows = rows.assign(_block=rows.race.to_numpy() // max(block, 1))
    out = []
    for axis in axes:
        for value, g in rows.groupby(axis, observed=True):
            won = g.won.to_numpy(np.float64)
            n = len(won)
            p = won.mean()
            resid = pd.Series(won - p).groupby(g._block.to_numpy()).sum().to_numpy()
            var_cluster = float((resid ** 2).sum()) / n ** 2
            var_iid = p * (1 - p) / n
            # a rate of 0 or 1 in the pilot: the binomial variance of one more event, not zero
            var_floor = (1 / n) * (1 - 1 / n) / n
            var = max(var_cluster, var_iid, var_floor)
            clusters = int(pd.unique(g._block.to_numpy()).size)
            out.append({"axis": axis, "value": value, "races": n, "win_rate": p,
                        "design_effect": var_cluster / var_iid if var_iid > 0 else float("nan"),
                        "half_width": z * math.sqrt(var), "clusters": clusters,
                        "upper_half_width": z * math.sqrt(var * variance_margin(clusters))})
    return pd.DataFrame(out)


def races_needed(pilot_rows: pd.DataFrame, axes: list[str], block: int, target: Target, pilot_races: int) -> int:
    """The cell's total race count: sized from the pilot so that the widest half-width meets the
    target (the variance falls as 1/races), rounded up to whole blocks, between the pilot and the
    cap."""
    return sizing(pilot_rows, axes, block, target, pilot_races)[0]


def sizing(pilot_rows: pd.DataFrame, axes: list[str], block: int, target: Target,
           pilot_races: int) -> tuple[int, int, float]:
    """(the race count to play: between the pilot and the cap; the races the target needs,
    uncapped; the widest half-width the pilot shows), counts in whole blocks. The races needed
    come from the upper confidence bound of each half-width (variance_margin), so that the
    target holds in at least ASSURANCE of runs, not in about half."""
    widths = half_widths(pilot_rows, axes, block, target.confidence)
    widest = float(widths.half_width.max()) if len(widths) else 0.0
    bound = float(widths.upper_half_width.max()) if len(widths) else 0.0
    need = pilot_races * (bound / target.half_width) ** 2 if bound > 0 else pilot_races
    needed = round_to_blocks(math.ceil(need), block)
    return int(min(max(needed, pilot_races), target.cap)), needed, widest


def capped_note(target: Target, needed: int, planned: int, widest: float, pilot: int) -> str:
    """'' when the cap lets the cell meet its target, else what it reaches instead."""
    if planned >= needed:
        return ""
    reach = widest * math.sqrt(pilot / planned)
    short = (" (within the target on the pilot's estimate, but short of the margin that makes it hold in "
             f"{ASSURANCE:.0%} of runs)" if reach <= target.half_width else "")
    return (f"capped: {target.describe()} needs about {needed:,} races; {planned:,} reach about "
            f"±{100 * reach:.2g} pp{short}")


__all__ = ["ASSURANCE", "variance_margin", "Target", "default_pilot", "half_widths", "races_needed", "sizing", "capped_note"]
