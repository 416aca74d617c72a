"""Report sections that read only the core columns (kernels/records.py), so they serve every game:
what was played, win rate per entrant and scenario against a fair share, seats and turn order,
shooting from the visits table, race dynamics, the effect of data variants, robustness across
personas. Each takes the game's words from the context (Blast: biathlete and trail; Mania: colour
and track), so a designer moving between games finds the same tables under the same names.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import figures as F
from . import metrics as M
from .base import SKILL, Context, Section, _front, _rate, _sig, p_is, pct
from sim.stats import z_value


def overview(ctx: Context) -> Section:
    s = Section("overview", "What was played")
    src = ctx.source
    cells = pd.DataFrame([{"cell": c.name, ctx.scenario: c.trail, "racers": c.racers,
                           "line_ups": "balanced" if c.balanced else "fixed", "players": ", ".join(c.players),
                           "races": c.races, "variants": ", ".join(c.variants)} for c in src.cells])
    races = src.races_played
    if ctx.entrant == "biathlete":
        fair = ("every biathlete races in every ski colour equally often there, so a biathlete's fair "
                "share of wins is 1/racers.")
    else:
        relay = "relay" in (src.labels.get("format") or [])      # a game with relays (Mania's formats)
        fair = (f"every {ctx.entrant} sits in every seat equally often there, so a {ctx.entrant}'s fair "
                f"share of wins is 1/racers" + (" (1/teams in a relay)." if relay else "."))
    s.intro = (f"{len(cells)} cells, {races:,} races in all. The main tables use the balanced line-ups "
               f"with {ctx.reference!r} in every seat on the data as it is ({len(ctx.main_cells)} cells); "
               + fair) if ctx.reference else \
        f"{len(cells)} cells, {races:,} races in all; none has balanced line-ups with one persona in every seat."
    if src.planned and src.planned > races:
        s.intro += (f" PARTIAL: the study planned {src.planned:,} races; only the {races:,} of finished "
                    f"chunks are in this report.")
    s.table("cells", cells, "Cells of the study")
    return s


def win_rate_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc, en, T, E = ctx.o, ctx.sc, ctx.en, ctx.scenario, ctx.entrant
    rows = _teams(rows)
    s = Section("win-rates", f"Win rate per {E} and {T}")
    s.intro = (f"Win rate against the fair share (1/racers), as wins per fair share (1 = fair), with "
               f"{o.confidence:.0%} intervals. Verdicts hold the interval against the tolerance band "
               f"({ctx.band_text}): ✓ the whole interval inside the band, ▲ / ▼ the whole interval above / "
               f"below it, ? not enough races to tell (the interval straddles an edge). A pooled row ('all') "
               f"is the mean of its {T}s' and racer counts' wins per fair share, each the same weight; its win "
               "rate is that times the mean fair share, so rate, gap and ratio always agree.")
    s.details.append("Intervals: Wilson's score interval per cell, widened by each cell's design effect (races of "
                     "one balanced block repeat line-ups, so they are clustered); a pooled row's interval is the "
                     "normal one of a mean of independent cells. The tables' p is one test per row (the CSV adds "
                     "Holm and Benjamini-Hochberg corrections).")
    cells = rows.groupby([sc, "n_racers"], observed=True).size().rename("racer_rows").reset_index()
    cells["weight_in_scenario"] = 1 / cells.groupby(sc, observed=True).n_racers.transform("size")
    cells["weight_in_all"] = 1 / len(cells)
    s.table("pooling_weights", ctx.order_trails(cells), f"Weights of the pooled rows: every racer count within a {T}, "
            f"and every {T} and racer count in 'all', weighs the same whatever its races", percent=False)
    precision_table(ctx, s, rows)
    by_trail = s.table(f"win_rates_by_{T}", ctx.order_trails(ctx.judge(M.flag(M.with_overall(
        rows, sc, [en], confidence=o.confidence), o.alpha), E, en, sc)),
        f"Win rate per {E} and {T} (all: the {T}s pooled)")
    order = list(by_trail[by_trail[sc] == "all"].sort_values("ratio", ascending=False)[en])
    piv, lo, hi = (by_trail.pivot(index=en, columns=sc, values=v) for v in ("ratio", "ratio_low", "ratio_high"))
    marks = by_trail.assign(mark=by_trail.verdict.map(M.mark)).pivot(index=en, columns=sc, values="mark")
    cols = [t for t in [*ctx.trails, "all"] if t in piv.columns]
    s.figure("win_rate_heatmap", F.heatmap(piv.loc[order, cols], 1.0, f"Wins per fair share, by {T}",
                                           "wins / fair share", marks.loc[order, cols], low=lo.loc[order, cols],
                                           high=hi.loc[order, cols], min_span=2 * ctx.band),
             f"Wins per fair share of each {E} on each {T}, all racer counts pooled (✓ in band, ▲ over, ▼ under, "
             "? not enough races)")
    by_racers = s.table("win_rates_by_racers", ctx.judge_by_racers(M.flag(M.win_rates(
        rows, [*racer_keys(rows), en], o.confidence), o.alpha), E, en),
        f"Win rate per {E} and number of racers ({T}s pooled; teams apart from racers racing alone)")
    alone = by_racers[by_racers.unit == "racers"] if "unit" in by_racers.columns else by_racers
    s.figure("win_rate_by_racers", F.lines(alone, "n_racers", "ratio", en,
                                           "Wins per fair share by number of racers", "racers",
                                           "wins / fair share", 1.0, "ratio_low", "ratio_high", band=ctx.band),
             "Wins per fair share by number of racers, with intervals and the tolerance band shaded (click a name "
             "to hide its line)")
    for trail in [*ctx.trails, "all"]:
        t = by_trail[by_trail[sc] == trail]
        if len(t) < 2:
            continue
        hi, lo = t.loc[t.ratio.idxmax()], t.loc[t.ratio.idxmin()]
        where = f"over all {T}s" if trail == "all" else f"on {trail}"
        s.findings.append(f"{where[0].upper()}{where[1:]}: {hi[en]} wins most "
                          f"({hi.ratio:.2f} x fair share; {_rate(hi)}; {_sig(hi)}), "
                          f"{lo[en]} least ({lo.ratio:.2f} x; {_rate(lo)}; {_sig(lo)}).")
    counts = by_trail.verdict.value_counts()
    s.findings.append(f"{len(by_trail)} {E}-{T} results against the band ({ctx.band_text}): "
                      + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("in band", "over", "under",
                                                                            "not enough races")) + ".")
    return s


def precision_table(ctx: Context, s: Section, rows: pd.DataFrame) -> None:
    """What each main cell achieved: the widest half-width of its entrants' win rates (clustered by
    balanced block, as the tables' intervals), against the precision target the study sized it to
    (--precision-pp, precision_pp), or that it was not sized and played a fixed count."""
    if "cell" not in rows.columns or not len(rows):
        return
    t = M.win_rates(rows, ["cell", ctx.en], ctx.o.confidence)
    g = t.assign(half=(t.high - t.low) / 2).groupby("cell", observed=True)
    info = {c.name: c for c in ctx.source.cells}
    table = pd.DataFrame({"races": g.races.sum(), "widest_half_width_pp": 100 * g.half.max()}).reset_index()
    if "race" in rows.columns:          # races, whatever a race's rows are (racers, or teams: a 2-player game's two)
        table["races"] = rows.groupby("cell", observed=True).race.nunique().reindex(table.cell).to_numpy()
    else:
        table["races"] = [int(r) // max(info[c].racers, 1) if c in info else int(r)
                          for c, r in zip(table.cell, table.races)]
    table.insert(1, ctx.scenario, [info[c].trail if c in info else "" for c in table.cell])
    table.insert(2, "racers", [info[c].racers if c in info else 0 for c in table.cell])
    targets = ctx.source.targets
    table["target_pp"] = [(f"±{100 * targets[c][0]:.2f}" + (f" (±{targets[c][2]:.2g} x fair share)" if targets[c][2:3]
                                                            and targets[c][2] else ""))
                           if c in targets else "not sized" for c in table.cell]
    table["target_met"] = [_met(ctx, rows, c, targets[c], h) if c in targets else "not sized: a fixed count"
                           for c, h in zip(table.cell, table.widest_half_width_pp)]
    table["precision_note"] = [ctx.source.precision_notes.get(c, "") for c in table.cell]
    s.table("precision_by_cell", table, f"Achieved precision per cell: the widest {ctx.o.confidence:.0%} half-width "
            f"of its {ctx.entrant}s' win rates, in percentage points, against the precision target the study "
            f"sized the cell to (precision_pp or precision_ratio, --precision-pp); 'not sized': the cell played a "
            "fixed count",
            percent=False)
    widest = table.loc[table.widest_half_width_pp.idxmax()]
    sized = table[table.target_pp != "not sized"]
    missed = sized[~sized.target_met.str.startswith("yes")]
    unsized = table[table.target_pp == "not sized"]
    s.findings.append(f"Precision achieved: every {ctx.entrant}'s win rate in every cell is known to within "
                      f"±{widest.widest_half_width_pp:.1f} pp or better (the widest: {widest.cell}); "
                      f"{len(sized)} of {len(table)} cells were sized to a precision target"
                      + (f", {len(sized) - len(missed)} of them met it"
                         + (f" ({', '.join(missed.cell.astype(str))} did not)" if len(missed) else "") if len(sized) else "")
                      + (f"; not sized (a fixed count): {', '.join(unsized.cell.astype(str))}" if len(unsized) and len(sized)
                         else "")
                      + ".")


def _met(ctx: Context, rows: pd.DataFrame, cell: str, target: tuple, half_pp: float) -> str:
    """Whether a sized cell's widest half-width meets its target, at the target's confidence."""
    width, confidence = target[:2]
    if abs(confidence - ctx.o.confidence) > 1e-9:
        t = M.win_rates(rows[rows.cell.astype(str) == cell], [ctx.en], confidence)
        half_pp = 100 * float(((t.high - t.low) / 2).max())
    at = "" if abs(confidence - ctx.o.confidence) <= 1e-9 else f" (±{half_pp:.2f} at the target's {confidence:.0%})"
    return (f"yes{at}" if half_pp <= 100 * width + 1e-9
            else f"no: ±{half_pp:.2f} against ±{100 * width:.2f}{at}")


def _teams(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows a balance question is asked of: one row per team where races have teams (a relay's
    first leg stands for its team, and the racer count becomes the team count), so fair shares are
    1/teams; races of a lone racer (a time trial, always won) left out. Where some races have teams,
    `unit` says "teams" or "racers", so that N teams (a relay, Ski Tour's two-player game) never pool
    with N racers racing alone in the per-count rows (`racer_keys`)."""
    if "leg" in rows.columns and (rows.leg > 0).any():
        legs = rows.groupby(["cell", "variant", "race"], observed=True).leg.transform("max") + 1
        out = rows[rows.leg == 0].copy()
        out["n_racers"] = (out.n_racers // legs[rows.leg == 0]).astype(out.n_racers.dtype)
        out["unit"] = np.where(legs[rows.leg == 0] > 1, "teams", "racers")
        if "team" in out.columns:
            out["seat"] = out["team"]          # a team's turn order is its team number
        rows = out
    return rows[rows.n_racers > 1]


def racer_keys(rows: pd.DataFrame) -> list[str]:
    """The keys of per-count rows: the racer count, and where teams race (`_teams`) its unit."""
    return ["n_racers", "unit"] if "unit" in rows.columns else ["n_racers"]


def seat_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Turn order: the win rate of each seat (0 = first to move) against a fair share."""
    o, sc = ctx.o, ctx.sc
    relays = bool(relay_legs(rows, sc))
    rows = _teams(rows)
    s = Section("seats", "Seats and turn order")
    # game-neutral words: Mania's relays and Ski Tour's 2-player game (two nations a player) both have teams
    s.intro = ("Win rate of each seat (0 = the first to move" + ("; where racers form teams, a team counts once, "
                                                                "seated by its turn order among the teams" if relays else "")
               + ") against its fair share, per number of racers and pooled; a first-player advantage shows as "
               "seat 0 above 1.")
    per = M.flag(M.win_rates(rows, [*racer_keys(rows), "seat"], o.confidence), o.alpha)
    per = s.table("seats", ctx.judge_by_racers(per.assign(who=per.seat.map(lambda k: f"seat {int(k)}")), "seat",
                                               "who").drop(columns="who"),
                  "Win rate per seat (0 = first) and number of racers")
    by_trail = ctx.order_trails(ctx.judge(M.flag(M.with_overall(rows, sc, ["seat"], confidence=o.confidence),
                                                 o.alpha)))
    ctx.judge(by_trail.assign(who=by_trail.seat.map(lambda k: f"seat {int(k)}")), "seat", "who", sc)
    s.table("seats_by_scenario", by_trail, f"Win rate per seat and {ctx.scenario}, racer counts pooled")
    line = per.assign(count=per.n_racers.astype(int).astype(str) + " " + per.unit) if "unit" in per.columns else per
    s.figure("seats", F.lines(line, "seat", "ratio", "count" if "unit" in per.columns else "n_racers",
                              "Wins per fair share by seat", "seat (0 = first)",
                              "wins / fair share", 1.0, "ratio_low", "ratio_high", band=ctx.band),
             "Wins per fair share of each seat, one line per number of racers, with intervals and the tolerance band")
    first = by_trail[(by_trail[sc] == "all") & (by_trail.seat == 0)]
    if len(first):
        r = first.iloc[0]
        s.findings.append(f"First player (seat 0) wins {r.ratio:.2f} x a fair share ({_rate(r)} against "
                          f"{pct(r.fair_share)}; {_sig(r)}; racer counts and {ctx.scenario}s pooled).")
    off = per[per.verdict.isin(["over", "under"])]
    s.findings.append("Seats outside the band: " + (", ".join(
        f"seat {int(r.seat)} of {int(r.n_racers)} {getattr(r, 'unit', 'racers')} {r.verdict} ({r.ratio:.2f} x fair share)"
        for r in off.itertuples()) if len(off) else "none") + ".")
    return s


def shooting_section(ctx: Context) -> Section:
    """Shooting from the visits table: hits per shot and misses per visit per entrant, and how the
    win rate falls with the penalties a racer collects."""
    o, src = ctx.o, ctx.source
    s = Section("shooting", "Shooting")
    if src.read_visits is None or not ctx.main_cells:
        s.skipped = "These results have no visits table (one row per racer and range visit)."
        return s
    visits = src.read_visits(["race", "seat", "visit", "shots", "hits", "misses", "penalties"],
                             ctx.main_cells, [src.base])
    shot = visits[visits.shots > 0]
    if not len(shot):
        s.skipped = "No racer shot in these races."
        return s
    s.intro = ("Every range visit: hits per shot, targets missed and penalties per visit, per visit "
               f"number; means carry normal {o.confidence:.0%} intervals.")
    shot = shot.assign(hit_rate=shot.hits / shot.shots)
    s.table("hits_per_visit", M.means(shot, "hit_rate", ["visit"], o.confidence),
            "Share of shots that hit, per range visit", percent=False)
    dist = s.table("misses_per_visit", M.hit_distribution(shot, "visit", "misses", o.confidence),
                   "Share of visits with each number of targets missed")
    s.figure("misses_per_visit", F.stacked_shares(dist.pivot(index="visit", columns="misses", values="rate"),
                                                  "Targets missed per range visit", "share of visits", "misses"),
             "Distribution of targets missed per range visit")
    rows = src.read(["race", "seat", "won", "penalty_laps", "n_racers"], ctx.main_cells, [src.base])
    rows = rows.assign(penalties=rows.penalty_laps.clip(upper=8))
    by_pen = s.table("win_rate_by_penalties", M.rates(rows, "won", ["penalties"], o.confidence),
                     "Win rate by penalty laps or loops skied in the race (8 = 8 or more)")
    if rows.penalty_laps.any():
        s.figure("win_rate_by_penalties", F.lines(by_pen.assign(series="all"), "penalties", "rate", "series",
                                                  "Win rate by penalties", "penalties in the race", "win rate",
                                                  percent=True), "Win rate by penalties skied, with intervals")
        corr = float(np.corrcoef(rows.penalty_laps, rows.won)[0, 1]) if rows.won.std() > 0 else float("nan")
        s.findings.append(f"Shooting: {pct(shot.hit_rate.mean())} of shots hit; a racer's penalties explain "
                          f"{100 * corr ** 2:.1f}% of the variance of winning (correlation {corr:+.2f}).")
    else:
        s.findings.append(f"Shooting: {pct(shot.hit_rate.mean())} of shots hit.")
    return s


def strength_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Strength beyond the winner: each entrant's expected place and podium rate against what a
    fair game gives, and a Plackett-Luce finishing-order model per scenario, shown only where it
    fits the observed win rates."""
    o, sc, en, E, T = ctx.o, ctx.sc, ctx.en, ctx.entrant, ctx.scenario
    s = Section("strength", "Strength beyond the winner")
    rows = _teams(rows)
    if "place" not in rows.columns or not len(rows):
        s.skipped = "These results carry no places."
        return s
    decided = rows[~rows.groupby(["cell", "variant", "race"], observed=True).stalled.transform("max").astype(bool)]
    # place on a 0..1 scale (0 = first, 1 = last), so racer counts pool; fair: 0.5
    scaled = decided.assign(rel_place=(decided.place - 1) / (decided.n_racers - 1),
                            podium=decided.place <= 3)
    s.intro = (f"Every {E}'s mean place on a scale from 0 (first) to 1 (last), where a fair game gives 0.5 at "
               "every racer count, and its podium rate (top three) against the fair share min(3, racers)/racers; "
               f"races stopped by the round cap are left out. Then whether one strength per {E} explains the "
               f"whole finishing order on each {T} (shown only where it predicts the win rates at every racer "
               f"count).")
    s.details.append(f"The strength model is Plackett-Luce's, fitted per {T} by Hunter's MM algorithm; it is shown "
                     "only where its predicted win rates stay within 2 percentage points, or within 3.5 standard "
                     "errors, of the observed ones at every racer count.")
    place = M.means(scaled, "rel_place", [sc, en], o.confidence)
    pod = M.rates(scaled, "podium", [sc, en], o.confidence)
    fair_pod = scaled.assign(fair=np.minimum(3, scaled.n_racers) / scaled.n_racers).groupby(
        [sc, en], observed=True).fair.mean().reset_index()
    table = place.rename(columns={"mean": "mean_place", "low": "place_low", "high": "place_high"}).merge(
        pod.rename(columns={"rate": "podium", "low": "podium_low", "high": "podium_high"}).drop(
            columns=["n", "count"]), on=[sc, en]).merge(fair_pod.rename(columns={"fair": "fair_podium"}), on=[sc, en])
    table = s.table("expected_place", ctx.order_trails(table),
                    f"Mean place (0 = first, 1 = last; fair 0.5) and podium rate per {E} and {T}")
    fits, strengths = [], []
    ids = {name: i for i, name in enumerate(sorted({str(v) for v in decided[en].unique()}))}
    for trail, g in decided.groupby(sc, observed=True):
        orders, frames = [], []
        for n, gn in g.groupby("n_racers"):
            gn = gn.sort_values(["cell", "variant", "race", "place"])
            if len(gn) % n:
                continue
            o_ids = _ids(gn[en], ids).reshape(-1, n)
            orders.append(o_ids)
            frames.append((n, gn, o_ids))
        if not orders:
            continue
        w = M.plackett_luce(orders, len(ids))
        worst, worst_z = 0.0, 0.0
        for n, gn, o_ids in frames:
            pred = M.luce_win_rates(o_ids, w)
            obs = np.zeros_like(pred)
            obs[:, 0] = 1.0                                       # the first of each order won
            per = pd.DataFrame({"who": o_ids.ravel(), "pred": pred.ravel(), "obs": obs.ravel()}).groupby("who")
            gap, mean_pred, count = (per.obs.mean() - per.pred.mean()).abs(), per.pred.mean(), per.size()
            z = gap / np.sqrt(mean_pred * (1 - mean_pred) / count)
            worst, worst_z = max(worst, float(gap.max())), max(worst_z, float(z.max()))
        # a misfit: a gap both beyond what chance gives (3.5 standard errors) and larger than 2 points
        fits.append({sc: trail, "worst_gap_pp": 100 * worst, "worst_gap_se": worst_z,
                     "fits": worst <= 0.02 or worst_z <= 3.5})
        names = {i: n for n, i in ids.items()}
        present = {str(v) for v in g[en].unique()}     # the entrants of this scenario, read once
        strengths += [{sc: trail, en: names[i], "strength": w[i]} for i in range(len(w)) if names[i] in present]
    if fits:
        fit = s.table("finishing_order_fit", pd.DataFrame(fits), f"How well one strength per {E} predicts the win "
                      "rates at every racer count (worst gap in percentage points)", percent=False)
        good = set(fit[fit.fits][sc])
        if good:
            st = pd.DataFrame(strengths)
            s.table("finishing_order_strength", st[st[sc].isin(good)],
                    f"Strength per {E} read from the finishing orders (mean 1; twice the strength: twice as likely "
                    "to be chosen first among the racers still in the race; the model is under 'Details')",
                    percent=False)
        bad = fit[~fit.fits]
        s.findings.append(f"Finishing orders: one strength per {E} fits " + (
            f"{len(good)} of {len(fit)} {T}s" if len(good) < len(fit) else f"every {T}") + (
            "; where it does not (" + ", ".join(f"{r[sc]} off by {r.worst_gap_pp:.1f} points" for _, r in bad.iterrows())
            + "), the racer count or seat changes who wins beyond a single strength, so read the win rates per "
            "racer count instead." if len(bad) else "."))
    best = table.loc[table.mean_place.idxmin()]
    worst_row = table.loc[table.mean_place.idxmax()]
    s.findings.append(f"Mean place (0 first, 1 last; fair 0.5): best {best[en]} on {best[sc]} "
                      f"{best.mean_place:.2f} [{best.place_low:.2f}, {best.place_high:.2f}], worst {worst_row[en]} on "
                      f"{worst_row[sc]} {worst_row.mean_place:.2f} [{worst_row.place_low:.2f}, {worst_row.place_high:.2f}].")
    return s


def _ids(column: pd.Series, ids: dict[str, int]) -> np.ndarray:
    """Each row's id: ids of the value's text (a categorical's looked up once per category)."""
    if isinstance(column.dtype, pd.CategoricalDtype) and not (column.cat.codes.to_numpy() < 0).any():
        lookup = np.array([ids[str(c)] if str(c) in ids else -1 for c in column.cat.categories], dtype=np.int64)
        return lookup[column.cat.codes.to_numpy()]
    return column.astype(str).map(ids).to_numpy()


def dynamics_section(ctx: Context, rows: pd.DataFrame, extras=()) -> Section:
    """Race length, eliminations by cause, lead changes, whether the leader after the last range
    wins; `extras`: functions (ctx, rows, section) that add a game's own dynamics."""
    o, sc, T = ctx.o, ctx.sc, ctx.scenario
    s = Section("dynamics", "Race dynamics")
    s.intro = ("Race length, eliminations, lead changes, whether the leader after the last range wins"
               + (", and icy actions per lap" if extras else "") + ". Race-wide values count each race once.")
    races = rows[rows.seat == 0]
    keys = [sc, "n_racers"]
    length = M.means(races, "rounds", keys, o.confidence).merge(
        M.rates(races, "stalled", keys, o.confidence).rename(columns={"count": "stalled", "rate": "stalled_rate",
                                                                      "low": "stalled_low", "high": "stalled_high"})
        .drop(columns="n"), on=keys)
    s.table("rounds", ctx.order_trails(length), "Rounds per race and share of stalled races")
    s.figure("rounds", F.histograms(races, "rounds", sc, "Rounds per race", "rounds"),
             f"Distribution of race length in rounds, per {T} (all racer counts)")
    causes = [(code, label) for code, label in enumerate(ctx.source.labels.get("elim_cause", [])) if code > 0]
    if causes:
        elim = []
        for cause, label in causes:
            for by in (keys, [sc]):
                t = M.rates(rows, rows.elim_cause == cause, by, o.confidence).assign(cause=label)
                elim.append(t if "n_racers" in by else t.assign(n_racers="all"))
        elim = s.table("eliminations", ctx.order_trails(_front(pd.concat(elim, ignore_index=True), ["cause", *keys])),
                       "Share of racers eliminated, by cause")
        pooled = elim[elim.n_racers.astype(str) == "all"]
        s.figure("eliminations", F.bars(pooled, sc, "rate", "Racers eliminated, by cause", "share of racers",
                                        hue="cause", percent=True),
                 f"Share of racers eliminated per {T}, by cause, with intervals")
    lead = s.table("lead_changes", ctx.order_trails(M.means(races, "lead_changes", keys, o.confidence)),
                   "Lead changes per race", percent=False)
    s.figure("lead_changes", F.histograms(races, "lead_changes", sc, "Lead changes per race",
                                          "lead changes"), f"Distribution of lead changes per race, per {T}")
    # a lone racer (a time trial) always wins: no leader to speak of
    leaders = rows[(rows.leader_after_range == 1) & (rows.n_racers > 1)]
    lw = M.rates(leaders, "won", keys, o.confidence)
    # a relay's racers are its teams' legs: the fair share is one team's, legs / racers
    legs = relay_legs(rows, sc)
    lw["fair_share"] = lw[sc].astype(str).map(legs).fillna(1).astype(float).to_numpy() / lw.n_racers
    lw = s.table("leader_after_range_wins", ctx.order_trails(lw),
                 "How often the leader after the last range wins")
    lines_by_racers(s, "leader_after_range_wins", lw, sc, relay_legs(rows, sc), "rate",
                    "Leader after the last range: share who win", "share of races won",
                    "Share of races won by the racer leading when the leader passed the last range, with intervals",
                    percent=True)
    for extra in extras:
        extra(ctx, rows, s)
    s.findings.append(
        f"Races last {races.rounds.mean():.1f} rounds on average ("
        + ", ".join(f"{t} {g.rounds.mean():.1f}" for t, g in races.groupby(sc, observed=True)) + "); "
        f"{pct(rows.eliminated.mean())} of racers are eliminated; {lead['mean'].mean():.1f} lead changes per race "
        f"(mean over {T}s and racer counts).")
    if len(lw):
        s.findings.append(f"The leader after the last range wins, per {T} (each racer count the same weight; "
                          "a lone racer left out): " + within_cells(lw, sc, "rate") + ".")
    return s


def within_cells(table: pd.DataFrame, by: str, value: str, fair: str = "fair_share") -> str:
    """'red sprint 45.1% (fair share 24.3%, 6 racer counts), ...': a rate measured per cell (a
    scenario and racer count) averaged within each `by` with equal weights, so that formats and
    racer counts are never pooled into one number that none of them shows."""
    parts = []
    for key, g in table.groupby(by, observed=True, sort=False):
        if not len(g):
            continue
        text = f"{key} {pct(g[value].mean())}"
        if fair in g.columns:
            text += f" (fair share {pct(g[fair].mean())}"
            text += f", {len(g)} racer counts)" if len(g) > 1 else ")"
        parts.append(text)
    return ", ".join(parts)


def relay_legs(rows: pd.DataFrame, sc: str) -> dict[str, int]:
    """The scenarios whose races are relays, and their legs per team: {scenario: legs}."""
    if "leg" not in rows.columns or not (rows.leg > 0).any():
        return {}
    legs = rows.groupby(sc, observed=True).leg.max() + 1
    return {str(k): int(v) for k, v in legs.items() if v > 1}


def lines_by_racers(s: Section, name: str, table: pd.DataFrame, sc: str, legs: dict[str, int], value: str,
                    title: str, ylabel: str, caption: str, **kw) -> None:
    """One line per scenario against the number of racers; relays (scenarios in `legs`) on a figure
    of their own, against the number of teams: a relay of 8 teams of 4 is not a race of 32 racers."""
    relay = table[sc].astype(str).isin(set(legs))
    if (~relay).any():
        s.figure(name, F.lines(table[~relay], "n_racers", value, sc, title, "racers", ylabel, **kw), caption)
    if relay.any():
        r = table[relay]
        r = r.assign(teams=r.n_racers // r[sc].astype(str).map(legs).to_numpy())
        s.figure(f"{name}_relays", F.lines(r, "teams", value, sc, f"{title}: relays", "teams", ylabel, **kw),
                 f"{caption}; relays, by the number of teams")


def length_section(ctx: Context, rows: pd.DataFrame, unit: str = "rounds") -> Section:
    """How long a game lasts: mean, spread and 90th percentile of `unit` per scenario and racers."""
    o, sc = ctx.o, ctx.sc
    s = Section("length", "How long a game lasts")
    races = rows[rows.seat == 0]
    keys = [sc, "n_racers"]
    g = races.groupby(keys, observed=True)[unit]
    table = pd.DataFrame({"races": g.size(), "mean": g.mean(), "sd": g.std(), "p10": g.quantile(0.1),
                          "median": g.median(), "p90": g.quantile(0.9), "max": g.max()}).reset_index()
    table = table[table.races > 0]
    half = z_value(o.confidence) * table.sd / np.sqrt(table.races)
    table.insert(3, "low", table["mean"] - half)
    table.insert(4, "high", table["mean"] + half)
    s.intro = (f"Race length in {unit} per {ctx.scenario} and number of racers: mean with its "
               f"{o.confidence:.0%} interval, spread and the 90th percentile (nine games in ten end by then).")
    s.table(f"{unit}_per_race", ctx.order_trails(table), f"{unit.capitalize()} per race", percent=False)
    lines_by_racers(s, f"{unit}_by_racers", table, sc, relay_legs(rows, sc), "mean", f"Mean {unit} per race", unit,
                    f"Mean {unit} per race by number of racers, with intervals")
    longest = table.loc[table.p90.idxmax()] if len(table) else None
    if longest is not None:
        s.findings.append(f"Game length: {races[unit].mean():.1f} {unit} on average; the longest setting is "
                          f"{longest[sc]} with {int(longest.n_racers)} racers ({longest['mean']:.1f} on average, "
                          f"nine games in ten within {longest.p90:.0f}).")
    return s


@dataclass(frozen=True)
class Pace:
    """The assumption behind minutes at the table: a turn takes `turn_seconds`, taken one at a time,
    and a round adds `round_seconds` (what every player does at once: Blast's card choice, Ski Tour's
    set-up roll). `turn` says what a turn is in the game's words; `note` any caveat."""
    turn_seconds: float
    round_seconds: float = 0.0
    turn: str = ""
    note: str = ""

    def says(self) -> str:
        rounds = f" and {self.round_seconds:g} seconds a round" if self.round_seconds else ""
        return f"{self.turn_seconds:g} seconds per turn{rounds}"


def race_tables(rows: pd.DataFrame, keep: tuple[str, ...], pace: Pace) -> pd.DataFrame:
    """One row per race (cell, variant, race): `keep` columns (race-wide), rounds, racers (seats),
    turns per player (mean over seats) and minutes at the table (every seat's turns, one at a time,
    plus the rounds, at `pace`; a skipped turn takes no time)."""
    keys = [c for c in ("cell", "variant", "race") if c in rows.columns]
    g = rows.groupby(keys, observed=True, sort=False)
    first = g[[*keep, "rounds", "n_racers"]].first()
    minutes = (g["turns"].sum() * pace.turn_seconds + first["rounds"] * pace.round_seconds) / 60
    return first.assign(turns_per_player=g["turns"].mean(), minutes=minutes).reset_index()


def table_time_section(ctx: Context, rows: pd.DataFrame, pace: Pace) -> Section:
    """Race length a designer can plan with: turns per player and minutes at the table, per scenario
    and number of players, at the game's stated pace."""
    o, sc = ctx.o, ctx.sc
    s = Section("table-time", "How long a game takes at the table")
    if "turns" not in rows.columns:
        s.skipped = "These results carry no turns per racer."
        return s
    per_race = race_tables(rows, (sc,), pace)
    keys = [sc, "n_racers"]
    turns = M.means(per_race, "turns_per_player", keys, o.confidence).rename(
        columns={"mean": "turns_per_player", "low": "turns_low", "high": "turns_high"})
    minutes = M.means(per_race, "minutes", keys, o.confidence).rename(
        columns={"mean": "minutes", "low": "minutes_low", "high": "minutes_high"}).drop(columns="n")
    p90 = per_race.groupby(keys, observed=True).minutes.quantile(0.9).rename("minutes_p90").reset_index()
    table = turns.merge(minutes, on=keys).merge(p90, on=keys)
    what = f" ({pace.turn})" if pace.turn else ""
    s.intro = (f"Race length in the units a table plans with, per {ctx.scenario} and number of players: turns "
               f"each player takes (skipped turns not counted) and the minutes the whole game takes, assuming "
               f"{pace.says()}{what}, one turn at a time. Minutes scale with that assumption: at half as long "
               f"again, multiply by 1.5. {pace.note + ' ' if pace.note else ''}Intervals: {o.confidence:.0%}, over "
               f"races; p90: nine games in ten end within it.")
    s.table("table_time", ctx.order_trails(table), "Turns per player and minutes at the table", percent=False)
    s.figure("table_minutes", F.lines(table, "n_racers", "minutes", sc, "Minutes at the table", "players",
                                      "minutes", low="minutes_low", high="minutes_high"),
             f"Estimated minutes at the table by number of players ({pace.says()}), with intervals")
    parts = [f"{r[sc]} with {int(r.n_racers)}: {r.turns_per_player:.0f} turns each, {r.minutes:.0f} min"
             for _, r in ctx.order_trails(table).iterrows() if int(r.n_racers) in (2, 4, 6, 8, 16)]
    s.findings.append(f"At the table ({pace.says()}, one turn at a time): " + "; ".join(parts) + ".")
    return s


def variants_section(ctx: Context, columns: tuple[str, ...] = ("rounds",)) -> Section:
    """Each data variant against the base data on the same races (common random numbers): the
    paired change in mean race length and in each seat's win rate."""
    o, src = ctx.o, ctx.source
    s = Section("variants", "What each data variant changes")
    # a [screen]'s steps of every knob are read as levers ("What to change first"), not listed here
    own = set(src.variants_of("")) | {src.base}
    cells = [c.name for c in src.cells if src.base in c.variants and len(own.intersection(c.variants)) > 1]
    if not cells:
        s.skipped = ("This study has no paired variants: play a cell on the base data and on variants "
                     "(docs/studies.md), and this section measures what each change does on the same races."
                     + (" (The screen's steps of each knob are read in \"What to change first\".)"
                        if src.variants_of("screen") else ""))
        return s
    rows = src.read(["race", "seat", "won", "n_racers", *columns], cells,
                    [v for v in src.variants if v in own] if src.variants else None)
    s.intro = ("Each variant replays the base data's races (same seeds, same dice streams); a change is "
               "the mean of the per-race differences, with a normal interval over races.")
    out = []
    # variants whose every race ends alike (every seat's result and every measure) are one change
    # for these races: reported once, under all their names
    outcome = rows.assign(key=rows.cell.astype(str) + ":" + rows.race.astype(str) + ":" + rows.seat.astype(str))
    sig = pd.concat([outcome.pivot_table(index="key", columns="variant", values=c, observed=True, aggfunc="first")
                     for c in ["won", *columns]])
    sig.columns = [str(c) for c in sig.columns]
    same = M.identical_variants(sig, [v for v in sig.columns if v != src.base])
    twins = {x for others in same.values() for x in others}
    names = {v: " = ".join([v, *same.get(v, [])]) for v in sig.columns}
    races = rows[rows.seat == 0]
    for col, measure in [*((c, f"mean {c}") for c in columns), ("won", "first player's win rate")]:
        wide = races.pivot_table(index=["cell", "race"], columns="variant", values=col, observed=True)
        wide.columns = [str(c) for c in wide.columns]
        scale = 100.0 if col == "won" else 1.0     # a win rate in % and its change in pp, as everywhere
        for v in wide.columns:
            if v == src.base or v in twins:
                continue
            d = (wide[v] - wide[src.base]).dropna()
            half = z_value(o.confidence) * d.std() / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            ok = M.measurable(int((d != 0).sum()), len(d))
            value = (lambda x: scale * x) if ok == "yes" else (lambda x: float("nan"))
            out.append({"variant": names[v], "measure": measure, "unit": "%, change in pp" if col == "won" else col,
                        "base": scale * wide[src.base].mean(), "change": value(d.mean()),
                        "low": value(d.mean() - half), "high": value(d.mean() + half), "races": len(d),
                        "changed": int((d != 0).sum()), "measurable": ok})
    table = s.table("variant_effects", _front(pd.DataFrame(out), ["variant", "measure", "unit"]),
                    "Paired change of each measure per variant (means in their unit; win rates in %, their changes "
                    "in percentage points; variants that play every race alike are one row)", percent=False)
    for r in table.itertuples():
        if r.measurable != "yes":
            s.findings.append(f"{r.variant}: {r.measure} {r.measurable}.")
        elif r.measure.startswith("mean "):
            s.findings.append(f"{r.variant}: {r.measure} {r.base:.1f} changes by {r.change:+.2f} "
                              f"[{r.low:+.2f}, {r.high:+.2f}] {r.unit} (n={r.races:,} paired races).")
        else:
            s.findings.append(f"{r.variant}: {r.measure} {r.base:.1f}% changes by {r.change:+.2f} pp "
                              f"[{r.low:+.2f}, {r.high:+.2f}] (n={r.races:,} paired races).")
    return s


def robustness_section(ctx: Context) -> Section:
    o, src, sc, en, E, T = ctx.o, ctx.source, ctx.sc, ctx.en, ctx.entrant, ctx.scenario
    s = Section("robustness", "Robustness across personas")
    # skill levels (random, the strength reference) are read by reports.skill, not ranked as styles
    others = [p for p in ctx.personas if p != ctx.reference and p not in SKILL]
    if not others and not game_has_personas(src.game):
        s.skipped = (f"This game ships no personas: every seat plays one way ({', '.join(ctx.personas) or 'one'}), so "
                     f"the ranking of {E}s cannot depend on play style: nothing to check here.")
        return s
    if not others:
        s.skipped = (f"Only one persona played balanced line-ups in every seat, so the report cannot say whether "
                     f"the ranking of {E}s depends on how the bots play: add cells with, e.g., "
                     f"players = [\"sprinter\"] on the same {T}s and racer counts (experiments/balance.toml).")
        return s
    s.intro = (f"Each persona in every seat on balanced line-ups, against {ctx.reference!r} on the same {T}s "
               f"and racer counts (like with like: the reference's column counts only those {T}s and racer counts, "
               f"and where a persona's cell plays the reference's races, by `same_races_as`, the same races, paired "
               f"race by race). A persona whose ranking of {E}s agrees closely supports conclusions that do "
               "not depend on play style.")
    s.details.append(f"Rank agreement: Spearman's rho and Kendall's tau between the rankings of {E}s by wins per "
                     "fair share; p tests against no relation (exact over all orderings); 'a rerun' is where rho "
                     "would fall if the study were played again (parametric bootstrap).")
    cols = [ctx.scenario, "n_racers", ctx.entrant, "won", "race", "seat"]
    base = [src.base]
    ref_cells = {c.name: c for c in src.cells if c.name in ctx.main_cells}
    per_persona, agreement, paired = [], [], []
    like = []                      # the reference on the personas' own scenarios, racers (and races where paired)
    cache: dict[str, pd.DataFrame] = {}

    def cell_rows(names: list[str]) -> pd.DataFrame:
        """The base rows of these cells, each read once however many personas pair with it."""
        for name in names:
            if name not in cache:
                cache[name] = src.read(cols, [name], base)
        return pd.concat([cache[n] for n in names], ignore_index=True) if names else src.read(cols, [], base)

    for persona in others:
        cells = [c for c in src.cells if c.name in src.cell_names(balanced=True, persona=persona, variant=src.base)]
        rows, ref_parts = [], []
        for cell in cells:
            mine = cell_rows([cell.name])
            twin = next((r for r in ref_cells.values() if (r.trail, r.racers, r.seed) == (cell.trail, cell.racers, cell.seed)
                         and cell.seed >= 0), None)
            if twin is not None:
                ref = cell_rows([twin.name])
                ref = ref[ref.race.isin(mine.race.unique())]          # the same races: like with like, paired
                both = mine.merge(ref, on=[sc, "n_racers", "race", "seat", en], suffixes=("", "_ref"))
                if len(both) == len(mine):                          # every seat saw the same entrant: paired
                    paired.append(both.assign(persona=persona, d=both.won - both.won_ref))
            else:
                ref = cell_rows([r.name for r in ref_cells.values()
                                 if (r.trail, r.racers) == (cell.trail, cell.racers)])
            rows.append(mine)
            ref_parts.append(ref)
        rows = pd.concat(rows, ignore_index=True)
        ref = pd.concat(ref_parts, ignore_index=True)
        like.append(ref)
        per_persona.append(ctx.judge(M.flag(M.win_rates(rows, [en], o.confidence), o.alpha)).assign(persona=persona))
        for trail, sub_ref, sub in [("all", ref, rows), *((t, ref[ref[sc] == t], rows[rows[sc] == t])
                                                          for t in ctx.trails)]:
            if not len(sub) or not len(sub_ref):
                continue
            a, b = (M.win_rates(x, [en], o.confidence).set_index(en) for x in (sub_ref, sub))
            agreement.append({"persona": persona, sc: trail, **M.rank_agreement(
                a.ratio, b.ratio, _ratio_se(a), _ratio_se(b), seed=o.seed, confidence=o.confidence)})
    ref_rows = pd.concat(like, ignore_index=True).drop_duplicates([sc, "n_racers", "race", "seat"])
    per_persona.insert(0, ctx.judge(M.flag(M.win_rates(ref_rows, [en], o.confidence), o.alpha)).assign(
        persona=ctx.reference))
    if paired:
        _paired_personas(ctx, s, pd.concat(paired, ignore_index=True))
    table = s.table("persona_win_rates", _front(pd.concat(per_persona, ignore_index=True), ["persona", en]),
                    f"Win rate per {E} for each persona in every seat")
    agreement = s.table("persona_rank_agreement", ctx.order_trails(pd.DataFrame(agreement)),
                        f"Agreement of each persona's ranking of {E}s with the reference's", percent=False)
    piv = table.pivot(index=en, columns="persona", values="ratio")[[ctx.reference, *others]]
    marks = table.assign(mark=table.verdict.map(M.mark)).pivot(index=en, columns="persona",
                                                                values="mark")[[ctx.reference, *others]]
    lo, hi = (table.pivot(index=en, columns="persona", values=v)[[ctx.reference, *others]]
              for v in ("ratio_low", "ratio_high"))
    order = piv[ctx.reference].sort_values(ascending=False).index
    s.figure("persona_heatmap", F.heatmap(piv.loc[order], 1.0, "Wins per fair share by persona in every seat",
                                          "wins / fair share", marks.loc[order], low=lo.loc[order], high=hi.loc[order],
                                          min_span=2 * ctx.band),
             f"Wins per fair share of each {E} when every seat plays one persona (✓ in band, ▲ over, ▼ under, "
             "? not enough races)")
    pooled = agreement[agreement[sc] == "all"]
    s.findings.append(f"Does the ranking of {E}s under {ctx.reference} hold under the other personas? " + "; ".join(
        f"under {r.persona} it {_verdict(r, o.alpha)}"
        for r in pooled.itertuples()) + ".")
    s.details.append(f"Rank agreement with {ctx.reference}: " + "; ".join(
        f"{r.persona}: Spearman {r.spearman:+.2f} (a rerun {r.rerun_low:+.2f} to {r.rerun_high:+.2f}), "
        f"Kendall {r.kendall:+.2f}, p{p_is(r.spearman_p)}" for r in pooled.itertuples()) + ".")
    sig = table[table.verdict.isin(["over", "under"])].assign(sign=lambda t: np.sign(t.gap))
    ref_flags = sig[sig.persona == ctx.reference].set_index(en).sign
    fragile = []
    for b, sign in ref_flags.items():
        lost = [p for p in others if not ((sig.persona == p) & (sig[en] == b) & (sig.sign == sign)).any()]
        if lost:
            fragile.append(f"{b} ({'over' if sign > 0 else 'under'}; not so under {', '.join(lost)})")
    s.findings.append("Out-of-band verdicts that depend on play style: " + (", ".join(fragile) if fragile else (
        f"none; every {E} outside the band under {ctx.reference} is outside it the same way under every "
        "persona")) + ".")
    return s


def game_has_personas(game: str) -> bool:
    """Whether the game ships personas to choose from (sim/data/players/GAME); Mania's bots do not."""
    from importlib.resources import files

    try:
        folder = files("sim.data") / "players" / game
        return folder.is_dir() and any(p.name.endswith(".toml") for p in folder.iterdir())
    except (ModuleNotFoundError, OSError):
        return True


def _paired_personas(ctx: Context, s: Section, both: pd.DataFrame) -> None:
    """Per persona and entrant, the change in win rate against the reference on the same races and
    seats, and a test of persona x entrant interaction: do the personas move the entrants apart,
    beyond a shift that moves them all alike?"""
    from scipy import stats

    en, E = ctx.en, ctx.entrant
    z = stats.norm.ppf(0.5 + ctx.o.confidence / 2)
    g = both.groupby(["persona", en], observed=True).d
    t = pd.DataFrame({"races": g.size(), "change": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.size())}).reset_index()
    t["low"], t["high"] = t.change - z * t.se, t.change + z * t.se
    s.table("persona_paired_changes", t.drop(columns="se"),
            f"Change in each {E}'s win rate under each persona against the reference, on the same races and seats")
    tests = []
    for persona, part in t.groupby("persona"):
        w = 1 / part.se.pow(2)
        mean = float((w * part.change).sum() / w.sum())
        chi2 = float((((part.change - mean) / part.se) ** 2).sum())
        df = len(part) - 1
        tests.append({"persona": persona, "chi2": chi2, "df": df, "p": float(stats.chi2.sf(chi2, df))})
    tests = s.table("persona_interaction", pd.DataFrame(tests),
                    f"Persona x {E} interaction on paired races (the test behind the finding; see 'Details')",
                    percent=False, page=False)
    s.findings.append("Personas on the reference's own races: " + "; ".join(
        f"{r.persona} moves the {E}s " + ("apart (the ranking depends on play style)" if r.p < ctx.o.alpha
                                          else "alike (no sign that the ranking depends on play style)")
        for r in tests.itertuples()) + ".")
    s.details.append(f"Persona x {E} interaction on paired races: " + "; ".join(
        f"{r.persona} chi-square {r.chi2:.1f} on {r.df} df, p{p_is(r.p)}" for r in tests.itertuples()) + ".")


def _verdict(r, alpha: float) -> str:
    """holds: a strong rank correlation, clearly not chance; in part: clearly not chance but
    weaker; not shown: what chance alone could give with this few competitors, which is not the
    same as no agreement: the competitors a test of that correlation would need are named."""
    if r.spearman_p <= alpha:
        return "holds" if r.spearman >= 0.7 else "holds in part"
    if r.spearman > 0:
        # the normal approximation rho * sqrt(n - 1) >= z: the competitors that would tell rho from chance
        need = int(np.ceil((z_value(1 - alpha) / r.spearman) ** 2 + 1))
        return (f"is not shown to hold (with {int(r.competitors)} competitors a rank correlation of "
                f"{r.spearman:+.2f} cannot be told from chance; it would take about {need})")
    return "is not shown to hold (no agreement in the ranking)"


def _ratio_se(t: pd.DataFrame) -> pd.Series:
    """Standard error of wins per fair share: the win rate's binomial error over the fair share."""
    return np.sqrt(t.win_rate * (1 - t.win_rate) / t.races) / t.fair_share


__all__ = ["within_cells", "overview", "win_rate_section", "strength_section", "seat_section", "shooting_section", "dynamics_section",
           "length_section", "variants_section", "robustness_section"]


# --- the verdict that opens the report ---------------------------------------------------------------

def health_section(ctx: Context) -> tuple[Section, list[str]]:
    """Races planned and played, cells missing, stalled races, eliminations, personas: the state of
    the results before anything is read from them. Returns the section and the warnings for the
    top of the page (a partial study, missing cells, stalled races above 1%)."""
    src = ctx.source
    s = Section("health", "Health of the results")
    played = src.races_played
    present = {c.name for c in src.cells}
    missing = [c for c in src.planned_cells if c not in present]
    rows = src.read(["seat", "stalled", "eliminated"], None, None)
    races = rows[rows.seat == 0]
    stalled = float(races.stalled.mean()) if len(races) else float("nan")
    elim = float(rows.eliminated.mean()) if len(rows) else float("nan")
    personas = sorted({p for c in src.cells for p in c.players})
    planned = src.planned or played
    table = pd.DataFrame([
        {"measure": "races planned", "value": f"{planned:,}"},
        {"measure": "races played", "value": f"{played:,} ({played / planned:.0%})" if planned else f"{played:,}"},
        {"measure": "cells played", "value": f"{len(present):,} of {len(src.planned_cells) or len(present):,}"},
        {"measure": "cells missing", "value": ", ".join(missing) or "none"},
        *({"measure": f"optional group not played: {g}",
           "value": f"{len(names)} cell(s) ({', '.join(names)}): biathlon-sim study FILE --out DIR --include {g}"}
          for g, names in src.optional.items()),
        *([{"measure": "cells sized to a precision target",
            "value": f"{len(src.targeted)} (each planned as its pilot sized it)"}] if src.targeted else []),
        *({"measure": f"precision not reached: {cell}", "value": note} for cell, note in src.precision_notes.items()),
        {"measure": "stalled races (hit the round cap)", "value": f"{int(races.stalled.sum()):,} ({pct(stalled)})"},
        {"measure": "racers eliminated", "value": f"{int(rows.eliminated.sum()):,} ({pct(elim)})"},
        {"measure": "personas used", "value": ", ".join(personas)},
        {"measure": "tolerance band", "value": ctx.band_text},
    ])
    s.table("health", table, "Health of the results", percent=False)
    warnings = []
    if planned > played:
        warnings.append(f"Partial results: {played:,} of the {planned:,} races the study planned are in this report "
                        f"(the rest were not played yet); verdicts with '?' may settle once they are.")
    if missing:
        warnings.append(f"Cells missing: {', '.join(missing)} (no finished results yet).")
    if stalled > 0.01:
        warnings.append(f"{pct(stalled)} of races stalled (hit the round cap before anyone finished): above 1%, "
                        "the bots may be stuck; results of those races are not real finishes.")
    return s, warnings


def _levers(ctx: Context, off: pd.DataFrame) -> pd.DataFrame:
    """For every out-of-band result, what each paired variant of the study does to it: the change
    of that entrant's (colour's, seat's) win rate, race by race, and the wins per fair share it
    would give; one variant is one step. Its side effects: the largest measurable changes it makes
    to the others of the same dimension, on the same races. The variants include a [screen]'s
    steps of every knob of a balance file (sim.study)."""
    src, o = ctx.source, ctx.o
    cells = [c.name for c in src.cells if src.base in c.variants and len(c.variants) > 1]
    if not cells or not len(off):
        return pd.DataFrame()
    axes = {ctx.entrant: ctx.en}
    if "colour" in src.axes:
        axes["ski colour" if ctx.entrant != "colour" else "colour"] = "colour_name"
    cols = list(dict.fromkeys([*ctx.result_columns, "race"]))
    describe = tuple(dict.fromkeys([ctx.sc, "n_racers", *axes.values(), "seat_name"]))
    column = {**axes, ctx.entrant: ctx.en, "seat": "seat_name"}
    scopes = {(column[r.dimension], r.where) for r in off.itertuples() if r.dimension in column}
    scenarios = {c.trail for c in src.cells if c.name in cells}
    # per scope (a dimension's column and where the result lies): per entrant and variant, the sums
    # that give the paired change over the races (each race's mean over the entrant's seats is one
    # unit, as sim.stats.paired_difference takes them), gathered one cell at a time: a [screen]
    # brings hundreds of variants, and all cells' variants side by side would not fit in memory
    sums: dict = {}
    for cell in cells:
        rows = src.read(cols, [cell], None)
        rows = rows.assign(seat_name=rows.seat.map({k: f"seat {int(k)}" for k in rows.seat.unique()}))
        try:
            wide = M.paired_outcomes(rows, src.base, describe=describe)
        except (KeyError, ValueError):
            continue
        variants = [v for v in wide.columns if v not in describe and v != src.base and v != "n_racers"]
        base = wide[src.base]
        diffs = wide[variants].sub(base, axis=0)        # a seat's change per variant; NaN where not played
        race = wide.index.get_level_values("race")
        scenario = wide[ctx.sc].astype(str).to_numpy()
        for col, where in scopes:
            if col not in wide.columns:
                continue
            mask = np.ones(len(wide), bool)
            if where != "all" and where in scenarios:
                mask &= scenario == where
            elif where.endswith(" racers"):
                # a result at one racer count: only races with that many racers measure its levers
                mask &= wide.n_racers.astype(int).to_numpy() == int(where.split()[0])
            if not mask.any():
                continue
            who = wide[col].astype(str).to_numpy()[mask]
            d = diffs[mask]
            per_race = d.groupby([race[mask], who], observed=True).mean()
            level = per_race.index.get_level_values(1)
            played = d.notna()
            part = {"n": per_race.groupby(level).count(), "s1": per_race.groupby(level).sum(),
                    "changed": (per_race.notna() & (per_race != 0)).groupby(level).sum(),
                    "s2": (per_race ** 2).groupby(level).sum(),
                    "num": played.mul(base[mask], axis=0).groupby(who).sum(), "den": played.groupby(who).sum()}
            got = sums.setdefault((col, where), {"on": {}})
            for k, v in part.items():
                got[k] = got[k].add(v, fill_value=0) if k in got else v.astype(float)
            where_played = scenario[mask]
            for w in np.unique(who):
                got["on"].setdefault(w, set()).update(np.unique(where_played[who == w]))
    zc = z_value(o.confidence)

    def scope(col: str, where: str):
        """Per entrant (rows) and variant (columns) of one dimension, on the races of `where`: the
        paired change, its interval, the units (races), the base rate on those races, and the
        scenarios measured on."""
        t = sums.get((col, where))
        if t is None or "n" not in t:
            return None
        n, s1, s2 = t["n"], t["s1"], t["s2"]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
            sd = np.sqrt(((s2 - s1 * mean) / (n - 1)).clip(lower=0))
            half = zc * sd / np.sqrt(n)
            half = half.where(n > 1)
            rate = t["num"] / t["den"]
        on = {w: ", ".join(sorted(x)) for w, x in t["on"].items()}
        return dict(change=mean, low=mean - half, high=mean + half, units=n, rate=rate, on=on, changed=t["changed"])

    out = []
    for r in off.itertuples():
        col = column.get(r.dimension)
        t = scope(col, r.where) if col is not None else None
        if t is None or r.who not in t["units"].index:
            continue
        clear_all = (t["low"] > 0) | (t["high"] < 0)
        can_all = t["changed"] >= M.MIN_CHANGED
        for v in t["units"].columns:
            units = t["units"].at[r.who, v]
            if not units:
                continue
            change, low, high, rate = (t[k].at[r.who, v] for k in ("change", "low", "high", "rate"))
            changed = int(t["changed"].at[r.who, v])
            toward = np.sign(change) == -np.sign(r.ratio - 1)
            clear = (low > 0) or (high < 0)
            can = M.measurable(changed, units)
            # a variant that changed too few of these races has no number: +0.00 [+0.00, +0.00] would
            # read as "no effect" where these players simply never met the change
            nan = float("nan")
            others = t["change"][v][clear_all[v] & can_all[v]].drop(r.who, errors="ignore")
            others = others.reindex(others.abs().sort_values(ascending=False).index)
            out.append({"dimension": r.dimension, "who": r.who, "where": r.where, "measured_on": t["on"][r.who],
                        "variant": v,
                        **({"change": change, "low": low, "high": high} if can == "yes" else
                           {"change": nan, "low": nan, "high": nan}),
                        "units": int(units), "changed": changed,
                        "ratio_now": r.ratio, "ratio_after": r.ratio * (1 + change / rate)
                        if rate > 0 and can == "yes" else nan,
                        "moves": can if can != "yes" else
                        ("toward fair" if toward else "away from fair") if clear else "not measurably",
                        "side_largest": float(others.iloc[0]) if len(others) else 0.0,
                        "side_effects": ", ".join(f"{w} {100 * c:+.1f} pp" for w, c in others.head(3).items())
                        or "none measurable"})
    return pd.DataFrame(out)


#: a levers table longer than this (a [screen]'s steps) is shown on the page only toward fair
LEVER_ROWS = 300

#: at most this many findings in "What to change first"; the rest are counted, never cut silently
ACTIONS = 12

#: the plain question each dimension of the verdict answers (others: "Are the {dimension}s even?")
QUESTIONS = {"seat": "Are the seats (turn order) even?"}

#: entrants that are identical pieces, so their verdict checks the simulation, not the design
NULL_CHECKS = {"colour": ("the colours are identical pieces, so this checks the simulation, not the design: "
                          "a colour outside the band would be a bug")}


def where_text(where: str, scenario: str) -> str:
    """'over all trails', 'at 6 racers', 'on Kurz': where a verdict was measured, in words."""
    if where == "all":
        return f"over all {scenario}s"
    if where.endswith((" racers", " teams")):
        return f"at {where}"
    return f"on {where}"


def _findings(off: pd.DataFrame) -> list[pd.DataFrame]:
    """The out-of-band verdicts as findings, biggest first: one per dimension, who and direction,
    its rows (scenarios, racer counts, pooled) sorted by size. A pooled row and the rows it pools
    repeat one finding, so they make one item, not several."""
    off = off.assign(direction=np.sign(off["size"]), magnitude=off["size"].abs())
    groups = [g.sort_values("magnitude", ascending=False, kind="stable")
              for _, g in off.groupby(["dimension", "who", "direction"], sort=False)]
    return sorted(groups, key=lambda g: -g.magnitude.iloc[0])


def _plural(dimension: str) -> str:
    return dimension + ("es" if dimension.endswith("s") else "s")


def design_questions(ctx: Context, v: pd.DataFrame) -> list[str]:
    """One plain sentence per design question (a dimension of the verdict), the farthest from fair
    first; identical pieces (a null check) last."""
    T = ctx.scenario
    out = []
    for dim, g in v.groupby("dimension", sort=False):
        off = g[g.verdict.isin(["over", "under"])]
        whos = list(dict.fromkeys(g.who))
        bad = list(dict.fromkeys(off.who))
        unsure = set(g[g.verdict == "not enough races"].who) - set(bad)
        question = QUESTIONS.get(dim, f"Are the {_plural(dim)} even?")
        if len(off):
            r = off.loc[off["size"].abs().idxmax()]
            text = (f"{question} No: {len(bad)} of {len(whos)} {_plural(dim)} lie outside the band somewhere; the "
                    f"farthest, {r.who} {where_text(r['where'], T)}, wins {r.ratio:.2f} x a fair share.")
            worst = abs(r["size"])
        else:
            text = (f"{question} Yes, within the band wherever these races can tell"
                    + (f"; {len(unsure)} of {len(whos)} need more races to be sure." if unsure else "."))
            worst = 0.0
        if dim in ctx.fixed and len(off):
            text += " The box fixes them (see below)."
        null = NULL_CHECKS.get(ctx.entrant) if dim == ctx.entrant else None
        if null:
            text += f" ({null[0].upper()}{null[1:]}.)"
        out.append((bool(null), -worst, text))
    ordered = sorted(out, key=lambda x: x[:2])
    return [t for null, _, t in ordered if not null] + list(ctx.questions) + [t for null, _, t in ordered if null]


def _action(ctx: Context, g: pd.DataFrame, levers: pd.DataFrame, told: set) -> str:
    """One item of "What to change first" (HTML): a finding's largest result, the other results
    it repeats, the study's variants that move it toward fair, and why the box fixes it where it
    does; `told`: the dimensions whose reason was given already."""
    e = __import__("html").escape
    T, fixed = ctx.scenario, ctx.fixed
    r = g.iloc[0]
    group = ctx.groups.get(r.dimension, {}).get(str(r.who))
    text = (f"<b>{e(r.who)}</b> ({e(r.dimension)}{', ' + e(group) if group else ''}) {e(where_text(r['where'], T))}: "
            f"{r.ratio:.2f} x a fair share [{r.ratio_low:.2f}, {r.ratio_high:.2f}], "
            f"{'over' if r['size'] > 0 else 'under'} by {abs(r['size']):.0%} ({int(r.races):,} races)")
    if len(g) > 1:
        rest = g.iloc[1:]
        more = f" and {len(rest) - 6} more" if len(rest) > 6 else ""
        text += ("; also " + ("over" if r["size"] > 0 else "under") + " "
                 + ", ".join(f"{e(where_text(x['where'], T))} ({x.ratio:.2f})" for _, x in rest.head(6).iterrows())
                 + more)
    if len(levers):
        mine = levers[(levers.dimension == r.dimension) & (levers.who == r.who) & (levers["where"] == r["where"])]
        good = mine[mine.moves == "toward fair"].sort_values("change", key=np.abs, ascending=False)
        if len(good):
            on = good.measured_on.iloc[0]
            text += ("<br>levers (one step each" + ("" if on == r["where"] else f"; measured on {e(on)}") + "): "
                     ) + "; ".join(
                f"{e(x.variant)} {100 * x.change:+.1f} pp [{100 * x.low:+.1f}, {100 * x.high:+.1f}] "
                f"→ {x.ratio_after:.2f} x (side effects: {e(x.side_effects)})" for x in good.head(3).itertuples())
            combined = _combined_steps(ctx, r, good) if r.dimension not in fixed else ""
            if combined:
                text += "<br>" + combined
        elif len(mine):
            text += "<br>no variant of this study moves it toward fair measurably"
    strong = ctx.strong.get((r.dimension, str(r.who)))
    if strong:
        text += "<br>under strong play (the reference in every seat): " + e("; ".join(strong))
    if r.dimension in fixed:
        # the reason once, at the first of its dimension; after that, a pointer to it
        text += (f"<br><i>fixed by the box</i>: {e(fixed[r.dimension])}" if r.dimension not in told
                 else f"<br><i>fixed by the box</i> (why: at the first {e(r.dimension)} above)")
        told.add(r.dimension)
    return text


def _toml_value(v) -> str:
    """A value as TOML writes it (for `compare --set FILE:PATH=VALUE`)."""
    import json

    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v)


def _combined_steps(ctx: Context, r, good: pd.DataFrame) -> str:
    """The fewest knob steps of a [screen] (one per knob, no two on the same value of a file) whose
    measured effects, added up as the balance search's model step adds them, bring a result into
    the band, largest first; with the command that checks the combination on fresh races (compare:
    the same races on both data sets, a seed the screen did not play); where no such steps reach the
    band, how near they come; "" when no screen step moves the result toward fair."""
    import html
    import shlex

    src = ctx.source
    steps = good[[src.variants[v].group == "screen" if v in src.variants else False for v in good.variant]]
    if not len(steps):
        return ""
    chosen, seen, knobs, ratio = [], set(), set(), float(r.ratio)
    above = ratio > 1
    for x in steps.itertuples():
        v = src.variants[x.variant]
        spots = {(p.get("file"), p.get("path")) for p in v.patches}
        after = ratio + x.ratio_after - x.ratio_now
        if v.knob in knobs or spots & seen or (after < 1 - ctx.band if above else after > 1 + ctx.band):
            continue                # a knob stepped already, its file's value taken, or past the band's far side
        chosen.append(x)
        knobs.add(v.knob)
        seen |= spots
        ratio = after
        if abs(ratio - 1) <= ctx.band:
            break
    if abs(ratio - 1) > ctx.band:
        return (f"the screen's steps toward fair, one per knob and none past the band, reach {ratio:.2f} x at best: "
                f"no combination of single steps brings it into the band")
    words = ["biathlon-sim", "--game", src.game, "compare"]
    if src.data:
        words += ["--base", src.data]
    for x in chosen:
        for p in src.variants[x.variant].patches:
            words += ["--set", "{}:{}={}".format(p.get("file"), p.get("path"), _toml_value(p.get("value")))]
    if r["where"].endswith(" racers"):
        words += ["--racers", r["where"].split()[0]]
    elif r["where"] != "all":
        words += [f"--{ctx.scenario}", r["where"]]
    if ctx.reference:
        words += ["--players", ctx.reference]
    command = " ".join(shlex.quote(w) for w in [*words, "--seed", "2"])
    return (f"together ({len(chosen)} step{'s' if len(chosen) > 1 else ''}, effects added as the balance search's "
            f"model step adds them): {html.escape(', '.join(x.variant for x in chosen))} → {ratio:.2f} x, in band; "
            f"check on fresh races: <code>{html.escape(command)}</code>")


def verdict_section(ctx: Context) -> Section:
    """The one-screen summary that opens the report: one plain sentence per design question, what
    to change first (every out-of-band finding of every dimension, biggest first, with the study's
    variants that move it), and the verdict grids. Reads the verdicts the other sections left in
    ctx."""
    s = Section("verdict", "Verdict")
    T = ctx.scenario
    if not ctx.verdicts:
        s.skipped = ("No balanced line-ups with one persona in every seat: nothing can be held against a fair "
                     "share (see the win-rate section).")
        return s
    v = pd.concat(ctx.verdicts, ignore_index=True)
    v["size"] = v.ratio - 1
    s.intro = (f"Every result against the tolerance band: {ctx.band_text} counts as fair (settable with "
               f"report --band or band in the study file's [report] table). ✓ in band: the whole "
               f"{ctx.o.confidence:.0%} interval lies inside the band; ▲ over / ▼ under: the whole interval lies "
               "outside it; ? not enough races to tell, with the races that would decide it. Each result is "
               f"measured per {T}, per racer count and pooled ('all': every {T} and racer count weighs the same).")
    e = __import__("html").escape
    if ctx.readings:
        # the answer depends on how the rules are read: said before anything else
        s.blocks.append("<p class='readings'><b>The answer depends on the rules' reading.</b> "
                        + " ".join(e(t) for t in ctx.readings)
                        + " (Section ‘Which rule readings change the answer’.)</p>")
    s.blocks.append("<ul class='questions'>" + "".join(f"<li>{e(q)}</li>" for q in design_questions(ctx, v))
                    + "</ul>")
    from .html import legend_html
    s.blocks.append(legend_html())
    counts = []
    for dim, g in v.groupby("dimension", sort=False):
        c = g.verdict.value_counts()
        counts.append(f"{dim}: " + ", ".join(f"{int(c.get(k, 0))} {k}" for k in
                                             ("in band", "over", "under", "not enough races") if c.get(k, 0)))
    findings = _findings(v[v.verdict.isin(["over", "under"])])
    # a game played per group (Ski Tour's basic and advanced sides) ranks each group apart
    groups = {g: [] for d in ctx.groups.values() for g in d.values()}
    groups[""] = []
    for g in findings:
        groups[ctx.groups.get(g.dimension.iloc[0], {}).get(str(g.who.iloc[0]), "")].append(g)
    groups = {k: g for k, g in groups.items() if g}
    shown = [g for gs in groups.values() for g in gs[:ACTIONS]]
    levers = _levers(ctx, pd.concat([g.head(1) for g in shown], ignore_index=True)) if shown else pd.DataFrame()
    told: set = set()
    lists = []
    for label, gs in groups.items():
        items = [f"<li>{_action(ctx, g, levers, told)}</li>" for g in gs[:ACTIONS]]
        if ctx.groups:
            members = sorted({w for d in ctx.groups.values() for w, x in d.items() if x == label})
            kinds = " or ".join(sorted({x.split()[-1] for d in ctx.groups.values() for x in d.values()}))
            head = f"{label[:1].upper()}{label[1:]}: {', '.join(members)}" if label else f"Whatever the {kinds}"
            lists.append(f"<h4>{e(head)}</h4>")
        lists.append("<ol class='actions'>" + "".join(items) + "</ol>")
        rest = gs[ACTIONS:]
        if rest:
            lists.append(f"<p>{len(rest)} more out-of-band finding(s) ({sum(len(g) for g in rest)} results)"
                         + (f" on the {e(label)}" if label else "") + ", smaller than these: the verdict grids below, and "
                         "tables/verdicts.csv, hold them all.</p>")
    if groups:
        s.blocks.append("<h3>What to change first</h3>" + "".join(lists))
        paired = [c for c in ctx.source.cells if ctx.source.base in c.variants and len(c.variants) > 1]
        if not len(levers) and not paired:
            s.blocks.append("<p class='meta'>The study holds no paired variants that change these, so no lever is "
                            "measured: add variants (docs/studies.md) and the report shows what each step does.</p>")
        elif not len(levers):
            names = sorted({v for c in paired for v in c.variants if v != ctx.source.base})
            s.blocks.append(f"<p class='meta'>The study's paired variants ({', '.join(map(str, names))}) were played "
                            f"only on {', '.join(c.name for c in paired)}, where none of these results is measured: "
                            "play them on the cells above to see what each step does.</p>")
    else:
        s.blocks.append("<h3>What to change first</h3><p>Nothing: no result lies outside the band.</p>")
    unsure = v[v.verdict == "not enough races"]
    if len(unsure):
        need = unsure.races_to_decide.replace(np.inf, np.nan)
        s.blocks.append(f"<p>{len(unsure)} result(s) need more races to tell: "
                        + (f"half of them would be decided by about {int(need.median()):,} races each (if their "
                           f"values stay where they are)" if need.notna().any()
                           else "they sit on the band's edge") + "; the column ‘races to decide’ gives each.</p>")
    for dim, g in v.groupby("dimension", sort=False):
        cell = g.assign(text=[f"{M.mark(x.verdict)} {x.ratio:.2f} [{x.ratio_low:.2f}, {x.ratio_high:.2f}]"
                              for x in g.itertuples()])
        # columns: the scenarios in the page's order, then 'all', then the racer counts
        rank = {w: k for k, w in enumerate([*ctx.trails, "all"])}
        order = sorted(dict.fromkeys(g["where"]), key=lambda w: (
            rank.get(w, len(rank)), int(w.split()[0]) if w.split()[0].isdigit() else 0))
        grid = cell.pivot_table(index="who", columns="where", values="text", aggfunc="first")[order]
        # rows by value: the pooled ratio where there is one, else the mean over the columns
        key = (g[g["where"] == "all"].set_index("who").ratio if "all" in grid.columns
               else g.groupby("who").ratio.mean())
        grid = grid.loc[key.reindex(grid.index).sort_values(ascending=False).index]
        grid = grid.reset_index().rename(columns={"who": dim})
        s.table(f"verdict_{dim.replace(' ', '_')}", grid,
                f"Verdict per {dim}: wins per fair share [interval] per {T}, pooled ('all') and per racer count; "
                "rows by value, farthest over first (click a header to sort by it)", percent=False)
    table = v.drop(columns=["size"])
    s.table("verdicts", table, "Every verdict (the grids above, one row each), with the races that would decide "
            "the uncertain ones", page=False)
    if len(levers) > LEVER_ROWS:
        # a screen's hundreds of steps: the page keeps the steps toward fair, the CSV holds every one
        s.table("levers", levers, "What each paired variant does to each out-of-band result (one step)", page=False)
        toward = levers[levers.moves == "toward fair"]
        toward = toward.reindex(toward.change.abs().sort_values(ascending=False).index)
        s.table("levers_toward_fair", toward.groupby(["dimension", "who", "where"], sort=False).head(5),
                "The steps that move each out-of-band result toward fair, the five largest for each (every step, "
                "whatever it does: levers.csv)")
    elif len(levers):
        s.table("levers", levers, "What each paired variant does to each out-of-band result (one step)")
    s.findings.insert(0, "At a glance, against the band " + ctx.band_text + ": " + "; ".join(counts) + ".")
    return s
