"""Golden event logs: fixed races rendered as text, compared line by line.

A change in the rules, the dice order or the log format shows up here first. When such a change
is intended, regenerate on purpose and review the diff:

    MANIA_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/mania/test_mania_golden.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim.mania import load_bundle, play_one
from sim.mania.eventlog import render
from sim.validation import Patch

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "red_sprint_3racers_seed7_race3.txt": dict(track="red", fmt="sprint", n_racers=3, seed=7,
                                               race=3),
    "yellow_relay_2x2_seed11_race0.txt": dict(track="yellow", fmt="relay", n_racers=4, seed=11,
                                              race=0, legs=2, number_dice=2),
    # the other readings of rules.md at once: shots all in one turn, calibre re-rolls using spares,
    # specials when passing, the penalty gate's fork, ties by the roll left
    "red_relay_3x2_readings_seed5_race1.txt": dict(track="red", fmt="relay", n_racers=6, seed=5,
                                                   race=1, legs=2, switches=dict(
                                                       shots_per_turn="all", calibre_uses_spare=True,
                                                       specials_on="passing", penalty_gate="bypass",
                                                       finish_ties="leftover")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_event_log(shipped, name):
    kw = dict(CASES[name])
    bundle = shipped
    if "switches" in kw:
        bundle = load_bundle(None, [Patch("game.toml", f"switches.{k}", v)
                                    for k, v in kw.pop("switches").items()])
    _, _, log = play_one(bundle, kw.pop("track"), kw.pop("fmt"), kw.pop("n_racers"), **kw)
    text = render(log, bundle)
    path = GOLDEN / name
    if os.environ.get("MANIA_REGEN_GOLDEN") == "1":
        path.write_text(text)
        pytest.skip(f"regenerated {path.name}")
    want = path.read_text().splitlines()
    got = text.splitlines()
    for i, (w, g) in enumerate(zip(want, got), start=1):
        assert g == w, f"{name} line {i} differs:\n  want: {w}\n  got:  {g}"
    assert len(got) == len(want), f"{name}: {len(got)} lines, golden has {len(want)}"
