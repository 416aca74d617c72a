"""A small, hand-checkable Biathlon Blast data directory for tests, written from strings.

Independent of the shipped data set, so tests of validation and compilation do not move when the
illustrative values are retuned. `write_minidata(dir)` writes it; tests then break one thing.
"""
from __future__ import annotations

from pathlib import Path

GAME = """\
[rules]
round_cap = 40

[switches]
mixed_lane_drafting = true

[gear]
ski_colours = ["red", "black", "yellow", "green", "blue", "white"]
[gear.red]
bullets = 4
wax = {}
[gear.black]
bullets = 3
wax = { black = 2 }
[gear.yellow]
bullets = 3
wax = { yellow = 3 }
[gear.green]
bullets = 3
wax = { green = 4 }
[gear.blue]
bullets = 3
wax = { blue = 3 }
[gear.white]
bullets = 3
wax = { white = 2 }
"""

CARDS = """\
[[card]]
name = "Glide"
initiative = 4
top = { flat = 3, pulse = 1 }
bottom = { downhill = 4, pulse = 0 }

[[card]]
name = "Breathe"
initiative = 2
top = { flat = 1, pulse = -2 }
bottom = { uphill = 1, pulse = -1 }

[[card]]
name = "Push"
initiative = 5
top = { uphill = 2, pulse = 2 }
bottom = { flat = 2, downhill = 2, pulse = 1, wind = true }

[[card]]
name = "Gust"
initiative = "blue"
top = { flat = 2, pulse = 1, wind = true }
bottom = { uphill = 3, pulse = 3, background = "icy" }
"""

MOTIVATION = """\
[[card]]
name = "Cheer"
initiative = 6
top = { flat = 2, pulse = -1 }
bottom = { uphill = 1, flat = 1, pulse = 0 }
copies = 3

[[card]]
name = "Roar"
initiative = "2x green"
top = { uphill = 4, pulse = 1, background = "icy" }
bottom = { flat = 5, pulse = 2, background = "icy" }
"""

BIATHLETE = """\
name = "{name}"
nation = "{nation}"
accuracy = [{a}, {b}, {c}]
flags = {{ red = 2, black = 1, yellow = 1 }}

[[card]]
name = "{name} One"
initiative = {i}
top = {{ flat = 4, pulse = 1 }}
bottom = {{ uphill = 2, downhill = 5, pulse = 1 }}

[[card]]
name = "{name} Two"
initiative = "2x red"
top = {{ flat = 5, pulse = 1 }}
bottom = {{ uphill = 2, pulse = -1, wind = true }}

[[card]]
name = "{name} Three"
initiative = 3
top = {{ uphill = 3, pulse = 2 }}
bottom = {{ flat = 2, pulse = -1 }}

[[card]]
name = "{name} Four"
initiative = 7
top = {{ flat = 3, downhill = 3, pulse = 1 }}
bottom = {{ flat = 1, pulse = -2 }}

[[card]]
name = "{name} Five"
initiative = 1
top = {{ uphill = "black", flat = 2, pulse = 0 }}
bottom = {{ flat = 6, pulse = 3, background = "icy" }}
"""

BIATHLETES = [("Ann", "Norway", 2, 3, 4, 9), ("Bo", "Sweden", 3, 3, 4, 8), ("Cy", "France", 2, 4, 4, 6),
              ("Di", "Italy", 1, 3, 5, 5), ("Ed", "Canada", 2, 3, 3, 4), ("Flo", "Austria", 3, 4, 5, 2)]

# grid 3x2 | loop (10) range stretch (3) | loop range stretch | final (3) # run-out
VENUE = """\
name = "Testhausen"

[range]
mats = 6
facing = "N"
terrain = "F"

[wait]
pulse = -2

[shoot]
uphill = "2x hits"
pulse = 0
background = "icy"

[segments.grid]
terrain = "FFF |"
lanes   = "222"
heading = "EEE"

[segments.loop]
terrain = "FFUUD DDFFU"
lanes   = "22112 22221"
heading = "EENNN EESSS"
coach = [ {{ space = 3, colour = "black", strength = 2 }}, {{ space = 8, colour = "blue", strength = 1 }} ]

[segments.stretch]
terrain = "DFF |"
lanes   = "222"
heading = "WWW"

[segments.final]
terrain = "FFU # F"
lanes   = "221   2"
heading = "EEN   N"

[[trail]]
name = "{trail}"
route = ["grid", "loop", "range", "stretch", "loop", "range", "stretch", "final"]
"""

#: facts of the mini data set that tests check the compiled bundle against
ROUTE_LEN = 3 + 10 + 1 + 3 + 10 + 1 + 3 + 4     # 35 spaces
RANGE_POS = (13, 27)
START_LINE_POS = (3, 17, 31)
FINISH_POS = 34


def write_minidata(root: Path, trail: str = "Loop") -> Path:
    root = Path(root)
    (root / "biathletes").mkdir(parents=True, exist_ok=True)
    (root / "venues").mkdir(exist_ok=True)
    (root / "game.toml").write_text(GAME)
    (root / "cards.toml").write_text(CARDS)
    (root / "motivation.toml").write_text(MOTIVATION)
    for name, nation, a, b, c, i in BIATHLETES:
        (root / "biathletes" / f"{name.lower()}.toml").write_text(
            BIATHLETE.format(name=name, nation=nation, a=a, b=b, c=c, i=i))
    (root / "venues" / "testhausen.toml").write_text(VENUE.format(trail=trail))
    return root


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace text in a data file, failing loudly if the text is not there (a broken test)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))
