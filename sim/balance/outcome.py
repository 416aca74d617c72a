"""A finished search's outcome: the changed data folder, the changes, the sensitivities and the
before/after check of every target on fresh seeds, written to the search's folder."""
from __future__ import annotations

import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..blocks import blocks_needed
from ..validation import Patch
from .edits import _apply, _element, _entry_field, _header, base_position, knob_value, patches_for
from .scoring import Evaluation, _stat_label, residuals
from .play import play_guided, play_sums
from .page import (changes_text, check_score_text, front_objectives, persona_text, report_text,
    sensitivity_lines)


# --- the outcome: data folder, changes, sensitivities, check ------------------------------------------

@dataclass
class Outcome:
    search: Search          # sim.balance.search.Search (not imported: the search imports this module)
    base: Evaluation
    final: Evaluation

    def changes(self) -> pd.DataFrame:
        """One row per changed element: file, entry, field, old, new, knob, steps."""
        s = self.search
        rows = []
        for knob in s.bf.knobs:
            k0, k = base_position(s.bf, knob), self.final.pos.get(knob.name, base_position(s.bf, knob))
            if k == k0:
                continue
            for m in knob.members:
                old = _element(s.bf.base_docs[m.file], m)
                new = knob_value(s.bf, knob, m, k)
                entry, fld = _entry_field(s.bf.base_docs[m.file], m)
                rows.append({"file": m.file, "entry": entry, "field": fld, "old": old, "new": new,
                             "knob": knob.name, "steps": (k - k0) if not knob.choices else 1,
                             "cost": knob.cost * (abs(k - k0) if not knob.choices else 1)})
        return pd.DataFrame(rows, columns=["file", "entry", "field", "old", "new", "knob", "steps", "cost"])

    def sensitivities(self) -> pd.DataFrame:
        cols = ["knob", "from", "to", "steps", "design", "statistic", "target", "races", "incumbent", "candidate",
                "per_step", "se_per_step"]
        df = pd.DataFrame(self.search.sens_rows, columns=cols)
        # the estimate on the most races for every knob step, design and statistic
        if len(df):
            df["_from"], df["_to"] = df["from"].astype(str), df["to"].astype(str)
            df = df.sort_values("races", kind="stable").drop_duplicates(["knob", "_from", "_to", "design", "statistic"], keep="last")
            df = df.drop(columns=["_from", "_to"]).sort_values(["knob", "design", "statistic"], kind="stable")
        return df.reset_index(drop=True)

    def write_data(self, folder: Path) -> str:
        """The changed data folder (a copy of the base data with the changed files rewritten);
        returns its data hash, checked against the candidate's."""
        s = self.search
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(s.bf.data_dir, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.pyc"))
        patches = patches_for(s.bf, self.final.pos)
        by_file: dict[str, list[Patch]] = {}
        for p in patches:
            by_file.setdefault(p.file, []).append(p)
        changes = self.changes()
        import tomlkit

        for f, ps in by_file.items():
            path = folder / f
            text = path.read_text(encoding="utf-8")
            doc = tomllib.loads(text)
            kept = tomlkit.parse(text)          # the same edits on a parse that keeps every comment
            for p in ps:
                why = _apply(doc, p) or _apply(kept, p)
                if why:
                    raise ValueError(f"{f}: {why}")
            note = [f"# CHANGED by biathlon-sim balance ({s.bf.path.name}): "
                    + "; ".join(f"{r.entry}: {r.field} {r.old!r} -> {r.new!r}"
                                for r in changes[changes.file == f].itertuples())]
            body = tomlkit.dumps(kept)
            head = _header(body)
            new = "\n".join(head + note) + "\n" + body.split("\n", len(head))[-1] if head else \
                "\n".join(note) + "\n\n" + body
            assert tomllib.loads(new) == doc, f"{f}: the rewritten file does not read back the same"
            path.write_text(new, encoding="utf-8")
        written = s.mod.load_bundle(folder)
        return written.data_hash

    def check(self, races: int | None = None) -> pd.DataFrame:
        """Before (base) and after (the search's result) on fresh seeds (each design's check seed),
        paired: every target statistic with its 95% interval, band and whether it is met. The front's
        other points (Search._front) are played on the same races: self.front_check."""
        s = self.search
        races = races or s.bf.check_races
        patches = {"before": [], "after": patches_for(s.bf, self.final.pos)}
        others = [p for p in s.front if p["evaluation"].key != self.final.key]
        for k, p in enumerate(others):
            patches[f"point {k}"] = patches_for(s.bf, p["evaluation"].pos)
        sums, nbs = self._play_check(patches, races)
        check = self._check_rows(sums, nbs, "after")
        fronts = []
        for p in s.front:
            which = "after" if p["evaluation"].key == self.final.key else f"point {others.index(p)}"
            fronts.append(check if which == "after" else self._check_rows(sums, nbs, which))
        self.front_check = fronts
        return check

    def _play_check(self, patches: dict, races: int) -> tuple[dict, dict]:
        """Every design on the base data with each of `patches` (which -> patches), on the check's
        races, in one batch of tasks (play_guided)."""
        s = self.search
        nbs = {d.label: max(1, blocks_needed(races, s.block[d.label])) for d in s.bf.designs}
        sums = {(d.label, which): np.zeros((2, nbs[d.label], len(s.stats[d.label])))
                for d in s.bf.designs for which in patches}
        by_label = {d.label: d for d in s.bf.designs}
        work = [(which, d.label, 0, nbs[d.label], s.block[d.label]) for which in patches for d in s.bf.designs]

        def part(which, label, a, e):
            blk = s.block[label]
            return by_label[label].design, by_label[label].check_seed, a * blk, e * blk, s.stats[label], blk

        for which, label, a, e, _, invalid, arr in play_guided(s.bf.game, s.bf.data, s.base_bundle.data_hash, work,
                                                               patches, part, s.n_jobs, s.scheduler, play_sums):
            if invalid:             # (played by the search already: cannot happen unless the data changed)
                raise RuntimeError(f"the check's data set '{which}' is no longer valid: {invalid}")
            sums[(label, which)][:, a:e] = arr
        return sums, nbs

    def _check_rows(self, sums: dict, nbs: dict, which: str) -> pd.DataFrame:
        """The check's table of `which` (a played bundle) against the base data ("before")."""
        from ..stats import z_value

        s = self.search
        z = z_value(0.95)
        rows = []
        for d in s.bf.designs:
            blk, nb, stats = s.block[d.label], nbs[d.label], s.stats[d.label]
            sums_d = {"before": sums[(d.label, "before")], "after": sums[(d.label, which)]}
            mb, rb = residuals(sums_d["before"], nb)
            ma, ra = residuals(sums_d["after"], nb)
            seb, sea = np.sqrt((rb ** 2).sum(0)), np.sqrt((ra ** 2).sum(0))
            sed = np.sqrt(((ra - rb) ** 2).sum(0))
            played = (sums_d["before"][1].sum(0) > 0) | (sums_d["after"][1].sum(0) > 0)
            for j, st in enumerate(stats):
                # no target reads it, or a value no race seated; a target of weight 0 is only measured
                if not s.scoring.target[d.label][j] or not played[j]:
                    continue
                lo, hi = s.scoring.lo[d.label][j], s.scoring.hi[d.label][j]
                rows.append({"target": s.scoring.target[d.label][j], "design": d.label, "scenario": d.scenario,
                             "racers": d.racers, "persona": d.persona, "role": s.scoring.role[d.label],
                             "statistic": _stat_label(st),
                             "metric": st.metric, "band_low": lo, "band_high": hi, "races": nb * blk,
                             "seed": d.check_seed, "before": mb[j], "before_low": mb[j] - z * seb[j],
                             "before_high": mb[j] + z * seb[j], "after": ma[j], "after_low": ma[j] - z * sea[j],
                             "after_high": ma[j] + z * sea[j], "change": ma[j] - mb[j],
                             "change_low": ma[j] - mb[j] - z * sed[j], "change_high": ma[j] - mb[j] + z * sed[j],
                             "met_before": bool(lo <= mb[j] <= hi), "met_after": bool(lo <= ma[j] <= hi),
                             "weight": float(s.scoring.weight[d.label][j])})
        return pd.DataFrame(rows)

    def front_table(self) -> pd.DataFrame:
        """One row per point of the front (Search._front): its two objectives on the search's races and
        on the check's fresh races, the targets in band there, its change cost and its data changes."""
        s = self.search
        rows = []
        for k, (p, chk) in enumerate(zip(s.front, getattr(self, "front_check", [None] * len(s.front)))):
            ev, base = p["evaluation"], s.values({})
            moved = {n: v for n, v in s.values(ev.pos).items() if v != base[n]}
            row = {"point": k + 1, "nearest": p["nearest"], "headline": p["headline"],
                   "worst_persona": p["worst_persona"], "worst": p["worst"], "cost": p["cost"],
                   "changes": "; ".join(f"{n} {base[n]!r} -> {v!r}" for n, v in moved.items()) or "none"}
            if chk is not None and len(chk):
                head, worst, who = front_objectives(chk)
                rate = chk.metric == "win_rate"
                binds = chk[(chk.role == "binds") & (chk.weight > 0)]
                bounds = chk[(chk.role == "bounds") & (chk.weight > 0)]
                off = ((chk.after - (chk.band_low + chk.band_high) / 2).abs() * 100)[rate & (chk.role == "binds")]
                row.update({"check_headline": head, "check_worst_persona": who, "check_worst": worst,
                            "binding_in_band": f"{int(binds.met_after.sum())} of {len(binds)}",
                            "bound_in_band": f"{int(bounds.met_after.sum())} of {len(bounds)}",
                            "binding_largest_pp": float(off.max()) if len(off) else float("nan")})
            rows.append(row)
        return pd.DataFrame(rows)

    def write(self, check_races: int | None = None) -> tuple[dict, dict]:
        """Every table and text into the search's folder: returns their paths, and the arguments of
        the HTML page after its folder (reports.pages.balance_page, which the command line writes:
        the core hands reports tables and never imports them)."""
        s = self.search
        out = s.out
        changes = self.changes()
        changes.to_csv(out / "changes.csv", index=False)
        data_hash = self.write_data(out / "data")
        if self.final.bundle_hash and data_hash != self.final.bundle_hash:
            raise RuntimeError(f"the written data folder reads as {data_hash}, the searched data as "
                               f"{self.final.bundle_hash}")
        sens = self.sensitivities()
        sens.to_csv(out / "sensitivities.csv", index=False)
        check = self.check(check_races)
        check.to_csv(out / "targets.csv", index=False)
        front = self.front_table()
        if len(front):
            front.to_csv(out / "front.csv", index=False)
            pd.concat([c.assign(point=k + 1) for k, c in enumerate(self.front_check)]).to_csv(
                out / "front_targets.csv", index=False)
        (out / "changes.md").write_text(changes_text(changes))
        agree = persona_text(check, sens)
        scored = check_score_text(check, s.target_score(self.base), s.target_score(self.final))
        (out / "report.md").write_text(report_text(self, changes, check, sens, data_hash, agree, scored, front))
        page = {"description": f"{s.bf.title} ({s.info.title}; balance file {s.bf.path.name})",
                "changes": changes, "check": check, "sens": sens,
                "sensitivity_lines": sensitivity_lines(sens, changes), "agreement": agree, "front": front,
                "meta": [f"Search: {s.races_used:,} races; stopped: {s.stopped}.",
                         f"Score before {s.total(self.base):.3f}, after {s.total(self.final):.3f} "
                         f"(on the search's races).", scored]}
        paths = {"data": out / "data", "changes": out / "changes.md", "targets": out / "targets.csv",
                 "sensitivities": out / "sensitivities.csv", "report": out / "report.md"}
        if len(front):
            paths.update({"front": out / "front.csv", "front_targets": out / "front_targets.csv"})
        return paths, page
