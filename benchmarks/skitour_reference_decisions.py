"""Ski Tour: where the strength reference decides otherwise than the default (issue 27).

    .venv/bin/python benchmarks/skitour_reference_decisions.py --courses Starter,Long --races 40
    .venv/bin/python benchmarks/skitour_reference_decisions.py --base mine.toml --races 40

4-racer races on the basic nations (rotated as the ladders rotate them), the reference (`--ref`,
default `reference`) in seats 0 and 2 and the default (`--base`, default `balanced`) in 1 and 3.
The reference searches each decision of its own turn starting from the heuristic pick of its
base persona (docs/players.md, "Ski Tour: the strength reference"), so every searched decision
is a state where both players were asked the same question: the kernel counts, per decision kind
(engine.DK_NAMES), the decisions searched, those where the rollouts replaced the heuristic's pick,
those replaced by the first option (stop, no token, decline) and those where the heuristic's pick
was the first option and the rollouts chose another (engine.CT_SEARCH). Decisions outside the
reference's own turn (sixes, its wax row, drafting behind others) are never searched and never
differ. Prints one table per course, with the CPU seconds it took (the first course's include
loading or compiling the kernel).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels.skitour import engine as E  # noqa: E402
from sim.skitour.compile import load_bundle  # noqa: E402
from sim.skitour.game import Design, nations  # noqa: E402
from sim.skitour.play import _run  # noqa: E402
from sim.skitour.players import resolve  # noqa: E402


def decision_table(bundle, course: str, ref: str, base: str, races: int, seed: int, block: int = 8):
    """(counts int64[N_DK, SEARCH_STATS] summed over the races, seconds)."""
    ids = np.arange(races)
    nat = nations(bundle, Design(course, 4), seed, ids)
    players = (resolve(ref), resolve(base))
    tot = np.zeros((E.N_DK, E.SEARCH_STATS), np.int64)
    t0 = time.process_time()
    for a in range(0, races, block):
        _, _, _, ct = _run(bundle, course, nat[a:a + block], seed, ids[a:a + block],
                           players=players, seat_players=[0, 1, 0, 1])
        tot += ct[E.CT_SEARCH:E.CT_SEARCH + E.N_DK * E.SEARCH_STATS].reshape(E.N_DK, -1)
    return tot, time.process_time() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--courses", default="Starter,Long")
    ap.add_argument("--races", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ref", default="reference")
    ap.add_argument("--base", default="balanced")
    a = ap.parse_args(argv)
    bundle = load_bundle()
    for course in a.courses.split(","):
        tot, secs = decision_table(bundle, course, a.ref, a.base, a.races, a.seed)
        print(f"{course}: {a.races} races, {a.ref} in seats 0, 2 against {a.base}, seed {a.seed}, "
              f"{secs:.0f} CPU s")
        print(f"  {'decision':24s} {'searched':>9s} {'changed':>9s} {'share':>6s} "
              f"{'to first':>9s} {'from first':>10s}")
        for k in np.argsort(-tot[:, 1]):
            n, c, to0, from0 = (int(x) for x in tot[k])
            if n == 0:
                continue
            print(f"  {E.DK_NAMES[k]:24s} {n:9d} {c:9d} {c / n:6.1%} {to0:9d} {from0:10d}")
        n, c = int(tot[:, 0].sum()), int(tot[:, 1].sum())
        print(f"  {'all':24s} {n:9d} {c:9d} {c / max(n, 1):6.1%}")


if __name__ == "__main__":
    main()
