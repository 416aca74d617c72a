"""Robustness across personas, like with like: a persona's cell that plays the reference's own races
(`same_races_as`) is compared race by race, with a test of persona x entrant interaction."""
import pandas as pd

from reports.report import build_report
from sim.results_folder import open_results
from sim.study import load_study, run_study

STUDY = """
title = "pair"
seed = 3
[defaults]
races = 960
[[cell]]
name = "balanced-Kurz-4"
trail = "Kurz"
racers = 4
[[cell]]
name = "sprinter"
trail = "Kurz"
racers = 4
players = ["sprinter"]
races = 480
same_races_as = "balanced-{trail}-4"
"""


def test_persona_cells_pair_with_the_reference_races(tmp_path):
    path = tmp_path / "pair.toml"
    path.write_text(STUDY)
    study = load_study(path)
    assert study.cells[0].seed == study.cells[1].seed                    # the same races
    run_study(study, tmp_path / "out", progress=False, log=lambda *_: None)
    seats = {c: pd.read_parquet(tmp_path / "out" / "results" / f"cell={c}" / "variant=base")
             for c in ("balanced-Kurz-4", "sprinter")}
    ref = seats["balanced-Kurz-4"]
    ref = ref[ref.race < 480].reset_index(drop=True)
    assert (ref.biathlete.to_numpy() == seats["sprinter"].biathlete.to_numpy()).all()   # same line-ups
    report = build_report(open_results(tmp_path / "out"), tmp_path / "rep", log=lambda *_: None)
    paired = pd.read_csv(tmp_path / "rep" / "tables" / "persona_paired_changes.csv")
    assert set(paired.persona) == {"sprinter"} and (paired.races == 240).all()   # 480 races x 4 seats / 8
    assert abs(paired.change.sum()) < 1e-9        # one winner a race on each side, equal races per biathlete
    inter = pd.read_csv(tmp_path / "rep" / "tables" / "persona_interaction.csv")
    assert inter.df.iloc[0] == 7 and 0 <= inter.p.iloc[0] <= 1
    assert any("Personas on the reference's own races" in f for f in report.findings)
