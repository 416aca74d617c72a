"""Biathlon Blast's own report sections: ski colours and the Red question, shooting by pulse and
wind, the value of wax and bullets with exchange rates, icy actions by lap. The core sections
(reports.core) serve the rest of a Blast report."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import core as C
from . import figures as F
from . import metrics as M
from . import readings as R
from .base import Context, ReportOptions, Section, _front, _rate, _sig, colour_order, pct, pp
from sim.source import ResultsSource


#: the assumption behind minutes at the table (reports.core.Pace)
PACE = C.Pace(30, 20, "play the card's action: move, adjust the pulse, change the wind, spend wax; or Wait or Shoot "
                      "at the range", "A round starts with every player choosing a card at once.")


def table_time_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Race length a designer can plan with: turns per player and minutes at the table."""
    return C.table_time_section(ctx, rows, PACE)


def colour_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("ski-colours", "Ski colours and seats")
    s.intro = ("Each ski colour's win rate against its fair share, over the balanced line-ups (every "
               "biathlete rides every colour equally often, so the colour's gear is what differs).")
    colours = colour_order(rows)
    t = s.table("ski_colours", ctx.order_trails(ctx.judge(M.flag(M.with_overall(
        rows, "trail_name", ["colour_name"], confidence=o.confidence), o.alpha), "ski colour", "colour_name",
        "trail_name")), "Win rate per ski colour and trail (all: pooled)")
    t = t.assign(colour_name=pd.Categorical(t.colour_name.astype(str), colours)).sort_values(
        ["colour_name"], kind="stable")
    s.figure("ski_colours", F.bars(t, "colour_name", "ratio", "Wins per fair share by ski colour",
                                   "wins / fair share", hue="trail_name", reference=1.0,
                                   low="ratio_low", high="ratio_high", band=ctx.band),
             "Wins per fair share of each ski colour, per trail and pooled, with intervals (bars grow from a fair "
             "share)")
    per = M.flag(M.win_rates(rows, ["n_racers", "seat"], o.confidence), o.alpha)
    s.table("seats", ctx.judge_by_racers(per.assign(who=per.seat.map(lambda k: f"seat {int(k)}")), "seat",
                                         "who").drop(columns="who"),
            "Win rate per seat (0 = first) and number of racers")
    ctx.judge_by_racers(M.win_rates(rows, ["n_racers", "colour_name"], o.confidence), "ski colour", "colour_name")
    seats = M.with_overall(rows, "trail_name", ["seat"], confidence=o.confidence)
    ctx.judge(seats.assign(who=seats.seat.map(lambda k: f"seat {int(k)}")), "seat", "who", "trail_name")
    pooled = t[t.trail_name == "all"].set_index("colour_name", drop=False)
    off = pooled[pooled.verdict.isin(["over", "under"])]
    s.findings.append(f"Ski colours outside the band ({ctx.band_text}): " + (", ".join(
        f"{r.colour_name} {r.verdict} ({r.ratio:.2f} x fair share; {pct(r.win_rate)} vs {pct(r.fair_share)})"
        for r in off.itertuples()) if len(off) else "none") + ".")
    why = ctx.fixed.get("ski colour")
    if why and len(off):
        s.findings.append(f"The ski colours' gear is fixed by the box: {why}.")
    if "red" in pooled.index:
        r = pooled.loc["red"]
        verdict = {"in band": "makes up for its missing wax within the band",
                   "over": "more than makes up for its missing wax",
                   "under": "does not make up for its missing wax"}.get(r.verdict)
        if verdict is None:      # not enough races: say so, never read "no difference" as "equal"
            verdict = ("may or may not make up for its missing wax: these races cannot tell (" + _sig(r) + ")")
            s.findings.append(f"Red question: Red skis win {r.ratio:.2f} x a fair share ({_rate(r)}); on this data "
                              f"Red's extra bullet {verdict}.")
        else:
            s.findings.append(f"Red question: Red skis win {r.ratio:.2f} x a fair share ({_rate(r)}; {_sig(r)}): "
                              f"on this data Red's extra bullet {verdict}.")
        ctx.questions.append(f"Does Red's extra bullet make up for its missing wax? Red skis win {r.ratio:.2f} x a "
                             f"fair share over all trails: its extra bullet {verdict}.")
    return s


#: the visits table's columns the shooting section reads
VISIT_COLUMNS = ["race", "seat", "visit", "shots", "hits", "dice_hits", "shot_pulse", "shot_wind", "arrive_pulse",
                 "biathlete_name"]


def shooting_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Shooting per biathlete from the visits table (one row per racer and range visit reached)."""
    o, src = ctx.o, ctx.source
    s = Section("shooting", "Shooting")
    if src.read_visits is None:
        s.skipped = "These results have no visits table (one row per racer and range visit)."
        return s
    visits = src.read_visits(VISIT_COLUMNS, ctx.main_cells, [src.base])
    s.intro = ("Hits per shot at the range (both visits pooled): final hits count bullets added after "
               "the roll; dice hits are the dice alone (with the wind), the measure of accuracy. Pulse "
               f"bands start at {', '.join(map(str, (0, *ctx.pulse_bands)))} (the data's accuracy bands). Means carry normal "
               f"{o.confidence:.0%} intervals.")
    shot = M.shots(visits, ctx.pulse_bands)
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
    arrivals = visits.sort_values("visit", kind="stable")
    arrivals = pd.DataFrame({"biathlete_name": arrivals.biathlete_name, "visit": arrivals.visit,
                             "pulse": arrivals.arrive_pulse})
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
    own = set(src.variants_of("")) | {src.base}       # a [screen]'s knob steps are levers, not gear
    cells = [c.name for c in src.cells if src.base in c.variants and len(own.intersection(c.variants)) > 1]
    if not cells:
        s.skipped = ("This study has no paired variants, so the value of wax and bullets is not measured: "
                     "play a cell on the base data and on variants that change one ski colour's gear, e.g. "
                     "variants = [\"base\", \"green-wax+1\", \"green-bullet+1\"] (experiments/balance.toml).")
        return s
    s.intro = ("Each variant changes one ski colour's gear and replays the same races (same line-ups, "
               "same dice) as the base data. A token's value is the change in that colour's win rate, "
               "race by race, in percentage points, with an interval from the spread of the per-race "
               "differences (races are independent). Beside every value: how often the players used the "
               "token (the results' wax used and bullets left): a value measured on races where the token "
               "was never used is not measurable with these players, whatever its interval says. Exchange "
               "rates divide one token's gain by another's, with a delta-method interval.")
    # the rule readings of the same cells change no gear: left unread (their own section, readings_section)
    readings = set(R.reading_variants(src))
    wanted = sorted({v for c in src.cells if c.name in cells for v in c.variants} & own - readings)
    rows = src.read(ctx.result_columns + ["race", *USAGE_COLUMNS], cells, wanted)
    wide = M.paired_outcomes(rows, src.base)
    colours = colour_order(rows)
    targets = {v: t for v, t in gear_targets(src, colours).items()
               if v != src.base and v in wide.columns and t is not None}
    if not targets:
        s.skipped = "No variant names a single ski colour in its patches, so no token value can be assigned."
        return s
    usage = s.table("gear_usage", token_usage(rows, src, targets, o.confidence),
                    "How often the players used each variant's token (the changed colour's racers)")
    used = usage.set_index("variant")
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
    value = _front(pd.concat(value, ignore_index=True), lead)
    value["used_share"] = value.variant.map(used["used_share"])
    # measurable: the token was used, and the variant changed enough races to measure (M.measurable)
    value["measurable"] = [("not measurable with these players (never used)" if used.loc[v, "measurable"] == "no"
                            else M.measurable(c, u)) for v, c, u in zip(value.variant, value.changed, value.units)]
    by_bi = [t.assign(measurable=[M.measurable(c, u) for c, u in zip(t.changed, t.units)]) for t in by_bi]
    spill = [t.assign(measurable=[M.measurable(c, u) for c, u in zip(t.changed, t.units)]) for t in spill]
    # not measurable: no number in the tables, where +0.00 [0.00, 0.00] would read as "worth nothing"
    value, by_bi, spill = _blank_unmeasured(value), [_blank_unmeasured(t) for t in by_bi], \
        [_blank_unmeasured(t) for t in spill]
    value = s.table("gear_value", M.flag(value, o.alpha),
                    "Change in the changed colour's win rate per variant and trail, and how often its token was used")
    by_bi = s.table("gear_value_by_biathlete", M.flag(_front(pd.concat(by_bi, ignore_index=True),
                                                              [*lead, "biathlete_name"]), o.alpha),
                    "Change in the changed colour's win rate per variant, trail and biathlete")
    s.table("gear_spillover", M.flag(_front(pd.concat(spill, ignore_index=True), ["variant", "colour_name"]), o.alpha),
            "Change in every ski colour's win rate per variant: who pays for a token")
    shown = value[value.measurable == "yes"]
    left_out = sorted(set(value.variant) - set(shown.variant))
    if len(shown):
        s.figure("gear_value", F.bars(shown.assign(change=100 * shown.change, low=100 * shown.low,
                                                   high=100 * shown.high),
                                      "variant", "change", "Value of one token: change in win rate",
                                      "percentage points", hue="trail_name", reference=0.0),
                 "Change in the changed colour's win rate per variant, per trail and pooled, with intervals "
                 + (f"(not measurable with these players, so not drawn: {', '.join(left_out)})" if left_out else ""))
    pooled = by_bi[by_bi.trail_name == "all"]
    order = [v for v in targets if v in set(pooled.variant)]
    # a variant not measurable with these players has no value to colour: its row says so instead
    unmeasured = pooled.measurable.ne("yes") | pooled.variant.isin(left_out)
    piv, lo, hi = (100 * pooled.assign(**{c: pooled[c].where(~unmeasured)}).pivot(
        index="variant", columns="biathlete_name", values=c).loc[order] for c in ("change", "low", "high"))
    marks = pooled.assign(mark=np.where(unmeasured, "n/m", "")).pivot(
        index="variant", columns="biathlete_name", values="mark").loc[order]
    pooled_value = value[value.trail_name == "all"].set_index("variant")
    names = {v: f"{v} (not measurable with these players: {int(pooled_value.changed.get(v, 0)):,} races changed, "
                f"token used in {pct(float(used.used_share.get(v, 0)))})" for v in left_out}
    piv, lo, hi, marks = (t.rename(index=names) for t in (piv, lo, hi, marks))
    s.figure("gear_value_by_biathlete", F.heatmap(piv, 0.0, "Value of one token per biathlete (pp, trails pooled)",
                                                  "percentage points", marks, "{:+.1f}", lo, hi),
             "Change in win rate per variant and biathlete riding the changed colour (hover for the interval; "
             f"n/m: not measurable with these players, fewer than {M.MIN_CHANGED} races changed or the token "
             "never used)")
    rates = _exchange_rates(wide, src.base, targets, o)
    never = set(used.index[used.measurable == "no"]) | set(left_out)
    if rates is not None:
        off = rates.token.isin(never) | rates.currency.isin(never)
        rates["measurable"] = np.where(off, "not measurable with these players", "yes")
        # no number where a side of the exchange is not measurable: a 0.00 would read as "worthless"
        numbers = [c for c in rates.columns if c not in ("token", "currency", "measurable")
                   and pd.api.types.is_float_dtype(rates[c])]
        rates.loc[off, numbers] = np.nan
        # the gains are changes of a win rate: in percentage points, as everywhere in the report
        rates = rates.assign(**{c: 100 * rates[c] for c in ("token_gain", "currency_gain") if c in rates.columns})
        s.table("exchange_rates", rates, "Exchange rates: one token's gain in units of another's", percent=False)
    all_value = value[value.trail_name == "all"].set_index("variant")
    for v, r in all_value.iterrows():
        s.findings.append(f"Value of {v} to {r.colour} (trails pooled, {int(r.units):,} races with {r.colour}): "
                          f"{_token_value(r, used.loc[v])}.")
    if rates is not None and len(rates):
        s.findings.append(_exchange_finding(rates, targets, never))
    red = [v for v, c in targets.items() if c == "red"]
    if red:
        s.findings.append("For Red: " + "; ".join(
            f"{v} changes Red's win rate by {_token_value(all_value.loc[v], used.loc[v])}" for v in red) + ".")
    return s


def _blank_unmeasured(t: pd.DataFrame) -> pd.DataFrame:
    """The paired changes of rows not measurable with these players, blanked (their `measurable`
    column says why)."""
    off = t.measurable != "yes"
    return t.assign(**{c: t[c].where(~off) for c in ("change", "low", "high", "z", "p") if c in t.columns})


#: the columns that say how much of its gear a racer used (kernels/blast/results.py)
USAGE_COLUMNS = ["wax_black", "wax_yellow", "wax_green", "wax_blue", "wax_white", "bullets_left", "wax_left"]


def _tokens(variant) -> list[tuple[str, int]]:
    """What a variant's patches set: (resource, amount) pairs, resource 'bullets' or a wax colour
    ('green' for gear.green.wax.green = 5 or gear.red.wax = { green = 1 })."""
    out = []
    for p in variant.patches:
        path, value = str(p.get("path", "")), p.get("value")
        parts = path.split(".")
        if parts[-1] == "bullets" and isinstance(value, int):
            out.append(("bullets", value))
        elif len(parts) >= 2 and parts[-2] == "wax" and isinstance(value, int):
            out.append((parts[-1], value))
        elif parts[-1] == "wax" and isinstance(value, dict):
            out += [(k, int(v)) for k, v in value.items() if isinstance(v, int)]
    return out


def token_usage(rows: pd.DataFrame, source: ResultsSource, targets: dict[str, str],
                confidence: float = 0.95) -> pd.DataFrame:
    """How often the changed colour's racers used each variant's token: one row per variant.

    A token given (a fifth green wax: gear.green.wax.green = 5) counts as used in a race where the
    racer used that many of that wax on the variant; an extra bullet where the racer ended the
    race with no bullet left. A token taken away (a variant whose name ends in -1) would have been
    used where the racer used them all on the base data. Columns: variant, colour, token, seats,
    used, used_share (Wilson interval low, high), measurable ('no' where never used, 'rarely'
    under 1% of races or 30 races, else 'yes')."""
    from sim.stats import wilson_interval

    out = []
    for v, colour in targets.items():
        tokens = _tokens(source.variants[v])
        taken = bool(re.search(r"-\d+$", v))
        seats = rows[(rows.colour_name == colour) & (rows.variant == (source.base if taken else v))]
        used = pd.Series(False, index=seats.index)
        for resource, amount in tokens:
            if resource == "bullets":
                used |= seats.bullets_left == 0
            elif f"wax_{resource}" in seats.columns:
                used |= seats[f"wax_{resource}"] >= (amount + 1 if taken else amount)
        n, k = len(seats), int(used.sum())
        low, high = wilson_interval(k, n, confidence) if n else (float("nan"), float("nan"))
        out.append({"variant": v, "colour": colour,
                    "token": ", ".join(f"{r} ({a})" for r, a in tokens) or "?",
                    "seats": n, "used": k, "used_share": k / n if n else float("nan"), "low": low, "high": high,
                    "measurable": "no" if k == 0 or not tokens else ("rarely" if k < 30 or k < 0.01 * n else "yes")})
    return pd.DataFrame(out)


def _token_value(r, use) -> str:
    """A token's value with its caveat: 'not measurable with these players' where never used, or
    where it changed too few races to measure (reports.metrics.measurable)."""
    if use.measurable == "no":
        return f"not measurable with these players (they never used the token in {int(use.seats):,} races)"
    if M.measurable(r.changed, r.units) != "yes":
        return (f"not measurable with these players (it changed {int(r.changed):,} of {int(r.units):,} races; "
                f"used in {pct(use.used_share)} of races)")
    note = f"; used in {pct(use.used_share)} of races"
    if use.measurable == "rarely":
        note += ", so this rests on few races"
    return pp(r.change, r.low, r.high) + note


def _exchange_rates(wide, base, targets, o: ReportOptions) -> pd.DataFrame | None:
    currencies = [v for v in targets if o.currency in v]
    if not currencies:
        return None
    out = [M.exchange_rate(wide, base, (v, wide.colour_name == targets[v]), (c, wide.colour_name == targets[c]),
                           o.confidence)
           for c in currencies for v in targets if v != c]
    return pd.DataFrame(out)


def _exchange_finding(rates: pd.DataFrame, targets: dict[str, str], never: set[str] = frozenset()) -> str:
    """Each token in the currency of the same colour where there is one, else the first; a token
    or currency never used by the players is not measurable."""
    parts = []
    for v, rows in rates.groupby("token", sort=False):
        rows = rows[~rows.currency.isin(never)]
        if v in never or not len(rows):
            parts.append(f"{v} not measurable with these players (never used, or too few races changed)")
            continue
        same = rows[rows.currency.map(targets) == targets[v]]
        r = (same if len(same) else rows).iloc[0]
        sure = "" if r.currency_p < 0.05 else " (the currency's own gain is not clearly non-zero: treat as rough)"
        parts.append(f"one {v} = {r.rate:.2f} [{r.low:.2f}, {r.high:.2f}] x {r.currency}{sure}")
    return "Exchange rates: " + "; ".join(parts) + "."


def icy_by_lap(ctx: Context, rows: pd.DataFrame, s: Section) -> None:
    """Icy actions used per racer and lap: added to the core dynamics section."""
    o = ctx.o
    icy = pd.concat([pd.DataFrame({"trail_name": rows.trail_name, "lap": k, "icy": rows[f"icy_lap_{k}"]})
                     for k in (1, 2, 3)])
    icy = s.table("icy_by_lap", ctx.order_trails(M.means(icy, "icy", ["trail_name", "lap"], o.confidence)),
                  "Icy actions used per racer and lap", percent=False)
    s.figure("icy_by_lap", F.bars(icy, "lap", "mean", "Icy actions per racer and lap", "icy actions",
                                  hue="trail_name"), "Mean icy actions used per racer in each lap, with intervals")


def reading_races(rows: pd.DataFrame) -> tuple[pd.DataFrame, list, str]:
    """One row per race (variant, race) of one cell, the headline figures (reports.readings.Measure)
    and the cell's line-up in words: entrant balance (the largest biathlete gap: best minus worst
    biathlete's win rate, each over the races it rode, and each biathlete's win rate), the seat effect
    (seat 0's win rate), the components (each ski colour's win rate: the colour carries the gear),
    and race length (rounds, turns per racer, minutes at the table at PACE), with the share of racers
    eliminated and of races without a winner (stalled, or everyone out)."""
    keys = ["variant", "race"]
    length = C.race_tables(rows, ("stalled",), PACE).set_index(keys)
    g = rows.groupby(keys, observed=True)
    table = length[["rounds", "turns_per_player", "minutes"]].assign(
        eliminated=g.eliminated.mean().astype(float), no_winner=(g.won.max() == 0).astype(float))
    n = int(rows.n_racers.iloc[0]) if len(rows) else 0
    fair = 1 / n if n else float("nan")
    table["seat0"] = rows[rows.seat == 0].set_index(keys).won.astype(float)
    per, measures = [], []
    for col, what in (("biathlete", "biathlete"), ("colour", "ski colour")):
        name = (rows[f"{col}_name"] if f"{col}_name" in rows.columns else rows[col]).astype(str)
        won = rows.assign(who=name).pivot_table(index=keys, columns="who", values="won", aggfunc="sum",
                                                fill_value=0, observed=True)
        rode = rows.assign(who=name, one=1).pivot_table(index=keys, columns="who", values="one", aggfunc="sum",
                                                        fill_value=0, observed=True)
        names = list(won.columns)
        table = table.join(won.add_prefix(f"won_{col}_")).join(rode.add_prefix(f"in_{col}_"))
        if col == "biathlete":
            per = [f"won_{col}_{x}" for x in names] + [f"in_{col}_{x}" for x in names]
        measures += [R.Measure(f"{x}'s win rate" + (" (ski colour)" if col == "colour" else ""),
                               (f"won_{col}_{x}", f"in_{col}_{x}"),
                               lambda m: float(m[0] / m[1]) if m[1] else float("nan"), share=True, scale=fair,
                               judged=True) for x in names]
    k = len(per) // 2

    def gap(m):
        rate = m[:k] / np.where(m[k:] > 0, m[k:], np.nan)
        return float(np.nanmax(rate) - np.nanmin(rate))

    measures = [R.Measure("largest biathlete gap (best minus worst biathlete's win rate)", tuple(per), gap,
                          share=True, scale=fair),
                R.Measure("seat 0's win rate (the first seat)", ("seat0",), share=True, scale=fair, judged=True),
                *measures,
                R.Measure("rounds per race", ("rounds",)), R.Measure("turns per player", ("turns_per_player",)),
                R.Measure(f"minutes at the table ({PACE.says()})", ("minutes",)),
                R.Measure("share of racers eliminated", ("eliminated",), share=True),
                R.Measure("share of races without a winner (stalled, or every racer out)", ("no_winner",),
                          share=True)]
    return table.reset_index(), measures, f"{n} racers"


def readings_section(ctx: Context, rows: pd.DataFrame | None = None) -> Section:
    """Which rule readings change the answer (docs/rules.md section 9: every switch), paired on the
    same races (reports.readings.section)."""
    return R.section(ctx, "docs/rules.md",
                     ["race", "seat", "won", "rounds", "turns", "eliminated", "stalled", "biathlete", "colour",
                      "n_racers"], reading_races,
                     note="A reading that changes nothing measurable here may still matter elsewhere "
                          "(range_drafting and zero_step_boost only where racers meet at the range or stop on a "
                          "coach zone; last_racer_wins only in races where all but one racer are eliminated).")


def cards_section(ctx: Context) -> Section:
    """A per-card view needs card-play counts, which Blast's result record does not carry."""
    s = Section("cards", "Cards")
    s.skipped = ("A per-card view (how often each card is played and what it does to the win rate) cannot be "
                 "drawn: the results carry no card-play counts (kernels/blast/results.py has no per-card column). "
                 "It needs the Blast kernel to count plays per card in the result record.")
    return s


#: the columns of the main rows Blast's sections read
MAIN_COLUMNS = ["race", "place", "rounds", "turns", "stalled", "lead_changes", "eliminated", "elim_cause", "leader_after_range",
                "icy_lap_1", "icy_lap_2", "icy_lap_3"]
