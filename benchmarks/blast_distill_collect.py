"""Collect the Blast reference's card choices on round-start states, for distilling a fast card policy.

    python benchmarks/blast_distill_collect.py OUT.npz TRAILS RACES [ROLLOUTS] [SEED] [PERSONA]

Plays RACES races per trail (comma list) of four racers (random line-ups, seed SEED), every seat
playing PERSONA (default `balanced`; a .toml path for another), and stops at every round start:
there every racing seat with two or more distinct cards in hand is asked for the reference's card
(determinized rollouts, ROLLOUTS per card, default 24, on the persona's weights) on that same
state. One pass per round (the race is replayed up to it with the persona's cards, no rollouts),
so a decision costs one reference search, not a replay with rollouts (benchmarks/
blast_card_study.py's way). The states follow the persona's play, not the reference's (the
learner's own states, as DAgger asks: Ross, Gordon & Bagnell, AISTATS 2011).

Writes, per decision: trail, seat, round, the reference's card, the persona's card, the mean
rollout score of each distinct card in hand (in hand order of their first copies), and the arrays
a card policy reads (seat table, hand, dice, globals), so that benchmarks/blast_distill_fit.py can
compute any card features later with the kernels' own functions run as Python.
"""
import sys

import numpy as np

from kernels.blast import results as R
from kernels.blast import players as K
from kernels.blast.state import G_ROUND, G_WINNER, SEAT_HAND_N, SEAT_STATUS, W_LOOKAHEAD, new_state
from kernels.blast_reference.search import new_search_work, play_races_reference_nb
from kernels.jit import python_callable
from sim.blast import load_bundle
from sim.blast.play import _block_arrays, make_setup
from sim.blast.players import resolve

same_card = python_callable(__import__("kernels.blast.engine", fromlist=["x"]).same_card_nb)


def main():
    out = sys.argv[1]
    trails = sys.argv[2].split(",")
    races = int(sys.argv[3])
    rollouts = int(sys.argv[4]) if len(sys.argv) > 4 else 24
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    persona = sys.argv[6] if len(sys.argv) > 6 else "balanced"
    b = load_bundle()
    tb = b.tables
    weights = np.asarray(resolve(persona).weights, float)
    rng = np.random.default_rng(seed)
    nb = len(tb.accuracy)
    rec = {k: [] for k in ("trail", "seat", "rnd", "ref", "heu", "seat_tab", "hand", "dice", "g", "params", "value")}
    for trail in trails:
        for race in range(races):
            bis = rng.choice(nb, 4, replace=False)
            setup = make_setup(b, trail, [int(x) for x in bis], players=["reference"] * 4)
            arrays = list(_block_arrays([setup]))
            params = arrays[-1]
            params[0, :4, :] = weights
            params[0, :4, K.P_ROLLOUTS] = 0          # the replay: every seat plays the persona's card
            t = int(arrays[0][0])
            race_id = np.array([race + 100000 * seed], np.int64)
            for rnd in range(1, 80):
                st = new_state(K.N_PARAMS, 0)
                play_races_reference_nb(tb, *arrays, 11, race_id, st, *R.buffers(1), 0,
                                        new_state(K.N_PARAMS, 0), new_search_work(), rnd)
                if st.g[G_ROUND] != rnd or st.g[G_WINNER] >= 0:
                    break
                heu = st.work[W_LOOKAHEAD:W_LOOKAHEAD + 4].copy()
                st.params[:4, K.P_PLACE_CREDIT] = 0.2
                st.params[:4, K.P_DEPTH] = 0
                for s in range(4):
                    if st.seat[SEAT_STATUS, s] != 0:
                        continue
                    hand = st.hand[s, :st.seat[SEAT_HAND_N, s]]
                    distinct = [c for i, c in enumerate(hand) if not any(same_card(tb, d, c) for d in hand[:i])]
                    if len(distinct) < 2:
                        continue
                    # one searching seat at a time: its candidates' mean scores are left in ro
                    st.params[:4, K.P_ROLLOUTS] = 0
                    st.params[s, K.P_ROLLOUTS] = rollouts
                    ro = new_state(K.N_PARAMS, 0)
                    play_races_reference_nb(tb, *arrays, 11, race_id, st, *R.buffers(1), 0,
                                            ro, new_search_work(), -1)
                    ref = st.work[W_LOOKAHEAD:W_LOOKAHEAD + 4].copy()
                    vals = np.full(64, np.nan)
                    vals[:len(distinct)] = ro.mworth[:len(distinct)]
                    rec["value"].append(vals)
                    rec["trail"].append(t)
                    rec["seat"].append(s)
                    rec["rnd"].append(rnd)
                    rec["ref"].append(int(ref[s]))
                    rec["heu"].append(int(heu[s]))
                    rec["seat_tab"].append(st.seat.copy())
                    hpad = np.full(64, -1, np.int64)
                    hpad[:len(hand)] = hand
                    rec["hand"].append(hpad)
                    rec["dice"].append(st.dice.copy())
                    rec["g"].append(st.g.copy())
                    rec["params"].append(weights.copy())
            print(trail, race, len(rec["ref"]), flush=True)
    np.savez_compressed(out, **{k: np.array(v) for k, v in rec.items()})
    ref = np.array(rec["ref"])
    heu = np.array(rec["heu"])
    print(len(ref), "decisions; persona agrees with the reference on", round(float((ref == heu).mean()), 3))


if __name__ == "__main__":
    main()
