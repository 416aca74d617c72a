"""A results folder knows its contents: a corpus of damaged run and study folders, each refused by
`report` and by resume with one line naming the part and what to do, and repaired by --repair."""
import json
import shutil

import pandas as pd
import pytest

from sim.cli import main
from sim.results_folder import open_results
from sim.run import read_results

RUN = ["run", "--trail", "Kurz", "--racers", "3", "--races", "96", "--chunk", "24", "--quiet"]
STUDY = """title = "tiny"
seed = 5
chunk_size = 48
[[cell]]
name = "k"
trail = "Kurz"
racers = 3
races = 96
variants = ["base", "wax"]
[[variant]]
name = "wax"
set = [{ file = "game.toml", path = "gear.green.wax.green", value = 5 }]
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A finished run (seed 3, four parts), the same run with seed 4, and a finished study."""
    root = tmp_path_factory.mktemp("made")
    assert main([*RUN, "--seed", "3", "--out", str(root / "run")]) == 0
    assert main([*RUN, "--seed", "4", "--out", str(root / "seed4")]) == 0
    (root / "tiny.toml").write_text(STUDY)
    assert main(["study", str(root / "tiny.toml"), "--out", str(root / "study"), "--quiet"]) == 0
    return root


@pytest.fixture
def run_dir(made, tmp_path):
    shutil.copytree(made / "run", tmp_path / "run")
    return tmp_path / "run"


@pytest.fixture
def study_dir(made, tmp_path):
    shutil.copytree(made / "study", tmp_path / "study")
    shutil.copy(made / "tiny.toml", tmp_path / "tiny.toml")
    return tmp_path / "study"


def parts(folder, table="results"):
    return sorted((folder / table).rglob("part-*.parquet"))


def refused(capsys, argv, *words):
    """`argv` exits 2 with one line on stderr holding every word."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def report(folder, tmp_path):
    return ["report", str(folder), "--out", str(tmp_path / "rep"), "--quiet"]


def reads_whole(folder, races):
    """The report's source opens the folder (checking every part) and reads every race (three
    racers each): a whole report takes seconds more and checks nothing more of the folder."""
    source = open_results(folder)
    assert sum(c.races * len(c.variants) for c in source.cells) == races
    assert len(open_results(folder).read(["race"])) == 3 * races


def resume(folder, *extra):
    return [*RUN, "--seed", "3", "--out", str(folder), *extra]


def test_a_whole_run_passes_and_its_ledger_lists_every_part(run_dir, tmp_path):
    ledger = json.loads((run_dir / "ledger.json").read_text())
    assert [(p["first"], p["end"]) for p in ledger["parts"]] == [(0, 24), (24, 48), (48, 72), (72, 96)]
    assert ledger["identity"]["seed"] == 3 and ledger["identity"]["game"] == "blast"
    assert all(p["seats"]["rows"] == 24 * 3 and len(p["seats"]["sha256"]) == 64 and p["visits"]["rows"] > 0
               for p in ledger["parts"])
    reads_whole(run_dir, 96)


def test_a_missing_visits_part_is_refused_and_repaired(run_dir, tmp_path, capsys):
    whole = read_results(run_dir, table="visits")
    gone = parts(run_dir, "visits")[1]
    gone.unlink()
    refused(capsys, report(run_dir, tmp_path), gone.name, "is missing", "--repair")
    refused(capsys, resume(run_dir), gone.name, "is missing")
    assert main(resume(run_dir, "--repair")) == 0
    assert "24 races played" in capsys.readouterr().out
    pd.testing.assert_frame_equal(read_results(run_dir, table="visits"), whole)


def test_an_overlapping_extra_part_is_refused(run_dir, tmp_path, capsys):
    shutil.copy(parts(run_dir)[0], run_dir / "results" / "part-000000000000-000000000050.parquet")
    refused(capsys, report(run_dir, tmp_path), "part-000000000000-000000000050.parquet", "not in the ledger",
            "overlapping races 0 .. 23")
    refused(capsys, resume(run_dir), "extra part")
    assert main(resume(run_dir, "--repair")) == 0
    assert (run_dir / "damaged" / "results" / "part-000000000000-000000000050.parquet").exists()
    assert len(read_results(run_dir)) == 96 * 3


def test_a_part_of_another_seed_is_named_foreign(run_dir, made, tmp_path, capsys):
    theirs = parts(made / "seed4")[2]
    shutil.copy(theirs, run_dir / "results" / theirs.name)
    refused(capsys, report(run_dir, tmp_path), theirs.name, "foreign", "seed: 4 there, 3 in this folder")
    refused(capsys, resume(run_dir), "foreign")


def test_the_parts_and_ledger_of_another_run_are_refused(run_dir, made, tmp_path, capsys):
    shutil.copy(made / "seed4" / "ledger.json", run_dir / "ledger.json")
    refused(capsys, resume(run_dir), "ledger.json", "another identity", "seed differs")
    refused(capsys, report(run_dir, tmp_path), "seed")


def test_an_altered_part_is_refused(run_dir, tmp_path, capsys):
    part = parts(run_dir)[3]
    df = pd.read_parquet(part)
    df.loc[0, "won"] = 1 - df.loc[0, "won"]
    df.to_parquet(part, index=False)
    refused(capsys, report(run_dir, tmp_path), part.name, "altered")
    refused(capsys, resume(run_dir), part.name, "altered")


def test_a_missing_or_damaged_manifest_is_refused_and_rewritten_from_the_ledger(run_dir, tmp_path, capsys):
    good = (run_dir / "manifest.json").read_text()
    (run_dir / "manifest.json").write_text(good[:40])
    err = refused(capsys, report(run_dir, tmp_path), "manifest.json", "damaged (line")
    assert "Expecting" not in err and "char" not in err          # not the JSON parser's words
    refused(capsys, resume(run_dir), "manifest.json", "--repair")
    (run_dir / "manifest.json").unlink()
    refused(capsys, report(run_dir, tmp_path), "manifest.json is missing")
    refused(capsys, resume(run_dir), "manifest.json is missing")
    assert main(resume(run_dir, "--repair")) == 0
    assert json.loads((run_dir / "manifest.json").read_text())["seed"] == 3
    reads_whole(run_dir, 96)


def test_a_missing_or_damaged_ledger_is_refused(run_dir, tmp_path, capsys):
    (run_dir / "ledger.json").write_text("{")
    refused(capsys, report(run_dir, tmp_path), "ledger.json", "damaged")
    (run_dir / "ledger.json").unlink()
    refused(capsys, report(run_dir, tmp_path), "no ledger", "biathlon-sim adopt")
    refused(capsys, resume(run_dir), "no ledger")


def test_an_interrupted_write_is_finished_or_forgotten_on_resume(run_dir, capsys):
    """Killed after the ledger listed a chunk but before its renames: resume finishes them; killed
    before the ledger: the temporary files are removed and the races played."""
    last = parts(run_dir)[-1]
    last.rename(last.with_suffix(".tmp"))
    stray = run_dir / "visits" / "part-000000000096-000000000120.tmp"
    stray.write_bytes(b"half")
    assert main(resume(run_dir)) == 0
    assert "nothing to play" in capsys.readouterr().out
    assert last.exists() and not stray.exists() and len(read_results(run_dir)) == 96 * 3


@pytest.mark.parametrize("stage", ["seats file", "ledger", "rename"])
def test_a_write_interrupted_at_any_stage_leaves_the_chunk_whole_or_absent(run_dir, monkeypatch, stage):
    """Ctrl-C while a chunk is written: no temporary file is left, and the chunk is either listed
    and whole (the ledger was saved) or neither listed nor on disk."""
    import os

    import pyarrow.parquet as pq

    from sim import store as S

    store = S.ChunkStore.of_run(run_dir)
    seats = pq.read_table(parts(run_dir)[-1]).to_pandas().to_records(index=False)
    visits = pq.read_table(parts(run_dir, "visits")[-1]).to_pandas().to_records(index=False)
    calls = {"n": 0}

    def interrupt(real, when):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if when(calls["n"], args):
                raise KeyboardInterrupt
            return real(*args, **kwargs)
        return wrapped

    if stage == "seats file":     # the visits file written, the seats file half-way
        monkeypatch.setattr(S, "_write_parquet", interrupt(S._write_parquet, lambda n, a: n == 2))
    elif stage == "ledger":       # both files written, the ledger not saved
        monkeypatch.setattr(S, "_atomic_text", interrupt(S._atomic_text, lambda n, a: True))
    else:                         # the ledger saved, the first rename not made
        monkeypatch.setattr(S.os, "replace", interrupt(os.replace, lambda n, a: str(a[1]).endswith(".parquet") and n == 2))
    with pytest.raises(KeyboardInterrupt):
        store.write(120, 144, seats, visits)
    monkeypatch.undo()
    name = "part-000000000120-000000000144"
    assert not list(run_dir.rglob("*.tmp"))
    listed = any(p["first"] == 120 for p in json.loads((run_dir / "ledger.json").read_text())["parts"])
    on_disk = [(run_dir / t / f"{name}.parquet").exists() for t in ("results", "visits")]
    assert listed == (stage == "rename") and on_disk == [listed, listed]


def test_a_run_and_a_study_never_share_a_folder(run_dir, study_dir, capsys):
    refused(capsys, ["study", str(study_dir.parent / "tiny.toml"), "--out", str(run_dir), "--quiet"],
            "holds a run", "choose another --out")
    refused(capsys, [*RUN, "--out", str(study_dir)], "holds a study", "choose another --out")
    refused(capsys, [*RUN, "--out", str(study_dir / "results" / "cell=k" / "variant=base")], "holds a study")


def test_a_damaged_study_is_refused_naming_the_cell_part(study_dir, tmp_path, capsys):
    study = ["study", str(study_dir.parent / "tiny.toml"), "--out", str(study_dir), "--quiet"]
    gone = parts(study_dir / "results" / "cell=k" / "variant=wax", ".")[0]
    gone.unlink()
    refused(capsys, report(study_dir, tmp_path), "cell=k", "variant=wax", gone.name, "is missing")
    refused(capsys, study, gone.name)
    assert main([*study, "--repair"]) == 0
    reads_whole(study_dir, 2 * 96)
    (study_dir / "results" / "cell=k" / "variant=base" / "_manifest.json").unlink()
    refused(capsys, report(study_dir, tmp_path), "_manifest.json is missing")
    (study_dir / "study.json").unlink()
    refused(capsys, report(study_dir, tmp_path), "study.json is missing", "--repair")
    refused(capsys, study, "study.json is missing")
    assert main([*study, "--repair"]) == 0
    reads_whole(study_dir, 2 * 96)


def test_a_folder_from_before_ledgers_is_adopted_after_its_parts_are_checked(run_dir, study_dir, made, capsys):
    (run_dir / "ledger.json").unlink()
    for ledger in study_dir.rglob("_ledger.json"):
        ledger.unlink()
    assert main(["adopt", str(run_dir)]) == 0 and main(["adopt", str(study_dir)]) == 0
    assert "4 part(s) adopted" in capsys.readouterr().out
    reads_whole(run_dir, 96)
    reads_whole(study_dir, 2 * 96)
    assert main(resume(run_dir)) == 0


def test_adopt_refuses_a_foreign_or_overlapping_part(run_dir, made, capsys):
    (run_dir / "ledger.json").unlink()
    theirs = parts(made / "seed4")[1]
    for table in ("results", "visits"):
        shutil.copy(made / "seed4" / table / theirs.name, run_dir / table / theirs.name)
    refused(capsys, ["adopt", str(run_dir)], theirs.name, "foreign or altered")
    assert not (run_dir / "ledger.json").exists()
    shutil.copy(parts(made / "run")[1], run_dir / "results" / theirs.name)
    shutil.copy(parts(run_dir)[0], run_dir / "results" / "part-000000000000-000000000030.parquet")
    shutil.copy(parts(run_dir, "visits")[0], run_dir / "visits" / "part-000000000000-000000000030.parquet")
    refused(capsys, ["adopt", str(run_dir)], "part-000000000000-000000000030.parquet overlaps part-000000000000-000000000024")


def test_a_manifest_of_another_run_is_refused(run_dir, made, tmp_path, capsys):
    shutil.copy(made / "seed4" / "manifest.json", run_dir / "manifest.json")
    refused(capsys, report(run_dir, tmp_path), "manifest.json does not match the ledger", "seed: 4")
    refused(capsys, resume(run_dir), "holds another run", "seed differs")


def test_a_cell_folder_copied_under_another_name_is_refused(study_dir, tmp_path, capsys):
    for table in ("results", "visits"):
        shutil.copytree(study_dir / table / "cell=k" / "variant=wax", study_dir / table / "cell=k" / "variant=ghost")
    refused(capsys, report(study_dir, tmp_path), "variant=ghost", "foreign folder")
    refused(capsys, ["study", str(study_dir.parent / "tiny.toml"), "--out", str(study_dir), "--quiet"], "variant=ghost",
            "foreign folder")


def test_a_run_written_with_other_columns_still_reports_and_is_not_extended(run_dir, tmp_path, capsys):
    """A folder from a version whose seat table had other columns (Blast's per-visit shots_1,
    hits_1 ... before 2026-11-28): a report reads it (shooting from its visits table); a resume
    that would add parts of another layout is refused in one line."""
    path = run_dir / "manifest.json"
    m = json.loads(path.read_text())
    m["seat_columns"] = [*m["seat_columns"], "shots_1", "hits_1"]
    path.write_text(json.dumps(m))
    reads_whole(run_dir, 96)
    refused(capsys, resume(run_dir), "other seat columns", "another folder")
