"""Compiling a validated `ManiaData` into the packed arrays the Mania kernel reads.

The bundle also keeps the names needed to read results (tracks, formats) and a content hash of
the data, so that every result can name the exact data it came from. Layouts: kernels/mania/consts.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.mania import consts as C

from ..validation import data_hash as hash_data, index_of
from .load import ManiaData, load_data

#: bumped whenever the meaning of the compiled arrays changes, so old hashes never match new data
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ManiaBundle:
    """The kernel's arrays plus names and the data hash.

    tracks: int16[n_tracks, row length], one packed track row each (consts TR_*).
    game:   int16[G_LEN], rules, switches and dice (consts G_*).
    formats: int64[3, 8]: laps, shooting die, spare shots, relay, shootings bitmask, shootings,
             max teams, max legs; rows in FORMAT_NAMES order.
    """

    data: ManiaData
    tracks: np.ndarray
    game: np.ndarray
    formats: np.ndarray
    data_hash: str                     # 16 hex digits of the SHA-256 of the canonical data
    track_names: tuple[str, ...]       # by track id
    format_names: tuple[str, ...] = C.FORMAT_NAMES

    def track_id(self, name) -> int:
        if isinstance(name, (int, np.integer)):
            if not 0 <= int(name) < len(self.track_names):
                raise KeyError(f"no track {name}; there are {len(self.track_names)}")
            return int(name)
        return index_of(self.track_names, str(name), "track")

    def format_id(self, name) -> int:
        if isinstance(name, (int, np.integer)):
            return int(name)
        if name not in C.FORMAT_NAMES:
            raise KeyError(f"no format named {name!r}; known: {', '.join(C.FORMAT_NAMES)}")
        return C.FORMAT_NAMES.index(name)


def data_hash(data: ManiaData) -> str:
    """Equal for equal data, whatever the files' comments, layout or location
    (sim.validation.data_hash)."""
    return hash_data(data, FORMAT_VERSION)


def track_row(track) -> np.ndarray:
    n, p, f = len(track.loop), len(track.penalty), len(track.finish)
    row = np.zeros(C.TR_HDR + 3 * n + p + f, np.int16)
    row[C.TR_N] = n
    row[C.TR_EXIT] = track.range_exit
    row[C.TR_ENTRY] = track.penalty_entry
    row[C.TR_P] = p
    row[C.TR_F] = f
    row[C.TR_CORR] = track.corridors
    h = C.TR_HDR
    for i, sq in enumerate(track.loop):
        row[h + i] = sq.zone
        row[h + n + i] = sq.mark
        row[h + 2 * n + i] = track.t_target(i) if sq.mark == C.MARK_T else -1
    for j, sq in enumerate(track.penalty):
        row[h + 3 * n + j] = sq.zone
    for k, sq in enumerate(track.finish):
        row[h + 3 * n + p + k] = sq.zone
    return row


def game_row(data: ManiaData) -> np.ndarray:
    g = np.zeros(C.G_LEN, np.int16)
    r, s, d = data.rules, data.switches, data.dice
    g[C.G_ROUND_CAP] = r.round_cap
    g[C.G_TARGETS] = r.targets
    g[C.G_LINES] = r.range_lines
    g[C.G_HALVE_UP] = s.halve_rounding == "up"
    g[C.G_ZONE_STEPS] = s.zone_rule == "steps"
    g[C.G_EXIT_SAME] = s.exit_roll == "same_turn"
    g[C.G_EXIT_SQUARE] = s.exit_from == "exit_square"
    g[C.G_SPECIALS_PUSH] = s.specials_after_push
    g[C.G_CHAIN] = s.chain_extra_rolls
    g[C.G_SHOTS_ALL] = s.shots_per_turn == "all"
    g[C.G_TWO_RACERS] = s.two_dice == "two_racers"
    g[C.G_CALIBRE_SPARE] = s.calibre_uses_spare
    g[C.G_SPECIALS_PASS] = s.specials_on == "passing"
    g[C.G_PENALTY_GATE] = C.GATE_NAMES.index(s.penalty_gate)
    g[C.G_FINISH_TIES] = C.TIES_NAMES.index(s.finish_ties)
    g[C.G_NUM_N] = len(d.number)
    g[C.G_NUM_FACES:C.G_NUM_FACES + len(d.number)] = d.number
    for die, name in enumerate(C.DIE_NAMES):
        faces = getattr(d, name)
        g[C.G_SHOOT_N + die] = len(faces)
        base = C.G_SHOOT_FACES + die * C.MAX_SUB
        g[base:base + len(faces)] = [C.FACE_NAMES.index(f) for f in faces]
    return g


def compile_data(data: ManiaData) -> ManiaBundle:
    rows = [track_row(t) for t in data.tracks]
    width = max(len(r) for r in rows) if rows else C.TR_HDR
    tracks = np.zeros((len(rows), width), np.int16)
    for i, r in enumerate(rows):
        tracks[i, :len(r)] = r
    formats = np.zeros((len(C.FORMAT_NAMES), 8), np.int64)
    for i, f in enumerate(data.formats):
        mask = sum(1 << (lap - 1) for lap in f.shootings)
        formats[i] = (f.laps, C.DIE_NAMES.index(f.shooting_die), f.spare_shots, int(f.relay), mask,
                      len(f.shootings), f.max_teams, f.max_legs)
    return ManiaBundle(data, tracks, game_row(data), formats, data_hash(data),
                       tuple(t.name for t in data.tracks))


def load_bundle(path: str | Path | None = None, patches=()) -> ManiaBundle:
    """Load, validate and compile a data directory (the shipped one by default)."""
    return compile_data(load_data(path, list(patches)))
