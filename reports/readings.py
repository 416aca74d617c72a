"""Which rule readings change the answer: each reading (a data variant that only flips rule
switches) against the base data on the same races, its effect on each headline figure with a
paired interval, and the readings ranked by their largest change.

Game-neutral: a game's report section turns its rows into one row per race (`races`: columns
`variant`, `race` and whatever its measures read) and names its headline figures as `Measure`s;
this module pairs the races, bootstraps them and ranks. Mania uses it (reports.mania); a game with
switch variants in its study can call the same three functions.

The interval of a change is a paired bootstrap over races: each replicate draws the races with
replacement and recomputes every figure on the base and on the variant from the same draw, so the
race-to-race luck both share cancels, also for figures that are not plain means (the spread of seat
win rates).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Measure:
    """A headline figure computed from the means over races of `columns`: `value(means)` (default:
    the mean of the one column). `share`: a rate. `scale`: what a change is measured against when
    readings are ranked (a win rate: its fair share, as the tolerance band is); None: the base value."""

    name: str
    columns: tuple[str, ...]
    value: Callable[[np.ndarray], float] | None = None
    share: bool = False
    scale: float | None = None

    def of(self, means: np.ndarray) -> np.ndarray:
        """The figure from means over races; `means` [..., len(columns)] (bootstrap replicates first)."""
        if self.value is None:
            return means[..., 0]
        return np.apply_along_axis(self.value, -1, means)


def reading_variants(source) -> list[str]:
    """The study's variants that only set rule switches: every patch a `switches.` path of game.toml."""
    out = []
    for name, v in getattr(source, "variants", {}).items():
        patches = v.patches
        if patches and all(str(p.get("path", "")).startswith("switches.") and
                           str(p.get("file", "game.toml")) == "game.toml" for p in patches):
            out.append(name)
    return out


def paired_effects(races: pd.DataFrame, base: str, measures: list[Measure], confidence: float = 0.95,
                   boots: int = 400, seed: int = 0) -> pd.DataFrame:
    """Each variant of `races` against `base` on the races both played (one row per race and
    variant): per measure its value on each, the change and its paired bootstrap interval.

    Columns: variant, measure, share, races, base, value, change, low, high, relative (change / the
    measure's scale, or / base; NaN where that is 0), clear (the interval excludes 0)."""
    cols = list(dict.fromkeys(c for m in measures for c in m.columns))
    b = races[races.variant == base].set_index("race")[cols].sort_index()
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    out = []
    for v, g in races[races.variant != base].groupby("variant", observed=True, sort=True):
        vv = g.set_index("race")[cols]
        common = b.index.intersection(vv.index)
        n = len(common)
        if n < 2:
            continue
        xb = b.loc[common].to_numpy(np.float64)
        xv = vv.loc[common].to_numpy(np.float64)
        draws = rng.integers(0, n, size=(boots, n))
        counts = np.stack([np.bincount(d, minlength=n) for d in draws]).astype(np.float64) / n
        mb, mv = counts @ xb, counts @ xv                       # [boots, columns]
        fb, fv = xb.mean(axis=0), xv.mean(axis=0)
        for m in measures:
            idx = [cols.index(c) for c in m.columns]
            base_value, value = float(m.of(fb[idx])), float(m.of(fv[idx]))
            diff = m.of(mv[:, idx]) - m.of(mb[:, idx])
            low, high = np.quantile(diff, [alpha, 1 - alpha])
            change = value - base_value
            scale = m.scale if m.scale is not None else base_value
            out.append({"variant": v, "measure": m.name, "share": m.share, "races": n, "base": base_value,
                        "value": value, "change": change, "low": float(low), "high": float(high),
                        "relative": change / scale if scale else np.nan,
                        "clear": bool(low > 0 or high < 0)})
    return pd.DataFrame(out)


def rank(effects: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """One row per reading (and `by` group): its largest relative change over the measures, which
    measure, and whether that change is clear; readings with a clear change first, each group by
    the size of its largest clear change (then the largest change of any kind)."""
    by = by or []
    rows = []
    for key, g in effects.groupby(["variant", *by], observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        size = g.relative.abs().fillna(0)
        clear = g[g.clear]
        top = (clear.loc[size[clear.index].idxmax()] if len(clear) else g.loc[size.idxmax()])
        rows.append({**dict(zip(["variant", *by], key)), "largest_change": top.measure,
                     "relative": top.relative, "change": top.change, "low": top.low, "high": top.high,
                     "clear": bool(top.clear), "clear_measures": int(g.clear.sum()), "measures": len(g)})
    t = pd.DataFrame(rows)
    if not len(t):
        return t
    t = t.assign(_size=t.relative.abs().fillna(0)).sort_values(["clear", "_size"], ascending=[False, False])
    return t.drop(columns="_size").reset_index(drop=True).assign(rank=lambda x: np.arange(1, len(x) + 1))


__all__ = ["Measure", "reading_variants", "paired_effects", "rank"]
