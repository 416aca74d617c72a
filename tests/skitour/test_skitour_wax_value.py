"""The value of each wax token in the Ski Tour report: paired variants that swap one token of a
nation for a blank (experiments/skitour.toml) give, in the wax section, the nation's win rate with
the token less without it, with intervals, equal to the race-by-race differences of the raw table."""
import textwrap

import numpy as np
import pandas as pd
import pytest

from reports.report import build_report
from reports.skitour import blanked_tokens
from sim.results_folder import open_results
from sim.skitour import load_data
from sim.study import load_study, read_study, run_study

NORWAY = [t.text for t in next(n for n in load_data().nations if n.name == "Norway").wax]


def blanked(i):
    return [("blank" if k == i else t) for k, t in enumerate(NORWAY)]


STUDY = f"""
title = "wax value"
game = "skitour"
seed = 5

[[variant]]
name = "no-sprint"
set = [{{ file = "nations/norway.toml", path = "wax.tokens", value = {blanked(NORWAY.index("sprint"))!r} }}]

[[variant]]
name = "no-reroll_shot"
set = [{{ file = "nations/norway.toml", path = "wax.tokens", value = {blanked(NORWAY.index("reroll_shot"))!r} }}]

[[variant]]
name = "other-change"
set = [{{ file = "nations/norway.toml", path = "columns.sprint", value = 3 }}]

[[variant]]
name = "first-drawn"
set = [{{ file = "game.toml", path = "switches.first_player", value = "drawn" }}]

[[cell]]
name = "wax"
course = "Starter"
racers = 4
races = 600
players = ["balanced"]
options = {{ side = "basic" }}
variants = ["base", "no-sprint", "no-reroll_shot", "other-change", "first-drawn"]
"""


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("waxvalue")
    path = root / "study.toml"
    path.write_text(textwrap.dedent(STUDY))
    run_study(load_study(path), root / "results", progress=False, log=lambda *_: None)
    return root / "results"


def test_only_variants_that_blank_one_token_are_token_values(study_dir):
    t = blanked_tokens(open_results(study_dir))
    assert t == {"no-sprint": ("Norway", NORWAY.index("sprint"), "sprint"),
                 "no-reroll_shot": ("Norway", NORWAY.index("reroll_shot"), "reroll_shot")}


def test_token_value_is_the_paired_win_rate_difference_with_an_interval(study_dir, tmp_path):
    build_report(open_results(study_dir), tmp_path / "r", log=lambda *_: None)
    table = pd.read_csv(tmp_path / "r" / "tables" / "wax_token_value.csv")
    rows = read_study(study_dir, columns=["race", "seat", "won", "nation"])
    nor = rows[rows.nation_name == "Norway"]
    wide = nor.pivot_table(index=["race", "seat"], columns="variant", values="won", observed=True)
    for variant, token in (("no-sprint", "sprint"), ("no-reroll_shot", "reroll_shot")):
        r = table[(table.token_id == token) & (table.course_name == "all")].iloc[0]
        d = (wide["base"] - wide[variant]).groupby(level="race").mean()
        if r.measurable == "yes":
            assert r.value == pytest.approx(d.mean())
            assert r.value_low <= r.value <= r.value_high
        assert r.units == len(d) and r.changed == int((d != 0).sum())
    sprint = table[(table.token_id == "sprint") & (table.course_name == "all")].iloc[0]
    assert sprint.value_low < sprint.value_high and sprint.changed >= 30 and sprint.measurable == "yes"
    # the default lays reroll_shot in its row since issue 27 item 2 (token_reroll_shot 1.5; before,
    # at 0.5, the blank changed no race and the value was "not measurable with these players"):
    # the blank now changes races, and the value is measured as the sprint's
    shot = table[(table.token_id == "reroll_shot") & (table.course_name == "all")].iloc[0]
    assert shot.token == "re-roll a shooting die"
    assert shot.changed >= 30 and shot.measurable == "yes" and not np.isnan(shot.value)
    findings = (tmp_path / "r" / "findings.txt").read_text()
    assert "Value of each wax token of Norway" in findings and "sprint +" in findings
    # which readings matter: the one switch-only variant, paired on the same races; a drawn first
    # player leaves the nations alone (the dice are the same) but may move seat 0's share (under
    # the pacing default of issue 27 the first player's edge is within these 600 races' noise)
    ranked = pd.read_csv(tmp_path / "r" / "tables" / "readings_ranked.csv")
    assert list(ranked.variant) == ["first-drawn"]
    effects = pd.read_csv(tmp_path / "r" / "tables" / "readings_effects.csv").set_index("measure")
    seat0 = effects.loc["seat 0's win rate (the first player)"]
    assert seat0.low <= seat0.change <= seat0.high and seat0.races == 600
    assert effects.loc["rounds per race"].low <= 0 <= effects.loc["rounds per race"].high
