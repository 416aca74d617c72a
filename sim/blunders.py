"""The blunder check of both games with players, one table and one command (`biathlon-sim
blunders`): how often each player makes a decision that another legal choice of the same moment
dominates in every outcome.

Each game's classes, and the replay through its independent referee that finds them, are the
game's own (`sim.blast.blunders`, `sim.skitour.blunders`: docs/players.md and
docs/skitour/players.md, "Blunders"); a game's module gives `CLASSES` and
`count_races(bundle, scenario, player, racers, seed, start, stop) -> Counter` (blunders per class
and `"decisions:<class>"`). This module plays the races (every seat the same player, the line-ups
of the game's balanced design) and sums them, in worker processes when asked.
"""
from __future__ import annotations

import importlib
from collections import Counter

from . import games
from .runner import Task, run_tasks, workers


def _module(game: str):
    info = games.game(game)
    return info, importlib.import_module(f"sim.{info.name}.blunders")


def _chunk(game: str, data, player, scenario: str, racers: int, seed: int, start: int, stop: int,
           bundle=None) -> Counter:
    info, mod = _module(game)
    bundle = bundle if bundle is not None else info.load().load_bundle(data)
    return mod.count_races(bundle, scenario, player, racers, seed, start, stop)


def blunder_counts(game: str, players, scenarios=None, races: int = 200, seed: int = 1, racers: int = 4,
                   bundle=None, data=None, jobs: int = 1, scheduler: str | None = None) -> dict:
    """{(player, scenario): Counter} over races 0..races-1 of each scenario (default: every one of
    the data), every seat played by that player. With jobs > 1 or a dask `scheduler` the races are
    split into tasks for the shared runner (sim.runner.run_tasks), whose workers load the data
    themselves (`data`; the shipped data by default). The counts do not depend on the split."""
    info, _ = _module(game)
    if bundle is None:
        bundle = info.load().load_bundle(data)
    scenarios = list(scenarios or info.load().scenarios(bundle))
    info.check_racers(racers)
    cells = [(p, s) for p in players for s in scenarios]
    if jobs == 1 and scheduler is None:
        return {(p, s): _chunk(info.name, data, p, s, racers, seed, 0, races, bundle) for p, s in cells}
    pieces = workers(jobs)
    bounds = [(races * k // pieces, races * (k + 1) // pieces) for k in range(pieces)]
    tasks = [Task((c, a, b), _chunk, (info.name, data, c[0], c[1], racers, seed, a, b), b - a)
             for c in cells for a, b in bounds if b > a]
    out = {c: Counter() for c in cells}
    for task, found in run_tasks(tasks, jobs, scheduler):
        out[task.key[0]] += found
    return out


def blunder_table(game: str, players, scenarios=None, races: int = 200, seed: int = 1, racers: int = 4,
                  bundle=None, data=None, jobs: int = 1, by_scenario: bool = False, scheduler: str | None = None):
    """A DataFrame: one row per player (and scenario, with `by_scenario`) and class: the blunders
    found (`count`), the decisions of that class checked, and the rate."""
    import pandas as pd

    _, mod = _module(game)
    counts = blunder_counts(game, players, scenarios, races, seed, racers, bundle, data, jobs, scheduler)
    groups: dict = {}
    for (p, s), found in counts.items():
        key = (str(p), s) if by_scenario else (str(p),)
        groups.setdefault(key, Counter())
        groups[key] += found
    rows = []
    for key, found in groups.items():
        for c in mod.CLASSES:
            n, m = found[c], found["decisions:" + c]
            row = dict(player=key[0])
            if by_scenario:
                row[games.game(game).scenario] = key[1]
            rows.append(dict(row, blunder=c, count=n, decisions=m, rate=n / m if m else float("nan")))
    return pd.DataFrame(rows)


__all__ = ["blunder_counts", "blunder_table"]
