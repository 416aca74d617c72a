"""Biathlon Mania's own report sections: what the special squares (X, T, O) and the group rule do
for each racer, and how relays play by team size. The core sections (reports.core) answer the
rest: first-player advantage, how long a game lasts, shooting's share of the outcome, variants.

Mania's formats differ as much as tracks do, so its report reads a race's scenario as the track
and the format together ("red sprint"): `by_format` relabels the rows before the core sections
see them.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import core as C
from . import figures as F
from . import metrics as M
from . import readings as R
from .base import Context, Section, pct, relabelled

SPECIALS = {"skips": "turns skipped (X, first)", "x_rolls": "extra rolls (X, last)", "o_rolls": "extra rolls (O)",
            "t_jumps": "T jumps", "t_squares": "squares gained by T", "group_squares": "squares gained by the group rule",
            "calibres": "calibre re-rolls", "spare_shots": "relay spare shots"}


def by_format(ctx: Context, rows: pd.DataFrame) -> pd.DataFrame:
    """The scenario column as track and format together ("red sprint"), and the context's scenario
    order to match."""
    if "format" not in rows.columns:
        return rows
    formats = ctx.source.labels.get("format", [])
    order = [f"{t} {f.replace('_', ' ')}" for t in ctx.trails for f in formats]

    def name(track, f):
        return None if track is None else f"{track} {(formats[f] if 0 <= f < len(formats) else str(f)).replace('_', ' ')}"

    combo, categories = relabelled(rows[ctx.sc], rows["format"].to_numpy(), name, order)
    rows = rows.copy()
    rows[ctx.sc] = combo
    ctx.trails = categories
    from .interactive import palette

    palette().set_order(ctx.sc, [*ctx.trails, "all"])
    return rows


#: the assumption behind minutes at the table (reports.core.Pace)
PACE = C.Pace(10, 0, "roll, count the squares and move, or roll a shot and set a chip",
              "A relay counts every leg as a player. With two_dice = \"two_racers\" two players roll at once, so "
              "the minutes are an upper bound there.")
SECONDS_PER_TURN = PACE.turn_seconds


def race_tables(rows: pd.DataFrame, keep: tuple[str, ...] = (), seconds: float = SECONDS_PER_TURN) -> pd.DataFrame:
    """reports.core.race_tables at `seconds` a turn (a relay leg is a player)."""
    return C.race_tables(rows, keep, C.Pace(seconds))


def table_time_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Race length a designer can plan with: turns per player and minutes at the table."""
    return C.table_time_section(ctx, rows, PACE)


def specials_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o, sc = ctx.o, ctx.sc
    s = Section("specials", "Special squares and the group rule")
    have = [c for c in SPECIALS if c in rows.columns]
    if not have:
        s.skipped = "These results carry no special-square counts."
        return s
    s.intro = ("Per racer and race: how often each special square acted and how many squares the group rule "
               "and T gave, with the win rate of racers who used each; for what the game would be without a "
               "square, play a paired variant that removes it (experiments/mania.toml).")
    keys = [sc, "n_racers"]
    parts = [M.means(rows, c, keys, o.confidence).assign(measure=SPECIALS[c]) for c in have]
    table = s.table("specials", ctx.order_trails(pd.concat(parts, ignore_index=True)[
        ["measure", *keys, "n", "mean", "low", "high"]]), "Special squares per racer and race", percent=False)
    pooled = pd.concat([M.means(rows, c, [sc], o.confidence).assign(measure=SPECIALS[c]) for c in have],
                       ignore_index=True)
    s.figure("specials", F.bars(pooled, "measure", "mean", "Special squares per racer and race", "per racer",
                                hue=sc), "Mean count per racer and race of each special square's effect")
    used = []
    for c in ("skips", "x_rolls", "o_rolls", "t_jumps"):
        if c in rows.columns:
            r = M.rates(rows.assign(used=rows[c] > 0), "won", ["used"], o.confidence)
            used.append(r.assign(measure=SPECIALS[c]))
    if used:
        s.table("win_rate_when_used", pd.concat(used, ignore_index=True)[["measure", "used", "n", "rate", "low", "high"]],
                "Win rate of racers who met each square at least once (used) or never")
    means = pooled.groupby("measure").mean(numeric_only=True)["mean"]
    s.findings.append("Special squares per racer and race: " + ", ".join(
        f"{m} {v:.2f}" for m, v in means.items()) + f" (all {ctx.scenario}s pooled; n={len(rows):,} racers).")
    del table
    return s


def relay_section(ctx: Context, rows: pd.DataFrame) -> Section:
    o = ctx.o
    s = Section("relay", "Relays by team size")
    if "leg" not in rows.columns or not (rows.leg > 0).any():
        s.skipped = "No relay with more than one leg was played."
        return s
    relay = rows.copy()
    relay["legs"] = relay.groupby(["cell", "variant", "race"], observed=True).leg.transform("max") + 1
    relay = relay[relay.legs > 1]
    first = relay[relay.leg == 0]
    races = first[first.seat == 0]
    length = s.table("relay_length", M.means(races, "rounds", ["legs", "n_racers"], o.confidence),
                     "Rounds per relay by legs per team and seats", percent=False)
    first = first.assign(teams=(first.n_racers // first.legs))
    seat0 = first[first.seat == 0]
    s.table("relay_first_team", M.rates(seat0, "won", ["legs", "teams"], o.confidence).assign(
        fair_share=lambda t: 1 / t.teams), "How often the first team to start wins, by legs and teams")
    spare = relay.groupby("legs").spare_shots.mean() if "spare_shots" in relay.columns else None
    s.intro = ("Relays: a team's legs race one after the other; the tables count each team once (its first "
               "leg's row carries the team's place).")
    s.findings.append("Relays: " + ", ".join(f"{int(r.n_racers) // int(r.legs)} teams of {int(r.legs)}: "
                                             f"{r['mean']:.1f} rounds" for _, r in length.iterrows())
                      + (("; spare shots per racer " + ", ".join(f"{int(k)} legs {v:.2f}" for k, v in spare.items()))
                         if spare is not None else "") + ".")
    return s


def shooting_share(ctx: Context, rows: pd.DataFrame) -> Section:
    """Shooting's share of the outcome: the win rate by misses (penalty loops owed)."""
    o = ctx.o
    s = Section("shooting-share", "How much of the result is shooting")
    if "misses" not in rows.columns:
        s.skipped = "These results carry no misses per racer."
        return s
    # a lone racer (a time trial) always wins, whatever it misses: left out
    clean = rows[rows.n_racers > 1].assign(misses=rows.misses.clip(upper=6))
    t = s.table("win_rate_by_misses", M.rates(clean, "won", ["misses"], o.confidence),
                "Win rate by targets missed in the race (6 = 6 or more; all formats and racer counts pooled)")
    s.figure("win_rate_by_misses", F.lines(t.assign(series="all"), "misses", "rate", "series",
                                           "Win rate by targets missed", "targets missed", "win rate", percent=True),
             "Win rate by targets missed in the race, with intervals")
    # within cells: each format, track and racer count compares clean shooters with its own racers,
    # and the cells weigh the same (pooled over formats, the effect would shrink by the mix)
    sc = ctx.sc
    keys = [sc, "n_racers"]
    cells = clean.groupby(keys, observed=True).won.agg(racers="size", rate="mean").join(
        clean[clean.misses == 0].groupby(keys, observed=True).won.agg(clean_racers="size", clean_rate="mean"),
        how="inner").reset_index()
    if len(cells):
        s.table("clean_shooting_by_cell", cells[[sc, "n_racers", "racers", "rate", "clean_racers", "clean_rate"]],
                "Win rate of every racer and of racers who miss nothing, per format, track and racer count")
        s.findings.append(
            f"Clean shooting, within each format, track and racer count (each the same weight; a lone racer left "
            f"out): racers who miss nothing win {pct(cells.clean_rate.mean())} of their races against "
            f"{pct(cells.rate.mean())} for every racer ({len(cells)} cells, {int(cells.clean_racers.sum()):,} clean "
            f"racers); per {ctx.scenario}: " + ", ".join(
                f"{k} {pct(g.clean_rate.mean())} against {pct(g.rate.mean())}"
                for k, g in cells.groupby(sc, observed=True, sort=False) if len(g)) + ".")
    return s


def reading_races(rows: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """One row per race (variant, race) of one cell with the headline figures' columns, and the
    figures (reports.readings.Measure): seat effect (the first team's win rate: a team is a racer
    outside relays), balance between teams (best minus worst team's win rate), race length (rounds,
    turns per player, minutes at the table) and shooting (penalty loops per racer)."""
    table = race_tables(rows)
    keys = ["variant", "race"]
    first_legs = rows[rows.leg == 0] if "leg" in rows.columns else rows
    won = first_legs.pivot_table(index=keys, columns="team", values="won", observed=True)
    won.columns = [f"won_{int(t)}" for t in won.columns]
    pen = rows.groupby(keys, observed=True).penalty_laps.mean().rename("penalty_loops")
    table = table.set_index(keys).join(won).join(pen).reset_index()
    teams = tuple(won.columns)
    fair = 1 / len(teams)
    measures = [
        R.Measure("first team's win rate", (teams[0],), share=True, scale=fair, judged=True),
        R.Measure("best minus worst team's win rate", teams, lambda m: float(np.max(m) - np.min(m)), share=True,
                  scale=fair),
        R.Measure("rounds per race", ("rounds",)),
        R.Measure("turns per player", ("turns_per_player",)),
        R.Measure(f"minutes at the table ({SECONDS_PER_TURN} s a turn)", ("minutes",)),
        R.Measure("penalty loops per racer", ("penalty_loops",)),
    ]
    return table, measures


def readings_section(ctx: Context, rows: pd.DataFrame) -> Section:
    """Which rule readings change the answer (docs/mania/rules.md: every switch), paired on the same
    races (reports.readings.section)."""
    def races_of(cell_rows):
        races, measures = reading_races(cell_rows)
        teams = len(measures[1].columns)
        legs = int(races.n_racers.iloc[0]) // teams if len(races) else 1
        return races, measures, (f"{teams} teams of {legs}" if legs > 1 else f"{teams} racers")

    return R.section(ctx, "docs/mania/rules.md",
                     ["race", "seat", "team", "leg", "won", "rounds", "turns", "penalty_laps", "n_racers"], races_of,
                     note="Under finish_ties = \"shared\" a race can have several winners, so win rates need not sum "
                          "to 1. A reading that changes nothing measurable here may still matter elsewhere "
                          "(calibre_uses_spare only acts in relays; two_dice only with two dice of each kind).")


#: Mania's own sections, after the core ones; each (ctx, main rows) -> Section
SECTIONS = (table_time_section, readings_section, shooting_share, specials_section, relay_section)
MAIN_COLUMNS = ["format", *SPECIALS, "misses", "turns"]

__all__ = ["SECTIONS", "MAIN_COLUMNS", "by_format"]
