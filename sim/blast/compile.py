"""Compiling a validated `BlastData` into the numeric `BlastTables` the kernels use.

The compiled bundle also keeps the names needed to turn numbers back into words (event logs,
tables) and a content hash of the data, so that every result can name the exact data it came from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.blast import consts as C
from kernels.blast import state as S
from kernels.blast.tables import FAR_AWAY, BlastTables

from ..validation import DataError, Problem, data_hash as hash_data, index_of
from .model import Action, BlastData, Card, Value
from .route import RouteLayout, unroll

#: bumped whenever the meaning of the compiled arrays changes, so old hashes never match new data
FORMAT_VERSION = 2   # 2: range coach zones, fork headings, zero_step_boost


@dataclass(frozen=True)
class CompiledBundle:
    """The kernels' tables plus what is needed to read results: names, layouts and the data hash."""

    tables: BlastTables
    data: BlastData
    data_hash: str                    # 16 hex digits of the SHA-256 of the canonical data
    card_names: tuple[str, ...]       # by card id
    card_owner: tuple[str, ...]       # by card id: biathlete name, "common", "motivation" or venue
    biathlete_names: tuple[str, ...]  # by biathlete id
    trail_names: tuple[str, ...]      # by trail id
    layouts: tuple[RouteLayout, ...]  # by trail id

    def biathlete_id(self, name: str) -> int:
        return index_of(self.biathlete_names, name, "biathlete")

    def trail_id(self, name: str) -> int:
        return index_of(self.trail_names, name, "trail")

    def card_id(self, name: str) -> int:
        return index_of(self.card_names, name, "card")


#: switches added after results folders were played (issue 28): out of the hash at their defaults
LATER_SWITCHES = {"pulse_floor": "total", "last_racer_wins": False}


def data_hash(data: BlastData) -> str:
    """A hash of the data's content: equal for equal data, whatever the files' comments or layout
    (sim.validation.data_hash); the switches of LATER_SWITCHES count only when set otherwise, so the
    data's hash is the one it had before they existed."""
    return hash_data(data, FORMAT_VERSION, later={"switches": LATER_SWITCHES})


#: largest id or position the int16 arrays (card ids, physical spaces) and event logs can hold
INT16_MAX = 32767


def capacity_problems(data: BlastData) -> list[Problem]:
    """Every way the data would need more room than the race kernels have (kernels.blast.state),
    as problems naming file, entry and field. The validator already refuses such data; this check
    also covers data made without it, so that no kernel ever indexes past one of its arrays."""
    rules = data.rules
    out: list[Problem] = []

    def rule(field: str, expected: str) -> None:
        out.append(Problem("game.toml", "[rules]", field, expected))

    if not 0 <= rules.face_up_motivation <= S.MAX_FACE_UP:
        rule("face_up_motivation", f"must be a whole number from 0 to {S.MAX_FACE_UP} (the engine has "
                                   f"{S.MAX_FACE_UP} face-up Motivation slots), got {rules.face_up_motivation}")
    if not 0 <= rules.range_visits <= S.MAX_VISITS:
        rule("range_visits", f"must be a whole number from 0 to {S.MAX_VISITS} (the engine keeps statistics "
                             f"for up to {S.MAX_VISITS} visits), got {rules.range_visits}")
    if rules.start_line_crossings < 1:
        rule("start_line_crossings", "must be at least 1 (the spaces before the first start line are the "
                                     f"start grid), got {rules.start_line_crossings}")
    if not 1 <= len(rules.dice) <= S.MAX_DICE:
        rule("dice", f"must list 1 to {S.MAX_DICE} dice, got {len(rules.dice)}")
    hand = len(data.common) + rules.unique_cards + rules.start_line_crossings
    if hand > S.MAX_HAND:
        rule("unique_cards", f"a hand can grow to {hand} cards (common_cards {len(data.common)} + "
                             f"unique_cards {rules.unique_cards} + one Motivation card per start-line "
                             f"crossing, {rules.start_line_crossings}); the engine holds at most {S.MAX_HAND}")
    deck = sum(c.copies for c in data.motivation)
    if deck > S.MAX_MOTIVATION:
        out.append(Problem("motivation.toml", "", "copies", f"the Motivation deck holds at most "
                           f"{S.MAX_MOTIVATION} cards (copies counted; the engine's deck), found {deck}"))
    n_cards = len(data.common) + sum(len(b.cards) for b in data.biathletes) + len(data.motivation) \
        + len(data.trails)
    if n_cards > INT16_MAX:
        out.append(Problem("biathletes/", "", "card", f"the data set has {n_cards} cards (range pseudo-cards "
                           f"included); card ids are 16-bit numbers, at most {INT16_MAX}"))

    # the longest move: every end of it (2 lanes per space) must fit the state's move buffer
    def most(v: Value) -> int:
        if v.source is None:
            return v.base
        return v.base + v.mult * (rules.max_hits if v.source == "hits" else rules.die_faces - 1)

    extra = max((sum(w.get(c, 0) for c in ("black", "yellow", "green")) for w in data.gear.wax.values()),
                default=0) + max([z.strength for v in data.venues for seg in v.segments.values()
                                  for z in seg.coach] + [v.range.coach.strength for v in data.venues
                                                         if v.range.coach is not None], default=0)
    room = min(S.MAX_ENDS // 2 - 1, S.MAX_AHEAD)   # 2 lanes per space; the heuristic looks this far

    def check_move(file: str, entry: str, field: str, action: Action) -> None:
        steps = sum(most(v) for v in action.steps) + extra
        if steps > room:
            out.append(Problem(file, entry, field, f"a move with this action, the most terrain wax and a coach "
                               f"boost has {steps} steps; the engine holds moves of at most {room}"))

    for card in data.common + data.motivation:
        for field, action in (("top", card.top), ("bottom", card.bottom)):
            check_move("cards.toml" if card.kind == "common" else "motivation.toml", f"card '{card.name}'",
                       field, action)
    for b in data.biathletes:
        for card in b.cards:
            for field, action in (("top", card.top), ("bottom", card.bottom)):
                check_move("biathletes/", f"biathlete '{b.name}': card '{card.name}'", field, action)
    for v in data.venues:
        check_move(v.file, f"venue '{v.name}'", "shoot", v.shoot)
        for t in v.trails:
            layout = unroll(v, t)
            where = f"trail '{t.name}'"
            if len(layout) > INT16_MAX:
                out.append(Problem(v.file, where, "route", f"the route has {len(layout)} spaces; at most "
                                   f"{INT16_MAX} (positions are 16-bit numbers)"))
            if len(layout.range_positions) != rules.range_visits:
                out.append(Problem(v.file, where, "route", f"passes the range {len(layout.range_positions)} "
                                   f"times; rules.range_visits is {rules.range_visits}"))
            if len(layout.finish_positions) != 1:
                out.append(Problem(v.file, where, "route", "must have exactly one finish line"))
            if len(layout.grid_slots()) < C.MAX_RACERS:
                out.append(Problem(v.file, where, "route", f"the start grid holds {len(layout.grid_slots())} "
                                   f"racers; it must hold {C.MAX_RACERS}"))
    return out


def compile_data(data: BlastData) -> CompiledBundle:
    """The kernels' tables for a data set; DataError if it needs more room than the kernels have
    (`capacity_problems`)."""
    problems = capacity_problems(data)
    if problems:
        raise DataError(problems)
    rules, sw = data.rules, data.switches
    die_index = {colour: i for i, colour in enumerate(rules.dice)}

    # --- cards: common, unique by biathlete, Motivation, then one range pseudo-card per trail
    cards: list[Card] = []
    owners: list[str] = []
    cards.extend(data.common)
    owners.extend(["common"] * len(data.common))
    for b in data.biathletes:
        cards.extend(b.cards)
        owners.extend([b.name] * len(b.cards))
    first_motivation = len(cards)
    cards.extend(data.motivation)
    owners.extend(["motivation"] * len(data.motivation))
    trails = data.trails
    range_card = []
    for t in trails:
        v = data.venue_of(t)
        range_card.append(len(cards))
        cards.append(Card(f"{v.name} range ({t.name})", Value(), v.wait, v.shoot, "range"))
        owners.append(v.name)

    n = len(cards)
    card_kind = np.zeros(n, np.int8)
    card_init = np.zeros((n, 3), np.int16)
    card_steps = np.zeros((n, 2, 3, 3), np.int16)
    card_pulse = np.zeros((n, 2), np.int16)
    card_wind = np.zeros((n, 2), np.int8)
    card_icy = np.zeros((n, 2), np.int8)
    kinds = {"common": C.KIND_COMMON, "unique": C.KIND_UNIQUE, "motivation": C.KIND_MOTIVATION,
             "range": C.KIND_RANGE}

    def triple(v: Value) -> tuple[int, int, int]:
        if v.source is None:
            return (v.base, C.SRC_NONE, 0)
        src = C.SRC_HITS if v.source == "hits" else die_index[v.source]
        return (v.base, src, v.mult)

    for i, card in enumerate(cards):
        card_kind[i] = kinds[card.kind]
        card_init[i] = triple(card.initiative)
        for a, action in enumerate((card.top, card.bottom)):
            _fill_action(action, card_steps[i, a], triple)
            card_pulse[i, a] = action.pulse
            card_wind[i, a] = action.wind
            card_icy[i, a] = action.icy

    # --- biathletes
    nb = len(data.biathletes)
    accuracy = np.array([b.accuracy for b in data.biathletes], np.int8).reshape(nb, 3)
    flags = np.array([b.flags for b in data.biathletes], np.int8).reshape(nb, C.N_COLOURS)
    deck_size = len(data.common) + rules.unique_cards
    deck = np.zeros((nb, deck_size), np.int16)
    offset = len(data.common)
    for bi, b in enumerate(data.biathletes):
        deck[bi, :len(data.common)] = np.arange(len(data.common))
        deck[bi, len(data.common):] = np.arange(offset, offset + len(b.cards))
        offset += len(b.cards)

    motivation = np.array([first_motivation + i for i, c in enumerate(data.motivation)
                           for _ in range(c.copies)], np.int16)

    # --- gear
    colour_id = {c: i for i, c in enumerate(C.COLOUR_NAMES)}
    ski_order = np.array([colour_id[c] for c in data.gear.ski_colours], np.int8)
    ski_rank = np.zeros(C.N_COLOURS, np.int8)
    ski_rank[ski_order] = np.arange(C.N_COLOURS)
    gear_bullets = np.array([data.gear.bullets[c] for c in C.COLOUR_NAMES], np.int8)
    gear_wax = np.zeros((C.N_COLOURS, C.N_COLOURS), np.int8)
    for ski, wax in data.gear.wax.items():
        for colour, count in wax.items():
            gear_wax[colour_id[ski], colour_id[colour]] = count

    # --- trails
    layouts = tuple(unroll(data.venue_of(t), t) for t in trails)
    nt = len(trails)
    max_len = max((len(l) for l in layouts), default=1)
    max_slots = max((len(l.grid_slots()) for l in layouts), default=1)
    arr = {k: np.zeros((nt, max_len), np.int8) for k in
           ("terrain", "lanes", "heading", "coach_colour", "coach_strength", "start_line", "is_range", "lap")}
    physical = np.zeros((nt, max_len), np.int16)
    arr["coach_colour"][:] = C.NO_COACH
    route_len = np.zeros(nt, np.int32)
    finish_pos = np.zeros(nt, np.int32)
    range_pos = np.zeros((nt, rules.range_visits), np.int32)
    grid_slots = np.zeros((nt, max_slots, 2), np.int32)
    n_grid_slots = np.zeros(nt, np.int32)
    for ti, layout in enumerate(layouts):
        route_len[ti] = len(layout)
        lap = 0
        for s in layout.spaces:
            j = s.index
            lap += s.start_line
            arr["terrain"][ti, j] = C.TERRAIN_LETTERS.index(s.terrain)
            arr["lanes"][ti, j] = C.MAX_RACERS if s.finish else s.lanes
            arr["heading"][ti, j] = C.HEADING_LETTERS.index(s.heading)
            physical[ti, j] = s.physical
            if s.coach is not None:
                arr["coach_colour"][ti, j] = colour_id[s.coach[0]]
                arr["coach_strength"][ti, j] = s.coach[1]
            arr["start_line"][ti, j] = s.start_line
            arr["is_range"][ti, j] = s.is_range
            arr["lap"][ti, j] = lap
        finish_pos[ti] = layout.finish_positions[0]
        range_pos[ti] = layout.range_positions
        slots = layout.grid_slots()
        grid_slots[ti, :len(slots)] = slots
        n_grid_slots[ti] = len(slots)

    r = np.zeros(C.N_RULES, np.int64)
    r[C.R_PULSE_LIMIT] = rules.pulse_limit
    r[C.R_BAND_LOW], r[C.R_BAND_MEDIUM] = rules.accuracy_bands
    r[C.R_DRAFTING] = rules.drafting
    r[C.R_HEADWIND] = rules.headwind
    r[C.R_TAILWIND] = rules.tailwind
    r[C.R_CROSSWIND_HITS] = rules.crosswind_hits
    r[C.R_WINDSTILL_HITS] = rules.windstill_hits
    r[C.R_MAX_HITS] = rules.max_hits
    r[C.R_DIE_FACES] = rules.die_faces
    r[C.R_N_DICE] = len(rules.dice)
    r[C.R_FACE_UP_MOTIVATION] = rules.face_up_motivation
    r[C.R_ROUND_CAP] = rules.round_cap
    r[C.R_INITIAL_WIND] = C.WIND_NAMES.index(rules.initial_wind)
    r[C.R_RANGE_VISITS] = rules.range_visits
    r[C.R_START_LINE_CROSSINGS] = rules.start_line_crossings
    r[C.R_MIXED_LANE_DRAFTING] = sw.mixed_lane_drafting
    r[C.R_RANGE_DRAFTING] = sw.range_drafting
    r[C.R_ZERO_STEP_BOOST] = sw.zero_step_boost
    r[C.R_COACH_BOOST] = C.COACH_UNTIL_USABLE if sw.coach_boost == "until_usable" else C.COACH_NEXT_TURN
    r[C.R_MOTIVATION_TO] = C.MOTIVATION_TO_DISCARD if sw.motivation_to == "discard" else C.MOTIVATION_TO_HAND
    r[C.R_PULSE_FLOOR] = C.PULSE_FLOOR_EACH_PART if sw.pulse_floor == "each_part" else C.PULSE_FLOOR_TOTAL
    r[C.R_LAST_RACER_WINS] = sw.last_racer_wins

    tables = BlastTables(
        rules=r,
        dice_colour=np.array([colour_id[c] for c in rules.dice], np.int8),
        card_kind=card_kind, card_init=card_init, card_steps=card_steps, card_pulse=card_pulse,
        card_wind=card_wind, card_icy=card_icy,
        card_worth=default_worth(card_steps, card_pulse, card_icy, card_wind),
        accuracy=accuracy, flags=flags, deck=deck, motivation=motivation,
        ski_rank=ski_rank, ski_order=ski_order, gear_bullets=gear_bullets, gear_wax=gear_wax,
        route_len=route_len, terrain=arr["terrain"], lanes=arr["lanes"], heading=arr["heading"],
        physical=physical, coach_colour=arr["coach_colour"], coach_strength=arr["coach_strength"],
        start_line=arr["start_line"], is_range=arr["is_range"], lap=arr["lap"],
        finish_pos=finish_pos, range_pos=range_pos, grid_slots=grid_slots, n_grid_slots=n_grid_slots,
        range_card=np.array(range_card, np.int16),
        **trail_lookups(arr["terrain"], arr["is_range"], route_len, range_pos),
    )
    return CompiledBundle(
        tables=tables, data=data, data_hash=data_hash(data),
        card_names=tuple(c.name for c in cards), card_owner=tuple(owners),
        biathlete_names=tuple(b.name for b in data.biathletes),
        trail_names=tuple(t.name for t in trails), layouts=layouts,
    )


def trail_lookups(terrain, is_range, route_len, range_pos) -> dict[str, np.ndarray]:
    """The tables derived from the trail arrays (BlastTables.up_count .. next_range): per trail and
    position, running counts of uphill and of uphill-or-flat spaces and where each such space lies,
    how far a move from there can go at most (to the next range position or the run-out), and the
    next range position. A move with u, f, d steps reaches the furthest j ahead with at most u uphill
    spaces, u + f uphill-or-flat ones and u + f + d in all (kernels.blast.rules.reach_from_nb; range
    positions come in route order)."""
    nt, max_len = terrain.shape
    out = {"up_count": np.zeros((nt, max_len), np.int32), "up_flat_count": np.zeros((nt, max_len), np.int32),
           "up_at": np.full((nt, max_len + 1), FAR_AWAY, np.int32),
           "up_flat_at": np.full((nt, max_len + 1), FAR_AWAY, np.int32),
           "stop_ahead": np.zeros((nt, max_len), np.int32), "next_range": np.full((nt, max_len + 1), -1, np.int32)}
    for t in range(nt):
        n = int(route_len[t])
        for name, at, kinds in (("up_count", "up_at", (C.UPHILL,)), ("up_flat_count", "up_flat_at", (C.UPHILL, C.FLAT))):
            hit = np.isin(terrain[t, :n], kinds)
            out[name][t, :n] = np.cumsum(hit)
            where = np.flatnonzero(hit)
            out[at][t, :len(where)] = where
        for q in range(n):
            ahead = n - 1 - q
            for j in range(1, ahead + 1):
                if is_range[t, q + j] == 1:
                    ahead = j
                    break
            out["stop_ahead"][t, q] = ahead
            out["next_range"][t, q] = next((int(p) for p in range_pos[t] if p >= q), -1)
    return out


def default_worth(card_steps, card_pulse, card_icy, card_wind) -> np.ndarray:
    """Every card's worth by the default worth weights (the table `card_worth`): the kernels' own
    `worth_nb`, run as Python on the same float64 operations, so the figures are the kernel's."""
    from kernels.blast.players import DEFAULT_PARAMS, worth_nb

    worth = worth_nb.py_func
    return np.array([worth(card_steps, card_pulse, card_icy, card_wind, i, DEFAULT_PARAMS)
                     for i in range(card_steps.shape[0])], np.float64)


def _fill_action(action: Action, out: np.ndarray, triple) -> None:
    for terrain, value in enumerate(action.steps):
        out[terrain] = triple(value)


def load_bundle(path=None, patches=()) -> CompiledBundle:
    """Load, validate and compile a data directory (the shipped one by default), with patches
    (sim.validation.Patch) applied as the files are read."""
    from .load import load_data

    return compile_data(load_data(path, list(patches)))
