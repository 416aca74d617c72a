"""Study files: cells and variants read and checked, paired variants on common race seeds, the
table and the summary agree, bad study files are explained."""
import textwrap

import numpy as np
import pandas as pd
import pytest

from sim.blast import load_bundle
from sim.run import run_races
from sim.study import cell_seed, load_study, read_study, run_study
from sim.validation import DataError

STUDY = """
title = "t"
seed = 5
chunk_size = 150

[defaults]
races = 480

[[variant]]
name = "same"
description = "sets red's bullets to the value they already have"
set = [{ file = "game.toml", path = "gear.red.bullets", value = 4 }]

[[variant]]
name = "red-bullet+1"
set = [{ file = "game.toml", path = "gear.red.bullets", value = 5 }]

[[cell]]
name = "grid"
trail = ["Kurz", "Short"]
racers = [3, 4]
variants = ["base", "same", "red-bullet+1"]

[[cell]]
name = "duel"
trail = "Lang"
biathletes = ["Owens", "Wei"]
players = ["balanced", "random"]
races = 100
"""


def write(tmp_path, text, name="study.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_cells_expand_and_take_defaults(tmp_path):
    study = load_study(write(tmp_path, STUDY))
    assert [c.name for c in study.cells] == ["grid-Kurz-3", "grid-Kurz-4", "grid-Short-3", "grid-Short-4", "duel"]
    assert study.cells[0].races == 480 and study.cells[-1].races == 100
    assert study.cells[-1].design.racers == 2 and study.cells[-1].variants == ("base",)
    assert study.cells[0].seed == cell_seed(5, "grid-Kurz-3") != study.cells[1].seed
    assert study.races == 4 * 480 * 3 + 100


def test_paired_variants_replay_the_same_races(tmp_path):
    study = load_study(write(tmp_path, STUDY))
    out = tmp_path / "out"
    summary = run_study(study, out, progress=False, log=lambda *_: None)
    df = read_study(out)
    base = df[(df.cell == "grid-Kurz-4") & (df.variant == "base")].reset_index(drop=True)
    same = df[(df.cell == "grid-Kurz-4") & (df.variant == "same")].reset_index(drop=True)
    more = df[(df.cell == "grid-Kurz-4") & (df.variant == "red-bullet+1")].reset_index(drop=True)
    cols = [c for c in base.columns if c not in ("cell", "variant")]
    # a variant that changes nothing gives exactly the base table: common random numbers
    pd.testing.assert_frame_equal(base[cols], same[cols])
    # the changed variant: same races, line-ups and ski colours, a different game for red
    for key in ("race", "seat", "biathlete", "colour"):
        assert (base[key] == more[key]).all()
    red = base.colour == 0
    assert (more[red].bullets_left + more[red].bullets_pickup + more[red].bullets_hits == 5).all()
    assert (base[red].bullets_left + base[red].bullets_pickup + base[red].bullets_hits == 4).all()
    # the base cell is the run of its design with the cell's seed
    cell = study.cells[1]
    alone, _ = run_races(load_bundle(), cell.design, cell.races, cell.seed, chunk_size=480, progress=False)
    assert (alone.won.to_numpy() == base.won.to_numpy()).all()
    assert (alone.place.to_numpy() == base.place.to_numpy()).all()
    # summary counts agree with the table
    wins = df.groupby(["cell", "variant"], observed=True).won.sum()
    s = summary.groupby(["cell", "variant"]).wins.sum()
    assert (wins.sort_index().to_numpy() == s.sort_index().to_numpy()).all()
    assert summary.races.sum() == len(df)
    assert set(summary[summary.cell == "duel"].player_name) == {"balanced", "random"}
    # the whole study reads back with pandas alone, too
    assert len(pd.read_parquet(out / "results", columns=["race"])) == len(df)
    # a second call reuses every chunk
    again = run_study(study, out, progress=False, log=lambda *_: None)
    pd.testing.assert_frame_equal(again, summary)


@pytest.mark.parametrize("change, message", [
    ('variants = ["base", "nope"]', "names no variant 'nope'"),
    ('trail = "Nowhere"', "no trail named 'Nowhere'"),
    ('racer = 3', "cell 'c': racer: is not a known field (did you mean 'racers'?)"),
    ('players = ["genius"]', "no player named 'genius'"),
    ('precision_pp = 0.5\nprecision_ratio = 0.03', "give precision_pp or precision_ratio, not both"),
])
def test_bad_cells_are_explained(tmp_path, change, message):
    trail = "" if change.startswith("trail") else 'trail = "Kurz"\n'
    text = f'seed = 1\n[[variant]]\nname = "v"\nset = []\n[[cell]]\nname = "c"\n{trail}races = 10\n{change}\n'
    path = write(tmp_path, text)
    with pytest.raises(DataError) as err:
        from sim.study import check_study
        check_study(load_study(path))
    assert message in str(err.value)
    assert "study.toml" in str(err.value)


@pytest.mark.parametrize("patch, message", [
    ('{ file = "game.tom", path = "gear.red.bullets", value = 5 }', "'game.tom' is not a file of the data set"),
    ('{ file = "game.toml", path = "gear.pink.bullets", value = 5 }', "'pink' is not in the file"),
    ('{ file = "cards.toml", path = "card[Skat].top.flat", value = 3 }', "no card named 'Skat'"),
    ('{ file = "game.toml", path = "gear.red.bullets", value = -2 }', "bullets"),
])
def test_bad_patches_are_explained(tmp_path, patch, message):
    text = f'seed = 1\n[[variant]]\nname = "v"\nset = [{patch}]\n[[cell]]\nname = "c"\ntrail = "Kurz"\nraces = 10\nvariants = ["v"]\n'
    from sim.study import check_study

    with pytest.raises(DataError) as err:
        check_study(load_study(write(tmp_path, text)))
    assert message in str(err.value)
    assert "variant 'v'" in str(err.value) or "game.toml" in str(err.value)


def test_study_without_seed_or_cells(tmp_path):
    with pytest.raises(DataError) as err:
        load_study(write(tmp_path, 'title = "x"\n'))
    text = str(err.value)
    assert "seed: is missing" in text and "cell: is missing" in text


def test_study_command(tmp_path):
    import subprocess
    import sys

    path = write(tmp_path, STUDY)
    out = tmp_path / "o"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "study", str(path), "--out", str(out), "--quiet",
                        "--cells", "duel"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "duel / base: 100 races" in r.stdout and "win rate per biathlete" in r.stdout
    assert np.isclose(pd.read_csv(out / "summary.csv").races.sum(), 200)
    bad = subprocess.run([sys.executable, "-m", "sim.cli", "study", str(path), "--out", str(out), "--cells", "x"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no cell named 'x'" in bad.stderr and "Traceback" not in bad.stderr


def test_a_study_grows_and_resumes_under_another_name(tmp_path):
    small = STUDY.replace('''[[cell]]
name = "duel"''', '''[[cell]]
name = "extra"
trail = "Long"
racers = 2
races = 96

[[cell]]
name = "duel"''')
    out = tmp_path / "out"
    run_study(load_study(write(tmp_path, STUDY)), out, progress=False, log=lambda *_: None)
    parts = sorted(p.name for p in (out / "results" / "cell=duel" / "variant=base").glob("part-*"))
    lines = []
    run_study(load_study(write(tmp_path, small, "renamed.toml")), out, progress=False, log=lines.append)
    assert any("extra / base: 96 races played" in ln for ln in lines)
    assert any("duel / base: already played" in ln for ln in lines)
    assert sorted(p.name for p in (out / "results" / "cell=duel" / "variant=base").glob("part-*")) == parts
    changed = STUDY.replace("races = 100", "races = 200")
    with pytest.raises(ValueError, match="cell 'duel': races differs"):
        run_study(load_study(write(tmp_path, changed)), out, progress=False, log=lambda *_: None)


def test_race_counts_round_up_to_whole_balanced_blocks(tmp_path):
    text = STUDY.replace("races = 480", "races = 500")
    lines = []
    summary = run_study(load_study(write(tmp_path, text)), tmp_path / "out", progress=False, log=lines.append)
    assert any("'grid-Kurz-3': 500 races rounded up to 528" in ln for ln in lines)
    cell = summary[(summary.cell == "grid-Kurz-3") & (summary.variant == "base")]
    assert cell.races.sum() == 528 * 3


def test_a_cell_naming_its_scenario_in_another_games_word_is_told_once(tmp_path):
    path = write(tmp_path, 'title = "x"\nseed = 1\ngame = "mania"\n[[cell]]\nname = "z"\ntrail = "red"\nraces = 8\n')
    with pytest.raises(DataError) as err:
        load_study(path)
    assert [str(p) for p in err.value.problems] == [
        "study.toml: cell 'z': trail: is not a key of Biathlon Mania cells; name the track with `track`"]


KNOB = """
game = "{game}"
seed = 1
races = 48
check_races = 48
[designs]
scenarios = ["{scenario}"]
racers = [4]
[[target]]
name = "fair"
metric = "win_rate"
by = "seat"
within_pp = 3
[[knob]]
name = "{name}"
file = "game.toml"
path = "gear.red.bullets"
min = 1
max = 9
step = 1
"""


@pytest.mark.parametrize("screen, variants, message", [
    ('[screen]\nbalance = "nope.toml"', '["base", "screen"]', "nope.toml: is not a balance file"),
    ('[screen]\nsteps = 1', '["base"]', "screen.balance: must name a balance file"),
    ('', '["base", "screen"]', "names 'screen', the steps of a [screen], but this file has no [screen]"),
    ('[screen]\nbalance = "knobs.toml"\n[[variant]]\nname = "red-bullets+1"\nset = []', '["base"]',
     "to 'red-bullets+1', which a [[variant]] of this file is named already"),
    ('[screen]\nbalance = "knobs.toml"', '["base", "screeen"]', "or 'screen' (every step of the [screen])"),
    ('[screen]\nbalance = "mania.toml"', '["base", "screen"]', "mania.toml balances 'mania', but this study plays 'blast'"),
])
def test_a_bad_screen_is_explained(tmp_path, screen, variants, message):
    """A [screen] names a balance file of the study's game and data, its steps do not clash with the
    file's own variants, and a cell names them all with "screen"; each problem in one line."""
    write(tmp_path, KNOB.format(game="blast", scenario="Kurz", name="red-bullets"), "knobs.toml")
    (tmp_path / "mania.toml").write_text(KNOB.format(game="mania", scenario="red", name="x")
                                         .replace('file = "game.toml"', 'file = "tracks/red.toml"')
                                         .replace("gear.red.bullets", "penalty.entry").replace("min = 1", "min = 2"))
    text = f'seed = 1\n{screen}\n[[cell]]\nname = "c"\ntrail = "Kurz"\nraces = 48\nvariants = {variants}\n'
    with pytest.raises(DataError) as err:
        load_study(write(tmp_path, text))
    assert message in str(err.value)


def test_a_screen_steps_a_knob_each_way_within_its_range(tmp_path):
    """Every allowed position one step from the data's value (red carries 4 bullets: 3 and 5), named
    after the knob and the step; with steps = 2 also 2 and 6, and no step past the knob's range."""
    write(tmp_path, KNOB.format(game="blast", scenario="Kurz", name="red-bullets").replace("max = 9", "max = 5"),
          "knobs.toml")
    text = '[screen]\nbalance = "knobs.toml"\nsteps = 2\n[[cell]]\nname = "c"\ntrail = "Kurz"\nraces = 48\n' \
           'variants = ["base", "screen"]\n'
    study = load_study(write(tmp_path, 'seed = 1\n' + text))
    cell = study.cells[0]
    assert cell.variants == ("base", "red-bullets-2", "red-bullets-1", "red-bullets+1")
    assert [p.value for p in study.variants["red-bullets-2"].patches] == [2]
    assert study.variants["red-bullets+1"].group == "screen" and study.variants["base"].group == ""
    assert study.variants["red-bullets-2"].knob == "red-bullets"
