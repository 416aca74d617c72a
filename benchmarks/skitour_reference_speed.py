"""Ski Tour: races per second per core (CPU time) of the strength reference, every seat the reference.

    .venv/bin/python benchmarks/skitour_reference_speed.py 24 12     # races on Starter, on Long

The shipped persona and the reference before the stamina score (horizon 3, stamina_rows 0), on
the same races in one process, so the two compare on the same load.
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kernels.skitour.players import PARAM_NAMES  # noqa: E402
from sim.skitour.compile import load_bundle  # noqa: E402
from sim.skitour.game import Design, nations  # noqa: E402
from sim.skitour.play import play_block  # noqa: E402
from sim.skitour.players import get_player, with_weights  # noqa: E402

b = load_bundle()
ref = get_player("reference")
w = list(ref.weights)
for k, v in (("horizon", 3.0), ("stamina_rows", 0.0), ("stamina_cap", 0.0)):
    w[PARAM_NAMES.index(k)] = v
old = with_weights(ref, "reference-before", w)
play_block(b, "Starter", nations(b, Design("Starter", 4), 1, np.arange(1)), 1, np.arange(1), players=("balanced",))
for course, n in (("Starter", int(sys.argv[1])), ("Long", int(sys.argv[2]))):
    ids = np.arange(100, 100 + n)
    nat = nations(b, Design(course, 4), 1, ids)
    for p in (old, ref):
        t = time.process_time()
        s, _ = play_block(b, course, nat, 1, ids, players=(p,))
        dt = time.process_time() - t
        print(f"{course} {p.name}: {n} races, every seat the reference, {dt:.1f} CPU s: {n / dt:.2f} races/s per core")
