"""The balance report: sections of tables and figures from a study's results, a summary of findings
written from the numbers, and one self-contained report.html (docs/reports.md).

`build_report(source, out)` reads from a ResultsSource (reports.source) only the columns each
section needs, and writes:

    out/report.html            findings, sections, figures embedded as PNG, tables
    out/figures/NAME.png|svg   every figure
    out/tables/NAME.csv        every table (full precision)
    out/findings.txt           the findings, one per line

A section the study cannot support (no paired variants, a single persona) is replaced by a
sentence that says which cells would enable it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from . import figures as F
from . import metrics as M
from .html import figure_png, p_text, page
from .source import ResultsSource
from .stats import wilson_interval

RESULT_COLUMNS = ["trail", "n_racers", "seat", "colour", "biathlete", "won"]


@dataclass(frozen=True)
class ReportOptions:
    """confidence: of every interval. alpha: the level at which a corrected test flags. reference:
    the persona whose balanced line-ups make the main tables (default: the one with the most
    races). pulse_bands: first pulse of each band after the one from 0 (an accuracy tile's bands).
    currency: variants whose name contains this are the units of exchange rates. seed: of the
    rank-correlation bootstrap."""

    confidence: float = 0.95
    alpha: float = M.ALPHA
    reference: str | None = None
    pulse_bands: tuple[int, ...] = (3, 7)
    currency: str = "bullet"
    seed: int = 0


@dataclass
class Section:
    key: str
    title: str
    intro: str = ""
    skipped: str = ""
    figures: list = field(default_factory=list)      # (name, Figure, caption)
    tables: list = field(default_factory=list)       # (name, DataFrame, caption, percent)
    findings: list[str] = field(default_factory=list)

    def figure(self, name: str, fig, caption: str) -> None:
        self.figures.append((name, fig, caption))

    def table(self, name: str, table: pd.DataFrame, caption: str, percent: bool = True) -> pd.DataFrame:
        self.tables.append((name, table, caption, percent))
        return table


@dataclass
class Report:
    out: Path
    sections: list[Section]
    findings: list[str]

    @property
    def figure_names(self) -> list[str]:
        return [name for s in self.sections for name, *_ in s.figures]

    @property
    def table_names(self) -> list[str]:
        return [name for s in self.sections for name, *_ in s.tables]


def pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def pp(v: float, low: float, high: float) -> str:
    """A change in win rate in percentage points with its interval."""
    return f"{100 * v:+.2f} pp [{100 * low:+.2f}, {100 * high:+.2f}]"


class Context:
    """What every section shares: the source, options, the reference persona's cells and rows."""

    def __init__(self, source: ResultsSource, options: ReportOptions):
        self.source, self.o = source, options
        base = source.base
        homogeneous = [c for c in source.cells if c.balanced and c.persona and base in c.variants]
        totals: dict[str, int] = {}
        for c in homogeneous:
            totals[c.persona] = totals.get(c.persona, 0) + c.races
        self.personas = sorted(totals, key=lambda p: -totals[p])
        if options.reference is not None and options.reference not in totals:
            raise ValueError(f"no balanced line-ups with {options.reference!r} in every seat; "
                             f"personas: {', '.join(self.personas) or 'none'}")
        self.reference = options.reference or (self.personas[0] if self.personas else None)
        self.main_cells = source.cell_names(balanced=True, persona=self.reference, variant=base) \
            if self.reference else []
        self.trails = list(dict.fromkeys(c.trail for c in source.cells))

    def main(self, columns: list[str]) -> pd.DataFrame:
        """Base-variant rows of the reference persona's balanced line-ups."""
        return self.source.read(list(dict.fromkeys(RESULT_COLUMNS + columns)), self.main_cells, [self.source.base])

    def order_trails(self, table: pd.DataFrame, key: str = "trail_name") -> pd.DataFrame:
        order = {t: i for i, t in enumerate([*self.trails, "all"])}
        return table.sort_values(key, key=lambda s: s.map(order), kind="stable")


def colour_order(rows: pd.DataFrame) -> list[str]:
    pairs = rows[["colour", "colour_name"]].drop_duplicates().sort_values("colour")
    return [str(c) for c in pairs.colour_name]


# --- sections --------------------------------------------------------------------------------------

def overview(ctx: Context) -> Section:
    s = Section("overview", "What was played")
    cells = pd.DataFrame([{"cell": c.name, "trail": c.trail, "racers": c.racers,
                           "line_ups": "balanced" if c.balanced else "fixed", "players": ", ".join(c.players),
                           "races": c.races, "variants": ", ".join(c.variants)} for c in ctx.source.cells])
    races = sum(c.races * len(c.variants) for c in ctx.source.cells)
    s.intro = (f"{len(cells)} cells, {races:,} races in all. The main tables use the balanced line-ups "
               f"with {ctx.reference!r} in every seat on the data as it is ({len(ctx.main_cells)} cells); "
               f"every biathlete races in every ski colour equally often there, so a biathlete's fair "
               f"share of wins is 1/racers.") if ctx.reference else \
        f"{len(cells)} cells, {races:,} races in all; none has balanced line-ups with one persona in every seat."
    s.table("cells", cells, "Cells of the study")
    return s


def win_rate_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("win-rates", "Win rate per biathlete and trail")
    s.intro = ("Win rate against the fair share (1/racers), as the ratio of wins to a fair share's wins "
               "(1 = fair). * marks gaps significant after Holm's correction over every cell of the "
               f"table (alpha {o.alpha}); intervals are {o.confidence:.0%} Wilson intervals.")
    by_trail = s.table("win_rates_by_trail", ctx.order_trails(M.flag(M.with_overall(
        rows, "trail_name", ["biathlete_name"], confidence=o.confidence), o.alpha)),
        "Win rate per biathlete and trail (all: the trails pooled)")
    order = list(by_trail[by_trail.trail_name == "all"].sort_values("ratio", ascending=False).biathlete_name)
    piv = by_trail.pivot(index="biathlete_name", columns="trail_name", values="ratio")
    marks = by_trail.pivot(index="biathlete_name", columns="trail_name", values="significant")
    cols = [t for t in [*ctx.trails, "all"] if t in piv.columns]
    s.figure("win_rate_heatmap", F.heatmap(piv.loc[order, cols], 1.0, "Wins per fair share, by trail",
                                           "wins / fair share", marks.loc[order, cols].fillna(False)),
             "Wins per fair share of each biathlete on each trail, all racer counts pooled (* significant)")
    by_racers = s.table("win_rates_by_racers", M.flag(M.win_rates(
        rows, ["n_racers", "biathlete_name"], o.confidence), o.alpha),
        "Win rate per biathlete and number of racers (trails pooled)")
    s.figure("win_rate_by_racers", F.lines(by_racers, "n_racers", "ratio", "biathlete_name",
                                           "Wins per fair share by number of racers", "racers",
                                           "wins / fair share", 1.0, "ratio_low", "ratio_high"),
             "Wins per fair share by number of racers, with intervals")
    for trail in [*ctx.trails, "all"]:
        t = by_trail[by_trail.trail_name == trail]
        if len(t) < 2:
            continue
        hi, lo = t.loc[t.ratio.idxmax()], t.loc[t.ratio.idxmin()]
        where = "over all trails" if trail == "all" else f"on {trail}"
        s.findings.append(f"{where[0].upper()}{where[1:]}: {hi.biathlete_name} wins most "
                          f"({_rate(hi)}, fair share {pct(hi.fair_share)}, {_sig(hi)}), "
                          f"{lo.biathlete_name} least ({_rate(lo)}, {_sig(lo)}).")
    n_sig = int(by_trail.significant.sum())
    s.findings.append(f"{n_sig} of {len(by_trail)} biathlete-trail gaps to a fair share are significant after "
                      f"Holm's correction (Benjamini-Hochberg: {int((by_trail.q_bh <= o.alpha).sum())}).")
    return s


def _rate(r) -> str:
    return f"{pct(r.win_rate)} [{pct(r.low)}, {pct(r.high)}], n={int(r.races):,}"


def p_is(p: float) -> str:
    """'=0.012' or '<1e-6', to follow a 'p'."""
    text = p_text(p)
    return text if text.startswith("<") else f"={text}"


def _sig(r) -> str:
    return f"{'' if r.significant else 'not '}significant, Holm p{p_is(r.p_holm)}"


def colour_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("ski-colours", "Ski colours and seats")
    s.intro = ("Each ski colour's win rate against its fair share, over the balanced line-ups (every "
               "biathlete rides every colour equally often, so the colour's gear is what differs).")
    colours = colour_order(rows)
    t = s.table("ski_colours", ctx.order_trails(M.flag(M.with_overall(
        rows, "trail_name", ["colour_name"], confidence=o.confidence), o.alpha)),
        "Win rate per ski colour and trail (all: pooled)")
    t = t.assign(colour_name=pd.Categorical(t.colour_name.astype(str), colours)).sort_values(
        ["colour_name"], kind="stable")
    s.figure("ski_colours", F.bars(t, "colour_name", "ratio", "Wins per fair share by ski colour",
                                   "wins / fair share", hue="trail_name", reference=1.0,
                                   low="ratio_low", high="ratio_high"),
             "Wins per fair share of each ski colour, per trail and pooled, with intervals")
    s.table("seats", M.flag(M.win_rates(rows, ["n_racers", "seat"], o.confidence), o.alpha),
            "Win rate per seat (0 = first) and number of racers")
    pooled = t[t.trail_name == "all"].set_index("colour_name", drop=False)
    flagged = pooled[pooled.significant]
    s.findings.append("Ski colours off their fair share (Holm): " + (", ".join(
        f"{r.colour_name} {pct(r.win_rate)} vs {pct(r.fair_share)}" for r in flagged.itertuples())
        if len(flagged) else "none") + ".")
    if "red" in pooled.index:
        r = pooled.loc["red"]
        verdict = ("makes up for its missing wax" if not r.significant else
                   ("more than makes up for its missing wax" if r.gap > 0 else "does not make up for its missing wax"))
        s.findings.append(f"Red question: Red skis win {_rate(r)} against a fair share of {pct(r.fair_share)} "
                          f"({_sig(r)}): on this data Red's extra bullet {verdict}.")
    return s


def shooting_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("shooting", "Shooting")
    s.intro = ("Hits per shot at the range (both visits pooled): final hits count bullets added after "
               "the roll; dice hits are the dice alone (with the wind), the measure of accuracy. Pulse "
               f"bands start at {', '.join(map(str, (0, *o.pulse_bands)))}. Means carry normal "
               f"{o.confidence:.0%} intervals.")
    shot = M.shots(rows, o.pulse_bands)
    hits = s.table("hits_per_shot", M.means(shot, "hits", ["biathlete_name"], o.confidence).merge(
        M.means(shot, "dice_hits", ["biathlete_name"], o.confidence).drop(columns="n"), on="biathlete_name",
        suffixes=("", "_dice")).sort_values("mean", ascending=False),
        "Hits per shot per biathlete: final (mean, low, high) and from the dice alone (*_dice)", percent=False)
    dist = s.table("hit_distribution", M.hit_distribution(shot, "biathlete_name", "hits", o.confidence),
                   "Share of shots with each number of final hits, per biathlete")
    shares = dist.pivot(index="biathlete_name", columns="hits", values="rate").loc[list(hits.biathlete_name)]
    s.figure("hit_distribution", F.stacked_shares(shares, "Final hits per shot (share of shots)", "share of shots",
                                                  "hits"),
             "Distribution of final hits per shot, per biathlete (best mean first)")
    dice = hits.sort_values("mean_dice", ascending=False)
    s.table("hits_by_pulse_band", M.means(shot, "dice_hits", ["biathlete_name", "band"], o.confidence),
            "Dice hits per shot by pulse band", percent=False)
    by_pulse = s.table("hits_by_pulse", M.means(shot, "dice_hits", ["biathlete_name", "pulse"], o.confidence),
                       "Dice hits per shot by pulse at the shot", percent=False)
    s.figure("hits_by_pulse", F.lines(by_pulse[by_pulse.n >= 30], "pulse", "mean", "biathlete_name",
                                      "Dice hits per shot by pulse", "pulse at the shot", "dice hits"),
             "Mean dice hits per shot by pulse at the shot (points with 30 shots or more)")
    wind = M.means(shot, "dice_hits", ["wind"], o.confidence).assign(biathlete_name="all")
    by_wind = s.table("hits_by_wind", pd.concat([M.means(shot, "dice_hits", ["biathlete_name", "wind"], o.confidence),
                                                 wind], ignore_index=True),
                      "Dice hits per shot by wind at the shot", percent=False)
    s.figure("hits_by_wind", F.bars(by_wind, "biathlete_name", "mean", "Dice hits per shot by wind", "dice hits",
                                    hue="wind"), "Mean dice hits per shot by the wind at the shot")
    arrivals = pd.concat([pd.DataFrame({"biathlete_name": rows.biathlete_name, "visit": k,
                                        "pulse": rows[f"arrive_pulse_{k}"]}) for k in M.RANGE_VISITS])
    arrivals = arrivals[arrivals.pulse >= 0]
    s.table("arrival_pulse", M.means(arrivals, "pulse", ["biathlete_name", "visit"], o.confidence),
            "Pulse on arrival at the range per biathlete and visit", percent=False)
    s.figure("arrival_pulse", F.histograms(arrivals.assign(visit=arrivals.visit.map(lambda k: f"visit {k}")),
                                           "pulse", "visit", "Pulse on arrival at the range", "pulse"),
             "Distribution of pulse on arrival at the range, per visit")
    best, worst = dice.iloc[0], dice.iloc[-1]
    s.findings.append(f"Shooting: {best.biathlete_name} hits most with the dice ({best.mean_dice:.2f} "
                      f"[{best.low_dice:.2f}, {best.high_dice:.2f}] per shot, n={int(best.n):,}), "
                      f"{worst.biathlete_name} least ({worst.mean_dice:.2f} [{worst.low_dice:.2f}, "
                      f"{worst.high_dice:.2f}], n={int(worst.n):,}).")
    w = wind.set_index("wind")
    if len(w) > 1:
        s.findings.append("Dice hits per shot by wind: " + ", ".join(
            f"{k} {r['mean']:.2f} (n={int(r.n):,})" for k, r in w.iterrows()) + ".")
    return s


def gear_targets(source: ResultsSource, colours: list[str]) -> dict[str, str | None]:
    """The ski colour each variant changes: the colour named in its patches' paths (a colour of
    the table's colour_name column), or None where no single colour is named."""
    out = {}
    for name, v in source.variants.items():
        named = {seg for p in v.patches for seg in re.split(r"[.\[\]]", str(p.get("path", ""))) if seg in colours}
        out[name] = named.pop() if len(named) == 1 else None
    return out


def gear_section(ctx: Context) -> Section:
    o, src = ctx.o, ctx.source
    s = Section("gear", "Value of wax and bullets")
    cells = [c.name for c in src.cells if src.base in c.variants and len(c.variants) > 1]
    if not cells:
        s.skipped = ("This study has no paired variants, so the value of wax and bullets is not measured: "
                     "play a cell on the base data and on variants that change one ski colour's gear, e.g. "
                     "variants = [\"base\", \"green-wax+1\", \"green-bullet+1\"] (experiments/balance.toml).")
        return s
    s.intro = ("Each variant changes one ski colour's gear and replays the same races (same line-ups, "
               "same dice) as the base data. A token's value is the change in that colour's win rate, "
               "race by race, in percentage points; intervals come from the spread of the per-race "
               "differences (races are independent), * marks changes significant after Holm's "
               "correction. Exchange rates divide one token's gain by another's, with a delta-method "
               "interval.")
    rows = src.read(RESULT_COLUMNS + ["race"], cells, None)
    wide = M.paired_outcomes(rows, src.base)
    colours = colour_order(rows)
    targets = {v: t for v, t in gear_targets(src, colours).items()
               if v != src.base and v in wide.columns and t is not None}
    if not targets:
        s.skipped = "No variant names a single ski colour in its patches, so no token value can be assigned."
        return s
    value, by_bi, spill = [], [], []
    for v, colour in targets.items():
        mask = wide.colour_name == colour
        for by in (["trail_name"], []):
            t = M.paired_changes(wide, src.base, v, by, mask, o.confidence)
            value.append(t.assign(variant=v, colour=colour, trail_name=t.get("trail_name", "all")))
        for by, extra in ((["trail_name", "biathlete_name"], {}), (["biathlete_name"], {"trail_name": "all"})):
            by_bi.append(M.paired_changes(wide, src.base, v, by, mask, o.confidence).assign(variant=v, colour=colour,
                                                                                             **extra))
        spill.append(M.paired_changes(wide, src.base, v, ["colour_name"], None, o.confidence).assign(variant=v))
    lead = ["variant", "colour", "trail_name"]
    value = s.table("gear_value", M.flag(_front(pd.concat(value, ignore_index=True), lead), o.alpha),
                    "Change in the changed colour's win rate per variant and trail")
    by_bi = s.table("gear_value_by_biathlete", M.flag(_front(pd.concat(by_bi, ignore_index=True),
                                                              [*lead, "biathlete_name"]), o.alpha),
                    "Change in the changed colour's win rate per variant, trail and biathlete")
    s.table("gear_spillover", M.flag(_front(pd.concat(spill, ignore_index=True), ["variant", "colour_name"]), o.alpha),
            "Change in every ski colour's win rate per variant: who pays for a token")
    s.figure("gear_value", F.bars(value.assign(change=100 * value.change, low=100 * value.low, high=100 * value.high),
                                  "variant", "change", "Value of one token: change in win rate",
                                  "percentage points", hue="trail_name", reference=0.0),
             "Change in the changed colour's win rate per variant, per trail and pooled, with intervals")
    pooled = by_bi[by_bi.trail_name == "all"]
    piv = 100 * pooled.pivot(index="variant", columns="biathlete_name", values="change").loc[list(targets)]
    marks = pooled.pivot(index="variant", columns="biathlete_name", values="significant").loc[list(targets)]
    s.figure("gear_value_by_biathlete", F.heatmap(piv, 0.0, "Value of one token per biathlete (pp, trails pooled)",
                                                  "percentage points", marks.fillna(False), "{:+.1f}"),
             "Change in win rate per variant and biathlete riding the changed colour (* significant)")
    rates = _exchange_rates(wide, src.base, targets, o)
    if rates is not None:
        s.table("exchange_rates", rates, "Exchange rates: one token's gain in units of another's", percent=False)
    all_value = value[value.trail_name == "all"].set_index("variant")
    units = " to ".join(dict.fromkeys(f"{int(n):,}" for n in (all_value.units.min(), all_value.units.max())))
    s.findings.append(f"Value of one token for the colour that gets it (gear trails pooled; {units} races with "
                      "that colour per variant; * significant): " + "; ".join(
                          f"{v} {pp(r.change, r.low, r.high)}{'*' if r.significant else ''}"
                          for v, r in all_value.iterrows()) + ".")
    if rates is not None and len(rates):
        s.findings.append(_exchange_finding(rates, targets))
    red = [v for v, c in targets.items() if c == "red"]
    if red:
        s.findings.append("For Red: " + "; ".join(
            f"{v} changes Red's win rate by {pp(*all_value.loc[v, ['change', 'low', 'high']])}" for v in red) + ".")
    return s


def _front(table: pd.DataFrame, lead: list[str]) -> pd.DataFrame:
    return table[lead + [c for c in table.columns if c not in lead]]


def _exchange_rates(wide, base, targets, o: ReportOptions) -> pd.DataFrame | None:
    currencies = [v for v in targets if o.currency in v]
    if not currencies:
        return None
    out = [M.exchange_rate(wide, base, (v, wide.colour_name == targets[v]), (c, wide.colour_name == targets[c]),
                           o.confidence)
           for c in currencies for v in targets if v != c]
    return pd.DataFrame(out)


def _exchange_finding(rates: pd.DataFrame, targets: dict[str, str]) -> str:
    """Each token in the currency of the same colour where there is one, else the first."""
    parts = []
    for v, rows in rates.groupby("token", sort=False):
        same = rows[rows.currency.map(targets) == targets[v]]
        r = (same if len(same) else rows).iloc[0]
        sure = "" if r.currency_p < 0.05 else " (the currency's own gain is not clearly non-zero: treat as rough)"
        parts.append(f"one {v} = {r.rate:.2f} [{r.low:.2f}, {r.high:.2f}] x {r.currency}{sure}")
    return "Exchange rates: " + "; ".join(parts) + "."


def dynamics_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("dynamics", "Race dynamics")
    s.intro = ("Race length, eliminations, lead changes, whether the leader after the last range wins, "
               "and icy actions per lap. Race-wide values count each race once.")
    races = rows[rows.seat == 0]
    keys = ["trail_name", "n_racers"]
    length = M.means(races, "rounds", keys, o.confidence).merge(
        M.rates(races, "stalled", keys, o.confidence).rename(columns={"count": "stalled", "rate": "stalled_rate",
                                                                      "low": "stalled_low", "high": "stalled_high"})
        .drop(columns="n"), on=keys)
    s.table("rounds", ctx.order_trails(length), "Rounds per race and share of stalled races", percent=False)
    s.figure("rounds", F.histograms(races, "rounds", "trail_name", "Rounds per race", "rounds"),
             "Distribution of race length in rounds, per trail (all racer counts)")
    elim = []
    for cause, label in M.ELIM_CAUSES.items():
        for by in (keys, ["trail_name"]):
            t = M.rates(rows, rows.elim_cause == cause, by, o.confidence).assign(cause=label)
            elim.append(t if "n_racers" in by else t.assign(n_racers="all"))
    elim = s.table("eliminations", ctx.order_trails(_front(pd.concat(elim, ignore_index=True), ["cause", *keys])),
                   "Share of racers eliminated, by cause")
    pooled = elim[elim.n_racers.astype(str) == "all"]
    s.figure("eliminations", F.bars(pooled, "trail_name", "rate", "Racers eliminated, by cause", "share of racers",
                                    hue="cause", percent=True),
             "Share of racers eliminated per trail, by cause, with intervals")
    lead = s.table("lead_changes", ctx.order_trails(M.means(races, "lead_changes", keys, o.confidence)),
                   "Lead changes per race", percent=False)
    s.figure("lead_changes", F.histograms(races, "lead_changes", "trail_name", "Lead changes per race",
                                          "lead changes"), "Distribution of lead changes per race, per trail")
    leaders = rows[rows.leader_after_range == 1]
    lw = M.rates(leaders, "won", keys, o.confidence)
    lw["fair_share"] = 1 / lw.n_racers
    lw = s.table("leader_after_range_wins", ctx.order_trails(lw),
                 "How often the leader after the last range wins")
    s.figure("leader_after_range_wins", F.lines(lw, "n_racers", "rate", "trail_name",
                                                "Leader after the last range: share who win", "racers",
                                                "share of races won", percent=True),
             "Share of races won by the racer leading when the leader passed the last range, with intervals")
    icy = pd.concat([pd.DataFrame({"trail_name": rows.trail_name, "lap": k, "icy": rows[f"icy_lap_{k}"]})
                     for k in (1, 2, 3)])
    icy = s.table("icy_by_lap", ctx.order_trails(M.means(icy, "icy", ["trail_name", "lap"], o.confidence)),
                  "Icy actions used per racer and lap", percent=False)
    s.figure("icy_by_lap", F.bars(icy, "lap", "mean", "Icy actions per racer and lap", "icy actions",
                                  hue="trail_name"), "Mean icy actions used per racer in each lap, with intervals")
    led, won = len(leaders), int(leaders.won.sum())
    low, high = wilson_interval(won, led, o.confidence)
    fair = float((1 / leaders.n_racers).mean()) if led else float("nan")
    s.findings.append(
        f"Races last {races.rounds.mean():.1f} rounds on average ("
        + ", ".join(f"{t} {g.rounds.mean():.1f}" for t, g in races.groupby("trail_name", observed=True)) + "); "
        f"{pct(rows.eliminated.mean())} of racers are eliminated; {lead['mean'].mean():.1f} lead changes per race "
        f"(mean over trails and racer counts); the leader after the last range wins {pct(won / led)} "
        f"[{pct(low)}, {pct(high)}] of races (n={led:,}; fair share {pct(fair)}).")
    return s


def robustness_section(ctx: Context) -> Section:
    o, src = ctx.o, ctx.source
    s = Section("robustness", "Robustness across personas")
    others = [p for p in ctx.personas if p != ctx.reference]
    if not others:
        s.skipped = ("Only one persona played balanced line-ups in every seat, so the report cannot say whether "
                     "the ranking of biathletes depends on how the bots play: add cells with, e.g., "
                     "players = [\"sprinter\"] on the same trails and racer counts (experiments/balance.toml).")
        return s
    s.intro = (f"Each persona in every seat on balanced line-ups, against {ctx.reference!r} on the same trails "
               "and racer counts. Spearman's rho and Kendall's tau compare the rankings of biathletes by wins "
               "per fair share; p tests against no relation (exact over all orderings); 'a rerun' is where "
               "rho would fall if the study were played again (parametric bootstrap). A persona whose ranking "
               "agrees closely supports conclusions that do not depend on play style.")
    cols = ["trail", "n_racers", "biathlete", "won"]
    base = [src.base]
    ref_rows = src.read(cols, ctx.main_cells, base)
    per_persona, agreement = [], []
    for persona in [ctx.reference, *others]:
        rows = ref_rows if persona == ctx.reference else \
            src.read(cols, src.cell_names(balanced=True, persona=persona, variant=src.base), base)
        rates = M.flag(M.win_rates(rows, ["biathlete_name"], o.confidence), o.alpha).assign(persona=persona)
        per_persona.append(rates)
        if persona == ctx.reference:
            continue
        combos = rows[["trail_name", "n_racers"]].drop_duplicates()
        ref = ref_rows.merge(combos, on=["trail_name", "n_racers"])
        for trail, sub_ref, sub in [("all", ref, rows), *((t, ref[ref.trail_name == t], rows[rows.trail_name == t])
                                                          for t in ctx.trails)]:
            if not len(sub) or not len(sub_ref):
                continue
            a, b = (M.win_rates(x, ["biathlete_name"], o.confidence).set_index("biathlete_name")
                    for x in (sub_ref, sub))
            agreement.append({"persona": persona, "trail_name": trail, **M.rank_agreement(
                a.ratio, b.ratio, _ratio_se(a), _ratio_se(b), seed=o.seed, confidence=o.confidence)})
    table = s.table("persona_win_rates",
                    _front(pd.concat(per_persona, ignore_index=True), ["persona", "biathlete_name"]),
                    "Win rate per biathlete for each persona in every seat")
    agreement = s.table("persona_rank_agreement", ctx.order_trails(pd.DataFrame(agreement)),
                        "Agreement of each persona's ranking of biathletes with the reference's", percent=False)
    piv = table.pivot(index="biathlete_name", columns="persona", values="ratio")[[ctx.reference, *others]]
    marks = table.pivot(index="biathlete_name", columns="persona", values="significant")[[ctx.reference, *others]]
    order = piv[ctx.reference].sort_values(ascending=False).index
    s.figure("persona_heatmap", F.heatmap(piv.loc[order], 1.0, "Wins per fair share by persona in every seat",
                                          "wins / fair share", marks.loc[order].fillna(False)),
             "Wins per fair share of each biathlete when every seat plays one persona (* significant)")
    pooled = agreement[agreement.trail_name == "all"]
    s.findings.append(f"Robustness of the ranking of biathletes under {ctx.reference}: " + "; ".join(
        f"{_verdict(r, o.alpha)} under {r.persona} (Spearman {r.spearman:+.2f}, a rerun {r.rerun_low:+.2f} to "
        f"{r.rerun_high:+.2f}; Kendall {r.kendall:+.2f}; p{p_is(r.spearman_p)})"
        for r in pooled.itertuples()) + ".")
    sig = table[table.significant].assign(sign=lambda t: np.sign(t.gap))
    ref_flags = sig[sig.persona == ctx.reference].set_index("biathlete_name").sign
    fragile = []
    for b, sign in ref_flags.items():
        lost = [p for p in others if not ((sig.persona == p) & (sig.biathlete_name == b) & (sig.sign == sign)).any()]
        if lost:
            fragile.append(f"{b} ({'over' if sign > 0 else 'under'}; not so under {', '.join(lost)})")
    s.findings.append("Flags that depend on play style: " + (", ".join(fragile) if fragile else (
        f"none; every biathlete flagged under {ctx.reference} is flagged the same way under every persona")) + ".")
    return s


def _verdict(r, alpha: float) -> str:
    """holds: a strong rank correlation, clearly not chance; in part: clearly not chance but
    weaker; does not hold: what chance alone could give."""
    if r.spearman_p <= alpha:
        return "holds" if r.spearman >= 0.7 else "holds in part"
    return "does not hold"


def _ratio_se(t: pd.DataFrame) -> pd.Series:
    """Standard error of wins per fair share: the win rate's binomial error over the fair share."""
    return np.sqrt(t.win_rate * (1 - t.win_rate) / t.races) / t.fair_share


# --- assembly --------------------------------------------------------------------------------------

MAIN_COLUMNS = ["race", "rounds", "stalled", "lead_changes", "eliminated", "elim_cause", "leader_after_range",
                "icy_lap_1", "icy_lap_2", "icy_lap_3",
                *(f"{c}_{k}" for k in M.RANGE_VISITS for c in ("shots", "hits", "dice_hits", "shot_pulse",
                                                                "shot_wind", "arrive_pulse"))]


def build_report(source: ResultsSource, out: str | Path, options: ReportOptions = ReportOptions(),
                 log: Callable[[str], None] = print) -> Report:
    """Every section the study supports, written to `out` (see the module docstring)."""
    out = Path(out)
    ctx = Context(source, options)
    sections = [overview(ctx)]
    if ctx.reference:
        log(f"reading the {ctx.reference!r} balanced line-ups ({len(ctx.main_cells)} cells)")
        main = ctx.main(MAIN_COLUMNS)
        for make in (win_rate_section, colour_section, shooting_section, dynamics_section):
            log(f"section: {make.__name__.removesuffix('_section').replace('_', ' ')}")
            sections.append(make(ctx, main))
        del main
    else:
        sections.append(Section("win-rates", "Win rates", skipped=(
            "No cell has balanced line-ups with one persona in every seat (the design that gives every "
            "biathlete a fair share of 1/racers): add cells without `biathletes`, e.g. experiments/balance.toml.")))
    log("section: gear")
    sections.append(gear_section(ctx))
    log("section: robustness")
    sections.append(robustness_section(ctx))
    findings = [f for s in sections for f in s.findings]
    skipped = [f"{s.title}: skipped." for s in sections if s.skipped]
    return write_report(source, out, sections, findings + skipped)


def write_report(source: ResultsSource, out: Path, sections: list[Section], findings: list[str]) -> Report:
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    rendered = []
    for s in sections:
        figs = []
        for name, fig, caption in s.figures:
            fig.savefig(out / "figures" / f"{name}.svg")
            png = figure_png(fig)
            (out / "figures" / f"{name}.png").write_bytes(png)
            figs.append((name, png, caption))
        for name, table, *_ in s.tables:
            table.to_csv(out / "tables" / f"{name}.csv", index=False)
        rendered.append(Section(s.key, s.title, s.intro, s.skipped, figs, s.tables, s.findings))
    meta = [f"Results: {source.path}" + (f" ({source.command})" if source.command else "")]
    meta += [source.description] if source.description else []
    (out / "report.html").write_text(page(f"Balance report: {source.title}", meta, findings, rendered),
                                     encoding="utf-8")
    (out / "findings.txt").write_text("\n".join(findings) + "\n", encoding="utf-8")
    return Report(out, sections, findings)


__all__ = ["ReportOptions", "Section", "Report", "build_report", "write_report", "gear_targets"]
