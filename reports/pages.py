"""Pages for the commands that answer a question (compare, ladder, worldcup, tune, Mania's exact):
each command's tables turned into a page in the report's style (reports.html.command_page:
findings, interactive figures, sortable tables), written with the command's --out.

Every function takes the tables the command already has (DataFrames, as in its CSV files) and
writes the page; the page's figures go beside it as PNG and SVG and its tables as CSV, as in a
report. A study's report links the pages found in subfolders of the study's output folder
(reports.report.study_pages), by the command named in each page's head.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import figures as F
from .base import Section, pct
from .html import command_page


def write_page(path: str | Path, command: str, title: str, meta: list[str], sections: list[Section],
               warnings: list[str] = ()) -> Path:
    """Write a command's page to `path` (an .html file); its figures (PNG, SVG) and tables (CSV) go
    to figures/ and tables/ beside it, or to <stem>-files/ where the page is not page.html (a page
    beside a CSV or TOML file the command wrote)."""
    from .report import write_figures_and_tables

    path = Path(path)
    files = path.parent if path.name == "page.html" else path.parent / f"{path.stem}-files"
    rendered = write_figures_and_tables(files, sections)
    where = "figures" if files == path.parent else f"{files.name}/figures"
    path.write_text(command_page(command, title, meta, rendered, list(warnings), files=where), encoding="utf-8")
    return path


def page_beside(file: str | Path) -> Path:
    """The page of a command whose --out names a file (ladder's CSV, tune's TOML): same name, .html."""
    return Path(file).with_suffix(".html")


def _interval_finding(label: str, v: float, lo: float, hi: float, n: int | None = None, points: bool = False) -> str:
    if points:
        text = f"{100 * v:+.2f} pp [{100 * lo:+.2f}, {100 * hi:+.2f}]"
    else:
        text = f"{pct(v)} [{pct(lo)}, {pct(hi)}]"
    return f"{label}: {text}" + (f" (n={n:,})" if n is not None else "")


# --- compare ---------------------------------------------------------------------------------------

def compare_page(out: str | Path, table: pd.DataFrame, description: str, counts: pd.DataFrame | None = None,
                 top: int = 30, measures: pd.DataFrame | None = None, words=None) -> Path:
    """compare's page: what moved between the base and the changed data (paired by race).

    table: compare's win-rate table (label, base_win, changed_win, diff, low, high, p, ...);
    measures: its race length and component use table (measure, the scenario, base, changed, diff,
    low, high, ...); counts: its counts per scenario, seat axes and seat; words: the game's words
    (sim.compare.Words: scenario, seat axes), Blast's when None."""
    scenario = words.scenario if words is not None else "trail"
    axes = ", ".join(words.scope(a) for a in words.axes) if words is not None else "biathlete and ski colour"
    s = Section("changes", "What the change moves")
    s.intro = ("Each row: a win rate on the base data and on the changed data, the same races played on both "
               "(common random numbers), and the change in percentage points with its 95% interval from the "
               "race-by-race differences. A change whose interval includes 0 is not measured as a change: "
               "more races would tell (it is not 'no change').")
    t = table.copy()
    if {"diff", "low", "high"} <= set(t.columns):
        t["clear"] = np.where((t.low > 0) | (t.high < 0), "yes", "not with these races")
        shown = t.reindex(t["diff"].abs().sort_values(ascending=False).index).head(top)
        label = "label" if "label" in t.columns else t.columns[0]
        s.figure("compare_changes", F.bars(shown.assign(change=100 * shown["diff"], low=100 * shown.low,
                                                        high=100 * shown.high),
                                           label, "change", "Change in win rate, changed minus base",
                                           "percentage points", reference=0.0),
                 f"The {len(shown)} largest changes in win rate with their intervals (hover for values)")
        clear = t[t.clear == "yes"]
        s.findings.append(f"{len(clear)} of {len(t)} win rates change clearly (interval away from 0); the largest: "
                          + "; ".join(_interval_finding(str(r[label]), r["diff"], r.low, r.high, points=True)
                                      for _, r in shown.head(3).iterrows()) + ".")
    keep = [c for c in t.columns if c not in ("p_adjusted", "significant")]
    s.table("comparison", t[keep].rename(columns={"diff": "change"}), "Win rates on the base and the changed data")
    sections = [s]
    if measures is not None and len(measures):
        sections.append(_measures_section(measures, scenario))
    if counts is not None and len(counts):
        c = Section("counts", "Counts")
        c.table("counts", counts, f"Races and wins per {scenario}, {axes} and seat", percent=False)
        sections.append(c)
    return write_page(Path(out) / "page.html", "compare", "What-if: base and changed data compared",
                      [description], sections)


def _measures_section(measures: pd.DataFrame, scenario: str) -> Section:
    """Race length and component use on both data sets: the change of each per-race mean with its
    paired interval; the figure in percent of the base value (the measures have different units)."""
    s = Section("measures", "Race length and component use")
    s.intro = (f"Per race: its rounds, and per racer the mean count of each component the game's report reads; "
               f"each measure on the base and on the changed data over the same races, the change in the "
               f"measure's own units with its 95% interval from the race-by-race differences, per {scenario} "
               f"(and over all of them).")
    m = measures.assign(clear=np.where((measures.low > 0) | (measures.high < 0), "yes", "not with these races"))
    pooled = m[m[scenario] == "all"] if (m[scenario] == "all").any() else m
    rel = pooled[pooled.base != 0]
    if len(rel):
        s.figure("compare_measures", F.bars(rel.assign(change=100 * rel["diff"] / rel.base,
                                                       low=100 * rel.low / rel.base, high=100 * rel.high / rel.base),
                                            "measure", "change", "Change of each measure, in percent of the base",
                                            "percent of the base value", reference=0.0),
                 "The change of each measure (changed minus base) in percent of its base value, with its "
                 "interval; measures that are 0 on the base are in the table only")
    clear = pooled[pooled.clear == "yes"]
    s.findings.append(
        f"{len(clear)} of {len(pooled)} measures change clearly" + (": " + "; ".join(
            f"{r.measure} {r.base:.3g} to {r.changed:.3g} ({r.diff:+.3g} [{r.low:+.3g}, {r.high:+.3g}])"
            for r in clear.itertuples()) if len(clear) else "") + ".")
    keep = [c for c in m.columns if c not in ("column", "p_adjusted", "significant")]
    s.table("measures", m[keep].rename(columns={"diff": "change"}), "Race length and component use on the base "
            "and the changed data", percent=False)
    return s


# --- ladder ----------------------------------------------------------------------------------------

def ladder_page(path: str | Path, table: pd.DataFrame, pairs: pd.DataFrame | None, description: str,
                verdict: str = "") -> Path:
    """ladder's page: player strength (standings with intervals against a fair share) and the gap
    of each pair on the same races."""
    s = Section("standings", "Standings")
    s.intro = ("Win rate per seat raced with its 95% Wilson interval, against the fair share of a player no "
               "better than its rivals (1/racers); pairwise gaps are measured on the same races.")
    t = table.reset_index() if table.index.name else table.copy()
    who = "player" if "player" in t.columns else t.columns[0]
    if {"win_rate", "low", "high"} <= set(t.columns):
        fair = float(t.fair_share.mean()) if "fair_share" in t.columns else None
        s.figure("ladder_standings", F.bars(t, who, "win_rate", "Win rate per player", "win rate",
                                            reference=fair, percent=True),
                 "Win rate per player with its interval; bars grow from the fair share")
        best = t.iloc[0]
        s.findings.append(_interval_finding(f"Strongest: {best[who]}", best.win_rate, best.low, best.high,
                                            int(best.races) if "races" in t.columns else None))
    if verdict:
        s.findings.append(verdict)
    s.table("standings", t, "Standings")
    if pairs is not None and len(pairs):
        p = pairs.copy()
        p["pair"] = p.player.astype(str) + " − " + p.opponent.astype(str)
        p["clear"] = np.where((p.low > 0) | (p.high < 0), "yes", "not with these races")
        s.figure("ladder_pairs", F.bars(p.assign(change=100 * p.gap, low=100 * p.low, high=100 * p.high),
                                        "pair", "change", "Win-rate gap of each pair, same races", "percentage points",
                                        reference=0.0),
                 "Gap of each pair of players on the same races, with its interval")
        s.table("pairs", p.rename(columns={"gap": "change"}).drop(columns=["pair"]),
                "Pairwise gaps (the first player's win rate minus the second's, paired by race)")
    return write_page(path, "ladder", "Player ladder", [description], [s])


# --- worldcup --------------------------------------------------------------------------------------

def worldcup_page(out: str | Path, description: str, odds: pd.DataFrame, by_pick: pd.DataFrame,
                  ratings: pd.DataFrame | None = None, pick_gap: dict | None = None,
                  by_player: pd.DataFrame | None = None) -> Path:
    """worldcup's page: title odds per biathlete and by draft pick, with intervals."""
    s = Section("odds", "Title odds")
    s.intro = "Share of cups each biathlete wins, with 95% Wilson intervals; and the odds by place in the draft."
    o = odds.reset_index()
    who = o.columns[0]
    if {"title_odds", "low", "high"} <= set(o.columns):
        s.figure("title_odds", F.bars(o, who, "title_odds", "Title odds per biathlete", "share of titles",
                                      reference=1 / len(o) if len(o) else None, percent=True),
                 "Title odds per biathlete with intervals; bars grow from an equal share")
        top = o.sort_values("title_odds", ascending=False).iloc[0]
        s.findings.append(_interval_finding(f"Most titles: {top[who]}", top.title_odds, top.low, top.high))
    if pick_gap:
        s.findings.append(f"First pick minus last pick: {100 * pick_gap['mean']:+.2f} points "
                          f"[{100 * pick_gap['low']:+.2f}, {100 * pick_gap['high']:+.2f}] over "
                          f"{int(pick_gap['units']):,} cups (paired by cup).")
    s.table("title_odds", o, "Title odds per biathlete")
    p = by_pick.reset_index()
    if {"title_odds", "low", "high"} <= set(p.columns):
        s.figure("title_odds_by_pick", F.bars(p.assign(pick=p[p.columns[0]].astype(str)), "pick", "title_odds",
                                              "Title odds by draft pick", "share of titles", percent=True,
                                              reference=float(p.title_odds.mean())),
                 "Title odds by place in the race 1 draft (1 = first pick), with intervals")
    s.table("by_pick", p, "Title odds by place in the draft")
    sections = [s]
    if ratings is not None or by_player is not None:
        x = Section("more", "Ratings and players")
        if ratings is not None:
            x.table("ratings", ratings.reset_index(), "Draft ratings: win rate per trail", percent=True)
        if by_player is not None:
            x.table("by_player", by_player.reset_index(), "Title odds by player")
        sections.append(x)
    return write_page(Path(out) / "page.html", "worldcup", "World Cup simulation", [description], sections)


# --- tune ------------------------------------------------------------------------------------------

def tune_page(path: str | Path, generations: pd.DataFrame, description: str, weights: str = "",
              check: pd.DataFrame | None = None, check_line: str = "") -> Path:
    """tune's page: how the tuned persona's win rate rose over the generations, its weights and the
    check against the start.

    generations: one row per generation and candidate (generation, candidate, win_rate, races)."""
    s = Section("tuning", "Tuning")
    s.intro = ("Each generation plays every candidate's weights against the start persona; the line follows the "
               "best candidate's and the mean candidate's win rate per generation.")
    g = generations.groupby("generation").win_rate.agg(["max", "mean"]).reset_index()
    long = pd.concat([g.assign(series="best candidate", rate=g["max"]), g.assign(series="mean candidate",
                                                                                   rate=g["mean"])])
    s.figure("tune_progress", F.lines(long, "generation", "rate", "series", "Win rate per generation",
                                      "generation", "win rate", percent=True),
             "Best and mean candidate's win rate per generation")
    if weights:
        s.findings.append(f"Weights: {weights}")
    if check_line:
        s.findings.append(check_line)
    s.table("generations", generations, "Every candidate's win rate per generation")
    if check is not None:
        s.table("check", check.reset_index() if check.index.name else check,
                "Check: the tuned persona against the start on fresh races")
    return write_page(path, "tune", "Persona tuning", [description], [s])


# --- Mania's exact ---------------------------------------------------------------------------------

def exact_page(out: str | Path, summary: pd.DataFrame, turns: pd.DataFrame, penalties: pd.DataFrame,
               description: str = "") -> Path:
    """Mania's exact answers: a lone racer's turns to finish per track and format, and the penalty
    loops per shooting, as exact distributions (no sampling, so no intervals)."""
    s = Section("exact", "Exact distributions")
    s.intro = ("Computed exactly from the rules (a Markov chain over a lone racer's squares, and the shooting "
               "die), not sampled: the numbers carry no interval.")
    t = turns.assign(series=turns.track.astype(str) + " " + turns["format"].astype(str).str.replace("_", " "))
    s.figure("exact_turns", F.lines(t[t.probability > 1e-5], "turns", "probability", "series",
                                    "A lone racer's turns to finish", "turns", "probability", percent=True),
             "Probability of finishing in each number of turns, per track and format")
    pens = penalties.assign(series=penalties.die.astype(str))
    s.figure("exact_penalties", F.lines(pens, "penalties", "probability", "series", "Penalty loops per shooting",
                                        "penalty loops", "probability", percent=True),
             "Probability of each number of penalty loops per shooting, per shooting die")
    for r in summary.itertuples():
        s.findings.append(f"{r.track} {str(r.format).replace('_', ' ')}: {r.mean_turns:.1f} turns on average, "
                          f"nine games in ten within {r.p90}.")
    s.table("turns_summary", summary, "Turns to finish: mean, spread and percentiles", percent=False)
    s.table("turns", turns, "Turns to finish: the whole distribution", percent=False)
    s.table("penalties", penalties, "Penalty loops per shooting", percent=False)
    return write_page(Path(out) / "page.html", "exact", "Biathlon Mania: exact answers",
                      [description] if description else [], [s])


__all__ = ["write_page", "page_beside", "compare_page", "ladder_page", "worldcup_page", "tune_page", "exact_page"]


# --- balance ---------------------------------------------------------------------------------------

def balance_page(out: str | Path, description: str, changes: pd.DataFrame, check: pd.DataFrame,
                 sens: pd.DataFrame, sensitivity_lines: list[str], meta: list[str] = (),
                 agreement: list[str] = (), front: pd.DataFrame | None = None) -> Path:
    """balance's page (DIR/page.html): the changes, every target before and after on fresh seeds
    (heat maps of the distance from the band's centre, per design), and what each changed knob moves
    per step (paired races).

    changes, check, sens: the search's changes.csv, targets.csv and sensitivities.csv tables;
    agreement: the report's lines on where the personas disagree (sim.balance.persona_text); front: the
    search's front.csv (Outcome.front_table), when the file names a binding player."""
    ch = Section("changes", "Changes")
    ch.intro = ("Every value the search changed, file by file (the rest of the data is the base data). The data "
                "folder DIR/data holds them and passes `biathlon-sim validate`.")
    if len(changes):
        ch.table("changes", changes, "The changes (file, entry, field, old -> new)", percent=False)
        ch.findings.append(f"{len(changes)} values changed by {changes.knob.nunique()} knobs.")
    else:
        ch.findings.append("No value changed: the base data already meets the targets, or no change helped.")
    tg = Section("targets", "Targets before and after, on fresh seeds")
    tg.intro = ("Each target statistic on races the search never played (the check seeds), the same races on the "
                "base data and on the result; 95% intervals clustered by balanced block. The maps show the "
                "distance from the band's centre (percentage points for win rates, rounds for race length); a "
                "dot marks a statistic outside its band.")
    if len(check):
        c = check.copy()
        rate = c.metric == "win_rate"
        scale = np.where(rate, 100.0, 1.0)
        centre = (c.band_low + c.band_high) / 2
        for when in ("before", "after"):
            c[f"{when}_off"] = (c[when] - centre) * scale
            c[f"{when}_mark"] = np.where(c[f"met_{when}"], "", "*")
        half = float(((c.band_high - c.band_low) / 2 * scale)[rate].max()) if rate.any() else 1.0
        for when in ("before", "after"):
            for target, part in c[rate].groupby("target", sort=False):
                piv = part.pivot_table(index="statistic", columns="design", values=f"{when}_off", sort=False)
                marks = part.pivot_table(index="statistic", columns="design", values=f"{when}_mark",
                                         aggfunc="first", sort=False).reindex_like(piv)
                name = f"{when}_{len(tg.figures)}"
                tg.figure(name, F.heatmap(piv, 0.0, f"{target}: {when}", "points from the band's centre",
                                          marks=marks, fmt="{:+.1f}", min_span=half),
                          f"{target}, {when} the search: points from the band's centre (* outside the band)")
        for when in ("before", "after"):
            met, n = int(c[f"met_{when}"].sum()), len(c)
            tg.findings.append(f"In band {when}: {met} of {n} target statistics.")
        worst = c.assign(off=c.after_off.abs()).sort_values("off", ascending=False).head(3)
        for r in worst.itertuples():
            unit = "points" if r.metric == "win_rate" else "rounds"
            tg.findings.append(f"Farthest after: {r.design} {r.statistic} {r.after_off:+.1f} {unit} from the "
                               f"band's centre ({'in' if r.met_after else 'outside'} its band; target {r.target}).")
        tg.findings += [line.lstrip("- ") for line in agreement]
        tg.table("targets", check, "Every target statistic before and after (the search's targets.csv)")
    else:
        tg.skipped = "No check was played."
    sv = Section("sensitivities", "What each change moves, per step")
    sv.intro = ("Every comparison of a candidate with its incumbent, on the same races, is an estimate of what "
                "one step of the knob moves: the change of each target statistic per step with its standard "
                "error. Below: the clearest effects of each changed knob's first step from the base value.")
    sv.findings += [line.lstrip("- ") for line in sensitivity_lines]
    if len(sens) and len(changes):
        z = 1.959963984540054
        t = sens[sens.knob.isin(set(changes.knob))].copy()
        t["low"], t["high"] = t.per_step - z * t.se_per_step, t.per_step + z * t.se_per_step
        for c in ("from", "to"):        # a choice may be a list (a Ski Tour stamina layout): shown as its text
            t[c] = t[c].map(lambda v: str(v) if isinstance(v, (list, tuple)) else v)
        t = t.sort_values("races", ascending=False).drop_duplicates(["knob", "from", "to", "design", "statistic"])
        sv.table("sensitivities", t.sort_values(["knob", "design", "statistic"]),
                 "Change of every target statistic per knob step (changed knobs, every step tried)", percent=False)
    sections = [ch, tg, sv]
    if front is not None and len(front):
        sections.insert(1, _front_section(front))
    return write_page(Path(out) / "page.html", "balance", "Balance search", [description, *meta], sections)


def _front_section(front: pd.DataFrame) -> Section:
    """The balance page's front: each point's headline against its worst bound persona, on the search's
    races and on the check's fresh ones, and the table to choose from."""
    fr = Section("front", "The front: the binding player against the worst bound persona")
    fr.intro = ("Each point is a data set no other candidate beats on both objectives: the binding player's part "
                "of the targets' score (the headline) and the worst bound persona's part (0: every target of its "
                "kind in band). The result is the point nearest to the targets; any other can be chosen by its "
                "changes (front.csv).")
    long = [front.assign(races="search's races", x=front.headline, y=front.worst)]
    if "check_headline" in front:
        long.append(front.assign(races="fresh races (check)", x=front.check_headline, y=front.check_worst))
    fr.figure("front", F.lines(pd.concat(long), "x", "y", "races", "The front", "headline: binding player's score",
                               "worst bound persona's score"),
              "The front, on the search's races and on fresh ones (lower-left is better on both)")
    near = front[front.nearest].iloc[0]
    fr.findings.append(f"{len(front)} point{'s' if len(front) != 1 else ''} on the front; the result is point "
                       f"{int(near.point)} (headline {near.headline:.3f}, worst persona {near.worst_persona} "
                       f"{near.worst:.3f} on the search's races).")
    fr.table("front", front, "The front's points: objectives, targets in band on fresh races, changes", percent=False)
    return fr
