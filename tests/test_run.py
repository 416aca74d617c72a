"""Runs of many races: the same table whatever the chunks or workers, resumable, written as Parquet."""
import json

import pandas as pd
import pytest

from kernels.blast import consts as C
from sim.blast import load_bundle
from sim.blast.design import Design
from sim.run import read_results, run_races


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def test_same_table_whatever_chunk_size_and_workers(bundle):
    design = Design("Kurz", 4)
    a, _ = run_races(bundle, design, 1200, 5, chunk_size=1200, n_jobs=1, progress=False)
    b, _ = run_races(bundle, design, 1200, 5, chunk_size=170, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 1200 * 4 and list(a.race.unique()) == list(range(1200))


def test_balanced_lineups_put_every_biathlete_in_every_colour_equally(bundle):
    design = Design("Lang", 3, players=("random",))
    block = len(bundle.biathlete_names) * C.N_COLOURS
    df, _ = run_races(bundle, design, 2 * block, 9, chunk_size=37, progress=False)
    counts = df.groupby(["biathlete", "colour"]).size().unstack()
    assert counts.shape == (len(bundle.biathlete_names), C.N_COLOURS)
    assert (counts.to_numpy() == 2 * 3).all()         # two blocks x three seats
    assert (df.groupby("race").biathlete.nunique() == 3).all()
    assert (df.groupby("race").colour.nunique() == 3).all()


def test_fixed_lineup_and_names(bundle):
    design = Design("Short", 2, biathletes=("Owens", "Olsson"), colours=("blue", "red"),
                    players=("heuristic", "random"))
    df, _ = run_races(bundle, design, 50, 1, chunk_size=20, progress=False)
    first = df[df.race == 0]
    assert first.biathlete_name.tolist() == ["Owens", "Olsson"]
    assert first.colour_name.tolist() == ["blue", "red"]
    assert first.player_name.tolist() == ["balanced", "random"]
    assert (df.trail_name == "Short").all()


def test_interrupted_run_resumes_to_the_same_table(bundle, tmp_path):
    design = Design("Kurz", 5)
    whole, _ = run_races(bundle, design, 900, 3, chunk_size=100, progress=False)
    out = tmp_path / "run"
    part, info = run_races(bundle, design, 900, 3, chunk_size=100, out=out, progress=False, stop_after=4)
    assert info.chunks_played == 4 and len(part) == 400 * 5
    assert len(list((out / "results").glob("part-*.parquet"))) == 4
    assert not list((out / "results").glob("*.tmp"))
    resumed, info = run_races(bundle, design, 900, 3, chunk_size=100, out=out, progress=False)
    assert (info.chunks_reused, info.chunks_played) == (4, 5)
    pd.testing.assert_frame_equal(resumed, whole)
    pd.testing.assert_frame_equal(read_results(out), whole)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 3 and manifest["data_hash"] == bundle.data_hash
    assert manifest["design"]["trail"] == "Kurz" and manifest["races"] == 900


def test_a_folder_holding_another_run_is_refused(bundle, tmp_path):
    out = tmp_path / "run"
    run_races(bundle, Design("Kurz", 2), 50, 1, chunk_size=25, out=out, progress=False)
    with pytest.raises(ValueError, match="holds another run"):
        run_races(bundle, Design("Kurz", 2), 50, 2, chunk_size=25, out=out, progress=False)


def test_bad_designs_are_explained(bundle):
    with pytest.raises(KeyError, match="no trail named"):
        run_races(bundle, Design("Nowhere"), 10, 1, progress=False)
    with pytest.raises(ValueError, match="racers must lie"):
        run_races(bundle, Design("Kurz", 7), 10, 1, progress=False)
    with pytest.raises(ValueError, match="need 3 biathletes"):
        run_races(bundle, Design("Kurz", 3, biathletes=("Owens", "Wei")), 10, 1, progress=False)
    with pytest.raises(KeyError, match="no player named"):
        run_races(bundle, Design("Kurz", 2, players=("genius",)), 10, 1, progress=False)
