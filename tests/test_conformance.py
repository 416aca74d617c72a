"""The conformance suite (tests/conformance.py) over every shipped game: those whose modules live
in sim/. A game that lives in tests/ (tests/toygame) runs the same suite from its own test file."""
from __future__ import annotations

import pytest

from conformance import Conformance
from sim import games

SHIPPED = [g for g in games.names() if games.game(g).module.startswith("sim.")]


class TestShippedGames(Conformance):
    @pytest.fixture(scope="class", params=SHIPPED)
    @classmethod
    def game_name(cls, request):
        return request.param


def test_each_shipped_game_has_its_own_report_sections():
    assert all(games.game(g).layout for g in SHIPPED), "a shipped game without its report layout gets the core one only"
