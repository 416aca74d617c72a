"""Confidence intervals and tests for rates: the statistics every win rate in a report carries,
corrections for many tests at once, rank correlations, ratios of paired gains, and player strength
tables (standings, pairwise gaps).

They live in the core because the core's commands (precision, ladder, compare, worldcup, balance)
compute with them; reports only consume them.

The statistics themselves come from the libraries made for them: Wilson intervals and the
multiple-test corrections from statsmodels, normal quantiles and tail probabilities, rank
correlations and the exact permutation test from scipy. This module gives them the shapes the
core and the reports use (arrays in, arrays out; NaN left out of a family) and adds what no
library offers in that form (paired differences, fair-share tests, ratios of paired means).
"""
from __future__ import annotations

import functools
import gc
from itertools import combinations

import numpy as np
import pandas as pd

# scipy.stats and statsmodels are imported where they are first used: together they take about
# 1.7 s to import on the 2-core machine, which every command (`run`, `compile`, a study's worker
# processes) paid on start although most of them never compute an interval.


def z_value(confidence: float = 0.95) -> float:
    """The two-sided standard normal quantile: 1.96 for 95%."""
    from scipy import stats
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return float(stats.norm.ppf(0.5 + confidence / 2))


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion: (low, high), arrays shaped like the inputs.

    Unlike the normal (Wald) interval it stays inside [0, 1] and keeps its coverage near 0 and 1,
    which matters for rates such as a floor player's win rate. n == 0 gives (nan, nan).
    (statsmodels' proportion_confint, method "wilson".)
    """
    from statsmodels.stats.proportion import proportion_confint
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("successes must lie in 0 .. n")
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(k, np.where(n > 0, n, 1.0), alpha=1 - confidence, method="wilson")
        low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        # exact ends at 0 and n, where the formula leaves rounding dust
        low = np.where(n > 0, np.where(k == 0, 0.0, np.clip(low, 0.0, 1.0)), np.nan)
        high = np.where(n > 0, np.where(k == n, 1.0, np.clip(high, 0.0, 1.0)), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def two_sided_p(z):
    """Two-sided p-value of a standard normal statistic (arrays welcome): 2 * the normal's
    survival function at |z| (scipy), accurate far out in the tail (no rounding to 0 before
    |z| of about 38)."""
    from scipy import stats
    p = 2 * stats.norm.sf(np.abs(np.asarray(z, dtype=np.float64)))
    return float(p) if np.ndim(p) == 0 else p


def two_proportion_test(s1, n1, s2, n2):
    """Pooled two-proportion z test of p1 == p2 for independent samples: (p1 - p2, z, p-value).

    Only for samples that are truly independent; rates measured on the same races are compared with
    `paired_difference`.
    """
    s1, n1, s2, n2 = (np.asarray(a, dtype=np.float64) for a in (s1, n1, s2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = s1 / n1, s2 / n2
        pooled = (s1 + s2) / (n1 + n2)
        z = (p1 - p2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    diff = p1 - p2
    if np.ndim(diff) == 0:
        return float(diff), float(z), two_sided_p(z)
    return diff, z, two_sided_p(z)


def paired_difference(d, confidence: float = 0.95) -> dict[str, float]:
    """Mean of independent per-unit differences with its normal interval and a test of mean == 0.

    d: one difference per independent unit (e.g. per race index, a player's win rate there minus
    another's). Whatever the dependence inside a unit (two players in one race cannot both win;
    common random numbers across seat rotations), units are independent, so this is valid where a
    two-proportion test on the pooled rows is not. Returns mean, low, high, z, p and units.
    """
    d = np.asarray(d, dtype=np.float64)
    k = d.size
    mean = float(d.mean()) if k else float("nan")
    se = float(d.std(ddof=1) / np.sqrt(k)) if k > 1 else float("nan")
    zc = z_value(confidence)
    if se > 0:
        z = mean / se
    else:                                   # every unit the same difference
        z = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    return {"mean": mean, "low": mean - zc * se, "high": mean + zc * se, "z": z,
            "p": two_sided_p(z), "units": k}


def fair_share_test(wins, expected, variance):
    """Two-sided test that wins equal their fair-share expectation: (z, p), arrays welcome.

    For a competitor no better than its rivals, a race of n racers is a win with probability 1/n,
    so over its races wins have mean `expected` = sum(1/n) and `variance` = sum(1/n * (1 - 1/n)),
    whatever the mix of racer counts (a normal approximation, fine for the hundreds of races a
    report's cells hold).
    """
    w, e, v = (np.asarray(a, dtype=np.float64) for a in (wins, expected, variance))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (w - e) / np.sqrt(v)
    return (float(z) if np.ndim(z) == 0 else z), two_sided_p(z)


def _adjust(p, method: str):
    from statsmodels.stats.multitest import multipletests
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        # statsmodels' Holm calls gc.collect(), which scans every live object: seconds each time in a
        # report holding millions of rows. Frozen objects are not scanned, and nothing else changes.
        gc.freeze()
        try:
            out[ok] = multipletests(p[ok], method=method)[1]
        finally:
            gc.unfreeze()
    return out


def holm(p):
    """Holm's step-down adjusted p-values: reject where adjusted p <= alpha, and the chance of any
    false flag among all the tests stays below alpha (family-wise error). NaN entries are left out
    of the family and stay NaN. (statsmodels' multipletests, method "holm".)"""
    return _adjust(p, "holm")


def benjamini_hochberg(p):
    """Benjamini-Hochberg q-values: flag where q <= alpha, and the expected share of false flags
    among the flagged stays below alpha (false discovery rate; less strict than Holm). NaN entries
    are left out and stay NaN. (statsmodels' multipletests, method "fdr_bh".)"""
    return _adjust(p, "fdr_bh")


def ranks(x) -> np.ndarray:
    """Ranks 1..n of x, ties given their average rank (as Spearman's correlation wants)."""
    return pd.Series(np.asarray(x, dtype=np.float64)).rank(method="average").to_numpy()


def spearman(x, y) -> float:
    """Spearman's rank correlation (scipy; ties given their average rank); NaN for fewer than two
    items or a constant ranking."""
    from scipy import stats
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(stats.spearmanr(x, y).statistic)


def kendall(x, y) -> float:
    """Kendall's tau-b (scipy): (concordant - discordant pairs) over the geometric mean of the
    pairs not tied in x and not tied in y; NaN where either ranking is constant."""
    from scipy import stats
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(stats.kendalltau(x, y).statistic)


def spearman_p(x, y, exact_up_to: int = 9) -> float:
    """Two-sided p-value of Spearman's correlation against no relation.

    Up to `exact_up_to` items: exact, the share of all orderings of y whose |rho| reaches the
    observed one (8 items: 40,320 orderings; scipy's permutation_test over every pairing). Beyond:
    the normal approximation rho * sqrt(n - 1).
    """
    rx, ry = ranks(x), ranks(y)
    n = rx.size
    rho = spearman(rx, ry)
    if np.isnan(rho):
        return float("nan")
    if n > exact_up_to:
        return float(two_sided_p(rho * np.sqrt(n - 1)))
    null = _spearman_null(tuple(np.sort(rx)), tuple(np.sort(ry)))
    observed = _abs_rho(ry, rx - rx.mean())
    # scipy's count for alternative="greater", with its tolerance for values equal in theory
    threshold = observed - abs(np.finfo(np.float64).eps * 100 * observed)
    return float((null.size - np.searchsorted(null, threshold, side="left")) / null.size)


def _abs_rho(yy, xc, axis=-1):
    yc = yy - yy.mean(axis=axis, keepdims=True)
    return np.abs(yc @ xc) / (np.sqrt((yc ** 2).sum(axis=axis)) * np.sqrt((xc ** 2).sum()))


@functools.lru_cache(maxsize=32)
def _spearman_null(rx: tuple, ry: tuple) -> np.ndarray:
    """|rho| over every pairing of the ranks ry with the ranks rx, sorted (scipy's exact
    permutation_test). It depends only on the two sets of ranks, not on their order, so a report's
    many rankings of the same items (8 biathletes, no ties: 40,320 pairings; 9 items: 362,880, about
    1.5 s) share one."""
    from scipy import stats
    x = np.asarray(rx, dtype=np.float64)
    xc = x - x.mean()
    res = stats.permutation_test((np.asarray(ry, dtype=np.float64),), lambda yy, axis=-1: _abs_rho(yy, xc, axis),
                                 permutation_type="pairings", n_resamples=np.inf, vectorized=True,
                                 alternative="greater")
    null = np.sort(res.null_distribution)
    null.flags.writeable = False          # shared by every call with the same ranks
    return null


def ratio_of_means(a, b, confidence: float = 0.95) -> dict[str, float]:
    """mean(a) / mean(b) with a delta-method interval, for two measurements on the same units.

    a, b: one value per independent unit (e.g. per race, a token's gain in win rate), NaN where the
    unit has no such measurement. Each mean is taken over its own units and their covariance over
    the units that have both. The interval is only meaningful where mean(b) is clearly away from
    zero; `b_p` (the test of mean(b) == 0) says how clearly; where mean(b) is exactly 0 (b never
    changed anything) ratio, low and high are NaN. Returns ratio, low, high, a_mean, b_mean, b_p and
    units (those with a or b).
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ha, hb = ~np.isnan(a), ~np.isnan(b)
    both = ha & hb
    na, nb, nab = ha.sum(), hb.sum(), both.sum()
    ma, mb = a[ha].mean(), b[hb].mean()
    va, vb = a[ha].var(ddof=1) / na, b[hb].var(ddof=1) / nb
    cov = (np.cov(a[both], b[both])[0, 1] * nab / (na * nb)) if nab > 1 else 0.0
    zc = z_value(confidence)
    if mb == 0 or not np.isfinite(mb):
        # b never moved (its token unused in these races): no ratio, and no divide-by-zero warning
        r = se = float("nan")
    else:
        r = ma / mb
        se = np.sqrt(max(va + r * r * vb - 2 * r * cov, 0.0)) / abs(mb)
    return {"ratio": float(r), "low": float(r - zc * se), "high": float(r + zc * se), "a_mean": float(ma),
            "b_mean": float(mb), "b_p": two_sided_p(mb / np.sqrt(vb)) if vb > 0 else float("nan"),
            "units": int(na + nb - nab)}


# --- player strength from a results table (one row per race and racer) ---------------------------
# Every rate comes with its sample size and a 95% interval. The tables read the columns
# `player_name`, `won`, `place`, `n_racers` and, for pairwise gaps, the columns that name an
# independent unit of play (by default trail and race index).


def standings(rows: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """One row per player, best win rate first.

    races: seats it raced in (a race where a player holds two seats counts twice); wins; win_rate
    with its Wilson interval (low, high), which treats the seats as independent (slightly too wide
    where one player holds several seats of a race, as only one of them can win); fair_share: the
    win rate of a player no better than its rivals (1 / racers); mean_place (1 = winner).
    """
    g = rows.groupby("player_name", observed=True)
    table = pd.DataFrame({
        "races": g.size(),
        "wins": g.won.sum().astype(int),
    })
    table["win_rate"] = table.wins / table.races
    table["low"], table["high"] = wilson_interval(table.wins.to_numpy(), table.races.to_numpy(), confidence)
    table["fair_share"] = g.n_racers.apply(lambda n: (1 / n).mean())
    table["mean_place"] = g.place.mean()
    table.index.name = "player"
    return table.sort_values("win_rate", ascending=False)


def pairwise(rows: pd.DataFrame, unit: tuple[str, ...] = ("trail", "race"), order: list[str] | None = None,
             confidence: float = 0.95) -> pd.DataFrame:
    """Win-rate gap of each pair of players measured on the same races, with interval and p-value.

    Per unit (a race index, played in every seat rotation), each player's win rate over its seats
    there; the gap is the mean over units of the difference, and its interval and test come from
    the spread of that difference across units, which are independent (paired_difference).
    Pairs come in the order of `order` (default: standings), the stronger first.
    """
    per_unit = rows.groupby([*unit, "player_name"], observed=True).won.mean().unstack("player_name")
    order = order if order is not None else list(standings(rows).index)
    out = []
    for a, b in combinations(order, 2):
        d = (per_unit[a] - per_unit[b]).dropna()
        r = paired_difference(d.to_numpy(), confidence)
        out.append({"player": a, "opponent": b, "gap": r["mean"], "low": r["low"], "high": r["high"],
                    "p": r["p"], "units": r["units"]})
    return pd.DataFrame(out, columns=["player", "opponent", "gap", "low", "high", "p", "units"])


__all__ = ["z_value", "wilson_interval", "two_sided_p", "two_proportion_test", "paired_difference",
           "fair_share_test", "holm", "benjamini_hochberg", "ranks", "spearman",
           "kendall", "spearman_p", "ratio_of_means", "standings", "pairwise"]
