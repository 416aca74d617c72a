"""Ski Tour: what a stamina point is worth in rows, measured from races of the default.

    .venv/bin/python benchmarks/skitour_stamina_worth.py --races 4000

Every seat `balanced` (or --player), 4 racers, the basic nations rotated. Against the same races
played as they are, one seat at a time starts with one stamina point fewer (one marker one slot
down, in column --column). What that costs the seat: its share of the wins, and the rounds it
takes to finish (racers that finish both ways), turned into rows at the course's mean rows per
round (its rows over the mean finishing round): the exchange rate the strength reference's
rollout score (`stamina_rows`, docs/players.md "Ski Tour: the strength reference") turns stamina
into rows by. Seats 0 to 3 are averaged (seat effects cancel); the races are paired, so the
differences are race by race, with their 95% half-widths.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels.skitour import engine as E  # noqa: E402
from sim.skitour.compile import load_bundle  # noqa: E402
from sim.skitour.game import Design, nations  # noqa: E402
from sim.skitour.play import _run  # noqa: E402
from sim.skitour.players import resolve  # noqa: E402


def run(bundle, course, nat, seed, ids, player, init=None):
    seats, _, _, _ = _run(bundle, course, nat, seed, ids, players=(player,), init=init)
    return (seats["won"].reshape(-1, 4).astype(float),
            np.where(seats["finished"] == 1, seats["finish_round"], -1).reshape(-1, 4))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--courses", default="Starter,Long")
    ap.add_argument("--races", type=int, default=4000)
    ap.add_argument("--player", default="balanced")
    ap.add_argument("--column", type=int, default=0, help="the marker moved down (default 0)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    bundle = load_bundle()
    player = resolve(a.player)
    t = bundle.tables
    h = lambda x: 1.96 * x.std(ddof=1) / np.sqrt(len(x))  # noqa: E731
    for course in a.courses.split(","):
        ci = bundle.course_id(course)
        ids = np.arange(a.races)
        nat = nations(bundle, Design(course, 4), a.seed, ids)
        won, fin = run(bundle, course, nat, a.seed, ids, player)
        d_won, d_rnd = [], []
        for s in range(4):
            tired = [None] * 4
            tired[s] = {E.S_MK + a.column: int(t.start_slot[ci]) + 1}
            won_t, fin_t = run(bundle, course, nat, a.seed, ids, player, tired)
            d_won.append(won[:, s] - won_t[:, s])
            both = (fin[:, s] >= 0) & (fin_t[:, s] >= 0)
            d_rnd.append((fin_t[:, s] - fin[:, s])[both].astype(float))
        dw = np.mean(d_won, axis=0)
        dr = np.concatenate(d_rnd)
        per_round = int(t.n_rows[ci]) / fin[fin >= 0].mean()
        print(f"{course}: {a.races} races a seat, {player.name}: one stamina fewer at the start costs "
              f"{100 * dw.mean():+.2f} points [+-{100 * h(dw):.2f}] of a seat's wins and "
              f"{dr.mean():+.3f} rounds [+-{h(dr):.3f}] to the finish; at {per_round:.2f} rows a round, "
              f"a stamina point is worth {dr.mean() * per_round:.2f} rows [+-{h(dr) * per_round:.2f}]")


if __name__ == "__main__":
    main()
