"""Tuning a Ski Tour persona with the shared tuner (sim.tune) through Ski Tour's players hook: a
tiny budget end to end, the same result for a seed whatever the workers, weights kept in range, a
persona file that reads back and that `ladder` accepts."""
import subprocess
import sys

import numpy as np
import pytest

from kernels.skitour import consts as C
from kernels.skitour import players as K
from sim.cli import main
from sim.skitour import load_bundle
from sim.skitour import players as P
from sim.tune import tune

#: seconds: 2 generations of 4 candidates, 60 races each on 3-seat races, 60 races of check
TINY = dict(trails=["Starter"], racers=3, generations=2, population=4, races_per_candidate=60, check_races=60,
            game="skitour")


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


@pytest.fixture(scope="module")
def tuned(bundle):
    return tune(bundle, "balanced", seed=5, **TINY)


def test_tuning_runs_end_to_end(tuned):
    start = P.get_player("balanced")
    assert tuned.tuned.name == "tuned" and tuned.tuned.kind == C.PLAYER_HEURISTIC
    # every weight but the strength reference's search budget
    assert tuned.weights == P.TUNED and len(tuned.generations) == 2
    assert set(P.TUNED) | set(P.SEARCH) == set(K.PARAM_NAMES) and not set(P.TUNED) & set(P.SEARCH)
    g = tuned.generations[0]
    assert g.candidates.shape == (4, len(P.TUNED)) and g.win_rates.shape == (4,)
    tuned_idx = [K.PARAM_NAMES.index(k) for k in P.TUNED]                # the mean comes first
    assert np.array_equal(g.candidates[0], np.array(start.weights)[tuned_idx])
    # candidate 0 is the start itself against copies of the start: exactly the fair share
    assert g.win_rates[0] == pytest.approx(1 / 3)
    assert ((0 <= g.win_rates) & (g.win_rates <= 1)).all() and g.races_per_candidate == 60
    assert tuned.generations[1].races == (20, 40)          # new race indices each generation
    for key, w in zip(K.PARAM_NAMES, tuned.tuned.weights):
        lo, hi, _ = P.WEIGHTS[key]
        assert lo <= w <= hi
    assert tuned.tuned.weights != start.weights
    assert tuned.check_seed == 6 and tuned.check.seed == 6 and tuned.check.game == "skitour"
    assert set(tuned.check.table.index) == {"tuned", "balanced"}
    assert tuned.check_line().startswith("check on seed 6 (never used in tuning), tuned vs balanced")
    assert " -> " in tuned.weight_changes()


def test_tuning_is_deterministic_for_a_seed_whatever_the_workers(bundle, tuned):
    again = tune(bundle, "balanced", seed=5, n_jobs=2, **TINY)
    assert again.tuned.weights == tuned.tuned.weights
    for a, b in zip(again.generations, tuned.generations):
        assert np.array_equal(a.candidates, b.candidates) and np.array_equal(a.win_rates, b.win_rates)


def test_written_persona_reads_back_with_its_weights(tuned, tmp_path):
    path = tmp_path / "tuned.toml"
    P.write_persona(tuned.tuned, path, tuned.description, note="a test\nsecond line")
    back = P.resolve(str(path))
    assert back == tuned.tuned
    assert path.read_text().startswith("# a test\n# second line\n")


def test_tune_command_writes_a_persona_that_ladder_accepts(tuned, tmp_path):
    out = tmp_path / "mine.toml"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "--game", "skitour", "tune", "--start", "balanced",
                        "--courses", "Starter", "--racers", "3", "--generations", "2", "--population", "4",
                        "--races-per-candidate", "60", "--check-races", "60", "--seed", "5", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("generation 1/2: mean weights win 33.33% (fair share 33.33%)")
    assert lines[1].startswith("generation 2/2") and lines[2].startswith("check on seed 6")
    assert lines[3].startswith("weights: ") and lines[-1] == f"persona: {out}"
    text = out.read_text()
    assert text.startswith("# Written by: biathlon-sim --game skitour tune --start balanced")
    assert "# Tuning: seed 5, 2 generations x 4 candidates x 60 races against balanced" in text
    assert "side basic" in text and "# check on seed 6" in text
    back = P.resolve(str(out))
    assert back.name == "mine" and back.weights == tuned.tuned.weights
    r = subprocess.run([sys.executable, "-m", "sim.cli", "--game", "skitour", "ladder", "--vs", f"{out},balanced",
                        "--course", "Starter", "--races", "20", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("20 races on Starter") and "mine wins " in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--start", "nobody"], "no player named 'nobody'"),
    (["--start", "random"], "only heuristic personas can be tuned; 'random' is random"),
    (["--start", "lookahead"], "only heuristic personas can be tuned; 'lookahead' is lookahead"),
    (["--courses", "Nowhere"], "no course named 'Nowhere'"),
    (["--racers", "6"], "Ski Tour races have 2 to 5 nations"),
    (["--name", "balanced"], "a name of its own"),
    (["--variant", "two_player"], "standard variant"),
])
def test_tune_rejects_bad_arguments_with_exit_2(capsys, tmp_path, args, message):
    argv = ["--game", "skitour", "tune", "--courses", "Starter", "--generations", "1", "--population", "2",
            "--races-per-candidate", "3", "--check-races", "3", "--out", str(tmp_path / "t.toml"), *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim tune: ") and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "t.toml").exists()


def test_tune_refuses_to_shadow_a_shipped_persona(capsys):
    out = P.PERSONA_DIR / "mine.toml"
    assert main(["--game", "skitour", "tune", "--courses", "Starter", "--out", str(out), "--name", "sprinter"]) == 2
    assert "a persona named 'sprinter' already exists" in capsys.readouterr().err
    assert not out.exists()
