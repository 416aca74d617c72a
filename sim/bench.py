"""Benchmarks: races per second by scenario and number of racers (a command, never a timed test),
for any registered game.

Compilation (or loading the compiled kernels from the cache) is timed apart from play. A game may
bench its bare kernel instead (the `bench` hook: Blast's, without composing the shared records).
"""
from __future__ import annotations

import time

import pandas as pd


def bench_game(game: str, bundle, scenarios: list[str], racers: list[int], races: int, options: dict | None = None,
               seed: int = 1, player: str | None = None) -> pd.DataFrame:
    """Any registered game: one row per (scenario, racers) of a balanced design played on one core
    through the game's play_chunk: races, seconds, races per second, mean rounds, stalled share
    (`player`: in every seat; default the game's default player)."""
    from . import games

    info = games.game(game)
    mod = info.load()
    players = (player or info.default_player,)
    designs = {(sc, n): mod.make_design(sc, n, players=players, options=options) for sc in scenarios for n in racers}
    for d in designs.values():
        mod.check_design(bundle, d)
    t0 = time.perf_counter()
    mod.play_chunk(bundle, next(iter(designs.values())), seed, 0, 2)
    compile_s = time.perf_counter() - t0
    rows = []
    for (sc, n), design in designs.items():
        t1 = time.perf_counter()
        seats, _ = mod.play_chunk(bundle, design, seed, 0, races)
        dt = time.perf_counter() - t1
        first = seats[seats["seat"] == 0]
        rows.append({info.scenario: sc, "racers": n, "seats": mod.seats_per_race(design), "races": races,
                     "seconds": round(dt, 3), "races_per_s": round(races / dt),
                     "mean_rounds": round(float(first["rounds"].mean()), 2),
                     "stalled_share": round(float(first["stalled"].mean()), 4)})
    df = pd.DataFrame(rows)
    df.attrs["compile_s"] = compile_s
    return df


def scaling(bundle: CompiledBundle, trail: str, racers: int, races: int, jobs: list[int],
            chunk_size: int, seed: int = 1, scheduler: str | None = None, game: str | None = None,
            options: dict | None = None) -> pd.DataFrame:
    """Races per second of a whole run (balanced line-ups, chunks, workers, tables kept out of
    memory) for each worker count, and the speed-up over the first. Each count is warmed up with
    a short run first, so worker start-up and kernel loading are not counted."""
    from . import games
    from .run import run_races

    design = games.game(game).load().make_design(trail, racers, options=options)
    rows = []
    for n in jobs:
        run_races(bundle, design, 2 * n * 200, seed + 1, game=game, chunk_size=200, n_jobs=n, progress=False,
                  collect=False, scheduler=scheduler)
        t0 = time.perf_counter()
        run_races(bundle, design, races, seed, game=game, chunk_size=chunk_size, n_jobs=n, progress=False,
                  collect=False, scheduler=scheduler)
        dt = time.perf_counter() - t0
        rows.append({"workers": n, "races": races, "seconds": round(dt, 2), "races_per_s": round(races / dt)})
    df = pd.DataFrame(rows)
    df["speed_up"] = (df.races_per_s / df.races_per_s.iloc[0]).round(2)
    return df
