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
