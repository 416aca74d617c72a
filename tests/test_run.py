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


def test_resume_with_another_chunk_size_gives_the_same_table(bundle, tmp_path):
    design = Design("Kurz", 3)
    whole, _ = run_races(bundle, design, 480, 4, chunk_size=480, progress=False)
    run_races(bundle, design, 480, 4, chunk_size=100, progress=False, out=tmp_path / "r", stop_after=2)
    _, info = run_races(bundle, design, 480, 4, chunk_size=70, progress=False, out=tmp_path / "r")
    assert info.chunks_reused == 2 and info.races == 480 - 200      # only the races no part covered
    again = read_results(tmp_path / "r")
    pd.testing.assert_frame_equal(again[whole.columns], whole)
    visits = read_results(tmp_path / "r", table="visits")
    assert set(visits.race) <= set(range(480)) and len(visits) > 0


def test_another_run_in_the_folder_is_refused_naming_the_field(bundle, tmp_path):
    run_races(bundle, Design("Kurz", 3), 48, 4, progress=False, out=tmp_path / "r")
    with pytest.raises(ValueError, match="seed differs"):
        run_races(bundle, Design("Kurz", 3), 48, 5, progress=False, out=tmp_path / "r")
    with pytest.raises(ValueError, match="design differs"):
        run_races(bundle, Design("Kurz", 4), 48, 4, progress=False, out=tmp_path / "r")


def test_a_damaged_chunk_says_what_to_do(tmp_path):
    from sim.cli import main

    assert main(["run", "--trail", "Kurz", "--racers", "3", "--races", "96", "--chunk", "48", "--quiet",
                 "--out", str(tmp_path / "r")]) == 0
    part = sorted((tmp_path / "r" / "results").glob("part-*.parquet"))[0]
    part.write_bytes(b"not parquet")
    assert main(["run", "--trail", "Kurz", "--racers", "3", "--races", "96", "--chunk", "48", "--quiet",
                 "--out", str(tmp_path / "r")]) == 2
    assert main(["run", "--trail", "Kurz", "--racers", "3", "--races", "96", "--chunk", "48", "--quiet",
                 "--out", str(tmp_path / "r"), "--repair"]) == 0
    assert (tmp_path / "r" / "damaged" / "results" / part.name).read_bytes() == b"not parquet"
    assert len(read_results(tmp_path / "r")) == 96 * 3


def test_a_source_tree_not_installed_records_its_pyproject_version(monkeypatch):
    """A tree run where the package is not installed (a cluster's workers, a many-core machine
    given the tree) records the same version as an installed run, so their folders extend each other."""
    import importlib.metadata as md
    import tomllib
    from pathlib import Path

    from sim.run import package_version

    def missing(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(md, "version", missing)
    with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as f:
        assert package_version() == tomllib.load(f)["project"]["version"] != "unknown"


def test_a_persona_edited_while_a_run_plays_changes_none_of_its_races(bundle, monkeypatch):
    """The chunks play the weights the manifest records, read once before the first chunk: a
    persona file edited (or a broken one added) while a run plays changes none of its races and
    stops nothing."""
    from dataclasses import replace

    import sim.blast.design as D

    design = Design("Kurz", 4, players=("balanced",))
    a, _ = run_races(bundle, design, 120, 5, chunk_size=120, progress=False)
    real_available, real_play, state = D.available, D.play_records, {"playing": False}

    def play(*args, **kw):
        state["playing"] = True
        return real_play(*args, **kw)

    def edited():
        if state["playing"]:         # the file changed once the run had begun
            known = dict(real_available())
            p = known["balanced"]
            known["balanced"] = replace(p, weights=(p.weights[0] * 3,) + tuple(p.weights[1:]))
            return known
        return real_available()

    monkeypatch.setattr(D, "play_records", play)
    monkeypatch.setattr(D, "available", edited)
    b, _ = run_races(bundle, design, 120, 5, chunk_size=10, progress=False)
    pd.testing.assert_frame_equal(a, b)
    state["playing"] = True          # edited from the start: other races, so the check can fail
    c, _ = run_races(bundle, design, 120, 5, chunk_size=10, progress=False)
    assert not a.equals(c)
