"""The scoring: the statistics a design's targets read (per balanced block, sums and counts), the
score of a candidate (weighted squared excess beyond the bands) and the paired difference of two
candidates on the same races with its standard error (the delta method over blocks)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .spec import BalanceFile, DesignSpec, TargetSpec


# --- statistics ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stat:
    """One mean a target reads, in one design: the win rate of one value of an axis (or seat), or
    the mean race length in rounds."""

    design: str
    metric: str
    by: str
    value: int
    label: str


def design_stats(bf: BalanceFile, mod, bundle, d: DesignSpec) -> list[Stat]:
    names = mod.names(bundle, d.design)
    out: list[Stat] = []
    bys = sorted({t.by for t in bf.targets if t.metric == "win_rate" and _applies(t, d)})
    for by in bys:
        if by == "seat":
            values = [f"seat {i}" for i in range(mod.seats_per_race(d.design))]
        else:
            values = list(names[by])
        out += [Stat(d.label, "win_rate", by, i, v) for i, v in enumerate(values)]
    if any(t.metric == "rounds" and _applies(t, d) for t in bf.targets):
        out.append(Stat(d.label, "rounds", "", 0, "mean rounds"))
    return out


def _stat_label(s: Stat) -> str:
    """'biathlete Olsson', 'colour red', 'seat 0', 'mean rounds'."""
    return f"{s.by} {s.label}" if s.metric == "win_rate" and s.by != "seat" else s.label


def _applies(t: TargetSpec, d: DesignSpec) -> bool:
    return (not t.scenarios or d.scenario in t.scenarios) and (not t.personas or d.persona in t.personas)


def block_sums(seats: np.ndarray, stats: list[Stat], first_block: int, n_blocks: int, block: int) -> np.ndarray:
    """[2, n_blocks, len(stats)]: per balanced block, the sum and the count of each statistic."""
    out = np.zeros((2, n_blocks, len(stats)), np.float64)
    race = seats["race"].astype(np.int64)
    b = race // block - first_block
    lead = seats["leg"] == 0 if "leg" in seats.dtype.names else np.ones(len(seats), bool)
    by_cols: dict[str, np.ndarray] = {}
    for j, s in enumerate(stats):
        if s.metric == "win_rate":
            col = by_cols.setdefault(s.by, seats[s.by].astype(np.int64))
            sel = lead & (col == s.value)
            out[0, :, j] = np.bincount(b[sel], weights=seats["won"][sel].astype(np.float64), minlength=n_blocks)
            out[1, :, j] = np.bincount(b[sel], minlength=n_blocks)
        else:
            # race length: the most rounds any racer of the race has
            races, inv = np.unique(race, return_inverse=True)
            length = np.zeros(len(races))
            np.maximum.at(length, inv, seats["rounds"].astype(np.float64))
            rb = races // block - first_block
            out[0, :, j] = np.bincount(rb, weights=length, minlength=n_blocks)
            out[1, :, j] = np.bincount(rb, minlength=n_blocks)
    return out


# --- the targets' score ------------------------------------------------------------------------------

@dataclass
class Scoring:
    """Per design: its statistics, bands (lo, hi), scales (half-widths) and weights, aligned."""

    stats: dict[str, list[Stat]]
    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    scale: dict[str, np.ndarray]
    weight: dict[str, np.ndarray]
    target: dict[str, list[str]]
    persona: dict[str, str] | None = None     # design -> its persona
    role: dict[str, str] | None = None        # design -> "binds" (the headline) or "bounds" (BalanceFile.role)

    def reweighted(self, bound_factor: float) -> "Scoring":
        """The same scoring with the bound personas' weights times `bound_factor` (a front's descent)."""
        w = {lab: v * (bound_factor if self.role[lab] == "bounds" else 1.0) for lab, v in self.weight.items()}
        return Scoring(self.stats, self.lo, self.hi, self.scale, w, self.target, self.persona, self.role)


def make_scoring(bf: BalanceFile, stats: dict[str, list[Stat]]) -> Scoring:
    lo, hi, sc, w, tn = {}, {}, {}, {}, {}
    designs = {d.label: d for d in bf.designs}
    for label, ss in stats.items():
        d = designs[label]
        n = len(ss)
        lo[label], hi[label] = np.full(n, -np.inf), np.full(n, np.inf)
        sc[label], w[label] = np.ones(n), np.zeros(n)
        tn[label] = [""] * n
        for t in bf.targets:
            if not _applies(t, d):
                continue
            for j, s in enumerate(ss):
                if t.metric != s.metric or (t.metric == "win_rate" and t.by != s.by):
                    continue
                if t.metric == "win_rate":
                    fair = 1.0 / d.racers
                    a, b, h = fair - t.within_pp / 100, fair + t.within_pp / 100, t.within_pp / 100
                else:
                    a, b, h = t.lo, t.hi, (t.hi - t.lo) / 2
                # two targets on one statistic: the narrower band holds
                lo[label][j], hi[label][j] = max(lo[label][j], a), min(hi[label][j], b)
                sc[label][j] = h if w[label][j] == 0 else min(sc[label][j], h)
                w[label][j] = max(w[label][j], t.weight)
                tn[label][j] = t.name if not tn[label][j] else tn[label][j] + ", " + t.name
    return Scoring(stats, lo, hi, sc, w, tn, {lab: designs[lab].persona for lab in stats},
                   {lab: role(bf, designs[lab].persona) for lab in stats})


def role(bf, persona: str) -> str:
    """'binds' (the headline: the binding player's designs, or every design without [players]) or
    'bounds' (a bound persona's: a robustness band)."""
    binds = getattr(bf, "binds", None)
    return "binds" if binds is None or persona == binds else "bounds"


def objectives(scoring: Scoring, sums: dict[str, np.ndarray]) -> tuple[float, float, str]:
    """The front's two objectives of a candidate: the headline (the binding designs' part of the
    score) and the worst bound persona's part of the score, with that persona's name ("" when no
    persona is bounded). Both zero when every target of their kind is met."""
    head, per = 0.0, {}
    for label, arr in sums.items():
        part = score_of(scoring, {label: arr})[0]
        if scoring.role[label] == "binds":
            head += part
        else:
            per[scoring.persona[label]] = per.get(scoring.persona[label], 0.0) + part
    worst = max(per, key=lambda p: (per[p], p), default="")
    return head, per.get(worst, 0.0), worst


def pareto(points: list[tuple[float, float, float]], tol: float = 1e-3) -> list[int]:
    """The indices of the non-dominated points (both objectives minimised; the third value breaks
    ties: of points equal on both, the one lowest on it), sorted by the first objective. A point
    must beat every point before it on the second objective by more than `tol` (a score of 0.001
    is an excess of 3% of a band's half-width): no front of differences nobody could see."""
    order = sorted(range(len(points)), key=lambda i: points[i])
    out, best_second = [], math.inf
    for i in order:
        if points[i][1] < best_second - tol:
            out.append(i)
            best_second = points[i][1]
    return out


def score_of(scoring: Scoring, sums: dict[str, np.ndarray], blocks: int | None = None):
    """(score, gradient per design, means per design) over the first `blocks` blocks of each
    design (all played ones when None)."""
    total, grads, means = 0.0, {}, {}
    for label, arr in sums.items():
        a = arr[:, :blocks] if blocks is not None else arr
        s, c = a[0].sum(0), a[1].sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(c > 0, s / np.maximum(c, 1), np.nan)
        lo, hi, h, w = scoring.lo[label], scoring.hi[label], scoring.scale[label], scoring.weight[label]
        below, above = np.maximum(lo - m, 0), np.maximum(m - hi, 0)
        excess = np.nan_to_num(below + above) / h
        total += float((w * excess ** 2).sum())
        grads[label] = np.nan_to_num(w * 2 * excess / h * np.sign(above - below))
        means[label] = m
    return total, grads, means


def influence(sums: np.ndarray, means: np.ndarray, grad: np.ndarray, blocks: int) -> np.ndarray:
    """Per block, the delta-method influence of the block on the score: sum over statistics of
    gradient x (block sum - mean x block count) / total count."""
    a = sums[:, :blocks]
    n = np.maximum(a[1].sum(0), 1)
    resid = (a[0] - np.nan_to_num(means) * a[1]) / n
    return resid @ grad


def residuals(sums: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """(means, per-block residual contributions [blocks, stats]) of every statistic."""
    a = sums[:, :blocks]
    n = np.maximum(a[1].sum(0), 1)
    m = a[0].sum(0) / n
    return m, (a[0] - m * a[1]) / n


def paired_difference(scoring: Scoring, cand: dict[str, np.ndarray], inc: dict[str, np.ndarray],
                      cost: float = 0.0) -> tuple[float, float]:
    """(score(cand) - score(inc) + cost, its standard error) for block sums of the same races: the
    delta method, each block's influence on the score paired across the two, clustered by block."""
    tc, gc, mc = score_of(scoring, cand)
    ti, gi, mi = score_of(scoring, inc)
    var = 0.0
    for label in cand:
        n = cand[label].shape[1]
        d = influence(cand[label], mc[label], gc[label], n) - influence(inc[label], mi[label], gi[label], n)
        var += float((d ** 2).sum())
    return (tc - ti) + cost, math.sqrt(var)


@dataclass
class Evaluation:
    key: str
    pos: dict[str, int]
    sums: dict[str, np.ndarray]          # design -> [2, blocks, stats]
    blocks: dict[str, int]               # blocks played per design
    invalid: str = ""
    bundle_hash: str = ""
    races: tuple = (0, 0)                # the races it plays: (fresh round, confirmation round)

    def complete(self, need: dict[str, int]) -> bool:
        return self.invalid != "" or all(self.blocks.get(k, 0) >= v for k, v in need.items())
