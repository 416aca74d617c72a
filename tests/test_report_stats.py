"""sim.stats on the libraries (scipy, statsmodels) against the textbook formulas they replaced:
every number the same within 1e-12, except the normal tail beyond |z| of about 8.3, where the old
1 - cdf rounded to exactly 0 and the survival function does not."""
from itertools import permutations

import numpy as np
import pytest

from sim.stats import benjamini_hochberg, holm, kendall, spearman, spearman_p, two_sided_p, wilson_interval


def wilson_by_hand(k, n, z=1.959963984540054):
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def test_wilson_matches_the_formula_and_is_exact_at_the_ends():
    k, n = np.array([0, 1, 17, 250, 400]), np.array([400, 400, 400, 400, 400])
    low, high = wilson_interval(k, n)
    lo_ref, hi_ref = wilson_by_hand(k.astype(float), n.astype(float))
    np.testing.assert_allclose(low[1:], lo_ref[1:], rtol=0, atol=1e-12)
    np.testing.assert_allclose(high[:-1], hi_ref[:-1], rtol=0, atol=1e-12)
    assert low[0] == 0.0 and high[-1] == 1.0
    assert all(np.isnan(wilson_interval(0, 0)))


def test_holm_and_bh_match_the_step_procedures():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=30) ** 3
    order = np.argsort(p)
    m = p.size
    holm_ref = np.empty(m)
    holm_ref[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    bh_ref = np.empty(m)
    bh_ref[order] = np.minimum(1, np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))[::-1])[::-1])
    np.testing.assert_allclose(holm(p), holm_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(benjamini_hochberg(p), bh_ref, rtol=0, atol=1e-12)


def test_normal_tail_is_the_survival_function_not_a_rounded_zero():
    from statistics import NormalDist

    z = np.array([0.0, 1.959963984540054, 3.0, 8.0])
    old = np.array([2 * (1 - NormalDist().cdf(v)) for v in z])
    np.testing.assert_allclose(two_sided_p(z), old, rtol=0, atol=1e-12)
    # beyond |z| ~ 8.3 the old 1 - cdf was exactly 0; the library keeps the tail (still < 1e-12)
    assert 2 * (1 - NormalDist().cdf(9.0)) == 0.0
    assert 0 < two_sided_p(9.0) < 1e-12 and two_sided_p(9.0) == pytest.approx(2.2571768e-19, rel=1e-6)


def test_exact_spearman_p_counts_every_ordering():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=6), rng.integers(0, 3, 6).astype(float)     # ties in y
    rho = spearman(x, y)
    rx = np.argsort(np.argsort(x)).astype(float)
    import pandas as pd
    ry = pd.Series(y).rank().to_numpy()
    count = sum(abs(np.corrcoef(rx, perm)[0, 1]) >= abs(rho) - 1e-12 for perm in permutations(ry))
    assert spearman_p(x, y) == pytest.approx(count / 720, abs=1e-12)
    assert np.isnan(spearman([1, 1, 1], [1, 2, 3])) and np.isnan(kendall([1, 1, 1], [1, 2, 3]))
