"""The search: greedy coordinate descent over knob steps on common random numbers, every
evaluation logged so that a rerun resumes (the package docstring says how)."""
from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import games
from ..blocks import blocks_needed
from ..seeds import cell_seed
from .spec import BalanceFile, DesignSpec, Knob
from .edits import allowed, base_position, change_cost, knob_value, patches_for
from .scoring import (Evaluation, _stat_label, design_stats, make_scoring, objectives, paired_difference, pareto,
    residuals, score_of)
from .play import BATCH, STAGES, play_guided, play_sums
from .outcome import Outcome

FORMAT = 1


class Search:
    """The balance search on one balance file and one output folder (module docstring)."""

    def __init__(self, bf: BalanceFile, out: str | Path, *, n_jobs: int = 1, budget_races: int | None = None,
                 budget_minutes: float | None = None, races: int | None = None, log: Callable[[str], None] = print,
                 scheduler: str | None = None):
        self.bf = bf
        self.out = Path(out)
        self.n_jobs = n_jobs
        self.scheduler = scheduler          # a dask.distributed scheduler's address: play there
        self.log = log
        self.budget_races = bf.budget_races if budget_races is None else budget_races
        self.budget_minutes = bf.budget_minutes if budget_minutes is None else budget_minutes
        self.info = games.game(bf.game)
        self.mod = self.info.load()
        self.base_bundle = self.mod.load_bundle(bf.data)
        self.block = {d.label: self.mod.block(self.base_bundle, d.design) for d in bf.designs}
        races = bf.races if races is None else races
        self.n_blocks = {k: max(1, blocks_needed(races, b)) for k, b in self.block.items()}
        self.stats = {d.label: design_stats(bf, self.mod, self.base_bundle, d) for d in bf.designs}
        self.scoring = make_scoring(bf, self.stats)
        self.evals: dict[str, Evaluation] = {}
        self.engine = engine_hash(bf.game)
        self.races_used = 0                 # races of every evaluation the search asked for (the budget)
        self.races_played = 0               # of which played in this call (not read from the log)
        self.started = time.perf_counter()
        self.stopped = ""
        self.steps: list[dict] = []
        self.tried = {"played in full": 0, "dropped early": 0, "invalid data": 0}
        self.sens_rows: list[dict] = []
        self.epoch = 0                      # the round whose races are played (fresh_rounds), 0: the file's seeds
        self.confirming = 0                 # confirm: the round whose confirmation races are played, 0: none
        self.confirmation: dict = {}        # ... and the last step's paired difference there
        self.full_se: list[float] = []      # se of every fully played candidate's paired difference
        if bf.confirm:
            self.tried.update({"confirmed": 0, "not confirmed": 0})
        (self.out / "evals").mkdir(parents=True, exist_ok=True)
        self._read_log()

    # -- identity and the log
    def seed_of(self, d: DesignSpec, confirming: int | None = None) -> int:
        """The seed of design d's races now: its own, or with fresh_rounds from round 2 on, one of the
        round's (every candidate of a round plays the same races, each round new ones); with confirm,
        while a step is confirmed, the round's confirmation races (_confirmed)."""
        confirming = self.confirming if confirming is None else confirming
        if confirming:
            return cell_seed(d.seed, f"confirm {confirming}")
        return d.seed if not self.epoch else cell_seed(d.seed, f"round {self.epoch + 1}")

    def key(self, pos: dict[str, int], confirming: int | None = None) -> str:
        moved = {k: v for k, v in sorted(pos.items())
                 if v != base_position(self.bf, next(x for x in self.bf.knobs if x.name == k))}
        patches = [(p.file, p.path, p.value) for p in patches_for(self.bf, moved)]
        ident = {"format": FORMAT, "game": self.bf.game, "engine": self.engine, "base": self.base_bundle.data_hash,
                 "patches": patches,
                 "designs": [(d.label, self.mod.design_dict(d.design), self.seed_of(d, confirming))
                             for d in self.bf.designs],
                 "block": self.block,
                 "stats": {k: [(s.metric, s.by, s.value) for s in v] for k, v in self.stats.items()}}
        return hashlib.blake2b(json.dumps(ident, sort_keys=True, default=str).encode(), digest_size=10).hexdigest()

    def _read_log(self) -> None:
        path = self.out / "log.jsonl"
        self.logged: dict[str, dict] = {}
        if not path.exists():
            return
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue                      # a line cut by an interruption
            if entry.get("event") == "evaluation":
                self.logged[entry["key"]] = entry

    def _write_log(self, entry: dict) -> None:
        path = self.out / "log.jsonl"
        cut = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
        with open(path, "a") as f:
            # a line cut by an interruption stays a line of its own (it is skipped on reading)
            f.write(("\n" if cut else "") + json.dumps(entry, default=_json_default) + "\n")

    def _load_eval(self, key: str, pos: dict[str, int]) -> Evaluation | None:
        entry = self.logged.get(key)
        if entry is None:
            return None
        if entry.get("invalid"):
            return Evaluation(key, pos, {}, {}, entry["invalid"])
        f = self.out / "evals" / f"{key}.npz"
        if not f.exists():
            return None
        z = np.load(f)
        sums, blocks = {}, {}
        for i, d in enumerate(self.bf.designs):
            # another --races than the logged evaluation's: keep its first blocks, room for more
            n = self.n_blocks[d.label]
            arr = np.zeros((2, n, len(self.stats[d.label])))
            have = z[f"d{i}"][:, :n]
            arr[:, :have.shape[1]] = have
            sums[d.label] = arr
            blocks[d.label] = min(int(entry["blocks"][d.label]), n)
        return Evaluation(key, pos, sums, blocks, "", entry.get("data_hash", ""))

    # -- playing
    def evaluate(self, pos: dict[str, int], blocks: dict[str, int]) -> Evaluation:
        """The candidate at `pos`, played (or read from the log) up to `blocks` blocks per design."""
        return self.evaluate_many([(pos, blocks)])[0]

    def evaluate_many(self, wanted: list[tuple]) -> list[Evaluation]:
        """Every (pos, blocks) of `wanted` played (or read from the log) up to its blocks per design,
        all in one batch of tasks, so that many candidates keep many workers busy (one candidate's
        quarter-evaluation is too little to share among more than a few). A candidate's races do
        not depend on the batch: race i of a design is the same race whatever plays it. An item
        (pos, blocks, N) plays round N's confirmation races instead of the round's (_confirmed)."""
        evs: list[Evaluation] = []
        todo: dict[str, tuple[Evaluation, dict[str, int]]] = {}
        conf: dict[str, int] = {}
        for pos, blocks, *on in wanted:
            c = on[0] if on else self.confirming
            ev = self._evaluation(pos, c)
            evs.append(ev)
            if ev.invalid:
                continue
            want = {k: min(v, self.n_blocks[k]) for k, v in blocks.items()}
            if ev.key in todo:          # asked twice in one batch: the more races of the two
                want = {k: max(v, todo[ev.key][1].get(k, 0)) for k, v in want.items()}
            if not ev.complete(want):
                todo[ev.key] = (ev, want)
                conf[ev.key] = c
        # the work: every candidate's missing blocks of every design, cut into tasks of decreasing
        # size (guided_tasks); each task loads the data of the candidates it plays on the worker
        # (candidate_bundle keeps it there for the candidate's next task). A candidate's races do not
        # depend on how they are cut: its block sums are the same whatever the tasks or workers.
        work = [(ev.key, d.label, ev.blocks[d.label], want[d.label], self.block[d.label])
                for ev, want in todo.values() for d in self.bf.designs if want[d.label] > ev.blocks[d.label]]
        by_label = {d.label: d for d in self.bf.designs}

        def part(key, label, a, e):
            blk = self.block[label]
            return (by_label[label].design, self.seed_of(by_label[label], conf[key]), a * blk, e * blk,
                    self.stats[label], blk)

        left = {key: 0 for key in todo}             # blocks still to come back, per candidate
        for key, _, b0, b1, _ in work:
            left[key] += b1 - b0
        patches = {key: patches_for(self.bf, ev.pos) for key, (ev, _) in todo.items()}
        for key, label, a, e, data_hash, invalid, arr in play_guided(
                self.bf.game, self.bf.data, self.base_bundle.data_hash, work, patches, part, self.n_jobs,
                self.scheduler, play_sums):
            ev, want = todo[key]
            left[key] -= e - a
            if invalid:
                if not ev.invalid:
                    ev.invalid = invalid
                    self._log_eval(ev)
                continue
            ev.bundle_hash = data_hash
            ev.sums[label][:, a:e] = arr
            self.races_used += (e - a) * self.block[label]
            self.races_played += (e - a) * self.block[label]
            if not left[key]:           # logged as soon as played: an interruption loses no finished one
                for lab in want:
                    ev.blocks[lab] = max(ev.blocks[lab], want[lab])
                self._log_eval(ev)
        return evs

    def _evaluation(self, pos: dict[str, int], confirming: int | None = None) -> Evaluation:
        """The evaluation of `pos` so far: in memory, read from the log, or new (nothing played); on
        round N's confirmation races when confirming is N (default: the races played now)."""
        confirming = self.confirming if confirming is None else confirming
        key = self.key(pos, confirming)
        ev = self.evals.get(key)
        if ev is None:
            ev = self._load_eval(key, pos)
            if ev is not None:      # races a rerun finds in the log count as in the first run
                self.races_used += sum(ev.blocks.get(k, 0) * b for k, b in self.block.items())
        if ev is None:
            ev = Evaluation(key, pos, {d.label: np.zeros((2, self.n_blocks[d.label], len(self.stats[d.label])))
                                       for d in self.bf.designs}, {d.label: 0 for d in self.bf.designs})
        ev.races = (self.epoch, confirming)
        self.evals[key] = ev
        return ev

    def _log_eval(self, ev: Evaluation) -> None:
        if not ev.invalid:
            tmp = self.out / "evals" / f"{ev.key}.tmp.npz"
            np.savez_compressed(tmp, **{f"d{i}": ev.sums[d.label] for i, d in enumerate(self.bf.designs)})
            tmp.replace(self.out / "evals" / f"{ev.key}.npz")
        entry = {"event": "evaluation", "key": ev.key, "knobs": self.values(ev.pos), "steps": ev.pos,
                 "blocks": ev.blocks, "invalid": ev.invalid, "data_hash": ev.bundle_hash}
        if not ev.invalid:
            entry["score"] = self.total(ev)
            entry["cost"] = change_cost(self.bf, ev.pos)
        self.logged[ev.key] = entry
        self._write_log(entry)

    def values(self, pos: dict[str, int]) -> dict[str, Any]:
        return {knob.name: self.value(pos, knob) for knob in self.bf.knobs}

    def value(self, pos: dict[str, int], knob: Knob) -> Any:
        """The value `knob` (its first member) has at `pos`."""
        return knob_value(self.bf, knob, knob.members[0], pos.get(knob.name, base_position(self.bf, knob)))

    # -- scores
    def target_score(self, ev: Evaluation, blocks: dict[str, int] | None = None) -> float:
        sums = {k: v[:, :(blocks or ev.blocks)[k]] for k, v in ev.sums.items()}
        return score_of(self.scoring, sums)[0]

    def total(self, ev: Evaluation, blocks: dict[str, int] | None = None) -> float:
        return self.target_score(ev, blocks) + self.bf.cost_weight * change_cost(self.bf, ev.pos)

    def paired(self, cand: Evaluation, inc: Evaluation, blocks: dict[str, int]) -> tuple[float, float]:
        """(score difference candidate - incumbent, its standard error) on the same first blocks."""
        sc = {k: v[:, :blocks[k]] for k, v in cand.sums.items()}
        si = {k: v[:, :blocks[k]] for k, v in inc.sums.items()}
        cost = self.bf.cost_weight * (change_cost(self.bf, cand.pos) - change_cost(self.bf, inc.pos))
        return paired_difference(self.scoring, sc, si, cost)

    # -- the search
    def out_of_budget(self) -> str:
        if self.races_used >= self.budget_races:
            return f"the race budget ({self.budget_races:,} races) is spent"
        if self.budget_minutes and time.perf_counter() - self.started > 60 * self.budget_minutes:
            return f"the time budget ({self.budget_minutes:g} minutes) is spent"
        return ""

    def neighbours(self, pos: dict[str, int]) -> list[tuple[Knob, int]]:
        out = []
        for knob in self.bf.knobs:
            if knob.hold:                   # [start] sets it; the search never moves it
                continue
            k = pos.get(knob.name, base_position(self.bf, knob))
            moves = [j for j in range(len(knob.choices)) if j != k] if knob.choices else [k - 1, k + 1]
            out += [(knob, j) for j in moves if allowed(self.bf, knob, j)]
        return out

    def run(self) -> "Outcome":
        """The search (module docstring): rounds of single steps from the incumbent; the best
        improving step is taken, then the other improving steps, each on top of the new incumbent
        and kept only if it still improves (knobs of different entrants barely interact, so one
        round usually takes several steps)."""
        from ..stats import z_value

        bf = self.bf
        early = len(STAGES) - 1
        self.z_drop = z_value(1 - 2 * bf.alpha / early) if early else math.inf   # one-sided at alpha / looks
        start = {k.name: base_position(bf, k) for k in bf.knobs}
        first = [(start, self.n_blocks)] + ([({**start, **bf.start}, self.n_blocks)] if bf.start else [])
        inc, *started = self.evaluate_many(first)
        base = inc
        self.log(f"base: score {self.total(inc):.3f} ({self._met_text(inc)})")
        if bf.start:
            inc = started[0]
            self.log(f"start ([start] of the file): score {self.total(inc):.3f} ({self._met_text(inc)})")
        self.unreachable: list[dict] = []
        self.front: list[dict] = []
        self.front_legs: list[dict] = []
        inc = self._descend(inc, 0, bf.max_rounds, bf.fresh_rounds)
        if self.epoch:          # before and after on the same races: the last round's
            base = self.evaluate(base.pos, self.n_blocks)
        final = self._front(inc) if bf.binds is not None else inc
        self._write_log({"event": "end", "incumbent": final.key, "stopped": self.stopped, "races": self.races_used})
        return Outcome(self, base, final)

    def _descend(self, inc: Evaluation, first: int, rounds: int, fresh: bool) -> Evaluation:
        """Rounds first+1 .. first+rounds of the descent from `inc` (run's docstring); the incumbent
        at the end. fresh: every round after the first plays new races (fresh_rounds)."""
        bf = self.bf
        before_round, idle = inc, 0        # idle: rounds in a row that took no step (confirm)
        for rnd in range(first, first + rounds):
            self.rounds_done = rnd
            if (why := self.out_of_budget()):
                self.stopped = why
                break
            if fresh and rnd:
                inc = self._fresh_races(rnd, inc, before_round)
            before_round = inc
            tried = self.neighbours(inc.pos)
            played = list(zip(tried, self._try_many(inc, tried)))
            if rnd == 0 and bf.binds is not None:
                self._set_unreachable(inc, tried)       # (the scores below without what is out of reach)
            improving = sorted(((self.total(cand), knob.name, knob, j, cand) for (knob, j), cand in played
                                if cand is not None and self.total(cand) < self.total(inc) - 1e-12),
                               key=lambda x: (x[0], x[1]))
            # the model step: every neighbour's paired effects, added up, propose a move of several
            # knobs at once (what single steps cannot find when each one overshoots)
            model, effect, proposals = None, {}, []
            if bf.model_steps and not self.stopped:
                effect = self.effects(inc, tried)
                proposals = self.model_proposals(inc, tried, effect)
            # one queue: the model's proposals, the further steps on top of the best single step and
            # the confirmations of the improving steps play side by side (_prefetch); the decisions
            # below then read them, in the order a search one step at a time takes them
            if not self.stopped:
                ahead = [(p, inc) for p in proposals]
                if improving:
                    best = improving[0][4]
                    ahead += [({**best.pos, k.name: j}, best) for _, _, k, j, _ in improving[1:]
                              if k.name != improving[0][2].name]
                self._prefetch(ahead, self._confirmations(rnd, inc, [c.pos for *_, c in improving]))
            if proposals:
                model = self._play_proposals(inc, proposals, "model step")
            best_single = improving[0][0] if improving else self.total(inc) - 1e-12
            if (model is not None and self.total(model) < min(best_single, self.total(inc) - 1e-12)
                    and self._confirmed(rnd, inc, model, "model step")):
                self._step_many(rnd, inc, model)
                # further model steps on the same effects (each one evaluation), while they pay
                around, inc = inc.pos, model
                for _ in range(bf.model_repeats):
                    if self.out_of_budget():
                        break
                    best = self._play_proposals(
                        inc, self.model_proposals(inc, [], self.moved_effects(effect, around, inc.pos)),
                        "model step again")
                    if (best is None or self.total(best) >= self.total(inc) - 1e-12
                            or not self._confirmed(rnd, inc, best, "model step again")):
                        break
                    self._step_many(rnd, inc, best)
                    inc = best
                self.log(f"round {rnd + 1}: score {self.total(inc):.3f} ({self._met_text(inc)})")
                idle = 0
                continue
            if not improving:
                if not self.stopped:
                    self.stopped = "no single step improves the score (a local optimum)"
                break
            # the best improving step, then the others, each on top of the steps taken and kept
            # only if it still improves there (and, with confirm, wins on races of its own)
            new, moved = inc, set()
            for i, (_, _, knob, j, cand) in enumerate(improving):
                if knob.name in moved or (i and self.out_of_budget()):
                    continue
                if new is not inc:
                    cand = self._try(new, knob, j)
                    if cand is None or self.total(cand) >= self.total(new) - 1e-12:
                        continue
                if bf.confirm:          # this step's confirmation, and those of the later ones that improve
                    later = [self._improving_on(new, k, q) for _, _, k, q, _ in improving[i + 1:]
                             if k.name not in moved and k.name != knob.name]
                    self._prefetch([], self._confirmations(rnd, new, [cand.pos, *filter(None, later)]))
                if not self._confirmed(rnd, new, cand, knob.name):
                    continue
                self._step(rnd, knob, new, cand)
                moved.add(knob.name)
                new = cand
                # the later steps, now on top of this one, side by side
                self._prefetch([({**new.pos, k.name: q}, new) for _, _, k, q, _ in improving[i + 1:]
                                if k.name not in moved], [])
            idle = 0 if new is not inc else idle + 1
            inc = new
            self.log(f"round {rnd + 1}: score {self.total(inc):.3f} ({self._met_text(inc)})")
            if self.stopped:
                break
            if idle and (not bf.fresh_rounds or idle > 1):
                # (confirm alone: the same races would propose the same steps again; with fresh
                # rounds one more round on new races gets its chance)
                self.stopped = ("no improving step won on races of its own"
                                + (" in two rounds in a row" if bf.fresh_rounds else "") + " (a local optimum, "
                                "as far as the races can tell)")
                break
        else:
            self.stopped = f"the most rounds ({rounds}) are played"
        return inc


    def _set_unreachable(self, inc: Evaluation, tried: list[tuple[Knob, int]]) -> bool:
        """A bound persona's statistic that no change of the knobs can bring into its band is reported,
        not searched for: its weight becomes 0. Out of reach means: even with every knob moved as far
        as its bounds allow in the direction that helps, each at its clear first step's effect per step
        (|effect| over 2 standard errors, paired, on the round's races) and the effects added up (an
        optimistic linear bound), the statistic stays outside its band. True when any was set aside."""
        bf = self.bf
        means = score_of(self.scoring, inc.sums)[2]
        reach = {lab: np.zeros((2, len(st))) for lab, st in self.stats.items()}   # [lower by, raise by]
        for knob in bf.knobs:
            p = inc.pos.get(knob.name, base_position(bf, knob))
            best = {lab: np.zeros((2, len(st))) for lab, st in self.stats.items()}
            for k2, j in tried:
                ev = self.evals.get(self.key({**inc.pos, knob.name: j})) if k2 is knob else None
                if ev is None or ev.invalid:
                    continue
                span = 1
                if not knob.choices:
                    while span < 1000 and allowed(bf, knob, p + (j - p) * (span + 1)):
                        span += 1
                for lab in self.stats:
                    n = min(ev.blocks[lab], inc.blocks[lab])
                    if n < 1:
                        continue
                    mc, rc = residuals(ev.sums[lab], n)
                    mi, ri = residuals(inc.sums[lab], n)
                    d, se = mc - mi, np.sqrt(((rc - ri) ** 2).sum(0))
                    move = np.nan_to_num(np.where(np.abs(d) > 2 * se, d, 0.0)) * span
                    best[lab][0] = np.maximum(best[lab][0], -np.minimum(move, 0))
                    best[lab][1] = np.maximum(best[lab][1], np.maximum(move, 0))
            for lab in reach:
                reach[lab] += best[lab]
        found = False
        for lab, stats in self.stats.items():
            if self.scoring.role[lab] != "bounds":
                continue
            for j, st in enumerate(stats):
                m, lo, hi = means[lab][j], self.scoring.lo[lab][j], self.scoring.hi[lab][j]
                if self.scoring.weight[lab][j] == 0 or np.isnan(m):
                    continue
                gap, can = (lo - m, reach[lab][1][j]) if m < lo else (m - hi, reach[lab][0][j])
                if gap > 0 and gap > can:
                    self.scoring.weight[lab][j] = 0.0
                    self.unreachable.append({"persona": self.scoring.persona[lab], "design": lab,
                                             "statistic": _stat_label(st), "value": float(m), "low": float(lo),
                                             "high": float(hi), "gap": float(gap), "reach": float(can)})
                    self.log(f"out of reach, not searched for: {lab} {_stat_label(st)} at {m:.3f}, "
                             f"{gap:.3f} outside [{lo:.3f}, {hi:.3f}]; every knob together moves it at most {can:.3f}")
                    found = True
        return found

    def _front(self, result: Evaluation) -> Evaluation:
        """The Pareto front between the headline (the binding player's targets) and the worst bound
        persona's targets (scoring.objectives). When the result leaves targets unmet, further
        descents start from it with the bound personas' weight times each of the file's front weights
        (0: the binding player alone; more: robustness first), each on the same races, its own race
        budget and at most front_rounds rounds. The front is then every candidate played in full on
        those races that no other beats on both objectives; at most front_points of them are kept (the
        two ends, the nearest and others spread between). The point nearest to the targets (the least
        sum of the two; change cost breaks ties) is the result. Returns it."""
        bf = self.bf
        head, worst, _ = objectives(self.scoring, result.sums)
        if (head > 0 or worst > 0) and bf.front_weights:
            keep = (self.scoring, self.steps, self.stopped, self.budget_races, self.budget_minutes)
            for f in bf.front_weights:
                self.scoring, self.steps, self.stopped = keep[0].reweighted(f), [], ""
                self.budget_races, self.budget_minutes = self.races_used + bf.front_budget_races, 0
                self.log(f"front: the bound personas' weight x{f:g}, from the result")
                end = self._descend(result, self.rounds_done + 1, bf.front_rounds, False)
                self.front_legs.append({"weight": f, "steps": self.steps, "stopped": self.stopped,
                                        "end": end.key})
            self.scoring, self.steps, self.stopped, self.budget_races, self.budget_minutes = keep
        cands = [ev for ev in self.evals.values()
                 if not ev.invalid and ev.races == result.races and ev.complete(self.n_blocks)]
        points = [(*objectives(self.scoring, ev.sums), change_cost(bf, ev.pos)) for ev in cands]
        idx = pareto([(h, w, c) for h, w, _, c in points])
        near = min(idx, key=lambda i: (points[i][0] + points[i][1], points[i][3], i))
        order = list(range(len(idx)))
        if len(idx) > bf.front_points:
            must = {0, len(idx) - 1, idx.index(near)}
            fill = [int(round(x)) for x in np.linspace(0, len(idx) - 1, bf.front_points)]
            extra = [k for k in dict.fromkeys(fill) if k not in must]
            order = sorted(must | set(extra[:max(0, bf.front_points - len(must))]))
        self.front = [{"evaluation": cands[idx[k]], "headline": points[idx[k]][0], "worst": points[idx[k]][1],
                       "worst_persona": points[idx[k]][2], "cost": points[idx[k]][3], "nearest": idx[k] == near}
                      for k in order]
        self.log(f"front: {len(idx)} point{'s' if len(idx) != 1 else ''} that no other beats on both the headline "
                 f"and the worst bound persona; the nearest to the targets: headline {points[near][0]:.3f}, worst "
                 f"persona {points[near][2]} {points[near][1]:.3f}")
        return cands[near]

    def _fresh_races(self, rnd: int, inc: Evaluation, before: Evaluation) -> Evaluation:
        """fresh_rounds: round rnd + 1 plays new races. The incumbent, and the incumbent the last
        round started from, are played on them; when the older one scores better there, the last
        round's moves were the luck of its races, and they are undone."""
        self.epoch = rnd
        if before.pos == inc.pos:
            new = self.evaluate(inc.pos, self.n_blocks)
            self.log(f"round {rnd + 1} plays new races: incumbent score {self.total(new):.3f}")
            return new
        new, old = self.evaluate_many([(inc.pos, self.n_blocks), (before.pos, self.n_blocks)])
        if self.total(old) < self.total(new):
            va, vb = self.values(inc.pos), self.values(old.pos)
            for name in va:
                if va[name] != vb[name]:
                    self.steps.append({"round": rnd + 1, "knob": name, "from": va[name], "to": vb[name],
                                       "score": self.total(old), "undone": True})
            self.log(f"round {rnd + 1} plays new races: round {rnd}'s moves lose there ({self.total(new):.3f} "
                     f"against {self.total(old):.3f} before them) and are undone")
            return old
        self.log(f"round {rnd + 1} plays new races: round {rnd}'s moves hold ({self.total(new):.3f} against "
                 f"{self.total(old):.3f} before them)")
        return new

    def _confirmed(self, rnd: int, inc: Evaluation, cand: Evaluation, what: str) -> bool:
        """confirm: the step from `inc` to `cand` (chosen as the best of many on the round's races,
        so its gain there is partly their luck) is taken only when `cand` also beats `inc` on races
        of its own, the round's confirmation races (seed cell_seed(design seed, "confirm N")), by
        more than confirm_z standard errors of the paired difference. Both are played in full there
        (the incumbent once a round: it is the last step's candidate). Always True without confirm."""
        if not self.bf.confirm:
            return True
        self.confirming = rnd + 1
        try:
            ci, cc = self.evaluate_many([(inc.pos, self.n_blocks), (cand.pos, self.n_blocks)])
        finally:
            self.confirming = 0
        if cc.invalid or ci.invalid:        # (cannot happen: both were played on the round's races)
            return False
        diff, se = self.paired(cc, ci, self.n_blocks)
        ok = diff < -self.bf.confirm_z * se and diff < 0
        self.confirmation = {"confirm_difference": diff, "confirm_se": se}
        self.tried["confirmed" if ok else "not confirmed"] += 1
        self.log(f"  {what}: {'confirmed' if ok else 'not confirmed'} on races of its own (paired score "
                 f"difference {diff:+.3f}, se {se:.3f})")
        return ok

    def _confirmations(self, rnd: int, inc: Evaluation, positions: list[dict[str, int]]) -> list[tuple]:
        """With confirm: the evaluations that confirm steps from `inc` to each of `positions` need
        (both in full on round rnd + 1's confirmation races); nothing without confirm."""
        if not self.bf.confirm or not positions:
            return []
        return [(p, self.n_blocks, rnd + 1) for p in [inc.pos, *positions[:BATCH]]]

    def _improving_on(self, new: Evaluation, knob: Knob, j: int) -> dict[str, int] | None:
        """`new` with knob at j, when it is already played in full and scores below `new`."""
        ev = self.evals.get(self.key({**new.pos, knob.name: j}))
        if ev is None or ev.invalid or not ev.complete(self.n_blocks):
            return None
        return ev.pos if self.total(ev) < self.total(new) - 1e-12 else None

    def _prefetch(self, cands: list[tuple[dict[str, int], Evaluation]], full: list[tuple]) -> None:
        """Play ahead, side by side, what the search is likely to ask for next: each candidate
        (pos, its incumbent) stage by stage with the same early drops as _try_batch, and the items
        of `full` (evaluate_many's) in full, all in one queue over the workers. Nothing is decided
        or logged here: the search's decisions then read these evaluations as if played one by one,
        so its path is the same; what speculation played and was not needed counts towards the
        race budget like any race."""
        if (not cands and not full) or self.out_of_budget():
            return
        early = len(STAGES) - 1
        alive = list(range(len(cands)))
        for s, frac in enumerate(STAGES):
            if not alive and (s or not full):
                break
            blocks = {k: max(1, int(round(frac * v))) for k, v in self.n_blocks.items()}
            evs = self.evaluate_many([(cands[i][0], blocks) for i in alive] + (full if s == 0 else []))
            still = []
            for i, cand in zip(alive, evs):
                if cand.invalid:
                    continue
                diff, se = self.paired(cand, cands[i][1], blocks)
                if s < early and (diff > self.z_drop * se if se > 0 else diff > 0):
                    continue
                still.append(i)
            alive = still

    def _try(self, inc: Evaluation, knob: Knob, j: int) -> Evaluation | None:
        """The incumbent with `knob` at position j, played stage by stage against the incumbent on
        the same races; None when the data is invalid or the candidate is dropped early."""
        return self._try_many(inc, [(knob, j)])[0]

    def _try_many(self, inc: Evaluation, moves: list[tuple[Knob, int]]) -> list[Evaluation | None]:
        """_try for each (knob, j) of `moves`, played side by side (_try_batch)."""
        cands = []
        for knob, j in moves:
            pos = {**inc.pos, knob.name: j}
            cands.append((pos, f"  {knob.name} -> {self.value(pos, knob)!r}", knob))
        return self._try_batch(inc, cands)

    def _play_proposals(self, inc: Evaluation, proposals: list[dict[str, int]], what: str) -> Evaluation | None:
        """Each proposal played like a candidate against the incumbent; the best that survives, or None."""
        best = None
        cands = [(p, f"  {what} " + self._moves_text(inc.pos, p), None) for p in proposals]
        for cand in self._try_batch(inc, cands):
            if cand is not None and (best is None or self.total(cand) < self.total(best)):
                best = cand
        return best

    def _moves_text(self, a: dict[str, int], b: dict[str, int]) -> str:
        va, vb = self.values(a), self.values(b)
        return ", ".join(f"{k} {va[k]!r} -> {vb[k]!r}" for k in vb if va[k] != vb[k])

    def _try_batch(self, inc: Evaluation, cands: list[tuple[dict[str, int], str, Knob | None]]) -> list[Evaluation | None]:
        """Each candidate (pos, how the log shows it, the knob it steps or None) played stage by
        stage against the incumbent on the same races: a stage of every candidate still in play is
        one batch of tasks (evaluate_many), then each is judged on its own as if played alone.
        Candidates go in groups of BATCH, whatever the number of workers, and the budget is checked
        before each group: where a budget stops the search does not depend on --jobs. Returns, per
        candidate, its evaluation played in full, or None (invalid data, dropped early, or not
        played because the budget is spent)."""
        early = len(STAGES) - 1
        out: list[Evaluation | None] = [None] * len(cands)
        for g0 in range(0, len(cands), BATCH):
            if (why := self.out_of_budget()):
                self.stopped = why
                break
            alive = list(range(g0, min(g0 + BATCH, len(cands))))
            for s, frac in enumerate(STAGES):
                blocks = {k: max(1, int(round(frac * v))) for k, v in self.n_blocks.items()}
                evs = self.evaluate_many([(cands[i][0], blocks) for i in alive])
                still = []
                for i, cand in zip(alive, evs):
                    pos, shown, knob = cands[i]
                    if cand.invalid:
                        self.log(f"{shown}: invalid data ({cand.invalid})")
                        self.tried["invalid data"] += 1
                        continue
                    diff, se = self.paired(cand, inc, blocks)
                    if knob is not None:
                        self._sensitivity(knob, inc, cand, blocks)
                    if s < early and (diff > self.z_drop * se if se > 0 else diff > 0):
                        self.log(f"{shown}: dropped after {frac:.0%} of the races (paired score difference "
                                 f"{diff:+.3f}, se {se:.3f})")
                        self.tried["dropped early"] += 1
                        continue
                    if s == early:
                        self.tried["played in full"] += 1
                        self.full_se.append(se)
                        self.log(f"{shown}: score {self.total(cand):.3f} (incumbent {self.total(inc):.3f}; "
                                 f"paired difference {diff:+.3f}, se {se:.3f})")
                        out[i] = cand
                    still.append(i)
                alive = still
        return out

    def effects(self, inc: Evaluation, tried: list[tuple[Knob, int]]) -> dict[tuple[str, int], dict[str, np.ndarray]]:
        """(knob, position) -> the paired change of every statistic per design from the incumbent to
        that neighbour, on the races both played."""
        effect: dict[tuple[str, int], dict[str, np.ndarray]] = {}
        for knob, j in tried:
            ev = self.evals.get(self.key({**inc.pos, knob.name: j}))
            if ev is None or ev.invalid:
                continue
            d = {}
            for label in ev.sums:
                n = min(ev.blocks[label], inc.blocks[label])
                if n < 1:
                    break
                d[label] = np.nan_to_num(residuals(ev.sums[label], n)[0] - residuals(inc.sums[label], n)[0])
            else:
                effect[(knob.name, j)] = d
        return effect

    def moved_effects(self, effect, old: dict[str, int], new: dict[str, int]):
        """The effects measured around `old`, read around `new`: a numeric knob's step up (down) keeps
        its effect per step; a choice knob that moved loses its effects (they were relative to the old
        choice)."""
        by_name = {k.name: k for k in self.bf.knobs}
        out = {}
        for (name, j), d in effect.items():
            knob = by_name[name]
            p0 = old.get(name, base_position(self.bf, knob))
            p1 = new.get(name, base_position(self.bf, knob))
            if knob.choices:
                if p0 == p1:
                    out[(name, j)] = d
            else:
                out[(name, p1 + (j - p0))] = d
        return out

    def model_proposals(self, inc: Evaluation, tried: list[tuple[Knob, int]],
                        effect: dict | None = None) -> list[dict[str, int]]:
        """A move of several knobs at once, chosen on a linear model of the targets: each knob's effect
        per step up and per step down is its neighbour's paired change of every statistic (on the races
        both played), effects add up, and each knob moves at most `model_reach` steps from the
        incumbent. Three starts: the incumbent, and the bounded least-squares steps towards the bands'
        centres, whole and halved (rounded; the model is only linear near the incumbent); from each,
        greedy on the model's score (the targets' score of the predicted means plus the change cost):
        the single-knob change that lowers it most, repeated until none does. Every distinct result
        that moves at least two knobs and that the model expects to lower the score is a proposal,
        played and judged like any candidate."""
        bf = self.bf
        if effect is None:
            effect = self.effects(inc, tried)
        if not effect:
            return []
        by_name = {k.name: k for k in bf.knobs}
        base_means = score_of(self.scoring, inc.sums)[2]
        k0 = {k.name: inc.pos.get(k.name, base_position(bf, k)) for k in bf.knobs}

        def contribution(name: str, q: int) -> dict[str, np.ndarray] | None:
            knob, p = by_name[name], k0[name]
            if q == p:
                return {}
            if knob.choices:
                return effect.get((name, q))
            one = effect.get((name, p + (1 if q > p else -1)))
            return None if one is None else {lab: v * abs(q - p) for lab, v in one.items()}

        def predicted(pos: dict[str, int]) -> float:
            means = {lab: m.copy() for lab, m in base_means.items()}
            for name, q in pos.items():
                for lab, v in (contribution(name, q) or {}).items():
                    means[lab] += v
            total = 0.0
            for lab, m in means.items():
                lo, hi, h, w = (self.scoring.lo[lab], self.scoring.hi[lab], self.scoring.scale[lab],
                                self.scoring.weight[lab])
                excess = np.nan_to_num(np.maximum(lo - m, 0) + np.maximum(m - hi, 0)) / h
                total += float((w * excess ** 2).sum())
            return total + bf.cost_weight * change_cost(bf, pos)

        start_score = predicted(k0)
        out: list[dict[str, int]] = []
        firsts = [k0] + [self._least_squares(k0, effect, base_means, f) for f in (1.0, 0.5)]
        for first in firsts:
            pos, score = self._polish(dict(first), k0, effect, contribution, predicted)
            if score < start_score - 1e-9 and sum(pos[n] != k0[n] for n in pos) >= 2 and pos not in out:
                out.append(pos)
        return out

    def _least_squares(self, k0: dict[str, int], effect, means: dict[str, np.ndarray],
                       fraction: float = 1.0) -> dict[str, int]:
        """The numeric knobs' steps that bring the predicted statistics closest to their bands' centres
        (least squares in units of the bands' half-widths, each knob's effect per step the mean of its
        up and down neighbours', at most `model_reach` steps and within its bounds), rounded."""
        from scipy.optimize import lsq_linear

        bf = self.bf
        names, cols, lo, hi = [], [], [], []
        labels = list(means)
        for knob in bf.knobs:
            if knob.choices:
                continue
            p = k0[knob.name]
            up, down = effect.get((knob.name, p + 1)), effect.get((knob.name, p - 1))
            if up is None and down is None:
                continue
            col = []
            for lab in labels:
                u = up[lab] if up is not None else None
                d = -down[lab] if down is not None else None
                col.append(u if d is None else d if u is None else (u + d) / 2)
            names.append(knob.name)
            cols.append(np.concatenate(col))
            a = -bf.model_reach if down is not None else 0
            b = bf.model_reach if up is not None else 0
            while a < 0 and not allowed(bf, knob, p + a):
                a += 1
            while b > 0 and not allowed(bf, knob, p + b):
                b -= 1
            lo.append(a - 1e-9)
            hi.append(b + 1e-9)
        out = dict(k0)
        if not names:
            return out
        w = np.concatenate([self.scoring.weight[lab] for lab in labels])
        h = np.concatenate([self.scoring.scale[lab] for lab in labels])
        m = np.concatenate([np.nan_to_num(means[lab]) for lab in labels])
        lo_b = np.concatenate([self.scoring.lo[lab] for lab in labels])
        hi_b = np.concatenate([self.scoring.hi[lab] for lab in labels])
        keep = (w > 0) & np.isfinite(lo_b) & np.isfinite(hi_b)
        # win rates aim at the fair share (the band's centre); a range (race length) only at the band
        is_range = np.concatenate([[st.metric != "win_rate" for st in self.stats[lab]] for lab in labels])
        centre = np.where(is_range, np.clip(m, lo_b, hi_b), (lo_b + hi_b) / 2)
        rw = np.sqrt(w[keep]) / h[keep]
        A = np.array(cols).T[keep] * rw[:, None]
        b = (centre[keep] - m[keep]) * rw
        ridge = math.sqrt(max(bf.cost_weight, 1e-6))
        A = np.vstack([A, ridge * np.eye(len(names))])
        b = np.concatenate([b, np.zeros(len(names))])
        x = lsq_linear(A, b, bounds=(np.array(lo), np.array(hi))).x
        for name, v in zip(names, x):
            out[name] = k0[name] + int(round(fraction * v))
        return out

    def _polish(self, pos: dict[str, int], k0: dict[str, int], effect, contribution, predicted):
        """Greedy on the model from `pos`: the single-knob change that lowers the predicted score
        most, repeated until none does."""
        bf = self.bf
        by_name = {k.name: k for k in bf.knobs}
        score = predicted(pos)
        for _ in range(4 * len(bf.knobs)):
            best = None
            for name, knob in by_name.items():
                p = pos[name]
                if knob.choices:
                    options = [j for (n, j) in effect if n == name] + [k0[name]]
                else:
                    options = [p - 1, p + 1]
                for q in options:
                    if q == p or (not knob.choices and (abs(q - k0[name]) > bf.model_reach
                                                        or not allowed(bf, knob, q))):
                        continue
                    if contribution(name, q) is None:
                        continue
                    sc = predicted({**pos, name: q})
                    if sc < score - 1e-9 and (best is None or sc < best[0]):
                        best = (sc, name, q)
            if best is None:
                break
            score, name, q = best
            pos[name] = q
        return pos, score

    def _chosen_by(self, inc: Evaluation, new: Evaluation) -> dict:
        """A step's paired score difference, and its se, on the round's races that chose it."""
        diff, se = self.paired(new, inc, self.n_blocks)
        return {"difference": diff, "se": se, **self.confirmation}

    def _step_many(self, rnd: int, inc: Evaluation, new: Evaluation) -> None:
        va, vb = self.values(inc.pos), self.values(new.pos)
        chosen = self._chosen_by(inc, new)
        for name in vb:
            if va[name] != vb[name]:
                self.steps.append({"round": rnd + 1, "knob": name, "from": va[name], "to": vb[name],
                                   "score": self.total(new), **chosen})
        self.log(f"step (model): {self._moves_text(inc.pos, new.pos)}, score {self.total(inc):.3f} -> "
                 f"{self.total(new):.3f}")

    def _step(self, rnd: int, knob: Knob, inc: Evaluation, new: Evaluation) -> None:
        a, b = self.values(inc.pos)[knob.name], self.values(new.pos)[knob.name]
        self.steps.append({"round": rnd + 1, "knob": knob.name, "from": a, "to": b, "score": self.total(new),
                           **self._chosen_by(inc, new)})
        self.log(f"step: {knob.name} {a!r} -> {b!r}, score {self.total(inc):.3f} -> {self.total(new):.3f}")

    def _met_text(self, ev: Evaluation) -> str:
        _, _, means = score_of(self.scoring, ev.sums)
        bad = total = 0
        for label, m in means.items():
            w = (self.scoring.weight[label] > 0) & ~np.isnan(m)
            out = (m < self.scoring.lo[label]) | (m > self.scoring.hi[label])
            bad += int((out & w).sum())
            total += int(w.sum())
        return f"{total - bad} of {total} target statistics in their band"

    def _sensitivity(self, knob: Knob, inc: Evaluation, cand: Evaluation, blocks: dict[str, int]) -> None:
        k0, k1 = inc.pos.get(knob.name), cand.pos.get(knob.name)
        if knob.choices:
            per = 1.0
        else:
            per = float(k1 - k0)
        frm, to = self.value(inc.pos, knob), self.value(cand.pos, knob)
        for label, stats in self.stats.items():
            n = blocks[label]
            mc, rc = residuals(cand.sums[label], n)
            mi, ri = residuals(inc.sums[label], n)
            se = np.sqrt(((rc - ri) ** 2).sum(0))
            seated = cand.sums[label][1, :n].sum(0) > 0
            for j, s in enumerate(stats):
                if self.scoring.weight[label][j] == 0 or not seated[j]:
                    continue
                self.sens_rows.append({
                    "knob": knob.name, "from": frm, "to": to, "steps": per, "design": label,
                    "statistic": _stat_label(s),
                    "target": self.scoring.target[label][j], "races": n * self.block[label],
                    "incumbent": mi[j], "candidate": mc[j], "per_step": (mc[j] - mi[j]) / per,
                    "se_per_step": se[j] / abs(per)})


def engine_hash(game: str) -> str:
    """A hash of the game's engine and players (the Python sources of kernels/GAME and sim/GAME):
    an evaluation in the log is reused only for the engine that played it."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.blake2b(digest_size=8)
    for folder in (root / "kernels" / game, root / "sim" / game):
        for f in sorted(folder.rglob("*.py")) if folder.is_dir() else []:
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)
