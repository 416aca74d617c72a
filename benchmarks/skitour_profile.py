"""Where Ski Tour's race kernel spends its time, by source line (perf samples, inlined lines).

    XDG_CACHE_HOME=/tmp/prof_cache NUMBA_DEBUGINFO=1 perf record -F 4000 -o /tmp/sk.data \
        python benchmarks/skitour_profile.py run [--course Starter] [--racers 4] [--races 30000]
    python benchmarks/skitour_profile.py report /tmp/sk.data

--game blast (with --course Kurz: a trail) profiles Blast's race kernel the same way (its game's
default player); any game whose race kernel is kernels/GAME/engine.py's play_races_nb can.

The kernel is one machine-code function (every helper inlined, kernels/jit.py), so perf alone sees
one symbol. `run` compiles it with line tables (NUMBA_DEBUGINFO=1, in a cache of its own: the
first compile takes minutes) but, unlike numba's debug builds, without bounds checks or extended
variable lifetimes, so the code is close to the shipped one (about 0.9 times as fast); it writes
the kernel's object code and where it was loaded to /tmp/skitour_profile.o and .json (--keep PREFIX
on both commands: another place, for two profiles at once), then plays
the races. `report` maps perf's samples inside the kernel to source lines with addr2line, each
with the chain of lines it was inlined through: self time by line and by function, and time by
function including the helpers inlined into it (splice functions are not seen as callers: their
lines count as their own). Lines numba emits without a location show as `engine.py:?`.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: where `run` leaves the kernel's object code (PREFIX.o) and load address (PREFIX.json) for `report`
#: (--keep: two profiles at once need two prefixes)
KEEP = "/tmp/skitour_profile"


def run(args) -> None:
    from numba.core import codegen, cpu

    keep = codegen.CPUCodeLibrary._set_compiled_object

    def set_compiled_object(self, value):
        self._kept_object = value
        return keep(self, value)

    codegen.CPUCodeLibrary._set_compiled_object = set_compiled_object
    finalize = cpu.CPUTargetOptions.finalize

    def finalize_lines_only(self, flags, options):
        finalize(self, flags, options)
        if flags.debuginfo:              # numba's debug build checks bounds and keeps every variable
            flags.boundscheck = False
            flags.dbg_extend_lifetimes = False

    cpu.CPUTargetOptions.finalize = finalize_lines_only

    import kernels
    kernels.prepare()
    from sim import games
    mod = games.game(args.game).load()
    bundle = mod.load_bundle(None)
    design = mod.make_design(args.course, args.racers)
    mod.play_chunk(bundle, design, 1, 0, 2)
    import importlib
    E = importlib.import_module(f"kernels.{args.game}.engine")
    lib = next(iter(E.play_races_nb.overloads.values())).library
    obj = getattr(lib, "_kept_object", None) or lib._compiled_object
    OBJ, META = Path(args.keep + ".o"), Path(args.keep + ".json")
    OBJ.write_bytes(obj)
    nm = subprocess.run(["nm", "--defined-only", str(OBJ)], capture_output=True, text=True).stdout
    name = next(ln.split()[2] for ln in nm.splitlines()
                if ln.split()[1] in "tT" and "play_races_nb" in ln and "cpython" not in ln
                and not ln.split()[2].startswith("cfunc"))
    size = int(subprocess.run(["readelf", "-SW", str(OBJ)], capture_output=True, text=True).stdout
               .split(" .ltext ")[1].split()[3], 16)
    META.write_text(json.dumps({"base": lib.get_pointer_to_function(name), "size": size}))
    t0 = time.thread_time()
    mod.play_chunk(bundle, design, 1, 0, args.races)
    print(f"{args.races / (time.thread_time() - t0):.0f} races per CPU second (profiled build)")


def report(args) -> None:
    OBJ, META = Path(args.keep + ".o"), Path(args.keep + ".json")
    meta = json.loads(META.read_text())
    base, size = meta["base"], meta["size"]
    ips = subprocess.run(["perf", "script", "-i", args.data, "-F", "ip"], capture_output=True,
                         text=True).stdout.split()
    count = collections.Counter(int(x, 16) - base for x in ips if 0 <= int(x, 16) - base < size)
    addrs = sorted(count)
    out = subprocess.run(["addr2line", "-j", ".ltext", "-e", str(OBJ), "-i"], capture_output=True,
                         text=True, input="".join(f"{a:#x}\n0xfffffff0\n" for a in addrs)).stdout
    chains, cur = [], []
    for ln in out.splitlines():                # each address's chain ends at the sentinel's "??"
        if ln.startswith("??"):
            chains.append(cur)
            cur = []
        else:
            cur.append(ln.split(" (")[0].replace(str(ROOT) + "/", ""))
    defs = {}

    def function(loc):
        path, _, line = loc.rpartition(":")
        if not line.isdigit():
            return loc
        if path not in defs:
            try:
                tree = ast.parse((ROOT / path).read_text())
                defs[path] = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(tree)
                              if isinstance(n, ast.FunctionDef)]
            except (OSError, SyntaxError):
                defs[path] = []
        inside = [(a, n) for a, b, n in defs[path] if a <= int(line) <= b]
        return max(inside)[1] if inside else loc

    total = sum(count.values())
    by_line, by_fn, incl = collections.Counter(), collections.Counter(), collections.Counter()
    for a, chain in zip(addrs, chains):
        chain = chain or ["?:?"]
        by_line[chain[0]] += count[a]
        by_fn[function(chain[0])] += count[a]
        for fn in {function(loc) for loc in chain}:
            incl[fn] += count[a]
    print(f"{total} samples in the kernel")
    for title, table in (("self, by function", by_fn), ("with what is inlined into it", incl),
                         ("self, by line", by_line)):
        print(f"== {title}")
        for key, n in table.most_common(args.top):
            print(f"{100 * n / total:6.1f}%  {key}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--game", default="skitour")
    r.add_argument("--course", default="Starter", help="the scenario: a course, or a trail with --game blast")
    r.add_argument("--racers", type=int, default=4)
    r.add_argument("--races", type=int, default=30000)
    r.add_argument("--keep", default=KEEP, metavar="PREFIX", help=f"where the object code goes (default {KEEP})")
    q = sub.add_parser("report")
    q.add_argument("data")
    q.add_argument("--top", type=int, default=30)
    q.add_argument("--keep", default=KEEP, metavar="PREFIX", help="the prefix `run` was given")
    args = p.parse_args()
    run(args) if args.cmd == "run" else report(args)


if __name__ == "__main__":
    sys.exit(main())
