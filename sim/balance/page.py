"""The search's written page: report.md and the texts it and the HTML page share (changes,
targets before and after, where the personas disagree, sensitivities, resolution)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .play import STAGES


def report_text(outcome, changes: pd.DataFrame, check: pd.DataFrame, sens: pd.DataFrame, data_hash: str,
                agree: list[str], scored: str, front: pd.DataFrame | None = None) -> str:
    """report.md of a search's Outcome; agree: persona_text(check), scored: check_score_text (write() reads both once
    for the report and the page)."""
    s = outcome.search
    bf = s.bf
    lines = [f"# Balance search: {bf.title}", "",
             f"Game {s.info.title}; balance file {bf.path.name}; base data {s.base_bundle.data_hash}, "
             f"result {data_hash}.",
             f"Search: seed {bf.seed}, {sum(s.n_blocks[d.label] * s.block[d.label] for d in bf.designs):,} "
             f"races per full evaluation ({len(bf.designs)} designs), {s.races_used:,} races in all; early drop "
             f"at alpha {bf.alpha:g} (one-sided paired z-test, alpha / {len(STAGES) - 1} per early look); "
             f"cost weight {bf.cost_weight:g}. Stopped: {s.stopped}.",
             "Candidates tried: " + ", ".join(f"{n} {what}" for what, n in s.tried.items()) + ".",
             *resolution_text(s.full_se, [st for st in s.steps if "difference" in st],
                              min(s.n_blocks[d.label] * s.block[d.label] for d in bf.designs)), "",
             f"Score before {s.total(outcome.base):.3f}, after {s.total(outcome.final):.3f} (on the search's races).",
             scored,
             "", "## Changes", "", changes_text(changes), "", "## Targets before and after",
             "", f"Fresh seeds (check seeds, never used in the search), {int(check.races.max()) if len(check) else 0:,} "
             "races per design, the same races before and after; 95% intervals, clustered by balanced block.", ""]
    lines.append(check_text(check))
    if bf.binds is not None:
        lines += ["", "## The players and the front", ""] + front_text(bf, s.unreachable, front, s.front_legs)
    if agree:
        lines += ["", "## Where the personas disagree", "",
                  "A statistic several personas read can be out of reach for a change that moves them all "
                  "alike: what is left is their disagreement, which only a change that moves one persona's "
                  "figure more than another's can close (persona_agreement in sim/balance/page.py).", ""] + agree
    lines += ["", "## Path", ""]
    if bf.start:
        lines.append("- start ([start] of the file): " + ", ".join(
            f"{k} {v!r}" for k, v in s.values({**outcome.base.pos, **bf.start}).items() if k in bf.start))
    lines += [f"- round {st['round']}: {st['knob']} {st['from']!r} -> {st['to']!r} (score {st['score']:.3f}"
              + (f"; {st['difference']:+.3f} ± {st['se']:.3f} on the races that chose it"
                 if "difference" in st else "")
              + (f"; on races of its own {st['confirm_difference']:+.3f} ± {st['confirm_se']:.3f}"
                 if "confirm_difference" in st else "")
              + ("; undone: the last round's move lost on this round's new races)" if st.get("undone") else ")")
              for st in s.steps] or ["- no step taken"]
    if bf.confirm:
        lines.append(f"- confirm: every step was taken only when it also beat the incumbent on races of its "
                     f"own, by more than {bf.confirm_z:g} standard error{'' if bf.confirm_z == 1 else 's'} of the paired "
                     f"score difference "
                     f"({s.tried['confirmed']} confirmed, {s.tried['not confirmed']} not)")
    if bf.fresh_rounds:
        lines.append("- fresh_rounds: every round played new races; the scores above are on each round's races")
    lines += ["", "## Sensitivities", "",
              f"sensitivities.csv ({len(sens)} rows) has the change of every target statistic per knob step, "
              "from paired races. For each changed knob, the clearest effects of its first step from the base "
              "value (change ± standard error):", ""]
    lines += sensitivity_lines(sens, changes)
    return "\n".join(lines) + "\n"


def resolution_text(full_se: list[float], steps: list[dict], races: int) -> list[str]:
    """What the search's races can tell apart: the standard errors of the fully played candidates'
    paired score differences, and how many steps taken gained more than two of them on the races
    that chose them. A search whose steps gain less than that is choosing among candidates its races
    cannot tell apart (the best of many then wins by its races' luck): more races per design, or
    confirm, say which gains are real."""
    if not full_se:
        return []
    se = np.asarray(full_se)
    lo, med, hi = np.percentile(se, [5, 50, 95])
    text = (f"Resolution: the paired score difference of a candidate played in full against its incumbent had a "
            f"median standard error of {med:.3f} (middle 90%: {lo:.3f} to {hi:.3f}) at {races:,} races per design")
    if steps:
        clear = sum(st["difference"] < -2 * st["se"] for st in steps)
        text += (f"; {clear} of the {len(steps)} knob move{'' if len(steps) == 1 else 's'} taken gained more than "
                 "two standard errors on the races that chose them")
        if 2 * clear < len(steps):
            text += (" (most gained less: at this resolution the search picks among candidates its races cannot "
                     "tell apart; more races per design, or confirm, say which gains are real)")
    return [text + "."]


def sensitivity_lines(sens: pd.DataFrame, changes: pd.DataFrame, top: int = 4) -> list[str]:
    """Per changed knob, its largest clear effects (|per step| > 2 se) from its first step off base."""
    out = []
    for knob in dict.fromkeys(changes.knob):
        first = changes[changes.knob == knob].iloc[0]
        old, new = _py(first.old), _py(first.new)
        rows = sens[(sens.knob == knob) & (sens["from"].astype(str) == str(old))]
        if not all(isinstance(v, (int, float)) for v in (old, new)):      # a choice: a word or a list
            rows = rows[rows["to"].astype(str) == str(new)]
        else:
            rows = rows[[(_py(t) - old) * (new - old) > 0 for t in rows["to"]]]
        if not len(rows):
            continue
        rows = rows[rows.per_step.abs() > 2 * rows.se_per_step].assign(
            move=lambda r: r.candidate - r.incumbent, se=lambda r: r.se_per_step * r.steps.abs())
        rows = rows.reindex(rows.move.abs().sort_values(ascending=False).index).head(top)
        if not len(rows):
            out.append(f"- {knob}: no clear effect on a target statistic")
            continue
        effects = "; ".join(
            f"{r.design} {r.statistic} {_per(r.statistic, r.move)} ± {_per(r.statistic, r.se, sign=False)}"
            for r in rows.itertuples())
        out.append(f"- {knob} ({old!r} -> {_py(rows['to'].iloc[0])!r}, {int(rows.races.max()):,} races a design): "
                   f"{effects}")
    return out or ["- no knob changed"]


def _py(x):
    """A plain Python value (pandas hands back numpy scalars)."""
    return x.item() if hasattr(x, "item") else x


def _per(statistic: str, x: float, sign: bool = True) -> str:
    if statistic == "mean rounds":
        return f"{x:+.2f} rounds" if sign else f"{x:.2f}"
    return f"{100 * x:+.2f} pp" if sign else f"{100 * x:.2f}"


def changes_text(changes: pd.DataFrame) -> str:
    if not len(changes):
        return "No change: no step the knobs allow improved the score (or the budget ended first)."
    def how(r) -> str:
        if isinstance(r.old, str) or isinstance(r.new, str):
            return f"knob {r.knob}"
        return f"knob {r.knob}, {r.steps:+d} step{'s' if abs(r.steps) != 1 else ''}"

    return "\n".join(f"- {r.file}: {r.entry}: {r.field}: {_py(r.old)!r} -> {_py(r.new)!r}  ({how(r)})"
                     for r in changes.itertuples())


def _fmt(metric: str, x: float) -> str:
    return f"{100 * x:.2f}%" if metric == "win_rate" else f"{x:.2f}"


def check_text(check: pd.DataFrame) -> str:
    if not len(check):
        return "(no target statistic)"
    head = "| design | statistic | band | before [95%] | after [95%] | change [95%] | met before / after |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in check.itertuples():
        f = lambda x: _fmt(r.metric, x)  # noqa: E731
        pp = (lambda x: f"{100 * x:+.2f} pp") if r.metric == "win_rate" else (lambda x: f"{x:+.2f}")
        lines.append(f"| {r.design} | {r.statistic} | {f(r.band_low)} .. {f(r.band_high)} | {f(r.before)} "
                     f"[{f(r.before_low)}, {f(r.before_high)}] | {f(r.after)} [{f(r.after_low)}, {f(r.after_high)}] | "
                     f"{pp(r.change)} [{pp(r.change_low)}, {pp(r.change_high)}] | "
                     f"{'yes' if r.met_before else 'no'} / {'yes' if r.met_after else 'no'} |")
    met_b, met_a = int(check.met_before.sum()), int(check.met_after.sum())
    lines += ["", f"In band: {met_b} of {len(check)} before, {met_a} of {len(check)} after."]
    return "\n".join(lines)


def front_objectives(check: pd.DataFrame, when: str = "after") -> tuple[float, float, str]:
    """The front's two objectives read off a check table (its role column): the binding player's part
    of the targets' score, and the worst bound persona's part with that persona's name."""
    head = check_score(check[check.role == "binds"], when)
    per = {p: check_score(g, when) for p, g in check[check.role == "bounds"].groupby("persona")}
    worst = max(per, key=lambda p: (per[p], p), default="")
    return head, per.get(worst, 0.0), worst


def front_text(bf, unreachable: list[dict], front: pd.DataFrame | None, legs: list[dict] = ()) -> list[str]:
    """The report's lines on who binds, what is out of reach, the descents that traced the front
    (Search.front_legs) and the front to choose from."""
    out = [f"The binding player: {bf.binds} (the headline targets). Bounded only: "
           f"{', '.join(bf.bound) or 'none'} (their robustness band)."]
    if unreachable:
        out.append("Out of reach, reported and not searched for (every knob moved as far as its bounds allow, "
                   "each at its clear measured effect per step, added up, leaves it outside its band):")
        out += [f"- {u['persona']}: {u['design']} {u['statistic']} at "
                f"{_fmt('rounds' if u['statistic'] == 'mean rounds' else 'win_rate', u['value'])}, "
                f"{_fmt_any(u['statistic'], u['gap'])} outside its band; the knobs together move it at most "
                f"{_fmt_any(u['statistic'], u['reach'])}" for u in unreachable]
    for leg in legs:
        out.append(f"- the front's descent with the bound personas' weight x{leg['weight']:g}: "
                   f"{len(leg['steps'])} knob move{'' if len(leg['steps']) == 1 else 's'}; stopped: {leg['stopped']}")
    if front is None or not len(front):
        return out
    if len(front) == 1:
        out.append("No trade-off: no candidate beats the result on one objective without losing on the other.")
    else:
        out.append(f"The targets conflict: {len(front)} data sets on the front between the headline (the binding "
                   "player's part of the targets' score) and the worst bound persona's part; none beats another on "
                   "both. The result is the point nearest to the targets (the least sum of the two). Choose another "
                   "by its changes (front.csv; each point's check in front_targets.csv).")
    out += ["", "| point | headline (search / fresh) | worst persona (search / fresh) | binding in band | "
                "bound in band | change cost | changes |", "|---|---|---|---|---|---|---|"]
    for r in front.itertuples():
        fresh = lambda x: f"{getattr(r, x):.3f}" if hasattr(r, x) else "-"  # noqa: E731
        out.append(f"| {r.point}{' (result)' if r.nearest else ''} | {r.headline:.3f} / {fresh('check_headline')} | "
                   f"{r.worst_persona} {r.worst:.3f} / {getattr(r, 'check_worst_persona', '')} "
                   f"{fresh('check_worst')} | {getattr(r, 'binding_in_band', '-')} | {getattr(r, 'bound_in_band', '-')} | "
                   f"{r.cost:g} | {r.changes} |")
    return out


def _fmt_any(statistic: str, x: float) -> str:
    return f"{x:.2f} rounds" if statistic == "mean rounds" else f"{100 * x:.1f} points"


def check_score(check: pd.DataFrame, when: str = "after") -> float:
    """The targets' part of the score (weight x excess^2, excess beyond the band in half-widths) read
    off the check's races: the search's own score is optimistic, since among many candidates played on
    the same races it keeps those whose luck helped."""
    if not len(check):
        return 0.0
    half = (check.band_high - check.band_low) / 2
    excess = (np.maximum(check.band_low - check[when], 0) + np.maximum(check[when] - check.band_high, 0)) / half
    return float((check.weight * excess ** 2).sum())


def check_score_text(check: pd.DataFrame, searched_before: float, searched_after: float) -> str:
    if not len(check) or "weight" not in check:
        return ""
    return (f"Targets' part of the score (the change cost left out) on the check's fresh races: before "
            f"{check_score(check, 'before'):.3f}, after {check_score(check, 'after'):.3f}; on the search's races "
            f"{searched_before:.3f} and {searched_after:.3f}. An 'after' higher on fresh races than on the "
            f"search's is the search's selection: among many candidates played on the same races it keeps "
            f"those the races' luck favoured.")

_PERSONA_KEYS = ["scenario", "racers", "statistic", "metric"]


def persona_offsets(check: pd.DataFrame, when: str) -> pd.DataFrame:
    """The check's rows with off (distance from the band centre), half (the band's half-width), both in
    points for win rates, and specific (off minus the mean of the personas sharing the statistic)."""
    scale = np.where(check.metric == "win_rate", 100.0, 1.0)
    c = check.assign(off=(check[when] - (check.band_low + check.band_high) / 2) * scale,
                     half=(check.band_high - check.band_low) / 2 * scale)
    return c.assign(specific=c.off - c.groupby(_PERSONA_KEYS).off.transform("mean"))


def persona_agreement(check: pd.DataFrame, when: str = "after") -> pd.DataFrame:
    """Where several personas share a target statistic (the same scenario, racers and statistic), how
    far apart they are: one row per such statistic with the personas' distances from their band
    centres, the shared part (their mean), the spread (largest minus smallest) and whether any change
    that moved every persona alike could put all of them in their bands at once (the intervals
    [distance - half-width, distance + half-width] meet). When they cannot, what is left is the
    personas' disagreement: only a change that moves one persona's figure more than another's helps.
    Distances in points for win rates, in the statistic's units otherwise."""
    cols = [*_PERSONA_KEYS, "personas", "shared", "spread", "worst_persona", "worst_specific", "common_shift_meets"]
    if not len(check) or "persona" not in check:
        return pd.DataFrame(columns=cols)
    rows = []
    for (scen, racers, stat, metric), g in persona_offsets(check, when).groupby(_PERSONA_KEYS, sort=False):
        if g.persona.nunique() < 2:
            continue
        worst = g.specific.abs().idxmax()
        rows.append({"scenario": scen, "racers": racers, "statistic": stat, "metric": metric,
                     "personas": g.persona.nunique(), "shared": float(g.off.mean()),
                     "spread": float(g.off.max() - g.off.min()), "worst_persona": g.persona[worst],
                     "worst_specific": float(g.specific[worst]),
                     "common_shift_meets": bool((g.off - g.half).max() <= (g.off + g.half).min() + 1e-12)})
    return pd.DataFrame(rows, columns=cols)


def persona_levers(check: pd.DataFrame, sens: pd.DataFrame, when: str = "after",
                   alpha: float = 0.05) -> pd.DataFrame:
    """For every statistic out of reach of a persona-uniform change (persona_agreement), the knob
    steps the search measured that move its farthest persona's figure towards the others': the
    step's paired effect on that persona minus its mean effect on the others, with its standard error,
    kept when it is clear at `alpha` one-sided after Bonferroni over the knob steps measured on that
    statistic (many are tried; most differences are noise). Sorted by statistic (widest spread first),
    then by z. Effects in points for win rates. These are the changes that close a disagreement; the
    search weighed each against every target and did not take it, so each costs somewhere else."""
    from ..stats import z_value

    cols = ["scenario", "racers", "statistic", "persona", "specific", "knob", "from", "to", "persona_effect",
            "others_effect", "difference", "se", "z", "races"]
    if not len(check) or not len(sens) or "persona" not in check:
        return pd.DataFrame(columns=cols)
    agree = persona_agreement(check, when)
    blocked = agree[~agree.common_shift_meets].sort_values("spread", ascending=False, kind="stable")
    where = check[["design", "persona", "scenario", "racers"]].drop_duplicates("design")
    s = sens.merge(where, on="design")
    s = s.assign(_from=s["from"].astype(str), _to=s["to"].astype(str))
    rows = []
    for r in blocked.itertuples():
        sub = s[(s.scenario == r.scenario) & (s.racers == r.racers) & (s.statistic == r.statistic)]
        scale = 100.0 if r.metric == "win_rate" else 1.0
        found = []
        for (knob, f, t), g in sub.groupby(["knob", "_from", "_to"], sort=False):
            mine, others = g[g.persona == r.worst_persona], g[g.persona != r.worst_persona]
            if len(mine) != 1 or not len(others):
                continue
            # the move's own effect (per_step is per step up; a step down moves the other way)
            k = float(mine.steps.iloc[0])
            ep, eo = mine.per_step.iloc[0] * scale * k, float((others.per_step * others.steps).mean()) * scale
            se = abs(k) * math.sqrt((mine.se_per_step.iloc[0] * scale) ** 2
                                    + float(((others.se_per_step * scale) ** 2).sum()) / len(others) ** 2)
            if not se > 0:
                continue
            toward = -np.sign(r.worst_specific) * (ep - eo) / se      # > 0: closes the gap
            found.append((toward, knob, mine["from"].iloc[0], mine["to"].iloc[0], ep, eo, se,
                          int(mine.races.iloc[0])))
        if not found:
            continue
        z_min = z_value(1 - 2 * alpha / len(found))            # one-sided at alpha / steps measured
        for toward, knob, f, t, ep, eo, se, races in sorted(found, key=lambda x: -x[0]):
            if toward < z_min:
                break
            rows.append({"scenario": r.scenario, "racers": r.racers, "statistic": r.statistic,
                         "persona": r.worst_persona, "specific": r.worst_specific, "knob": knob, "from": f,
                         "to": t, "persona_effect": ep, "others_effect": eo, "difference": ep - eo, "se": se,
                         "z": toward, "races": races})
    return pd.DataFrame(rows, columns=cols)


def levers_text(levers: pd.DataFrame, statistics: int = 5, per: int = 2) -> list[str]:
    """The report's lines: for the widest disagreements, the clearest knob steps that close them."""
    out = []
    for (scen, stat), g in list(levers.groupby(["scenario", "statistic"], sort=False))[:statistics]:
        r = g.iloc[0]
        side = "above" if r.specific > 0 else "below"
        steps = "; ".join(f"{x.knob} {_py(x['from'])!r} -> {_py(x['to'])!r} moves {x.persona} {x.persona_effect:+.1f}, "
                          f"the others {x.others_effect:+.1f} on average (difference {x.difference:+.1f} ± {x.se:.1f})"
                          for _, x in g.head(per).iterrows())
        out.append(f"- {stat} on {scen}, {r.persona} {abs(r.specific):.1f} {side} the personas' mean: {steps}.")
    return out


def persona_text(check: pd.DataFrame, sens: pd.DataFrame | None = None) -> list[str]:
    """The report's lines on how far the personas agree, per axis (biathlete, colour, ...; the first
    word of the statistic), before and after; empty when no statistic is read under two personas.
    With the sensitivities, also the knob steps that move the farthest persona apart from the others
    (persona_levers)."""
    rms = lambda x: float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0  # noqa: E731
    out, a = [], None
    for when in ("before", "after"):
        a = persona_agreement(check, when)
        if not len(a):
            return []
        c = persona_offsets(check, when)
        a = a.assign(axis=np.where(a.metric == "win_rate", a.statistic.str.split().str[0], "race length"))
        for axis, g in a.groupby("axis", sort=False):
            mine = c.merge(g[_PERSONA_KEYS], on=_PERSONA_KEYS)
            per = ", ".join(f"{p} {rms(x.specific):.1f}" for p, x in mine.groupby("persona", sort=False))
            u = "points" if g.metric.iloc[0] == "win_rate" else "rounds"
            n = len(g)
            out.append(f"- {when}, {axis} ({n} statistic{'s' if n != 1 else ''} under {int(g.personas.max())} "
                       f"personas): {int((~g.common_shift_meets).sum())} out of reach of any change that moves "
                       f"every persona alike; shared distance from the band centre {rms(g.shared):.1f} {u} RMS, "
                       f"each persona's own part {per} {u} RMS.")
    blocked = a[~a.common_shift_meets]           # after
    if len(blocked):
        top = blocked.reindex(blocked.spread.sort_values(ascending=False).index).head(5)
        out.append("- widest after: " + "; ".join(
            f"{r.scenario} {r.statistic} (spread {r.spread:.1f}, {r.worst_persona} {r.worst_specific:+.1f} "
            f"from the personas' mean)" for r in top.itertuples()) + ".")
        if sens is not None:
            lev = levers_text(persona_levers(check, sens))
            out += (["- what moves a persona apart from the others (knob steps the search measured, paired, "
                     "clear after Bonferroni over the steps; the search weighed each against every target and "
                     "did not take it):"] + ["  " + line for line in lev]) if lev else \
                ["- no knob step the search measured moves the farthest persona of a disagreement clearly apart "
                 "from the others (paired, Bonferroni over the steps)."]
    return out
