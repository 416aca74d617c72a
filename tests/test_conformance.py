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


def test_the_contract_names_what_a_module_lacks():
    """sim.contract.breaches: a missing member and a function with other parameters, by name."""
    import types

    from sim import contract

    mod = games.game("mania").load()
    fake = types.SimpleNamespace(**{k: getattr(mod, k) for k in dir(mod) if not k.startswith("_")})
    del fake.golden_log
    fake.block = lambda design: 1
    assert contract.breaches(fake, contract.GameModule) == [
        "block(design) should take (bundle, design)", "no golden_log"]


def test_a_registration_declares_its_hooks():
    """A game with players declares the roster hook (and only such a game); an unknown hook is refused."""
    base = dict(name="x", title="X", scenario="lane", racers=(2, 3), axes=("seat",), module="x")
    with pytest.raises(ValueError, match="a game with players has the roster hook"):
        games.GameInfo(**base, players=("random",))
    with pytest.raises(ValueError, match="no optional hook named 'rooster'"):
        games.GameInfo(**base, hooks=("rooster",))
    info = games.GameInfo(**base, players=("random",), hooks=("roster",), commands=("exact",))
    assert info.hook("report_params") is None and "roster" in info.hooks
