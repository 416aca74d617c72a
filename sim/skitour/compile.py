"""Compiling a validated `SkiTourData` into the numeric `SkiTourTables` a kernel uses.

The bundle also keeps the names that turn numbers back into words (nations, courses, dice) and a
content hash of the data, so that every result can name the exact data it came from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.skitour import consts as C
from kernels.skitour.tables import SkiTourTables

from ..validation import data_hash as hash_data, index_of
from .model import SkiTourData, WaxToken

#: bumped whenever the meaning of the compiled arrays changes, so old hashes never match new data
FORMAT_VERSION = 1


@dataclass(frozen=True)
class SkiTourBundle:
    """The kernels' tables plus what is needed to read results: names and the data hash."""

    tables: SkiTourTables
    data: SkiTourData
    data_hash: str                    # 16 hex digits of the SHA-256 of the canonical data
    nation_names: tuple[str, ...]     # by nation id
    course_names: tuple[str, ...]     # by course id
    die_names: tuple[str, ...]        # by die id

    def nation_id(self, name: str) -> int:
        return index_of(self.nation_names, name, "nation")

    def course_id(self, name: str) -> int:
        return index_of(self.course_names, name, "course")

    def die_id(self, name: str) -> int:
        return index_of(self.die_names, name, "die")


def data_hash(data: SkiTourData) -> str:
    """A hash of the data's content: equal for equal data, whatever the files' comments, layout or
    folder (the `source` and each nation's `file` are left out; sim.validation.data_hash)."""
    return hash_data(data, FORMAT_VERSION, game="skitour", file_lists=("nations",))


def wax_bits(token: WaxToken | None) -> tuple[int, int]:
    """(icon bits, mode) of a token; (NO_WAX, WAX_ALL) for none."""
    if token is None:
        return C.NO_WAX, C.WAX_ALL
    bits = C.WAX_STAMINA if token.stamina else 0
    for action in token.actions:
        bits |= 1 << C.WAX_ICON_NAMES.index(action)
    return bits, (C.WAX_ONE_OF if token.one_of else C.WAX_ALL)


def compile_data(data: SkiTourData) -> SkiTourBundle:
    rules, sw = data.rules, data.switches
    die_id = {d.name: i for i, d in enumerate(data.dice)}

    r = np.zeros(C.N_RULES, np.int64)
    r[C.R_RACE_DICE] = rules.race_dice
    r[C.R_TARGETS] = rules.targets
    r[C.R_WAX_TOKENS] = rules.wax_tokens
    r[C.R_WAX_ROW] = rules.wax_row
    r[C.R_DOWNHILL_MOVES] = rules.downhill_moves
    r[C.R_DOWNHILL_PASSES] = rules.downhill_passes
    r[C.R_UPHILL_PENALTY] = rules.uphill_penalty
    r[C.R_LONG_RACE_RANGES] = rules.long_race_ranges
    r[C.R_ROUND_CAP] = rules.round_cap
    r[C.R_LANES] = rules.lanes
    r[C.R_EXHAUSTED_DIE] = die_id[rules.exhausted_colour]
    r[C.R_SHORT_RACE_ON_TOP] = sw.short_race_on_top
    r[C.R_RANGE_PAYMENT] = (C.RANGE_PAY_CHOICE if sw.range_payment == "choice"
                            else C.RANGE_PAY_HIGHEST_UNSHOT)
    r[C.R_DRAFT_FOLLOWS_BONUS] = sw.draft_follows_bonus
    r[C.R_DRAFTER_BONUS] = sw.drafter_bonus
    r[C.R_REROLL_BLUE_REMOVAL] = sw.reroll_blue_removal
    r[C.R_DIAGONAL_IS_SIDEWAYS] = sw.diagonal_is_sideways
    r[C.R_SPRINT_ICON_COLUMN] = sw.sprint_icon_column
    r[C.R_RESHOT_SCOPE] = C.RESHOT_SCOPES.index(sw.reroll_shot_scope)
    r[C.R_FIRST_PLAYER] = C.FIRST_PLAYERS.index(sw.first_player)
    r[C.R_TWO_PLAYER_SEATS] = C.TWO_PLAYER_SEATS.index(sw.two_player_seats)
    r[C.R_COLLAPSE_ANY] = C.COLLAPSE_ON.index(sw.collapse_on)

    # --- dice
    nd = len(data.dice)
    max_faces = max((len(d.faces) for d in data.dice), default=1)
    die_faces = np.full((nd, max_faces), -1, np.int8)
    for i, d in enumerate(data.dice):
        die_faces[i, :len(d.faces)] = [C.FACE_HIT if f else C.FACE_MISS for f in d.faces]
    die_n_faces = np.array([len(d.faces) for d in data.dice], np.int8)

    # --- nations
    nn, nt = len(data.nations), rules.targets
    max_slots = max((len(col) for n in data.nations for col in n.stamina), default=1)
    slot_value = np.full((nn, nt, max_slots), -1, np.int16)
    slot_die = np.full((nn, nt, max_slots), -1, np.int8)
    n_slots = np.zeros((nn, nt), np.int8)
    capacity = np.zeros((nn, C.N_COLUMNS), np.int8)
    full_at = np.zeros((nn, C.N_COLUMNS), np.int8)
    box = np.zeros((nn, C.N_COLUMNS), np.int8)
    sprint_capacity = np.zeros(nn, np.int8)
    wax_icons = np.zeros((nn, rules.wax_tokens), np.int16)
    wax_mode = np.zeros((nn, rules.wax_tokens), np.int8)
    printed_icons = np.zeros(nn, np.int16)
    printed_mode = np.zeros(nn, np.int8)
    for i, n in enumerate(data.nations):
        for c, column in enumerate(n.stamina):
            n_slots[i, c] = len(column)
            for s, slot in enumerate(column):
                slot_value[i, c, s] = slot.value
                slot_die[i, c, s] = die_id[slot.die]
        capacity[i] = n.capacity
        full_at[i] = n.full_at
        box[i] = [C.BOX_NAMES.index(b) for b in n.boxes]
        sprint_capacity[i] = n.sprint
        for k, token in enumerate(n.wax):
            wax_icons[i, k], wax_mode[i, k] = wax_bits(token)
        printed_icons[i], printed_mode[i] = wax_bits(n.printed_wax)
    nation_side = np.array([C.NATION_SIDES.index(n.side) for n in data.nations], np.int8)
    nation_board = np.array([n.board for n in data.nations], np.int8)

    # --- courses
    nc = len(data.courses)
    course_sides = [data.course_sides(c) for c in data.courses]
    rows_of = [[(k, s, row) for k, s in enumerate(sides) for row in s.rows] for sides in course_sides]
    max_rows = max((len(rows) for rows in rows_of), default=1)
    n_rows = np.array([len(rows) for rows in rows_of], np.int32)
    space = np.zeros((nc, max_rows, rules.lanes), np.int8)
    row_side = np.full((nc, max_rows), -1, np.int16)
    row_tile = np.zeros((nc, max_rows), np.int16)
    free_row = np.zeros((nc, max_rows), np.int8)
    penalty_lane = np.zeros((nc, max_rows), np.int8)
    ranges = [[j for j, (_, s, row) in enumerate(rows) if "S" in row] for rows in rows_of]
    max_ranges = max((len(x) for x in ranges), default=0) or 1
    range_row = np.full((nc, max_ranges), -1, np.int32)
    n_ranges = np.array([len(x) for x in ranges], np.int8)
    start_slot = np.zeros(nc, np.int8)
    for ci, rows in enumerate(rows_of):
        first_row_of_side: dict[int, int] = {}
        for j, (k, side, row) in enumerate(rows):
            first_row_of_side.setdefault(k, j)
            space[ci, j] = [C.SPACE_LETTERS.index(ch) for ch in row]
            row_side[ci, j] = k
            row_tile[ci, j] = side.tile
            if side.kind == "start" and j - first_row_of_side[k] < side.free_rows:
                free_row[ci, j] = 1
            if "S" in row:
                penalty_lane[ci, j] = side.penalty_lane
        range_row[ci, :len(ranges[ci])] = ranges[ci]
        long_race = len(ranges[ci]) >= rules.long_race_ranges
        start_slot[ci] = 0 if (long_race or sw.short_race_on_top) else 1

    tables = SkiTourTables(
        rules=r, penalty_laps=np.array(rules.penalty_laps, np.int8),
        die_faces=die_faces, die_n_faces=die_n_faces,
        nation_side=nation_side, nation_board=nation_board,
        slot_value=slot_value, slot_die=slot_die, n_slots=n_slots,
        capacity=capacity, full_at=full_at, box=box, sprint_capacity=sprint_capacity,
        wax_icons=wax_icons, wax_mode=wax_mode, printed_icons=printed_icons, printed_mode=printed_mode,
        n_rows=n_rows, space=space, row_side=row_side, row_tile=row_tile, free_row=free_row,
        penalty_lane=penalty_lane, n_ranges=n_ranges, range_row=range_row, start_slot=start_slot,
    )
    return SkiTourBundle(
        tables=tables, data=data, data_hash=data_hash(data),
        nation_names=tuple(n.name for n in data.nations),
        course_names=tuple(c.name for c in data.courses),
        die_names=tuple(d.name for d in data.dice),
    )


def load_bundle(path=None, patches=()) -> SkiTourBundle:
    """Load, validate and compile a data directory (the shipped one by default), with patches
    (sim.validation.Patch) applied as the files are read."""
    from .load import load_data

    return compile_data(load_data(path, list(patches)))
