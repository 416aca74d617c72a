"""Ski Tour: Biathlon's own report sections: the wax tokens (how often each icon is used and the
win rate of racers who use it), stamina and collapses, what drafting and the downhill bonus give,
and penalty laps per range. The core sections (reports.core) answer the rest: win rate per nation
and course, the first player's advantage, short against long race, shooting, variants.
"""
from __future__ import annotations

import pandas as pd

from . import figures as F
from . import metrics as M
from .base import Context, Section, pct

WAX = {"wax_reroll_shot": "re-roll a shooting die", "wax_sprint": "sprint", "wax_free_column": "a free column",
       "wax_reroll_one": "re-roll one board die", "wax_reroll_all": "re-roll all board dice",
       "wax_plus_one": "+1 die", "wax_minus_one": "-1 die", "wax_stamina": "pay one stamina first"}
MOVES = {"drafts": "moves drafted", "draft_steps": "steps drafted", "bonuses": "downhill bonuses",
         "bonus_steps": "downhill bonus steps", "occupied_paid": "stamina paid to enter occupied spaces",
         "sprint_uses": "sprints", "extra_columns": "extra columns taken"}
LAPS = ("laps_r1", "laps_r2", "laps_r3", "laps_r4")

#: the columns of the main rows these sections read
MAIN_COLUMNS = [*WAX, "wax_tokens", *MOVES, "stamina_used", "stamina_left", "collapse_round", *LAPS]


def wax_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc = ctx.o, ctx.sc
    s = Section("wax", "Wax tokens")
    have = [c for c in WAX if c in rows.columns]
    if not have:
        s.skipped = "These results carry no wax-token counts."
        return s
    s.intro = ("How often each wax icon was used per racer and race, and the win rate of racers who used it "
               "at least once against those who did not (an association, not a value: a token's value needs a "
               "paired variant that swaps it for a blank on the same races, see experiments/skitour.toml).")
    use = pd.concat([M.means(rows, c, [sc], o.confidence).assign(icon=WAX[c]) for c in have], ignore_index=True)
    s.table("wax_use", ctx.order_trails(use[["icon", sc, "n", "mean", "low", "high"]]),
            "Wax icon uses per racer and race", percent=False)
    s.figure("wax_use", F.bars(use, "icon", "mean", "Wax icon uses per racer and race", "uses per racer", hue=sc),
             "Mean uses of each wax icon per racer and race, per course, with intervals")
    won = pd.concat([M.rates(rows.assign(used=rows[c] > 0), "won", ["used"], o.confidence).assign(icon=WAX[c])
                     for c in have], ignore_index=True)
    s.table("wax_win_rate", won[["icon", "used", "n", "rate", "low", "high"]],
            "Win rate of racers who used each icon at least once (used) or never")
    never = [WAX[c] for c in have if not rows[c].any()]
    most = use.groupby("icon")["mean"].mean().sort_values(ascending=False)
    s.findings.append("Wax icons used most per racer and race: " + ", ".join(
        f"{k} {v:.2f}" for k, v in most.head(3).items()) + (
        f"; never used by these players: {', '.join(never)} (their value is not measurable with them)" if never else "")
        + ".")
    return s


def stamina_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc = ctx.o, ctx.sc
    s = Section("stamina", "Stamina, collapses, drafting and the downhill bonus")
    s.intro = ("Stamina spent and left at the finish, collapses (forced to pay with every marker on blue), and "
               "the moves drafting and the downhill bonus gave, per racer and race; with the win rate of racers "
               "who drafted or took a bonus at least once.")
    keys = [sc, "n_racers"]
    parts = [M.means(rows, c, keys, o.confidence).assign(measure=label)
             for c, label in [("stamina_used", "stamina spent"), ("stamina_left", "stamina left"),
                              *MOVES.items()] if c in rows.columns]
    table = s.table("stamina_and_moves", ctx.order_trails(pd.concat(parts, ignore_index=True)[
        ["measure", *keys, "n", "mean", "low", "high"]]), "Per racer and race", percent=False)
    collapse = M.rates(rows.assign(collapsed=rows.collapse_round >= 0), "collapsed", keys, o.confidence)
    s.table("collapses", ctx.order_trails(collapse), "Share of racers who collapse")
    worth = pd.concat([M.rates(rows.assign(used=rows[c] > 0), "won", ["used"], o.confidence).assign(measure=MOVES[c])
                       for c in ("drafts", "bonuses") if c in rows.columns], ignore_index=True)
    s.table("drafting_and_bonus_win_rate", worth[["measure", "used", "n", "rate", "low", "high"]],
            "Win rate of racers who drafted or took a downhill bonus at least once (used) or never")
    s.figure("collapses", F.bars(collapse, "n_racers", "rate", "Racers who collapse", "share of racers", hue=sc,
                                 percent=True), "Share of racers who collapse, per course and racer count")
    pooled = table.groupby("measure")["mean"].mean()
    s.findings.append(f"Per racer and race: {pooled.get('steps drafted', 0):.2f} steps drafted, "
                      f"{pooled.get('downhill bonus steps', 0):.2f} downhill bonus steps, "
                      f"{pooled.get('stamina spent', 0):.2f} stamina spent; {pct(float((rows.collapse_round >= 0).mean()))} "
                      f"of racers collapse.")
    return s


def laps_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc = ctx.o, ctx.sc
    s = Section("laps", "Penalty laps per range")
    have = [c for c in LAPS if c in rows.columns]
    laps = pd.concat([rows[[sc, c]].rename(columns={c: "laps"}).assign(range=i + 1)
                      for i, c in enumerate(have)], ignore_index=True)
    laps = laps[laps.laps >= 0]
    if not len(laps):
        s.skipped = "No racer shot."
        return s
    s.intro = "Penalty laps skied after each range (the table: 0 misses none, 1-2 one, 3-4 two, 5 three)."
    t = s.table("laps_per_range", ctx.order_trails(M.means(laps, "laps", [sc, "range"], o.confidence)),
                "Penalty laps per racer after each range", percent=False)
    s.figure("laps_per_range", F.bars(t, "range", "mean", "Penalty laps per range", "laps per racer", hue=sc),
             "Mean penalty laps per racer after each range, per course")
    s.findings.append("Penalty laps per racer and range: " + ", ".join(
        f"{r[sc]} range {int(r.range)} {r['mean']:.2f}" for _, r in t.iterrows()) + ".")
    return s


#: Ski Tour's own sections, after the core ones; each (ctx, main rows) -> Section
SECTIONS = (wax_section, stamina_section, laps_section)

__all__ = ["SECTIONS", "MAIN_COLUMNS"]
