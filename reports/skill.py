"""Does a verdict hold under strong play? (issue 27, item 4; docs/reports.md "Strong play")

Every verdict of the report is measured with the default player. Where the study also played the
strength reference (the persona `reference`: Blast's determinized Monte Carlo search, Ski Tour's
rollout search) in every seat on balanced line-ups, usually as the cells of an optional group
(`optional = "skill"`, played with `study --include skill`), this section measures the same
verdicts again under it, on the same races where the cells are paired (`same_races_as`), and tags
each out-of-band verdict of the default on those scenarios and racer counts:

- "holds under strong play": the reference's verdict is out of band the same way;
- "depends on the player": the reference's verdict is in band, or out of band the other way;
- "not settled under strong play": the reference's interval straddles an edge of the band.

It also tags the first player's seat the same way, and draws a skill gradient per scenario: the
widest gap between entrants and seat 0's share under random, the default and the reference.
Random and the reference are levels of skill, not styles of play, so the robustness section
(reports.core) leaves them to this one.
"""
from __future__ import annotations

import pandas as pd

from . import metrics as M
from .base import FLOOR, STRONG, Context, Section, with_clusters
from .core import game_has_personas


def tag(default: str, strong: str) -> str:
    """The tag of a default's verdict given the reference's on the same scenario and racers."""
    if default not in ("over", "under"):
        return "appears under strong play" if strong in ("over", "under") else ""
    if strong == default:
        return "holds under strong play"
    if strong in ("in band", "over", "under"):
        return "depends on the player"
    return "not settled under strong play"


def _said(verdict: str) -> str:
    """A band verdict as a sentence says it: "not enough races" (the interval reaches an edge of the
    band) reads as a short count where thousands of races were played, so it is "not settled"."""
    return "not settled (its interval reaches the band's edge)" if verdict == "not enough races" else verdict


def skill_section(ctx: Context) -> Section:
    o, src, sc, en, E, T = ctx.o, ctx.source, ctx.sc, ctx.en, ctx.entrant, ctx.scenario
    s = Section("skill", "Does it hold under strong play?")
    if not game_has_personas(src.game):
        s.skipped = "This game's seats are played by the dice: no player can play it better, so nothing here."
        return s
    if STRONG not in ctx.personas or not ctx.reference or ctx.reference == STRONG:
        group = next((g for g, names in src.optional.items() if any(n.startswith(STRONG) for n in names)), None)
        how = (f"the study's optional group {group!r} was not played: `biathlon-sim study FILE --out DIR --include "
               f"{group}` adds it to these results (slow: the reference plays a few races per second per core)"
               if group else f"add cells with players = [\"{STRONG}\"] on balanced line-ups, paired with the "
                             f"default's by same_races_as (experiments/balance.toml's optional group `skill`)")
        s.skipped = (f"Every verdict here is the default player's ({ctx.reference}); whether each holds when every "
                     f"seat plays well is not measured: {how}.")
        return s
    cols = [sc, "n_racers", en, "won", "race", "seat"]
    base = [src.base]
    blocks = {c.name: c.block for c in src.cells}
    main = {c.name: c for c in src.cells if c.name in ctx.main_cells}

    def level_rows(persona: str) -> dict[tuple[str, int], tuple[pd.DataFrame, object]]:
        out = {}
        for c in src.cells:
            if c.name in src.cell_names(balanced=True, persona=persona, variant=src.base):
                out[(c.trail, c.racers)] = (with_clusters(src.read(cols, [c.name], base), blocks), c)
        return out

    strong = level_rows(STRONG)
    floor = level_rows(FLOOR) if FLOOR in ctx.personas and FLOOR != ctx.reference else {}
    verdicts, seats, gradient, unplayed = [], [], [], []
    for (trail, n), (srows, scell) in strong.items():
        twin = next((m for m in main.values() if (m.trail, m.racers, m.seed) == (trail, n, scell.seed)
                     and scell.seed >= 0), None)
        names = [twin.name] if twin else [m.name for m in main.values() if (m.trail, m.racers) == (trail, n)]
        if not names:
            continue
        drows = with_clusters(src.read(cols, names, base), blocks)
        paired = twin is not None
        if paired:
            drows = drows[drows.race.isin(srows.race.unique())]
        levels = [(FLOOR, floor[(trail, n)][0])] if (trail, n) in floor else []
        levels += [(ctx.reference, drows), (STRONG, srows)]
        judged = {}
        for level, rows in levels:
            judged[level] = M.band_verdict(M.win_rates(rows, [en], o.confidence), ctx.band).set_index(en)
            seat0 = M.band_verdict(M.win_rates(rows[rows.seat == 0], ["seat"], o.confidence), ctx.band).iloc[0]
            spread = judged[level].win_rate.max() - judged[level].win_rate.min()
            gradient.append({sc: trail, "n_racers": n, "player": level, "races": int(rows.race.nunique()),
                             "widest_gap_pp": round(100 * spread, 2), "seat0_win_rate": seat0.win_rate,
                             "seat0_ratio": seat0.ratio, "seat0_verdict": seat0.verdict})
            if level != FLOOR:
                seats.append({sc: trail, "n_racers": n, "player": level, **seat0[["races", "win_rate", "low", "high",
                                                                                  "fair_share", "ratio",
                                                                                  "verdict"]].to_dict()})
        d, g = judged[ctx.reference], judged[STRONG]
        for who in d.index:
            if who not in g.index:
                unplayed.append(f"{who} on {trail}")
                continue
            verdicts.append({sc: trail, "n_racers": n, en: who, "paired": paired,
                             "default_win_rate": d.win_rate[who], "default_ratio": d.ratio[who],
                             "default_verdict": d.verdict[who], "strong_races": int(g.races[who]),
                             "strong_win_rate": g.win_rate[who], "strong_ratio": g.ratio[who],
                             "strong_low": g.ratio_low[who], "strong_high": g.ratio_high[who],
                             "strong_verdict": g.verdict[who], "tag": tag(d.verdict[who], g.verdict[who])})
    if not verdicts:
        s.skipped = (f"The strength reference played no {T} and racer count that the default's balanced line-ups "
                     "also played, so nothing can be compared.")
        return s
    table = ctx.order_trails(pd.DataFrame(verdicts))
    s.intro = (f"Every verdict above is measured with the default player ({ctx.reference}). Here the strength "
               f"reference ({STRONG}: a search that plays far better, docs/players.md) plays every seat on the "
               f"same {T}s and racer counts{', on the same races' if table.paired.all() else ''}, and each of the "
               f"default's out-of-band verdicts is tagged: 'holds under strong play' where the reference's is out "
               f"of band the same way, 'depends on the player' where it is in band or the other way, 'not settled' "
               f"where its interval straddles an edge.")
    s.table("strong_play_verdicts", table.drop(columns="paired"),
            f"Each {E}'s wins per fair share under the default and under the strength reference, with the tag")
    seat_table = ctx.order_trails(pd.DataFrame(seats))
    s.table("strong_play_seat0", seat_table, "The first player's (seat 0) win rate under the default and the reference")
    grad = ctx.order_trails(pd.DataFrame(gradient))
    s.table("skill_gradient", grad, f"Skill gradient per {T}: the widest gap between two {E}s' win rates (points) and "
                                    f"seat 0's share, from the floor (random) to the default and the reference")
    out = table[table.default_verdict.isin(["over", "under"])]
    holds = out[out.tag == "holds under strong play"]
    depends = out[out.tag == "depends on the player"]
    unsettled = out[out.tag == "not settled under strong play"]

    def named(t: pd.DataFrame) -> str:
        return ", ".join(f"{r[en]} on {r[sc]} ({r.default_ratio:.2f} → {r.strong_ratio:.2f})" for _, r in t.iterrows())

    where = ", ".join(f"{t} at {n} racers" for t, n in dict.fromkeys(zip(table[sc], table.n_racers)))
    if len(out):
        s.findings.append(
            f"Of the default's {len(out)} out-of-band {E} verdicts on {where}, {len(holds)} hold under strong play"
            + (f" ({named(holds)})" if len(holds) else "") + f", {len(depends)} depend on the player"
            + (f" ({named(depends)})" if len(depends) else "")
            + (f", and {len(unsettled)} are not settled with the reference's races ({named(unsettled)})"
               if len(unsettled) else "") + " (wins per fair share, default → reference).")
    else:
        s.findings.append(f"The default puts no {E} out of band on {where}.")
    for _, r in table[table.tag != ""].iterrows():
        ctx.strong.setdefault((E, str(r[en])), []).append(
            f"{r.tag} on {r[sc]} at {r.n_racers} racers ({r.default_ratio:.2f} → {r.strong_ratio:.2f} x a fair share)")
    appears = table[table.tag == "appears under strong play"]
    if len(appears):
        s.findings.append(f"Out of band only under strong play: {named(appears)}.")
    for (trail, n), sub in seat_table.groupby([sc, "n_racers"], sort=False):
        d = sub[sub.player == ctx.reference].iloc[0]
        g = sub[sub.player == STRONG].iloc[0]
        t0 = tag(d.verdict, g.verdict) or ("in band under both" if d.verdict == g.verdict == "in band" else
                                           f"{_said(d.verdict)} under the default, {_said(g.verdict)} under the reference")
        ctx.strong.setdefault(("seat", "seat 0"), []).append(
            f"{t0} on {trail} at {n} racers ({d.ratio:.2f} → {g.ratio:.2f} x a fair share)")
        s.findings.append(f"The first player on {trail} ({n} racers) wins {100 * d.win_rate:.1f}% under the default and "
                          f"{100 * g.win_rate:.1f}% under the reference (fair {100 * d.fair_share:.1f}%): {t0}.")
    steps = grad.groupby([sc, "n_racers"], sort=False)
    s.details.append("Skill gradient, the widest gap between two " + E + "s in points: " + "; ".join(
        f"{trail} ({n}): " + " → ".join(f"{r.player} {r.widest_gap_pp:.1f}" for r in sub.itertuples())
        for (trail, n), sub in steps) + ". A gap that grows with skill is the game's; one that shrinks is the bots'.")
    if unplayed:
        s.details.append(f"Left out, with no race under the reference: {', '.join(unplayed)}.")
    return s
