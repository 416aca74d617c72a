"""Tuning a persona: a tiny budget end to end, the same result for the same seed whatever the
workers, weights kept in range, and a persona file that reads back as written."""
import subprocess
import sys

import numpy as np
import pytest

from kernels.blast import players as K
from sim.blast import load_bundle
from sim.blast.players import WEIGHTS, resolve, write_persona
from sim.cli import main
from sim.blast.game import Roster
from sim.tune import tune

TUNED = Roster.tuned        # the weights a Blast tuning moves

#: a budget of seconds: 2 generations of 4 candidates, 48 races each, 192 races of check
TINY = dict(trails=["Kurz"], racers=3, generations=2, population=4, races_per_candidate=48, check_races=48)


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


@pytest.fixture(scope="module")
def tuned(bundle):
    return tune(bundle, "balanced", seed=5, **TINY)


def test_tuning_runs_end_to_end(tuned):
    start = resolve("balanced")
    assert tuned.tuned.name == "tuned" and tuned.tuned.kind == K.HEURISTIC
    assert len(tuned.generations) == 2
    g = tuned.generations[0]
    assert g.candidates.shape == (4, len(TUNED)) and g.win_rates.shape == (4,)
    assert np.array_equal(g.candidates[0], np.array(start.weights)[[K.PARAM_NAMES.index(k) for k in TUNED]])
    assert ((0 <= g.win_rates) & (g.win_rates <= 1)).all() and g.races_per_candidate == 48
    assert tuned.generations[1].races == (16, 32)       # new race indices each generation
    # the weights outside the search stay the start's; the others stay in range
    for key, w in zip(K.PARAM_NAMES, tuned.tuned.weights):
        lo, hi, _ = WEIGHTS[key]
        assert lo <= w <= hi
        if key not in TUNED:
            assert w == start.weight(key)
    assert tuned.tuned.weights != start.weights
    # the check: head to head on another seed, every race with tuned and start in two seats each
    assert tuned.check_seed == 6 and tuned.check.seed == 6
    assert set(tuned.check.table.index) == {"tuned", "balanced"}
    assert tuned.check_line().startswith("check on seed 6 (never used in tuning), tuned vs balanced")


def test_tuning_is_deterministic_for_a_seed_whatever_the_workers(bundle, tuned):
    again = tune(bundle, "balanced", seed=5, n_jobs=2, **TINY)
    assert again.tuned.weights == tuned.tuned.weights
    for a, b in zip(again.generations, tuned.generations):
        assert np.array_equal(a.candidates, b.candidates) and np.array_equal(a.win_rates, b.win_rates)
    other = tune(bundle, "balanced", seed=6, **{**TINY, "generations": 1})
    assert not np.array_equal(other.generations[0].candidates[1:], tuned.generations[0].candidates[1:])


def test_written_persona_reads_back_with_its_weights(tuned, tmp_path):
    path = tmp_path / "tuned.toml"
    write_persona(tuned.tuned, path, note="a test")
    back = resolve(str(path))
    assert back.name == "tuned" and back.kind == K.HEURISTIC and back.weights == tuned.tuned.weights


def test_tune_command_writes_the_persona_the_library_finds(tuned, tmp_path):
    out = tmp_path / "tuned.toml"
    r = subprocess.run([sys.executable, "-m", "sim.cli", "tune", "--start", "balanced", "--trails", "Kurz",
                        "--racers", "3", "--generations", "2", "--population", "4", "--races-per-candidate", "48",
                        "--check-races", "48", "--seed", "5", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("generation 1/2: mean weights win") and lines[1].startswith("generation 2/2")
    assert lines[2].startswith("check on seed 6") and lines[-1] == f"persona: {out}"
    text = out.read_text()
    assert text.startswith("# Written by: biathlon-sim tune --start balanced") and "# check on seed 6" in text
    assert resolve(str(out)).weights == tuned.tuned.weights


def test_tune_command_searches_the_weights_it_is_given(tmp_path, capsys):
    """--weights: names and patterns; only those weights move (here the card weights, which the
    default search leaves alone)."""
    out = tmp_path / "cards.toml"
    assert main(["tune", "--start", "distilled", "--trails", "Kurz", "--racers", "3", "--generations", "1",
                 "--population", "3", "--races-per-candidate", "12", "--check-races", "12", "--seed", "5",
                 "--weights", "card_*,mat_icy", "--out", str(out)]) == 0
    moved = capsys.readouterr().out.split("weights: ", 1)[1].splitlines()[0]
    names = {part.split(" ")[0] for part in moved.split(", ")}
    assert names and names <= set(K.PARAM_NAMES[K.P_CARD0:K.P_MAT0]) | {"card_top", "card_late", "card_late_gain",
                                                                      "mat_icy"}
    start, tuned = resolve("distilled"), resolve(str(out))
    changed = {k for k, a, b in zip(K.PARAM_NAMES, start.weights, tuned.weights) if a != b}
    assert changed == names


@pytest.mark.parametrize("args, message", [
    (["--start", "nobody"], "no player named 'nobody'"),
    (["--start", "random"], "only heuristic personas can be tuned"),
    (["--trails", "Nowhere"], "no trail named 'Nowhere'"),
    (["--population", "1"], "population at least 2"),
    (["--check-seed", "1"], "a seed the tuning does not use"),
    (["--name", "balanced"], "a name of its own"),
    (["--name", "Bad Name"], "a persona name is letters"),
    (["--weights", "card_*,nosuch_*"], "--weights: 'nosuch_*' names no weight of Biathlon Blast's players"),
    (["--follow"], "following the candidates needs an opponent (--vs)"),
    (["--vs", "sprinter", "--follow"], "needs an opponent built on balanced: sprinter's"),
])
def test_tune_rejects_bad_arguments_with_exit_2(capsys, tmp_path, args, message):
    argv = ["tune", "--trails", "Kurz", "--generations", "1", "--population", "2", "--races-per-candidate", "3",
            "--check-races", "3", "--out", str(tmp_path / "t.toml"), *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim tune: ") and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "t.toml").exists()


def test_tune_refuses_to_shadow_a_shipped_persona(capsys):
    from sim.blast.players import PERSONA_DIR

    assert main(["tune", "--trails", "Kurz", "--out", str(PERSONA_DIR / "mine.toml"), "--name", "sprinter"]) == 2
    assert "a persona named 'sprinter' already exists" in capsys.readouterr().err
    assert not (PERSONA_DIR / "mine.toml").exists()


def test_tuning_against_another_player_races_and_checks_against_it(bundle):
    """--vs: the candidates meet the opponent in the other seats, and the check measures the tuned
    persona against it (tuning the default against the reference is this with --vs reference)."""
    res = tune(bundle, "balanced", seed=5, opponent="sprinter", **{**TINY, "generations": 1, "population": 2})
    assert res.against.name == "sprinter" and res.start.name == "balanced"
    assert set(res.check.table.index) == {"tuned", "sprinter"}
    assert res.check_line().startswith("check on seed 6 (never used in tuning), tuned vs sprinter")
    assert "against sprinter" in res.description
    with pytest.raises(ValueError, match="name of its own"):
        tune(bundle, "balanced", opponent="sprinter", name="sprinter", **TINY)


def test_a_followed_opponent_meets_each_candidate_with_its_weights(bundle):
    """follow (tune --follow): each candidate's opponent is the --vs player with the candidate's
    values of the searched weights, so a reference built on the start meets every candidate as the
    reference built on it; the check measures the result against the opponent built on it. An
    opponent not built on the start is refused."""
    import sim.tune as T

    start = resolve("balanced")
    w = list(start.weights)
    w[K.PARAM_NAMES.index("progress")] = 1.2          # not a searched weight: the opponent's own
    on_start = start.with_weights("on-balanced", w)
    seen = []
    real = T.play_arrangements

    def spy(bundle, jobs, *a, **kw):
        seen.append(jobs)
        return real(bundle, jobs, *a, **kw)

    mp = pytest.MonkeyPatch()
    mp.setattr(T, "play_arrangements", spy)
    try:
        res = tune(bundle, start, seed=5, opponent=on_start, follow=True,
                   **{**TINY, "generations": 1, "population": 3})
    finally:
        mp.undo()
    idx = [K.PARAM_NAMES.index(k) for k in TUNED]
    cands = {}
    for trail, arr, first, end in seen[0]:
        mine = [p for p in arr if p.name.startswith("tuned-candidate-")]
        others = [p for p in arr if p not in mine]
        assert len(mine) == 1 and len(others) == TINY["racers"] - 1
        c = mine[0]
        cands[c.name] = c
        for o in others:
            assert o.name == f"on-balanced-on-{c.name}"
            assert np.array_equal(np.array(o.weights)[idx], np.array(c.weights)[idx])
            assert o.weight("progress") == 1.2
    assert len(cands) == 3 and len({tuple(c.weights) for c in cands.values()}) == 3
    assert set(res.check.table.index) == {"tuned", "on-balanced-on-tuned"}
    assert "vs on-balanced-on-tuned head to head" in res.check_line()
    assert "built on each candidate" in res.description
    with pytest.raises(ValueError, match="built on balanced: sprinter's"):
        tune(bundle, "balanced", opponent="sprinter", follow=True, **TINY)
    with pytest.raises(ValueError, match="needs an opponent"):
        tune(bundle, "balanced", follow=True, **TINY)


def test_a_kept_tuning_resumes_after_an_interruption(bundle, tuned, tmp_path, monkeypatch):
    """tune --keep: an interrupted tuning keeps its finished generations and chunks, and the same call
    ends with the result of an uninterrupted one; another tuning in the folder is refused."""
    import sim.ladder as L
    from sim.store import FolderError

    real, calls = L._play_task, []

    def interrupted(*args):
        if len(calls) == 5:
            raise KeyboardInterrupt              # generation 1 played (4 tasks of 48 races), then 1 of 2
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(L, "_play_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune(bundle, "balanced", seed=5, keep=tmp_path, **TINY)
    monkeypatch.setattr(L, "_play_task", real)
    from sim.store import ChunkStore

    assert [len(ChunkStore.of_run(tmp_path / f"generation-00{g}").finished()) for g in (1, 2)] == [4, 1]
    assert not (tmp_path / "check-after-002").exists()
    again = tune(bundle, "balanced", seed=5, keep=tmp_path, **TINY)
    assert again.tuned.weights == tuned.tuned.weights
    for a, b in zip(again.generations, tuned.generations):
        assert np.array_equal(a.candidates, b.candidates) and np.array_equal(a.win_rates, b.win_rates)
    assert again.check_line() == tuned.check_line()
    # more generations continue the finished tuning: its generations are read back, not played
    calls = []
    monkeypatch.setattr(L, "_play_task", lambda *args: calls.append(args[2:4]) or real(*args))
    more = tune(bundle, "balanced", seed=5, keep=tmp_path, **{**TINY, "generations": 3})
    tuning = [first for seed, pieces in calls if seed == 5 for _, _, _, first, _ in pieces]
    assert tuning and min(tuning) == 32                  # generation 3's races only (16 a generation)
    assert [np.array_equal(a.win_rates, b.win_rates) for a, b in zip(more.generations, tuned.generations)] == [1, 1]
    with pytest.raises(FolderError, match="holds another tuning"):
        tune(bundle, "balanced", seed=6, keep=tmp_path, **TINY)
