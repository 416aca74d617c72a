"""The conformance suite: every game passes the same checks (OpenSpiel's api_test runs every API
property over every registered game the same way).

A game runs it by subclassing `Conformance` in a test file with a `game_name` fixture (the shipped
games: tests/test_conformance.py; a game that lives in tests/: its own test file, as
tests/toygame/test_toygame.py does). It checks, before a game's numbers reach a report:

- the contract: the module keeps sim.contract's protocols (every function, its parameters), the
  optional hooks are exactly those its registration declares, a game with players has a roster
  that knows its default players, and its layout, commands and examples name real things;
- its default data loads; 300 random races in every racer count (and option) play cleanly: records
  of the declared dtypes, places a permutation per team, a winner in every decided race;
- the design round trip: a design through the manifest's form (JSON) and back plays the same races;
- balanced blocks: over each block of races every value of every seat axis sits in every seat
  equally often;
- warm designs: each label's design is valid and plays;
- the table does not depend on how races are chunked or how many workers play them; a race
  replays alone; event-log capacities are checked; the referee accepts the logs;
- golden logs: one runner for every game, over the game's golden folder (cases.toml and a text
  file per case); REGENERATE_GOLDEN=1 rewrites them on purpose (review the diff);
- a tiny study runs through the shared study runner and turns into a report.
"""
from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernels import records as REC
from sim import contract, games
from sim.run import play_chunk, read_results, run_races

RACES = 300
GOLDEN = Path(__file__).resolve().parent / "golden"


def designs(info, mod, bundle):
    """A balanced design for every racer count the game supports (and every option value)."""
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


class Conformance:
    """The suite; a subclass provides the `game_name` fixture (and may override `golden_dir`)."""

    @pytest.fixture(scope="class")
    @classmethod
    def game(cls, game_name):
        info = games.game(game_name)
        mod = info.load()
        return info, mod, mod.load_bundle(None)

    @pytest.fixture(scope="class")
    @classmethod
    def golden_dir(cls, game_name) -> Path:
        """The game's golden folder: tests/golden/NAME for the shipped games."""
        return GOLDEN / game_name

    # --- the contract -------------------------------------------------------------------------

    def test_module_keeps_the_contract(self, game):
        info, mod, bundle = game
        assert contract.breaches(mod, contract.GameModule) == [], f"{info.module} breaks sim.contract.GameModule"
        assert contract.breaches(mod, contract.Hooks, info.hooks) == [], f"{info.module}: a declared hook"
        stray = [h for h in games.HOOKS if h not in info.hooks and hasattr(mod, h)]
        assert not stray, f"{info.module} has {stray} but its registration does not declare them (hooks=...)"
        assert mod.SEAT_DTYPE.names[:len(REC.SEAT_CORE)] == tuple(
            info.scenario if n == "scenario" else n for n in REC.SEAT_CORE_NAMES)
        assert mod.VISIT_DTYPE.names[:len(REC.VISIT_CORE)] == REC.VISIT_CORE_NAMES
        assert set(info.axes) <= set(mod.SEAT_DTYPE.names), "every seat axis is a column of the seat record"

    def test_registration_names_real_things(self, game):
        from reports.report import layout_of
        from sim.source import ResultsSource
        from sim.cli import COMMANDS

        info, mod, bundle = game
        commands = {c.__name__.rsplit(".", 1)[-1] for c in COMMANDS}
        assert set(info.commands) <= commands and set(info.examples) <= commands
        for command, lines in info.examples.items():
            named = info.name == games.DEFAULT or all(f"--game {info.name}" in line for line in lines.splitlines()
                                                        if line.lstrip().startswith("biathlon-sim"))
            assert named and f" {command} " in lines, f"examples of {command} name another game or command"
        assert callable(layout_of(ResultsSource("t", "", ".", (), lambda *a: None, layout=info.layout)))
        assert set(info.scenarios) <= set(mod.scenarios(bundle))
        design = mod.make_design(mod.scenarios(bundle)[0], info.racers[1], players=(info.default_player,))
        mod.check_design(bundle, design)

    def test_players_hook(self, game):
        info, mod, bundle = game
        if not info.players:
            assert info.hook("roster") is None and not any(g.name == info.name for g in games.with_players())
            return
        hook = info.hook("roster")()
        assert contract.breaches(hook, contract.Roster) == []
        assert (hook.game, hook.scenario) == (info.name, info.scenario)
        known = hook.available()
        assert [hook.resolve(p, known).name for p in info.players] == list(info.players)
        hook.check(bundle, mod.scenarios(bundle)[0], [hook.resolve(info.default_player, known)] * info.racers[0])

    # --- races ----------------------------------------------------------------------------------

    def test_default_data_loads(self, game):
        info, mod, bundle = game
        assert bundle.data_hash and len(mod.scenarios(bundle)) >= 1
        assert mod.summary(bundle).strip()

    def test_races_in_every_racer_count_play_cleanly(self, game):
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

    def test_design_round_trip(self, game):
        """Every design through the manifest's form (JSON, with the player records) and back is the
        same design: it records the same and plays the same races."""
        info, mod, bundle = game
        for n, options, design in designs(info, mod, bundle):
            d = json.loads(json.dumps(mod.design_dict(design)))
            players = json.loads(json.dumps(mod.player_records(design)))
            back = mod.design_from_dict(d, players)
            assert mod.design_dict(back) == d and mod.player_records(back) == players, (n, options)
            assert mod.describe(back) == mod.describe(design)
            for want, got in zip(mod.play_chunk(bundle, design, 8, 0, 3), mod.play_chunk(bundle, back, 8, 0, 3)):
                np.testing.assert_array_equal(got, want)

    def test_balanced_blocks(self, game):
        """Over each block of races of a balanced design, every value of every seat axis sits in
        every seat equally often, and every seat sees the same values."""
        info, mod, bundle = game
        n, _, design = designs(info, mod, bundle)[-1]
        block = mod.block(bundle, design)
        assert block >= 1
        seats, _ = mod.play_chunk(bundle, design, 13, block, 3 * block)       # blocks 1 and 2
        df = pd.DataFrame({"block": seats["race"] // block, "seat": seats["seat"],
                           **{a: seats[a] for a in info.axes}})
        for axis in info.axes:
            for b, rows in df.groupby("block"):
                counts = pd.crosstab(rows["seat"], rows[axis])
                assert (counts.to_numpy() == counts.to_numpy().flat[0]).all(), \
                    f"block {b}: {axis} by seat is not even:\n{counts}"

    def test_warm_designs(self, game):
        """Each kernel entry point `compile` warms: a valid design that plays."""
        info, mod, bundle = game
        warm = mod.warm_designs(bundle)
        assert warm and len({label for label, _ in warm}) == len(warm)
        for label, design in warm:
            assert isinstance(label, str) and label
            mod.check_design(bundle, design)
            seats, _ = mod.play_chunk(bundle, design, 0, 0, 1)
            assert len(seats) == mod.seats_per_race(design) and seats.dtype == mod.SEAT_DTYPE, label

    def test_table_does_not_depend_on_chunks_or_workers(self, game, tmp_path):
        info, mod, bundle = game
        n, _, design = designs(info, mod, bundle)[-1]
        one, _ = run_races(bundle, design, 120, 9, game=info.name, chunk_size=120, progress=False)
        many, _ = run_races(bundle, design, 120, 9, game=info.name, chunk_size=7, n_jobs=2, progress=False,
                            out=tmp_path / "run")
        assert one.equals(many)
        again = read_results(tmp_path / "run")
        assert again[one.columns].equals(one)

    def test_a_race_replays_alone(self, game):
        info, mod, bundle = game
        n, _, design = designs(info, mod, bundle)[0]
        seats, visits = play_chunk(info.name, bundle, design, 3, 0, 40)
        for race in (0, 17, 39):
            alone, alone_visits = play_chunk(info.name, bundle, design, 3, race, race + 1)
            np.testing.assert_array_equal(alone, seats[seats["race"] == race])
            np.testing.assert_array_equal(alone_visits, visits[visits["race"] == race])
        assert mod.replay(bundle, design, 3, 17).strip()

    def test_capacities_too_small_are_a_clear_error(self, game):
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

    def test_referee_accepts_the_logs(self, game):
        info, mod, bundle = game
        for n, _, design in designs(info, mod, bundle)[::2]:
            for race in range(3):
                mod.referee(bundle, design, 21, race)

    def test_golden_logs(self, game, golden_dir):
        """The one golden-log runner: every case of the game's golden folder, line by line."""
        info, mod, bundle = game
        cases = tomllib.loads((golden_dir / "cases.toml").read_text())
        assert cases, f"{golden_dir}/cases.toml names no golden race"
        assert {p.name for p in golden_dir.glob("*.txt")} == set(cases), "a golden file without its case, or back"
        for name, case in cases.items():
            text = mod.golden_log(case)
            path = golden_dir / name
            if os.environ.get("REGENERATE_GOLDEN") == "1":
                path.write_text(text)
                continue
            want, got = path.read_text().splitlines(), text.splitlines()
            for i, (w, g) in enumerate(zip(want, got), start=1):
                assert g == w, f"{path} line {i} differs (regenerate on purpose: tests/golden/README.md)\n" \
                               f"  want: {w}\n  got:  {g}"
            assert len(got) == len(want), f"{path}: {len(got)} lines, the golden file has {len(want)}"
            assert text == path.read_text(), f"{path}: the same lines, other line ends"
        if os.environ.get("REGENERATE_GOLDEN") == "1":
            pytest.skip(f"regenerated {golden_dir}")

    def test_a_tiny_study_turns_into_a_report(self, game, tmp_path):
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
        assert source.game == info.name and source.scenario == info.scenario and source.layout == info.layout
        report = build_report(source, tmp_path / "report", log=lambda *_: None)
        assert (tmp_path / "report" / "report.html").stat().st_size > 0
        keys = [s.key for s in report.sections]
        assert {"overview", "win-rates", "dynamics"} <= set(keys), keys
        assert any(info.scenario in f or "over all" in f.lower() for f in report.findings), report.findings
