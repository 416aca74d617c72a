"""Quick figures for the Ski Tour kernel: races per second on one core, and a persona against the
random player.

    .venv/bin/python -m sim.skitour.speed [--course Starter] [--racers 4] [--player balanced] [--races 20000]
    .venv/bin/python -m sim.skitour.speed --versus random [--races 4000]

Speed: the first call compiles (or loads the cached kernel) and is not timed; the figure is the
best of three timed blocks, each one call of `play_block` on one core, the basic nations rotated
through the seats. Versus: `--player` in seats 0 and 2, `--versus` in seats 1 and 3 of 4-racer
races on the basic nations, rotated; prints the share of races the player's two seats win.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from .compile import load_bundle
from .game import Design, nations
from .play import play_block


def measure(course: str = "Starter", racers: int = 4, player: str = "balanced", races: int = 20_000,
            repeats: int = 3) -> float:
    bundle = load_bundle()
    d = Design(course, racers)
    play_block(bundle, course, nations(bundle, d, 0, np.arange(10)), 0, np.arange(10), players=(player,))
    best = float("inf")
    for r in range(repeats):
        ids = np.arange(races)
        nat = nations(bundle, d, r + 1, ids)
        t0 = time.perf_counter()
        play_block(bundle, course, nat, r + 1, ids, players=(player,))
        best = min(best, time.perf_counter() - t0)
    return races / best


def versus(player: str = "balanced", other: str = "random", course: str = "Starter", races: int = 4000,
           seed: int = 1) -> float:
    """Share of 4-racer races won by `player` (seats 0 and 2) against `other` (seats 1 and 3)."""
    bundle = load_bundle()
    d = Design(course, 4)
    ids = np.arange(races)
    s, _ = play_block(bundle, course, nations(bundle, d, seed, ids), seed, ids, players=(player, other),
                      seat_players=[0, 1, 0, 1])
    won = s["won"].reshape(-1, 4)
    return float(won[:, [0, 2]].sum() / races)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--course", default="Starter")
    ap.add_argument("--racers", type=int, default=4)
    ap.add_argument("--player", default="balanced")
    ap.add_argument("--versus", default=None, help="compare --player (seats 0, 2) with this player (seats 1, 3)")
    ap.add_argument("--races", type=int, default=None)
    a = ap.parse_args(argv)
    if a.versus:
        n = a.races or 4000
        share = versus(a.player, a.versus, a.course, n)
        print(f"{a.player} (seats 0, 2) v {a.versus} (seats 1, 3), {a.course}, {n} races: "
              f"{a.player} wins {share:.1%} (an even split would be 50%)")
        return
    n = a.races or 20_000
    rate = measure(a.course, a.racers, a.player, n)
    print(f"{a.course}, {a.racers} racers, {a.player}: {rate:,.0f} races/s on one core")


if __name__ == "__main__":
    main()
