"""Where a Blast move ends: the kernels' lookup (rules.reach_nb, from BlastTables.up_count ..
next_range) against the rule's walk (rules.reach_route_nb), and the lookups themselves."""
import itertools

import numpy as np
import pytest

from kernels.blast import consts as C
from kernels.blast.rules import reach_nb, reach_route_nb
from kernels.blast.tables import FAR_AWAY
from kernels.jit import python_callable
from sim.blast import load_bundle

reach_nb, reach_route_nb = map(python_callable, (reach_nb, reach_route_nb))


@pytest.fixture(scope="module")
def tables():
    return load_bundle().tables


def test_lookup_reaches_where_the_walk_ends(tables):
    """Every trail, every start, every mix of up to 6 steps of each kind (and a negative count,
    which moves as none): the same end."""
    tb = tables
    steps = range(-1, 7)
    for t in range(tb.route_len.shape[0]):
        n = int(tb.route_len[t])
        for start in range(n):
            for up, flat, down in itertools.product(steps, steps, steps):
                walk = reach_route_nb(tb.terrain[t], tb.is_range[t], n, start, up, flat, down)
                assert reach_nb(tb, t, start, up, flat, down) == walk, (t, start, up, flat, down)


def test_lookups_of_a_trail(tables):
    tb = tables
    for t in range(tb.route_len.shape[0]):
        n = int(tb.route_len[t])
        terrain = tb.terrain[t, :n]
        uphill = np.flatnonzero(terrain == C.UPHILL)
        assert list(tb.up_at[t, :len(uphill)]) == list(uphill) and (tb.up_at[t, len(uphill):] == FAR_AWAY).all()
        assert tb.up_count[t, n - 1] == len(uphill)
        assert tb.up_flat_count[t, n - 1] == np.count_nonzero(terrain != C.DOWNHILL)
        ranges = [int(p) for p in tb.range_pos[t]]
        for q in range(n):
            after = [p for p in ranges if p >= q]
            assert tb.next_range[t, q] == (after[0] if after else -1)
            stop = min([p for p in ranges if p > q] + [n - 1])
            assert tb.stop_ahead[t, q] == stop - q
