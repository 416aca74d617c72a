"""Ski Tour: the first player's edge under each player, and how often one player beats another.

    .venv/bin/python benchmarks/skitour_seats.py --players random,balanced,lookahead --races 40000
    .venv/bin/python benchmarks/skitour_seats.py --versus balanced,lookahead --races 40000
    .venv/bin/python benchmarks/skitour_seats.py --versus reference,balanced --races 1500 --jobs 16
    .venv/bin/python benchmarks/skitour_seats.py --players balanced --side advanced --data skitour-unbalanced
    .venv/bin/python benchmarks/skitour_seats.py --players reference --courses Long --races 250 --start 250
    .venv/bin/python benchmarks/skitour_seats.py --players balanced --turn-order

Seats: 4-racer races on one side's nations (`--side`, basic by default; rotated through the seats
in whole blocks; `--data`: a data folder or example set, the shipped one by default), every seat
played by the same player; prints seat 0's win rate (it holds the first-player marker in round 1)
with its 95% Wilson interval, per course, against the fair 25%. Versus: the first player in seats
0 and 2, the second in 1 and 3, then swapped, on the same races; prints each one's share of wins
and the gap with its 95% interval (the race is the unit: two seats of a race are not independent);
`--jobs N` plays them in blocks in N processes, with the same result.
A race depends only on (data, set-up, seed, race index), so `--start` plays the races from that
index on: runs of consecutive blocks add up to one run of them all (seats: sum the win counts).
`--turn-order` (seats, the marker starting at seat 0) also prints where the winner moved in the
turn order of the round it finished in, and how often another racer finished in that round too.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels.skitour import consts as C  # noqa: E402
from sim.skitour.compile import load_bundle  # noqa: E402
from sim.skitour.game import Design, nations  # noqa: E402
from sim.skitour.play import play_block  # noqa: E402
from sim.skitour.players import resolve  # noqa: E402


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def seat_records(bundle, course: str, player: str, races: int, seed: int, side: str = "basic",
                 start: int = 0) -> np.ndarray:
    ids = np.arange(start, start + races)
    nat = nations(bundle, Design(course, 4, side=side), seed, ids)
    s, _ = play_block(bundle, course, nat, seed, ids, players=(resolve(player),))
    return s


def turn_order(s: np.ndarray) -> tuple[np.ndarray, float, dict]:
    """(share of winners that moved 1st..4th in the round they finished in, share of races where
    another racer finished in the winner's round, {round: (share of races, winning seats' shares)}
    for the rounds that ended at least a fifth of the races), 4 racers, the marker at seat 0 in
    round 1 and one seat on each round (rules.md, the first player marker)."""
    won = s["won"].reshape(-1, 4).astype(bool)
    fin = s["finish_round"].reshape(-1, 4)
    seat = won.argmax(1)
    rnd = fin[np.arange(len(seat)), seat]
    order = np.bincount((seat - (rnd - 1)) % 4, minlength=4) / len(seat)
    rounds = {int(r): (float((rnd == r).mean()), np.bincount(seat[rnd == r], minlength=4) / (rnd == r).sum())
              for r in np.unique(rnd) if (rnd == r).mean() >= 0.2}
    return order, float(((fin == rnd[:, None]).sum(1) >= 2).mean()), rounds


def versus_wins(bundle, course: str, a: str, b: str, ids: np.ndarray, seed: int,
                side: str = "basic") -> np.ndarray:
    """Per race of `ids`, each player's wins (a, b) summed over the race played both ways."""
    nat = nations(bundle, Design(course, 4, side=side), seed, ids)
    pa, pb = resolve(a), resolve(b)
    wins = np.zeros((len(ids), 2))
    for seats in ([0, 1, 0, 1], [1, 0, 1, 0]):
        s, _ = play_block(bundle, course, nat, seed, ids, players=(pa, pb), seat_players=seats)
        won = s["won"].reshape(-1, 4).astype(float)
        sa = np.array(seats) == 0
        wins[:, 0] += won[:, sa].sum(1)
        wins[:, 1] += won[:, ~sa].sum(1)
    return wins


def _versus_block(job):
    data, course, a, b, ids, seed, side = job
    return versus_wins(load_bundle(data), course, a, b, ids, seed, side)


def versus(bundle, course: str, a: str, b: str, races: int, seed: int, side: str = "basic",
           start: int = 0, jobs: int = 1, data=None):
    """(a's share of its seats' wins, b's, the gap, the gap's 95% half-width). With jobs > 1 the
    races are played in blocks by that many worker processes (each loads `data`): a race depends
    only on its index, so the result is the one process's."""
    ids = np.arange(start, start + races)
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        blocks = np.array_split(ids, min(races, 4 * jobs))
        with ProcessPoolExecutor(jobs) as ex:
            wins = np.concatenate(list(ex.map(_versus_block, [(data, course, a, b, x, seed, side)
                                                              for x in blocks])))
    else:
        wins = versus_wins(bundle, course, a, b, ids, seed, side)
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
    ap.add_argument("--start", type=int, default=0, help="index of the first race (default 0)")
    ap.add_argument("--turn-order", action="store_true",
                    help="seats: also where the winner moved in its finishing round's turn order")
    ap.add_argument("--side", choices=("basic", "advanced"), default="basic")
    ap.add_argument("--data", default=None, help="a data folder or example set (default: the shipped data)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="versus: worker processes, each playing blocks of the races (default 1)")
    a = ap.parse_args(argv)
    if a.start < 0 or a.races < 2 or a.jobs < 1:
        ap.error("--start must be at least 0, --races at least 2 and --jobs at least 1")
    bundle = load_bundle(a.data)
    if a.turn_order and int(bundle.tables.rules[C.R_FIRST_PLAYER]) != C.FIRST_SEAT:
        ap.error("--turn-order needs the marker to start at seat 0 (first_player = first_seat)")
    for course in a.courses.split(","):
        if a.versus:
            x, y = a.versus.split(",")
            t0 = time.perf_counter()
            ra, rb, gap, hw = versus(bundle, course, x, y, a.races, a.seed, a.side, a.start,
                                     a.jobs, a.data)
            print(f"{course}: {x} {100 * ra:.2f}% of its seats, {y} {100 * rb:.2f}%: gap "
                  f"{100 * gap:+.2f} points [{100 * (gap - hw):+.2f}, {100 * (gap + hw):+.2f}] "
                  f"({2 * a.races:,} races, {time.perf_counter() - t0:.0f} s)")
            continue
        for p in a.players.split(","):
            s = seat_records(bundle, course, p, a.races, a.seed, a.side, a.start)
            won = s["won"].reshape(-1, 4)
            k = int(won[:, 0].sum())
            lo, hi = wilson(k, a.races)
            rates = " ".join(f"{100 * r:.1f}" for r in won.mean(0))
            counts = " ".join(str(int(c)) for c in won.sum(0))
            print(f"{course} {p:>12}: seat 0 wins {100 * k / a.races:.1f}% [{100 * lo:.1f}, "
                  f"{100 * hi:.1f}] of {a.races:,} (fair 25%); seats 0-3: {rates} (wins {counts})")
            if a.turn_order:
                order, shared, rounds = turn_order(s)
                print(f"{course} {p:>12}: the winner moved 1st-4th in its finishing round: "
                      + " ".join(f"{100 * x:.1f}" for x in order)
                      + f"%; another racer finished in that round in {100 * shared:.1f}% of races"
                      + "".join(f"; round {r} ended {100 * x:.1f}%, seats 0-3 won "
                                + " ".join(f"{100 * y:.1f}" for y in w) for r, (x, w) in rounds.items()))


if __name__ == "__main__":
    main()
