"""Unrolling a trail's route (a list of segments) into the sequence of spaces a racer skis.

A position in a race is an index into this sequence, from the start grid to the run-out space past
the finish line. Segments used more than once (laps) map to the same *physical* spaces, so racers
on different laps of a shared segment still occupy the same space.
"""
from __future__ import annotations

from dataclasses import dataclass

from .model import Trail, Venue

RANGE = "range"


@dataclass(frozen=True)
class Space:
    index: int            # position along the route, 0 = first grid space
    segment: str          # segment name, or "range"
    number: int           # 1-based space number within the segment
    terrain: str          # U, F or D
    lanes: int            # lane count; the range holds `mats`, the run-out any number
    heading: str          # N, E, S or W (at the range: the way racers face the targets); at a
                          # fork (a segment's last space) the heading towards this route's branch
    physical: int         # physical space id, shared by repeated segments
    coach: tuple[str, int] | None   # (colour, strength) of a coach zone (the range's included)
    start_line: bool      # entering this space crosses the start line
    finish: bool          # entering this space crosses the finish line (the run-out)
    is_range: bool


@dataclass(frozen=True)
class RouteLayout:
    trail: str
    spaces: tuple[Space, ...]
    dangling: tuple[str, ...] = ()   # markers typed after the route's last space (an error)

    def __len__(self) -> int:
        return len(self.spaces)

    @property
    def range_positions(self) -> tuple[int, ...]:
        return tuple(s.index for s in self.spaces if s.is_range)

    @property
    def start_line_positions(self) -> tuple[int, ...]:
        """Positions entered by crossing the start line."""
        return tuple(s.index for s in self.spaces if s.start_line)

    @property
    def finish_positions(self) -> tuple[int, ...]:
        return tuple(s.index for s in self.spaces if s.finish)

    @property
    def grid(self) -> tuple[Space, ...]:
        """The spaces before the first start-line crossing."""
        starts = self.start_line_positions
        end = starts[0] if starts else 0
        return self.spaces[:end]

    def grid_slots(self) -> list[tuple[int, int]]:
        """(position, lane) in placement order: nearest the start line first, lane 0 first."""
        return [(s.index, lane) for s in reversed(self.grid) for lane in range(s.lanes)]

    def label(self, position: int) -> str:
        s = self.spaces[position]
        return "range" if s.is_range else f"{s.segment} {s.number}"


def unroll(venue: Venue, trail: Trail) -> RouteLayout:
    """The trail's spaces in skiing order. Segment names must already be known to the venue."""
    physical_base: dict[str, int] = {}
    next_physical = 0
    spaces: list[Space] = []
    # a marker typed at the very end of a segment lies before the next segment's first space
    pending_start = pending_finish = False
    route = trail.route
    for k, name in enumerate(route):
        if name == RANGE:
            if RANGE not in physical_base:
                physical_base[RANGE] = next_physical
                next_physical += 1
            r = venue.range
            zone = (r.coach.colour, r.coach.strength) if r.coach is not None else None
            spaces.append(Space(len(spaces), RANGE, 1, r.terrain, r.mats, r.facing,
                                physical_base[RANGE], zone, pending_start, pending_finish, True))
            pending_start = pending_finish = False
            continue
        seg = venue.segments[name]
        if name not in physical_base:
            physical_base[name] = next_physical
            next_physical += len(seg)
        coach = {z.space - 1: (z.colour, z.strength) for z in seg.coach}
        # a fork: the last space faces the branch this route takes (docs/data-format.md)
        nxt = route[k + 1] if k + 1 < len(route) else None
        last_heading = dict(seg.fork_heading).get(nxt, seg.heading[-1]) if len(seg) else ""
        for i in range(len(seg)):
            spaces.append(Space(
                index=len(spaces), segment=name, number=i + 1, terrain=seg.terrain[i],
                lanes=seg.lanes[i], heading=last_heading if i == len(seg) - 1 else seg.heading[i],
                physical=physical_base[name] + i,
                coach=coach.get(i), start_line=pending_start or i in seg.start_line_before,
                finish=pending_finish or i in seg.finish_before, is_range=False))
            pending_start = pending_finish = False
        pending_start = len(seg) in seg.start_line_before
        pending_finish = len(seg) in seg.finish_before
    dangling = tuple(n for n, f in (("start line", pending_start), ("finish line", pending_finish)) if f)
    return RouteLayout(trail.name, tuple(spaces), dangling)
