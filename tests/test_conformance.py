"""The conformance suite: every registered game passes the same checks (OpenSpiel's api_test runs
every API property over every registered game the same way).

A new game is registered in sim/games.py and must pass all of these before its numbers reach a
report: its default data loads; 300 random races in every racer count it supports play cleanly;
places form a permutation (per team where there are teams); the table does not depend on how races
are chunked or how many workers play them; a race replays alone; the referee accepts its logs; a
tiny study runs through the shared study runner.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels import records as REC
from sim import games
from sim.run import play_chunk, read_results, run_races

GAMES = games.names()
RACES = 300


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    info = games.game(request.param)
    mod = info.load()
    return info, mod, mod.load_bundle(None)


def designs(info, mod, bundle):
    """A balanced design for every racer count the game supports (and every format option)."""
    lo, hi = info.racers
    out = []
    option_sets = [{}] if not info.options else [{k: v} for k, vals in info.options.items() for v in vals]
    for options in option_sets:
        for n in range(lo, hi + 1):
            try:
                d = mod.make_design(mod.scenarios(bundle)[0], n, options=options or None)
                mod.check_design(bundle, d)
            except ValueError:
                continue           # an option that does not take this racer count (said by check_design)
            out.append((n, options, d))
    return out


def test_default_data_loads(game):
    info, mod, bundle = game
    assert bundle.data_hash and len(mod.scenarios(bundle)) >= 1
    assert mod.summary(bundle).strip()
    assert mod.SEAT_DTYPE.names[:len(REC.SEAT_CORE)] == tuple(
        info.scenario if n == "scenario" else n for n in REC.SEAT_CORE_NAMES)
    assert mod.VISIT_DTYPE.names[:len(REC.VISIT_CORE)] == REC.VISIT_CORE_NAMES


def test_races_in_every_racer_count_play_cleanly(game):
    info, mod, bundle = game
    cases = designs(info, mod, bundle)
    assert {n for n, _, _ in cases} == set(range(info.racers[0], info.racers[1] + 1))
    for n, options, design in cases:
        seats, visits = play_chunk(info.name, bundle, design, 5, 0, RACES)
        k = mod.seats_per_race(design)
        assert len(seats) == RACES * k and seats.dtype == mod.SEAT_DTYPE and visits.dtype == mod.VISIT_DTYPE
        assert (seats["n_racers"] == k).all()
        places_form_permutations(seats)
        won = seats["won"].reshape(RACES, k)
        decided = ~seats["stalled"].reshape(RACES, k).any(axis=1)
        assert (won[decided].sum(axis=1) >= 1).all(), f"{n} racers {options}: a decided race without a winner"
        assert (seats["place"][seats["won"] == 1] == 1).all()
        if len(visits):
            assert (visits["hits"] <= visits["shots"]).all() and (visits["hits"] >= 0).all()
            assert (visits["visit"] >= 1).all()
            key = seats["race"].astype(np.int64) * 64 + seats["seat"]
            assert np.isin(visits["race"].astype(np.int64) * 64 + visits["seat"], key).all()


def places_form_permutations(seats):
    """Within each race, the places of the teams (every seat where there are no teams) are
    1 .. teams, each once, unless the race stalled (then the decided places come first)."""
    for race in np.unique(seats["race"]):
        r = seats[seats["race"] == race]
        teams = {}
        for row in r:
            teams.setdefault(int(row["team"]), set()).add(int(row["place"]))
        assert all(len(p) == 1 for p in teams.values()), f"race {race}: a team with two places"
        places = sorted(p.pop() for p in teams.values())
        if not r["stalled"].any():
            assert places == list(range(1, len(teams) + 1)), f"race {race}: places {places}"


def test_table_does_not_depend_on_chunks_or_workers(game, tmp_path):
    info, mod, bundle = game
    n, _, design = designs(info, mod, bundle)[-1]
    one, _ = run_races(bundle, design, 120, 9, game=info.name, chunk_size=120, progress=False)
    many, _ = run_races(bundle, design, 120, 9, game=info.name, chunk_size=7, n_jobs=2, progress=False,
                        out=tmp_path / "run")
    assert one.equals(many)
    again = read_results(tmp_path / "run")
    assert again[one.columns].equals(one)


def test_a_race_replays_alone(game):
    info, mod, bundle = game
    n, _, design = designs(info, mod, bundle)[0]
    seats, visits = play_chunk(info.name, bundle, design, 3, 0, 40)
    for race in (0, 17, 39):
        alone, alone_visits = play_chunk(info.name, bundle, design, 3, race, race + 1)
        np.testing.assert_array_equal(alone, seats[seats["race"] == race])
        np.testing.assert_array_equal(alone_visits, visits[visits["race"] == race])
    assert mod.replay(bundle, design, 3, 17).strip()


def test_capacities_too_small_are_a_clear_error(game):
    """A log too small for the race is refused with a message naming the capacity, never written
    past; the same race with room enough logs completely."""
    info, mod, bundle = game
    n, _, design = designs(info, mod, bundle)[-1]
    full = mod.log_with_rows(bundle, design, 4, 2, 100_000)
    assert len(full) > 10
    with pytest.raises(RuntimeError, match=r"(?i)more than 10 "):
        mod.log_with_rows(bundle, design, 4, 2, 10)
    again = mod.log_with_rows(bundle, design, 4, 2, len(full))
    np.testing.assert_array_equal(again, full)


def test_referee_accepts_the_logs(game):
    info, mod, bundle = game
    for n, _, design in designs(info, mod, bundle)[::2]:
        for race in range(3):
            mod.referee(bundle, design, 21, race)


def test_a_tiny_study_turns_into_a_report(game, tmp_path):
    from reports.report import build_report
    from sim.results_folder import open_results
    from sim.study import load_study, run_study

    info, mod, bundle = game
    n = info.racers[1] if info.racers[1] <= 4 else 4
    path = tmp_path / "tiny.toml"
    path.write_text(f'title = "tiny"\ngame = "{info.name}"\nseed = 3\n'
                    f'[[cell]]\n{info.scenario} = "{mod.scenarios(bundle)[0]}"\nracers = {n}\nraces = 60\n')
    study = load_study(path)
    k = mod.seats_per_race(study.cells[0].design)
    block = mod.block(bundle, study.cells[0].design)
    races = -(-60 // block) * block                # rounded up to whole balanced blocks
    summary = run_study(study, tmp_path / "out", progress=False, log=lambda *_: None)
    assert summary.races.sum() == races * k
    seats = read_results(next((tmp_path / "out" / "results").glob("cell=*/variant=base")))
    assert len(seats) == races * k
    source = open_results(tmp_path / "out")
    assert source.game == info.name and source.scenario == info.scenario
    report = build_report(source, tmp_path / "report", log=lambda *_: None)
    assert (tmp_path / "report" / "report.html").stat().st_size > 0
    keys = [s.key for s in report.sections]
    assert {"overview", "win-rates", "dynamics"} <= set(keys), keys
    assert any(info.scenario in f or "over all" in f.lower() for f in report.findings), report.findings


def test_each_game_has_its_own_report_sections():
    from reports.report import LAYOUTS

    assert set(GAMES) <= set(LAYOUTS), "a registered game without its report layout gets the core one only"
