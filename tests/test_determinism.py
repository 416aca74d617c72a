"""A race is a function of (seed, race index) and its set-up: never of grouping or order."""
import numpy as np

from blastrace import random_setups
from sim.blast import load_bundle
from sim.blast.play import play_block, play_one


def test_same_seed_same_results_whatever_the_chunking():
    b = load_bundle()
    setups = random_setups(b, 120, np.random.default_rng(0))
    races = np.arange(1000, 1120)
    whole = play_block(b, setups, 42, races)
    again = play_block(b, setups, 42, races)
    assert np.array_equal(whole, again)
    parts = [play_block(b, setups[i:i + k], 42, races[i:i + k]) for i, k in ((0, 7), (7, 50), (57, 63))]
    assert np.array_equal(whole, np.concatenate(parts))
    # reversed order: each race still gives the same rows
    rev = play_block(b, setups[::-1], 42, races[::-1])
    rows = {}
    for r in rev:
        rows.setdefault(int(r[0]), []).append(r)
    assert np.array_equal(whole, np.concatenate([np.array(rows[int(x)]) for x in races]))


def test_a_race_replayed_alone_equals_the_bulk_run():
    b = load_bundle()
    setups = random_setups(b, 30, np.random.default_rng(1))
    races = np.arange(30) * 17
    bulk = play_block(b, setups, 7, races)
    offset = 0
    for setup, race in zip(setups, races):
        alone = play_one(b, setup, 7, int(race))
        assert np.array_equal(alone.results, bulk[offset:offset + setup.n])
        offset += setup.n


def test_seed_and_race_index_matter():
    b = load_bundle()
    setups = random_setups(b, 50, np.random.default_rng(2), players=("heuristic",))
    a = play_block(b, setups, 1, np.arange(50))
    assert not np.array_equal(a, play_block(b, setups, 2, np.arange(50)))
    assert not np.array_equal(a, play_block(b, setups, 1, np.arange(50, 100)))


def test_a_reversed_list_of_races_needs_no_second_compile():
    """A strided view of race indices is another type signature to numba: the kernel must get a
    contiguous copy, or it compiles the whole race loop again (a minute of CI, once)."""
    from kernels.blast.engine import play_races_nb

    b = load_bundle()
    setups = random_setups(b, 4, np.random.default_rng(3))
    races = np.arange(10, 14)
    play_block(b, setups, 5, races)
    signatures = len(play_races_nb.overloads)
    play_block(b, setups[::-1], 5, races[::-1])
    assert len(play_races_nb.overloads) == signatures


def test_races_played_in_kernel_blocks_equal_one_call(monkeypatch):
    """play_records and play_block play PLAY_BLOCK races per kernel call (fresh memory costs
    time): the seat and visit records are those of one call over all the races."""
    from sim.blast import design as D
    from sim.blast import play as P

    b = load_bundle()
    d = D.Design(b.trail_names[0], 3)
    setups = random_setups(b, 40, np.random.default_rng(4))
    races = np.arange(200, 240)[::-1]
    one = D.play_records(b, d, 9, 5, 130)
    whole = play_block(b, setups, 9, races, visits=True)
    monkeypatch.setattr(P, "PLAY_BLOCK", 17)
    blocks = D.play_records(b, d, 9, 5, 130)
    assert np.array_equal(one[0], blocks[0]) and np.array_equal(one[1], blocks[1])
    assert len(one[0]) == 125 * 3
    parts = play_block(b, setups, 9, races, visits=True)
    assert np.array_equal(whole[0], parts[0]) and np.array_equal(whole[1], parts[1])
