"""A hash of what the Blast search kernel (kernels/blast_reference) plays, to compare two trees by:

    PYTHONPATH=TREE python benchmarks/blast_search_same.py

Seven line-ups of look-ahead, reference (small budgets, one with a `depth`, one with none), balanced
and random seats, 2 to 6 racers: per line-up a block's tables, two races' event logs, and for two
races at two rounds the state at `stop_round`, the search seats' cards chosen again on it (-1) and
the candidates' mean scores the last search leaves in `ro`. Prints a hash per line-up and one of
all. Used for issue 32 (docs/studies.md, "One loop over the race and its rollouts"). The state's
work space `masks` is left out since 2026-11-29 (71b4e86 then prints b697cddda0a7a9dc, as the
trees after it do: docs/studies.md, "Blast's race kernel: lookups instead of walks").
"""
import hashlib
import time

import numpy as np

from kernels.blast import results as R
from kernels.blast import players as K
from kernels.blast.engine import same_card_nb
from kernels.blast.events import STATUS_RACING
from kernels.blast.state import G_N, SEAT_HAND_N, SEAT_PLAYER, SEAT_STATUS, W_LOOKAHEAD, new_state
from kernels.blast_reference.search import new_search_work, play_races_reference_nb
from kernels.jit import python_callable
from sim.blast import load_bundle
from sim.blast.play import _block_arrays, make_setup, play_block, play_one
from sim.blast.players import resolve

same_card = python_callable(same_card_nb)
bundle = load_bundle()


def small(name, rollouts, depth=None):
    p = resolve(name)
    w = list(p.weights)
    w[K.P_ROLLOUTS] = rollouts
    if depth is not None:
        w[K.P_DEPTH] = depth
    return type(p)(f"{name}-{rollouts}", p.kind, tuple(w))


def last_search_means(st, ro):
    """The candidates' mean scores of the last seat that searched (ro.mworth[:k], k its distinct cards)."""
    for s in range(int(st.g[G_N]) - 1, -1, -1):
        if (st.seat[SEAT_STATUS, s] == STATUS_RACING and st.seat[SEAT_PLAYER, s] in (K.LOOKAHEAD, K.REFERENCE)
                and st.params[s, K.P_ROLLOUTS] > 0):
            hand = st.hand[s, :st.seat[SEAT_HAND_N, s]]
            k = len([c for i, c in enumerate(hand) if not any(same_card(bundle.tables, d, c) for d in hand[:i])])
            return ro.mworth[:k] if k > 1 else ro.mworth[:0]
    return ro.mworth[:0]


bal, rnd = resolve("balanced"), resolve("random")
LINEUPS = {
    "reference + 3 balanced, Lang": ("Lang", [small("reference", 3)] + [bal] * 3),
    "mixed, Short": ("Short", [small("lookahead", 3), rnd, small("reference", 2), bal]),
    "2 look-ahead, Kurz": ("Kurz", [small("lookahead", 4), small("lookahead", 2)]),
    "reference with depth, Kurz": ("Kurz", [small("reference", 3, 4), bal, rnd, small("lookahead", 2), bal]),
    "4 reference, Short": ("Short", [small("reference", 2)] * 4),
    "no rollouts, Kurz": ("Kurz", [small("reference", 0), small("lookahead", 0), bal]),
    "6 racers, Lang": ("Lang", [small("lookahead", 2), rnd, bal, small("reference", 2), rnd, bal]),
}
whole = hashlib.sha256()
for name, (trail, players) in LINEUPS.items():
    h = hashlib.sha256()
    setup = make_setup(bundle, trail, ["Wei", "Olsson", "Bakken", "Girard", "Pinto", "Leitner"][:len(players)],
                       None, players)
    t0 = time.process_time()
    h.update(np.ascontiguousarray(play_block(bundle, [setup] * 6, 5, np.arange(6))).tobytes())
    for race in range(2):
        h.update(np.ascontiguousarray(play_one(bundle, setup, 9, race).events).tobytes())
    arrays = _block_arrays([setup])
    for race in range(2):
        for rnd_stop in (3, 9):
            st = new_state(K.N_PARAMS, 0)
            play_races_reference_nb(bundle.tables, *arrays, 11, np.array([race], np.int64), st,
                                    *R.buffers(1), 0, new_state(K.N_PARAMS, 0), new_search_work(), rnd_stop)
            for f, a in zip(st._fields, st):
                if f == "cand":         # the ends' columns E_POS .. E_COACH; E_UP and E_UP_FLAT (since
                    a = a[:, :6]        # 2026-11-28) count the terrain behind E_POS
                if f == "masks":        # the players' work space: since 2026-11-29 (issue 32) the card
                    continue            # choice keeps no counts of the stretch ahead there (the trail's
                                        # lookups hold them), so it holds other leftovers than before
                if f == "params":       # the weights from P_CARDX0 on (since 2026-11-28) are 0 in
                    a = a[:, :K.P_CARDX0]   # every line-up; the vector was 43 long before
                h.update(np.ascontiguousarray(a).tobytes())
            again = type(st)(*(a.copy() for a in st))
            ro = new_state(K.N_PARAMS, 0)
            play_races_reference_nb(bundle.tables, *arrays, 11, np.array([0], np.int64), again,
                                    *R.buffers(1), 0, ro, new_search_work(), -1)
            h.update(again.work[W_LOOKAHEAD:W_LOOKAHEAD + 6].tobytes())
            h.update(last_search_means(again, ro).tobytes())
    print(f"{name}: {h.hexdigest()[:16]} ({time.process_time() - t0:.1f} CPU s)", flush=True)
    whole.update(h.digest())
print("all:", whole.hexdigest()[:16])
