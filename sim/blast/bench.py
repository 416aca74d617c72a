"""Blast's `bench` through the bare kernel (the `bench` hook, sim.games.HOOKS): races per second of
the kernel's int32 rows, without composing the shared records. Line-ups rotate through the
biathletes and ski colours so every biathlete and colour takes part equally."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd


from .compile import CompiledBundle
from .play import RaceSetup, play_block
from .players import Player


def rotating_setups(bundle: CompiledBundle, trail: int, n: int, k: int, player: Player) -> list[RaceSetup]:
    """k set-ups of n racers: race i seats biathletes i, i+1, ... and ski colours rotated by i."""
    nb = len(bundle.biathlete_names)
    out = []
    for i in range(k):
        bis = tuple((i + j) % nb for j in range(n))
        cols = tuple((i // nb + j) % 6 for j in range(n))
        out.append(RaceSetup(trail, bis, cols, (player,) * n))
    return out


def bench_rows(bundle: CompiledBundle, trails: list[int], racers: list[int], races: int, player: Player,
               seed: int = 1) -> pd.DataFrame:
    """One row per (trail, racers): races, seconds, races per second, mean rounds, stalled share."""
    rows = []
    t0 = time.perf_counter()
    play_block(bundle, rotating_setups(bundle, trails[0], racers[0], 2, player), seed, np.arange(2))
    compile_s = time.perf_counter() - t0
    for t in trails:
        for n in racers:
            setups = rotating_setups(bundle, t, n, races, player)
            t1 = time.perf_counter()
            out = play_block(bundle, setups, seed, np.arange(races))
            dt = time.perf_counter() - t1
            first = out[::n]            # one row per race
            rows.append({
                "trail": bundle.trail_names[t], "racers": n, "races": races, "seconds": round(dt, 3),
                "races_per_s": round(races / dt), "mean_rounds": round(float(first["rounds"].mean()), 2),
                "stalled_share": round(float(first["stalled"].mean()), 4),
            })
    df = pd.DataFrame(rows)
    df.attrs["compile_s"] = compile_s
    return df


def bench(bundle: CompiledBundle, scenarios: list[str], racers: list[int], races: int, player: str,
          seed: int = 1) -> pd.DataFrame:
    """The `bench` hook: trails and the player by name (KeyError or ValueError for unknown ones)."""
    from .players import resolve

    for n in racers:
        if not 2 <= n <= 6:
            raise ValueError(f"Biathlon Blast races have 2 to 6 racers, got {n}")
    return bench_rows(bundle, [bundle.trail_id(t) for t in scenarios], racers, races, resolve(player), seed)
