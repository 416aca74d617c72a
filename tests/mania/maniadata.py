"""Small Mania data sets for tests: the shipped game.toml with chosen switches, plus test tracks.

TEST_TRACK (26 squares) puts every mechanism within a few rolls of the START area:

    square  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25
    token   w  w  w  w  w  w  w  b  b  b  b  w  g  g  g  w  wO w  wX w  wT w  g  g  w  w

range exit 1, penalty entry 1 (squares 1 and 2 hold two racers), penalty loop 2 squares,
finish area 2 squares with 2 corridors. TINY_TRACK (10 white squares) reaches the range in two
rolls: range exit 0, penalty entry 1, penalty loop 2 squares, finish area 1 square, 1 corridor.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from sim.mania.load import default_data_dir

TEST_TRACK = """
name = "test"
length_m = 1300
loop = ["w w w w w w w", "b b b b", "w g g g w", "wO w wX w wT w g g w w"]
range_exit = 1
[penalty]
entry = 1
squares = "w w"
[finish]
squares = "w w"
corridors = 2
"""

TINY_TRACK = """
name = "tiny"
length_m = 500
loop = ["w w w w w w w w w w"]
range_exit = 0
[penalty]
entry = 1
squares = "w w"
[finish]
squares = "w"
corridors = 1
"""

SWITCH_DEFAULTS = {
    "halve_rounding": '"up"', "zone_rule": '"start"', "exit_roll": '"next_turn"',
    "exit_from": '"range"', "specials_after_push": "true", "chain_extra_rolls": "true",
}


def write_data(root: Path, tracks: dict[str, str] | None = None, **switches) -> Path:
    """A data directory at `root`: the shipped game.toml with `switches` set (Python values),
    and `tracks` (file stem -> TOML text; default: the test and tiny tracks)."""
    root.mkdir(parents=True, exist_ok=True)
    text = (default_data_dir() / "game.toml").read_text()
    for key, value in switches.items():
        if key not in SWITCH_DEFAULTS:
            raise KeyError(key)
        new = ("true" if value else "false") if isinstance(value, bool) else f'"{value}"'
        old = f"{key} = {SWITCH_DEFAULTS[key]}"
        assert old in text, old
        text = text.replace(old, f"{key} = {new}", 1)
    (root / "game.toml").write_text(text)
    (root / "tracks").mkdir(exist_ok=True)
    for stem, body in (tracks or {"test": TEST_TRACK, "tiny": TINY_TRACK}).items():
        (root / "tracks" / f"{stem}.toml").write_text(body)
    return root


def copy_shipped(root: Path) -> Path:
    shutil.copytree(default_data_dir(), root)
    return root


# --- scripted dice and log reading ------------------------------------------------------------
def n(*values: int) -> list[int]:
    """Number die face indices for the shipped faces 1..6."""
    return [v - 1 for v in values]


# individual die faces: 0-3 white, 4 black, 5 calibre; relay die: 0-2 white, 3-4 black, 5 calibre
WHITE, BLACK, CALIBRE = 0, 4, 5
R_WHITE, R_BLACK, R_CALIBRE = 0, 3, 5


def events(log, kind: int, seat: int | None = None) -> list[tuple[int, ...]]:
    """The argument tuples (a0..a9) of every row of `kind` (for `seat`), in log order."""
    return [tuple(int(x) for x in r[3:]) for r in log
            if r[2] == kind and (seat is None or r[1] == seat)]


def rows(log, seat: int | None = None, kinds=None) -> list[tuple[int, ...]]:
    """(round, seat, kind, a0..a9) rows, optionally for one seat and some kinds."""
    return [tuple(int(x) for x in r) for r in log
            if (seat is None or r[1] == seat) and (kinds is None or r[2] in kinds)]
