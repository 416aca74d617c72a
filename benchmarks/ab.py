"""Races per second of this tree against another commit's, on the same races, in one run.

    python benchmarks/ab.py REV [--game blast --scenario Kurz --racers 4 --races 40000 --rounds 3]

REV (a commit, branch or tag) is checked out into a temporary git worktree. Each tree plays the
same design, seed and races through its game module's `play_chunk` in a process of its own (its
own sources first on the path; the kernels' cache is keyed by source content, so each tree loads
or compiles its own), alternating base, this, base, this ... so that the machine's load falls on
both alike. Each round prints both speeds; the end prints the median ratio, and whether the two
trees' tables (every seat and visit record of every race) are identical, byte for byte.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PLAY = r"""
import hashlib, json, sys, time
import kernels
kernels.prepare()
from sim import games
info = games.game(sys.argv[1]); mod = info.load()
bundle = mod.load_bundle(None)
design = mod.make_design(sys.argv[2], int(sys.argv[3]))
races = int(sys.argv[4])
mod.play_chunk(bundle, design, 1, 0, 2)                     # compile or load the kernels
t0 = time.perf_counter()
seats, visits = mod.play_chunk(bundle, design, 1, 0, races)
dt = time.perf_counter() - t0
h = hashlib.sha256(seats.tobytes()); h.update(visits.tobytes())
print(json.dumps({"races_per_s": races / dt, "hash": h.hexdigest()}))
"""


def play(tree: Path, args) -> dict:
    out = subprocess.run([sys.executable, "-c", PLAY, args.game, args.scenario, str(args.racers), str(args.races)],
                         cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin",
                                        **{k: v for k, v in os.environ.items()
                                           if k in ("HOME", "XDG_CACHE_HOME", "NUMBA_BOUNDSCHECK")}},
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{tree}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rev")
    p.add_argument("--game", default="blast")
    p.add_argument("--scenario", default="Kurz")
    p.add_argument("--racers", type=int, default=4)
    p.add_argument("--races", type=int, default=40000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.rev], check=True)
        try:
            speeds = {"base": [], "this": []}
            hashes = {}
            for r in range(args.rounds):
                for name, tree in (("base", base), ("this", ROOT)):
                    res = play(tree, args)
                    speeds[name].append(res["races_per_s"])
                    hashes[name] = res["hash"]
                print(f"round {r + 1}: base {speeds['base'][-1]:,.0f} races/s, this {speeds['this'][-1]:,.0f} races/s",
                      flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    ratio = statistics.median(t / b for t, b in zip(speeds["this"], speeds["base"]))
    print(f"{args.game}, {args.scenario}, {args.racers} racers, {args.races:,} races: this tree "
          f"{statistics.median(speeds['this']):,.0f} races/s, {args.rev} {statistics.median(speeds['base']):,.0f}; "
          f"median ratio {ratio:.3f}; tables identical: {hashes['base'] == hashes['this']}")


if __name__ == "__main__":
    main()
