"""Balance metrics over results tables (one row per race and racer): DataFrames in, DataFrames out.

Every rate comes with its sample size (`n`, or `races` for win rates) and a confidence interval
(`low`, `high`); tests of many groups at once carry Holm-adjusted p-values (`p_holm`) and
Benjamini-Hochberg q-values (`q_bh`) over the whole table, and `significant` (p_holm <= alpha).
Columns read are those of the shared seat and visit records (kernels/records.py; Blast's own in
kernels/blast/results.py) and the names the reader adds; nothing here knows the rules of a game.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.stats import (benjamini_hochberg, fair_share_test, holm, kendall, paired_difference, ratio_of_means,
                    spearman, spearman_p, two_sided_p, wilson_interval, z_value)

ALPHA = 0.05
#: Blast's result codes (kernels/blast/results.py)
WIND_NAMES = {0: "still", 1: "crosswind", 2: "headwind", 3: "tailwind"}
ELIM_CAUSES = {1: "no cards left", 2: "pulse over the limit"}


def flag(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Add p_holm, q_bh and significant (p_holm <= alpha) for the table's `p` column: the table's
    rows are one family of tests."""
    table = table.copy()
    table["p_holm"] = holm(table.p.to_numpy())
    table["q_bh"] = benjamini_hochberg(table.p.to_numpy())
    table["significant"] = table.p_holm <= alpha
    return table


#: the practical tolerance band around a fair share: a ratio within 1 +- BAND is fair enough to play
BAND = 0.10
VERDICTS = ("over", "under", "in band", "not enough races")


def band_verdict(table: pd.DataFrame, band: float = BAND, value: str = "ratio", low: str = "ratio_low",
                 high: str = "ratio_high", centre: float = 1.0) -> pd.DataFrame:
    """Add `verdict` and `races_to_decide` to a table of values with intervals, against the band
    centre +- band (wins per fair share: 0.9 .. 1.1 for the default band).

    over / under: the whole interval lies above / below the band; in band: the whole interval lies
    inside it; not enough races: the interval straddles an edge of the band. Significance alone
    never marks a row: a ratio of 1.06 measured on a million races is in band. races_to_decide
    (only where not enough races): the races that would shrink the interval (as 1/sqrt(races))
    to clear the nearest edge, were the value to stay where it is; infinite on an edge."""
    t = table.copy()
    lo_edge, hi_edge = centre - band, centre + band
    lo, hi, v = (t[c].to_numpy(float) for c in (low, high, value))
    verdict = np.where(lo > hi_edge, "over", np.where(hi < lo_edge, "under", np.where(
        (lo >= lo_edge) & (hi <= hi_edge), "in band", "not enough races")))
    verdict = np.where(np.isnan(lo) | np.isnan(hi), "not enough races", verdict)
    t["verdict"] = verdict
    n = t["races"] if "races" in t.columns else t.get("units", t.get("n"))
    half = (hi - lo) / 2
    dist = np.minimum(np.abs(v - lo_edge), np.abs(v - hi_edge))
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.ceil(np.asarray(n, float) * (half / dist) ** 2) if n is not None else np.full(len(t), np.nan)
    t["races_to_decide"] = np.where(verdict == "not enough races", need, np.nan)
    return t


def mark(verdict: str) -> str:
    """The verdict's symbol (✓ in band, ▲ over, ▼ under, ? not enough races)."""
    return {"in band": "✓", "over": "▲", "under": "▼"}.get(verdict, "?")


def win_rates(rows: pd.DataFrame, by: list[str], confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group against a fair share, one row per group.

    rows: won and n_racers, and the `by` columns. races, wins, win_rate with its Wilson interval
    (low, high); fair_share: the mean of 1/racers over the group's races; gap = win_rate -
    fair_share; ratio = wins / expected wins (1 = fair; comparable across racer counts) with its
    interval; z and p test win_rate == fair_share (sim.stats.fair_share_test). The groups'
    races must be independent of each other within a group (one row per race: true for a
    biathlete, a ski colour or a seat).
    """
    inv = 1.0 / rows.n_racers.to_numpy(dtype=np.float64)
    work = pd.DataFrame({"won": rows.won.to_numpy(dtype=np.int64), "inv": inv, "var": inv * (1 - inv)})
    keys = {b: group_key(rows[b]) for b in by}
    for b in by:
        work[b] = keys[b][0]
    g = work.groupby(by, observed=True, sort=True)
    t = pd.DataFrame({"races": g.size(), "wins": g.won.sum(), "expected": g.inv.sum(), "variance": g["var"].sum()})
    t["win_rate"] = t.wins / t.races
    t["low"], t["high"] = wilson_interval(t.wins.to_numpy(), t.races.to_numpy(), confidence)
    t["fair_share"] = t.expected / t.races
    t["gap"] = t.win_rate - t.fair_share
    t["ratio"] = t.wins / t.expected
    t["ratio_low"], t["ratio_high"] = t.low / t.fair_share, t.high / t.fair_share
    t["z"], t["p"] = fair_share_test(t.wins.to_numpy(), t.expected.to_numpy(), t.variance.to_numpy())
    if "cluster" in rows.columns:
        t = _clustered(t, rows, {b: k for b, (k, _) in keys.items()}, confidence)
    return decode_index(t, {b: labels for b, (_, labels) in keys.items()}).drop(
        columns=["expected", "variance"]).reset_index()


def group_key(column: pd.Series) -> tuple[np.ndarray, pd.Index | None]:
    """A column as a groupby key that sorts and groups as its values do, and the labels to turn
    the key back into them: a categorical's codes renumbered in the sorted order of its categories
    (a groupby on them never turns millions of rows into strings), with the sorted categories; any
    other column as it is, with None."""
    if not isinstance(column.dtype, pd.CategoricalDtype) or (column.cat.codes.to_numpy() < 0).any():
        return column.to_numpy(), None
    cats = column.cat.categories
    order = np.argsort(np.asarray(cats), kind="stable")
    rank = np.empty(len(cats), dtype=np.int64)
    rank[order] = np.arange(len(cats))
    return rank[column.cat.codes.to_numpy()], cats[order]


def decode_index(t: pd.DataFrame, labels: dict[str, pd.Index | None]) -> pd.DataFrame:
    """t with each index level keyed by group_key turned back into its labels (dtype of the
    categories, as grouping by the column's values gives)."""
    if all(v is None for v in labels.values()):
        return t
    names = list(t.index.names)
    levels = [t.index.get_level_values(i) for i in range(len(names))]
    decoded = [lv if labels.get(n) is None else pd.Index(labels[n].take(lv.to_numpy()), name=n)
               for n, lv in zip(names, levels)]
    t = t.copy()
    t.index = decoded[0] if len(decoded) == 1 else pd.MultiIndex.from_arrays(decoded, names=names)
    return t


def _clustered(t: pd.DataFrame, rows: pd.DataFrame, keys: dict[str, np.ndarray], confidence: float) -> pd.DataFrame:
    """Widen each group's intervals (and shrink its z) by its design effect: the cluster-robust
    variance of its win rate over the clusters (balanced blocks) against the binomial one, when
    above 1. Races of one block repeat line-ups, so they are not independent; the binomial
    interval would be too narrow (by 9% on average at 2 racers on the shipped Blast data).
    keys: the groupby key of each `by` column (group_key), as `t`'s index holds them."""
    by = list(keys)
    work = pd.DataFrame(keys)
    work["won"] = rows.won.to_numpy(np.float64)
    work["cluster"] = rows.cluster.to_numpy()
    rate = t.win_rate.rename("rate")
    work = work.join(rate, on=by)
    work["resid"] = work.won - work.rate
    per_cluster = work.groupby([*by, "cluster"], observed=True).resid.sum()
    var_cluster = (per_cluster ** 2).groupby(level=list(range(len(by)))).sum() / t.races.astype(float) ** 2
    var_iid = t.win_rate * (1 - t.win_rate) / t.races
    deff = (var_cluster.reindex(t.index) / var_iid).where(var_iid > 0, 1.0).clip(lower=1.0).fillna(1.0)
    root = np.sqrt(deff)
    # widened, but still a rate: never below 0 or above 1
    t["low"] = (t.win_rate - (t.win_rate - t.low) * root).clip(lower=0.0)
    t["high"] = (t.win_rate + (t.high - t.win_rate) * root).clip(upper=1.0)
    t["ratio_low"], t["ratio_high"] = t.low / t.fair_share, t.high / t.fair_share
    t["z"] = t.z / root
    t["p"] = two_sided_p(t.z.to_numpy())
    t["design_effect"] = deff
    return t


def with_overall(rows: pd.DataFrame, key: str, by: list[str], label: str = "all", weights: str = "equal",
                 confidence: float = 0.95) -> pd.DataFrame:
    """Win rates by [key, *by], followed by the rows pooled over `key` (key = label).

    weights "equal" (the default): a pooled row gives every racer count (within a `key` value) and
    every `key` value and racer count (in the `label` row) the same weight, whatever the races each
    played, so a scenario that happened to get more races (gear cells, precision-sized cells) does
    not pull the pooled rate; its interval is the normal one of a mean of independent cells. "races":
    every race the same weight (the rows simply pooled)."""
    if weights == "races":
        split = win_rates(rows, [key, *by], confidence)
        pooled = win_rates(rows, by, confidence)
    elif weights == "equal":
        cells = win_rates(rows, [key, "n_racers", *by], confidence)
        split = equal_pool(cells, [key, *by], confidence)
        pooled = equal_pool(cells, by, confidence)
    else:
        raise ValueError(f"weights must be 'equal' or 'races', got {weights!r}")
    pooled.insert(0, key, label)
    split[key] = split[key].astype(str)
    return pd.concat([split, pooled], ignore_index=True)


def equal_pool(cells: pd.DataFrame, by: list[str], confidence: float = 0.95) -> pd.DataFrame:
    """win_rates rows (one per cell: a scenario and racer count) pooled per `by` with equal weights:
    ratio, the mean of the cells' wins per fair share, with the normal interval of that mean (the
    cells' variances, each weighted 1/cells^2); fair_share, the mean of the cells' fair shares;
    win_rate = ratio x fair_share (with its interval) and gap = win_rate - fair_share, so the three
    are one measure and always agree in sign (a mean of rates beside a mean of ratios could not);
    races and wins summed; `cells`: how many were pooled (each weighs 1/cells)."""
    z = z_value(confidence)
    work = cells.copy()
    # each cell's variance from its interval, so a cell's design effect (clustered races) carries over
    work["v_rate"] = ((work.high - work.low) / (2 * z)) ** 2
    work["v_ratio"] = work.v_rate / work.fair_share ** 2
    g = work.groupby(by, observed=True, sort=True) if by else work.groupby(np.zeros(len(work)))
    t = pd.DataFrame({"races": g.races.sum(), "wins": g.wins.sum(), "fair_share": g.fair_share.mean(),
                      "ratio": g.ratio.mean(), "cells": g.size()})
    se_ratio = np.sqrt(g.v_ratio.sum()) / t.cells
    t["ratio_low"], t["ratio_high"] = t.ratio - z * se_ratio, t.ratio + z * se_ratio
    # one definition for the whole row: the ratio is the mean of the cells' ratios, and the rate,
    # its interval and the gap follow from it at the mean fair share, so they never disagree in sign
    t["win_rate"] = t.ratio * t.fair_share
    # the normal interval of a mean of few cells can reach past what a rate can be (a cell with few
    # races and no win): it stops at a rate of 0 and of 1
    t["low"] = (t.ratio_low * t.fair_share).clip(lower=0.0)
    t["high"] = (t.ratio_high * t.fair_share).clip(upper=1.0)
    t["ratio_low"], t["ratio_high"] = t.low / t.fair_share, t.high / t.fair_share
    t["gap"] = t.win_rate - t.fair_share
    t["z"] = (t.ratio - 1) / se_ratio
    t["p"] = two_sided_p(t.z.to_numpy())
    cols = ["races", "wins", "win_rate", "low", "high", "fair_share", "gap", "ratio", "ratio_low", "ratio_high",
            "z", "p", "cells"]
    t = t[cols].reset_index()
    t = t.drop(columns="index") if not by else t
    single = t.cells.to_numpy() == 1          # a group of one cell is that cell, Wilson interval and all
    own = ["low", "high", "ratio_low", "ratio_high", "z", "p"] + (["design_effect"] if "design_effect" in cells else [])
    if single.any() and by:
        ones = cells[cells.groupby(by, observed=True).win_rate.transform("size") == 1]
        merged = t.loc[single, by].merge(ones[by + own], on=by, how="left")
        t.loc[single, own] = merged[own].to_numpy()
    elif single.any():
        t.loc[:, own] = cells[own].to_numpy()
    return t


def means(rows: pd.DataFrame, value: str, by: list[str], confidence: float = 0.95) -> pd.DataFrame:
    """Mean of a column per group with its normal interval (rows independent): n, mean, low, high."""
    g = rows[value].astype(np.float64).groupby([rows[b] for b in by], observed=True, sort=True)
    t = pd.DataFrame({"n": g.size(), "mean": g.mean()})
    half = z_value(confidence) * g.std(ddof=1) / np.sqrt(t.n)
    t["low"], t["high"] = t["mean"] - half, t["mean"] + half
    return t.reset_index()


def rates(rows: pd.DataFrame, flag: str | pd.Series, by: list[str], confidence: float = 0.95) -> pd.DataFrame:
    """Share of rows where a 0/1 (or boolean) column, or a mask aligned with rows, is set, per group
    (rows independent): n, count, rate, low, high."""
    x = (rows[flag] if isinstance(flag, str) else flag).astype(np.int64)
    g = x.groupby([rows[b] for b in by], observed=True, sort=True)
    t = pd.DataFrame({"n": g.size(), "count": g.sum()})
    t["rate"] = t["count"] / t.n
    t["low"], t["high"] = wilson_interval(t["count"].to_numpy(), t.n.to_numpy(), confidence)
    return t.reset_index()


# --- shooting --------------------------------------------------------------------------------------

def shots(visits: pd.DataFrame, bands: tuple[int, ...] = (3, 7)) -> pd.DataFrame:
    """One row per shot: the visits table's rows (one per racer and range visit reached) where the
    racer shot, visit 1's before visit 2's.

    Columns: biathlete_name, trail_name (where present), visit, hits (final, bullets included),
    dice_hits, pulse (at the shot), band (pulse band: `bands` are the first pulse of each band
    after the one from 0), wind (WIND_NAMES).
    """
    keep = [c for c in ("biathlete_name", "trail_name") if c in visits.columns]
    shot = visits[visits.shots.to_numpy() > 0].sort_values("visit", kind="stable")
    out = shot[[*keep, "visit", "hits", "dice_hits"]].reset_index(drop=True)
    out["pulse"] = shot.shot_pulse.to_numpy()
    out["wind"] = shot.shot_wind.to_numpy()
    out["band"] = pulse_band(out.pulse.to_numpy(), bands)
    out["wind"] = pd.Categorical(out.wind.map(WIND_NAMES), categories=list(WIND_NAMES.values()))
    return out


def pulse_band(pulse: np.ndarray, bands: tuple[int, ...]) -> pd.Categorical:
    """Pulse values as band labels: bands (3, 7) give 0-2, 3-6, 7+."""
    edges = [0, *bands]
    labels = [f"{a}-{b - 1}" for a, b in zip(edges, edges[1:])] + [f"{edges[-1]}+"]
    return pd.Categorical.from_codes(np.searchsorted(edges, pulse, side="right") - 1, labels)


def hit_distribution(shot_rows: pd.DataFrame, by: str = "biathlete_name", column: str = "hits",
                     confidence: float = 0.95) -> pd.DataFrame:
    """Per group and number of hits: shots (n), shots with that many hits (count) and their share
    (rate) with its Wilson interval; every count from 0 to the most hits seen, zeros included."""
    top = int(shot_rows[column].max())
    parts = [rates(shot_rows, shot_rows[column] == h, [by], confidence).assign(**{column: h}) for h in range(top + 1)]
    return pd.concat(parts, ignore_index=True)[[by, column, "n", "count", "rate", "low", "high"]]


# --- paired variants -------------------------------------------------------------------------------

UNIT = ["cell", "race"]                 # an independent unit: one race of one cell
SEAT = [*UNIT, "seat"]


def paired_outcomes(rows: pd.DataFrame, base: str, value: str = "won",
                    describe: tuple[str, ...] = ("trail_name", "colour_name", "biathlete_name")) -> pd.DataFrame:
    """One row per (cell, race, seat) of the base variant: its descriptors and `value` on every
    variant, one column per variant (NaN where the cell did not play that variant).

    Paired variants replay the same race indices with the same line-ups and dice streams, so the
    seat's descriptors are the base variant's on every variant.
    """
    wide = rows.pivot_table(index=SEAT, columns="variant", values=value, observed=True, aggfunc="first")
    wide.columns = [str(c) for c in wide.columns]
    desc = rows.loc[rows.variant == base, [*SEAT, *describe]].set_index(SEAT)
    out = desc.join(wide, how="inner")
    if base not in out.columns:
        raise ValueError(f"no rows of the base variant {base!r}")
    return out


def paired_changes(wide: pd.DataFrame, base: str, variant: str, by: list[str], where: pd.Series | None = None,
                   confidence: float = 0.95) -> pd.DataFrame:
    """Change of the outcome from base to variant per group, from race-by-race differences.

    wide: paired_outcomes. where: a boolean mask of the seats to count (e.g. the ski colour a
    variant changes). Per group, each race's mean difference over its counted seats is one unit;
    races are independent, so the interval and test (sim.stats.paired_difference) hold
    whatever the dependence between seats of one race. Columns: the `by` keys, change, low, high,
    z, p, units (races), base_rate (the base variant's mean outcome on those seats), changed (the
    races whose outcome the variant changed: `measurable` reads it).
    """
    sel = wide if where is None else wide[where.to_numpy()]
    sel = sel[sel[variant].notna()]
    d = (sel[variant] - sel[base]).rename("d").to_frame()
    d["base_value"] = sel[base]
    for b in by:
        d[b] = sel[b].to_numpy()
    out = []
    groups = d.groupby(by, observed=True, sort=True) if by else [((), d)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        per_race = g.groupby(level=UNIT, observed=True).d.mean()
        r = paired_difference(per_race.to_numpy(), confidence)
        out.append({**dict(zip(by, key)), "change": r["mean"], "low": r["low"], "high": r["high"],
                    "z": r["z"], "p": r["p"], "units": r["units"], "base_rate": g.base_value.mean(),
                    "changed": int((per_race != 0).sum())})
    return pd.DataFrame(out)


#: a paired change rests on the races it changed: with fewer than this, it is not measurable (a
#: normal interval over a handful of non-zero differences means nothing, and +0.00 [0.00, 0.00]
#: would read as "no effect" where the players simply never met the change)
MIN_CHANGED = 30


def measurable(changed, units) -> str:
    """'yes', or 'not measurable with these players (N of M races changed)'."""
    changed, units = int(changed), int(units)
    if changed >= MIN_CHANGED:
        return "yes"
    return f"not measurable with these players ({changed:,} of {units:,} races changed)"


def identical_variants(wide: pd.DataFrame, variants: list[str]) -> dict[str, list[str]]:
    """Variants whose outcome is the same on every seat of every race they played, grouped:
    {the first of a group: the others} (groups of one left out). Such variants are one change as
    far as these races go, so a report shows them once."""
    groups: dict[bytes, list[str]] = {}
    for v in variants:
        if v not in wide.columns:
            continue
        key = np.ascontiguousarray(wide[v].to_numpy(float)).tobytes()
        groups.setdefault(key, []).append(v)
    return {g[0]: g[1:] for g in groups.values() if len(g) > 1}


def per_race_change(wide: pd.DataFrame, base: str, variant: str, where: pd.Series) -> pd.Series:
    """Each race's mean change on the counted seats, indexed by (cell, race); races without such a
    seat or without the variant are left out."""
    sel = wide[where.to_numpy() & wide[variant].notna().to_numpy()]
    return (sel[variant] - sel[base]).groupby(level=UNIT, observed=True).mean()


def exchange_rate(wide: pd.DataFrame, base: str, a: tuple[str, pd.Series], b: tuple[str, pd.Series],
                  confidence: float = 0.95) -> dict:
    """How many of token b one token a is worth: gain(a) / |gain(b)|, each the change of the win
    rate of the seats its variant changes (masks), on the same races (sim.stats.ratio_of_means).

    A currency variant that takes a token away loses win rate; its token is worth what the removal
    costs, hence |gain(b)|. Columns: token, currency, rate, low, high, token_gain, currency_gain,
    currency_p (test of currency_gain == 0), units (races)."""
    ga, gb = (per_race_change(wide, base, v, m) for v, m in (a, b))
    both = ga.index.union(gb.index)
    r = ratio_of_means(ga.reindex(both).to_numpy(), gb.reindex(both).to_numpy(), confidence)
    rate, low, high = (r["ratio"], r["low"], r["high"]) if r["b_mean"] >= 0 else (-r["ratio"], -r["high"], -r["low"])
    return {"token": a[0], "currency": b[0], "rate": rate, "low": low, "high": high, "token_gain": r["a_mean"],
            "currency_gain": r["b_mean"], "currency_p": r["b_p"], "units": r["units"]}


# --- robustness ------------------------------------------------------------------------------------

def rank_agreement(reference: pd.Series, other: pd.Series, se_reference: pd.Series | None = None,
                   se_other: pd.Series | None = None, draws: int = 2000, seed: int = 0,
                   confidence: float = 0.95) -> dict:
    """How well two rankings of the same competitors agree (values: higher is better).

    spearman, kendall (tau-b) and spearman_p (exact permutation test against no relation, up to 9
    competitors). With standard errors: rerun_low/high, where Spearman's rho of a rerun of the
    study would fall: each value redrawn from a normal with its standard error (parametric
    bootstrap, seeded). Noise mostly blurs a ranking, so this tends to lie at or below the observed
    rho; a wide one means sampling noise alone could reorder the competitors.
    """
    common = reference.index.intersection(other.index)
    x, y = reference[common].to_numpy(float), other[common].to_numpy(float)
    out = {"competitors": len(common), "spearman": spearman(x, y), "kendall": kendall(x, y),
           "spearman_p": spearman_p(x, y)}
    if se_reference is not None and se_other is not None:
        rng = np.random.default_rng(seed)
        sx, sy = se_reference[common].to_numpy(float), se_other[common].to_numpy(float)
        # redrawn values are continuous, so ties have probability 0 and ranks are plain orders
        rx, ry = ((v + s * rng.standard_normal((draws, v.size))).argsort(1).argsort(1) for v, s in ((x, sx), (y, sy)))
        rx, ry = rx - rx.mean(1, keepdims=True), ry - ry.mean(1, keepdims=True)
        rhos = (rx * ry).sum(1) / np.sqrt((rx * rx).sum(1) * (ry * ry).sum(1))
        tail = (1 - confidence) / 2
        out["rerun_low"], out["rerun_high"] = (float(q) for q in np.nanquantile(rhos, [tail, 1 - tail]))
    return out


__all__ = ["ALPHA", "BAND", "VERDICTS", "band_verdict", "mark", "WIND_NAMES", "ELIM_CAUSES", "flag", "win_rates", "with_overall", "means", "rates",
           "shots", "pulse_band", "hit_distribution", "paired_outcomes", "paired_changes",
           "per_race_change", "exchange_rate", "rank_agreement"]


# --- finishing orders --------------------------------------------------------------------------------

def plackett_luce(orders: list[np.ndarray], n_items: int, iterations: int = 200, tol: float = 1e-9) -> np.ndarray:
    """Plackett-Luce strengths (summing to n_items) from full finishing orders by Hunter's MM
    algorithm (Hunter 2004, Ann. Statist. 32, 384-406). `orders`: arrays [races, racers] of item
    ids, first place first, one array per racer count."""
    w = np.ones(n_items)
    wins = np.zeros(n_items)
    for o in orders:
        np.add.at(wins, o[:, :-1].ravel(), 1.0)          # every place but the last is a choice won
    for _ in range(iterations):
        den = np.zeros(n_items)
        for o in orders:
            strength = w[o]
            remaining = np.cumsum(strength[:, ::-1], axis=1)[:, ::-1][:, :-1]     # [race, stage]
            inv = np.cumsum(1.0 / remaining, axis=1)            # stages a racer still stood in
            n = o.shape[1]
            stage = np.minimum(np.arange(n), n - 2)              # the last racer stood in every stage
            np.add.at(den, o.ravel(), inv[:, stage].ravel())
        new = np.where(den > 0, wins / np.where(den > 0, den, 1), w)
        new *= n_items / new.sum()
        if np.max(np.abs(new - w)) < tol:
            w = new
            break
        w = new
    return w


def luce_win_rates(orders: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The win probability the strengths give each racer of each race: w_i / sum of the race's w."""
    strength = w[orders]
    return strength / strength.sum(axis=1, keepdims=True)
