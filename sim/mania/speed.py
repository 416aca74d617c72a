"""A quick speed figure for the Mania kernel: races per second on one core.

    .venv/bin/python -m sim.mania.speed [--track red] [--format sprint] [--racers 6] [--races 200000]

The first call compiles (or loads the cached kernel) and is not timed; the figure is the best of
three timed blocks, each one call of `play_block` on one core.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from .compile import load_bundle
from .play import play_block


def measure(track: str = "red", fmt: str = "sprint", racers: int = 6, races: int = 200_000,
            repeats: int = 3, **opts) -> float:
    bundle = load_bundle()
    play_block(bundle, track, fmt, racers, 0, np.arange(10), **opts)
    best = float("inf")
    for r in range(repeats):
        t0 = time.perf_counter()
        play_block(bundle, track, fmt, racers, r + 1, np.arange(races), **opts)
        best = min(best, time.perf_counter() - t0)
    return races / best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--track", default="red")
    ap.add_argument("--format", default="sprint")
    ap.add_argument("--racers", type=int, default=6)
    ap.add_argument("--legs", type=int, default=1)
    ap.add_argument("--races", type=int, default=200_000)
    a = ap.parse_args(argv)
    opts = {"legs": a.legs} if a.format == "relay" else {}
    rate = measure(a.track, a.format, a.racers, a.races, **opts)
    print(f"{a.format} on {a.track}, {a.racers} racers: {rate:,.0f} races/s on one core")


if __name__ == "__main__":
    main()
