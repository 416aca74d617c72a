"""reports.readings: paired effects of rule readings, their bootstrap intervals and the ranking."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.readings import Measure, paired_effects, rank, reading_variants
from sim.source import VariantInfo


def races(rng, n=3000):
    """Base and three variants on the same races: `slow` adds 5 rounds to every race (and nothing
    else), `seat` moves a win from team 1 to team 0 in 10% of races, `same` replays the base."""
    rounds = rng.integers(30, 60, n).astype(float)
    winner = rng.integers(0, 4, n)
    base = pd.DataFrame({"race": np.arange(n), "rounds": rounds,
                         **{f"won_{t}": (winner == t).astype(float) for t in range(4)}})
    slow = base.assign(rounds=rounds + 5)
    moved = winner.copy()
    moved[(winner == 1) & (rng.random(n) < 0.4)] = 0
    seat = base.assign(**{f"won_{t}": (moved == t).astype(float) for t in range(4)})
    parts = [base.assign(variant="base"), slow.assign(variant="slow"), seat.assign(variant="seat"),
             base.assign(variant="same")]
    return pd.concat(parts, ignore_index=True).sample(frac=1, random_state=1)   # order must not matter


MEASURES = [Measure("rounds", ("rounds",)),
            Measure("first team", ("won_0",), share=True, scale=0.25),
            Measure("spread", tuple(f"won_{t}" for t in range(4)), lambda m: float(m.max() - m.min()),
                    share=True, scale=0.25)]


def test_paired_effects_find_the_known_changes():
    e = paired_effects(races(np.random.default_rng(3)), "base", MEASURES, boots=300).set_index(["variant", "measure"])
    slow = e.loc[("slow", "rounds")]
    assert slow.change == pytest.approx(5) and slow.low == pytest.approx(5) and slow.high == pytest.approx(5)
    assert slow.relative == pytest.approx(5 / slow.base)
    assert not e.loc[("slow", "first team")].clear          # the same winners: no change at all
    first = e.loc[("seat", "first team")]
    assert first.clear and first.low < first.change < first.high
    assert first.relative == pytest.approx(first.change / 0.25)
    # the paired interval is far narrower than the unpaired spread of a win rate over 3000 races
    assert first.high - first.low < 2 * 1.96 * np.sqrt(0.25 * 0.75 / 3000)
    same = e.xs("same")
    assert (same.change == 0).all() and (same.low == 0).all() and not same.clear.any()


def test_rank_puts_clear_changes_first_by_size():
    e = paired_effects(races(np.random.default_rng(4)), "base", MEASURES, boots=200)
    r = rank(e)
    assert list(r.variant) == ["seat", "slow", "same"]          # seat: ~ +40% of a fair share; slow: ~ +11%
    assert r.loc[0, "largest_change"] in ("first team", "spread") and r.loc[0, "clear"]
    assert r.loc[1, "largest_change"] == "rounds"
    assert not r.loc[2, "clear"] and list(r["rank"]) == [1, 2, 3]


def test_reading_variants_are_the_switch_only_variants():
    class Source:
        variants = {"a": VariantInfo("a", "", ({"file": "game.toml", "path": "switches.x", "value": 1},)),
                    "b": VariantInfo("b", "", ({"file": "game.toml", "path": "switches.x", "value": 1},
                                               {"file": "tracks/red.toml", "path": "loop", "value": []})),
                    "c": VariantInfo("c", "", ())}
    assert reading_variants(Source()) == ["a"]
