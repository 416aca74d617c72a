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


#: what `bench --scaling` can time: a single run, a study, a tune generation, a balance round
KINDS = ("run", "study", "tune", "balance")


def scaling(bundle, trail: str, racers: int, races: int, jobs: list[int],
            chunk_size: int, seed: int = 1, scheduler: str | None = None, game: str | None = None,
            options: dict | None = None, kinds: tuple[str, ...] = ("run",), balance_file=None) -> pd.DataFrame:
    """Races per second of each kind of long command (KINDS) for each worker count, and its
    speed-up over the first count: a whole run (balanced line-ups, chunks, tables kept out of
    memory); a study of two cells (`trail` and the game's next scenario) into a fresh folder; one
    generation of a tuning (16 candidates of the game's default persona against it, sim.tune);
    one round of a balance search (`balance_file`: every neighbour of the start played in full,
    sim.balance). About `races` races each. Each count is warmed up with a short run first, so
    worker start-up and kernel loading are not counted."""
    import tempfile
    from pathlib import Path

    from . import games
    from .run import run_races

    info = games.game(game)
    design = info.load().make_design(trail, racers, options=options)
    timed = {"run": lambda n, tmp: _time_run(bundle, design, races, seed, chunk_size, n, scheduler, info.name),
             "study": lambda n, tmp: _time_study(bundle, info, trail, racers, races, seed, chunk_size, n, scheduler,
                                                 options, tmp),
             "tune": lambda n, tmp: _time_generation(bundle, info, trail, racers, races, seed, n, scheduler, options),
             "balance": lambda n, tmp: _time_balance_round(balance_file, races, n, scheduler, tmp)}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        for n in jobs:
            run_races(bundle, design, 2 * n * 200, seed + 1, game=info.name, chunk_size=200, n_jobs=n,
                      progress=False, collect=False, scheduler=scheduler)
            for kind in kinds:
                played, dt = timed[kind](n, Path(tmp) / f"{kind}-{n}")
                rows.append({"kind": kind, "workers": n, "races": played, "seconds": round(dt, 2),
                             "races_per_s": round(played / dt)})
    df = pd.DataFrame(rows)
    df["speed_up"] = (df.races_per_s / df.groupby("kind", sort=False).races_per_s.transform("first")).round(2)
    return df.sort_values("kind", key=lambda k: k.map(KINDS.index), kind="stable").reset_index(drop=True)


def _time_run(bundle, design, races, seed, chunk_size, n, scheduler, game) -> tuple[int, float]:
    from .run import run_races

    t0 = time.perf_counter()
    run_races(bundle, design, races, seed, game=game, chunk_size=chunk_size, n_jobs=n, progress=False,
              collect=False, scheduler=scheduler)
    return races, time.perf_counter() - t0


def _time_study(bundle, info, trail, racers, races, seed, chunk_size, n, scheduler, options, folder):
    """A study file of two cells (`trail` and the next scenario, half the races each), played into
    `folder` (the shipped data)."""
    import json

    from .study import load_study, run_study

    scenarios = list(info.load().scenarios(bundle))
    second = scenarios[(scenarios.index(trail) + 1) % len(scenarios)] if trail in scenarios else trail
    opts = "".join(f"options.{k} = {json.dumps(v)}\n" for k, v in (options or {}).items())
    folder.mkdir(parents=True)
    path = folder / "study.toml"
    path.write_text(f'game = "{info.name}"\nseed = {seed}\nchunk_size = {chunk_size}\n\n[[cell]]\n'
                    f'{info.scenario} = {json.dumps(list(dict.fromkeys([trail, second])))}\nracers = {racers}\n'
                    f'races = {max(1, races // 2)}\n{opts}')
    study = load_study(path)
    t0 = time.perf_counter()
    run_study(study, folder / "out", n_jobs=n, progress=False, scheduler=scheduler, log=lambda line: None)
    return study.races, time.perf_counter() - t0


def _time_generation(bundle, info, trail, racers, races, seed, n, scheduler, options):
    """One tuning generation: 16 candidates (the default persona, renamed) against it."""
    from .ladder import play_arrangements, roster
    from .tune import generation_jobs

    hook = roster(info.name)
    start = hook.resolve(info.default_player, hook.available())
    candidates = [hook.with_weights(start, f"candidate-{i}", start.weights) for i in range(16)]
    per = max(1, -(-races // (16 * racers)))
    jobs = generation_jobs(candidates, start, [trail], racers, per, 0)
    t0 = time.perf_counter()
    play_arrangements(bundle, jobs, seed, n, game=info.name, options=options, scheduler=scheduler)
    return per * racers * 16, time.perf_counter() - t0


def _time_balance_round(path, races, n, scheduler, folder):
    """One round of a balance search on the file at `path`: every neighbour of the start, each
    design about races / (neighbours x designs) races, played in one batch into `folder`."""
    from .balance import Search, base_position, load_balance

    bf = load_balance(path)
    start = {k.name: base_position(bf, k) for k in bf.knobs}
    probe = Search(bf, folder / "probe", races=1, log=lambda line: None)
    per = max(1, races // max(1, len(probe.neighbours(start)) * len(bf.designs)))
    search = Search(bf, folder, n_jobs=n, races=per, scheduler=scheduler, log=lambda line: None)
    wanted = [({**start, knob.name: j}, search.n_blocks) for knob, j in search.neighbours(start)]
    t0 = time.perf_counter()
    search.evaluate_many(wanted)
    return search.races_played, time.perf_counter() - t0
