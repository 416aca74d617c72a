"""Confidence intervals and tests for rates: the statistics every win rate in a report carries.

Pure numpy and the standard library (statistics.NormalDist): scipy is only a test extra, used to
check these against an independent implementation.
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np

_NORMAL = NormalDist()


def z_value(confidence: float = 0.95) -> float:
    """The two-sided standard normal quantile: 1.96 for 95%."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    return _NORMAL.inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion: (low, high), arrays shaped like the inputs.

    Unlike the normal (Wald) interval it stays inside [0, 1] and keeps its coverage near 0 and 1,
    which matters for rates such as a floor player's win rate. n == 0 gives (nan, nan).
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("successes must lie in 0 .. n")
    z = z_value(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        # exact ends at 0 and n, where the formula leaves rounding dust
        low = np.where(n > 0, np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
        high = np.where(n > 0, np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def two_sided_p(z):
    """Two-sided p-value of a standard normal statistic (arrays welcome)."""
    z = np.abs(np.asarray(z, dtype=np.float64))
    p = np.vectorize(lambda v: np.nan if np.isnan(v) else 2 * (1 - _NORMAL.cdf(v)), otypes=[float])(z)
    return float(p) if p.ndim == 0 else p


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


__all__ = ["z_value", "wilson_interval", "two_sided_p", "two_proportion_test", "paired_difference"]
