"""Races per CPU second of Blast players, every seat the same player, alternated in one process.

    python benchmarks/blast_players_cpu.py TRAIL RACES ROUNDS PLAYER[,PLAYER...]

Each round plays RACES races of 4 racers per player through the game's `play_chunk` (the kernels
compiled or loaded first) and prints its races per CPU second: on a machine others share, CPU
time and alternation put the load on every player alike (docs/players.md, "Closer to the
reference"). E.g. `python benchmarks/blast_players_cpu.py Kurz 20000 2 distilled,distilled2,balanced`.
"""
import sys
import time

import kernels

kernels.prepare()
from sim import games  # noqa: E402

mod = games.game("blast").load()
bundle = mod.load_bundle(None)
trail, races, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
designs = {p: mod.make_design(trail, 4, players=(p,)) for p in sys.argv[4].split(",")}
for design in designs.values():
    mod.play_chunk(bundle, design, 1, 0, 2)
for r in range(rounds):
    for p, design in designs.items():
        t0 = time.process_time()
        mod.play_chunk(bundle, design, 1, 0, races)
        print(f"round {r + 1}, {trail}, {p}: {races / (time.process_time() - t0):,.0f} races per CPU second",
              flush=True)
