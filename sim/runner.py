"""The chunk runner: every command that plays races hands it tasks, and it plays them here, on
joblib workers, or on a dask.distributed cluster, and gives back each task's result in task order.

A task is a picklable call (`Task.fn(*Task.args)`); a study puts the chunks of all its cells and
variants into one list, so every worker stays busy across cells instead of waiting at the end of
each cell. Results come back in task order (joblib's ordered generator: workers run ahead while
the caller writes what is finished).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator


@dataclass(frozen=True)
class Task:
    key: Any                      # what the caller needs to file the result (cell, variant, bounds)
    fn: Callable
    args: tuple
    races: int = 0                # for progress


def workers(n_jobs: int) -> int:
    """The number of worker processes `n_jobs` stands for (joblib's convention: -1 all cores)."""
    cores = os.cpu_count() or 1
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return max(1, n_jobs)


#: the player kinds that choose by rollouts (both games' look-ahead and strength reference): a
#: few races a second per core, thousands of times slower than a heuristic
SEARCH_KINDS = ("lookahead", "reference")
#: chunk bounds for races with a search player in some seat: at about 1 race a second per core, 500
#: races (the floor for fast players) would be a task of 8 minutes or more, so a run stopped after
#: 7 minutes on 16 cores had kept nothing (the device machine, 2026-11-28); 8 to 96 races keep a
#: task within a minute or two, so an interrupted run keeps nearly all it played
SEARCH_CHUNK = (8, 96)


def has_search(players: dict) -> bool:
    """Whether a manifest's `players` (name -> {"kind": ...}) seat a search player."""
    return any(isinstance(p, dict) and p.get("kind") in SEARCH_KINDS for p in players.values())


def chunk_size(races: int, n_jobs: int, largest: int, smallest: int = 500, tasks_per_worker: int = 4,
               search: bool = False) -> int:
    """A chunk size for `races` races of one run on `n_jobs` workers: at most `largest`, small
    enough that every worker gets `tasks_per_worker` tasks, never below `smallest` (a task's
    overhead: pickling the bundle, one result file). With a search player (`search`) the bounds
    are SEARCH_CHUNK instead: its races are slow enough that a task's overhead never matters."""
    if search:
        smallest, largest = SEARCH_CHUNK[0], min(largest, SEARCH_CHUNK[1])
    want = math.ceil(races / (workers(n_jobs) * tasks_per_worker))
    return max(1, min(largest, max(smallest, want)))


def run_tasks(tasks: list[Task], n_jobs: int = 1, scheduler: str | None = None) -> Iterator[tuple[Task, Any]]:
    """(task, result) for every task, in order."""
    if not tasks:
        return iter(())
    if scheduler is None and (n_jobs == 1 or len(tasks) == 1):
        return ((t, t.fn(*t.args)) for t in tasks)
    from joblib import Parallel, delayed

    jobs = (delayed(t.fn)(*t.args) for t in tasks)
    if scheduler is None:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    else:
        results = _on_dask(scheduler, jobs, n_jobs)
    return zip(tasks, results)


def _on_dask(scheduler: str, jobs: Iterable, n_jobs: int):
    """Run joblib tasks on the dask.distributed cluster at `scheduler` (joblib's dask backend)."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise ValueError("running on a cluster needs dask.distributed: pip install 'biathlon-sim[cluster]'") from exc
    from joblib import Parallel, parallel_config

    with Client(scheduler), parallel_config(backend="dask"):
        yield from Parallel(n_jobs=n_jobs if n_jobs > 0 else -1, return_as="generator")(jobs)


def progress_bar(total: int, done: int, show: bool, label: str = ""):
    """A tqdm bar counting races (races per second and time left), or None."""
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit=" races", unit_scale=True, desc=label or f"{total:,} races",
                smoothing=0.05, dynamic_ncols=True)


__all__ = ["Task", "workers", "chunk_size", "run_tasks", "progress_bar"]
