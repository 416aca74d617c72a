"""Which rule readings change the answer: each reading (a data variant that only flips rule
switches) against the base data on the same races, its effect on each headline figure with a
paired interval, and the readings ranked by their largest change.

Game-neutral: a game's report section turns its rows into one row per race (`races`: columns
`variant`, `race` and whatever its measures read) and names its headline figures as `Measure`s;
this module pairs the races, bootstraps them and ranks, and `section` builds the report section
from them (Mania: reports.mania, Ski Tour: reports.skitour). A reading whose point value moves a
judged figure (a win rate against its fair share) across the tolerance band is named in
`ctx.readings`, which the verdict shows at its top.

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

from .metrics import MIN_CHANGED, measurable


@dataclass(frozen=True)
class Measure:
    """A headline figure computed from the means over races of `columns`: `value(means)` (default:
    the mean of the one column). `share`: a rate. `scale`: what a change is measured against when
    readings are ranked (a win rate: its fair share, as the tolerance band is); None: the base value.
    `judged`: a win rate the verdict holds against the band (value / scale is its wins per fair share),
    so a reading that moves it across the band changes the answer."""

    name: str
    columns: tuple[str, ...]
    value: Callable[[np.ndarray], float] | None = None
    share: bool = False
    scale: float | None = None
    judged: bool = False

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
        if getattr(v, "group", ""):
            continue                    # a [screen]'s knob step: a lever, not a reading
        if patches and all(str(p.get("path", "")).startswith("switches.") and
                           str(p.get("file", "game.toml")) == "game.toml" for p in patches):
            out.append(name)
    return out


def paired_effects(races: pd.DataFrame, base: str, measures: list[Measure], confidence: float = 0.95,
                   boots: int = 400, seed: int = 0) -> pd.DataFrame:
    """Each variant of `races` against `base` on the races both played (one row per race and
    variant): per measure its value on each, the change and its paired bootstrap interval.

    Columns: variant, measure, share, races, base, value, change, low, high, relative (change / the
    measure's scale, or / base; NaN where that is 0), against (what relative is against: "a fair share"
    where the measure has a scale, else "its base value"), clear (the interval excludes 0), fair (a judged
    measure's fair share, else NaN), changed (races whose figures' columns differ from the base)."""
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
        changed = int((~np.isclose(xb, xv, equal_nan=True)).any(axis=1).sum())
        draws = rng.integers(0, n, size=(boots, n))
        # every draw's counts at once: draw k's races offset by k * n into one bincount
        counts = np.bincount((draws + (np.arange(boots, dtype=draws.dtype) * n)[:, None]).ravel(),
                             minlength=boots * n).reshape(boots, n).astype(np.float64) / n
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
                        "against": "a fair share" if m.scale is not None else "its base value",
                        "clear": bool(low > 0 or high < 0),
                        "fair": float(m.scale) if m.judged and m.scale else np.nan, "changed": changed})
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
                     "clear": bool(top.clear), "clear_measures": int(g.clear.sum()), "measures": len(g),
                     **({"share": bool(top.share)} if "share" in g.columns else {}),
                     **({"against": top.against} if "against" in g.columns else {}),
                     **({"changed": int(g.changed.max())} if "changed" in g.columns else {})})
    t = pd.DataFrame(rows)
    if not len(t):
        return t
    t = t.assign(_size=t.relative.abs().fillna(0)).sort_values(["clear", "_size"], ascending=[False, False])
    return t.drop(columns="_size").reset_index(drop=True).assign(rank=lambda x: np.arange(1, len(x) + 1))


def crossings(effects: pd.DataFrame, band: float) -> pd.DataFrame:
    """The judged figures a reading moves across the tolerance band: rows of `effects` whose change
    is clear (its paired interval excludes 0: a hair's move across the edge by chance is not an
    answer) and whose base and variant point values (wins per fair share) lie on different sides of
    1 ± band, with `before`, `after` (wins per fair share) and `into` (True: into the band)."""
    j = effects[effects.fair.notna() & effects.clear] if "fair" in effects.columns else effects.iloc[0:0]
    before, after = j.base / j.fair, j.value / j.fair
    inside_b, inside_a = (before - 1).abs() <= band, (after - 1).abs() <= band
    return j.assign(before=before, after=after, into=inside_a)[inside_b != inside_a]


def change_text(change: float, low: float, high: float, share: bool) -> str:
    """A paired change with its interval in the measure's unit: percentage points for a rate
    ('+8.6 pp [+6.5, +10.8]'), the figure's own unit otherwise ('-13.0 [-13.1, -13.0]')."""
    if share:
        return f"{100 * change:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"{change:+.3g} [{low:+.3g}, {high:+.3g}]"


def in_units(t: pd.DataFrame) -> pd.DataFrame:
    """A readings table as the page and the CSV show it: a rate's (or share's) values in % and its
    change in percentage points, a length in its own unit (rounds, turns: the measure's name says
    which); the relative change in %. Never a fraction beside points."""
    t = t.copy()
    share = t.pop("share").fillna(False).astype(bool).to_numpy() if "share" in t.columns else np.zeros(len(t), bool)
    t = t.drop(columns=["against"], errors="ignore")      # the caption says what a relative change is against
    for c in ("base", "value", "change", "low", "high"):
        if c in t.columns:
            t[c] = np.where(share, 100 * t[c].astype(float), t[c].astype(float))
    if "relative" in t.columns:
        t["relative"] = 100 * t.relative.astype(float)
        t = t.rename(columns={"relative": "relative_pct"})
    return t


def section(ctx, doc: str, columns: list[str], races_of: Callable, note: str = ""):
    """The report section "Which rule readings change the answer": every study variant that only sets
    rule switches (`reading_variants`), on each cell that plays it with the base data, paired race by
    race. `races_of(cell rows)` -> (one row per race, [Measure], who: the cell's line-up in words);
    `columns`: what it reads; `doc`: the rules doc naming the switches. Readings that move a judged
    figure across the band go to ctx.readings (the verdict's top) and to the section's first finding."""
    from .base import Section

    o, src = ctx.o, ctx.source
    s = Section("readings", "Which rule readings change the answer")
    readings = reading_variants(src)
    cells = [c for c in src.cells if src.base in c.variants and set(c.variants) & set(readings)]
    if not cells:
        s.skipped = ("No cell of this study plays a rule switch as a paired variant: add variants that set "
                     f"switches.* in game.toml (one per reading of {doc}).")
        return s
    effects = []
    for c in cells:
        wanted = [src.base, *[v for v in c.variants if v in readings]]
        races, measures, who = races_of(src.read(columns, [c.name], wanted))
        e = paired_effects(races, src.base, measures, o.confidence, seed=len(effects))
        effects.append(e.assign(cell=f"{c.name} ({c.trail}, {who})"))
    e = pd.concat(effects, ignore_index=True)
    # a reading that changed no race, or too few to measure (reports.metrics.MIN_CHANGED), is not
    # measurable here: no change of 0 that reads as "no effect", and no "clear" change from a handful
    few = e.changed < MIN_CHANGED
    e.loc[few, "clear"] = False
    ranked = rank(e, ["cell"])
    desc = {v: src.variants[v].description for v in readings if v in src.variants}
    ranked.insert(1, "reading", ranked.variant.map(lambda v: desc.get(v, "")))
    idle = ranked.changed < MIN_CHANGED
    ranked.loc[idle, "largest_change"] = [measurable(n, units) for n, units in
                                          zip(ranked.changed[idle], e.groupby("cell").races.max().reindex(
                                              ranked.cell[idle]).to_numpy())]
    ranked.loc[idle, ["relative", "change", "low", "high"]] = np.nan
    moved = crossings(e, ctx.band)
    e.loc[few, ["change", "low", "high", "relative"]] = np.nan
    s.intro = (f"Every reading of the rules that {doc} offers as a switch, played as a paired variant (the same "
               "races, dice and seats as the base data) on the headline cells: its effect on each headline figure "
               f"with a {o.confidence:.0%} paired bootstrap interval over races (400 replicates), and the readings "
               "ranked by their largest relative change (a win rate against its fair share, as the tolerance band "
               "measures it; a length against its base value), clear changes (interval excluding 0) first. "
               "A reading that moves a win rate across the band (point values) is named at the top of the verdict. "
               + note)
    units = ("rates and shares in %, their changes in percentage points; lengths in rounds or turns; the relative "
             "change against a fair share, or against the base value for a length")
    s.table("readings_ranked", in_units(ranked), f"Rule readings ranked by their largest change on a headline "
            f"figure ({units})", percent=False)
    effects = in_units(e[["cell", "variant", "measure", "share", "base", "value", "change", "low", "high", "relative",
                          "clear", "races"]])
    s.table("readings_effects", effects, "Each reading's paired change of each headline figure", percent=False,
            page=False)
    if effects.clear.any():
        s.table("readings_clear", effects[effects.clear].drop(columns="clear"), "The readings' clear changes (the "
                f"paired interval excludes 0; every change, clear or not, is in tables/readings_effects.csv) "
                f"({units})", percent=False)
    texts = {}
    for r in moved.itertuples():
        texts.setdefault(r.variant, []).append(
            f"{r.measure} on {r.cell} {'into' if r.into else 'out of'} the band ({r.before:.2f} to {r.after:.2f} "
            "x a fair share)")
    if texts:
        s.findings.append("Readings that move a verdict across the band: " + "; ".join(
            f"{v} moves " + ", ".join(t) for v, t in texts.items()) + ".")
        ctx.readings.append(f"Rule readings that change the answer ({doc}): " + "; ".join(
            f"{v} ({desc.get(v, '').rstrip('.')}) moves " + ", ".join(t) for v, t in texts.items()) + ".")
    else:
        s.findings.append(f"No rule reading moves a win rate's verdict across the band {ctx.band_text} on the "
                          "headline cells.")
    top = ranked[ranked.clear].head(3)
    if len(top):
        s.findings.append("The readings that matter most: " + "; ".join(
            f"{r.variant} ({r.cell}): {r.largest_change} {change_text(r.change, r.low, r.high, r.share)} "
            f"({100 * r.relative:+.0f}% of {r.against})"
            for r in top.itertuples()) + ".")
    idle_names = sorted(set(ranked[idle].variant) - set(ranked[~idle].variant))
    if idle_names:
        s.findings.append(f"Readings that changed no race of these players here, or fewer than {MIN_CHANGED} (not "
                          "measurable with them): "
                          + ", ".join(idle_names) + ".")
    quiet = sorted(set(ranked.variant) - set(ranked[ranked.clear].variant) - set(idle_names))
    if quiet:
        s.findings.append("Readings with no clear change on any headline figure here: " + ", ".join(quiet) + ".")
    return s


__all__ = ["Measure", "reading_variants", "paired_effects", "rank", "crossings", "change_text", "in_units", "section"]

