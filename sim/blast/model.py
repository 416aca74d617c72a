"""The Biathlon Blast data set as frozen dataclasses: what `load_data` returns after validation.

These mirror the data files (docs/data-format.md) with words resolved to checked values; the
compiler (`sim.blast.compile`) turns them into the numeric bundle the kernels use.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Value:
    """An initiative or a step count: `base + mult * source` where source is a die or the hits.

    `source` is None for a plain number, a die colour (e.g. "red") or "hits".
    """

    base: int = 0
    source: str | None = None
    mult: int = 1

    def __str__(self) -> str:
        if self.source is None:
            return str(self.base)
        return self.source if self.mult == 1 else f"{self.mult}x {self.source}"


ZERO = Value()


@dataclass(frozen=True)
class Action:
    """One action of a card (top or bottom), or a venue's Wait or Shoot action."""

    uphill: Value = ZERO
    flat: Value = ZERO
    downhill: Value = ZERO
    pulse: int = 0
    wind: bool = False
    icy: bool = False

    @property
    def steps(self) -> tuple[Value, Value, Value]:
        """Step values indexed by terrain class: uphill, flat, downhill."""
        return (self.uphill, self.flat, self.downhill)


@dataclass(frozen=True)
class Card:
    name: str
    initiative: Value
    top: Action
    bottom: Action
    kind: str            # "common", "unique" or "motivation"
    owner: str | None = None   # the biathlete of a unique card
    copies: int = 1      # Motivation cards only: identical copies in the deck


@dataclass(frozen=True)
class Biathlete:
    name: str
    nation: str
    accuracy: tuple[int, int, int]   # hit thresholds at low, medium and high pulse
    flags: tuple[int, ...]           # flag rating per skill colour, in COLOUR_NAMES order
    description: str
    cards: tuple[Card, ...]          # the unique cards

    @property
    def bib(self) -> str:
        return "".join(str(a) for a in self.accuracy)


@dataclass(frozen=True)
class Rules:
    pulse_limit: int = 10
    accuracy_bands: tuple[int, int] = (2, 6)
    drafting: int = -1
    headwind: int = 1
    tailwind: int = -1
    crosswind_hits: int = -1
    windstill_hits: int = 1
    max_hits: int = 5
    die_faces: int = 6
    dice: tuple[str, ...] = ("red", "black", "yellow", "green", "blue")
    face_up_motivation: int = 2
    common_cards: int = 4
    unique_cards: int = 5
    range_visits: int = 2
    start_line_crossings: int = 3
    round_cap: int = 60
    initial_wind: str = "still"


@dataclass(frozen=True)
class Switches:
    """Interpretations of the rulebook that designers may disagree on (docs/rules.md)."""

    mixed_lane_drafting: bool = True
    range_drafting: bool = True
    zero_step_boost: bool = True       # a move of zero steps that ends on a coach zone gets its boost
    coach_boost: str = "next_turn"      # or "until_usable"
    motivation_to: str = "hand"         # or "discard"
    pulse_floor: str = "total"          # or "each_part": the floor of 0 after each part of the change
    last_racer_wins: bool = False       # the race ends, won, when every other racer is eliminated


@dataclass(frozen=True)
class Gear:
    ski_colours: tuple[str, ...]                  # the ski colour order (tie-breaks)
    bullets: dict[str, int]                       # by ski colour
    wax: dict[str, dict[str, int]]                # by ski colour, then wax colour


@dataclass(frozen=True)
class CoachZone:
    space: int       # 1-based space number within its segment
    colour: str
    strength: int


@dataclass(frozen=True)
class Segment:
    """A stretch of consecutive track spaces, typed once and skied once per appearance in a route."""

    name: str
    terrain: str                  # one of U/F/D per space, markers removed
    lanes: tuple[int, ...]        # 1 or 2 per space
    heading: str                  # one of N/E/S/W per space
    # markers: 0-based index of the space a marker lies before; len(segment) = after the last space
    start_line_before: tuple[int, ...]   # the start line
    finish_before: tuple[int, ...]       # the finish line
    coach: tuple[CoachZone, ...] = ()
    # a fork: the heading of the last space by the route item that follows it (a segment name or
    # "range"); where the route goes on to an item not listed, the last letter of `heading` holds
    fork_heading: tuple[tuple[str, str], ...] = ()

    def __len__(self) -> int:
        return len(self.terrain)


@dataclass(frozen=True)
class Range:
    mats: int
    facing: str
    terrain: str
    coach: CoachZone | None = None   # a coach zone on the range (space 1), if any


@dataclass(frozen=True)
class Trail:
    name: str
    venue: str
    route: tuple[str, ...]        # segment names; "range" is the venue's shooting range


@dataclass(frozen=True)
class Venue:
    name: str
    file: str
    range: Range
    wait: Action
    shoot: Action
    segments: dict[str, Segment]
    trails: tuple[Trail, ...]


@dataclass(frozen=True)
class BlastData:
    """A validated Biathlon Blast data set."""

    rules: Rules
    switches: Switches
    gear: Gear
    common: tuple[Card, ...]
    motivation: tuple[Card, ...]
    biathletes: tuple[Biathlete, ...]
    venues: tuple[Venue, ...]
    source: str = field(default="", compare=False)   # the directory it was read from

    @property
    def trails(self) -> tuple[Trail, ...]:
        return tuple(t for v in self.venues for t in v.trails)

    def venue_of(self, trail: Trail) -> Venue:
        return next(v for v in self.venues if v.name == trail.venue)

    def biathlete(self, name: str) -> Biathlete:
        for b in self.biathletes:
            if b.name.lower() == name.lower():
                return b
        raise KeyError(f"no biathlete named {name!r}; known: {', '.join(b.name for b in self.biathletes)}")

    def trail(self, name: str) -> Trail:
        for t in self.trails:
            if t.name.lower() == name.lower():
                return t
        raise KeyError(f"no trail named {name!r}; known: {', '.join(t.name for t in self.trails)}")
