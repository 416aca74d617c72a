"""Helpers for tests that play Biathlon Blast races: variant data sets and random set-ups."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from sim.blast import default_data_dir, load_bundle
from sim.blast.play import make_setup

SWITCHES_DEFAULT = """mixed_lane_drafting = true
range_drafting = true       # the range is a space in line with its neighbours (not with itself)
zero_step_boost = true      # ending a move of zero steps on a coach zone also gets its boost
coach_boost = "next_turn"
motivation_to = "hand"
pulse_floor = "total"       # the pulse change is summed, then floored at 0 (not after each part)
last_racer_wins = false     # the last racer left after eliminations must still cross the finish
"""
SWITCHES_FLIPPED = """mixed_lane_drafting = false
range_drafting = false
zero_step_boost = false
coach_boost = "until_usable"
motivation_to = "discard"
pulse_floor = "each_part"
last_racer_wins = true
"""


def variant_dir(tmp: Path, replace: dict[str, str]) -> Path:
    """A copy of the shipped data with text replacements in game.toml (each must match once)."""
    root = Path(tmp) / "data"
    shutil.copytree(default_data_dir(), root)
    game = root / "game.toml"
    text = game.read_text()
    for old, new in replace.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    game.write_text(text)
    return root


def flipped_bundle(tmp: Path):
    """The shipped data with every interpretation switch set the other way."""
    return load_bundle(variant_dir(tmp, {SWITCHES_DEFAULT: SWITCHES_FLIPPED}))


def random_setups(bundle, k: int, rng: np.random.Generator, players=("random", "heuristic")):
    """k set-ups: random trail, 2-6 racers, distinct biathletes and ski colours, mixed players."""
    nb = len(bundle.biathlete_names)
    nt = len(bundle.trail_names)
    out = []
    for _ in range(k):
        n = int(rng.integers(2, 7))
        out.append(make_setup(bundle, int(rng.integers(0, nt)),
                              [int(x) for x in rng.choice(nb, n, replace=False)],
                              [int(x) for x in rng.choice(6, n, replace=False)],
                              [str(x) for x in rng.choice(players, n)]))
    return out
