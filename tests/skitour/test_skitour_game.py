"""Ski Tour as a registered game: designs, balanced rotation of the nations, the manifest form."""
from __future__ import annotations

import numpy as np
import pytest

from sim.skitour import game as G
from sim.skitour import load_bundle


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def test_balanced_design_rotates_every_nation_through_every_seat(bundle):
    for side in ("basic", "advanced"):
        d = G.make_design("Starter", 4, options={"side": side})
        G.check_design(bundle, d)
        k = G.block(bundle, d)
        assert k == 5
        nat = G.nations(bundle, d, 3, np.arange(10 * k))
        pool = set(G.side_pool(bundle, side))
        for seat in range(4):
            counts = np.bincount(nat[:, seat], minlength=len(bundle.nation_names))
            assert set(np.flatnonzero(counts)) == pool and len(set(counts[list(pool)])) == 1
        for row in nat:
            assert len(set(row)) == 4


def test_design_errors_are_one_line_value_errors(bundle):
    with pytest.raises(ValueError, match="exactly 4"):
        G.check_design(bundle, G.make_design("Starter", 3, options={"variant": "two_player"}))
    with pytest.raises(ValueError, match="one board"):
        G.check_design(bundle, G.make_design("Starter", 2, fixed={"nation": ["Norway", "Austria"]}))
    with pytest.raises(ValueError, match="no course"):
        G.check_design(bundle, G.make_design("Nowhere", 2))
    with pytest.raises(ValueError, match="no Ski Tour player"):
        G.check_design(bundle, G.make_design("Starter", 2, players=("nobody",)))


def test_design_round_trip_and_describe(bundle):
    d = G.make_design("Long", 4, fixed={"nation": ["Norway", "France", "Italy", "USA"]},
                      players=("balanced", "random"), options={"variant": "two_player"})
    G.check_design(bundle, d)
    assert G.design_from_dict(G.design_dict(d)) == d
    assert "Long" in G.describe(d) and G.block(bundle, d) == 1
    assert d.seat_players() == [0, 1, 0, 1]
    seats, visits = G.play_chunk(bundle, d, 1, 0, 20)
    assert seats.dtype == G.SEAT_DTYPE and len(seats) == 80
    assert set(G.player_records(d)) == {"balanced", "random"}
    assert "Norway" in G.replay(bundle, d, 1, 3)
