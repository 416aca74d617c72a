"""Races per second of this tree against another commit's, on the same races, in one run.

    python benchmarks/ab.py REV [--game blast --scenario Kurz --racers 4 --races 40000 --rounds 3]
                               [--players lookahead,balanced]

REV (a commit, branch or tag) is checked out into a temporary git worktree. Each tree plays the
same design, seed and races through its game module's `play_chunk` in a process of its own (its
own sources first on the path), alternating base, this, base, this ... so that the machine's load
falls on both alike. Each round prints both speeds; the end prints the median ratio, and whether
the two trees' tables (every seat and visit record of every race) are identical, byte for byte.

Each tree has a kernel cache of its own: this tree the caller's (XDG_CACHE_HOME, or ~/.cache), the
base $XDG_CACHE_HOME/biathlon-sim-ab/<REV's commit>. In one cache the two would share every helper
of a package whose sources they share (the cache is keyed by source content), compiled by
whichever tree came first, and a helper compiled for an entry point with reference counting runs
slowly inlined into one without (an `entry_hot`, kernels/jit.py): Blast's search kernel as an
`entry_hot` played 50 look-ahead races a CPU second on the helpers its base (an `entry`) had
cached, 63 on its own, the base 52 either way.

--players names the design's players (the game's make_design `players`; Blast's look-ahead and
reference seats are played by its search kernel); without it, the game's default player. --cpu
times the races by the process's CPU seconds instead of the wall clock, for a machine others
share: there one tree's look-ahead races went from 31 to 53 a wall-clock second between rounds of
one run, and from 52.1 to 53.2 a CPU second in another.
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
players = json.loads(sys.argv[5])
design = mod.make_design(sys.argv[2], int(sys.argv[3]), **({"players": tuple(players)} if players else {}))
races = int(sys.argv[4])
mod.play_chunk(bundle, design, 1, 0, 2)                     # compile or load the kernels
clock = time.process_time if sys.argv[6] == "cpu" else time.perf_counter
t0 = clock()
seats, visits = mod.play_chunk(bundle, design, 1, 0, races)
dt = clock() - t0
h = hashlib.sha256(seats.tobytes()); h.update(visits.tobytes())
print(json.dumps({"races_per_s": races / dt, "hash": h.hexdigest()}))
"""


def rate(races_per_s: float) -> str:
    """Races a second, with a decimal where they are few (the search players')."""
    return f"{races_per_s:,.0f}" if races_per_s >= 100 else f"{races_per_s:.2f}"


def play(tree: Path, args, cache: str | None = None) -> dict:
    """One process of `tree` playing the races; `cache`: its XDG_CACHE_HOME, if not the caller's."""
    out = subprocess.run([sys.executable, "-c", PLAY, args.game, args.scenario, str(args.racers), str(args.races),
                          json.dumps(args.players.split(",") if args.players else []),
                          "cpu" if args.cpu else "wall"],
                         cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin",
                                        **{k: v for k, v in os.environ.items()
                                           if k in ("HOME", "XDG_CACHE_HOME", "NUMBA_BOUNDSCHECK")},
                                        **({"XDG_CACHE_HOME": cache} if cache else {})},
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
    p.add_argument("--players", default="", help="comma-separated player names (default: the game's own)")
    p.add_argument("--cpu", action="store_true", help="races per CPU second of the process, not per wall second")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.rev], check=True)
        commit = subprocess.run(["git", "-C", str(base), "rev-parse", "HEAD"], check=True, capture_output=True,
                                text=True).stdout.strip()
        caches = {"base": str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "biathlon-sim-ab"
                              / commit), "this": None}
        try:
            speeds = {"base": [], "this": []}
            unit = "races/CPU s" if args.cpu else "races/s"
            hashes = {}
            for r in range(args.rounds):
                for name, tree in (("base", base), ("this", ROOT)):
                    res = play(tree, args, caches[name])
                    speeds[name].append(res["races_per_s"])
                    hashes[name] = res["hash"]
                print(f"round {r + 1}: base {rate(speeds['base'][-1])} {unit}, this {rate(speeds['this'][-1])} {unit}",
                      flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    ratio = statistics.median(t / b for t, b in zip(speeds["this"], speeds["base"]))
    print(f"{args.game}, {args.scenario}, {args.racers} racers{', ' + args.players if args.players else ''}, "
          f"{args.races:,} races: this tree "
          f"{rate(statistics.median(speeds['this']))} {unit}, {args.rev} {rate(statistics.median(speeds['base']))}; "
          f"median ratio {ratio:.3f}; tables identical: {hashes['base'] == hashes['this']}")


if __name__ == "__main__":
    main()
