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


def test_a_manifest_rebuilds_players_held_in_memory(bundle):
    """A tuning candidate is a PlayerSpec no file holds: the manifest's player records (kind and
    weights) bring it back, so the recorded design replays the same races."""
    from sim.skitour import players as PL

    base = PL.get_player("balanced")
    w = list(base.weights)
    w[0] += 1.5                                     # extra_min: a player that plays differently
    cand = G.P.PlayerSpec("candidate-3", base.kind, tuple(w))
    d = G.make_design("Starter", 4, players=(cand,))
    G.check_design(bundle, d)
    records = G.player_records(d)
    assert G.design_dict(d)["players"] == ["candidate-3"]
    back = G.design_from_dict(G.design_dict(d), records)
    assert back.players == (cand,)
    assert np.array_equal(G.play_chunk(bundle, back, 5, 0, 30)[0], G.play_chunk(bundle, d, 5, 0, 30)[0])
    # a named persona comes back with the weights it was played with, random stays a name
    d2 = G.make_design("Starter", 4, players=("balanced", "random", "balanced", "random"))
    back2 = G.design_from_dict(G.design_dict(d2), G.player_records(d2))
    assert back2.players[1] == "random" and back2.players[0].weights == base.weights
    assert np.array_equal(G.play_chunk(bundle, back2, 5, 0, 30)[0], G.play_chunk(bundle, d2, 5, 0, 30)[0])
