"""Balanced blocks (sim/blocks.py): the one line-up rotation every game's balanced design uses, and
race counts rounded up to whole blocks."""
from collections import Counter

import numpy as np

from sim.blocks import blocks_needed, rotation, round_to_blocks


def test_round_to_blocks():
    assert [round_to_blocks(r, 24) for r in (1, 23, 24, 25, 48)] == [24, 24, 24, 48, 48]
    assert round_to_blocks(0, 5) == 0
    assert [blocks_needed(r, 24) for r in (0, 1, 24, 25, 48)] == [0, 1, 1, 2, 2]


def test_one_axis_every_value_sits_in_every_seat_equally_often():
    races = np.arange(3 * 5)                          # three blocks of 5
    (ids,) = rotation(7, races, (5,), np.arange(4), 0x5C1)
    assert ids.shape == (15, 4)
    for r in ids:
        assert len(set(r)) == 4                       # no value twice in a race
    for seat in range(4):
        assert Counter(ids[:, seat]) == {v: 3 for v in range(5)}
    # equal offsets share a value (a relay team's legs)
    (team,) = rotation(7, races, (5,), np.array([0, 0, 1, 1]), 0x5C1)
    assert (team[:, 0] == team[:, 1]).all() and (team[:, 0] == ids[:, 0]).all()


def test_two_axes_meet_in_every_pair_and_depend_only_on_the_race_index():
    nb, nc = 4, 6
    races = np.arange(nb * nc)
    bis, cols = rotation(3, races, (nb, nc), np.arange(3), 0xB1A7)
    for seat in range(3):
        assert Counter(zip(bis[:, seat], cols[:, seat])) == {(b, c): 1 for b in range(nb) for c in range(nc)}
    # any subset of races, in any order, gets the same line-ups as the whole
    some = np.array([23, 0, 5, 5, 40, 17])
    b2, c2 = rotation(3, some, (nb, nc), np.arange(3), 0xB1A7)
    whole_b, whole_c = rotation(3, np.arange(48), (nb, nc), np.arange(3), 0xB1A7)
    assert (b2 == whole_b[some]).all() and (c2 == whole_c[some]).all()
    # another seed or salt draws other permutations
    assert not (rotation(4, races, (nb, nc), np.arange(3), 0xB1A7)[0] == bis).all()
    assert rotation(3, np.zeros(0, np.int64), (nb, nc), np.arange(3), 1)[0].shape == (0, 3)


def test_the_block_permutations_are_numpys_default_rng_bit_for_bit():
    """sim.permutations draws every block's permutations at once; each must be exactly what
    np.random.default_rng([seed, block, salt]).permutation(size) gives, axis after axis from one
    generator, for small and 64-bit seeds, blocks past 2**32 (two entropy words) and sizes of 1 to
    40 (draws that need several tries, and 32-bit draws that use both halves of a 64-bit one)."""
    from sim.permutations import permutations

    rng = np.random.default_rng(5)
    cases = [(1, 0x3A41A, (8,)), (2026, 0xB1A7, (8, 6)), (2 ** 63 + 12345, 0x5C1, (5,)), (0, 0, (3, 1, 7)),
             (int(rng.integers(2 ** 62)), int(rng.integers(2 ** 40)), (40, 2))]
    for seed, salt, sizes in cases:
        blocks = np.concatenate([np.arange(60), rng.integers(0, 2 ** 40, 20), [2 ** 32, 2 ** 32 - 1]])
        got = permutations(seed, blocks, salt, sizes)
        for i, b in enumerate(blocks):
            want = np.random.default_rng([seed, int(b), salt])
            for axis, s in enumerate(sizes):
                assert list(got[axis][i]) == list(want.permutation(s)), (seed, salt, sizes, int(b), axis)
