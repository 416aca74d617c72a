"""Races with a search player are chunked small: a task of a heuristic's 500-race floor would take
a reference player 8 minutes or more per core, and a run stopped before its first task ends keeps
nothing (sim.runner.SEARCH_CHUNK)."""
import pytest

import sim.study as study_mod
from sim.runner import SEARCH_CHUNK, chunk_size, has_search
from sim.study import load_study, run_study


def test_chunk_size_bounds_for_search_players():
    assert chunk_size(7200, 16, 6000) == 500                 # fast players: the 500-race floor
    assert chunk_size(7200, 16, 6000, search=True) == 96      # 7,200 / 64 tasks = 113, capped
    assert chunk_size(200, 16, 6000, search=True) == SEARCH_CHUNK[0]
    assert chunk_size(3000, 2, 6000, search=True) == 96
    assert chunk_size(3000, 2, 40, search=True) == 40         # the study's own cap still holds


def test_has_search_reads_the_manifest_kinds():
    assert has_search({"reference": {"kind": "reference"}, "distilled": {"kind": "heuristic"}})
    assert has_search({"lookahead": {"kind": "lookahead"}})
    assert not has_search({"balanced": {"kind": "heuristic"}, "random": {"kind": "random"}})
    assert not has_search({})


class _Stop(Exception):
    pass


def test_a_study_sizes_search_cells_apart(tmp_path, monkeypatch):
    (tmp_path / "s.toml").write_text("""
title = "chunks"
seed = 3
chunk_size = 6000
[defaults]
races = 4800
[[cell]]
name = "fast"
trail = "Kurz"
racers = 4
players = ["balanced"]
[[cell]]
name = "strong"
trail = "Kurz"
racers = 4
players = ["reference"]
races = 960
""")
    seen = []

    def capture(tasks, n_jobs, scheduler=None):
        seen.extend(tasks)
        raise _Stop

    monkeypatch.setattr(study_mod, "run_tasks", capture)
    monkeypatch.setattr(study_mod, "warm_up", lambda *a: None)
    with pytest.raises(_Stop):
        run_study(load_study(tmp_path / "s.toml"), tmp_path / "out", n_jobs=2, progress=False)
    sizes = {}
    for t in seen:
        cell, _, a, b = t.key
        sizes.setdefault(cell, set()).add(b - a)
    assert max(sizes["strong"]) <= SEARCH_CHUNK[1] and sum(t.races for t in seen if t.key[0] == "strong") == 960
    assert min(sizes["fast"]) >= 500
