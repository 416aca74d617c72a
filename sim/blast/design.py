"""Biathlon Blast's line-up designs: who races in each race of a run, and the kernel's records as a
table. A design gives every race index its set-up as a function of (design, seed, race index) only,
so a run's table is the same whatever the chunk size or the number of workers.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from kernels.blast import consts as C
from kernels.blast.players import N_PARAMS

from ..blocks import rotation
from ..store import add_names, frame
from .compile import CompiledBundle
from . import play as _play
from .play import RaceSetup, joined, make_setup, play_arrays
from .players import Player, available, resolve

#: balanced line-ups cycle through every biathlete offset and every ski colour offset
BALANCED = "balanced"


@dataclass(frozen=True)
class Design:
    """Who races in each race of a run.

    trail: trail name. racers: racers per race (2..6). biathletes: a fixed line-up (names, seat
    order), or None for balanced line-ups. colours: fixed ski colours (seat order) or None: with
    fixed biathletes the ski colour order, with balanced line-ups rotated with them. players: one
    player kind for every seat, or one per seat.

    Balanced line-ups: races come in blocks of n_biathletes x 6; within a block, race r seats
    biathletes p[(r + j) % nb] and ski colours q[(r // nb + j) % 6] for seat j, where p and q are
    permutations drawn per block from the seed. Over each block every biathlete races in every
    ski colour equally often (as many times as there are seats).
    """

    trail: str
    racers: int = 4
    biathletes: tuple[str, ...] | None = None
    colours: tuple[str, ...] | None = None
    players: tuple[str, ...] = ("default",)

    def check(self, bundle: CompiledBundle) -> None:
        bundle.trail_id(self.trail)
        if not C.MIN_RACERS <= self.racers <= C.MAX_RACERS:
            raise ValueError(f"racers must lie in {C.MIN_RACERS}..{C.MAX_RACERS}, got {self.racers}")
        if self.biathletes is not None and len(self.biathletes) != self.racers:
            raise ValueError(f"{self.racers} racers need {self.racers} biathletes, got {len(self.biathletes)}")
        if self.biathletes is not None:
            twice = sorted({b for b in self.biathletes if list(self.biathletes).count(b) > 1})
            if twice:
                raise ValueError(f"a line-up names each biathlete once; {', '.join(twice)} is named twice")
        if self.biathletes is None and self.racers > len(bundle.biathlete_names):
            raise ValueError(f"{self.racers} racers but only {len(bundle.biathlete_names)} biathletes")
        if len(self.players) not in (1, self.racers):
            raise ValueError(f"give one player for all seats or one per seat, got {len(self.players)}")
        players = self.resolved()
        if self.biathletes is not None:
            make_setup(bundle, self.trail, self.biathletes, self.colours, list(self._seats(players)))

    def block(self, bundle: CompiledBundle) -> int:
        """Races per balanced block: every biathlete in every ski colour once per seat (1 for a
        fixed line-up)."""
        return 1 if self.biathletes is not None else len(bundle.biathlete_names) * C.N_COLOURS

    def resolved(self, known: dict[str, Player] | None = None) -> tuple[Player, ...]:
        """The design's players, resolved by name (KeyError naming the known ones). Players given
        as Player objects (sim.run.frozen_players) read no persona file."""
        if known is None and all(isinstance(p, Player) for p in self.players):
            return tuple(self.players)
        known = available() if known is None else known
        return tuple(resolve(p, known) for p in self.players)

    def player_names(self, players: tuple[Player, ...] | None = None) -> list[str]:
        """Distinct player names, in the design's order: the codes of the table's `player` column.
        `players`: the design's players already resolved."""
        return list(dict.fromkeys(p.name for p in (players or self.resolved())))

    def _seats(self, players: tuple[Player, ...]) -> tuple[Player, ...]:
        return players * self.racers if len(players) == 1 else players

    def setups(self, bundle: CompiledBundle, seed: int, races: np.ndarray,
               players: tuple[Player, ...] | None = None) -> list[RaceSetup]:
        """The set-up of each race index: a function of (design, seed, race index) only.
        `players`: the design's players already resolved."""
        players = self._seats(players or self.resolved())
        if self.biathletes is not None:
            fixed = make_setup(bundle, self.trail, self.biathletes, self.colours, list(players))
            return [fixed] * len(races)
        trail = bundle.trail_id(self.trail)
        bis, cols = self.seat_ids(bundle, seed, races)
        return [RaceSetup(trail, tuple(int(x) for x in b), tuple(int(x) for x in c), players)
                for b, c in zip(bis, cols)]


    def seat_ids(self, bundle: CompiledBundle, seed: int, races: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Biathlete and ski colour ids [race, seat] for these race indices, a whole block at a time
        with numpy: the same line-ups `setups` gives, one permutation pair per balanced block."""
        races = np.asarray(races, np.int64)
        if self.biathletes is not None:
            fixed = make_setup(bundle, self.trail, self.biathletes, self.colours, "random")
            return (np.broadcast_to(np.array(fixed.biathletes), (len(races), self.racers)),
                    np.broadcast_to(np.array(fixed.colours), (len(races), self.racers)))
        bis, cols = rotation(seed, races, (len(bundle.biathlete_names), C.N_COLOURS), np.arange(self.racers), 0xB1A7)
        return bis, cols


def play_records(bundle: CompiledBundle, design: Design, seed: int, start: int,
                 stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The (seats, visits) records of races start .. stop-1 (kernels.blast.results): the set-ups
    built as the kernel's arrays with numpy (no object per race), play.PLAY_BLOCK races a kernel call."""
    races = np.arange(start, stop, dtype=np.int64)
    players = design._seats(design.resolved())      # persona files read once per chunk, not once per use
    k, n = len(races), design.racers
    bis, cols = design.seat_ids(bundle, seed, races)
    pad = np.zeros((k, C.MAX_RACERS), np.int64)
    trails, n_racers = np.full(k, bundle.trail_id(design.trail), np.int64), np.full(k, n, np.int64)
    bis, cols = _padded(pad, bis), _padded(pad, cols)
    kinds = _padded(pad, np.broadcast_to([pl.kind for pl in players], (k, n)))
    index = {name: i for i, name in enumerate(design.player_names(players))}
    ids = _padded(np.zeros((k, C.MAX_RACERS), np.int32), np.broadcast_to([index[pl.name] for pl in players], (k, n)))
    # every race's weights are the same: one block's, filled once and reused
    block = _play.PLAY_BLOCK
    params = np.zeros((min(k, block), C.MAX_RACERS, N_PARAMS))
    params[:, :n] = np.array([pl.weights for pl in players])
    parts = []
    for lo in range(0, max(k, 1), block):
        b = slice(lo, lo + block)
        arrays = (trails[b], n_racers[b], bis[b], cols[b], kinds[b], params[:len(races[b])])
        parts.append(play_arrays(bundle, arrays, seed, races[b], ids[b]))
    return joined(parts)


def _padded(like: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values` [race, seat] in a copy of `like` [race, MAX_RACERS] (zeros beyond the seats)."""
    out = np.zeros_like(like)
    out[:, :values.shape[1]] = values
    return out


def table_names(bundle: CompiledBundle, player_names: list[str]) -> dict[str, list[str]]:
    """What the id columns of a run's table stand for (the `player` column: `player_names`)."""
    return {"trail": list(bundle.trail_names), "colour": list(C.COLOUR_NAMES),
            "biathlete": list(bundle.biathlete_names), "player": list(player_names)}


def results_table(bundle: CompiledBundle, seats: np.ndarray, player_names: list[str]) -> pd.DataFrame:
    """Seat records as a table: ids kept, names added (trail, biathlete, ski colour, player:
    `player` indexes `player_names`)."""
    return add_names(frame(seats), table_names(bundle, player_names))


def design_from_manifest(manifest: dict) -> Design:
    """The design a run's manifest records, its players rebuilt from the recorded weights (so a
    replay plays the run's races even if a persona file has changed since). A run recorded before
    a weight was added gets that weight's default, the constant the player used before it."""
    from kernels.blast.players import DEFAULT_PARAMS, PLAYER_KINDS

    from ..contract import filled_weights

    d = manifest["design"]
    recorded = manifest.get("players", {})
    players = []
    for name in d["players"]:
        p = recorded.get(name)
        if p:
            w = filled_weights(p["weights"], DEFAULT_PARAMS)
            players.append(Player(name, PLAYER_KINDS.index(p["kind"]), w, source=p.get("source", "")))
        else:
            players.append(name)
    return Design(d["trail"], d["racers"], tuple(d["biathletes"]) if d["biathletes"] else None,
                  tuple(d["colours"]) if d["colours"] else None, tuple(players))


def warm_up(bundle: CompiledBundle, design: Design) -> None:
    """Play one race here so that the kernels are compiled and cached before workers load them."""
    play_records(bundle, design, 0, 0, 1)


def design_dict(design: Design) -> dict:
    d = asdict(design)
    d["players"] = [p if isinstance(p, str) else p.name for p in design.players]
    return d
