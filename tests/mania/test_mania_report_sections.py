"""Race length a designer can plan with (reports.mania): turns per player and minutes at the table."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.mania import SECONDS_PER_TURN, race_tables
from sim.mania import load_bundle, play_block


def test_race_tables_from_played_races():
    b = load_bundle()
    seats, _ = play_block(b, "red", "relay", 6, 5, np.arange(40), legs=3)
    rows = pd.DataFrame({k: seats[k] for k in ("race", "seat", "turns", "rounds", "n_racers")})
    rows["cell"], rows["variant"], rows["track"] = "c", "base", "red"
    t = race_tables(rows, ("track",))
    assert len(t) == 40 and (t.n_racers == 6).all() and (t.track == "red").all()
    r0 = seats[seats["race"] == 0]
    row = t[t.race == 0].iloc[0]
    assert row.turns_per_player == pytest.approx(r0["turns"].mean())
    assert row.minutes == pytest.approx(r0["turns"].sum() * SECONDS_PER_TURN / 60)
    assert row.rounds == r0["rounds"][0]
    # a relay leg waits for the one before it, so every player takes fewer turns than the race has rounds
    assert (t.turns_per_player < t.rounds).all()


def test_seconds_per_turn_scales_the_minutes():
    rows = pd.DataFrame({"cell": "c", "variant": "base", "race": [0, 0, 1, 1], "seat": [0, 1, 0, 1],
                         "turns": [30, 28, 40, 41], "rounds": [31, 31, 42, 42], "n_racers": 2})
    t = race_tables(rows, seconds=15)
    assert t.minutes.tolist() == pytest.approx([58 * 15 / 60, 81 * 15 / 60])
    assert t.turns_per_player.tolist() == [29, 40.5]


def _rows(bundle, variant, fmt="sprint", n=4, races=400, **kw):
    seats, _ = play_block(bundle, "red", fmt, n, 9, np.arange(races), **kw)
    cols = ("race", "seat", "team", "leg", "won", "turns", "rounds", "n_racers", "penalty_laps")
    return pd.DataFrame({k: seats[k] for k in cols}).assign(cell="c", variant=variant)


def test_readings_of_the_shooting_switch_on_played_races(tmp_path):
    """shots_per_turn = "all" on the same races: fewer turns and rounds, the same shooting."""
    from maniadata import copy_shipped
    from reports.mania import reading_races
    from reports.readings import paired_effects
    from sim.validation import Patch

    root = copy_shipped(tmp_path / "d")
    base = load_bundle(root)
    alls = load_bundle(root, [Patch("game.toml", "switches.shots_per_turn", "all")])
    rows = pd.concat([_rows(base, "base"), _rows(alls, "all")], ignore_index=True)
    races, measures = reading_races(rows)
    assert len(races) == 800 and [m.columns for m in measures][0] == ("won_0",)
    e = paired_effects(races, "base", measures, boots=200).set_index("measure")
    turns = e.loc["turns per player"]
    assert turns.clear and -10 < turns.change < -6      # two shootings of five shots: 8 turns less
    assert e.loc["rounds per race"].change < 0
    shares = races[races.variant == "base"][[f"won_{t}" for t in range(4)]].sum(axis=1)
    assert (shares == 1).all()                           # one winner per race under turn_order


def test_readings_of_a_relay_count_teams(tmp_path):
    from maniadata import copy_shipped
    from reports.mania import reading_races
    from reports.readings import paired_effects
    from sim.validation import Patch

    root = copy_shipped(tmp_path / "d")
    base = load_bundle(root)
    spare = load_bundle(root, [Patch("game.toml", "switches.calibre_uses_spare", True)])
    kw = dict(fmt="relay", n=6, races=300, legs=2)
    rows = pd.concat([_rows(base, "base", **kw), _rows(spare, "spare", **kw)], ignore_index=True)
    races, measures = reading_races(rows)
    assert measures[1].columns == ("won_0", "won_1", "won_2")
    assert measures[0].scale == pytest.approx(1 / 3)
    e = paired_effects(races, "base", measures, boots=200).set_index("measure")
    assert e.loc["penalty loops per racer"].clear and e.loc["penalty loops per racer"].change > 0


def test_clean_shooting_compares_within_cells_and_leaves_out_a_lone_racer():
    """Issue 30, item 2: clean shooters are compared with every racer of their own format, track and
    racer count, the cells averaged with equal weights (pooled over formats, the mix would blur the
    effect), and a lone racer's time trial (always won) is left out."""
    from types import SimpleNamespace

    from reports.mania import shooting_share

    sprint = pd.DataFrame({"track": "red sprint", "n_racers": 2, "misses": [0, 1, 0, 2], "won": [0, 1, 0, 1]})
    mass = pd.DataFrame({"track": "red mass start", "n_racers": 4, "misses": [0, 0, 0, 1, 1, 1, 1, 1],
                         "won": [1, 1, 0, 0, 0, 0, 0, 0]})
    lone = pd.DataFrame({"track": "red sprint", "n_racers": 1, "misses": [0], "won": [1]})
    rows = pd.concat([sprint, mass, lone], ignore_index=True)
    ctx = SimpleNamespace(o=SimpleNamespace(confidence=0.95), sc="track", scenario="track")
    s = shooting_share(ctx, rows)
    # within cells: clean 0% (sprint) and 66.7% (mass) -> 33.3%; every racer 50% and 25% -> 37.5%
    # (pooled, the clean racers would win 2 of 5, 40%; with the time trial, 3 cells)
    assert ("racers who miss nothing win 33.3% of their races against 37.5% for every racer (2 cells, 5 clean "
            "racers)") in s.findings[0], s.findings
    assert "red sprint 0.0% against 50.0%" in s.findings[0] and "red mass start 66.7% against 25.0%" in s.findings[0]
