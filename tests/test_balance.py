"""The balance search (sim/balance/, docs/balance.md): a tiny search on every registered game
restores a deliberately unbalanced change; resumes from its log; bad files give one line per
problem and exit status 2; the changed data folder validates and reads back the searched data."""
from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from minidata import edit, write_minidata
from sim import games
from sim.balance import Search, load_balance
from sim.cli.balance import write_outcome
from sim.cli import main

BLAST = """\
game = "blast"
title = "mini: Ann's low-pulse accuracy is off"
data = "{data}"
seed = 5
races = 1200
check_races = 1200
budget_races = 100000

[designs]
scenarios = ["Loop"]
racers = [4]
# the case was made for `balanced`, the default player when it was written (now `distilled`)
personas = ["balanced"]

[[target]]
name = "biathletes fair"
metric = "win_rate"
by = "biathlete"
within_pp = 10

[[target]]
name = "length"
metric = "rounds"
range = [4, 9]

[[knob]]
name = "ann-accuracy-low"
file = "biathletes/ann.toml"
path = "accuracy"
index = 0
min = 1
max = 5
step = 1

[[knob]]
name = "bo-one-initiative"
file = "biathletes/bo.toml"
path = "card[Bo One].initiative"
min = 1
max = 12
step = 1
cost = 2
"""

# The red track's descent (squares 22-29, the marked 25 aside) turned into a climb: races last
# longer. The knob moves those seven squares together (a group), among white, blue and green.
MANIA = """\
game = "mania"
title = "Mania: the red track's descent is a climb"
data = "{data}"
seed = 11
races = 800
check_races = 1600
budget_races = 100000

[designs]
scenarios = ["red"]
racers = [4]

[[target]]
name = "race length"
metric = "rounds"
range = [47, 52]

[[target]]
name = "first-player advantage"
metric = "win_rate"
by = "seat"
within_pp = 4

[[knob]]
name = "red-descent"
file = "tracks/red.toml"
path = "loop"
token = 22
choices = ["b", "w", "g"]
also = [{{ file = "tracks/red.toml", path = "loop", token = 23 }},
        {{ file = "tracks/red.toml", path = "loop", token = 24 }},
        {{ file = "tracks/red.toml", path = "loop", token = 26 }},
        {{ file = "tracks/red.toml", path = "loop", token = 27 }},
        {{ file = "tracks/red.toml", path = "loop", token = 28 }},
        {{ file = "tracks/red.toml", path = "loop", token = 29 }}]

[[knob]]
name = "penalty-entry"
file = "tracks/red.toml"
path = "penalty.entry"
min = 2
max = 4
step = 1
"""


# Germany's sprint column deliberately cut from 4 to 1: Germany hardly wins. (Runs once Ski Tour is
# registered in sim/games.py; checked before by registering it in a scratch process.)
SKITOUR = """\
game = "skitour"
title = "Ski Tour: Germany's sprint column is cut"
data = "{data}"
seed = 13
races = 1000
check_races = 2000
budget_races = 200000

[designs]
scenarios = ["Starter"]
racers = [4]

# 10 points (12 before): under the default that lays the reroll_shot token (issue 27 item 2) the
# cut sprint column no longer takes Germany 12 points off the others
[[target]]
name = "nations within 10 points"
metric = "win_rate"
by = "nation"
within_pp = 10

[[knob]]
name = "germany-sprint"
file = "nations/germany.toml"
path = "columns.sprint"
min = 1
max = 6
step = 1

[[knob]]
name = "sweden-sprint"
file = "nations/sweden.toml"
path = "columns.sprint"
min = 1
max = 6
step = 1
cost = 3
"""


def skitour_case(tmp: Path) -> Path:
    data = tmp / "data"
    shutil.copytree(games.game("skitour").load().default_data_dir(), data,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    edit(data / "nations" / "germany.toml", "sprint   = 4", "sprint   = 1")
    f = tmp / "balance.toml"
    f.write_text(SKITOUR.format(data=data))
    return f


def blast_case(tmp: Path) -> Path:
    data = write_minidata(tmp / "data")
    edit(data / "biathletes" / "ann.toml", "accuracy = [2, 3, 4]", "accuracy = [4, 5, 5]    # made poor on purpose")
    f = tmp / "balance.toml"
    f.write_text(BLAST.format(data=data))
    return f


def mania_case(tmp: Path) -> Path:
    data = tmp / "data"
    shutil.copytree(games.game("mania").load().default_data_dir(), data,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    edit(data / "tracks" / "red.toml", '"g g g gO g g g g"', '"b b b gO b b b b"')
    f = tmp / "balance.toml"
    f.write_text(MANIA.format(data=data))
    return f


#: per game: a tiny deliberately unbalanced case, the knob that must move and how
CASES = {
    "blast": (blast_case, "ann-accuracy-low", lambda old, new: new < old),
    "mania": (mania_case, "red-descent", lambda old, new: new in ("w", "g")),
    "skitour": (skitour_case, "germany-sprint", lambda old, new: new > old),
}


@pytest.mark.parametrize("game", [*games.names(), *(["skitour"] if "skitour" not in games.names() else [])])
def test_a_tiny_search_restores_the_deliberate_change(game, tmp_path):
    if game not in games.names():
        pytest.skip(f"{game} is not registered in sim/games.py yet: no balance case to run")
    if game not in CASES:
        pytest.skip(f"{game} is registered but tests/test_balance.py has no balance case for it yet "
                    f"(add one to CASES: a small data set made deliberately off and the knob that fixes it)")
    make, knob, moved_back = CASES[game]
    f = make(tmp_path)
    out = tmp_path / "out"
    assert main(["balance", str(f), "--out", str(out), "--quiet"]) == 0
    changes = pd.read_csv(out / "changes.csv", keep_default_na=False)
    assert knob in set(changes.knob), changes
    row = changes[changes.knob == knob].iloc[0]
    assert moved_back(row.old, row.new)
    # the other knob, which the targets do not need, stays where it was (fewest changes)
    assert set(changes.knob) == {knob}
    # the before/after table on fresh seeds: the search's targets are met after, not before
    check = pd.read_csv(out / "targets.csv")
    assert not check.met_before.all() and check.met_after.all()
    bf = load_balance(f)
    assert set(check.seed) == {d.check_seed for d in bf.designs}
    assert not set(check.seed) & {d.seed for d in bf.designs}
    # the changed data folder validates and holds the new values
    info = games.game(game)
    assert main(["--game", game, "validate", str(out / "data")]) == 0
    assert info.load().load_bundle(out / "data").data_hash != info.load().load_bundle(bf.data).data_hash
    # a changed file keeps every comment of the base file (a trailing one too) and names the change
    for rel in set(changes.file):
        before = (Path(bf.data) / rel).read_text()
        after = (out / "data" / rel).read_text()
        comments = [line[line.index("#"):] for line in before.splitlines() if "#" in line]
        assert comments and all(c in after for c in comments), rel
        assert "# CHANGED by biathlon-sim balance" in after
    # sensitivities of the knob the search touched, per step, with standard errors
    sens = pd.read_csv(out / "sensitivities.csv")
    assert knob in set(sens.knob) and sens.se_per_step.notna().all()
    report = (out / "report.md").read_text()
    assert "## Targets before and after" in report and "fresh seeds" in report.lower()
    # the page: the changes, the targets before and after (heat maps) and the sensitivities
    page = (out / "page.html").read_text()
    assert "Balance search" in page and knob in page and "In band after" in page
    assert any((out / "figures").glob("before_*.png")) and any((out / "figures").glob("after_*.png"))
    assert (out / "tables" / "sensitivities.csv").exists()


def test_the_search_resumes_from_its_log(tmp_path):
    f = blast_case(tmp_path)
    bf = load_balance(f)
    whole = Search(bf, tmp_path / "whole", log=lambda s: None)
    full = whole.run()
    # interrupted: a budget that stops after the base and a candidate or two, then the same search again
    cut = Search(bf, tmp_path / "cut", budget_races=2000, log=lambda s: None)
    cut.run()
    assert cut.stopped.startswith("the race budget")
    with open(tmp_path / "cut" / "log.jsonl", "a") as fh:
        fh.write('{"event": "evaluation", "key": "cut by a cra')          # a line cut by a crash
    again = Search(bf, tmp_path / "cut", log=lambda s: None)
    res = again.run()
    assert res.final.pos == full.final.pos and again.races_used == whole.races_used
    assert 0 < again.races_played < whole.races_played
    # and once more: everything is in the log, nothing is played
    third = Search(bf, tmp_path / "cut", log=lambda s: None)
    third.run()
    assert third.races_played == 0
    log = [json.loads(line) for line in (tmp_path / "whole" / "log.jsonl").read_text().splitlines()]
    assert {"knobs", "steps", "blocks", "score", "cost"} <= set(log[0])


def test_early_dropping_and_common_random_numbers(tmp_path):
    f = blast_case(tmp_path)
    bf = load_balance(f)
    s = Search(bf, tmp_path / "out", log=lambda s: None)
    s.run()
    start = {k.name: 0 for k in bf.knobs}
    base = s.evaluate(start, s.n_blocks)
    # one step worse on Ann's accuracy: dropped after the first quarter of the races
    worse = s.evals[s.key({**start, "ann-accuracy-low": 1})]
    assert worse.blocks["Loop-4-balanced"] < s.n_blocks["Loop-4-balanced"]
    # Bo One's initiative decides nothing in these races: on the same races the candidate's
    # statistics equal the base's exactly, so the paired difference is the change cost alone
    same = s.evals[s.key({**start, "bo-one-initiative": 1})]
    n = {k: min(same.blocks[k], base.blocks[k]) for k in same.blocks}
    diff, se = s.paired(same, base, n)
    assert se == 0 and diff == pytest.approx(bf.cost_weight * 2)


@pytest.mark.parametrize("change, expected", [
    ('metric = "rounds"', "balance.toml: target 'length': metric: must be one of win_rate, rounds"),
    ('path = "card[Bo One].initiative"', "balance.toml: knob 'bo-one-initiative': path: biathletes/bo.toml:card[Nobody].initiative: "
                                        "no card named 'Nobody'"),
    ("step = 1\ncost = 2", "balance.toml: knob 'bo-one-initiative': step: must be above 0"),
    ('file = "biathletes/ann.toml"', "balance.toml: knob 'ann-accuracy-low': file: 'biathletes/nobody.toml' is not a file"),
    ('by = "biathlete"', "balance.toml: target 'biathletes fair': by: must be one of the seat axes"),
    ("[designs]", "balance.toml: players.bound: names 'balanced', the binding persona"),
    ('personas = ["balanced"]', "balance.toml: players.binds: names 'tuned', which [designs] personas leaves out"),
])
def test_bad_balance_files_name_the_file_entry_and_field(change, expected, tmp_path, capsys):
    f = blast_case(tmp_path)
    text = f.read_text()
    bad = {'metric = "rounds"': 'metric = "length"',
           'path = "card[Bo One].initiative"': 'path = "card[Nobody].initiative"',
           "step = 1\ncost = 2": "step = 0\ncost = 2",
           'file = "biathletes/ann.toml"': 'file = "biathletes/nobody.toml"',
           'by = "biathlete"': 'by = "nation"',
           "[designs]": '[players]\nbinds = "balanced"\nbound = ["balanced"]\n\n[designs]',
           'personas = ["balanced"]': 'personas = ["balanced"]\n\n[players]\nbinds = "tuned"'}[change]
    f.write_text(text.replace(change, bad, 1))
    assert main(["balance", str(f), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any(expected in line for line in err), err
    assert all(line.startswith("biathlon-sim balance: ") for line in err)


def test_every_shipped_data_file_survives_the_toml_writer():
    """The changed data folder is written through tomlkit: every shipped file (and example set)
    comes back byte for byte when nothing changes, comments and layout included."""
    import tomlkit

    roots = {games.game(name).load().default_data_dir() for name in games.names()}
    roots.add(Path(__file__).resolve().parent.parent / "sim" / "data")     # Ski Tour's and the personas too
    paths = sorted({p for root in roots for p in root.rglob("*.toml")})
    assert len(paths) > 20
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert tomlkit.dumps(tomlkit.parse(text)) == text, path


def test_dry_run_lists_designs_targets_and_knobs(tmp_path, capsys):
    f = mania_case(tmp_path)
    assert main(["balance", str(f), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "design red-4-dice" in out and "knob red-descent" in out and "target race length" in out


@pytest.mark.parametrize("path", sorted(Path(__file__).parent.parent.glob("experiments/balance_*.toml")),
                         ids=lambda p: p.name)
def test_example_balance_files_load(path):
    bf = load_balance(path)
    assert bf.designs and bf.targets and bf.knobs


def test_early_drop_error_rate_on_equal_candidates():
    """Two candidates of equal score (the same true win rates, outside the band so the score moves)
    on correlated races: the one-sided paired z-test of an early look (alpha / 2 = 2.5%) drops the
    candidate no more often than its level says (the delta method's standard error holds)."""
    import numpy as np

    from sim.stats import z_value
    from types import SimpleNamespace

    from sim.balance import Stat, TargetSpec, make_scoring, paired_difference

    stats = [Stat("d", "win_rate", "seat", i, f"seat {i}") for i in range(4)]
    bf = SimpleNamespace(targets=[TargetSpec("seats", "win_rate", "seat", 2.0)],
                         designs=[SimpleNamespace(label="d", racers=4, scenario="x", persona="p")])
    scoring = make_scoring(bf, {"d": stats})
    rng = np.random.default_rng(3)
    p = np.array([0.30, 0.26, 0.23, 0.21])             # seat 0 and 3 outside 23..27 %
    blocks, per_block, level = 60, 8, 0.025
    z = z_value(1 - 2 * level)
    rejections, reps = 0, 1000
    for _ in range(reps):
        u = rng.random((blocks, per_block, 4))
        shared = rng.random((blocks, per_block, 4)) < 0.7        # most races end the same on both
        v = np.where(shared, u, rng.random((blocks, per_block, 4)))
        sums = []
        for draws in (u, v):
            won = (draws < p).astype(float)
            sums.append(np.stack([won.sum(1), np.full((blocks, 4), per_block, float)]))
        diff, se = paired_difference(scoring, {"d": sums[0]}, {"d": sums[1]})
        rejections += se > 0 and diff > z * se
    # measured: 0.7% at a nominal 2.5% (the test is conservative here, never anti-conservative)
    assert 0 < rejections / reps < 2 * level, rejections / reps


def test_command_line_refusals(tmp_path, capsys):
    assert main(["balance", str(tmp_path / "nothing.toml"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing.toml: is not a balance file" in err[0]
    f = blast_case(tmp_path)
    assert main(["balance", str(f), "--out", str(tmp_path / "o"), "--max-minutes", "0"]) == 2
    assert capsys.readouterr().err.strip().startswith("biathlon-sim balance: --max-minutes must be a number above 0")
    assert main(["balance", str(f)]) == 2
    assert "--out DIR is required" in capsys.readouterr().err
    f.write_text(f.read_text().replace('personas = ["balanced"]', 'personas = ["nobody"]'))
    assert main(["balance", str(f), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("biathlon-sim balance: balance.toml: designs.personas: no player named 'nobody'"), err


def test_balance_imports_no_game_package():
    """sim/balance/ and its command are shared code: they ask the registry, never a game package."""
    from test_boundaries import GAME_PACKAGES, ROOT, imported_modules

    files = sorted(str(f.relative_to(ROOT)) for f in (ROOT / "sim" / "balance").glob("*.py"))
    assert "sim/balance/search.py" in files
    for rel in (*files, "sim/cli/balance.py"):
        bad = sorted(m for m in imported_modules(ROOT / rel) if any(p in GAME_PACKAGES for p in m.split(".")))
        assert not bad, f"{rel} imports game code: {bad}"


def test_knob_on_a_field_of_an_unnamed_entry_and_a_group(tmp_path):
    """A coach zone (an entry of a list without names) by index and key; a group moves every
    member by the same steps; the patches merge per path and the game loads them."""
    from sim.balance import patches_for

    f = blast_case(tmp_path)
    f.write_text(f.read_text() + """
[[knob]]
name = "loop-coach"
file = "venues/testhausen.toml"
path = "segments.loop.coach"
index = 0
key = "strength"
min = 1
max = 5
step = 1
also = [{ file = "venues/testhausen.toml", path = "segments.loop.coach", index = 1, key = "strength" }]

[[knob]]
name = "ann-accuracy-high"
file = "biathletes/ann.toml"
path = "accuracy"
index = 2
min = 4
max = 6
step = 1
""")
    bf = load_balance(f)
    patches = patches_for(bf, {"loop-coach": 2, "ann-accuracy-high": 1, "ann-accuracy-low": -1})
    by = {(p.file, p.path): p.value for p in patches}
    assert by["biathletes/ann.toml", "accuracy"] == [3, 5, 6]          # two knobs, one patch
    coach = by["venues/testhausen.toml", "segments.loop.coach"]
    assert [z["strength"] for z in coach] == [4, 3] and coach[0]["colour"] == "black"
    games.game("blast").load().load_bundle(bf.data, patches)
    # a step past a member's bound is not offered: strength 1 + 5 > 5
    from sim.balance import allowed

    knob = next(k for k in bf.knobs if k.name == "loop-coach")
    assert allowed(bf, knob, 3) and not allowed(bf, knob, 4)


def test_more_races_continue_the_logged_evaluations(tmp_path):
    f = blast_case(tmp_path)
    bf = load_balance(f)
    Search(bf, tmp_path / "out", log=lambda s: None).run()
    more = Search(bf, tmp_path / "out", races=2400, log=lambda s: None)
    more.run()
    base = more.evals[more.key({k.name: 0 for k in bf.knobs})]
    assert base.blocks["Loop-4-balanced"] == more.n_blocks["Loop-4-balanced"] == 2400 // 36 + 1
    fewer = Search(bf, tmp_path / "out", races=600, log=lambda s: None)
    fewer.run()
    assert fewer.races_played == 0


def test_a_search_can_start_from_an_earlier_result(tmp_path, capsys):
    """[start] puts the first incumbent at the given knob values; the base data stays the 'before'
    (changes and costs are counted from it), and a value the knob cannot reach is refused."""
    f = blast_case(tmp_path)
    f.write_text(f.read_text() + '\n[start]\n"bo-one-initiative" = 3\n')
    bf = load_balance(f)
    base_init = next(c for c in tomllib.loads((tmp_path / "data" / "biathletes" / "bo.toml").read_text())["card"]
                     if c["name"] == "Bo One")["initiative"]
    assert bf.start == {"bo-one-initiative": 3 - base_init}
    lines = []
    s = Search(bf, tmp_path / "out", budget_races=10**6, log=lines.append)
    res = s.run()
    assert any(line.startswith("start ([start] of the file)") for line in lines)
    assert res.base.pos["bo-one-initiative"] == 0
    # the start's cost counts: moving an initiative that decides nothing back to the base pays off
    assert res.final.pos["bo-one-initiative"] == 0
    f.write_text(f.read_text().replace('"bo-one-initiative" = 3', '"bo-one-initiative" = 40'))
    assert main(["balance", str(f), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "start: bo-one-initiative: must be a value the knob reaches" in err


def test_a_held_knob_keeps_its_start_value(tmp_path, capsys):
    """`hold = true`: the knob is set by [start] and never moved, though moving it back to the base
    would lower the change cost (an earlier result's change on entrants the designs do not play);
    its change is still a change of the result. A held knob without a [start] value is refused."""
    f = blast_case(tmp_path)
    f.write_text(f.read_text().replace("step = 1\ncost = 2", "step = 1\ncost = 2\nhold = true")
                 + '\n[start]\n"bo-one-initiative" = 3\n')
    bf = load_balance(f)
    held = bf.start["bo-one-initiative"]
    assert held != 0 and next(k for k in bf.knobs if k.name == "bo-one-initiative").hold
    s = Search(bf, tmp_path / "out", budget_races=10**6, log=lambda line: None)
    assert all(k.name != "bo-one-initiative" for k, _ in s.neighbours({}))
    res = s.run()
    assert res.base.pos["bo-one-initiative"] == 0
    assert res.final.pos["bo-one-initiative"] == held
    f.write_text(f.read_text().replace('\n[start]\n"bo-one-initiative" = 3\n', ""))
    assert main(["balance", str(f), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "knob 'bo-one-initiative': hold: a held knob is never moved by the search: give its value in [start]" in err


def test_the_model_step_combines_steps_that_each_overshoot(tmp_path):
    """Two knobs that each fix one biathlete but break another (alone, neither lowers the score)
    and together fix both: coordinate descent is stuck, the model step proposes both at once.
    The effects are fabricated evaluations of the neighbours on the search's designs."""
    from sim.balance import Evaluation, base_position

    bf = load_balance(blast_case(tmp_path))
    s = Search(bf, tmp_path / "out", log=lambda x: None)
    (label,) = s.stats
    names = [st.label for st in s.stats[label]]
    n = s.n_blocks[label]

    def ev(rates: dict[str, float], pos: dict[str, int]) -> Evaluation:
        sums = np.zeros((2, n, len(names)))
        for j, name in enumerate(names):
            r = rates.get(name, 0.25) if name != "mean rounds" else 6.0
            sums[1, :, j] = 100
            sums[0, :, j] = 100 * r
        e = Evaluation(s.key(pos), pos, {label: sums}, {label: n})
        s.evals[e.key] = e
        return e

    a, b = "ann-accuracy-low", "bo-one-initiative"
    k0 = {k.name: base_position(bf, k) for k in bf.knobs}
    bis = [x for x in names if x != "mean rounds"]
    ann, bo, third = bis[0], bis[1], bis[2]
    inc = ev({ann: 0.05, bo: 0.45}, k0)
    fix_ann = ev({ann: 0.25, bo: 0.45, third: 0.05}, {**k0, a: -1})        # Ann fixed, the third broken
    ev({ann: 0.0, bo: 0.45, third: 0.30}, {**k0, a: 1})                    # the other directions: worse
    fix_bo = ev({ann: 0.05, bo: 0.25, third: 0.45}, {**k0, b: 1})          # Bo fixed, the third broken
    ev({ann: 0.05, bo: 0.50, third: 0.20}, {**k0, b: -1})
    for single in (fix_ann, fix_bo):
        assert s.total(single) >= s.total(inc)                              # neither step alone helps
    tried = [(next(k for k in bf.knobs if k.name == a), -1), (next(k for k in bf.knobs if k.name == a), 1),
             (next(k for k in bf.knobs if k.name == b), 1), (next(k for k in bf.knobs if k.name == b), -1)]
    proposals = s.model_proposals(inc, tried)
    assert {**k0, a: -1, b: 1} in proposals
    # after a move, the effects per step are read around the new position (the next model step)
    eff = s.effects(inc, tried)
    moved = s.moved_effects(eff, k0, {**k0, a: -1})
    assert moved[(a, -2)] is eff[(a, -1)] and moved[(a, 0)] is eff[(a, 1)] and moved[(b, 1)] is eff[(b, 1)]
    assert all(sum(p[k] != k0[k] for k in p) >= 2 for p in proposals)


def test_a_target_of_weight_zero_is_measured_not_searched(tmp_path):
    """weight = 0: the check shows the target before and after, the score ignores it."""
    f = blast_case(tmp_path)
    plain = Search(load_balance(f), tmp_path / "a", budget_races=1, log=lambda x: None).run()
    f.write_text(f.read_text() + '\n[[target]]\nname = "colours watched"\nmetric = "win_rate"\n'
                 'by = "colour"\nwithin_pp = 0.5\nweight = 0\n')
    watched = Search(load_balance(f), tmp_path / "b", budget_races=1, log=lambda x: None).run()
    assert watched.search.total(watched.base) == pytest.approx(plain.search.total(plain.base))
    check = watched.check(races=600)
    colours = check[check.target == "colours watched"]
    assert len(colours) >= 4 and set(colours.statistic.str.split().str[0]) == {"colour"}
    assert not colours.met_before.all()         # a band of half a point: some colour is outside it


def _check_row(persona, statistic, value, half, metric="win_rate", scenario="Lang"):
    centre = 0.25 if metric == "win_rate" else 17.5
    return {"target": "t", "design": f"{scenario}-4-{persona}", "scenario": scenario, "racers": 4,
            "persona": persona, "statistic": statistic, "metric": metric, "band_low": centre - half,
            "band_high": centre + half, "before": centre, "after": value,
            "met_before": True, "met_after": abs(value - centre) <= half, "weight": 1.0}


def test_persona_agreement_says_which_statistics_no_common_change_can_meet():
    from sim.balance import persona_agreement, persona_text

    check = pd.DataFrame([
        # +4 under a band of 3 and -4 under a band of 5: [1, 7] and [-9, 1] meet at +1 (one change fits both)
        _check_row("balanced", "biathlete A", 0.29, 0.03), _check_row("sprinter", "biathlete A", 0.21, 0.05),
        # +5 and -4: [2, 8] and [-9, 1] do not meet, though each alone is a step from its band
        _check_row("balanced", "biathlete B", 0.30, 0.03), _check_row("sprinter", "biathlete B", 0.21, 0.05),
        # read under one persona only: not a question of agreement
        _check_row("balanced", "biathlete C", 0.40, 0.03, scenario="Kurz"),
        _check_row("balanced", "mean rounds", 30.0, 7.5, metric="rounds"),
        _check_row("sprinter", "mean rounds", 12.0, 7.5, metric="rounds"),
    ])
    a = persona_agreement(check).set_index("statistic")
    assert list(a.index) == ["biathlete A", "biathlete B", "mean rounds"]
    assert a.loc["biathlete A", "common_shift_meets"] and not a.loc["biathlete B", "common_shift_meets"]
    assert a.loc["biathlete B", "shared"] == pytest.approx(0.5) and a.loc["biathlete B", "spread"] == pytest.approx(9)
    assert a.loc["biathlete B", "worst_specific"] == pytest.approx(4.5)
    # rounds in rounds: +12.5 and -5.5 with half-width 7.5: [5, 20] and [-13, 2] do not meet
    assert a.loc["mean rounds", "spread"] == pytest.approx(18) and not a.loc["mean rounds", "common_shift_meets"]
    before = persona_agreement(check, "before")
    assert before.common_shift_meets.all() and (before.spread == 0).all()
    text = "\n".join(persona_text(check))
    assert "after, biathlete (2 statistics under 2 personas): 1 out of reach" in text
    assert "after, race length (1 statistic under 2 personas): 1 out of reach" in text
    assert "widest after: Lang mean rounds (spread 18.0" in text
    assert persona_text(check[check.persona == "balanced"]) == []


def _sens_row(knob, frm, to, steps, persona, per_step, se, statistic="biathlete B", races=2400):
    return {"knob": knob, "from": frm, "to": to, "steps": steps, "design": f"Lang-4-{persona}",
            "statistic": statistic, "target": "t", "races": races, "incumbent": 0.25,
            "candidate": 0.25 + per_step * steps, "per_step": per_step, "se_per_step": se}


def test_persona_levers_name_the_knob_steps_that_close_a_disagreement():
    """Biathlete B: balanced +5 and sprinter -4 points, out of reach of one common change; balanced is
    the farthest from the personas' mean (+4.5). A knob step that lowers balanced's figure clearly more
    than sprinter's closes the gap and is named, with the move's own sign (a step down); one that
    moves both alike, one that widens the gap and one lost in noise are not."""
    from sim.balance import persona_levers, persona_text

    check = pd.DataFrame([
        _check_row("balanced", "biathlete A", 0.29, 0.03), _check_row("sprinter", "biathlete A", 0.21, 0.05),
        _check_row("balanced", "biathlete B", 0.30, 0.03), _check_row("sprinter", "biathlete B", 0.21, 0.05),
    ])
    sens = pd.DataFrame([
        # b-accuracy 3 -> 2 (a step down): balanced -3 points, sprinter -0.5 (per step up: +3, +0.5)
        _sens_row("b-accuracy", 3, 2, -1.0, "balanced", 0.03, 0.004),
        _sens_row("b-accuracy", 3, 2, -1.0, "sprinter", 0.005, 0.004),
        # b-pulse 1 -> 2: both -2 points: no difference
        _sens_row("b-pulse", 1, 2, 1.0, "balanced", -0.02, 0.004),
        _sens_row("b-pulse", 1, 2, 1.0, "sprinter", -0.02, 0.004),
        # b-glide 4 -> 5: balanced +3, sprinter 0: widens the gap
        _sens_row("b-glide", 4, 5, 1.0, "balanced", 0.03, 0.004),
        _sens_row("b-glide", 4, 5, 1.0, "sprinter", 0.0, 0.004),
        # b-wax 1 -> 2: the right way, but 1 point of difference against a standard error of 1.4
        _sens_row("b-wax", 1, 2, 1.0, "balanced", -0.01, 0.01, races=576),
        _sens_row("b-wax", 1, 2, 1.0, "sprinter", 0.0, 0.01, races=576),
        # a statistic one common change can meet (A) has no levers to show
        _sens_row("b-accuracy", 3, 2, -1.0, "balanced", 0.03, 0.004, statistic="biathlete A"),
        _sens_row("b-accuracy", 3, 2, -1.0, "sprinter", 0.005, 0.004, statistic="biathlete A"),
    ])
    lev = persona_levers(check, sens)
    assert list(lev.knob) == ["b-accuracy"] and set(lev.statistic) == {"biathlete B"}
    r = lev.iloc[0]
    assert r.persona == "balanced" and r.specific == pytest.approx(4.5)
    assert (r.persona_effect, r.others_effect, r.difference) == pytest.approx((-3.0, -0.5, -2.5))
    assert r.se == pytest.approx(np.hypot(0.4, 0.4)) and r.z == pytest.approx(2.5 / np.hypot(0.4, 0.4))
    text = "\n".join(persona_text(check, sens))
    assert ("biathlete B on Lang, balanced 4.5 above the personas' mean: b-accuracy 3 -> 2 moves balanced -3.0, "
            "the others -0.5 on average (difference -2.5 ± 0.6)") in text
    assert "b-glide" not in text and "b-wax" not in text and "b-pulse" not in text
    # no clear step: said so
    assert "no knob step the search measured" in "\n".join(persona_text(check, sens[sens.knob == "b-wax"]))


def test_the_check_scores_the_targets_on_fresh_races():
    from sim.balance import check_score

    check = pd.DataFrame([_check_row("balanced", "biathlete B", 0.30, 0.03),     # 2 points over a band of 3
                          _check_row("sprinter", "biathlete B", 0.15, 0.05),     # 5 points under a band of 5
                          _check_row("balanced", "mean rounds", 27.5, 7.5, metric="rounds"),  # 2.5 rounds over
                          {**_check_row("balanced", "colour red", 0.45, 0.03), "weight": 0.0}])  # measured only
    assert check_score(check, "before") == 0
    assert check_score(check) == pytest.approx((2 / 3) ** 2 + 1 ** 2 + (2.5 / 7.5) ** 2)


def test_the_report_says_where_the_personas_disagree(tmp_path):
    f = blast_case(tmp_path)
    f.write_text(f.read_text().replace('personas = ["balanced"]\n', 'personas = ["balanced", "sprinter"]\n', 1))
    outcome = Search(load_balance(f), tmp_path / "out", budget_races=1, log=lambda x: None).run()
    write_outcome(outcome, check_races=600)
    report = (tmp_path / "out" / "report.md").read_text()
    section = report.split("## Where the personas disagree")[1].split("## Path")[0]
    assert "- after, biathlete (6 statistics under 2 personas): " in section
    assert "- after, race length (1 statistic under 2 personas): " in section
    page = (tmp_path / "out" / "page.html").read_text()
    assert "out of reach of any change that moves every persona alike" in page
    # the targets' score on the check's races beside the search's own (budget 1: base = result)
    line = next(x for x in report.splitlines() if x.startswith("Targets' part of the score"))
    check = pd.read_csv(tmp_path / "out" / "targets.csv")
    from sim.balance import check_score
    assert f"before {check_score(check, 'before'):.3f}, after {check_score(check, 'after'):.3f}" in line
    assert line.split("; on the search's races ")[1].startswith(f"{outcome.search.target_score(outcome.base):.3f}")
    assert "fresh races: before" in page


def test_fresh_rounds_play_new_races_and_undo_moves_that_lose_there(tmp_path):
    """fresh_rounds = true: from round 2 on, every round plays new races (every candidate of a round
    the same ones); the incumbent and the one the last round started from are played on them, and
    the last round's moves are undone when they lose there."""
    f = blast_case(tmp_path)
    f.write_text(f.read_text().replace("budget_races = 100000\n", "budget_races = 100000\nfresh_rounds = true\n", 1))
    bf = load_balance(f)
    assert bf.fresh_rounds
    lines: list[str] = []
    search = Search(bf, tmp_path / "out", log=lines.append)
    base = {k.name: 0 for k in bf.knobs}
    fixed = {**base, "ann-accuracy-low": -2}            # Ann's low-pulse accuracy back towards fair
    bad, good = search.evaluate(base, search.n_blocks), search.evaluate(fixed, search.n_blocks)
    assert search.total(good) < search.total(bad)
    # a round that moved from bad to good: the move holds on the new races
    held = search._fresh_races(1, good, bad)
    assert held.pos == fixed and held.key != good.key and not search.steps
    assert "moves hold" in lines[-1]
    # a round that moved from good to bad: undone, back to good, played on round 3's races
    undone = search._fresh_races(2, bad, good)
    assert undone.pos == fixed and undone.key not in (good.key, held.key)
    assert [s["knob"] for s in search.steps] == ["ann-accuracy-low"] and search.steps[0]["undone"]
    assert "are undone" in lines[-1]
    # the whole search still finds the change, and its before and after share the last round's races
    outcome = Search(bf, tmp_path / "whole", log=lambda x: None).run()
    assert outcome.final.pos["ann-accuracy-low"] < 0
    assert outcome.search.epoch >= 1 and outcome.base.key == outcome.search.key(base)
    check = outcome.check(races=1200)
    assert check.met_after.all() and not check.met_before.all()
    # round 1 plays the file's seeds, as a search without fresh_rounds does (the same log keys)
    plain = f.with_name("plain.toml")
    plain.write_text(f.read_text().replace("fresh_rounds = true\n", ""))
    assert not load_balance(plain).fresh_rounds
    assert (Search(load_balance(plain), tmp_path / "p", log=lambda x: None).key(fixed)
            == Search(bf, tmp_path / "q", log=lambda x: None).key(fixed) == good.key)


def test_confirm_takes_a_step_only_when_it_also_wins_on_races_of_its_own(tmp_path):
    """confirm = true: the best of a round's candidates won on the round's races partly by their
    luck, so a step is taken only when the candidate also beats the incumbent on the round's
    confirmation races (new seeds, played in full by both), by more than confirm_z standard errors."""
    f = blast_case(tmp_path)
    f.write_text(f.read_text().replace("budget_races = 100000\n", "budget_races = 100000\nconfirm = true\n", 1))
    bf = load_balance(f)
    assert bf.confirm and bf.confirm_z == 0
    lines: list[str] = []
    search = Search(bf, tmp_path / "out", log=lines.append)
    base = {k.name: 0 for k in bf.knobs}
    fixed = {**base, "ann-accuracy-low": -2}
    bad, good = search.evaluate(base, search.n_blocks), search.evaluate(fixed, search.n_blocks)
    played = set(search.evals)
    assert search._confirmed(0, bad, good, "ann")          # the fix wins on races of its own too
    new = set(search.evals) - played
    assert len(new) == 2 and all(search.evals[k].pos in (base, fixed) for k in new)   # new races, both played
    assert search.confirmation["confirm_difference"] < 0 and "ann: confirmed" in lines[-1]
    assert not search._confirmed(0, good, bad, "back")      # the way back loses there
    assert set(search.evals) - played == new                # the same races for every step of a round
    assert search.tried["confirmed"] == 1 and search.tried["not confirmed"] == 1
    assert search.seed_of(bf.designs[0]) == bf.designs[0].seed      # the round's races again after
    # a bar no candidate clears: nothing is confirmed, and the search stops after one round
    strict = f.with_name("strict.toml")
    strict.write_text(f.read_text().replace("confirm = true\n", "confirm = true\nconfirm_z = 10\n"))
    outcome = Search(load_balance(strict), tmp_path / "strict", log=lambda x: None).run()
    assert outcome.final.pos == base and not outcome.search.steps
    assert "won on races of its own" in outcome.search.stopped and outcome.search.tried["confirmed"] == 0
    # the whole search still finds the change, and its path says how each step did on its own races
    outcome = Search(bf, tmp_path / "whole", log=lambda x: None).run()
    assert outcome.final.pos["ann-accuracy-low"] < 0
    taken = outcome.search.steps
    assert taken and all(st["confirm_difference"] < 0 for st in taken)
    write_outcome(outcome, check_races=1200)
    report = (tmp_path / "whole" / "report.md").read_text()
    assert "on races of its own -" in report and "- confirm: every step was taken only when" in report
    # what the races can tell apart: the fully played candidates' standard errors, the steps' gains
    se = np.asarray(outcome.search.full_se)
    assert len(se) == outcome.search.tried["played in full"] and (se > 0).all()
    resolution = next(x for x in report.splitlines() if x.startswith("Resolution: "))
    assert f"median standard error of {np.median(se):.3f}" in resolution
    clear = sum(st["difference"] < -2 * st["se"] for st in taken)
    assert f"; {clear} of the {len(taken)} knob move{'' if len(taken) == 1 else 's'} taken gained more than two" \
        in resolution
    assert all(f"{st['difference']:+.3f} ± {st['se']:.3f} on the races that chose it" in report for st in taken)
    # the round's races are those of a search without confirm (the same log keys)
    plain = f.with_name("plain.toml")
    plain.write_text(f.read_text().replace("confirm = true\n", ""))
    assert not load_balance(plain).confirm
    assert Search(load_balance(plain), tmp_path / "q", log=lambda x: None).key(fixed) == good.key


def _logged(folder: Path) -> dict[str, tuple]:
    """Every evaluation's last logged state: key -> (blocks, score)."""
    out = {}
    for line in (folder / "log.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["event"] == "evaluation":
            out[e["key"]] = (json.dumps(e["blocks"], sort_keys=True), e.get("score"))
    return out


def test_candidates_played_side_by_side_match_one_by_one(tmp_path):
    """A round's candidates play side by side (evaluate_many, one batch of tasks): each gets exactly
    the sums it gets played alone, and the search takes the same steps, logs the same evaluations
    and stops at the same place under a race budget whatever the number of workers."""
    f = blast_case(tmp_path)
    bf = load_balance(f)
    base = {k.name: 0 for k in bf.knobs}
    positions = [base, {**base, "ann-accuracy-low": -1}, {**base, "bo-one-initiative": 1},
                 {**base, "ann-accuracy-low": -2, "bo-one-initiative": -1}]
    half = {k: v // 2 for k, v in Search(bf, tmp_path / "x", log=lambda s: None).n_blocks.items()}
    together = Search(bf, tmp_path / "together", n_jobs=2, log=lambda s: None)
    batch = together.evaluate_many([(p, half) for p in positions] + [(positions[1], together.n_blocks)])
    assert len(batch) == 5 and batch[1] is batch[4]           # asked twice: played once, the more races
    alone = Search(bf, tmp_path / "alone", log=lambda s: None)
    for p, ev in zip(positions, batch):
        one = alone.evaluate(p, together.n_blocks if p is positions[1] else half)
        assert one.blocks == ev.blocks
        for label in one.sums:
            assert np.array_equal(one.sums[label], ev.sums[label])
    assert together.races_played == alone.races_played
    # every evaluation of the batch is in the log, with its blocks (a rerun plays nothing)
    again = Search(bf, tmp_path / "together", log=lambda s: None)
    again.evaluate_many([(p, half) for p in positions])
    assert again.races_played == 0
    # whole searches, on one worker and on two, with a budget that stops them part way
    runs = {}
    for jobs in (1, 2):
        s = Search(bf, tmp_path / f"j{jobs}", n_jobs=jobs, budget_races=2000, log=lambda s: None)
        out = s.run()
        runs[jobs] = (out.final.pos, s.races_used, s.stopped, s.steps, s.tried, _logged(tmp_path / f"j{jobs}"))
    assert runs[1] == runs[2]
    assert runs[1][2].startswith("the race budget")


def test_a_candidate_whose_data_is_invalid_is_logged_so_alone_or_loaded_on_workers(tmp_path):
    """Candidates' data is read and compiled on the workers, by the tasks that play them: a candidate
    the validator rejects (here Ann's medium-pulse threshold below her low-pulse one) is marked
    invalid with the validator's words and logged, the same as when it is read in the main
    process, and the batch's other candidates play as they would alone."""
    f = blast_case(tmp_path)
    f.write_text(f.read_text() + """
[[knob]]
name = "ann-accuracy-medium"
file = "biathletes/ann.toml"
path = "accuracy"
index = 1
min = 1
max = 5
step = 1
""")
    bf = load_balance(f)
    base = {k.name: 0 for k in bf.knobs}
    bad = {**base, "ann-accuracy-medium": -3}            # accuracy [4, 2, 5]: better at medium pulse
    good = {**base, "ann-accuracy-low": -1}
    quarter = {k: v // 4 for k, v in Search(bf, tmp_path / "x", log=lambda s: None).n_blocks.items()}
    together = Search(bf, tmp_path / "together", n_jobs=2, log=lambda s: None)
    batch = together.evaluate_many([(base, quarter), (bad, quarter), (good, quarter)])
    alone = Search(bf, tmp_path / "alone", log=lambda s: None)
    one = [alone.evaluate(p, quarter) for p in (base, bad, good)]
    assert "accuracy" in batch[1].invalid and "must not get better as pulse rises" in batch[1].invalid
    assert batch[1].invalid == one[1].invalid
    assert not batch[0].invalid and not batch[2].invalid
    for b, o in ((batch[0], one[0]), (batch[2], one[2])):
        assert b.bundle_hash == o.bundle_hash and b.blocks == o.blocks
        for label in o.sums:
            assert np.array_equal(b.sums[label], o.sums[label])
    assert together.races_played == alone.races_played > 0
    logged = [json.loads(line) for line in (tmp_path / "together" / "log.jsonl").read_text().splitlines()]
    assert [e["invalid"] for e in logged if e["event"] == "evaluation" and e["invalid"]] == [batch[1].invalid]
    again = Search(bf, tmp_path / "together", n_jobs=2, log=lambda s: None)
    assert again.evaluate_many([(bad, quarter)])[0].invalid == batch[1].invalid and again.races_played == 0




def test_a_data_folder_edited_between_two_searches_is_read_again(tmp_path):
    """Candidates' data stays loaded in a process for the tasks that follow (candidate_bundle), and
    processes outlive a search: a second search on the same folder, edited in between, must play
    the edited data, not the first search's."""
    from minidata import edit

    f = blast_case(tmp_path)
    bf = load_balance(f)
    base = {k.name: 0 for k in bf.knobs}
    quarter = {k: v // 4 for k, v in Search(bf, tmp_path / "x", log=lambda s: None).n_blocks.items()}
    first = Search(bf, tmp_path / "first", log=lambda s: None).evaluate(base, quarter)
    edit(tmp_path / "data" / "biathletes" / "ann.toml", "accuracy = [4, 5, 5]", "accuracy = [2, 3, 4]")
    second_search = Search(load_balance(f), tmp_path / "second", log=lambda s: None)
    second = second_search.evaluate(base, quarter)
    assert second.bundle_hash == second_search.base_bundle.data_hash != first.bundle_hash
    assert any(not np.array_equal(first.sums[k], second.sums[k]) for k in first.sums)

@pytest.mark.parametrize("jobs", [1, 2, 16])
def test_guided_tasks_cover_the_work_once_largest_first(jobs):
    """A batch's work is cut into tasks that cover every block of every piece exactly once, in order,
    cut only at whole blocks; the tasks shrink from about a (2 x workers)-th of the work to about a
    (16 x workers)-th, so a batch is a few tasks per worker, not one per candidate and design."""
    from sim.balance.play import guided_tasks

    rng = np.random.default_rng(jobs)
    work = [(f"c{c}", f"d{d}", int(b0), int(b0 + n), int(per)) for c in range(32) for d in range(8)
            for b0, n, per in [(rng.integers(0, 5), rng.integers(1, 13), rng.choice([24, 48, 96]))]]
    tasks = guided_tasks(work, jobs)
    pieces = [p for t in tasks for p in t]
    covered = {}
    for owner, label, a, e in pieces:
        assert a < e
        covered.setdefault((owner, label), []).append((a, e))
    for owner, label, b0, b1, _ in work:
        spans = covered[(owner, label)]
        assert spans[0][0] == b0 and spans[-1][1] == b1
        assert all(x[1] == y[0] for x, y in zip(spans, spans[1:]))       # contiguous, no overlap
    assert list(dict.fromkeys(p[:2] for p in pieces)) == [w[:2] for w in work]      # in the work's order
    per = {(o, lab): r for o, lab, _, _, r in work}
    sizes = [sum((e - a) * per[(o, lab)] for o, lab, a, e in t) for t in tasks]
    total = sum(sizes)
    big = max(per.values())
    assert sizes[0] >= total / (2 * jobs) - big and sizes[0] <= total / (2 * jobs) + big
    assert all(s >= total / (16 * jobs) - big for s in sizes[:-1])
    assert len(tasks) <= 2 * jobs * 6 + 16 * jobs
    assert sizes[-1] <= sizes[0]


# the mini case's file (its data beside it) with a third knob and a [start]
PARENT = BLAST.format(data="data") + """
[[knob]]
name = "ann-accuracy-high"
file = "biathletes/ann.toml"
path = "accuracy"
index = 2
min = 1
max = 5
step = 1

[start]
bo-one-initiative = 4
"""

CHILD = """\
extends = "../parent/balance.toml"
title = "child"
seed = 6
drop_knobs = ["ann-accuracy-high"]
drop_targets = ["length"]

[[knob]]
name = "ann-accuracy-low"      # replaces the parent's where it stands: a narrower range
file = "biathletes/ann.toml"
path = "accuracy"
index = 0
min = 2
max = 4
step = 1

[[knob]]
name = "ann-accuracy-medium"   # added after the parent's
file = "biathletes/ann.toml"
path = "accuracy"
index = 1
min = 1
max = 5
step = 1

[start]
ann-accuracy-low = 3
"""


def test_a_balance_file_extends_another(tmp_path):
    """extends: the other file first, this file's keys over it; a knob or target named like one of
    the other's replaces it in place, others are added, drop_knobs / drop_targets remove; data is
    relative to the file that names it."""
    write_minidata(tmp_path / "parent" / "data")
    (tmp_path / "parent" / "balance.toml").write_text(PARENT)
    (tmp_path / "child").mkdir()
    child = tmp_path / "child" / "balance.toml"
    child.write_text(CHILD)
    parent, bf = load_balance(tmp_path / "parent" / "balance.toml"), load_balance(child)
    assert (bf.title, bf.seed, bf.races, bf.budget_races) == ("child", 6, 1200, 100000)
    assert bf.data == parent.data == str((tmp_path / "parent" / "data").resolve())
    assert [k.name for k in bf.knobs] == ["ann-accuracy-low", "bo-one-initiative", "ann-accuracy-medium"]
    assert (bf.knobs[0].lo, bf.knobs[0].hi) == (2, 4) and bf.knobs[1] == parent.knobs[1]
    assert [t.name for t in bf.targets] == ["biathletes fair"]
    assert bf.start == {"ann-accuracy-low": 1}            # [start] replaced whole: positions from the base 2
    assert [d.label for d in bf.designs] == [d.label for d in parent.designs]
    assert [d.seed for d in bf.designs] != [d.seed for d in parent.designs]


@pytest.mark.parametrize("change, expected", [
    ('extends = "../parent/balance.toml"', "child.toml: extends: '../parent/nothing.toml' is not a file"),
    ('drop_knobs = ["ann-accuracy-high"]', "child.toml: drop_knobs: names no [[knob]] of '../parent/balance.toml': 'nobody'"),
    ('extends = "../parent/balance.toml"', "extends: 'child.toml' extends, directly or not, this file: a loop"),
    ("name = \"bo-one-initiative\"", "balance.toml: knob 'bo-one-initiative': path: "),
])
def test_a_bad_extends_names_the_file_and_field(change, expected, tmp_path, capsys):
    write_minidata(tmp_path / "parent" / "data")
    parent = PARENT
    child = CHILD
    if "loop" in expected:
        child = child.replace(change, 'extends = "child.toml"')
    elif "nothing" in expected:
        child = child.replace(change, 'extends = "../parent/nothing.toml"')
    elif "nobody" in expected:
        child = child.replace(change, 'drop_knobs = ["nobody"]')
    else:       # a mistake in the parent's knob is reported against the parent's file
        parent = parent.replace('path = "card[Bo One].initiative"', 'path = "card[Nobody].initiative"')
    (tmp_path / "parent" / "balance.toml").write_text(parent)
    (tmp_path / "child").mkdir()
    (tmp_path / "child" / "child.toml").write_text(child)
    assert main(["balance", str(tmp_path / "child" / "child.toml"), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert expected in err, err
    if "Nobody" in parent:
        assert "parent/balance.toml: knob 'bo-one-initiative'" in err and "child.toml: knob" not in err


# --- the players that bind and bound, and the front (issue 31) -----------------------------------------

FRONT = """\
game = "blast"
title = "two knobs that pull two personas opposite ways"
data = "{data}"
seed = 31
races = 600
check_races = 600
budget_races = 10000000
max_rounds = 6

[players]
binds = "balanced"
bound = ["sprinter", "conservative"]

[designs]
scenarios = ["Loop"]
racers = [4]

[front]
weights = [0.0, 4.0]
rounds = 4
points = 4

[[target]]
name = "biathletes fair"
metric = "win_rate"
by = "biathlete"
within_pp = 3
bound_pp = 8

[[knob]]
name = "ann-flat"
file = "biathletes/ann.toml"
path = "card[Ann One].top.flat"
min = 0
max = 10
step = 1

[[knob]]
name = "bo-flat"
file = "biathletes/bo.toml"
path = "card[Bo One].top.flat"
min = 0
max = 10
step = 1
"""


def _front_play(game, bundle, design, seed, a, b, stats, block):
    """A synthetic game for the front's logic (the real one is too slow to trace a front in a test):
    Ann's win rate moves 4 points per step of her card's flat steps and -2 per step of Bo's under the
    balanced persona, the opposite ways under sprinter, and sits at 60% under conservative whatever
    the data; every other biathlete is at the fair share. Races are binomial draws on the block's
    own seed, the same for every candidate (common random numbers)."""
    flat = {bi.name: next(c for c in bi.cards if c.name == f"{bi.name} One").top.flat.base
            for bi in bundle.data.biathletes}
    x, y = flat["Ann"] - 4, flat["Bo"] - 4
    persona = design.players[0]
    ann = {"balanced": 0.13 + 0.04 * x - 0.02 * y, "sprinter": 0.19 - 0.04 * x + 0.02 * y}.get(persona, 0.60)
    nb = (b - a) // block
    out = np.zeros((2, nb, len(stats)))
    for k in range(nb):
        rng = np.random.default_rng([seed, a // block + k])
        u = rng.random((block, len(stats)))
        for j, s in enumerate(stats):
            p = ann if s.label == "Ann" else 0.25
            out[0, k, j], out[1, k, j] = (u[:, j] < min(max(p, 0), 1)).sum(), block
    return out


def test_the_front_trades_the_binding_player_against_a_bound_one(tmp_path, monkeypatch):
    import sim.balance.outcome as outcome_mod
    import sim.balance.search as search_mod

    monkeypatch.setattr(search_mod, "play_sums", _front_play)
    monkeypatch.setattr(outcome_mod, "play_sums", _front_play)
    data = write_minidata(tmp_path / "data")
    f = tmp_path / "front.toml"
    f.write_text(FRONT.format(data=data))
    bf = load_balance(f)
    assert [d.persona for d in bf.designs] == ["balanced", "sprinter", "conservative"]
    assert {(t.personas, t.within_pp) for t in bf.targets} == {(("balanced",), 3), (("sprinter", "conservative"), 8)}
    search = Search(bf, tmp_path / "out", log=lambda x: None)
    outcome = search.run()
    # conservative's Ann is out of every band whatever the knobs do: reported, not searched for
    assert [(u["persona"], u["statistic"]) for u in search.unreachable] == [("conservative", "biathlete Ann")]
    paths, page = outcome.write()          # the tables and report.md (the HTML page: below, without rendering)
    front = pd.read_csv(paths["front"])
    # a trade-off: along the front the headline rises as the worst bound persona's distance falls
    assert len(front) >= 3
    assert (front.headline.diff().dropna() > 0).all() and (front.worst.diff().dropna() < 0).all()
    assert front.headline.iloc[-1] > 0 and front.worst.iloc[0] > 0
    assert (front.worst_persona[front.worst > 0] == "sprinter").all()
    # every point carries its changes and its check on fresh races; the result is the nearest point
    assert front.changes.notna().all() and front.check_headline.notna().all()
    near = front[front.nearest]
    assert len(near) == 1
    assert (near.headline + near.worst).iloc[0] == pytest.approx((front.headline + front.worst).min())
    points = pd.read_csv(paths["front_targets"])
    assert sorted(points.point.unique()) == list(front.point)
    report = paths["report"].read_text()
    assert "The targets conflict" in report and "conservative: Loop-4-conservative biathlete Ann" in report
    assert "the front's descent with the bound personas' weight x0" in report
    from reports.pages import _front_section
    section = _front_section(page["front"])
    assert [name for name, _, _ in section.figures] == ["front"] and "result is point" in section.findings[0]


def test_a_list_of_options_plays_every_design_once_per_table(tmp_path, capsys):
    """[designs] options as a list of tables (Ski Tour's two board sides): every scenario, racer
    count and persona once per table, labelled by the table's values; a single table keeps the
    labels (and so the seeds) it had; anything else is refused naming the field."""
    f = skitour_case(tmp_path)
    text = f.read_text()
    one = load_balance(f)
    assert [d.label for d in one.designs] == ["Starter-4-balanced"]
    f.write_text(text.replace('racers = [4]', 'racers = [4]\noptions = [{ side = "basic" }, { side = "advanced" }]'))
    bf = load_balance(f)
    assert [(d.label, d.design.side) for d in bf.designs] == [("Starter-basic-4-balanced", "basic"),
                                                               ("Starter-advanced-4-balanced", "advanced")]
    assert bf.designs[0].seed != bf.designs[1].seed
    f.write_text(text.replace('racers = [4]', 'racers = [4]\noptions = ["basic"]'))
    assert main(["balance", str(f), "--dry-run"]) == 2
    assert "balance.toml: designs.options: must be a table of option = value, or a list of such tables" in capsys.readouterr().err


def test_sensitivities_of_a_knob_whose_choices_are_lists():
    """A choice knob may move a whole list (a Ski Tour stamina layout): the page reads its first
    step as a choice, by its text, not as a number."""
    from sim.balance.page import sensitivity_lines

    old, new, other = ["5G", "4Y", "1B"], ["6G", "5G", "1B"], ["5G", "4G", "1B"]
    changes = pd.DataFrame([{"knob": "austria-stamina", "old": old, "new": new}])
    row = dict(knob="austria-stamina", steps=1.0, design="Long-advanced-4-balanced", races=2000, incumbent=0.06)
    sens = pd.DataFrame([{**row, "from": str(old), "to": str(new), "statistic": "nation Austria",
                          "candidate": 0.26, "per_step": 0.20, "se_per_step": 0.01},
                         {**row, "from": str(old), "to": str(other), "statistic": "nation Austria",
                          "candidate": 0.10, "per_step": 0.04, "se_per_step": 0.01}])
    lines = sensitivity_lines(sens, changes)
    assert len(lines) == 1 and lines[0].startswith("- austria-stamina (")
    assert "nation Austria +20.00 pp" in lines[0] and "+4.00" not in lines[0]
