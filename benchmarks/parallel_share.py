"""The share of each long command's work that parallelises: on one worker, the time spent inside
the tasks the shared runner hands out (what workers would share) against the command's wall time
(the rest is the main process: setting up, writing parts, reading them back, the tables).

    python benchmarks/parallel_share.py [RACES] [BALANCE_FILE]

Plays about RACES (default 20000) races of Blast on Kurz with 4 racers for each kind of
`bench --scaling` (sim.bench: a run, a study of two cells, a tune generation, a balance round of
BALANCE_FILE, default experiments/balance_blast.toml) and prints, per kind, the task seconds, the
wall seconds, their ratio p, and Amdahl's bound on the speed-up with 2 and 16 workers, 1 / (1 - p +
p / n) (a bound: it leaves out chunks that do not divide evenly among the workers and the time to
ship tasks to them). Docs: docs/studies.md, "On a cluster".
"""
import sys
import tempfile
import time
from pathlib import Path

import sim.run
import sim.runner
import sim.study
from sim import bench, games
from sim.blast import load_bundle

spent = [0.0]


def timed_tasks(tasks, n_jobs=1, scheduler=None):
    """The runner's in-process path, each task's call timed."""
    for t in tasks:
        t0 = time.perf_counter()
        result = t.fn(*t.args)
        spent[0] += time.perf_counter() - t0
        yield t, result


for module in (sim.runner, sim.run, sim.study):
    module.run_tasks = timed_tasks

races = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
balance = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parents[1] / "experiments" /
                                                   "balance_blast.toml")
bundle, info = load_bundle(), games.game("blast")
design = info.load().make_design("Kurz", 4)
sim.run.run_races(bundle, design, 400, 2, chunk_size=200, progress=False, collect=False)   # kernels loaded
kinds = {"run": lambda tmp: bench._time_run(bundle, design, races, 1, 2000, 1, None, "blast"),
         "study": lambda tmp: bench._time_study(bundle, info, "Kurz", 4, races, 1, 2000, 1, None, None, tmp),
         "tune": lambda tmp: bench._time_generation(bundle, info, "Kurz", 4, races, 1, 1, None, None),
         "balance": lambda tmp: bench._time_balance_round(balance, races, 1, None, tmp)}
print(f"{'kind':8} {'races':>7} {'tasks s':>8} {'wall s':>7} {'share p':>8} {'bound 2':>8} {'bound 16':>9}")
with tempfile.TemporaryDirectory() as tmp:
    for kind, play in kinds.items():
        spent[0] = 0.0
        played, wall = play(Path(tmp) / kind)
        p = spent[0] / wall
        print(f"{kind:8} {played:7,} {spent[0]:8.2f} {wall:7.2f} {p:8.1%} {1 / (1 - p + p / 2):8.2f} "
              f"{1 / (1 - p + p / 16):9.2f}")
