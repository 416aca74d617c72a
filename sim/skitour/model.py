"""The Ski Tour: Biathlon data set as frozen dataclasses: what `load_data` returns after validation.

These mirror the data files (docs/skitour/data-format.md) with words resolved to checked values;
`sim.skitour.compile` turns them into the numeric bundle a kernel uses. Section numbers (§) refer
to docs/skitour/rules.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels.skitour.consts import SPACE_LETTERS


@dataclass(frozen=True)
class Die:
    """A shooting die (§4.4): `faces[i]` is True for a hit."""

    name: str
    letter: str                  # how stamina slots name this die
    faces: tuple[bool, ...]

    @property
    def hits(self) -> int:
        return sum(self.faces)


@dataclass(frozen=True)
class Rules:
    race_dice: int = 10
    targets: int = 5
    wax_tokens: int = 8
    wax_row: int = 6
    penalty_laps: tuple[int, ...] = (0, 1, 1, 2, 2, 3)   # laps by number of misses 0..targets
    downhill_moves: int = 3
    downhill_passes: int = 1
    uphill_penalty: int = 1
    long_race_ranges: int = 3
    lanes: int = 3
    exhausted_colour: str = "blue"
    round_cap: int = 80


@dataclass(frozen=True)
class Switches:
    short_race_on_top: bool = False
    range_payment: str = "highest_unshot"     # or "choice"
    draft_follows_bonus: bool = True
    drafter_bonus: bool = True
    reroll_blue_removal: bool = True
    diagonal_is_sideways: bool = False
    sprint_icon_column: bool = False          # after a sprint icon, the sprint column may still be taken
    reroll_shot_scope: str = "turn"           # or "visit": which shots reroll_shot may roll again
    first_player: str = "first_seat"          # or "drawn": who holds the first player marker first
    two_player_seats: str = "alternate"       # or "together": A, B, A, B or A, A, B, B
    collapse_on: str = "forced"               # or "any": a chosen payment on all blue collapses


@dataclass(frozen=True)
class Slot:
    """One stamina slot: its printed value and the colour of the die it shoots with."""

    value: int
    die: str                     # a die name of game.toml [dice]


@dataclass(frozen=True)
class WaxToken:
    """A wax token (§10). `actions` are the icons other than stamina, in printed order."""

    text: str                    # as written in the data, e.g. "stamina + plus_one / minus_one"
    stamina: bool                # shows the stamina icon: pay one stamina first
    actions: tuple[str, ...]
    one_of: bool                 # a "/" token: the player does one of `actions`


@dataclass(frozen=True)
class Nation:
    """One side of a player board (§2, §9)."""

    name: str
    side: str                    # "basic" (front) or "advanced" (back)
    board: int                   # the physical board; its two sides never race together
    colour: str                  # dice and skeeple colour (no rule reads it)
    stamina: tuple[tuple[Slot, ...], ...]   # per stamina column (= target), slots top to bottom
    capacity: tuple[int, ...]    # slots of dice columns 1-4
    full_at: tuple[int, ...]     # dice that make column 1-4 full (its box's six counts)
    boxes: tuple[str, ...]       # "star" or "flip" above column 1-4
    sprint: int                  # slots of the sprint column
    wax: tuple[WaxToken, ...]    # the nation's wax tokens
    printed_wax: WaxToken | None = None   # Finland: the token printed on the board
    file: str = ""


@dataclass(frozen=True)
class TileSide:
    """One side of a course tile. `rows` in skiing order, one letter per lane position
    (kernels.skitour.consts.SPACE_LETTERS: - . G R W S)."""

    tile: int
    letter: str                  # "a" or "b"
    kind: str                    # "course", "start", "goal" or "range"
    rows: tuple[str, ...]
    free_rows: int = 0           # start side: rows from the start line where sharing is free
    penalty_lane: int = 0        # range side: moves per penalty lap

    @property
    def label(self) -> str:
        return f"{self.tile}{self.letter}"

    def space(self, row: int, lane: int) -> int:
        """The space code (consts.SPACE_*) at a row and lane position of this side."""
        return SPACE_LETTERS.index(self.rows[row][lane])


@dataclass(frozen=True)
class Tile:
    number: int
    a: TileSide
    b: TileSide


@dataclass(frozen=True)
class Course:
    name: str
    sides: tuple[str, ...]       # tile-side labels in course order, e.g. ("1a", "7a", ..., "2a")


@dataclass(frozen=True)
class SkiTourData:
    rules: Rules
    switches: Switches
    dice: tuple[Die, ...]
    nations: tuple[Nation, ...]
    tiles: tuple[Tile, ...]
    courses: tuple[Course, ...]
    source: str = ""

    def side(self, label: str) -> TileSide:
        for t in self.tiles:
            for s in (t.a, t.b):
                if s.label == label:
                    return s
        raise KeyError(f"no tile side {label!r}")

    def course_sides(self, course: Course) -> tuple[TileSide, ...]:
        return tuple(self.side(label) for label in course.sides)

    def nation(self, name: str) -> Nation:
        for n in self.nations:
            if n.name.lower() == name.lower():
                return n
        raise KeyError(f"no nation named {name!r}; known: {', '.join(n.name for n in self.nations)}")

    def course(self, name: str) -> Course:
        for c in self.courses:
            if c.name.lower() == name.lower():
                return c
        raise KeyError(f"no course named {name!r}; known: {', '.join(c.name for c in self.courses)}")

    def die_index(self, name: str) -> int:
        return [d.name for d in self.dice].index(name)
