"""CPU and wall seconds of one game's first kernel compile, and the slowest functions in it.

    XDG_CACHE_HOME=/tmp/empty python benchmarks/compile_time.py skitour [LABEL] [--races=N]

Point XDG_CACHE_HOME at an empty folder (each tree compiles into its own) to time a first compile;
run two trees side by side (each with its sources first on PYTHONPATH) to compare them on the
same load. LABEL plays only the warm designs whose label starts with it ("race" for Blast's race kernel), or
else contains it ("search"). It also prints the CPU seconds spent inside LLVM (per-function passes,
module passes, machine code) against the process's whole: the rest is numba's own Python work.
With --races=N, each design then plays N races (seed 1): races per second, and a hash of the tables
to compare trees by. Last, the functions numba compiled more than once, with the argument types
that differ (a literal constant where a variable is expected compiles a helper once more).
With --passes, also the CPU seconds of each numba pass and of each function's passes, each without
the compiles nested in it (typing a call compiles the callee inside the caller's typing pass);
`native_lowering` includes LLVM's function passes of that function, and an entry point's includes
the module passes and machine code of everything linked into it.
"""
import resource
import sys
import time

from numba.core import event as ev

import kernels
from sim import games
from sim.cli.common import load_or_report

kernels.prepare()
args = [a for a in sys.argv[1:] if not a.startswith("--races=") and a != "--passes"]
passes = "--passes" in sys.argv[1:]
races = int(next((a.split("=")[1] for a in sys.argv[1:] if a.startswith("--races=")), 0))
game = args[0]
only = args[1] if len(args) > 1 else None
mod = games.game(game).load()
bundle = load_or_report(None, game=game)
starts, times, signatures = {}, [], {}


class Timer(ev.Listener):
    def on_start(self, e):
        starts[id(e.data["dispatcher"]), str(e.data["args"])] = time.perf_counter()

    def on_end(self, e):
        key = (id(e.data["dispatcher"]), str(e.data["args"]))
        f = e.data["dispatcher"].py_func
        times.append((time.perf_counter() - starts.pop(key), f"{f.__module__}.{f.__qualname__}"))
        signatures.setdefault(times[-1][1], []).append(tuple(e.data["args"]))


ev.register("numba:compile", Timer())

# --passes: CPU seconds per numba pass and per function, less the passes nested in each
open_passes, by_pass, by_function = [], {}, {}


class PassTimer(ev.Listener):
    def on_start(self, e):
        open_passes.append([time.process_time(), 0.0])

    def on_end(self, e):
        t0, nested = open_passes.pop()
        dt = time.process_time() - t0
        if open_passes:
            open_passes[-1][1] += dt
        name = e.data["name"].split(" [")[0]
        function = f"{e.data['module']}.{e.data['qualname']}"
        by_pass[name] = by_pass.get(name, 0.0) + dt - nested
        by_function[function] = by_function.get(function, 0.0) + dt - nested


if passes:
    ev.register("numba:run_pass", PassTimer())

# CPU seconds inside LLVM: per-function passes, the module passes every library runs on itself
# with its callees linked in, and machine-code generation; the rest is numba's own work in Python
# (bytecode, typing, lowering to LLVM IR).
from numba.core import codegen as cg  # noqa: E402

llvm = {"function passes": 0.0, "module passes": 0.0, "machine code": 0.0}
libraries = [0]


def _timed(cls, name, label):
    original = getattr(cls, name)

    def wrapper(self, *a, **k):
        t0 = time.process_time()
        try:
            return original(self, *a, **k)
        finally:
            llvm[label] += time.process_time() - t0
            if label == "module passes":
                libraries[0] += 1
    setattr(cls, name, wrapper)


_timed(cg.CPUCodeLibrary, "_optimize_functions", "function passes")
_timed(cg.CPUCodeLibrary, "_optimize_final_module", "module passes")
_timed(cg.JITCodeLibrary, "_finalize_specific", "machine code")
designs = mod.warm_designs(bundle)
if only:            # labels that start with LABEL, else those that contain it
    designs = ([(l, d) for l, d in designs if l.startswith(only)]
               or [(l, d) for l, d in designs if only in l])
for label, design in designs:
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    t0 = time.perf_counter()
    mod.play_chunk(bundle, design, 0, 0, 1)
    print(f"{label}: wall {time.perf_counter() - t0:.1f} s, cpu "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu:.1f} s", flush=True)
    if races:
        import hashlib
        t0 = time.perf_counter()
        seats, visits = mod.play_chunk(bundle, design, 1, 0, races)
        dt = time.perf_counter() - t0
        h = hashlib.sha256(seats.tobytes())
        h.update(visits.tobytes())
        print(f"{label}: {races} races in {dt:.2f} s, {races / dt:.0f} races/s, tables {h.hexdigest()[:16]}",
              flush=True)
total = resource.getrusage(resource.RUSAGE_SELF).ru_utime
print("LLVM: " + ", ".join(f"{k} {v:.1f} s" for k, v in llvm.items())
      + f" ({libraries[0]} libraries finalised); process CPU {total:.1f} s")
print(f"functions compiled: {len(times)}; the slowest (each including the functions it compiled):")
for seconds, name in sorted(times, reverse=True)[:12]:
    print(f"  {seconds:7.1f} s  {name}")
if passes:
    for title, table in (("numba passes", by_pass), ("functions (their own passes)", by_function)):
        print(f"CPU s by {title}, without the compiles nested in them:")
        for name, seconds in sorted(table.items(), key=lambda kv: -kv[1])[:12]:
            print(f"  {seconds:7.2f} s  {name}")
twice = {name: sigs for name, sigs in signatures.items() if len(sigs) > 1}
if twice:
    print("compiled more than once (the arguments whose types differ):")
    for name, sigs in sorted(twice.items()):
        differ = [i for i in range(max(map(len, sigs))) if len({str(s[i:i + 1]) for s in sigs}) > 1]
        print(f"  {name}: {len(sigs)} times; " + ("; ".join(
            f"argument {i}: " + " / ".join(str(s[i])[:80] if i < len(s) else "-" for s in sigs) for i in differ)
            or "the same types"))
