"""Ski Tour: Biathlon's own report sections: the wax tokens (how often each icon is used and the
win rate of racers who use it), stamina and collapses, what drafting and the downhill bonus give,
and penalty laps per range. The core sections (reports.core) answer the rest: win rate per nation
and course, the first player's advantage, short against long race, shooting, variants.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import core as C
from . import figures as F
from . import metrics as M
from . import readings as R
from .base import Context, Section, pct, relabelled
from .core import where_text

WAX = {"wax_reroll_shot": "re-roll a shooting die", "wax_sprint": "sprint", "wax_free_column": "a free column",
       "wax_reroll_one": "re-roll one board die", "wax_reroll_all": "re-roll all board dice",
       "wax_plus_one": "+1 die", "wax_minus_one": "-1 die", "wax_stamina": "pay one stamina first"}
MOVES = {"drafts": "moves drafted", "draft_steps": "steps drafted", "bonuses": "downhill bonuses",
         "bonus_steps": "downhill bonus steps", "occupied_paid": "stamina paid to enter occupied spaces",
         "sprint_uses": "sprints", "extra_columns": "extra columns taken"}
LAPS = ("laps_r1", "laps_r2", "laps_r3", "laps_r4")

#: the columns of the main rows these sections read
MAIN_COLUMNS = [*WAX, "wax_tokens", *MOVES, "stamina_used", "stamina_left", "collapse_round", *LAPS, "turns"]


def wax_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc = ctx.o, ctx.sc
    s = Section("wax", "Wax tokens")
    have = [c for c in WAX if c in rows.columns]
    if not have:
        s.skipped = "These results carry no wax-token counts."
        return s
    s.intro = ("How often each wax icon was used per racer and race, and the win rate of racers who used it "
               "at least once against those who did not (an association, not a value). A token's value is "
               "measured by the paired variants that swap one token for a blank on the same races "
               "(experiments/skitour.toml): the last tables of this section, when the study has them.")
    use = pd.concat([M.means(rows, c, [sc], o.confidence).assign(icon=WAX[c]) for c in have], ignore_index=True)
    s.table("wax_use", ctx.order_trails(use[["icon", sc, "n", "mean", "low", "high"]]),
            "Wax icon uses per racer and race", percent=False)
    never = [WAX[c] for c in have if not rows[c].any()]
    # an icon no racer used is not measured as "0 uses worth nothing": left out of the figure, named
    drawn = use[~use.icon.isin(never)]
    if len(drawn):
        s.figure("wax_use", F.bars(drawn, "icon", "mean", "Wax icon uses per racer and race", "uses per racer",
                                   hue=sc),
                 "Mean uses of each wax icon per racer and race, per course, with intervals"
                 + (f"; never used by these players, so not drawn (not measurable with these players): "
                    f"{', '.join(never)}" if never else ""))
    won = pd.concat([M.rates(rows.assign(used=rows[c] > 0), "won", ["used"], o.confidence).assign(icon=WAX[c])
                     for c in have], ignore_index=True)
    s.table("wax_win_rate", won[["icon", "used", "n", "rate", "low", "high"]],
            "Win rate of racers who used each icon at least once (used) or never")
    most = use.groupby("icon")["mean"].mean().sort_values(ascending=False)
    s.findings.append("Wax icons used most per racer and race: " + ", ".join(
        f"{k} {v:.2f}" for k, v in most.head(3).items()) + (
        f"; never used by these players: {', '.join(never)} (their value is not measurable with them)" if never else "")
        + ".")
    token_values(ctx, s)
    return s


def plain_token(text: str) -> str:
    """A token's icons in words ("plus_one / minus_one" -> "+1 die / -1 die"), not the data's ids."""
    words = re.split(r"(\s*[/+]\s*)", str(text).strip())
    return "".join(w if re.fullmatch(r"\s*[/+]\s*", w) else WAX.get(f"wax_{w}", w.replace("_", " "))
                   for w in words)


def by_variant(ctx: Context, rows: pd.DataFrame) -> pd.DataFrame:
    """The book's 2-player game (two players with two nations each) as a course of its own
    ("Starter, 2-player game"), so that its races are never pooled with four players' races, and
    the context's course order to match."""
    try:
        study = json.loads((Path(ctx.source.path) / "study.json").read_text(encoding="utf-8"))
        two = {c["name"] for c in study.get("cells", []) if (c.get("design") or {}).get("variant") == "two_player"}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return rows
    if (rows.n_racers == 2).any():
        ctx.questions.append("The 2-racer rows are one nation against one: an extension the book does not offer "
                             "(its smallest game is two players steering two nations each, reported as the "
                             "course's \"2-player game\"); read them as a head-to-head measure, not as the "
                             "printed game (docs/skitour/rules.md, section 8).")
    mine = rows.cell.isin(two).to_numpy()
    if not mine.any():
        return rows
    label, order = relabelled(rows[ctx.sc], mine, lambda course, two_player: None if course is None else (
        f"{course}, 2-player game" if two_player else course), [x for t in ctx.trails for x in (t, f"{t}, 2-player game")])
    rows = rows.copy()
    rows[ctx.sc] = label
    ctx.trails = order
    from .interactive import palette

    palette().set_order(ctx.sc, [*order, "all"])
    return rows


def _study_data(source):
    """The Ski Tour data the study played (the source's data directory), else the shipped one;
    None where neither loads."""
    from sim.skitour import load_data

    try:
        return load_data(source.data)
    except (OSError, ValueError, TypeError, KeyError):
        try:
            return load_data()
        except Exception:          # noqa: BLE001 - no data: nothing to name
            return None


def sides_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Which nations race on the basic side and which on the advanced, and each side's verdict: a
    designer reads the two sides as two games."""
    s = Section("sides", "Basic and advanced nations")
    data = _study_data(ctx.source)
    if data is None:
        s.skipped = "The study's data could not be read, so the nations' sides cannot be named."
        return s
    side = {n.name: n.side for n in data.nations}
    played = set(rows[ctx.en].astype(str))
    table = pd.DataFrame([{"nation": n, "side": side[n]} for n in side if n in played])
    if not len(table):
        s.skipped = "No nation of the data played in the main cells."
        return s
    s.intro = "Each nation races on one side of its board; the verdict below reads each side as a game of its own."
    ctx.groups[ctx.entrant] = {str(r.nation): f"{r.side} side" for r in table.itertuples()}
    v = pd.concat(ctx.verdicts, ignore_index=True) if ctx.verdicts else pd.DataFrame(columns=["dimension"])
    v = v[v.dimension == ctx.entrant]
    for name, g in table.groupby("side", sort=False):
        mine = v[v.who.isin(set(g.nation))]
        off = mine[mine.verdict.isin(["over", "under"])]
        text = f"{name.capitalize()} side: {', '.join(g.nation)}"
        if len(off):
            r = off.loc[(off.ratio - 1).abs().idxmax()]
            text += (f"; {off.who.nunique()} of {len(g)} lie outside the band somewhere, the farthest {r.who} "
                     f"{where_text(str(r['where']), ctx.scenario)} ({r.ratio:.2f} x a fair share)")
        elif len(mine):
            text += "; every one within the band wherever these races can tell"
        s.findings.append(text + ".")
    ctx.questions += [f"Is each side even within itself? {f}" for f in s.findings]
    s.table("sides", table, "The side each nation races on", percent=False)
    return s


def blanked_tokens(source) -> dict[str, tuple[str, int, str]]:
    """The variants that replace exactly one wax token of one nation with a blank, and nothing
    else: variant -> (nation, token index, the token's text on the base data). The base tokens
    come from the study's data directory (the study file's `data`), or the shipped data."""
    data = _study_data(source)
    if data is None:
        return {}
    base = {n.file: (n.name, [t.text for t in n.wax]) for n in data.nations}
    out = {}
    for name, v in source.variants.items():
        if name == source.base or len(v.patches) != 1 or getattr(v, "group", ""):
            continue                    # (a [screen]'s knob step is a lever, read by the verdict)
        p = v.patches[0]
        file, value = str(p.get("file", "")).replace("\\", "/"), p.get("value")
        if file not in base or p.get("path") != "wax.tokens" or not isinstance(value, list):
            continue
        nation, tokens = base[file]
        if len(value) != len(tokens):
            continue
        changed = [i for i, (a, b) in enumerate(zip(tokens, value)) if str(a).strip() != str(b).strip()]
        if len(changed) == 1 and str(value[changed[0]]).strip() == "blank":
            out[name] = (nation, changed[0], tokens[changed[0]])
    return out


def token_values(ctx: Context, s: Section) -> None:
    """The value of each wax token: per variant that blanks one token of one nation, that nation's
    win rate on the base data less its win rate without the token, race by race on the same races
    (reports.metrics.paired_changes, as the core variants section and Blast's gear values)."""
    o, src, en, sc = ctx.o, ctx.source, ctx.en, ctx.sc
    cells = [c.name for c in src.cells if src.base in c.variants and len(c.variants) > 1]
    targets = blanked_tokens(src) if cells else {}
    if not targets:
        s.blocks.append("<p class='meta'>This study has no variant that swaps one wax token for a blank, so no "
                        "token's value is measured (experiments/skitour.toml has such variants).</p>")
        return
    rows = src.read(ctx.result_columns + ["race"], cells, [src.base, *targets])
    wide = M.paired_outcomes(rows, src.base, describe=(sc, en))
    # variants that give the same result in every race are one change here: shown once
    moved = [v for v in targets if v in wide.columns
             and not wide.loc[wide[v].notna(), v].equals(wide.loc[wide[v].notna(), src.base])]
    same = M.identical_variants(wide, moved)
    twins = {o: first for first, others in same.items() for o in others}
    out = []
    for v, (nation, index, text) in targets.items():
        if v not in wide.columns or v in twins:
            continue
        ids = " = ".join(targets[x][2] for x in [v, *same.get(v, [])])
        text = " = ".join(plain_token(targets[x][2]) for x in [v, *same.get(v, [])])
        mask = wide[en] == nation
        for by in ([sc], []):
            t = M.paired_changes(wide, src.base, v, by, mask, o.confidence)
            if not len(t):
                continue
            out.append(t.assign(variant=", ".join([v, *same.get(v, [])]), nation=nation, token=text, token_id=ids,
                                index=index,
                                **({} if by else {sc: "all"}),
                                value=0.0 - t.change, value_low=0.0 - t.high, value_high=0.0 - t.low,
                                without=t.base_rate + t.change,
                                measurable=[M.measurable(c, u) for c, u in zip(t.changed, t.units)]))
    if not out:
        return
    s.blocks.append(
        "<p>The value of a wax token: each paired variant replaces one token of a nation with a blank (no icon) and "
        "replays the same races (same line-ups, same dice streams). The value is the nation's win rate with the token "
        "less its win rate with the blank, race by race, in percentage points, with an interval from the spread of "
        "the per-race differences. It is the token's worth to these players as they choose their row: with a blank "
        "among its eight tokens a player lays another token in its place, so the value is measured against that "
        "replacement; a negative value means the nation does better with the replacement (the players' choice of "
        "six is not the best), and a token no race changed is one the players never laid in the row or never "
        "used.</p>")
    table = pd.concat(out, ignore_index=True)
    table = M.flag(table.rename(columns={"base_rate": "with_token", "without": "without_token"}), o.alpha)
    off = table.measurable != "yes"
    # not measurable: no number that would read as "worth nothing"
    table.loc[off, ["value", "value_low", "value_high", "without_token"]] = np.nan
    table = s.table("wax_token_value", ctx.order_trails(table[
        ["nation", "token", "token_id", "index", sc, "with_token", "without_token", "value", "value_low", "value_high",
         "units", "changed", "measurable", "p", "p_holm", "significant", "variant"]]),
        "Value of each wax token: the nation's win rate with it less without it (a blank in its place), "
        "race by race on the same races, with intervals; tokens whose blanks give the same races are one row")
    pooled = table[table[sc] == "all"]
    drawn = pooled[pooled.measurable == "yes"]
    left_out = [f"{r.token} ({int(r.changed):,} of {int(r.units):,} races changed)"
                for r in pooled[pooled.measurable != "yes"].itertuples()]
    if len(drawn):
        s.figure("wax_token_value", F.bars(
            drawn.assign(value=100 * drawn.value, low=100 * drawn.value_low, high=100 * drawn.value_high,
                         label=drawn.nation + ": " + drawn.token),
            "label", "value", "Value of each wax token", "percentage points of win rate", reference=0.0),
            "What each token is worth to its nation: the win rate it loses when the token is a blank, "
            "in percentage points, with intervals over races (courses pooled)"
            + (f"; not measurable with these players, so not drawn: {'; '.join(left_out)}" if left_out else ""))
    parts = []
    for r in pooled.sort_values("value", ascending=False).itertuples():
        if r.measurable != "yes":
            parts.append(f"{r.token} {r.measurable}")
        else:
            parts.append(f"{r.token} {100 * r.value:+.1f} pp [{100 * r.value_low:+.1f}, {100 * r.value_high:+.1f}]")
    nations = ", ".join(dict.fromkeys(pooled.nation))
    s.findings.append(f"Value of each wax token of {nations} (its win rate with the token less with a blank in "
                      f"its place, same races, n={int(pooled.units.max()):,} races): " + "; ".join(parts) + ".")


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


def reading_races(rows: pd.DataFrame) -> tuple[pd.DataFrame, list, str]:
    """One row per race (variant, race) of one cell, the headline figures (reports.readings.Measure)
    and the cell's line-up in words. Standard races: the largest nation gap (best minus worst nation's
    win rate, each over the races it rode), seat 0's win rate (the first player's), each nation's win
    rate, rounds, turns per racer and the share of racers who collapse. The two-player game: side A's
    win rate (seat 0's player, who holds the marker first) and the gap between the sides instead."""
    keys = ["variant", "race"]
    # the share of each race's racers who collapse, as one grouped mean (not a function per race)
    g = rows.assign(collapsed=(rows.collapse_round >= 0).astype(np.float64)).groupby(keys, observed=True)
    table = pd.DataFrame({"rounds": g.rounds.first(), "turns": g.turns.mean(), "collapsed": g.collapsed.mean()})
    n = int(rows.n_racers.iloc[0]) if len(rows) else 0
    sides = rows.team.nunique() if len(rows) else 0
    length = [R.Measure("rounds per race", ("rounds",)), R.Measure("turns per racer", ("turns",)),
              R.Measure("share of racers who collapse", ("collapsed",), share=True)]
    if sides < n:          # the two-player game: a side's racers share its result
        won = rows.pivot_table(index=keys, columns="team", values="won", aggfunc="max", observed=True)
        won.columns = [f"side_{int(t)}" for t in won.columns]
        table = table.join(won)
        cols = tuple(won.columns)
        measures = [R.Measure("side A's win rate", (cols[0],), share=True, scale=0.5, judged=True),
                    R.Measure("gap between the sides' win rates", cols, lambda m: float(np.max(m) - np.min(m)),
                              share=True, scale=0.5), *length]
        return table.reset_index(), measures, "two players with two nations each"
    nation = (rows.nation_name if "nation_name" in rows.columns else rows.nation).astype(str)
    won = rows.assign(nation=nation).pivot_table(index=keys, columns="nation", values="won", aggfunc="sum",
                                                 fill_value=0, observed=True)
    rode = rows.assign(nation=nation, one=1).pivot_table(index=keys, columns="nation", values="one",
                                                         aggfunc="sum", fill_value=0, observed=True)
    names = list(won.columns)
    table = table.join(won.add_prefix("won_")).join(rode.add_prefix("in_"))
    table["seat0"] = rows[rows.seat == 0].set_index(keys).won.astype(float)
    fair = 1 / n
    per = [f"won_{x}" for x in names] + [f"in_{x}" for x in names]
    k = len(names)

    def gap(m):
        rate = m[:k] / np.where(m[k:] > 0, m[k:], np.nan)
        return float(np.nanmax(rate) - np.nanmin(rate))

    measures = [R.Measure("largest nation gap (best minus worst nation's win rate)", tuple(per), gap, share=True,
                          scale=fair),
                R.Measure("seat 0's win rate (the first player)", ("seat0",), share=True, scale=fair, judged=True),
                *[R.Measure(f"{x}'s win rate", (f"won_{x}", f"in_{x}"),
                            lambda m: float(m[0] / m[1]) if m[1] else float("nan"), share=True, scale=fair,
                            judged=True) for x in names],
                *length]
    return table.reset_index(), measures, f"{n} racers"


def readings_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Which rule readings change the answer (docs/skitour/rules.md: every switch), paired on the same
    races (reports.readings.section)."""
    return R.section(ctx, "docs/skitour/rules.md",
                     ["race", "seat", "team", "won", "rounds", "turns", "nation", "collapse_round", "n_racers"],
                     reading_races,
                     note="A reading that changes nothing measurable here may still matter elsewhere "
                          "(short_race_on_top only on a course with fewer than three ranges; two_player_seats only "
                          "in the two-player game; collapse_on only for the random player, which no headline cell plays).")


#: Ski Tour's own sections, after the core ones; each (ctx, main rows) -> Section
#: the assumption behind minutes at the table (reports.core.Pace)
PACE = C.Pace(45, 15, "roll, place the dice, take columns, use tokens, move, and shoot at a range",
              "A round starts with every racer's set-up roll at once. In the two-player game a player takes both "
              "of its nations' turns.")


def table_time_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Race length a designer can plan with: turns per player and minutes at the table."""
    return C.table_time_section(ctx, rows, PACE)


SECTIONS = (sides_section, table_time_section, readings_section, wax_section, stamina_section, laps_section)

__all__ = ["SECTIONS", "MAIN_COLUMNS", "by_variant"]
