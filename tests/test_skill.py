"""Optional cell groups (`optional = "GROUP"`, `study --include GROUP`) and the report's strong-play
section (reports/skill.py): the default's verdicts measured again under the strength reference."""
import pandas as pd
import pytest

from reports import core
from reports.base import Context, ReportOptions
from reports.skill import skill_section, tag
from sim.cli import main
from sim.results_folder import open_results
from sim.study import load_study, run_study

# The strength reference here is a cheap one (1 rollout a card, judged after 2 rounds) under the
# reference's name, so the test plays in seconds; the shipped one is 24 rollouts to the finish.
CHEAP = """
name = "reference"
kind = "reference"
base = "distilled"
[weights]
rollouts = 1
depth = 2
"""

STUDY = """
title = "skill"
seed = 5
[defaults]
races = 960
[[cell]]
name = "balanced-Kurz-4"
trail = "Kurz"
racers = 4
[[cell]]
name = "reference"
trail = "Kurz"
racers = 4
players = ["{cheap}"]
races = 96
same_races_as = "balanced-{{trail}}-4"
optional = "skill"
[[cell]]
name = "random"
trail = "Kurz"
racers = 4
players = ["random"]
races = 480
same_races_as = "balanced-{{trail}}-4"
optional = "skill"
"""

QUIET = dict(progress=False, log=lambda *_: None)


@pytest.fixture(scope="module")
def skill_study(tmp_path_factory):
    d = tmp_path_factory.mktemp("skill")
    (d / "cheap.toml").write_text(CHEAP)
    (d / "skill.toml").write_text(STUDY.format(cheap=d / "cheap.toml"))
    return d, load_study(d / "skill.toml")


def test_tags_follow_the_reference_verdict():
    assert tag("over", "over") == tag("under", "under") == "holds under strong play"
    assert tag("over", "in band") == tag("over", "under") == "depends on the player"
    assert tag("under", "not enough races") == "not settled under strong play"
    assert tag("in band", "over") == "appears under strong play"
    assert tag("in band", "in band") == tag("not enough races", "not enough races") == ""


def test_optional_cells_play_only_when_included(skill_study):
    d, study = skill_study
    assert study.groups == {"skill": ["reference", "random"]}
    assert [c.name for c in study.selected()] == ["balanced-Kurz-4"]
    assert [c.name for c in study.selected(include=["skill"])] == ["balanced-Kurz-4", "reference", "random"]
    assert [c.name for c in study.selected(["random"])] == ["random"]          # --cells names it: played
    out = d / "out"
    run_study(study, out, **QUIET)
    assert not (out / "results" / "cell=reference").exists()
    src = open_results(out)
    # neither planned nor missing: a full result, with the group named and how to play it
    assert src.optional == {"skill": ("reference", "random")}
    assert src.planned == src.played == 960 and src.planned_cells == ("balanced-Kurz-4",)
    ctx = Context(src, ReportOptions())
    section, warnings = core.health_section(ctx)
    health = section.tables[0][1].set_index("measure").value
    assert "--include skill" in health["optional group not played: skill"]
    assert health["cells missing"] == "none" and warnings == []
    skill = skill_section(ctx)
    assert "--include skill" in skill.skipped and "distilled" in skill.skipped


def test_the_reference_tags_the_default_verdicts_on_the_same_races(skill_study):
    d, study = skill_study
    out = d / "out"
    run_study(study, out, include=["skill"], **QUIET)      # the same folder: the group is added
    src = open_results(out)
    assert src.optional == {} and set(src.planned_cells) == {"balanced-Kurz-4", "reference", "random"}
    ctx = Context(src, ReportOptions())
    skill = skill_section(ctx)
    tables = {name: t for name, t, *_ in skill.tables}
    v = tables["strong_play_verdicts"]
    assert len(v) == 8 and (v.strong_races == 96 * 4 // 8).all()          # 96 races x 4 seats / 8 biathletes
    assert set(v.tag) <= {"", "holds under strong play", "depends on the player",
                                     "not settled under strong play", "appears under strong play"}
    # the tag is the rule applied to the two verdicts
    assert all(t == tag(a, b) for t, a, b in zip(v.tag, v.default_verdict, v.strong_verdict))
    # the default's column is read on the reference's own 96 races (paired), not its 960
    base = src.read(["race", "won", "biathlete_name"], ["balanced-Kurz-4"], ["base"])
    won = base[base.race < 96].groupby("biathlete_name").won.mean()
    assert len(won) == 8 and len(base) == 960 * 4
    assert dict(zip(v.biathlete_name, v.default_win_rate)) == pytest.approx(won.to_dict())
    grad = tables["skill_gradient"]
    assert list(grad.player) == ["random", "distilled", "reference"]
    seat0 = tables["strong_play_seat0"]
    assert list(seat0.player) == ["distilled", "reference"]
    assert not skill.skipped and any("first player on Kurz" in f for f in skill.findings)
    # a seat verdict the interval cannot settle is said so, not as a short count of races
    assert not any("not enough races" in f for f in skill.findings if "first player" in f)
    # what the verdict's "What to change first" adds to each tagged entrant and to seat 0
    tagged = v[v.tag != ""]
    assert {who for dim, who in ctx.strong if dim == "biathlete"} == set(tagged.biathlete_name)
    assert len(ctx.strong[("seat", "seat 0")]) == 1 and "Kurz at 4 racers" in ctx.strong[("seat", "seat 0")][0]
    # random and the reference are skill levels: the robustness section does not rank them as styles
    rob = core.robustness_section(ctx)
    assert rob.skipped and "Only one persona" in rob.skipped


def test_study_include_names_a_group_or_exits_2(skill_study, capsys):
    d, _ = skill_study
    assert main(["study", str(d / "skill.toml"), "--dry-run", "--include", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no optional group named 'nope'" in err and "skill" in err and "Traceback" not in err
    assert main(["study", str(d / "skill.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "optional group 'skill' not played" in out and "--include skill" in out
