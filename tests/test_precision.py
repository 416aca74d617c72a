"""Precision by design (sim.precision): a cell asks for a half-width instead of a race count, is
sized from a pilot of its own races, and its intervals cover the truth as often as they claim.

Biathlon Mania's figure colours are cosmetic and rotate through the seats, so every colour's true
win rate is exactly 1/racers: a data set whose truth is known without simulation."""
import numpy as np
import pytest

from sim import games
from sim.precision import Target, half_widths, races_needed
from sim.run import play_chunk, read_results
from sim.study import load_study, run_study


@pytest.fixture(scope="module")
def mania():
    mod = games.game("mania").load()
    return mod, mod.load_bundle(None)


def test_cluster_robust_intervals_cover_at_the_stated_rate(mania):
    """200 replicate runs of 2-racer races (blocks of 8 repeat line-ups, so races within a block
    are not independent): the 95% interval of every colour's win rate covers 1/2 about 95% of
    the time (a binomial 99.9% band around 0.95 for 1,600 intervals: 0.93 to 0.97)."""
    mod, bundle = mania
    design = mod.make_design("red", 2)
    seats, _ = play_chunk("mania", bundle, design, 11, 0, 200 * 160)
    import pandas as pd

    rows = pd.DataFrame({k: seats[k] for k in ("race", "won", "colour")})
    covered = []
    for rep in range(200):
        part = rows[(rows.race >= rep * 160) & (rows.race < (rep + 1) * 160)]
        w = half_widths(part, ["colour"], mod.block(bundle, design))
        covered += list((w.win_rate - 0.5).abs() <= w.half_width)
    coverage = float(np.mean(covered))
    assert 0.93 <= coverage <= 0.97, coverage


def test_a_target_cell_is_sized_from_its_pilot_and_meets_the_target(mania, tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('title = "p"\ngame = "mania"\nseed = 4\n'
                    '[[cell]]\nname = "t"\ntrack = "red"\nracers = 4\nraces = 40000\nprecision_pp = 2.0\n'
                    '[[cell]]\nname = "fixed"\ntrack = "red"\nracers = 3\nraces = 240\n')
    lines = []
    summary = run_study(load_study(path), tmp_path / "out", progress=False, log=lines.append)
    played = int(summary[summary.cell == "t"].races.sum()) // 4
    assert 800 <= played < 40000, played                         # sized: more than the pilot, under the cap
    assert any(f"t: {played:,} races for ±2 pp at 95%" in ln for ln in lines), lines
    import json

    manifest = json.loads((tmp_path / "out" / "results" / "cell=t" / "variant=base" / "_manifest.json").read_text())
    assert manifest["planned_races"] == played and manifest["target"]["cap"] == 40000
    mod, bundle = mania
    seats = read_results(tmp_path / "out" / "results" / "cell=t" / "variant=base")
    widest = half_widths(seats, ["colour"], 8).half_width.max()
    assert widest <= 0.02 * 1.15, widest                         # the target, within the pilot's error
    again = run_study(load_study(path), tmp_path / "again", n_jobs=2, progress=False, log=lambda *_: None)
    assert again.equals(summary)                                  # the same count and table on 2 workers


def test_a_target_in_wins_per_fair_share_is_a_share_of_each_cells_fair_share(tmp_path):
    """precision_ratio = 0.2 asks every win rate to ±0.2 x its fair share, the unit of the report's
    tolerance band: ±10 pp with 2 racers, ±5 pp with 4; each cell is sized to its own target."""
    import json

    path = tmp_path / "r.toml"
    path.write_text('title = "r"\ngame = "mania"\nseed = 4\n'
                    '[[cell]]\nname = "t"\ntrack = "red"\nracers = [2, 4]\nraces = 4000\nprecision_ratio = 0.2\n')
    study = load_study(path)
    assert [(c.target.half_width, c.target.ratio) for c in study.cells] == [(0.1, 0.2), (0.05, 0.2)]
    lines = []
    run_study(study, tmp_path / "out", progress=False, log=lines.append)
    for n in (2, 4):
        assert any(f"t-{n}: " in ln and f"for ±0.2 x a fair share (±{20 // n} pp) at 95%" in ln for ln in lines), lines
        folder = tmp_path / "out" / "results" / f"cell=t-{n}" / "variant=base"
        manifest = json.loads((folder / "_manifest.json").read_text())
        assert manifest["target"]["half_width"] == pytest.approx(0.2 / n) and manifest["target"]["ratio"] == 0.2
        widest = half_widths(read_results(folder), ["colour"], 8).half_width.max()
        assert widest <= 0.2 / n * 1.15, (n, widest)           # the target, within the pilot's error


def test_races_needed_scales_with_the_square_of_the_precision(mania):
    mod, bundle = mania
    design = mod.make_design("red", 4)
    seats, _ = play_chunk("mania", bundle, design, 2, 0, 2400)
    import pandas as pd

    rows = pd.DataFrame({k: seats[k] for k in ("race", "won", "colour")})
    coarse = races_needed(rows, ["colour"], 8, Target(0.02, 10**7, 2400), 2400)
    fine = races_needed(rows, ["colour"], 8, Target(0.01, 10**7, 2400), 2400)
    assert 3.8 <= fine / coarse <= 4.2
    assert races_needed(rows, ["colour"], 8, Target(0.01, 5000, 2400), 2400) == 5000     # the cap holds


def test_a_run_with_a_target_is_sized_alike_in_memory_and_on_disk(mania, tmp_path):
    from sim.run import run_races

    mod, bundle = mania
    design = mod.make_design("yellow", 3)
    target = Target(0.02, 40000, 0)
    a, info_a = run_races(bundle, design, 40000, 6, game="mania", target=target, progress=False)
    b, info_b = run_races(bundle, design, 40000, 6, game="mania", target=target, progress=False, n_jobs=2,
                          chunk_size=300, out=tmp_path / "r")
    assert info_a.planned == info_b.planned and 0 < info_a.planned < 40000
    assert a.equals(b) and len(a) == info_a.planned * 3


def test_run_command_takes_a_precision(tmp_path):
    from sim.cli import main

    assert main(["--game", "mania", "run", "--track", "red", "--racers", "2", "--races", "50000",
                 "--precision-pp", "2", "--quiet", "--out", str(tmp_path / "r")]) == 0
    assert main(["--game", "mania", "run", "--track", "red", "--racers", "2", "--races", "50000",
                 "--precision-pp", "0", "--quiet"]) == 2


def test_the_reports_win_rate_intervals_cover_at_the_stated_rate(mania):
    """reports.metrics.win_rates with races clustered by balanced block (what the report's main
    tables use): over 200 replicate runs of 2-racer Mania races, the 95% intervals of the cosmetic
    colours' win rates cover 1/2 between 93% and 97% of the time."""
    import pandas as pd

    from reports.base import with_clusters
    from reports.metrics import win_rates

    mod, bundle = mania
    design = mod.make_design("red", 2)
    seats, _ = play_chunk("mania", bundle, design, 12, 0, 200 * 160)
    rows = pd.DataFrame({k: seats[k] for k in ("race", "won", "colour", "n_racers")})
    covered = []
    for rep in range(200):
        part = rows[(rows.race >= rep * 160) & (rows.race < (rep + 1) * 160)].assign(cell="c")
        t = win_rates(with_clusters(part, {"c": 8}), ["colour"])
        covered += list((t.low <= 0.5) & (0.5 <= t.high))
    assert 0.93 <= float(np.mean(covered)) <= 0.97, float(np.mean(covered))


def test_a_sized_cell_meets_its_target_in_at_least_95_percent_of_runs(mania):
    """60 replicate runs of a cell sized to ±10 pp from a 30-block pilot (2-racer Mania races): the
    final widest half-width meets the target in at least 95% of them. Sized from the pilot's
    variance as it stands, about a run in five would miss it; the upper confidence bound of that
    variance (sim.precision.variance_margin) is the margin that makes the target hold."""
    import pandas as pd

    from sim.precision import sizing, variance_margin

    mod, bundle = mania
    design = mod.make_design("red", 2)
    block, runs, cap, target = mod.block(bundle, design), 60, 1000, 0.10
    seats, _ = play_chunk("mania", bundle, design, 21, 0, runs * cap)
    rows = pd.DataFrame({k: seats[k] for k in ("race", "won", "colour")})
    pilot = 30 * block
    met, planned = [], []
    for r in range(runs):
        part = rows[(rows.race >= r * cap) & (rows.race < (r + 1) * cap)].assign(race=lambda d: d.race - r * cap)
        n, _, _ = sizing(part[part.race < pilot], ["colour"], block, Target(target, cap, pilot), pilot)
        planned.append(n)
        met.append(half_widths(part[part.race < n], ["colour"], block).half_width.max() <= target)
    assert np.mean(met) >= 0.95, np.mean(met)
    assert max(planned) < cap and min(planned) > pilot          # sized by the rule, not by the cap or the pilot
    assert variance_margin(30) == pytest.approx(29 / 17.708, rel=1e-3) and variance_margin(1) == 1.0
