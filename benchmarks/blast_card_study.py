"""Where the Blast reference's card differs from the heuristic's, on the same round-start states.

    python benchmarks/blast_card_study.py TRAIL RACES

Plays RACES races with the reference in seat 0 and `balanced` in the others (random line-ups of
four, seed 1), stops at every round start, and asks both players for seat 0's card on that same
state: the agreement rate, on and off a shooting mat, and what the disagreeing cards look like
(initiative, steps of the better action, pulse cost, icy). Writes the decisions to
/tmp/cards_TRAIL.csv. Slow (each round start replays the race up to it, rollouts included):
40 Kurz races take some 10 minutes of one core. docs/players.md quotes its figures.
"""
import sys

import numpy as np
import pandas as pd

from kernels.blast import results as R
from kernels.blast import players as K
from kernels.blast.rules import value_nb as _value_nb
from kernels.blast.state import (
    G_ROUND, G_WINNER, SEAT_HAND_N, SEAT_ON_MAT, SEAT_POS, SEAT_PULSE, SEAT_STATUS, W_LOOKAHEAD, new_state,
)
from kernels.blast_reference.search import new_search_work, play_races_reference_nb
from kernels.jit import python_callable
from sim.blast import load_bundle
from sim.blast.play import _block_arrays, make_setup

value_nb = python_callable(_value_nb)
b = load_bundle()
tb = b.tables
trail = sys.argv[1] if len(sys.argv) > 1 else "Kurz"
races = int(sys.argv[2]) if len(sys.argv) > 2 else 20
choose = python_callable(K.choose_card_nb)
rows = []
rng = np.random.default_rng(1)
nb = len(tb.accuracy)
for race in range(races):
    bis = rng.choice(nb, 4, replace=False)
    setup = make_setup(b, trail, [int(x) for x in bis], players=["reference", "balanced", "balanced", "balanced"])
    arrays = _block_arrays([setup])
    t = arrays[0][0]
    for rnd in range(1, 60):
        st = new_state(K.N_PARAMS, 0)
        play_races_reference_nb(tb, *arrays, 11, np.array([race], np.int64), st,
                                *R.buffers(1), 0, new_state(K.N_PARAMS, 0), new_search_work(), rnd)
        if st.g[G_ROUND] != rnd or st.g[G_WINNER] >= 0 or st.seat[SEAT_STATUS, 0] != 0:
            break
        ref = int(st.work[W_LOOKAHEAD])
        heu = int(choose(st, tb, t, 0))
        n = st.seat[SEAT_HAND_N, 0]
        def feat(c):
            ini = int(value_nb(tb.card_init[c], st.dice, 0))
            best = max(sum(int(value_nb(tb.card_steps[c, a, k], st.dice, 0)) for k in range(3)) for a in range(2))
            pul = min(int(tb.card_pulse[c, a]) for a in range(2))
            icy = int(tb.card_icy[c].max())
            return ini, best, pul, icy
        rows.append((race, rnd, int(st.seat[SEAT_ON_MAT, 0]), int(st.seat[SEAT_POS, 0]), int(st.seat[SEAT_PULSE, 0]), n, ref, heu, *feat(ref), *feat(heu)))
df = pd.DataFrame(rows, columns="race rnd mat pos pulse hand ref heu r_ini r_steps r_pulse r_icy h_ini h_steps h_pulse h_icy".split())
df.to_csv(f"/tmp/cards_{trail}.csv", index=False)
df["agree"] = df.ref == df.heu
print(len(df), "decisions; agree", df.agree.mean().round(3))
print(df.groupby("mat").agree.mean())
d = df[~df.agree]
for m in (0, 1):
    x = d[d.mat == m]
    print("mat", m, len(x), "disagreements; mean ref vs heu: ini %.2f %.2f steps %.2f %.2f pulse %.2f %.2f icy %.2f %.2f" % (
        x.r_ini.mean(), x.h_ini.mean(), x.r_steps.mean(), x.h_steps.mean(), x.r_pulse.mean(), x.h_pulse.mean(), x.r_icy.mean(), x.h_icy.mean()))
print(d.groupby(pd.cut(d.pulse, [-1, 2, 5, 7, 11])).size())
print(df.groupby(pd.cut(df.hand, [0, 2, 4, 6, 12])).agree.mean())
