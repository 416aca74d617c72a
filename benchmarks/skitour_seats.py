"""Ski Tour: the first player's edge under each player, and how often one player beats another.

    .venv/bin/python benchmarks/skitour_seats.py --players random,balanced,lookahead --races 40000
    .venv/bin/python benchmarks/skitour_seats.py --versus balanced,lookahead --races 40000
    .venv/bin/python benchmarks/skitour_seats.py --players balanced --side advanced --data skitour-unbalanced

Seats: 4-racer races on one side's nations (`--side`, basic by default; rotated through the seats
in whole blocks; `--data`: a data folder or example set, the shipped one by default), every seat
played by the same player; prints seat 0's win rate (it holds the first-player marker in round 1)
with its 95% Wilson interval, per course, against the fair 25%. Versus: the first player in seats
0 and 2, the second in 1 and 3, then swapped, on the same races; prints each one's share of wins
and the gap with its 95% interval (the race is the unit: two seats of a race are not independent).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.skitour.compile import load_bundle  # noqa: E402
from sim.skitour.game import Design, nations  # noqa: E402
from sim.skitour.play import play_block  # noqa: E402
from sim.skitour.players import resolve  # noqa: E402


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def seat_rates(bundle, course: str, player: str, races: int, seed: int, side: str = "basic") -> np.ndarray:
    ids = np.arange(races)
    nat = nations(bundle, Design(course, 4, side=side), seed, ids)
    s, _ = play_block(bundle, course, nat, seed, ids, players=(resolve(player),))
    return s["won"].reshape(-1, 4)


def versus(bundle, course: str, a: str, b: str, races: int, seed: int, side: str = "basic"):
    ids = np.arange(races)
    nat = nations(bundle, Design(course, 4, side=side), seed, ids)
    pa, pb = resolve(a), resolve(b)
    wins = np.zeros((races, 2))
    for seats in ([0, 1, 0, 1], [1, 0, 1, 0]):
        s, _ = play_block(bundle, course, nat, seed, ids, players=(pa, pb), seat_players=seats)
        won = s["won"].reshape(-1, 4).astype(float)
        sa = np.array(seats) == 0
        wins[:, 0] += won[:, sa].sum(1)
        wins[:, 1] += won[:, ~sa].sum(1)
    share = wins / 2.0                      # per race: each player's expected wins of its 2 seats
    d = share[:, 0] - share[:, 1]
    se = d.std(ddof=1) / np.sqrt(races)
    return share[:, 0].mean() / 2, share[:, 1].mean() / 2, d.mean() / 2, 1.96 * se / 2


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="random,balanced,lookahead")
    ap.add_argument("--versus", default=None, help="A,B: A against B, two seats each")
    ap.add_argument("--courses", default="Starter,Long")
    ap.add_argument("--races", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--side", choices=("basic", "advanced"), default="basic")
    ap.add_argument("--data", default=None, help="a data folder or example set (default: the shipped data)")
    a = ap.parse_args(argv)
    bundle = load_bundle(a.data)
    for course in a.courses.split(","):
        if a.versus:
            x, y = a.versus.split(",")
            t0 = time.perf_counter()
            ra, rb, gap, hw = versus(bundle, course, x, y, a.races, a.seed, a.side)
            print(f"{course}: {x} {100 * ra:.2f}% of its seats, {y} {100 * rb:.2f}%: gap "
                  f"{100 * gap:+.2f} points [{100 * (gap - hw):+.2f}, {100 * (gap + hw):+.2f}] "
                  f"({2 * a.races:,} races, {time.perf_counter() - t0:.0f} s)")
            continue
        for p in a.players.split(","):
            won = seat_rates(bundle, course, p, a.races, a.seed, a.side)
            k = int(won[:, 0].sum())
            lo, hi = wilson(k, a.races)
            rates = " ".join(f"{100 * r:.1f}" for r in won.mean(0))
            print(f"{course} {p:>12}: seat 0 wins {100 * k / a.races:.1f}% [{100 * lo:.1f}, "
                  f"{100 * hi:.1f}] of {a.races:,} (fair 25%); seats 0-3: {rates}")


if __name__ == "__main__":
    main()
