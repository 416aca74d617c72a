"""What-if comparisons: a base and a changed data set played on the same races.

Both data sets play races 0 .. N-1 of balanced line-ups on each trail with the same seed, so race
*i* has the same biathletes in the same seats and ski colours, the same shuffles and the same dice
stream on both (common random numbers); only the change, and what it sets in motion, differs. A
biathlete races at most once per race, and so does a ski colour, so for a group of rows (a
biathlete, a biathlete on one trail, a ski colour) each race it appears in gives one paired
difference d = won(changed) - won(base) for the same race and seat. Races are independent of each
other, so the mean of d is the change in win rate and its standard error is sd(d) / sqrt(n): the
per-race variance of the difference, far smaller than that of two independent samples because most
races end the same way on both data sets. p-values are two-sided normal tests of mean d == 0,
adjusted for the number of rows (Holm, or Benjamini-Hochberg).

Each trail plays with its own seed, derived from the given seed and the trail's name
(`sim.study.cell_seed`), so the races of different trails are independent of each other.

Chunks of races play both data sets in one task and return only counts per (trail, biathlete, ski
colour), so memory stays flat whatever the number of races.
"""
from __future__ import annotations

import math
import re
import time
import tomllib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kernels import results as R
from kernels.blast import consts as C

from .blast.compile import CompiledBundle
from .blast.play import play_block
from .blast.design import Design, warm_up
from .stats import benjamini_hochberg, holm, two_sided_p, wilson_interval, z_value
from .study import cell_seed
from .validation import Patch

#: the groups a comparison has a row for (the second only when more than one trail is played)
SCOPES = ("biathlete", "biathlete on trail", "ski colour")
CORRECTIONS = ("holm", "bh")
COUNT_KEYS = ["trail", "biathlete", "colour"]
COUNTS = ["races", "wins_base", "wins_changed", "discordant", "place_base", "place_changed"]


def parse_set(text: str, origin: str | None = None) -> Patch:
    """A patch from 'FILE:PATH=VALUE' (VALUE in TOML: 7, [2, 4, 5], "until_usable", { black = 1 }).

    A bare word that is not TOML (until_usable) is taken as a string. ValueError saying what was
    expected when the text does not have that shape."""
    m = re.fullmatch(r"\s*([^:=]+?)\s*:\s*([^=]+?)\s*=(.*)", text, re.S)
    if not m:
        raise ValueError(f"--set {text!r}: expected FILE:PATH=VALUE, e.g. "
                         f"biathletes/olsson.toml:accuracy=[2,4,5]")
    file, path, raw = m.group(1), m.group(2), m.group(3).strip()
    if not raw:
        raise ValueError(f"--set {text!r}: no value after '='")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError as exc:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", raw):
            raise ValueError(f"--set {text!r}: the value {raw!r} is not TOML ({exc}); strings go in "
                             f"quotes, lists in brackets: [2, 4, 5]") from None
        value = raw
    return Patch(file, path, value, origin or f"--set {text}")


def check_pairable(base: CompiledBundle, changed: CompiledBundle, trails: list[str]) -> list[str]:
    """What keeps the two data sets from replaying the same races: one line per problem."""
    problems = []
    if base.biathlete_names != changed.biathlete_names:
        problems.append(f"the changed data has biathletes {', '.join(changed.biathlete_names)}, the base "
                        f"{', '.join(base.biathlete_names)}: the same line-ups need the same biathletes "
                        f"in the same order")
    for t in trails:
        missing = [what for what, b in (("base", base), ("changed", changed)) if t not in b.trail_names]
        if missing:
            problems.append(f"no trail {t!r} in the {' or the '.join(missing)} data "
                            f"(known: {', '.join(base.trail_names)})")
    return problems


def _compare_chunk(base: CompiledBundle, changed: CompiledBundle, design: Design, seed: int,
                   start: int, stop: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Races start .. stop-1 of `design` on both data sets: counts per (trail, biathlete, ski
    colour) and the number of races without a winner on each (int64[2])."""
    races = np.arange(start, stop, dtype=np.int64)
    names = design.player_names()
    a = play_block(base, design.setups(base, seed, races), seed, races, names)
    b = play_block(changed, design.setups(changed, seed, races), seed, races, names)
    same = (R.RACE, R.SEAT, R.BIATHLETE, R.COLOUR)
    if not np.array_equal(a[:, same], b[:, same]):
        raise RuntimeError("the two data sets did not seat the same line-ups; cannot pair their races")
    wb, wc = a[:, R.WON].astype(np.int64), b[:, R.WON].astype(np.int64)
    frame = pd.DataFrame({"trail": a[:, R.TRAIL], "biathlete": a[:, R.BIATHLETE], "colour": a[:, R.COLOUR],
                          "races": 1, "wins_base": wb, "wins_changed": wc, "discordant": np.abs(wc - wb),
                          "place_base": a[:, R.PLACE], "place_changed": b[:, R.PLACE]})
    counts = frame.groupby(COUNT_KEYS).sum().astype(np.int64)
    n = len(races)
    no_winner = np.array([n - int(wb.sum()), n - int(wc.sum())], np.int64)
    return counts, no_winner


@dataclass
class Comparison:
    """A comparison's outcome.

    table: one row per biathlete (all trails), biathlete on each trail (with more than one trail)
    and ski colour (all trails), largest |diff| first; columns scope, label, biathlete, trail,
    colour, races (the races the group raced in, on each data set), base_win and changed_win with
    Wilson intervals, diff (changed - base) with its paired interval (low, high), p, p_adjusted,
    significant, base_place and changed_place (mean place).
    counts: summed counts per (trail, biathlete, colour) (COUNTS), from which any grouping follows.
    """

    table: pd.DataFrame
    counts: pd.DataFrame
    no_winner: pd.DataFrame          # per trail: races, base and changed races without a winner
    trails: tuple[str, ...]
    seeds: dict[str, int]
    racers: int
    races: int                       # per trail
    players: tuple[str, ...]
    correction: str
    alpha: float
    base_hash: str
    changed_hash: str
    seconds: float

    def describe(self) -> str:
        seeds = ", ".join(f"{t} {s}" for t, s in self.seeds.items())
        return (f"{self.races:,} races per trail on {', '.join(self.trails)} ({self.races * len(self.trails):,} "
                f"per data set), {self.racers} racers, balanced line-ups, players {', '.join(self.players)}; "
                f"data {self.base_hash} (base) vs {self.changed_hash} (changed); seeds per trail: {seeds}; "
                f"{self.seconds:.1f} s")


def compare(base: CompiledBundle, changed: CompiledBundle, trails: list[str] | None = None, racers: int = 4,
            races: int = 9600, seed: int = 1, players: tuple[str, ...] = ("balanced",),
            chunk_size: int = 4800, n_jobs: int = 1, progress: bool = False, correction: str = "holm",
            alpha: float = 0.05) -> Comparison:
    """Play `races` races per trail (rounded up to whole blocks of balanced line-ups, biathletes x 6)
    on both data sets with the same seeds and compare win rates, paired race by race.

    trails: names (default: every trail of the base data). ValueError for data sets that cannot be
    paired, unknown trails or players, bad counts.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    trails = list(trails or base.trail_names)
    problems = check_pairable(base, changed, trails)
    if problems:
        raise ValueError("; ".join(problems))
    if races < 1 or chunk_size < 1:
        raise ValueError("races and chunk size must be at least 1")
    designs = [Design(t, racers, players=tuple(players)) for t in trails]
    for d in designs:
        try:
            d.check(base)
        except KeyError as exc:
            raise ValueError(str(exc.args[0]) if exc.args else str(exc)) from None
    block = len(base.biathlete_names) * C.N_COLOURS
    per_trail = math.ceil(races / block) * block
    seeds = {t: cell_seed(seed, t) for t in trails}
    tasks = [(d, seeds[d.trail], a, min(a + chunk_size, per_trail))
             for d in designs for a in range(0, per_trail, chunk_size)]
    t0 = time.perf_counter()
    parts, no_winner = [], {}
    for (d, _, a, b), (counts, nw) in zip(tasks, _run_tasks(base, changed, tasks, n_jobs, progress)):
        parts.append(counts)
        no_winner[d.trail] = no_winner.get(d.trail, 0) + nw
    seconds = time.perf_counter() - t0
    counts = pd.concat(parts).groupby(level=COUNT_KEYS).sum()
    nw = pd.DataFrame([(t, per_trail, *no_winner[t]) for t in trails],
                      columns=["trail", "races", "base", "changed"]).set_index("trail")
    table = comparison_table(counts, base.biathlete_names, base.trail_names, len(trails) > 1, correction, alpha)
    return Comparison(table, counts, nw, tuple(trails), seeds, racers, per_trail, tuple(players), correction,
                      alpha, base.data_hash, changed.data_hash, seconds)


def _run_tasks(base, changed, tasks, n_jobs, progress, scheduler=None):
    """Each task's counts, in order, through the shared runner (here, joblib workers or a dask
    cluster)."""
    from .runner import Task, progress_bar, run_tasks

    bar = progress_bar(sum(b - a for _, _, a, b in tasks), 0, progress, "base + changed")
    if n_jobs != 1 or scheduler:
        warm_up(base, tasks[0][0])       # compile (or load) the kernels once, before workers start
    try:
        for t, r in run_tasks([Task(t, _compare_chunk, (base, changed, *t)) for t in tasks], n_jobs, scheduler):
            if bar is not None:
                bar.update(t.key[3] - t.key[2])
            yield r
    finally:
        if bar is not None:
            bar.close()


def comparison_table(counts: pd.DataFrame, biathletes, trails, per_trail: bool = True,
                     correction: str = "holm", alpha: float = 0.05, confidence: float = 0.95) -> pd.DataFrame:
    """The comparison rows from summed counts per (trail, biathlete, colour) (COUNTS columns).

    Per group: n races, base and changed wins, and the sum of d^2 = |d| (d is -1, 0 or 1), which
    give the mean difference and its sample variance across races without the rows themselves."""
    flat = counts.reset_index()
    groups = [("biathlete", ["biathlete"])]
    if per_trail:
        groups.append(("biathlete on trail", ["biathlete", "trail"]))
    groups.append(("ski colour", ["colour"]))
    parts = []
    for scope, keys in groups:
        g = flat.groupby(keys)[COUNTS].sum().reset_index()
        g.insert(0, "scope", scope)
        parts.append(g)
    t = pd.concat(parts, ignore_index=True).reindex(columns=["scope", *COUNT_KEYS, *COUNTS])
    t["biathlete"] = [biathletes[int(i)] if i == i else "" for i in t.biathlete]
    t["trail"] = [trails[int(i)] if i == i else "" for i in t.trail]
    t["colour"] = [C.COLOUR_NAMES[int(i)] if i == i else "" for i in t.colour]
    t["label"] = [_label(r.scope, r.biathlete, r.trail, r.colour) for r in t.itertuples()]
    n = t.races.to_numpy(np.float64)
    wb, wc, disc = (t[c].to_numpy(np.float64) for c in ("wins_base", "wins_changed", "discordant"))
    t["base_win"], t["changed_win"] = wb / n, wc / n
    t["base_low"], t["base_high"] = wilson_interval(wb, n, confidence)
    t["changed_low"], t["changed_high"] = wilson_interval(wc, n, confidence)
    diff = (wc - wb) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.maximum(disc - n * diff ** 2, 0.0) / (n - 1)        # sample variance of d
        se = np.sqrt(var / n)
        z = np.where(se > 0, diff / np.where(se > 0, se, 1), np.where(diff == 0, 0.0, np.copysign(np.inf, diff)))
    zc = z_value(confidence)
    t["diff"], t["low"], t["high"] = diff, diff - zc * se, diff + zc * se
    t["p"] = two_sided_p(z)
    t["p_adjusted"] = holm(t.p.to_numpy()) if correction == "holm" else benjamini_hochberg(t.p.to_numpy())
    t["significant"] = t.p_adjusted <= alpha
    t["base_place"], t["changed_place"] = t.place_base / n, t.place_changed / n
    cols = ["scope", "label", "biathlete", "trail", "colour", "races", "base_win", "base_low", "base_high",
            "changed_win", "changed_low", "changed_high", "diff", "low", "high", "p", "p_adjusted",
            "significant", "base_place", "changed_place"]
    order = np.lexsort((t.label.to_numpy(), -np.abs(diff)))
    return t.iloc[order][cols].reset_index(drop=True)


def _label(scope: str, biathlete: str, trail: str, colour: str) -> str:
    if scope == "biathlete":
        return biathlete
    if scope == "biathlete on trail":
        return f"{biathlete} @ {trail}"
    return f"{colour} skis"


def format_table(table: pd.DataFrame, rows: int | None = None) -> str:
    """The comparison as text: win rates in percent, the paired interval in points, p-values."""
    t = table if rows is None else table.head(rows)
    out = pd.DataFrame({
        "row": t.label,
        "races": t.races.map("{:,}".format),
        "base": (t.base_win * 100).map("{:.2f}%".format),
        "changed": (t.changed_win * 100).map("{:.2f}%".format),
        "diff": (t["diff"] * 100).map("{:+.2f}".format),
        "95% interval": [f"[{lo * 100:+.2f}, {hi * 100:+.2f}]" for lo, hi in zip(t.low, t.high)],
        "p": t.p.map(_p_text),
        "p adjusted": t.p_adjusted.map(_p_text),
        "": np.where(t.significant, "*", ""),
    })
    return out.to_string(index=False)


def _p_text(p: float) -> str:
    return "<1e-15" if p < 1e-15 else f"{p:.2g}"


__all__ = ["Comparison", "compare", "comparison_table", "parse_set", "check_pairable", "format_table", "SCOPES"]
