"""The strength reference (kernels/blast_reference): it decides only on what a racer at the table
knows, its races are legal and reproducible, and its blind-card bookkeeping follows the cards."""
import numpy as np
import pytest

from kernels.blast import results as R
from kernels.blast import players as K
from kernels.blast.state import (
    G_MN, G_MTOP, G_N, G_ROUND, SEAT_HAND_N, SEAT_SECRET, SEAT_STATUS, W_LOOKAHEAD, new_state,
)
from kernels.blast_reference.search import new_search_work, play_races_reference_nb
from sim.blast import load_bundle
from sim.blast.play import _block_arrays, make_setup, play_one
from sim.blast.players import resolve
from sim.blast.referee import referee_race

SEED = 11


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def small(name="reference", rollouts=3.0):
    """A search player with a small budget, for tests."""
    p = resolve(name)
    w = list(p.weights)
    w[K.P_ROLLOUTS] = rollouts
    return type(p)(f"{name}-small", p.kind, tuple(w))


def stop_at(bundle, setup, race, rnd):
    """Race `race` played up to the search seats' card choices of round `rnd`: the state there."""
    arrays = _block_arrays([setup])
    st = new_state(K.N_PARAMS, 0)
    play_races_reference_nb(bundle.tables, *arrays, SEED, np.array([race], np.int64), st,
                            *R.buffers(1), 0, new_state(K.N_PARAMS, 0), new_search_work(), rnd)
    return st, arrays


def decide(bundle, st, arrays):
    """The search seats' cards, chosen again on the round-start state st (a copy is used)."""
    st = type(st)(*(a.copy() for a in st))
    play_races_reference_nb(bundle.tables, *arrays, SEED, np.array([0], np.int64), st,
                            *R.buffers(1), 0, new_state(K.N_PARAMS, 0), new_search_work(), -1)
    return st.work[W_LOOKAHEAD:W_LOOKAHEAD + 6].copy()


def hidden_from(st, s):
    """(seat, hand index, mdeck place) of every card seat s cannot see in the others' hands."""
    out = []
    for o in range(st.g[G_N]):
        bits = int(st.seat[SEAT_SECRET, o])
        if o == s or bits == 0:
            continue
        used = set()
        for i in range(st.g[G_MTOP]):
            if (bits >> i) & 1:
                h = next(h for h in range(st.seat[SEAT_HAND_N, o])
                         if st.hand[o, h] == st.mdeck[i] and h not in used)
                used.add(h)
                out.append((o, h, i))
    return out


def test_the_reference_decides_only_on_what_it_can_know(bundle):
    """Dealing the other racers' face-down Motivation cards and the deck again, with everything
    the reference may know held fixed (its hand, the discard piles, the board, the face-up cards,
    its own random stream), leaves its card unchanged; the same state gives the same card."""
    ref = small()
    bal = resolve("balanced")
    setup = make_setup(bundle, "Lang", ["Wei", "Olsson", "Bakken", "Girard"], None, [ref, bal, bal, bal])
    found = 0
    rng = np.random.default_rng(3)
    for race in range(12):
        for rnd in (8, 12, 16):
            st, arrays = stop_at(bundle, setup, race, rnd)
            if st.g[G_ROUND] != rnd or st.seat[SEAT_STATUS, 0] != 0:
                continue
            hidden = hidden_from(st, 0)
            if not hidden:
                continue
            card = st.work[W_LOOKAHEAD]
            assert card in st.hand[0, :st.seat[SEAT_HAND_N, 0]]             # a legal card
            assert decide(bundle, st, arrays)[0] == card                  # reproducible
            top, mn = int(st.g[G_MTOP]), int(st.g[G_MN])
            worth = {int(c): w for c, w in zip(st.mdeck[:mn], st.mworth[:mn])}
            for _ in range(3):
                alt = type(st)(*(a.copy() for a in st))
                pool = [int(alt.mdeck[i]) for _, _, i in hidden] + [int(c) for c in alt.mdeck[top:mn]]
                rng.shuffle(pool)
                for k, (o, h, i) in enumerate(hidden):
                    alt.hand[o, h] = alt.mdeck[i] = pool[k]
                alt.mdeck[top:mn] = pool[len(hidden):]
                alt.mworth[:mn] = [worth[int(c)] for c in alt.mdeck[:mn]]
                assert decide(bundle, alt, arrays)[0] == card
            found += 1
    assert found >= 2, "no state with hidden cards found: widen the search"


def test_reference_races_are_legal_reproducible_and_differ(bundle):
    ref = small()
    bal = resolve("balanced")
    bis = ["Fischer", "Olsson", "Bakken", "Girard"]
    setup = make_setup(bundle, "Short", bis, None, [ref, bal, ref, bal])
    differs = 0
    for race in range(4):
        log = play_one(bundle, setup, 9, race)
        report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), log.events)
        assert report.ok, report.message
        assert (play_one(bundle, setup, 9, race).events == log.events).all()
        plain = play_one(bundle, make_setup(bundle, "Short", bis, None, bal), 9, race)
        differs += plain.events.shape != log.events.shape or bool((plain.events != log.events).any())
    assert differs >= 2          # the rollouts do change choices


def test_blind_cards_are_secret_until_played(bundle):
    """A seat's secret bits name cards in its hand, drawn blind from the deck, never its others."""
    bal = resolve("balanced")
    setup = make_setup(bundle, "Lang", ["Wei", "Olsson", "Bakken", "Girard"], None, [small(), bal, bal, bal])
    seen = 0
    for race in range(6):
        st, _ = stop_at(bundle, setup, race, 14)
        for o in range(st.g[G_N]):
            bits = int(st.seat[SEAT_SECRET, o])
            hand = list(st.hand[o, :st.seat[SEAT_HAND_N, o]])
            for i in range(64):
                if (bits >> i) & 1:
                    assert i < st.g[G_MTOP] and st.mdeck[i] in hand
                    hand.remove(st.mdeck[i])
                    seen += 1
    assert seen >= 1


def test_a_search_work_space_too_small_is_refused(bundle):
    """The kernel indexes its work space unchecked (it allocates nothing): one smaller than the
    state's hand or Motivation deck is a clear error before any race."""
    setup = make_setup(bundle, "Short", ["Wei", "Olsson"], None, [small(), resolve("balanced")])
    short = new_search_work()._replace(pool=np.zeros(8, np.int64))
    with pytest.raises(ValueError, match="search work space is smaller"):
        play_races_reference_nb(bundle.tables, *_block_arrays([setup]), SEED, np.array([0], np.int64),
                                new_state(K.N_PARAMS, 0), *R.buffers(1), 0, new_state(K.N_PARAMS, 0), short, 1)
