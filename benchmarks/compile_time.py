"""CPU and wall seconds of one game's first kernel compile, and the slowest functions in it.

    XDG_CACHE_HOME=/tmp/empty python benchmarks/compile_time.py skitour [LABEL]

Point XDG_CACHE_HOME at an empty folder (each tree compiles into its own) to time a first compile;
run two trees side by side (each with its sources first on PYTHONPATH) to compare them on the
same load. LABEL plays only the warm design whose label contains it (e.g. "search").
"""
import resource
import sys
import time

from numba.core import event as ev

import kernels
from sim import games
from sim.cli.common import load_or_report

kernels.prepare()
game = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else None
mod = games.game(game).load()
bundle = load_or_report(None, game=game)
starts, times = {}, []


class Timer(ev.Listener):
    def on_start(self, e):
        starts[id(e.data["dispatcher"]), str(e.data["args"])] = time.perf_counter()

    def on_end(self, e):
        key = (id(e.data["dispatcher"]), str(e.data["args"]))
        f = e.data["dispatcher"].py_func
        times.append((time.perf_counter() - starts.pop(key), f"{f.__module__}.{f.__qualname__}"))


ev.register("numba:compile", Timer())
for label, design in mod.warm_designs(bundle):
    if only and only not in label:
        continue
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    t0 = time.perf_counter()
    mod.play_chunk(bundle, design, 0, 0, 1)
    print(f"{label}: wall {time.perf_counter() - t0:.1f} s, cpu "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu:.1f} s", flush=True)
print(f"functions compiled: {len(times)}; the slowest (each including the functions it compiled):")
for seconds, name in sorted(times, reverse=True)[:12]:
    print(f"  {seconds:7.1f} s  {name}")
