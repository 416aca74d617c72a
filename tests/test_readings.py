"""reports.readings: paired effects of rule readings, their bootstrap intervals and the ranking."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.readings import Measure, crossings, paired_effects, rank, reading_variants
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
    assert (e.xs("same").changed == 0).all() and (e.xs("slow").changed == 3000).all()
    slow = e.loc[("slow", "rounds")]
    assert slow.change == pytest.approx(5) and slow.low == pytest.approx(5) and slow.high == pytest.approx(5)
    assert slow.relative == pytest.approx(5 / slow.base)
    assert not e.loc[("slow", "first team")].clear          # the same winners: no change at all
    first = e.loc[("seat", "first team")]
    assert first.clear and first.low < first.change < first.high
    assert first.relative == pytest.approx(first.change / 0.25)
    # what a relative change is against, said in words (issue 30: never "of a fair share" for a length)
    assert first.against == "a fair share" and slow.against == "its base value"
    # the paired interval is far narrower than the unpaired spread of a win rate over 3000 races
    assert first.high - first.low < 2 * 1.96 * np.sqrt(0.25 * 0.75 / 3000)
    same = e.xs("same")
    assert (same.change == 0).all() and (same.low == 0).all() and not same.clear.any()


def test_rank_puts_clear_changes_first_by_size():
    e = paired_effects(races(np.random.default_rng(4)), "base", MEASURES, boots=200)
    r = rank(e)
    assert list(r.variant) == ["seat", "slow", "same"]          # seat: ~ +40% of a fair share; slow: ~ +11%
    assert r.loc[0, "largest_change"] in ("first team", "spread") and r.loc[0, "clear"]
    assert r.loc[1, "largest_change"] == "rounds" and r.loc[1, "against"] == "its base value"
    assert not r.loc[2, "clear"] and list(r["rank"]) == [1, 2, 3]


def test_reading_variants_are_the_switch_only_variants():
    class Source:
        variants = {"a": VariantInfo("a", "", ({"file": "game.toml", "path": "switches.x", "value": 1},)),
                    "b": VariantInfo("b", "", ({"file": "game.toml", "path": "switches.x", "value": 1},
                                               {"file": "tracks/red.toml", "path": "loop", "value": []})),
                    "c": VariantInfo("c", "", ())}
    assert reading_variants(Source()) == ["a"]


def test_crossings_name_only_clear_moves_across_the_band():
    e = pd.DataFrame({"variant": ["a", "b", "c", "d"], "measure": "first seat", "base": [0.30, 0.30, 0.26, 0.30],
                      "value": [0.26, 0.29, 0.30, 0.26], "fair": [0.25, 0.25, 0.25, np.nan],
                      "clear": [True, True, True, True]})
    moved = crossings(e, 0.10)        # band 0.225 .. 0.275 of a share of 0.25
    assert list(moved.variant) == ["a", "c"] and list(moved.into) == [True, False]
    assert moved.before.iloc[0] == pytest.approx(1.2) and moved.after.iloc[0] == pytest.approx(1.04)
    assert crossings(e.assign(clear=False), 0.10).empty          # a move by chance names nothing


def test_skitour_reading_races_measure_nations_and_the_first_seat():
    """Two races of 3 racers from 4 nations: each nation's rate over the races it rode, the gap
    between the best and the worst, seat 0's rate; the two-player game measures sides instead."""
    from reports.skitour import reading_races

    rows = pd.DataFrame({"variant": "base", "race": [0, 0, 0, 1, 1, 1], "seat": [0, 1, 2, 0, 1, 2],
                         "team": [0, 1, 2, 0, 1, 2], "won": [1, 0, 0, 0, 1, 0], "rounds": [10] * 3 + [12] * 3,
                         "turns": [10, 10, 9, 12, 12, 11], "collapse_round": [-1, -1, 5, -1, -1, -1],
                         "n_racers": 3, "nation_name": ["A", "B", "C", "A", "D", "B"], "nation": 0})
    races, measures, who = reading_races(rows)
    assert who == "3 racers" and len(races) == 2
    m = {x.name.split(" (")[0].split("'s")[0]: x for x in measures}
    means = races.drop(columns=["variant", "race"]).mean()
    value = lambda x: float(x.of(np.array([means[c] for c in x.columns])))   # noqa: E731
    assert value(m["A"]) == pytest.approx(0.5) and value(m["D"]) == pytest.approx(1.0)
    assert value(m["B"]) == 0 and value(m["largest nation gap"]) == pytest.approx(1.0)
    assert value(m["seat 0"]) == pytest.approx(0.5) and m["seat 0"].judged and m["seat 0"].scale == pytest.approx(1 / 3)
    assert value(m["share of racers who collapse"]) == pytest.approx(1 / 6)
    two = rows.assign(n_racers=4, team=[0, 1, 0, 0, 1, 0], won=[1, 0, 1, 0, 1, 0])
    races, measures, who = reading_races(two)
    assert who.startswith("two players") and measures[0].columns == ("side_0",) and measures[0].judged
    assert list(races.side_0) == [1, 0]


def test_the_section_names_readings_that_move_a_verdict_for_the_verdicts_top():
    """reports.readings.section on a stub study: the reading that moves the first seat out of the
    band is named in ctx.readings (the verdict's first line) and in the section's first finding."""
    from types import SimpleNamespace

    from reports.readings import section
    rng = np.random.default_rng(5)
    n = 4000
    first = rng.random(n) < 0.25
    base = pd.DataFrame({"race": np.arange(n), "won_0": first.astype(float)})
    more = base.assign(won_0=(first | (rng.random(n) < 0.2)).astype(float))
    frames = {"base": base, "tilt": more, "same": base}
    src = SimpleNamespace(
        base="base", cells=[SimpleNamespace(name="c", trail="T", variants=["base", "tilt", "same"])],
        variants={"tilt": VariantInfo("tilt", "a seat tilt.", ({"file": "game.toml", "path": "switches.x", "value": 1},)),
                  "same": VariantInfo("same", "nothing.", ({"file": "game.toml", "path": "switches.y", "value": 1},))},
        read=lambda cols, cells, variants: pd.concat([frames[v].assign(variant=v) for v in variants]))

    def races_of(rows):
        return rows, [Measure("first seat", ("won_0",), share=True, scale=0.25, judged=True)], "4 racers"

    ctx = SimpleNamespace(o=SimpleNamespace(confidence=0.95), source=src, band=0.1, band_text="±10%", readings=[])
    s = section(ctx, "docs/x.md", ["race"], races_of)
    assert len(ctx.readings) == 1 and "tilt" in ctx.readings[0] and "out of the band" in ctx.readings[0]
    assert "same" not in ctx.readings[0] and s.findings[0].startswith("Readings that move a verdict")
    # a reading that changed no race is not measurable, never "a change of 0"
    assert any(f.startswith("Readings that changed no race") and "same" in f for f in s.findings)
