"""Auto-balance (issue 17): search a game's data for the smallest changes that make it fair.

The package, one job a module, each importing only those before it: `spec` (what a balance file
says), `edits` (values at a path, knob positions, patches), `file` (reading and checking the
file), `scoring` (statistics, score, paired differences), `play` (the workers' tasks), `page`
(report.md and the texts the HTML page shares), `outcome` (the written result), `search` (the
search). The command (sim/cli/balance.py) writes the HTML page through reports.pages.

A balance file (TOML, docs/balance.md) names, for any registered game, the designs to play
(scenarios, racer counts, personas, options), the targets (win rates per value of a seat axis or
per seat within ±N points of the fair share; mean race length within a range) and the knobs a
designer allows to move (a path in a data file, bounds and a step or a list of choices, a cost per
step, optionally a group of paths moved together).

The search is greedy coordinate descent over knob steps, on common random numbers:

* an *evaluation* plays a candidate data set (the base data plus the candidate's patches) on every
  design with the same seed per design and the same race indices as every other candidate, and
  keeps, per balanced block of races, the sums and counts of every statistic the targets read;
* its *score* is sum over targets of weight x (excess beyond the band / the band's half-width)^2,
  plus lambda x the change cost (sum of cost x |steps| over the knobs moved);
* each round tries every knob one step up and one step down from the incumbent (every other
  choice for a choice knob); a candidate is played in stages (a quarter, a half, all of the
  races), and after each early stage it is dropped if it is significantly worse than the incumbent
  on the same races: a one-sided paired z-test of score(candidate) - score(incumbent) > 0, with
  its standard error from the delta method over balanced blocks, at alpha / (early looks). So a
  candidate at least as good as the incumbent is dropped early with probability at most alpha
  (asymptotically);
* the best fully played candidate replaces the incumbent when its score is lower, then every other
  improving step of the round is tried on top of the new incumbent and kept if it still improves;
  with confirm, each of these steps is taken only when it also beats the incumbent on the round's
  confirmation races, which did not choose it (Search._confirmed);
* the model step: the round's neighbours, read as a linear model of the statistics, propose moves
  of several knobs at once (Search.model_proposals); each proposal is played like a candidate and
  taken when it beats the best single step;
  the search ends when no neighbour is better, or the budget (races, minutes, rounds) is spent.

Every evaluation is logged (DIR/log.jsonl, DIR/evals/<key>.npz); a rerun replays the search from
the log and plays only what it lacks, so an interrupted search resumes where it stopped. At the
end the changed data folder, the list of changes, the sensitivities (change of every target
statistic per knob step, from paired races) and a before/after table of every target on fresh
seeds never used in the search are written to DIR.
"""
from __future__ import annotations

from .spec import BalanceFile, DesignSpec, Knob, Member, TargetSpec
from .edits import allowed, base_position, change_cost, get_path, knob_value, patches_for
from .file import METRICS, TOP_KEYS, load_balance
from .scoring import (Evaluation, Scoring, Stat, block_sums, design_stats, influence, make_scoring,
    objectives, paired_difference, pareto, residuals, score_of)
from .play import BATCH, STAGES
from .page import (changes_text, check_score, check_score_text, check_text, front_objectives, front_text,
    levers_text, persona_agreement,
    persona_levers, persona_offsets, persona_text, report_text, resolution_text,
    sensitivity_lines)
from .outcome import Outcome
from .search import FORMAT, Search, engine_hash

__all__ = ["BalanceFile", "DesignSpec", "Knob", "Member", "TargetSpec", "allowed", "base_position",
           "change_cost", "get_path", "knob_value", "patches_for", "METRICS", "TOP_KEYS", "load_balance",
           "Evaluation", "Scoring", "Stat", "block_sums", "design_stats", "influence", "make_scoring",
           "paired_difference", "residuals", "score_of", "objectives", "pareto", "front_objectives", "front_text", "BATCH", "STAGES", "changes_text", "check_score",
           "check_score_text", "check_text", "levers_text", "persona_agreement", "persona_levers",
           "persona_offsets", "persona_text", "report_text", "resolution_text", "sensitivity_lines",
           "Outcome", "FORMAT", "Search", "engine_hash"]
